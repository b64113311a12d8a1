-- 0083_anomalies_in_two_halves.sql — cardinal.anomalies is the union of two halves that read different report
-- state; each half is now a function of its own, so that a client with two connections can compute them side by
-- side. `cardinal report anomalies` does (issue 8: reports fast at any size).
--
-- Design notes (why, not what):
--
-- * Most of one campaign's anomalies call is not reading the state but preparing the two bodies (about 1,400
--   lines of SQL), which a SQL function parses and plans on every call, and a new connection's first catalog
--   reads, which every CLI run pays. On the 2 M bench state (c17, a quiet machine, in psql): the call takes
--   59 ms as a session's first and 42 ms as its second, of which parsing is about 6.5 ms, planning 16.5 ms
--   (11.0 for anomalies_since_0027, 5.5 for anomalies_of_0017_from_counts) and running 16 ms. 0075 took the plan
--   of the reference's raw events out of it; a join collapse limit of 1, plpgsql bodies with custom plans and
--   BEGIN ATOMIC bodies (parsed once) each gained 4 ms or less there, too little to keep.
-- * The two halves read different state and share only their arguments: exposure_anomalies (the kinds of 0011
--   and 0017, from the per-user facts and 0069's day pairs) and logging_anomalies (0027's kinds, from the
--   daily counts, sessions and dismissals). On two backends, each prepares and runs its own half at once, and
--   the report takes about as long as the longer half. Through the CLI, 2 cores, the control report running
--   beside as before (the medians of interleaved sets of runs): all campaigns 531–581 → 506–561 ms at 10 M
--   events and 304–366 → 224–279 ms at 2 M, on three backends; one campaign no measurable change on three
--   backends (a third new backend's catalog reads and planning cost about as much CPU as they save), so for
--   one campaign or canvas the CLI runs the exposure half and the control report on one backend, one after the
--   other: 66–72 → 59–62 ms at 10 M, 61 → 52 ms at 2 M.
-- * One judgement spans the halves: control_impressions_missing for a group of a campaign with a control arm
--   (exposure) and for a campaign with no control exposure at all (logging). Run apart on two snapshots, a
--   control impression or a split committed between them could give both findings or neither, so the CLI
--   runs them on one snapshot (pg_export_snapshot).
-- * cardinal.anomalies stays the psql function, now the union of the two, in the same order as before. Both
--   halves are plain SQL functions, inlined into it, so its plan is the one it had.
-- * The halves' rows are not ordered: the report orders the findings it merges (AnomaliesReport).


-- The findings about who was exposed to what: the kinds of 0011 and 0017, from the report state (0069's counts)
-- without test events, from the per-user state (0057's body) with them.
create function cardinal.exposure_anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns table (
        kind           text,
        severity       text,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        evidence       jsonb,
        likely_cause   text
    )
    language sql
    stable
as $function$
    -- Only one of the two runs: the other's one-time filter is false.
    select *
    from cardinal.anomalies_of_0017_from_counts(exposure_anomalies.app, exposure_anomalies.from_date,
                                                exposure_anomalies.to_date, exposure_anomalies.campaign,
                                                exposure_anomalies.canvas)
    where not exposure_anomalies.include_test
    union all
    select *
    from cardinal.anomalies_of_0017(exposure_anomalies.app, exposure_anomalies.from_date, exposure_anomalies.to_date,
                                    exposure_anomalies.include_test, exposure_anomalies.campaign,
                                    exposure_anomalies.canvas)
    where exposure_anomalies.include_test;
$function$;

alter function cardinal.exposure_anomalies(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.exposure_anomalies(text, date, date, boolean, text, text) to cardinal_reader;

comment on function cardinal.exposure_anomalies(text, date, date, boolean, text, text) is
    'The half of cardinal.anomalies about who was exposed to what: dismissals_exceed_impressions, '
    'dismissal_without_impression, click_without_impression, control_impressions_missing (a campaign with a '
    'control arm whose group logs no control impressions), control_interaction and users_in_several_arms '
    '(anomalies_of_0017_from_counts, or anomalies_of_0017 with test events). The same arguments and columns as '
    'cardinal.anomalies, and its rows of these kinds, unordered; it can run on a connection of its own beside '
    'logging_anomalies, on the same snapshot (0083).';


-- The findings about what is logged: 0027's kinds, from the report state.
create function cardinal.logging_anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns table (
        kind           text,
        severity       text,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        evidence       jsonb,
        likely_cause   text
    )
    language sql
    stable
as $function$
    select *
    from cardinal.anomalies_since_0027(logging_anomalies.app, logging_anomalies.from_date, logging_anomalies.to_date,
                                       logging_anomalies.include_test, logging_anomalies.campaign,
                                       logging_anomalies.canvas, true);
$function$;

alter function cardinal.logging_anomalies(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.logging_anomalies(text, date, date, boolean, text, text) to cardinal_reader;

comment on function cardinal.logging_anomalies(text, date, date, boolean, text, text) is
    'The half of cardinal.anomalies about what is logged: repeated_impressions, repeated_dismissals, '
    'push_opens_missing, logging_stopped and control_impressions_missing for a campaign with no control exposure '
    'at all (anomalies_since_0027 from the report state). The same arguments and columns as cardinal.anomalies, '
    'and its rows of these kinds, unordered; it can run on a connection of its own beside exposure_anomalies, '
    'on the same snapshot (0083).';


-- The union of the two halves, most severe first, as 0069 ordered it.
create or replace function cardinal.anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns table (
        kind           text,
        severity       text,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        evidence       jsonb,
        likely_cause   text
    )
    language sql
    stable
as $function$
    select f.*
    from (
        select *
        from cardinal.exposure_anomalies(anomalies.app, anomalies.from_date, anomalies.to_date,
                                         anomalies.include_test, anomalies.campaign, anomalies.canvas)
        union all
        select *
        from cardinal.logging_anomalies(anomalies.app, anomalies.from_date, anomalies.to_date,
                                        anomalies.include_test, anomalies.campaign, anomalies.canvas)
    ) as f
    order by case f.severity when 'critical' then 0 when 'warning' then 1 else 2 end,
             f.kind, f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform,
             f.sdk_version, f.app_version;
$function$;

comment on function cardinal.anomalies(text, date, date, boolean, text, text) is
    'Integration-health findings over the report days from_date..to_date (both included, each campaign''s '
    'report time zone; a canvas''s is the app''s), read from the report state (report_*_facts, 0015): '
    'dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, '
    'control_impressions_missing, control_interaction, users_in_several_arms (exposure_anomalies), '
    'repeated_impressions, repeated_dismissals, push_opens_missing, logging_stopped and '
    'control_impressions_missing for a campaign with no control exposure at all (logging_anomalies; 0083); one '
    'row per kind × app × campaign or canvas step (canvas_id, canvas_step_id; 0033) × channel × platform × '
    'sdk_version × app_version with severity (info, warning, critical), numeric evidence and a likely cause. '
    'Arms and control groups are a campaign''s or a whole canvas''s. app NULL = every app; campaign NULL = '
    'every campaign; canvas NULL = every canvas (campaign and canvas together select nothing). '
    'sample_ratio_mismatch is added by `cardinal report anomalies` for campaigns (it needs the chi-square '
    'test). Definitions in SQL/docs/reports.md; anomalies_reference computes the same from raw events.';
