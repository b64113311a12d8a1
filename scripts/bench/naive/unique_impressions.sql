-- naive/unique_impressions.sql — the numbers of `cardinal report unique-impressions` as a psql user would get
-- them without the report: count(distinct …) over the raw events, and a second pass per day for the daily
-- uniques. Variables (psql -v): app, from_date, to_date (report days, both included, UTC), campaign ('' for
-- every campaign). Prints CSV with the key columns that reports.py compares.
--
-- Differences from cardinal.unique_impressions that do not change the numbers of the benchmark's data: the
-- day is the UTC day (the bench app reports in UTC and sets no campaign time zone), and canvas steps are
-- left out (the benchmark has none).

with range_events as (
    select campaign_id, variant_id, channel, type, user_key, (time at time zone 'UTC')::date as day
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time >= :'from_date'::date::timestamptz
      and time < (:'to_date'::date + 1)::timestamptz
      and campaign_id is not null
      and (:'campaign' = '' or campaign_id = :'campaign')
      and type in ('send', 'impression', 'click', 'dismissal')
      and not control
      and not test
),
totals as (
    select campaign_id, variant_id, channel,
           count(*) filter (where type = 'impression') as impressions,
           count(distinct user_key) filter (where type = 'impression') as unique_impressions,
           count(*) filter (where type = 'click') as clicks,
           count(distinct user_key) filter (where type = 'click') as unique_clicks,
           count(*) filter (where type = 'dismissal') as dismissals,
           count(distinct user_key) filter (where type = 'dismissal') as unique_dismissals
    from range_events
    group by campaign_id, variant_id, channel
),
per_day as (
    select campaign_id, variant_id, channel, day,
           count(distinct user_key) filter (where type = 'impression') as impression_users,
           -- A push is received when sent; every other channel when seen.
           count(distinct user_key) filter (
               where type = case when channel = 'push' then 'send' else 'impression' end
           ) as recipients
    from range_events
    group by campaign_id, variant_id, channel, day
),
daily as (
    select campaign_id, variant_id, channel,
           sum(impression_users) as unique_daily_impressions,
           sum(recipients) as unique_recipients
    from per_day
    group by campaign_id, variant_id, channel
)
select t.campaign_id, t.variant_id, t.channel,
       t.impressions, t.unique_impressions, d.unique_daily_impressions, d.unique_recipients,
       t.clicks, t.unique_clicks, t.dismissals, t.unique_dismissals
from totals as t
join daily as d
  on d.campaign_id = t.campaign_id
 and d.variant_id is not distinct from t.variant_id
 and d.channel = t.channel
order by t.campaign_id, t.variant_id, t.channel;
