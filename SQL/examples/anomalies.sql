-- anomalies.sql — integration health in psql: which build of which app logs what wrong. The same function
-- `cardinal report anomalies` runs (which adds sample_ratio_mismatch from the control report).
--     psql -v app=shop -f SQL/examples/anomalies.sql "$CARDINAL_DATABASE_URL"
\set ON_ERROR_STOP 1
\if :{?app}
\else
    \set app shop
\endif

-- 1. Everything found in the last 7 report days, most severe first.
select severity, kind, campaign_id, channel, platform, sdk_version, app_version, evidence
from cardinal.anomalies(:'app', current_date - 7, current_date - 1)
limit 50;

-- 2. Which SDK versions log dismissals (or clicks) without impressions, and how often? Ranks the builds to fix.
select platform, sdk_version,
       sum((evidence ->> 'users_without_impression')::int) as users_without_impression,
       sum((evidence ->> 'users')::int) as acting_users
from cardinal.anomalies(:'app', current_date - 30, current_date - 1)
where kind in ('dismissal_without_impression', 'click_without_impression')
group by platform, sdk_version
order by users_without_impression desc;

-- 3. Campaigns whose control arm loses its control impressions (the SRM check will flag them next).
select campaign_id, channel, platform, sdk_version,
       evidence ->> 'variant_impression_users' as variant_users,
       evidence ->> 'expected_control_impression_users' as expected_control_users
from cardinal.anomalies(:'app', current_date - 30, current_date - 1)
where kind = 'control_impressions_missing';

-- 4. What ingest rejected as control interactions, with the raw events (the evidence behind control_interaction).
select received_at, message, raw
from cardinal.rejected_events
where code = 'control_interaction'
  and app_id = (select app_id from cardinal.apps where name = :'app')
order by received_at desc
limit 20;

-- 5. The stored findings of the newest run, sample ratio mismatches included.
select kind, severity, campaign_id, platform, sdk_version, evidence, likely_cause
from cardinal.latest_anomalies
where severity <> 'info'
order by position;
