-- unique_impressions.sql — questions about reach and engagement, answered in psql with the same function
-- `cardinal report unique-impressions` runs. Run as any member of cardinal_reader:
--     psql -v app=shop -f SQL/examples/unique_impressions.sql "$CARDINAL_DATABASE_URL"
\set ON_ERROR_STOP 1
\if :{?app}
\else
    \set app shop
\endif

-- 1. Last 7 report days, every campaign: reach and click-through, best unique click rate first.
select campaign_id, variant_id, channel, unique_impressions, unique_clicks,
       round(unique_click_rate::numeric, 4) as unique_click_rate
from cardinal.unique_impressions(:'app', current_date - 7, current_date - 1)
order by unique_click_rate desc nulls last;

-- 2. One campaign per report day. For in-app messages Braze's "unique impressions" count a user again on each
--    new day: that is unique_daily_impressions (the sum of these daily rows), not unique_impressions.
select breakdown as day, variant_id, impressions, unique_impressions as users_that_day
from cardinal.unique_impressions(:'app', current_date - 7, current_date - 1, campaign => 'c06', by => 'day')
order by day, variant_id;

-- 3. Which SDK versions show a campaign's cards but get no clicks? (a UI that breaks the click handler)
select breakdown as sdk_version, sum(impressions) as impressions, sum(clicks) as clicks
from cardinal.unique_impressions(:'app', current_date - 30, current_date - 1, campaign => 'c05', by => 'sdk_version')
group by breakdown
order by sum(clicks)::numeric / nullif(sum(impressions), 0) nulls first;

-- 4. Test sends included: how much of the traffic was QA?
select sum(all_events.impressions) - sum(real_events.impressions) as test_impressions
from cardinal.unique_impressions(:'app', current_date - 30, current_date - 1, include_test => true) as all_events
join cardinal.unique_impressions(:'app', current_date - 30, current_date - 1) as real_events
    using (campaign_id, canvas_id, canvas_step_id, variant_id, channel);

-- 5. The numbers of the newest stored run, without recomputing (`cardinal report run` keeps them).
select r.started_at, u.campaign_id, u.variant_id, u.unique_impressions, u.unique_click_rate
from cardinal.latest_unique_impressions as u
join cardinal.report_runs as r using (run_id)
order by u.position
limit 20;
