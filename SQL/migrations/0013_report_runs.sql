-- 0013_report_runs.sql — stored report runs: what `cardinal report run` (the scheduled job) computed, so
-- that psql users and Grafana read the latest results without recomputing them.
--
-- A run is one row of report_runs, inserted as 'running' and committed at once (so a dashboard sees a run
-- in progress), then finished as 'succeeded' together with its result rows in one transaction, or marked
-- 'failed' with the error. A failed run therefore has no rows, and the latest_* views never show a half
-- run. Result rows carry the run_id and their position in the report's order; deleting a run deletes its
-- rows (ON DELETE CASCADE), which is how old runs are pruned:
--     delete from cardinal.report_runs where started_at < now() - interval '90 days';
--
-- The tables are written by `cardinal` running as a member of cardinal_owner and read by cardinal_reader.
-- Column names are those of the report functions (0010–0012) and of the CLI's JSON, so that a script can
-- switch between them.

create table cardinal.report_runs (
    run_id        bigint      generated always as identity,
    started_at    timestamptz not null default now(),
    finished_at   timestamptz,
    parameters    jsonb       not null,
    status        text        not null default 'running',
    anomaly_count integer,
    error         text,

    constraint report_runs_pkey primary key (run_id),
    constraint report_runs_status_known check (status in ('running', 'succeeded', 'failed')),
    constraint report_runs_finished_when_done check ((finished_at is null) = (status = 'running')),
    constraint report_runs_parameters_object check (jsonb_typeof(parameters) = 'object'),
    constraint report_runs_anomaly_count_non_negative check (anomaly_count >= 0)
);

alter table cardinal.report_runs owner to cardinal_owner;

comment on table cardinal.report_runs is
    'One row per run of the scheduled report job (`cardinal report run`): when, with which parameters, and '
    'how it ended. Its results are in report_unique_impressions, report_anomalies and report_control; the '
    'latest_* views show those of the newest succeeded run.';
comment on column cardinal.report_runs.run_id is
    'Identifier of the run, increasing with each run; stamped on every result row.';
comment on column cardinal.report_runs.started_at is
    'When the run started.';
comment on column cardinal.report_runs.finished_at is
    'When the run succeeded or failed; NULL while it is running.';
comment on column cardinal.report_runs.parameters is
    'The run''s parameters as a JSON object: app (null = all), from and to (report days, both included), '
    'as_of, include_test.';
comment on column cardinal.report_runs.status is
    'running, succeeded or failed. Only a succeeded run has result rows.';
comment on column cardinal.report_runs.anomaly_count is
    'How many anomaly findings the run stored (every severity); NULL until it succeeded.';
comment on column cardinal.report_runs.error is
    'Why a failed run failed (one line); NULL otherwise.';


create table cardinal.report_unique_impressions (
    run_id                   bigint           not null,
    position                 integer          not null,
    app_name                 text             not null,
    campaign_id              text,
    canvas_id                text,
    canvas_step_id           text,
    variant_id               text,
    channel                  text             not null,
    impressions              bigint           not null,
    unique_impressions       bigint           not null,
    unique_daily_impressions bigint           not null,
    unique_recipients        bigint           not null,
    clicks                   bigint           not null,
    unique_clicks            bigint           not null,
    dismissals               bigint           not null,
    unique_dismissals        bigint           not null,
    click_rate               double precision,
    unique_click_rate        double precision,
    dismissal_rate           double precision,
    unique_dismissal_rate    double precision,

    constraint report_unique_impressions_pkey primary key (run_id, position),
    constraint report_unique_impressions_run_id_fkey foreign key (run_id)
        references cardinal.report_runs (run_id) on delete cascade
);

alter table cardinal.report_unique_impressions owner to cardinal_owner;

comment on table cardinal.report_unique_impressions is
    'Rows of the unique-impressions report (cardinal.unique_impressions, no breakdown) of each report run, '
    'over the run''s report days. Read the newest with cardinal.latest_unique_impressions.';
comment on column cardinal.report_unique_impressions.run_id is 'The run (report_runs) that computed the row.';
comment on column cardinal.report_unique_impressions.position is 'Position of the row in the report''s order, from 1.';
comment on column cardinal.report_unique_impressions.app_name is 'Name of the app.';
comment on column cardinal.report_unique_impressions.campaign_id is 'Campaign; NULL for a canvas step.';
comment on column cardinal.report_unique_impressions.canvas_id is 'Canvas of a canvas step; NULL for a campaign.';
comment on column cardinal.report_unique_impressions.canvas_step_id is 'Canvas step; NULL for a campaign.';
comment on column cardinal.report_unique_impressions.variant_id is 'Variant; NULL for a message without variants.';
comment on column cardinal.report_unique_impressions.channel is 'Channel of the message.';
comment on column cardinal.report_unique_impressions.impressions is 'Impression events (control impressions excluded).';
comment on column cardinal.report_unique_impressions.unique_impressions is 'Users with an impression in the range.';
comment on column cardinal.report_unique_impressions.unique_daily_impressions is
    'Sum over report days of the users with an impression that day.';
comment on column cardinal.report_unique_impressions.unique_recipients is
    'Sum over report days of the users who received the message that day (a send; an impression for content '
    'cards and in-app messages).';
comment on column cardinal.report_unique_impressions.clicks is 'Click events.';
comment on column cardinal.report_unique_impressions.unique_clicks is 'Users who clicked.';
comment on column cardinal.report_unique_impressions.dismissals is 'Dismissal events.';
comment on column cardinal.report_unique_impressions.unique_dismissals is 'Users who dismissed.';
comment on column cardinal.report_unique_impressions.click_rate is 'clicks / impressions; NULL without impressions.';
comment on column cardinal.report_unique_impressions.unique_click_rate is
    'unique_clicks / unique_impressions; NULL without impressions.';
comment on column cardinal.report_unique_impressions.dismissal_rate is
    'dismissals / impressions; NULL without impressions.';
comment on column cardinal.report_unique_impressions.unique_dismissal_rate is
    'unique_dismissals / unique_impressions; NULL without impressions.';


create table cardinal.report_anomalies (
    run_id       bigint  not null,
    position     integer not null,
    kind         text    not null,
    severity     text    not null,
    app_name     text    not null,
    campaign_id  text,
    channel      text,
    platform     text,
    sdk_version  text,
    app_version  text,
    evidence     jsonb   not null,
    likely_cause text    not null,

    constraint report_anomalies_pkey primary key (run_id, position),
    constraint report_anomalies_run_id_fkey foreign key (run_id)
        references cardinal.report_runs (run_id) on delete cascade,
    constraint report_anomalies_severity_known check (severity in ('info', 'warning', 'critical')),
    constraint report_anomalies_evidence_object check (jsonb_typeof(evidence) = 'object')
);

alter table cardinal.report_anomalies owner to cardinal_owner;

comment on table cardinal.report_anomalies is
    'Findings of the anomalies report (cardinal.anomalies plus sample_ratio_mismatch from the control '
    'report) of each report run. Read the newest with cardinal.latest_anomalies.';
comment on column cardinal.report_anomalies.run_id is 'The run (report_runs) that found it.';
comment on column cardinal.report_anomalies.position is 'Position of the finding in the report''s order (most severe first), from 1.';
comment on column cardinal.report_anomalies.kind is
    'What is wrong: dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, '
    'control_impressions_missing, control_interaction, repeated_impressions, users_in_several_arms or '
    'sample_ratio_mismatch (see SQL/migrations/0011_anomalies.sql).';
comment on column cardinal.report_anomalies.severity is 'info, warning or critical.';
comment on column cardinal.report_anomalies.app_name is 'Name of the app.';
comment on column cardinal.report_anomalies.campaign_id is 'Campaign of the events that show the problem.';
comment on column cardinal.report_anomalies.channel is 'Channel of those events; NULL for campaign-wide findings (SRM).';
comment on column cardinal.report_anomalies.platform is 'Platform of those events; NULL when not sent or campaign-wide.';
comment on column cardinal.report_anomalies.sdk_version is 'SDK version of those events; NULL when not sent or campaign-wide.';
comment on column cardinal.report_anomalies.app_version is 'App version of those events; NULL when not sent or campaign-wide.';
comment on column cardinal.report_anomalies.evidence is 'The numbers behind the finding, as a JSON object.';
comment on column cardinal.report_anomalies.likely_cause is 'One line on the integration bug that usually causes it.';


create table cardinal.report_control (
    run_id                   bigint           not null,
    position                 integer          not null,
    app_name                 text             not null,
    campaign_id              text             not null,
    conversion_event         text,
    window_length            interval         not null,
    as_of                    timestamptz      not null,
    variant_id               text,
    control                  boolean          not null,
    users                    bigint           not null,
    converters               bigint,
    rate                     double precision,
    exposed_users            bigint           not null,
    users_in_several_arms    bigint           not null,
    difference               double precision,
    difference_ci95_lower    double precision,
    difference_ci95_upper    double precision,
    relative_lift            double precision,
    relative_lift_ci95_lower double precision,
    relative_lift_ci95_upper double precision,
    z                        double precision,
    p_value                  double precision,
    p_value_holm             double precision,
    confidence               double precision,
    chance_to_beat_control   double precision,
    srm_chi2                 double precision,
    srm_df                   integer,
    srm_p_value              double precision,
    srm_mismatch             boolean,
    srm_skipped              text,

    constraint report_control_pkey primary key (run_id, position),
    constraint report_control_run_id_fkey foreign key (run_id)
        references cardinal.report_runs (run_id) on delete cascade
);

alter table cardinal.report_control owner to cardinal_owner;

comment on table cardinal.report_control is
    'The control-group report of each report run: one row per campaign and arm, the control arm first; '
    'comparison columns are set on variant rows (against the campaign''s control arm), srm_* repeat the '
    'campaign''s sample ratio check on each of its rows. Read the newest with cardinal.latest_control.';
comment on column cardinal.report_control.run_id is 'The run (report_runs) that computed the row.';
comment on column cardinal.report_control.position is 'Position of the row in the report''s order, from 1.';
comment on column cardinal.report_control.app_name is 'Name of the app.';
comment on column cardinal.report_control.campaign_id is 'The campaign.';
comment on column cardinal.report_control.conversion_event is 'The conversion event counted; NULL when none is set.';
comment on column cardinal.report_control.window_length is 'The conversion window.';
comment on column cardinal.report_control.as_of is 'Users whose exposure + window is after this were immature and left out.';
comment on column cardinal.report_control.variant_id is 'The variant of the arm; NULL for the control arm (and a campaign without variants).';
comment on column cardinal.report_control.control is 'True for the control arm.';
comment on column cardinal.report_control.users is 'Matured users of the arm (exposed in the range, window elapsed, in one arm only).';
comment on column cardinal.report_control.converters is 'Matured users who converted within the window; NULL without a conversion event.';
comment on column cardinal.report_control.rate is 'converters / users; NULL when undefined.';
comment on column cardinal.report_control.exposed_users is 'Users first exposed in the range, matured or not (in one arm only).';
comment on column cardinal.report_control.users_in_several_arms is 'Users of the campaign excluded for being exposed to several arms.';
comment on column cardinal.report_control.difference is 'rate − control rate (variant rows).';
comment on column cardinal.report_control.difference_ci95_lower is 'Newcombe 95% interval of difference, lower bound.';
comment on column cardinal.report_control.difference_ci95_upper is 'Newcombe 95% interval of difference, upper bound.';
comment on column cardinal.report_control.relative_lift is '(rate − control rate) / control rate.';
comment on column cardinal.report_control.relative_lift_ci95_lower is 'Katz (log risk ratio) 95% interval of relative_lift, lower bound.';
comment on column cardinal.report_control.relative_lift_ci95_upper is 'Katz (log risk ratio) 95% interval of relative_lift, upper bound.';
comment on column cardinal.report_control.z is 'Pooled two-proportion z statistic.';
comment on column cardinal.report_control.p_value is 'Two-sided p-value of z.';
comment on column cardinal.report_control.p_value_holm is 'p_value adjusted by Holm across the campaign''s variants.';
comment on column cardinal.report_control.confidence is 'Braze''s confidence, Φ(z).';
comment on column cardinal.report_control.chance_to_beat_control is 'P(variant rate > control rate) under Beta(1+x, 1+n−x) posteriors.';
comment on column cardinal.report_control.srm_chi2 is 'Sample ratio check: Pearson chi-square of the arm sizes against the expected split.';
comment on column cardinal.report_control.srm_df is 'Sample ratio check: degrees of freedom (arms − 1).';
comment on column cardinal.report_control.srm_p_value is 'Sample ratio check: p-value.';
comment on column cardinal.report_control.srm_mismatch is 'Sample ratio check: p_value < 0.001.';
comment on column cardinal.report_control.srm_skipped is 'Why the sample ratio check was not run; NULL when it was.';


-- The newest succeeded run, and its rows. A view rather than a copy, so that there is nothing to keep in
-- step; the (run_id, position) primary keys make each an index range scan.
create view cardinal.latest_report_run as
    select run_id, started_at, finished_at, parameters, anomaly_count
    from cardinal.report_runs
    where status = 'succeeded'
    order by run_id desc
    limit 1;

create view cardinal.latest_unique_impressions as
    select r.*
    from cardinal.report_unique_impressions as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;

create view cardinal.latest_anomalies as
    select r.*
    from cardinal.report_anomalies as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;

create view cardinal.latest_control as
    select r.*
    from cardinal.report_control as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;

alter view cardinal.latest_report_run owner to cardinal_owner;
alter view cardinal.latest_unique_impressions owner to cardinal_owner;
alter view cardinal.latest_anomalies owner to cardinal_owner;
alter view cardinal.latest_control owner to cardinal_owner;

comment on view cardinal.latest_report_run is 'The newest succeeded report run (one row, or none before the first).';
comment on view cardinal.latest_unique_impressions is 'report_unique_impressions of the newest succeeded run, in report order.';
comment on view cardinal.latest_anomalies is 'report_anomalies of the newest succeeded run, most severe first.';
comment on view cardinal.latest_control is 'report_control of the newest succeeded run, in report order.';

do $comments$
declare
    view_name text;
    source    text;
    col       record;
begin
    -- A view's columns get no comments of their own; copy them from the table each view shows.
    foreach view_name in array array['latest_report_run', 'latest_unique_impressions', 'latest_anomalies',
                                     'latest_control'] loop
        source := case view_name when 'latest_report_run' then 'report_runs'
                                 else 'report_' || substr(view_name, 8) end;
        for col in
            select a.attname, pg_catalog.col_description(t.oid, a.attnum) as description
            from pg_catalog.pg_attribute as a
            join pg_catalog.pg_class as t on t.oid = a.attrelid
            where t.oid = format('cardinal.%I', source)::regclass
              and a.attnum > 0 and not a.attisdropped
              and exists (select from pg_catalog.pg_attribute as v
                          where v.attrelid = format('cardinal.%I', view_name)::regclass
                            and v.attname = a.attname)
        loop
            execute format('comment on column cardinal.%I.%I is %L', view_name, col.attname, col.description);
        end loop;
    end loop;
end
$comments$;


grant select on
    cardinal.report_runs,
    cardinal.report_unique_impressions,
    cardinal.report_anomalies,
    cardinal.report_control,
    cardinal.latest_report_run,
    cardinal.latest_unique_impressions,
    cardinal.latest_anomalies,
    cardinal.latest_control
    to cardinal_reader;
