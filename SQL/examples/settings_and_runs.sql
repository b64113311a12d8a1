-- settings_and_runs.sql — campaign settings and stored report runs from psql. Changing settings needs
-- cardinal_owner (or `cardinal campaigns set`); reading needs cardinal_reader.
--     psql -v app=shop -f SQL/examples/settings_and_runs.sql "$CARDINAL_DATABASE_URL"
\set ON_ERROR_STOP 1
\if :{?app}
\else
    \set app shop
\endif

-- 1. Every campaign's report settings, and which time zone its report day is in.
select s.campaign_id, s.conversion_event, s.conversion_window, s.expected_split,
       coalesce(s.report_time_zone, a.report_time_zone) as report_time_zone
from cardinal.campaign_settings as s
join cardinal.apps as a using (app_id)
where a.name = :'app'
order by s.campaign_id;

-- 2. Campaigns with traffic in the last 30 days but no conversion goal: the control report cannot judge them.
select distinct e.campaign_id
from cardinal.events as e
join cardinal.apps as a using (app_id)
left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
where a.name = :'app' and e.campaign_id is not null and e.type = 'impression'
  and e.time >= now() - interval '30 days'
  and s.conversion_event is null;

-- 3. The last report runs, how long they took, and why any failed (the Grafana panel reads the same).
select run_id, started_at, finished_at - started_at as took, status, anomaly_count, error,
       parameters ->> 'from' as from_day, parameters ->> 'to' as to_day
from cardinal.report_runs
order by run_id desc
limit 10;

-- 4. Setting a campaign in psql, as `cardinal campaigns set` does (run as a member of cardinal_owner):
--      insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window,
--                                              expected_split)
--      select app_id, 'c06', 'purchase', interval '3 days', '{"control": 1, "v1": 1, "v2": 1}'
--      from cardinal.apps where name = 'shop'
--      on conflict (app_id, campaign_id) do update
--          set conversion_event = excluded.conversion_event, conversion_window = excluded.conversion_window,
--              expected_split = excluded.expected_split;

-- 5. Pruning stored runs older than 90 days (their rows go with them; run as a member of cardinal_owner):
--      delete from cardinal.report_runs where started_at < now() - interval '90 days';
