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
comment on column cardinal.latest_report_run.run_id is
    'Identifier of the run, increasing with each run; stamped on every result row.';
comment on column cardinal.latest_report_run.started_at is
    'When the run started.';
comment on column cardinal.latest_report_run.finished_at is
    'When the run succeeded or failed; NULL while it is running.';
comment on column cardinal.latest_report_run.parameters is
    'The run''s parameters as a JSON object: app (null = all), from and to (report days, both included), '
    'as_of, include_test.';
comment on column cardinal.latest_report_run.anomaly_count is
    'How many anomaly findings the run stored (every severity); NULL until it succeeded.';


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
comment on column cardinal.latest_unique_impressions.run_id is
    'The run (report_runs) that computed the row.';
comment on column cardinal.latest_unique_impressions.position is
    'Position of the row in the report''s order, from 1.';
comment on column cardinal.latest_unique_impressions.app_name is
    'Name of the app.';
comment on column cardinal.latest_unique_impressions.campaign_id is
    'Campaign; NULL for a canvas step.';
comment on column cardinal.latest_unique_impressions.canvas_id is
    'Canvas of a canvas step; NULL for a campaign.';
comment on column cardinal.latest_unique_impressions.canvas_step_id is
    'Canvas step; NULL for a campaign.';
comment on column cardinal.latest_unique_impressions.variant_id is
    'Variant; NULL for a message without variants.';
comment on column cardinal.latest_unique_impressions.channel is
    'Channel of the message.';
comment on column cardinal.latest_unique_impressions.impressions is
    'Impression events (control impressions excluded).';
comment on column cardinal.latest_unique_impressions.unique_impressions is
    'Users with an impression in the range.';
comment on column cardinal.latest_unique_impressions.unique_daily_impressions is
    'Sum over report days of the users with an impression that day.';
comment on column cardinal.latest_unique_impressions.unique_recipients is
    'Sum over report days of the users who received the message that day (a send; an impression for '
    'content cards and in-app messages).';
comment on column cardinal.latest_unique_impressions.clicks is
    'Click events.';
comment on column cardinal.latest_unique_impressions.unique_clicks is
    'Users who clicked.';
comment on column cardinal.latest_unique_impressions.dismissals is
    'Dismissal events.';
comment on column cardinal.latest_unique_impressions.unique_dismissals is
    'Users who dismissed.';
comment on column cardinal.latest_unique_impressions.click_rate is
    'clicks / impressions; NULL without impressions.';
comment on column cardinal.latest_unique_impressions.unique_click_rate is
    'unique_clicks / unique_impressions; NULL without impressions.';
comment on column cardinal.latest_unique_impressions.dismissal_rate is
    'dismissals / impressions; NULL without impressions.';
comment on column cardinal.latest_unique_impressions.unique_dismissal_rate is
    'unique_dismissals / unique_impressions; NULL without impressions.';
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
comment on column cardinal.latest_anomalies.run_id is
    'The run (report_runs) that found it.';
comment on column cardinal.latest_anomalies.position is
    'Position of the finding in the report''s order (most severe first), from 1.';
comment on column cardinal.latest_anomalies.kind is
    'What is wrong: a kind of cardinal.anomalies, or sample_ratio_mismatch or variant_worse_than_control from '
    'the control report (definitions in SQL/docs/reports.md).';
comment on column cardinal.latest_anomalies.severity is
    'info, warning or critical.';
comment on column cardinal.latest_anomalies.app_name is
    'Name of the app.';
comment on column cardinal.latest_anomalies.campaign_id is
    'Campaign of the events that show the problem; NULL for a canvas step.';
comment on column cardinal.latest_anomalies.canvas_id is
    'Canvas of the canvas step whose events show the problem; NULL for a campaign.';
comment on column cardinal.latest_anomalies.canvas_step_id is
    'Canvas step whose events show the problem; NULL for a campaign.';
comment on column cardinal.latest_anomalies.channel is
    'Channel of those events; NULL for campaign-wide findings (SRM).';
comment on column cardinal.latest_anomalies.platform is
    'Platform of those events; NULL when not sent or campaign-wide.';
comment on column cardinal.latest_anomalies.sdk_version is
    'SDK version of those events; NULL when not sent or campaign-wide.';
comment on column cardinal.latest_anomalies.app_version is
    'App version of those events; NULL when not sent or campaign-wide.';
comment on column cardinal.latest_anomalies.evidence is
    'The numbers behind the finding, as a JSON object.';
comment on column cardinal.latest_anomalies.likely_cause is
    'One line on the integration bug that usually causes it.';


-- r.* is expanded when the view is made: making it again here shows every column report_control has.
create or replace view cardinal.latest_control as
    select r.*
    from cardinal.report_control as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;
alter view cardinal.latest_control owner to cardinal_owner;
grant select on cardinal.latest_control to cardinal_reader;
comment on view cardinal.latest_control is 'report_control of the newest succeeded run, in report order.';
comment on column cardinal.latest_control.run_id is
    'The run (report_runs) that computed the row.';
comment on column cardinal.latest_control.position is
    'Position of the row in the report''s order, from 1.';
comment on column cardinal.latest_control.app_name is
    'Name of the app.';
comment on column cardinal.latest_control.campaign_id is
    'The campaign.';
comment on column cardinal.latest_control.conversion_event is
    'The conversion event counted; NULL when none is set.';
comment on column cardinal.latest_control.window_length is
    'The conversion window.';
comment on column cardinal.latest_control.as_of is
    'Users whose exposure + window is after this were immature and left out.';
comment on column cardinal.latest_control.variant_id is
    'The variant of the arm; NULL for the control arm (and a campaign without variants).';
comment on column cardinal.latest_control.control is
    'True for the control arm.';
comment on column cardinal.latest_control.users is
    'Matured users of the arm (exposed in the range, window elapsed, in one arm only).';
comment on column cardinal.latest_control.converters is
    'Matured users who converted within the window; NULL without a conversion event.';
comment on column cardinal.latest_control.rate is
    'converters / users; NULL when undefined.';
comment on column cardinal.latest_control.exposed_users is
    'Users first exposed in the range, matured or not (in one arm only).';
comment on column cardinal.latest_control.users_in_several_arms is
    'Users of the campaign excluded for being exposed to several arms.';
comment on column cardinal.latest_control.difference is
    'rate − control rate (variant rows).';
comment on column cardinal.latest_control.difference_ci95_lower is
    'Newcombe 95% interval of difference, lower bound.';
comment on column cardinal.latest_control.difference_ci95_upper is
    'Newcombe 95% interval of difference, upper bound.';
comment on column cardinal.latest_control.relative_lift is
    '(rate − control rate) / control rate.';
comment on column cardinal.latest_control.relative_lift_ci95_lower is
    'Katz (log risk ratio) 95% interval of relative_lift, lower bound.';
comment on column cardinal.latest_control.relative_lift_ci95_upper is
    'Katz (log risk ratio) 95% interval of relative_lift, upper bound.';
comment on column cardinal.latest_control.z is
    'Pooled two-proportion z statistic.';
comment on column cardinal.latest_control.p_value is
    'Two-sided p-value of z.';
comment on column cardinal.latest_control.p_value_holm is
    'p_value adjusted by Holm across the campaign''s variants.';
comment on column cardinal.latest_control.confidence is
    'Braze''s confidence, Φ(z).';
comment on column cardinal.latest_control.chance_to_beat_control is
    'P(variant rate > control rate) under Beta(1+x, 1+n−x) posteriors.';
comment on column cardinal.latest_control.srm_chi2 is
    'Sample ratio check: Pearson chi-square of the arm sizes against the expected split.';
comment on column cardinal.latest_control.srm_df is
    'Sample ratio check: degrees of freedom (arms − 1).';
comment on column cardinal.latest_control.srm_p_value is
    'Sample ratio check: p-value.';
comment on column cardinal.latest_control.srm_mismatch is
    'Sample ratio check: p_value < 0.001.';
comment on column cardinal.latest_control.srm_skipped is
    'Why the sample ratio check was not run; NULL when it was.';
comment on column cardinal.latest_control.srm_split_source is
    'Where the expected split of the sample ratio check came from: configured (campaigns set --split), '
    'learned_from_sends (users per arm of the campaign''s sends), or unknown (then the check was skipped); '
    'NULL in runs stored before the split source was recorded.';
comment on column cardinal.latest_control.always_valid_difference_ci95_lower is
    'Always-valid 95% interval of difference (Howard et al.''s asymptotic confidence sequence, tuned for 5000 '
    'users), lower bound; variant rows; NULL when nobody or everybody converted in both arms, and in runs '
    'stored before the always-valid numbers were.';
comment on column cardinal.latest_control.always_valid_difference_ci95_upper is
    'Always-valid 95% interval of difference, upper bound.';
comment on column cardinal.latest_control.always_valid_lift_ci95_lower is
    'Always-valid 95% interval of relative_lift (delta method, symmetric around the lift), lower bound; NULL '
    'also when the control rate is 0.';
comment on column cardinal.latest_control.always_valid_lift_ci95_upper is
    'Always-valid 95% interval of relative_lift, upper bound.';
comment on column cardinal.latest_control.always_valid_p_value is
    'Always-valid p-value of difference = 0: at most 0.05 exactly when the always-valid difference interval '
    'excludes 0, however often the report is read.';
comment on column cardinal.latest_control.always_valid_p_value_holm is
    'always_valid_p_value adjusted by Holm across the campaign''s variants.';
comment on column cardinal.latest_control.significance is
    'The rule that decided significant for the campaign (on each of its rows): sequential '
    '(always_valid_p_value_holm < 0.05) or fixed (p_value_holm < 0.05).';
comment on column cardinal.latest_control.significance_source is
    'Where significance came from: option (report control --significance), campaign (campaign_settings.'
    'significance) or default (sequential: the campaign sets none).';
comment on column cardinal.latest_control.significant is
    'Whether the variant differs from control under significance (variant rows); NULL when the p-value it '
    'needs is undefined. A variant significantly below control is a variant_worse_than_control finding.';
comment on column cardinal.latest_control.mde is
    'Minimum detectable difference at today''s matured users: two-sided alpha 0.05, power 0.8, both arms at '
    'the control rate (variant rows).';
comment on column cardinal.latest_control.mde_lift is
    'mde as a relative lift: mde / control rate; NULL when the control rate is 0.';


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
       f.control_impressions, f.control_sends
from cardinal.report_daily_count_facts as f
join cardinal.apps as a on a.app_id = f.app_id;
alter view cardinal.daily_message_counts owner to cardinal_owner;
grant select on cardinal.daily_message_counts to cardinal_reader;
comment on view cardinal.daily_message_counts is
    'Events per app, message source, variant, channel, platform, SDK version, app version, test flag and report '
    'day, by kind, with the app''s name: report_daily_count_facts (the folded report state and the events not '
    'folded yet) for dashboards and psql. A report group can have two rows for one day (folded and not yet '
    'folded): sum them.';
comment on column cardinal.daily_message_counts.app_name is 'Name of the app (apps.name).';
comment on column cardinal.daily_message_counts.app_id is 'The app (apps.app_id).';
comment on column cardinal.daily_message_counts.campaign_id is 'Campaign of the events; NULL for canvas steps and events of no campaign.';
comment on column cardinal.daily_message_counts.canvas_id is 'Canvas of the events; NULL for campaigns.';
comment on column cardinal.daily_message_counts.canvas_step_id is 'Canvas step of the events; NULL for campaigns.';
comment on column cardinal.daily_message_counts.variant_id is 'Variant of the events as sent (control events included).';
comment on column cardinal.daily_message_counts.channel is 'Channel of the events.';
comment on column cardinal.daily_message_counts.platform is 'Platform of the events, NULL when not sent.';
comment on column cardinal.daily_message_counts.sdk_version is 'SDK version of the events, NULL when not sent.';
comment on column cardinal.daily_message_counts.app_version is 'App version of the events, NULL when not sent.';
comment on column cardinal.daily_message_counts.test is 'Whether the events are test events.';
comment on column cardinal.daily_message_counts.day is
    'Report day: calendar day of the event time in the campaign''s report time zone (else the app''s).';
comment on column cardinal.daily_message_counts.impressions is 'Impression events (control impressions excluded).';
comment on column cardinal.daily_message_counts.clicks is 'Click events.';
comment on column cardinal.daily_message_counts.dismissals is 'Dismissal events.';
comment on column cardinal.daily_message_counts.sends is 'Send events (control sends excluded).';
comment on column cardinal.daily_message_counts.control_impressions is 'Control impressions (control: true).';
comment on column cardinal.daily_message_counts.control_sends is 'Control sends (control: true).';
