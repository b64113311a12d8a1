-- naive/control.sql — the per-arm counts of `cardinal report control` (users, converters) as a psql user
-- would get them without the report: each user's first exposure per arm from the raw events, then a
-- self-join of the events for the conversions within the window. Variables (psql -v): app, from_date,
-- to_date (report days, both included, UTC), campaign ('' for every campaign), as_of (the cut-off for
-- matured users). Prints CSV with the key columns that reports.py compares.
--
-- The definitions are those of SQL/docs/reports.md: exposure is the first impression (control arm: first
-- control impression; push: the send) up to the end of the range; users exposed to several arms are left
-- out; a user counts once exposure + window <= as_of, and converts with the campaign's conversion event
-- between exposure and exposure + window. The day is the UTC day, as the bench app reports in UTC.

with arm_exposures as (
    select campaign_id, user_key, control,
           case when control then null else variant_id end as variant_id,
           min(time) as first_time
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and campaign_id is not null
      and (:'campaign' = '' or campaign_id = :'campaign')
      and (type = 'impression' or (type = 'send' and channel = 'push'))
      and not test
      and time < (:'to_date'::date + 1)::timestamptz
    group by campaign_id, user_key, control, case when control then null else variant_id end
),
single_arm_users as (
    select campaign_id, user_key, min(first_time) as exposed_at, bool_and(control) as control,
           min(variant_id) as variant_id
    from arm_exposures
    group by campaign_id, user_key
    having count(*) = 1
)
select x.campaign_id, x.variant_id, x.control,
       count(distinct x.user_key) filter (where x.exposed_at + s.conversion_window <= :'as_of'::timestamptz)
           as users,
       count(distinct c.user_key) filter (where x.exposed_at + s.conversion_window <= :'as_of'::timestamptz)
           as converters
from single_arm_users as x
join cardinal.campaign_settings as s
  on s.app_id = (select app_id from cardinal.apps where name = :'app') and s.campaign_id = x.campaign_id
left join cardinal.events as c
  on c.app_id = s.app_id
 and c.type = 'conversion'
 and c.user_key = x.user_key
 and c.conversion_name = s.conversion_event
 and c.time between x.exposed_at and x.exposed_at + s.conversion_window
 and not c.test
where x.exposed_at >= :'from_date'::date::timestamptz
group by x.campaign_id, x.variant_id, x.control
order by x.campaign_id, x.control desc, x.variant_id nulls first;
