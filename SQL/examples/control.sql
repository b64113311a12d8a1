-- control.sql — control-group comparisons in psql. cardinal.control_arms gives the counts; the statistics
-- (intervals, p-values, chance to beat control, SRM) are computed by `cardinal report control` and stored by
-- `cardinal report run` in cardinal.report_control.
--     psql -v app=shop -v campaign=c06 -f SQL/examples/control.sql "$CARDINAL_DATABASE_URL"
\set ON_ERROR_STOP 1
\if :{?app}
\else
    \set app shop
\endif
\if :{?campaign}
\else
    \set campaign c06
\endif

-- 1. Matured users and converters per arm, with the rate and the plain lift over control.
with arms as (
    select *, converters::double precision / nullif(users, 0) as rate
    from cardinal.control_arms(:'app', :'campaign', current_date - 30, current_date - 1)
)
select variant_id, control, users, converters, exposed_users, users_in_several_arms,
       round(rate::numeric, 4) as rate,
       round(((rate / nullif(max(rate) filter (where control) over (), 0)) - 1)::numeric, 4) as lift
from arms
order by control desc, variant_id;

-- 2. The same with another conversion event and a 7-day window, without touching the campaign's settings.
select variant_id, control, users, converters
from cardinal.control_arms(:'app', :'campaign', current_date - 30, current_date - 8,
                           conversion => 'purchase', conversion_window => interval '7 days');

-- 3. Who is still maturing: users exposed in the range whose window has not elapsed yet.
select variant_id, control, exposed_users - users as immature_users
from cardinal.control_arms(:'app', :'campaign', current_date - 30, current_date - 1);

-- 4. The newest stored comparison: significant variants (Holm-adjusted) and campaigns with a broken split.
select campaign_id, variant_id, round(rate::numeric, 4) as rate, round(difference::numeric, 4) as difference,
       round(difference_ci95_lower::numeric, 4) as ci_lower, round(difference_ci95_upper::numeric, 4) as ci_upper,
       p_value_holm, round(chance_to_beat_control::numeric, 3) as chance_to_beat_control, srm_mismatch
from cardinal.latest_control
where not control and (p_value_holm < 0.05 or srm_mismatch)
order by campaign_id, variant_id;
