-- Stored report runs and what the dashboards read.
--
-- `cardinal report run` stores each run in report_runs and its rows in report_unique_impressions,
-- report_anomalies and report_control; the latest_* views show the newest succeeded run (latest_report_run)
-- and its rows, which is what the Grafana dashboards and psql users read. daily_message_counts gives the
-- dashboards the report state's daily counts with the app's name.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- The newest succeeded run, and its rows. A view rather than a copy, so that there is nothing to keep in
-- step; the (run_id, position) primary keys make each an index range scan.
create or replace view cardinal.latest_report_run as
    select run_id, started_at, finished_at, parameters, anomaly_count
    from cardinal.report_runs
    where status = 'succeeded'
    order by run_id desc
    limit 1;
alter view cardinal.latest_report_run owner to cardinal_owner;
grant select on cardinal.latest_report_run to cardinal_reader;
comment on view cardinal.latest_report_run is 'The newest succeeded report run (one row, or none before the first).';
select cardinal.copy_column_comments('cardinal.latest_report_run', 'cardinal.report_runs');


-- PostgreSQL expands r.* into the table's columns when the view is made, so a column added to the table
-- later appears here only because this file makes the view again whenever the code files apply.
create or replace view cardinal.latest_unique_impressions as
    select r.*
    from cardinal.report_unique_impressions as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;
alter view cardinal.latest_unique_impressions owner to cardinal_owner;
grant select on cardinal.latest_unique_impressions to cardinal_reader;
comment on view cardinal.latest_unique_impressions is 'report_unique_impressions of the newest succeeded run, in report order.';
select cardinal.copy_column_comments('cardinal.latest_unique_impressions', 'cardinal.report_unique_impressions');
comment on column cardinal.latest_unique_impressions.direct_opens is
    'Push only: direct opens (push clicks); NULL on other channels and in runs stored before push opens were reported.';
comment on column cardinal.latest_unique_impressions.unique_direct_opens is
    'Push only: users with a direct open; NULL on other channels and in runs stored before push opens were reported.';
comment on column cardinal.latest_unique_impressions.influenced_opens is
    'Push only: users who opened the app within the influenced-open window after a send without a direct '
    'open; NULL on other channels and in runs stored before push opens were reported.';
comment on column cardinal.latest_unique_impressions.total_opens is
    'Push only: unique_direct_opens + influenced_opens; NULL on other channels and in runs stored before '
    'push opens were reported.';
comment on column cardinal.latest_unique_impressions.direct_open_rate is
    'Push only: unique_direct_opens / unique_recipients; NULL without recipients, on other channels and '
    'in runs stored before push opens were reported.';
comment on column cardinal.latest_unique_impressions.total_open_rate is
    'Push only: total_opens / unique_recipients; NULL without recipients, on other channels and in runs '
    'stored before push opens were reported.';


create or replace view cardinal.latest_anomalies as
    select r.*
    from cardinal.report_anomalies as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;
alter view cardinal.latest_anomalies owner to cardinal_owner;
grant select on cardinal.latest_anomalies to cardinal_reader;
comment on view cardinal.latest_anomalies is 'report_anomalies of the newest succeeded run, most severe first.';
select cardinal.copy_column_comments('cardinal.latest_anomalies', 'cardinal.report_anomalies');
comment on column cardinal.latest_anomalies.canvas_id is
    'Canvas of the canvas step whose events show the problem; NULL for a campaign.';
comment on column cardinal.latest_anomalies.canvas_step_id is
    'Canvas step whose events show the problem; NULL for a campaign.';


-- r.* is expanded when the view is made: making it again here shows every column report_control has.
create or replace view cardinal.latest_control as
    select r.*
    from cardinal.report_control as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;
alter view cardinal.latest_control owner to cardinal_owner;
grant select on cardinal.latest_control to cardinal_reader;
comment on view cardinal.latest_control is 'report_control of the newest succeeded run, in report order.';
select cardinal.copy_column_comments('cardinal.latest_control', 'cardinal.report_control');


-- What the Grafana dashboards (Dashboards/) read besides the report functions and the stored runs: the
-- daily counts of the report state with the app's name (the Wilson interval of a rate they draw is
-- wilson_interval, with the report helpers).
--
-- Why a view: the Engagement, Integration health and Reports dashboards all chart events per report day by
-- campaign, variant, platform or SDK version. report_daily_count_facts has them per report group and day
-- (a few hundred thousand rows at 10 M events, growing with groups × days, not with events), but knows the
-- app by its id only, and a dashboard filters by name. Joining apps in every panel would repeat the same
-- lines six times; the view says it once, and psql users get it too.

create or replace view cardinal.daily_message_counts as
select a.name as app_name, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id, f.channel,
       f.platform, f.sdk_version, f.app_version, f.test, f.day, f.impressions, f.clicks, f.dismissals, f.sends,
       f.control_impressions, f.control_sends, f.deliveries
from cardinal.report_daily_count_facts as f
join cardinal.apps as a on a.app_id = f.app_id;
alter view cardinal.daily_message_counts owner to cardinal_owner;
grant select on cardinal.daily_message_counts to cardinal_reader;
comment on view cardinal.daily_message_counts is
    'Events per app, message source, variant, channel, platform, SDK version, app version, test flag and report '
    'day, by kind, with the app''s name: report_daily_count_facts (the folded report state and the events not '
    'folded yet) for dashboards and psql. A report group can have two rows for one day (folded and not yet '
    'folded): sum them.';
select cardinal.copy_column_comments(
    'cardinal.daily_message_counts', 'cardinal.report_groups', 'cardinal.report_unique_impressions'
);
comment on column cardinal.daily_message_counts.app_name is 'Name of the app (apps.name).';
comment on column cardinal.daily_message_counts.campaign_id is 'Campaign of the events; NULL for canvas steps and events of no campaign.';
comment on column cardinal.daily_message_counts.day is
    'Report day: calendar day of the event time in the campaign''s report time zone (else the app''s).';
comment on column cardinal.daily_message_counts.sends is 'Send events (control sends excluded).';
comment on column cardinal.daily_message_counts.control_impressions is 'Control impressions (control: true).';
comment on column cardinal.daily_message_counts.control_sends is 'Control sends (control: true).';
comment on column cardinal.daily_message_counts.deliveries is
    'Push deliveries: delivery events, the devices reporting the notification received (0 on other channels).';
