-- CUPED from the control counts (issue 47). Each report_control_exposures row keeps x, its user's conversions of
-- the campaign's conversion event in the pre-exposure window (pre_exposure_conversions), and
-- report_control_exposure_days sums x, x² and x over the converters per day and arm, so that
-- control_arm_covariates reads counts as control_arms does (code files) instead of every matured user's
-- conversions: 1.09–1.36 s for the largest CUPED campaign of the 10 M-event bench, against 81–96 ms for
-- control_arms on the same database (docs/performance.md).
--
-- The rows folded before this migration get their x here from the folded conversions (the pending ones are
-- the next fold's, as for converted_at), and the day counts their sums; a fresh install holds none. Only the
-- rows with an x above 0 are written. The statement triggers of report_control_exposures that run meanwhile
-- are the previous release's: they ignore x, and an update that keeps a row's day, arm and conversion nets to
-- nothing in them. Until the code files that follow are applied, the control reports fail (their bodies read
-- what this drops) and the previous settings trigger keeps x: change no campaign setting during the upgrade.

alter table cardinal.report_control_exposures add column pre_exposure_conversions bigint not null default 0;
alter table cardinal.report_control_exposures alter column pre_exposure_conversions drop default;
comment on column cardinal.report_control_exposures.pre_exposure_conversions is
    'CUPED''s x: the user''s non-test conversions of conversion_event in [exposed_at - the campaign''s '
    'cuped_window (14 days when not set), exposed_at), the window in elapsed time; 0 without a conversion event.';

alter table cardinal.report_control_exposure_days
    add column sum_x bigint not null default 0,
    add column sum_x_squares bigint not null default 0,
    add column sum_xy bigint not null default 0;
alter table cardinal.report_control_exposure_days
    alter column sum_x drop default,
    alter column sum_x_squares drop default,
    alter column sum_xy drop default;
comment on column cardinal.report_control_exposure_days.sum_x is
    'Σx over the users: their report_control_exposures.pre_exposure_conversions.';
comment on column cardinal.report_control_exposure_days.sum_x_squares is 'Σx² over the users.';
comment on column cardinal.report_control_exposure_days.sum_xy is
    'Σx over the converters (y = 1 for a user converted within the configured window, as converters counts).';

do $migration$
begin
    if not exists (select from cardinal.report_control_exposures where conversion_event is not null) then
        return;
    end if;
    update cardinal.report_control_exposures as r
    set pre_exposure_conversions = x.conversions
    from (
        select r.app_id, r.campaign_id, r.user_key,
               (select count(*)
                from cardinal.report_conversion_state as v
                cross join lateral unnest(v.times) as t (time)
                where v.app_id = r.app_id and v.user_key = r.user_key and v.conversion_name = r.conversion_event
                  and not v.test
                  and t.time >= r.exposed_at - make_interval(secs => extract(epoch from window_length.length))
                  and t.time < r.exposed_at) as conversions
        from cardinal.report_control_exposures as r
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join lateral (select coalesce(s.cuped_window, interval '14 days') as length) as window_length
        where r.conversion_event is not null
    ) as x
    where r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key
      and x.conversions > 0;

    update cardinal.report_control_exposure_days as d
    set sum_x = x.sum_x, sum_x_squares = x.sum_x_squares, sum_xy = x.sum_xy
    from (
        select r.app_id, r.campaign_id,
               (r.exposed_at at time zone clock.time_zone)::date as exposed_day,
               r.control,
               coalesce(r.variant_id, '') as variant_key,
               coalesce((r.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
               sum(r.pre_exposure_conversions) as sum_x,
               sum(r.pre_exposure_conversions * r.pre_exposure_conversions) as sum_x_squares,
               coalesce(sum(r.pre_exposure_conversions) filter (
                   where r.converted_at <= cardinal.report_window_end(r.exposed_at, clock.window_length,
                                                                      clock.time_zone)
               ), 0) as sum_xy
        from cardinal.report_control_exposures as r
        join cardinal.apps as a on a.app_id = r.app_id
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join lateral (
            select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
                   coalesce(s.conversion_window, interval '3 days') as window_length
        ) as clock
        where r.pre_exposure_conversions > 0
        group by 1, 2, 3, 4, 5, 6
    ) as x
    where d.app_id = x.app_id and d.campaign_id = x.campaign_id and d.exposed_day = x.exposed_day
      and d.control = x.control and d.variant_key = x.variant_key and d.second_arm_day = x.second_arm_day;
end
$migration$;

-- pending_control_exposures returns x too, so it and the view over it are made again by the code files; the
-- control counts' body for control_arms becomes control_arm_sums_from_exposures, which CUPED reads as well.
drop function if exists cardinal.pending_control_exposures(text) cascade;
drop function if exists cardinal.control_arms_from_exposures(text, text, date, date, timestamptz, interval);

create type cardinal.control_arm_sums_row as (
    app_name              text,
    campaign_id           text,
    conversion_event      text,
    window_length         interval,
    pre_exposure_window   interval,
    variant_id            text,
    control               boolean,
    users                 bigint,
    converters            bigint,
    exposed_users         bigint,
    users_in_several_arms bigint,
    sum_x                 bigint,
    sum_x_squares         bigint,
    sum_xy                bigint
);
alter type cardinal.control_arm_sums_row owner to cardinal_owner;
comment on type cardinal.control_arm_sums_row is
    'An arm of the control report from the control counts with CUPED''s sums beside it: '
    'control_arm_sums_from_exposures returns it, control_arms and control_arm_covariates read their columns.';
comment on type cardinal.control_arms_row is
    'An arm of the control report: control_arms, the bodies it picks from (control_arm_sums_from_exposures, '
    'control_arms_from_user_state, control_arms_of_cohort) and control_arms_reference return it (columns '
    'explained on control_arms).';
