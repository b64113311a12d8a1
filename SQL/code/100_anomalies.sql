-- The anomalies report: integration-health findings (a custom UI that logs dismissals without impressions,
-- control groups that see messages, users in several arms, repeated impressions, logging that stopped, …).
--
-- Entry point: anomalies, the union of two halves that can also run apart on one snapshot:
-- exposure_anomalies (who was exposed to what) and logging_anomalies (what is logged). exposure_anomalies
-- reads the counts kept beside the report state (exposure_anomalies_from_counts) without test events, and
-- the per-user state (exposure_anomalies_from_user_state) with them; both turn their counts into findings
-- through exposure_anomaly_finding, as the raw-event reference (exposure_anomalies_reference) does.
-- logging_anomalies_from_source computes the logging half from the report state or, for anomalies_reference,
-- from the raw events; anomalies_from_source is the union and order both anomalies and anomalies_reference
-- return. Definitions of every kind: SQL/docs/reports.md.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- The report: both halves from the report state, most severe first (anomalies_from_source).
create or replace function cardinal.anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns setof cardinal.anomalies_row
    language sql
    stable
as $function$
    select *
    from cardinal.anomalies_from_source(anomalies.app, anomalies.from_date, anomalies.to_date,
                                        anomalies.include_test, anomalies.campaign, anomalies.canvas, true);
$function$;
alter function cardinal.anomalies(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.anomalies(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.anomalies(text, date, date, boolean, text, text) is
    'Integration-health findings over the report days from_date..to_date (both included, each campaign''s '
    'report time zone; a canvas''s is the app''s), read from the report state (report_*_facts): '
    'dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, '
    'control_impressions_missing, control_interaction, users_in_several_arms (exposure_anomalies), '
    'repeated_impressions, repeated_dismissals, push_opens_missing, logging_stopped, repeated_conversions '
    '(by app, without campaign or channel) and control_impressions_missing for a campaign with no control '
    'exposure at all (logging_anomalies); one row per kind × app × campaign or canvas step (canvas_id, '
    'canvas_step_id) × channel × platform × sdk_version × app_version with severity (info, warning, '
    'critical), numeric evidence and a likely cause. '
    'Arms and control groups are a campaign''s or a whole canvas''s. app NULL = every app; campaign NULL = '
    'every campaign; canvas NULL = every canvas (campaign and canvas together select nothing). '
    'sample_ratio_mismatch (it needs the chi-square test) and variant_worse_than_control (the control '
    'report''s statistics) are added by `cardinal report anomalies`. Definitions in SQL/docs/reports.md; anomalies_reference computes the same from raw events.';


-- The anomalies report from either source, one body for anomalies (the report state) and anomalies_reference
-- (the raw events): the two halves, most severe first. Language sql without settings, so that it is inlined
-- into its caller and from_state is a constant there: the other source's branch is pruned at plan time.
create or replace function cardinal.anomalies_from_source(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text,
    from_state   boolean
)
    returns setof cardinal.anomalies_row
    language sql
    stable
as $function$
    select f.*
    from (
        select *
        from cardinal.exposure_anomalies(anomalies_from_source.app, anomalies_from_source.from_date,
                                         anomalies_from_source.to_date, anomalies_from_source.include_test,
                                         anomalies_from_source.campaign, anomalies_from_source.canvas)
        where anomalies_from_source.from_state
        union all
        select *
        from cardinal.exposure_anomalies_reference(anomalies_from_source.app, anomalies_from_source.from_date,
                                                   anomalies_from_source.to_date, anomalies_from_source.include_test,
                                                   anomalies_from_source.campaign, anomalies_from_source.canvas)
        where not anomalies_from_source.from_state
        union all
        select *
        from cardinal.logging_anomalies_from_source(anomalies_from_source.app, anomalies_from_source.from_date,
                                                    anomalies_from_source.to_date, anomalies_from_source.include_test,
                                                    anomalies_from_source.campaign, anomalies_from_source.canvas,
                                                    anomalies_from_source.from_state)
    ) as f
    order by case f.severity when 'critical' then 0 when 'warning' then 1 else 2 end,
             f.kind, f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform,
             f.sdk_version, f.app_version;
$function$;
alter function cardinal.anomalies_from_source(text, date, date, boolean, text, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.anomalies_from_source(text, date, date, boolean, text, text, boolean) to cardinal_reader;
comment on function cardinal.anomalies_from_source(text, date, date, boolean, text, text, boolean) is
    'The rows of anomalies, most severe first, from the report state (from_state: exposure_anomalies and '
    'logging_anomalies_from_source) or from the raw events (not from_state: exposure_anomalies_reference and '
    'logging_anomalies_from_source): the one body of anomalies and anomalies_reference. Same arguments as '
    'anomalies, from_state last.';


-- The logging half of anomalies, one body for both sources: the report state (from_state, what
-- logging_anomalies returns) or the raw events (for anomalies_reference). The raw events are read through
-- anomaly_reference_events, a function the planner plans only when the reference runs.
create or replace function cardinal.logging_anomalies_from_source(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text,
    from_state   boolean
)
    returns setof cardinal.anomalies_row
    language sql
    stable
    -- Hash every aggregate and join whatever the estimates: sorts of the session and user rows cost most
    -- here, and no plan may hinge on a row estimate. jit off as every report.
    set enable_sort = off
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               -- The report days of the range, for the containment tests on the state's day sets.
               daterange(logging_anomalies_from_source.from_date, logging_anomalies_from_source.to_date, '[]') as days
        from cardinal.apps as a
        where cardinal.check_report_range(logging_anomalies_from_source.from_date,
                                          logging_anomalies_from_source.to_date)
          and (logging_anomalies_from_source.app is null or a.name = logging_anomalies_from_source.app)
    ),
    -- The report groups of the one campaign or canvas asked for (none when neither is): its folded
    -- dismissals are read by these keys (an index condition), not by a scan of every source's.
    source_groups as materialized (
        select array(
                   select g.group_id
                   from cardinal.report_groups as g
                   where (logging_anomalies_from_source.campaign is not null
                          or logging_anomalies_from_source.canvas is not null)
                     and (logging_anomalies_from_source.campaign is null
                          or g.campaign_id = logging_anomalies_from_source.campaign)
                     and (logging_anomalies_from_source.canvas is null
                          or g.canvas_id = logging_anomalies_from_source.canvas)
               ) as group_ids
    ),
    -- The raw message events from 7 report days before the range to its end (reference only), read through a
    -- function that is planned only when the reference runs.
    raw_events as materialized (
        select r.*
        from target as t
        cross join lateral cardinal.anomaly_reference_events(
            t.app_id, t.app_name, t.report_time_zone, logging_anomalies_from_source.from_date,
            logging_anomalies_from_source.to_date, logging_anomalies_from_source.include_test,
            logging_anomalies_from_source.campaign, logging_anomalies_from_source.canvas
        ) as r
        where not logging_anomalies_from_source.from_state
    ),

    -- Events per campaign (canvas step) × channel × platform and report day, from 7 days before the range:
    -- logged by the SDK (impressions, control impressions, clicks, dismissals), sends (not control), clicks,
    -- impressions (not control) and control exposures (control impressions and sends).
    daily as (
        select t.app_id, t.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.channel, c.platform, c.day,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone,
               sum(c.impressions + c.control_impressions + c.clicks + c.dismissals) as logged,
               sum(c.sends) as sends, sum(c.clicks) as clicks, sum(c.impressions) as impressions,
               sum(c.control_impressions + c.control_sends) as control_events
        from target as t
        join (
            -- The folded counts per step, channel, platform and day (report_step_daily_counts: a few rows
            -- per day, where report_daily_counts has one per report group), and the pending counts.
            select d.app_id, d.campaign_id, d.canvas_id, d.canvas_step_id, d.channel, d.platform, d.test, d.day,
                   d.impressions, d.clicks, d.dismissals, d.sends, d.control_impressions, d.control_sends
            from cardinal.report_step_daily_counts as d
            where d.app_id = any(array(select t.app_id from target as t))
              and (logging_anomalies_from_source.campaign is null
                   or d.campaign_id = logging_anomalies_from_source.campaign)
              and (logging_anomalies_from_source.canvas is null or d.canvas_id = logging_anomalies_from_source.canvas)
              and d.day between logging_anomalies_from_source.from_date - 7 and logging_anomalies_from_source.to_date
            union all
            select p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.channel, p.platform, p.test, p.day,
                   p.impressions, p.clicks, p.dismissals, p.sends, p.control_impressions, p.control_sends
            from cardinal.report_pending_daily_counts as p
        ) as c on c.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        where logging_anomalies_from_source.from_state
          and (c.campaign_id is not null or c.canvas_id is not null)
          and (logging_anomalies_from_source.campaign is null or c.campaign_id = logging_anomalies_from_source.campaign)
          and (logging_anomalies_from_source.canvas is null or c.canvas_id = logging_anomalies_from_source.canvas)
          and (logging_anomalies_from_source.include_test or not c.test)
          and c.day between logging_anomalies_from_source.from_date - 7 and logging_anomalies_from_source.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
        union all
        select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, day, time_zone,
               count(*) filter (where type in ('impression', 'click', 'dismissal')),
               count(*) filter (where type = 'send' and not control),
               count(*) filter (where type = 'click'),
               count(*) filter (where type = 'impression' and not control),
               count(*) filter (where control)
        from raw_events
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),

    -- The report groups whose sessions are judged (test groups only with include_test), each with its
    -- finding group's key: the smallest group_id among the groups that differ from it only in variant and
    -- test flag. The sessions are counted per key, a bigint, rather than per eight text columns.
    session_groups as materialized (
        select g.group_id, g.app_id, g.channel,
               min(g.group_id) over (partition by g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id,
                                                  g.channel, g.platform, g.sdk_version, g.app_version)
                   as finding_group
        from target as t
        join cardinal.report_groups as g on g.app_id = t.app_id
        where logging_anomalies_from_source.from_state
          and (g.campaign_id is not null or g.canvas_id is not null)
          and (logging_anomalies_from_source.campaign is null or g.campaign_id = logging_anomalies_from_source.campaign)
          and (logging_anomalies_from_source.canvas is null or g.canvas_id = logging_anomalies_from_source.canvas)
          and (logging_anomalies_from_source.include_test or not g.test)
          and g.channel <> 'push'
    ),
    -- Impressions per user, session and report day that have no report group key: the pending events'
    -- (from_state), or every impression of the range from the raw events (the reference), in
    -- report_session_state's shape ('' for the impressions without a session).
    unkeyed_sessions as materialized (
        select t.app_id, t.app_name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.channel, p.platform,
               p.sdk_version, p.app_version, p.user_key, p.session_id, p.day, p.impressions, p.message_ids
        from target as t
        join cardinal.report_pending_session_facts as p on p.app_id = t.app_id
        where logging_anomalies_from_source.from_state
          and (p.campaign_id is not null or p.canvas_id is not null)
          and (logging_anomalies_from_source.campaign is null or p.campaign_id = logging_anomalies_from_source.campaign)
          and (logging_anomalies_from_source.canvas is null or p.canvas_id = logging_anomalies_from_source.canvas)
          and (logging_anomalies_from_source.include_test or not p.test)
          and p.channel <> 'push'
          and p.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
        union all
        select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
               app_version, user_key, coalesce(session_id, ''), day, count(*)::integer,
               array_agg(distinct message_id) filter (where message_id is not null)
        from raw_events
        where type = 'impression' and channel <> 'push' and day >= logging_anomalies_from_source.from_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    ),
    -- The finding groups of those rows, each with the key the state gives it, or a new negative one when the
    -- state has no group of it yet. The finding columns are compared as one row's text, which tells NULL
    -- from '' and keeps the join an equality.
    unkeyed_groups as materialized (
        select n.*, coalesce(k.finding_group, -row_number() over ()) as finding_group
        from (
            select distinct app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform,
                   sdk_version, app_version
            from unkeyed_sessions
        ) as n
        left join (
            select distinct s.app_id, s.finding_group,
                   row(g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                       g.app_version)::text as finding_columns
            from session_groups as s
            join cardinal.report_groups as g on g.group_id = s.finding_group
        ) as k
            on k.app_id = n.app_id
                   and k.finding_columns = row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel,
                                               n.platform, n.sdk_version, n.app_version)::text
    ),
    -- Each finding group's key with what its sessions are read from: its report groups, and its unkeyed rows
    -- as one array (read once per group below, rather than the unkeyed rows scanned for every group).
    finding_sources as materialized (
        select k.finding_group, k.channel, k.group_ids, u.unkeyed
        from (
            select finding_group, min(channel) as channel, array_agg(group_id) as group_ids
            from session_groups
            group by finding_group
            union all
            select finding_group, channel, '{}'
            from unkeyed_groups
            where finding_group < 0
        ) as k
        left join (
            select g.finding_group,
                   jsonb_agg(jsonb_build_object('user_key', n.user_key, 'session_id', n.session_id, 'day', n.day,
                                                'impressions', n.impressions, 'message_ids', n.message_ids))
                       as unkeyed
            from unkeyed_sessions as n
            join unkeyed_groups as g
                on g.app_id = n.app_id
                       and row(g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                               g.app_version)::text
                           = row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
                                 n.app_version)::text
            group by g.finding_group
        ) as u on u.finding_group = k.finding_group
    ),
    -- The columns of each finding group's key.
    finding_groups as (
        select s.finding_group, t.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform,
               g.sdk_version, g.app_version
        from session_groups as s
        join cardinal.report_groups as g on g.group_id = s.group_id
        join target as t on t.app_id = s.app_id
        where s.group_id = s.finding_group
        union all
        select finding_group, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
               app_version
        from unkeyed_groups
        where finding_group < 0
    ),

    -- The campaigns that could lack a control arm: no expected split, no control exposure in the range (a
    -- control impression or send on one of its days is one in the daily counts), and at least 200
    -- impressions in a channel that logs control impressions (200 users need as many). Few, and materialized:
    -- only their users are counted below.
    control_candidates as materialized (
        select d.app_id, d.campaign_id,
               -- The channels counted that have impressions in the range, and one of them.
               count(distinct d.channel) filter (
                   where d.impressions > 0 and d.channel in ('content_card', 'in_app_message', 'feature_flag'))
                   as impression_channels,
               min(d.channel) filter (
                   where d.impressions > 0 and d.channel in ('content_card', 'in_app_message', 'feature_flag'))
                   as impression_channel
        from daily as d
        left join cardinal.campaign_settings as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.campaign_id is not null
          and d.day >= logging_anomalies_from_source.from_date and s.expected_split is null
        group by d.app_id, d.campaign_id
        having sum(d.control_events) = 0
           and coalesce(sum(d.impressions) filter (
                   where d.channel in ('content_card', 'in_app_message', 'feature_flag')), 0) >= 200
    ),
    -- Those whose variant impressions of the range are in one channel, without test events: their users are
    -- the campaign's distinct variant_impression users of the range, which the day pairs count
    -- (report_source_day_users, '' for the canvas), plus the pending users without a folded impression of the
    -- range. The others' users are read below.
    counted_candidates as materialized (
        select c.app_id, c.campaign_id, c.impression_channel as channel
        from control_candidates as c
        where logging_anomalies_from_source.from_state and not logging_anomalies_from_source.include_test
          and c.impression_channels = 1
    ),
    pending_variant_users as materialized (
        select distinct c.app_id, c.campaign_id, p.user_key
        from cardinal.report_pending_user_facts as p
        join counted_candidates as c on c.app_id = p.app_id and c.campaign_id = p.campaign_id
        join target as t on t.app_id = p.app_id
        where p.channel in ('content_card', 'in_app_message', 'feature_flag') and not p.test
          and t.days @> any(p.impression_days)
    ),
    counted_variant_users as (
        select c.app_id, c.campaign_id, c.channel, coalesce(sum(x.users), 0) as variant_users
        from counted_candidates as c
        left join (
            select d.app_id, d.campaign_id, d.users
            from cardinal.report_source_day_users as d
            where d.app_id = any(array(select c.app_id from counted_candidates as c))
              and d.campaign_id = any(array(select c.campaign_id from counted_candidates as c))
              and d.canvas_id = '' and d.kind = 'variant_impression'
              and d.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
              and d.previous_day < logging_anomalies_from_source.from_date
            union all
            select p.app_id, p.campaign_id, 1
            from pending_variant_users as p
            where not exists (
                select
                from cardinal.report_user_state as u
                join cardinal.report_groups as g on g.group_id = u.group_id
                join target as t on t.app_id = g.app_id
                where u.user_key = p.user_key
                  and g.app_id = p.app_id and g.campaign_id = p.campaign_id and g.canvas_id is null and not g.test
                  and g.channel in ('content_card', 'in_app_message', 'feature_flag')
                  and t.days @> any(u.impression_days))
        ) as x on x.app_id = c.app_id and x.campaign_id = c.campaign_id
        group by c.app_id, c.campaign_id, c.channel
    ),
    -- The report groups of those campaigns in the channels counted (test groups only with include_test).
    candidate_groups as materialized (
        select g.group_id, g.app_id, g.campaign_id, g.channel
        from control_candidates as c
        join cardinal.report_groups as g on g.app_id = c.app_id and g.campaign_id = c.campaign_id
        where logging_anomalies_from_source.from_state
          and not exists (select from counted_candidates as o
                          where o.app_id = c.app_id and o.campaign_id = c.campaign_id)
          and g.channel in ('content_card', 'in_app_message', 'feature_flag')
          and (logging_anomalies_from_source.include_test or not g.test)
    ),
    -- The users of those campaigns with a variant impression in the range, per channel: the candidates'
    -- folded rows by their groups (an index condition on the primary key), only the columns counted, and
    -- the pending events' rows; or the raw impressions (the reference). A row is in the range when the
    -- range contains any of its days.
    campaign_users as (
        select c.app_id, c.campaign_id, c.channel, u.user_key
        from cardinal.report_user_state as u
        join candidate_groups as c on c.group_id = u.group_id
        join target as t on t.app_id = c.app_id
        where u.group_id = any(array(select group_id from candidate_groups))
          and t.days @> any(u.impression_days)
        union all
        select p.app_id, p.campaign_id, p.channel, p.user_key
        from cardinal.report_pending_user_facts as p
        join control_candidates as c on c.app_id = p.app_id and c.campaign_id = p.campaign_id
        join target as t on t.app_id = p.app_id
        where logging_anomalies_from_source.from_state
          and not exists (select from counted_candidates as o
                          where o.app_id = c.app_id and o.campaign_id = c.campaign_id)
          and p.channel in ('content_card', 'in_app_message', 'feature_flag')
          and (logging_anomalies_from_source.include_test or not p.test)
          and t.days @> any(p.impression_days)
        union all
        select r.app_id, r.campaign_id, r.channel, r.user_key
        from raw_events as r
        join control_candidates as c on c.app_id = r.app_id and c.campaign_id = r.campaign_id
        where r.type = 'impression' and not r.control and r.day >= logging_anomalies_from_source.from_date
          and r.channel in ('content_card', 'in_app_message', 'feature_flag')
    ),

    -- Without test events, the dismissal counts hold every user but those judged from their rows: the
    -- users who dismissed a card of a finding group more than once over all their days
    -- (report_dismissal_repeat_users, left out of the counts), and those with pending dismissals in it (their
    -- folded part of the counts is taken off below), in the finding groups of the range (session_groups').
    pending_dismissal_users as materialized (
        select distinct n.finding_id, p.user_key
        from cardinal.report_pending_dismissal_facts as p
        join target as t on t.app_id = p.app_id
        join cardinal.report_findings as n
            on n.app_id = p.app_id
                   and row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
                           n.app_version)::text
                       = row(p.campaign_id, p.canvas_id, p.canvas_step_id, p.channel, p.platform, p.sdk_version,
                             p.app_version)::text
        where logging_anomalies_from_source.from_state and not logging_anomalies_from_source.include_test and not p.test
          and p.channel = 'content_card' and (p.campaign_id is not null or p.canvas_id is not null)
          and (logging_anomalies_from_source.campaign is null or p.campaign_id = logging_anomalies_from_source.campaign)
          and (logging_anomalies_from_source.canvas is null or p.canvas_id = logging_anomalies_from_source.canvas)
    ),
    dismissal_apart_users as materialized (
        select a.finding_id, a.user_key, true as repeats
        from cardinal.report_dismissal_repeat_users as a
        where logging_anomalies_from_source.from_state and not logging_anomalies_from_source.include_test
          and a.finding_id = any(array(select g.finding_id
                                       from session_groups as s
                                       join cardinal.report_groups as g on g.group_id = s.group_id))
        union all
        select p.finding_id, p.user_key, false
        from pending_dismissal_users as p
        where not exists (select from cardinal.report_dismissal_repeat_users as a
                          where a.finding_id = p.finding_id and a.user_key = p.user_key)
    ),
    -- Their folded rows of those finding groups, every day: one probe of the primary key per user and report
    -- group.
    apart_dismissal_rows as materialized (
        select a.finding_id, a.repeats, a.user_key, x.message_id, x.day, x.dismissals
        from dismissal_apart_users as a
        join cardinal.report_groups as g on g.finding_id = a.finding_id and not g.test
        cross join lateral (
            select x.message_id, x.day, x.dismissals
            from cardinal.report_dismissal_state as x
            where x.group_id = g.group_id and x.user_key = a.user_key
            offset 0
        ) as x
    ),

    -- Dismissals per user and content card in the range: of every user with test events or for the
    -- reference, else of the users judged from their rows.
    card_dismissals as (
        select t.app_name, d.campaign_id, d.canvas_id, d.canvas_step_id, d.channel, d.platform, d.sdk_version,
               d.app_version, d.user_key, d.message_id, sum(d.dismissals) as dismissals
        from target as t
        join (
            -- report_dismissal_facts: with test events, every source's folded dismissals, or one source's by
            -- its groups; without, the folded dismissals of the users judged from their rows; and the pending
            -- ones.
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                   g.app_version, g.test, x.user_key, x.message_id, x.day, x.dismissals
            from cardinal.report_dismissal_state as x
            join cardinal.report_groups as g on g.group_id = x.group_id
            where logging_anomalies_from_source.include_test
              and logging_anomalies_from_source.campaign is null and logging_anomalies_from_source.canvas is null
            union all
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                   g.app_version, g.test, x.user_key, x.message_id, x.day, x.dismissals
            from cardinal.report_dismissal_state as x
            join cardinal.report_groups as g on g.group_id = x.group_id
            where logging_anomalies_from_source.include_test
              and x.group_id = any((select group_ids from source_groups)::bigint[])
            union all
            select n.app_id, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
                   n.app_version, false, r.user_key, r.message_id, r.day, r.dismissals
            from apart_dismissal_rows as r
            join cardinal.report_findings as n on n.finding_id = r.finding_id
            union all
            select p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.channel, p.platform, p.sdk_version,
                   p.app_version, p.test, p.user_key, p.message_id, p.day, p.dismissals
            from cardinal.report_pending_dismissal_facts as p
        ) as d on d.app_id = t.app_id
        where logging_anomalies_from_source.from_state
          and (d.campaign_id is not null or d.canvas_id is not null)
          and (logging_anomalies_from_source.campaign is null or d.campaign_id = logging_anomalies_from_source.campaign)
          and (logging_anomalies_from_source.canvas is null or d.canvas_id = logging_anomalies_from_source.canvas)
          and (logging_anomalies_from_source.include_test or not d.test)
          and d.channel = 'content_card'
          and d.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
        union all
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               user_key, message_id, count(*)
        from raw_events
        where type = 'dismissal' and channel = 'content_card' and message_id is not null
          and day >= logging_anomalies_from_source.from_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ),
    -- Per user first, then per finding group: the users are counted as rows, not as distinct keys (a
    -- distinct count sorts its input once per aggregate and group).
    repeated_dismissals as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(*) as users,
               count(*) filter (where repeated_cards > 0) as affected_users,
               sum(repeated_cards)::bigint as repeated_cards,
               sum(dismissals) as dismissals,
               max(max_per_card) as max_per_card
        from (
            select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                   user_key,
                   count(*) filter (where dismissals > 1) as repeated_cards,
                   sum(dismissals) as dismissals,
                   max(dismissals) as max_per_card
            from card_dismissals
            group by 1, 2, 3, 4, 5, 6, 7, 8, 9
        ) as per_user
        group by 1, 2, 3, 4, 5, 6, 7, 8
    ),
    -- Without test events, what the counts add for the finding groups judged from rows: the day pairs'
    -- users and the dismissals of the range, less the folded part of the pending users the counts hold (the
    -- ones who repeat no card). The counts' users repeat no card, so they dismissed each card once at most.
    counted_dismissals as (
        select k.finding_id, k.users - coalesce(a.users, 0) as users,
               k.dismissals - coalesce(a.dismissals, 0) as dismissals
        from (
            select f.finding_id,
                   coalesce((select sum(u.users)
                             from cardinal.report_dismissal_day_users as u
                             where u.finding_id = f.finding_id
                               and u.day between logging_anomalies_from_source.from_date
                                             and logging_anomalies_from_source.to_date
                               and u.previous_day < logging_anomalies_from_source.from_date), 0) as users,
                   coalesce((select sum(c.dismissals)
                             from cardinal.report_dismissal_day_counts as c
                             where c.finding_id = f.finding_id
                               and c.day between logging_anomalies_from_source.from_date
                                             and logging_anomalies_from_source.to_date),
                            0) as dismissals
            from (select distinct finding_id from dismissal_apart_users) as f
        ) as k
        left join (
            select r.finding_id, count(distinct r.user_key) as users, sum(r.dismissals) as dismissals
            from apart_dismissal_rows as r
            where not r.repeats
              and r.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
            group by r.finding_id
        ) as a on a.finding_id = k.finding_id
    ),
    repeated_dismissals_with_counts as (
        select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform, r.sdk_version,
               r.app_version, r.users + coalesce(c.users, 0) as users, r.affected_users, r.repeated_cards,
               r.dismissals + coalesce(c.dismissals, 0) as dismissals,
               greatest(r.max_per_card, case when c.dismissals > 0 then 1 end) as max_per_card
        from repeated_dismissals as r
        join target as t on t.app_name = r.app_name
        left join (
            select n.app_id, row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                                 n.sdk_version, n.app_version)::text as finding_columns,
                   c.users, c.dismissals
            from counted_dismissals as c
            join cardinal.report_findings as n on n.finding_id = c.finding_id
        ) as c
            on c.app_id = t.app_id
                   and c.finding_columns = row(r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform,
                                               r.sdk_version, r.app_version)::text
        where r.affected_users > 0
    ),

    -- Per finding group, one group at a time: its sessions (its report groups' rows by the primary key, and
    -- its unkeyed rows), per session, then per user, then for the group. Each step holds one group's sessions
    -- in memory instead of hashing every session of the range at once (which spilled to disk).
    repeated_impressions as (
        select f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform, f.sdk_version,
               f.app_version, r.units, r.user_days_without_session, r.repeated_units, r.users, r.affected_users,
               r.impressions, r.allowed, r.max_in_a_session, r.factor
        from finding_sources as s
        cross join lateral (
            select sum(units)::bigint as units,
                   sum(user_days_without_session)::bigint as user_days_without_session,
                   sum(repeated_units)::bigint as repeated_units,
                   count(*) as users,
                   count(*) filter (where repeated_units > 0) as affected_users,
                   sum(impressions) as impressions,
                   sum(allowed) as allowed,
                   max(max_in_a_session) as max_in_a_session,
                   min(factor) as factor
            from (
                select user_key,
                       count(*) as units,
                       count(*) filter (where without_session) as user_days_without_session,
                       count(*) filter (where repeated) as repeated_units,
                       sum(impressions) as impressions,
                       sum(allowed) as allowed,
                       max(impressions) as max_in_a_session,
                       min(factor) as factor
                from (
                    select u.*, rule.allowed, rule.factor, u.impressions >= rule.factor * rule.allowed as repeated
                    from (
                        -- Impressions per user and session (per user and report day without a session), with
                        -- the message ids shown where the rule counts them (banners and feature flags allow one
                        -- impression per session whatever the messages).
                        select v.user_key, v.session_id = '' as without_session, sum(v.impressions) as impressions,
                               cardinal.array_concat_agg(v.message_ids) filter (
                                   where s.channel not in ('banner', 'feature_flag')) as message_ids
                        from (
                            -- A session is its user's rows of one session id, or of one day without a session.
                            select x.user_key, x.session_id, case when x.session_id = '' then x.day end as unit_day,
                                   x.impressions, x.message_ids
                            from cardinal.report_session_rows_of(s.group_ids, logging_anomalies_from_source.from_date,
                                                                 logging_anomalies_from_source.to_date) as x
                            union all
                            select x.user_key, x.session_id, case when x.session_id = '' then x.day end,
                                   x.impressions, x.message_ids
                            from jsonb_to_recordset(s.unkeyed)
                                as x (user_key text, session_id text, day date, impressions integer,
                                      message_ids text[])
                        ) as v
                        group by v.user_key, v.session_id, v.unit_day
                    ) as u
                    cross join lateral (
                        -- The distinct messages are counted only where there are two ids or more: no id, or
                        -- one, allows one impression (a sort per session was most of the per-user step).
                        select case when coalesce(cardinality(u.message_ids), 0) <= 1 then 1
                                    else greatest(1, (select count(distinct m) from unnest(u.message_ids) as m))
                               end as allowed,
                               case when s.channel = 'content_card' then 3 else 2 end as factor
                    ) as rule
                ) as judged
                group by user_key
            ) as per_user
        ) as r
        join finding_groups as f on f.finding_group = s.finding_group
        -- The reference and test events: without them, from the session counts below.
        where not logging_anomalies_from_source.from_state or logging_anomalies_from_source.include_test
    ),

    -- Without test events, from the session counts: the sessions of the range by impressions and
    -- allowed impressions (report_session_units) and the users' day pairs (report_session_day_users), the
    -- finding groups keyed as there (report_groups.finding_id).
    counted_findings as materialized (
        select distinct s.finding_group, g.finding_id
        from session_groups as s
        join cardinal.report_groups as g on g.group_id = s.group_id
        where logging_anomalies_from_source.from_state and not logging_anomalies_from_source.include_test
    ),
    -- The users judged from their rows: those with a session that spans days (left out of the counts), and
    -- those with pending impressions in the range, whose folded part of the counts is taken off.
    session_apart_users as materialized (
        select f.finding_group, a.user_key
        from cardinal.report_session_apart_users as a
        join counted_findings as f on f.finding_id = a.finding_id
        where a.finding_id = any(array(select c.finding_id from counted_findings as c))
        union
        select g.finding_group, n.user_key
        from unkeyed_sessions as n
        join unkeyed_groups as g
            on g.app_id = n.app_id
                   and row(g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                           g.app_version)::text
                       = row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
                             n.app_version)::text
        where logging_anomalies_from_source.from_state and not logging_anomalies_from_source.include_test
    ),
    -- Their folded rows of those finding groups, every day: one probe of the primary key per user and report
    -- group (a lateral subquery kept from being pulled up by OFFSET 0, so a nested loop whatever the
    -- settings), as the triggers that keep the session counts find theirs.
    apart_session_rows as materialized (
        select f.finding_group, f.channel, a.user_key, s.session_id, s.day, s.impressions, s.message_ids
        from session_apart_users as a
        join session_groups as f on f.finding_group = a.finding_group
        cross join lateral (
            select s.session_id, s.day, s.impressions, s.message_ids
            from cardinal.report_session_state as s
            where s.group_id = f.group_id and s.user_key = a.user_key
            offset 0
        ) as s
    ),
    -- What the counts hold of them: their folded one-day sessions of the range, unless one of their folded
    -- sessions spans days (as count_session_units makes them).
    apart_counted_units as materialized (
        select u.finding_group, u.channel, u.user_key, u.without_session, u.impressions, u.allowed
        from (
            select u.*, bool_or(u.days > 1) over (partition by u.finding_group, u.user_key) as user_spans_days
            from (
                select r.finding_group, r.channel, r.user_key, r.session_id = '' as without_session,
                       min(r.day) as day, count(distinct r.day) as days, sum(r.impressions) as impressions,
                       cardinal.report_session_allowed(r.channel, cardinal.array_concat_agg(r.message_ids)) as allowed
                from apart_session_rows as r
                group by r.finding_group, r.channel, r.user_key, r.session_id,
                         case when r.session_id = '' then r.day end
            ) as u
        ) as u
        where not u.user_spans_days
          and u.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
    ),
    -- Their sessions of the range from all their rows, folded and pending, judged as the session counts judge
    -- them (report_session_allowed).
    apart_judged_units as materialized (
        select v.finding_group, v.channel, v.user_key, v.session_id = '' as without_session,
               sum(v.impressions) as impressions,
               cardinal.report_session_allowed(v.channel, cardinal.array_concat_agg(v.message_ids)) as allowed
        from (
            select r.finding_group, r.channel, r.user_key, r.session_id, r.day, r.impressions, r.message_ids
            from apart_session_rows as r
            where r.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
            union all
            select g.finding_group, n.channel, n.user_key, n.session_id, n.day, n.impressions, n.message_ids
            from unkeyed_sessions as n
            join unkeyed_groups as g
                on g.app_id = n.app_id
                       and row(g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                               g.app_version)::text
                           = row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                                 n.sdk_version, n.app_version)::text
            where logging_anomalies_from_source.from_state and not logging_anomalies_from_source.include_test
        ) as v
        group by v.finding_group, v.channel, v.user_key, v.session_id, case when v.session_id = '' then v.day end
    ),
    -- The range's sessions per finding group by impressions and allowed impressions: the counts' days, less
    -- what they hold of the users judged apart, plus those users' sessions as judged.
    session_buckets as (
        select b.finding_group, b.impressions, b.allowed, b.without_session, sum(b.units) as units
        from (
            select f.finding_group, c.impressions, c.allowed, c.without_session, c.units
            from cardinal.report_session_units as c
            join counted_findings as f on f.finding_id = c.finding_id
            where c.finding_id = any(array(select f.finding_id from counted_findings as f))
              and c.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
            union all
            select finding_group, impressions, allowed, without_session, -1
            from apart_counted_units
            union all
            select finding_group, impressions, allowed, without_session, 1
            from apart_judged_units
        ) as b
        group by 1, 2, 3, 4
        having sum(b.units) > 0
    ),
    -- The distinct users with a session (a repeated session) in the range, the same way.
    session_users as (
        select x.finding_group,
               coalesce(sum(x.users) filter (where x.kind = 'session'), 0) as users,
               coalesce(sum(x.users) filter (where x.kind = 'repeated'), 0) as affected_users
        from (
            select f.finding_group, c.kind, c.users
            from cardinal.report_session_day_users as c
            join counted_findings as f on f.finding_id = c.finding_id
            where c.finding_id = any(array(select f.finding_id from counted_findings as f))
              and c.day between logging_anomalies_from_source.from_date and logging_anomalies_from_source.to_date
              and c.previous_day < logging_anomalies_from_source.from_date
            union all
            select u.finding_group, k.kind, -count(distinct u.user_key)
            from apart_counted_units as u
            cross join lateral (
                select 'session' as kind
                union all
                select 'repeated' where cardinal.report_session_repeated(u.channel, u.impressions, u.allowed)
            ) as k
            group by 1, 2
            union all
            select u.finding_group, k.kind, count(distinct u.user_key)
            from apart_judged_units as u
            cross join lateral (
                select 'session' as kind
                union all
                select 'repeated' where cardinal.report_session_repeated(u.channel, u.impressions, u.allowed)
            ) as k
            group by 1, 2
        ) as x
        group by x.finding_group
    ),
    repeated_impressions_from_counts as (
        select f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform, f.sdk_version,
               f.app_version, b.units, b.user_days_without_session, b.repeated_units,
               coalesce(u.users, 0) as users, coalesce(u.affected_users, 0) as affected_users, b.impressions,
               b.allowed, b.max_in_a_session,
               case when f.channel = 'content_card' then 3 else 2 end as factor
        from (
            select b.finding_group,
                   sum(b.units)::bigint as units,
                   coalesce(sum(b.units) filter (where b.without_session), 0)::bigint as user_days_without_session,
                   coalesce(sum(b.units) filter (
                       where cardinal.report_session_repeated(g.channel, b.impressions, b.allowed)), 0)::bigint
                       as repeated_units,
                   sum(b.units * b.impressions) as impressions,
                   sum(b.units * b.allowed) as allowed,
                   max(b.impressions) as max_in_a_session
            from session_buckets as b
            join finding_groups as g on g.finding_group = b.finding_group
            group by b.finding_group
        ) as b
        join finding_groups as f on f.finding_group = b.finding_group
        left join session_users as u on u.finding_group = b.finding_group
    ),

    -- Users made distinct by hashing, then counted.
    control_absent as (
        select t.app_name, u.campaign_id, u.channel, count(*) as variant_users
        from (select distinct app_id, campaign_id, channel, user_key from campaign_users) as u
        join target as t on t.app_id = u.app_id
        group by t.app_name, u.campaign_id, u.channel
        union all
        select t.app_name, c.campaign_id, c.channel, c.variant_users
        from counted_variant_users as c
        join target as t on t.app_id = c.app_id
    ),

    push_opens_missing as (
        select app_name, campaign_id, canvas_id, canvas_step_id, platform, sum(sends) as sends,
               sum(clicks) as clicks
        from daily
        where channel = 'push' and day >= logging_anomalies_from_source.from_date
        group by app_name, campaign_id, canvas_id, canvas_step_id, platform
    ),

    -- Every day of the range and the 7 before it for each campaign (canvas step) × channel × platform that
    -- logged, with 0 on days without events (a row of 0 added to every day, rather than a join, which the
    -- planner, misled by the CTE's estimate, ran as a merge join on the app alone: 20 M rows filtered), and
    -- the mean of the 7 days before each.
    volumes as (
        select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, time_zone, day,
               logged,
               avg(logged) over (
                   partition by app_id, campaign_id, canvas_id, canvas_step_id, channel, platform
                   order by day rows between 7 preceding and 1 preceding
               ) as trailing_mean
        from (
            select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, time_zone, day,
                   sum(logged) as logged
            from (
                select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, time_zone,
                       day, logged
                from daily
                union all
                select g.app_id, g.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform,
                       g.time_zone, x::date, 0
                from (select distinct app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform,
                                      time_zone
                      from daily) as g
                cross join generate_series(logging_anomalies_from_source.from_date - 7,
                                           logging_anomalies_from_source.to_date, interval '1 day') as x
            ) as with_zeros
            group by app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, time_zone, day
        ) as dense
    ),
    judged_days as (
        select v.*,
               v.day >= logging_anomalies_from_source.from_date
                   and (v.day + 1)::timestamp at time zone v.time_zone <= now()
                   and v.trailing_mean >= 20 and v.logged < 0.1 * v.trailing_mean as fell,
               v.trailing_mean >= 20 and v.logged >= 0.5 * v.trailing_mean as kept
        from volumes as v
    ),
    logging_stopped as (
        select f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform,
               count(*) as days,
               to_char(min(f.day), 'YYYYMMDD')::integer as first_day,
               (array_agg(f.logged order by f.day))[1] as events,
               (array_agg(f.trailing_mean order by f.day))[1] as trailing_mean
        from judged_days as f
        where f.fell
          -- '' stands for NULL (no id is empty), so that the test stays an equality.
          and exists (select from judged_days as o
                      where o.app_id = f.app_id
                        and coalesce(o.campaign_id, '') = coalesce(f.campaign_id, '')
                        and coalesce(o.canvas_id, '') = coalesce(f.canvas_id, '')
                        and coalesce(o.canvas_step_id, '') = coalesce(f.canvas_step_id, '')
                        and o.channel = f.channel
                        and o.platform is distinct from f.platform and o.day = f.day and o.kept)
        group by f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform
    ),
    -- The conversions with an order on the report days, each its order's first or a repeat, as ingest
    -- recorded them (conversion_orders, repeated_order_conversions): the same rows for both sources. By app,
    -- so only when neither a campaign nor a canvas is asked for.
    ordered_conversions as (
        select t.app_name, o.platform, o.sdk_version, o.app_version, o.conversion_name, o.order_id, o.product_id,
               o.test, o.user_key, o.repeat
        from target as t
        cross join lateral (
            select c.platform, c.sdk_version, c.app_version, c.conversion_name, c.order_id, c.product_id,
                   c.user_key, c.test, c.time, false as repeat
            from cardinal.conversion_orders as c
            where c.app_id = t.app_id
            union all
            select r.platform, r.sdk_version, r.app_version, r.conversion_name, r.order_id, r.product_id,
                   r.user_key, r.test, r.time, true
            from cardinal.repeated_order_conversions as r
            where r.app_id = t.app_id
        ) as o
        where logging_anomalies_from_source.campaign is null and logging_anomalies_from_source.canvas is null
          and (logging_anomalies_from_source.include_test or not o.test)
          -- A day's bounds in the app's zone: an index range on time, then the exact day.
          and o.time >= (logging_anomalies_from_source.from_date - 1)::timestamp at time zone 'UTC'
          and o.time < (logging_anomalies_from_source.to_date + 2)::timestamp at time zone 'UTC'
          and (o.time at time zone t.report_time_zone)::date <@ t.days
    ),
    repeated_conversions as (
        select o.app_name, o.platform, o.sdk_version, o.app_version,
               count(*) as conversions,
               count(*) filter (where o.repeat) as repeats,
               count(distinct (o.conversion_name, o.order_id, o.product_id, o.test)) filter (where o.repeat)
                   as orders,
               count(distinct o.user_key) filter (where o.repeat) as users,
               array_agg(distinct o.conversion_name) filter (where o.repeat) as conversion_names
        from ordered_conversions as o
        group by o.app_name, o.platform, o.sdk_version, o.app_version
    )

    select 'repeated_impressions',
           case when affected_users::double precision / users >= 0.01
                     or impressions::double precision / allowed >= factor then 'warning' else 'info' end,
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('sessions', units,
                              'repeated_sessions', repeated_units,
                              'user_days_without_session', user_days_without_session,
                              'users', users,
                              'affected_users', affected_users,
                              'share', affected_users::double precision / users,
                              'impressions', impressions,
                              'allowed_impressions', allowed,
                              'impressions_per_allowed', impressions::double precision / allowed,
                              'max_in_a_session', max_in_a_session),
           'The UI logs an impression on every render instead of once per session (banners, feature flags) '
           'or once per message view, or shows an in-app message twice (showInAppMessage called while '
           'automaticallyShowInAppMessages is still on).'
    from (
        select * from repeated_impressions
        union all
        select * from repeated_impressions_from_counts
    ) as r
    where affected_users > 0

    union all
    select 'repeated_dismissals',
           case when affected_users::double precision / users >= 0.01 then 'warning' else 'info' end,
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('users', users,
                              'affected_users', affected_users,
                              'share', affected_users::double precision / users,
                              'repeated_cards', repeated_cards,
                              'dismissals', dismissals,
                              'max_per_card', max_per_card),
           'A custom UI logs a dismissal again for a card already dismissed (a card dismissed once cannot be '
           'dismissed again), on every swipe or re-render.'
    from repeated_dismissals_with_counts

    union all
    select 'control_impressions_missing', 'info',
           app_name, campaign_id, null, null, channel, null, null, null,
           jsonb_build_object('variant_impression_users', variant_users,
                              'control_impression_users', 0,
                              'campaign_control_send_users', 0,
                              'minimum_variant_impression_users', 200),
           'No control exposure at all: if the campaign has a control group, the custom UI filters control '
           'messages out (as Braze''s sample code does, filter { !it.isControl }) instead of logging a '
           'control impression. A campaign without a control group can say so with campaigns set --split.'
    from control_absent
    where variant_users >= 200

    union all
    select 'push_opens_missing', 'critical',
           app_name, campaign_id, canvas_id, canvas_step_id, 'push', platform, null, null,
           jsonb_build_object('sends', sends, 'opens', clicks, 'minimum_sends', 1000),
           'Push opens are not logged on this platform: the app does not hand the push payload to the SDK '
           '(a custom messaging service or notification delegate that does not pass it on).'
    from push_opens_missing
    where sends >= 1000 and clicks = 0

    union all
    select 'logging_stopped', 'warning',
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, null, null,
           jsonb_build_object('first_day', first_day,
                              'events', events,
                              'trailing_daily_events', trailing_mean,
                              'days', days),
           'The SDK stopped logging on this platform while others went on: the SDK is not initialised, or a '
           'release dropped the logging calls.'
    from logging_stopped

    union all
    select 'repeated_conversions',
           case when repeats::double precision / conversions >= 0.01 then 'warning' else 'info' end,
           app_name, null, null, null, null, platform, sdk_version, app_version,
           jsonb_build_object('conversions', conversions,
                              'repeated_conversions', repeats,
                              'share', repeats::double precision / conversions,
                              'repeated_orders', orders,
                              'users', users),
           format('The same order of %s is logged more than once (a purchase logged again by a push or '
                  'deep-link callback, or retried under a new event id). Revenue counts each order once, the '
                  'first stored; conversion counts do not know orders, so fix the second call.',
                  array_to_string(conversion_names, ', '))
    from repeated_conversions
    where repeats > 0;
$function$;
alter function cardinal.logging_anomalies_from_source(text, date, date, boolean, text, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.logging_anomalies_from_source(text, date, date, boolean, text, text, boolean) to cardinal_reader;
comment on function cardinal.logging_anomalies_from_source(text, date, date, boolean, text, text, boolean) is
    'The logging half of anomalies (repeated_impressions per session and user-day, repeated_dismissals, '
    'control_impressions_missing for a campaign with no control exposure at all, push_opens_missing, '
    'logging_stopped, repeated_conversions; definitions in SQL/docs/reports.md), by campaign or canvas step '
    '(repeated_conversions by app), from the report state (from_state) or from the raw events (not '
    'from_state, for anomalies_reference; repeated_conversions reads the same ingest tables for both). Same '
    'arguments and rows '
    'as anomalies, from_state last. Without test events, repeated_impressions sums report_session_units and '
    'report_session_day_users and judges the users of report_session_apart_users and the pending impressions'' '
    'users from their rows, and daily reads report_step_daily_counts; control_impressions_missing '
    'counts the variant users of a campaign with one impression channel from report_source_day_users, and '
    'repeated_dismissals without test events adds report_dismissal_day_users and report_dismissal_day_counts '
    'to the users of report_dismissal_repeat_users and the pending dismissals'' users, judged from their '
    'rows. The raw events are read through anomaly_reference_events, planned only when the reference runs.';


-- One finding of exposure_anomalies from a finding group's counts of one kind. The three bodies that count
-- (exposure_anomalies_from_counts, exposure_anomalies_from_user_state and exposure_anomalies_reference) pass
-- their counts as a row (to_jsonb), so that what makes a finding, its severity, its evidence and its likely
-- cause are written once. A single SELECT without FROM, language sql and immutable: inlined into the caller
-- and pulled up into its join (no per-row call, no nested loop).
create or replace function cardinal.exposure_anomaly_finding(kind text, counts jsonb)
    returns table (
        severity     text,
        evidence     jsonb,
        likely_cause text
    )
    language sql
    immutable
as $function$
    select case exposure_anomaly_finding.kind
               when 'dismissals_exceed_impressions' then 'critical'
               when 'click_without_impression' then cardinal.anomaly_severity(
                   (counts ->> 'users_without_impression')::double precision / (counts ->> 'users')::double precision)
               when 'dismissal_without_impression' then cardinal.anomaly_severity(
                   (counts ->> 'users_without_impression')::double precision / (counts ->> 'users')::double precision)
               when 'control_impressions_missing' then
                   case when (counts ->> 'control_impression_users')::numeric = 0 then 'critical' else 'warning' end
               when 'control_interaction' then
                   case when (counts ->> 'stored_events')::numeric > 0 then 'critical' else 'warning' end
               when 'users_in_several_arms' then cardinal.anomaly_severity(
                   (counts ->> 'users')::double precision / (counts ->> 'exposed_users')::double precision)
           end,
           case
               when exposure_anomaly_finding.kind = 'dismissals_exceed_impressions' then
                   jsonb_build_object('unique_impressions', counts -> 'unique_impressions',
                                      'unique_dismissals', counts -> 'unique_dismissals')
               when exposure_anomaly_finding.kind in ('click_without_impression', 'dismissal_without_impression')
                   then
                   jsonb_build_object('users_without_impression', counts -> 'users_without_impression',
                                      'users', counts -> 'users',
                                      'share', (counts ->> 'users_without_impression')::double precision
                                               / (counts ->> 'users')::double precision,
                                      'events_without_impression', counts -> 'events_without_impression',
                                      'events', counts -> 'events')
               when exposure_anomaly_finding.kind = 'control_impressions_missing' then
                   jsonb_build_object('variant_impression_users', counts -> 'variant_users',
                                      'control_impression_users', 0,
                                      'expected_control_impression_users', counts -> 'expected_group',
                                      'campaign_control_impression_users', counts -> 'control_impression_users',
                                      'campaign_control_send_users', counts -> 'control_send_users',
                                      'expected_control_share', counts -> 'control_share')
               when exposure_anomaly_finding.kind = 'control_interaction' then
                   jsonb_build_object('stored_events', counts -> 'stored_events',
                                      'stored_users', counts -> 'stored_users',
                                      'rejected_events', counts -> 'rejected_events')
               when exposure_anomaly_finding.kind = 'users_in_several_arms' then
                   jsonb_build_object('users', counts -> 'users',
                                      'exposed_users', counts -> 'exposed_users',
                                      'share', (counts ->> 'users')::double precision
                                               / (counts ->> 'exposed_users')::double precision)
           end,
           case exposure_anomaly_finding.kind
               when 'dismissals_exceed_impressions' then
                   'A custom UI logs dismissals but not the impressions of the same messages (the default UI '
                   'logs both).'
               when 'click_without_impression' then
                   'A custom UI logs clicks without logging the message''s impression first (or logs it only '
                   'after the click).'
               when 'dismissal_without_impression' then
                   'A custom UI logs dismissals of messages whose impression it never logged (or logs it only '
                   'after the dismissal).'
               when 'control_impressions_missing' then
                   'The custom UI filters control messages out instead of logging a control impression when the '
                   'user would have seen the message.'
               when 'control_interaction' then
                   'The app shows the message to control-group users, or logs clicks or dismissals for control '
                   'messages it should only have counted as control impressions.'
               when 'users_in_several_arms' then
                   'Users are assigned to more than one arm: the variant changes between sends or devices, or the '
                   'UI logs another variant (or control) than the one it shows.'
           end
    -- Counts that are no finding: no more dismissing than impressed users, no user acting without an
    -- impression, too few expected control users to miss (fewer than 8), no user in several arms.
    where case exposure_anomaly_finding.kind
              when 'dismissals_exceed_impressions' then
                  (counts ->> 'unique_dismissals')::numeric > (counts ->> 'unique_impressions')::numeric
              when 'click_without_impression' then (counts ->> 'users_without_impression')::numeric > 0
              when 'dismissal_without_impression' then (counts ->> 'users_without_impression')::numeric > 0
              when 'control_impressions_missing' then
                  ((counts ->> 'control_impression_users')::numeric = 0
                   and coalesce((counts ->> 'expected_campaign')::double precision >= 8, true))
                  or coalesce((counts ->> 'expected_group')::double precision >= 8, true)
              when 'control_interaction' then true
              when 'users_in_several_arms' then (counts ->> 'users')::numeric > 0
          end;
$function$;
alter function cardinal.exposure_anomaly_finding(text, jsonb) owner to cardinal_owner;
grant execute on function cardinal.exposure_anomaly_finding(text, jsonb) to cardinal_reader;
comment on function cardinal.exposure_anomaly_finding(text, jsonb) is
    'The severity, evidence and likely cause of one exposure_anomalies finding of the given kind '
    '(dismissals_exceed_impressions, click_without_impression, dismissal_without_impression, '
    'control_impressions_missing, control_interaction or users_in_several_arms) from one finding group''s '
    'counts, passed as a JSON object of the counting row (to_jsonb); no row when the counts make no finding. '
    'Shared by exposure_anomalies_from_counts, exposure_anomalies_from_user_state and '
    'exposure_anomalies_reference, and inlined into them.';


-- The share of a campaign's (canvas's) users its control arm should have, for control_impressions_missing: the
-- expected split's control weight when the campaign's settings name one, else the share of control sends
-- among the users sent to; and the control users expected per variant user. No row for a campaign without a
-- control arm (no control send, no control weight). Shared by exposure_anomalies_from_counts,
-- exposure_anomalies_from_user_state and exposure_anomalies_reference; language sql and immutable, so that
-- it is inlined into them.
create or replace function cardinal.expected_control_share(
    expected_split     jsonb,
    control_send_users numeric,
    send_users         numeric
)
    returns table (
        control_share            double precision,
        control_per_variant_user double precision
    )
    language sql
    immutable
as $function$
    select s.share, case when s.share < 1 then s.share / (1 - s.share) end
    from (
        select case
                   when expected_control_share.expected_split ? 'control'
                       then (expected_control_share.expected_split ->> 'control')::double precision
                            / (select sum(w.value::double precision)
                               from jsonb_each_text(expected_control_share.expected_split) as w)
                   when expected_control_share.send_users > 0
                       then expected_control_share.control_send_users::double precision
                            / expected_control_share.send_users::double precision
               end as share
    ) as s
    where expected_control_share.control_send_users > 0
       or coalesce(expected_control_share.expected_split ? 'control', false);
$function$;
alter function cardinal.expected_control_share(jsonb, numeric, numeric) owner to cardinal_owner;
grant execute on function cardinal.expected_control_share(jsonb, numeric, numeric) to cardinal_reader;
comment on function cardinal.expected_control_share(jsonb, numeric, numeric) is
    'The control arm''s expected share of a campaign''s users (control_share: the control weight of '
    'expected_split over the sum of its weights when it has one, else control_send_users / send_users) and '
    'the control users expected per variant user (control_share / (1 - control_share), NULL when the share is '
    '1); no row when the campaign has no control arm (no control send and no control weight). Used by '
    'control_impressions_missing in exposure_anomalies_from_counts, exposure_anomalies_from_user_state and '
    'exposure_anomalies_reference; inlined into them.';


-- The control_interaction rejections: the events the ingest refused because they were clicks or dismissals
-- of control messages (rejected_events.code control_interaction), by finding group. Read from the raw JSON of
-- each rejection, since a rejected event is stored nowhere else; the day is the report day of its arrival.
create or replace function cardinal.control_interaction_rejections(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text
)
    returns table (
        app_name        text,
        campaign_id     text,
        canvas_id       text,
        canvas_step_id  text,
        channel         text,
        platform        text,
        sdk_version     text,
        app_version     text,
        rejected_events bigint
    )
    language sql
    stable
as $function$
    select a.name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
           raw.sdk_version, raw.app_version, count(*)
    from cardinal.apps as a
    join cardinal.rejected_events as r on r.app_id = a.app_id
    cross join lateral (
        select j ->> 'campaign_id' as campaign_id, j ->> 'canvas_id' as canvas_id,
               j ->> 'canvas_step_id' as canvas_step_id, j ->> 'channel' as channel,
               j ->> 'platform' as platform, j ->> 'sdk_version' as sdk_version,
               j ->> 'app_version' as app_version, coalesce(j ->> 'test', 'false') = 'true' as test
        from (select cardinal.try_jsonb(r.raw) as j) as parsed
    ) as raw
    left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = raw.campaign_id
    where (control_interaction_rejections.app is null or a.name = control_interaction_rejections.app)
      and r.code = 'control_interaction'
      and r.received_at >= (control_interaction_rejections.from_date - 1)::timestamp at time zone 'UTC'
      and r.received_at < (control_interaction_rejections.to_date + 2)::timestamp at time zone 'UTC'
      and (r.received_at at time zone coalesce(s.report_time_zone, a.report_time_zone))::date
          between control_interaction_rejections.from_date and control_interaction_rejections.to_date
      and (control_interaction_rejections.campaign is null
           or raw.campaign_id = control_interaction_rejections.campaign)
      and (control_interaction_rejections.canvas is null or raw.canvas_id = control_interaction_rejections.canvas)
      and (control_interaction_rejections.include_test or not raw.test)
    group by 1, 2, 3, 4, 5, 6, 7, 8;
$function$;
alter function cardinal.control_interaction_rejections(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.control_interaction_rejections(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.control_interaction_rejections(text, date, date, boolean, text, text) is
    'The events the ingest rejected as control_interaction (a click or dismissal of a control message) whose '
    'report day of arrival is in from_date..to_date, per app × campaign or canvas step × channel × platform × '
    'sdk_version × app_version, read from their raw JSON; app, campaign and canvas narrow as in anomalies, '
    'test events only with include_test. The rejected half of the control_interaction finding, shared by '
    'exposure_anomalies_from_counts, exposure_anomalies_from_user_state and exposure_anomalies_reference; '
    'inlined into them.';


-- The exposure kinds from the per-user report state: what anomalies runs with test events, which the counts
-- beside the state leave out. It reads only the state columns it counts and makes users distinct by small
-- integer keys instead of the finding group's texts.
--
-- Why it is shaped so (profiled at 10 M events, 4.1 M state rows; the measurements are in git history):
--
-- * Users are made distinct per integer key, not per text: the selected groups get dense ranks first (the
--   finding group, the source, the step, the variant arm with control 0; NULL ranks as one value, as GROUP BY
--   groups it), so every per-user aggregate hashes the user key and a few integers, and the texts are joined
--   back to the few hundred findings at the end. Keyed by the eight texts, the aggregates spilled hundreds of
--   MB and the body took twice the CPU.
-- * report_user_state is read by group id with the columns each reader needs (a scan, or one source's rows
--   by the primary key's group_id prefix), plus report_pending_user_facts; not through one materialized CTE
--   of every column, which cost more to write and read back than three scans.
-- * The day tests run once per row behind an OFFSET 0 fence (pulled up, each was evaluated in every
--   aggregate that used it), and rows with nothing in the range are left out early.
-- * One aggregate per user and source gives both the uncontrolled campaigns' arms and whether the user met
--   several arms; the exposed users are joined to the few users in several arms only.
-- * No plan hinges on a row estimate: joins and aggregates hashed, the uncontrolled sources an
--   `= any(array(...))`, CTEs read twice materialized, jit off.
-- * Test events read every state row because the counts that avoid it (exposure_anomalies_from_counts) are
--   kept without test events, and users_in_several_arms is not a sum of per-user counts at all: it needs
--   the users who ever met two arms, and only their rows.
create or replace function cardinal.exposure_anomalies_from_user_state(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text
)
    returns setof cardinal.anomalies_row
    language sql
    stable
    -- Hash joins whatever the row estimates: a merge join chosen on a 1-row estimate may merge on one key
    -- and filter the rest (quadratic). jit off.
    set enable_nestloop = off
    set enable_mergejoin = off
    -- Users are made distinct by hashing whatever their estimated number: a sort of every state row by user
    -- costs more than hashing the integer keys.
    set enable_sort = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(exposure_anomalies_from_user_state.from_date,
                                          exposure_anomalies_from_user_state.to_date)
          and (exposure_anomalies_from_user_state.app is null or a.name = exposure_anomalies_from_user_state.app)
    ),
    -- The events not folded yet, as state rows of the selected sources (report_user_facts_of's pending part),
    -- each under a negative stand-in for a group id: its group may not exist in report_groups yet.
    pending as materialized (
        select -dense_rank() over (
                   order by p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel,
                            p.platform, p.sdk_version, p.app_version, p.test
               ) as group_id,
               p.*
        from cardinal.report_pending_user_facts as p
        join target as t on t.app_id = p.app_id
        where (p.campaign_id is not null or p.canvas_id is not null)
          and (exposure_anomalies_from_user_state.campaign is null
               or p.campaign_id = exposure_anomalies_from_user_state.campaign)
          and (exposure_anomalies_from_user_state.canvas is null
               or p.canvas_id = exposure_anomalies_from_user_state.canvas)
    ),
    -- The selected sources' report groups, folded and pending, each with small integer keys: its finding
    -- group (the report group without variant and test flag), its source (campaign or canvas), its step
    -- (campaign or canvas step) and its variant arm (control is 0). Users are made distinct per these keys,
    -- so that each hashed user row carries a few integers and the user key, not eight texts; the keys are
    -- ranks over a few thousand groups (NULL ranks as one value, as in GROUP BY).
    groups as materialized (
        select k.group_id, k.app_id, t.app_name, t.report_time_zone as app_time_zone, k.campaign_id,
               k.canvas_id, k.canvas_step_id, k.channel, k.platform, k.sdk_version, k.app_version, k.test,
               k.channel in ('content_card', 'in_app_message', 'banner') as dismissible,
               k.channel in ('content_card', 'in_app_message', 'feature_flag') as impression_channel,
               k.channel = 'push' as push,
               dense_rank() over (
                   order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id, k.channel, k.platform,
                            k.sdk_version, k.app_version
               )::integer as finding_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id)::integer as source_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id)::integer
                   as step_id,
               dense_rank() over (order by k.variant_id)::integer as variant_arm
        from (
            select g.group_id, g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel,
                   g.platform, g.sdk_version, g.app_version, g.test
            from cardinal.report_groups as g
            where (g.campaign_id is not null or g.canvas_id is not null)
              and (exposure_anomalies_from_user_state.campaign is null
                   or g.campaign_id = exposure_anomalies_from_user_state.campaign)
              and (exposure_anomalies_from_user_state.canvas is null
                   or g.canvas_id = exposure_anomalies_from_user_state.canvas)
            union all
            select distinct p.group_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id,
                   p.channel, p.platform, p.sdk_version, p.app_version, p.test
            from pending as p
        ) as k
        join target as t on t.app_id = k.app_id
    ),
    -- The finding groups' columns, for the findings' rows.
    findings as materialized (
        select distinct finding_id, app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform,
               sdk_version, app_version
        from groups
    ),
    -- report_user_facts' rows of the selected sources, by group id: every folded row (a sequential scan), or
    -- one source's by its groups (an index condition), and the pending rows. Not materialized: each
    -- reader below takes the columns it needs (the day sets, or the times of a few users).
    facts as not materialized (
        select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.send_days,
               u.control_impression_days, u.control_send_days, u.first_impression_at,
               u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        where exposure_anomalies_from_user_state.campaign is null and exposure_anomalies_from_user_state.canvas is null
        union all
        select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.send_days,
               u.control_impression_days, u.control_send_days, u.first_impression_at,
               u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        where (exposure_anomalies_from_user_state.campaign is not null
               or exposure_anomalies_from_user_state.canvas is not null)
          and u.group_id = any(array(select g.group_id from groups as g where g.group_id > 0))
        union all
        select p.group_id, p.user_key, p.impression_days, p.dismissal_days, p.send_days,
               p.control_impression_days, p.control_send_days, p.first_impression_at,
               p.first_control_impression_at, p.first_control_send_at, p.click_times, p.dismissal_times
        from pending as p
    ),

    -- Every click and dismissal of the range, on the report days of the campaign's time zone (the app's for
    -- a canvas). Rows without interaction times are skipped before the settings are joined.
    interaction_times as materialized (
        select g.finding_id, g.source_id, g.step_id, g.channel, f.user_key, x.type, x.time
        from facts as f
        join groups as g on g.group_id = f.group_id
        left join cardinal.campaign_settings as s on s.app_id = g.app_id and s.campaign_id = g.campaign_id
        cross join lateral (
            select 'click' as type, t as time from unnest(f.click_times) as t
            union all
            select 'dismissal', t from unnest(f.dismissal_times) as t
        ) as x
        where (f.click_times is not null or f.dismissal_times is not null)
          and (exposure_anomalies_from_user_state.include_test or not g.test)
          and (x.time at time zone coalesce(s.report_time_zone, g.app_time_zone))::date
              between exposure_anomalies_from_user_state.from_date and exposure_anomalies_from_user_state.to_date
    ),
    -- The sources' users who clicked or dismissed in the range.
    acting_users as materialized (
        select distinct source_id, user_key
        from interaction_times
    ),
    -- Per acting user and step, over all the user's rows of the source (test rows too): the first
    -- impression before the end of the broad range, and whether a control exposure came by then.
    step_exposures as materialized (
        select g.source_id, f.user_key, g.step_id,
               min(f.first_impression_at) filter (
                   where f.first_impression_at
                         < (exposure_anomalies_from_user_state.to_date + 2)::timestamp at time zone 'UTC'
               ) as first_impression,
               bool_or(least(f.first_control_impression_at, f.first_control_send_at)
                       < (exposure_anomalies_from_user_state.to_date + 2)::timestamp at time zone 'UTC')
                   as control_exposure
        from facts as f
        join groups as g on g.group_id = f.group_id
        join acting_users as a on a.source_id = g.source_id and a.user_key = f.user_key
        group by g.source_id, f.user_key, g.step_id
    ),
    -- The control exposure over all the user's steps: a canvas's control group is the canvas's.
    user_control_exposures as (
        select source_id, user_key, coalesce(bool_or(control_exposure), false) as has_control_exposure
        from step_exposures
        group by source_id, user_key
    ),
    interactions as (
        select i.finding_id, i.channel, i.user_key, i.type,
               u.has_control_exposure and e.first_impression is null as control_user,
               e.first_impression is null or e.first_impression > i.time as without_impression
        from interaction_times as i
        join step_exposures as e
            on e.source_id = i.source_id and e.user_key = i.user_key and e.step_id = i.step_id
        join user_control_exposures as u on u.source_id = i.source_id and u.user_key = i.user_key
    ),

    -- One row per user and finding group (a user can have several rows there: variants, the test flag, a
    -- folded and a pending row): what the user did there in the range, and the smallest and largest arm of
    -- the user's exposures. Rows with nothing in the range are skipped: no kind counts them.
    source_users as materialized (
        select finding_id, source_id, user_key, dismissible, impression_channel,
               bool_or(impression) as impression,
               bool_or(dismissal) as dismissal,
               bool_or(send) as send,
               bool_or(control_impression) as control_impression,
               bool_or(control_send) as control_send,
               min(least(variant_arm, control_arm)) as first_arm,
               max(greatest(variant_arm, control_arm)) as last_arm
        from (
            select in_range.*,
                   case when in_range.impression or (in_range.push and in_range.send)
                        then in_range.arm end as variant_arm,
                   case when in_range.control_impression or (in_range.push and in_range.control_send)
                        then 0 end as control_arm
            from (
                select g.finding_id, g.source_id, f.user_key, g.dismissible, g.impression_channel, g.push,
                       g.variant_arm as arm,
                       coalesce(range.days @> any(f.impression_days), false) as impression,
                       coalesce(range.days @> any(f.dismissal_days), false) as dismissal,
                       coalesce(range.days @> any(f.send_days), false) as send,
                       coalesce(range.days @> any(f.control_impression_days), false) as control_impression,
                       coalesce(range.days @> any(f.control_send_days), false) as control_send
                from facts as f
                join groups as g on g.group_id = f.group_id
                cross join lateral (
                    select daterange(exposure_anomalies_from_user_state.from_date,
                                     exposure_anomalies_from_user_state.to_date, '[]') as days
                ) as range
                where exposure_anomalies_from_user_state.include_test or not g.test
                -- A fence: each row's tests run once, not once per reference to them below (the planner
                -- would substitute the expressions into the filter and every aggregate).
                offset 0
            ) as in_range
            where in_range.impression or in_range.dismissal or in_range.send or in_range.control_impression
               or in_range.control_send
        ) as r
        group by finding_id, source_id, user_key, dismissible, impression_channel
    ),

    dismissals_exceed_impressions as (
        select finding_id,
               count(*) filter (where impression) as unique_impressions,
               count(*) filter (where dismissal) as unique_dismissals
        from source_users
        where dismissible
        group by finding_id
    ),

    without_impression as (
        select type, finding_id,
               count(distinct user_key) filter (where without_impression) as users_without_impression,
               count(distinct user_key) as users,
               count(*) filter (where without_impression) as events_without_impression,
               count(*) as events
        from interactions
        where channel in ('content_card', 'in_app_message', 'banner') and not control_user
        group by type, finding_id
    ),

    impression_groups as materialized (
        select finding_id, source_id,
               count(*) filter (where impression) as variant_users,
               count(*) filter (where control_impression) as control_users
        from source_users
        where impression_channel and (impression or control_impression)
        group by finding_id, source_id
    ),
    -- Per user and source (a user of several steps or channels once per campaign or canvas): the arms
    -- control_impressions_missing counts, and whether the user met several arms in the range.
    arm_users as materialized (
        select source_id, user_key,
               bool_or(control_send) as control_send, bool_or(send) as send,
               bool_or(control_impression) as control_impression,
               bool_or(impression and impression_channel) as variant_impression,
               min(first_arm) <> max(last_arm) as several_arms
        from source_users
        group by source_id, user_key
    ),
    -- The arms of the campaigns (canvases) with a group of impressions but no control impression: the only
    -- ones control_impressions_missing can name.
    campaign_arms as (
        select u.source_id,
               count(*) filter (where u.control_send) as control_send_users,
               count(*) filter (where u.send or u.control_send) as send_users,
               count(*) filter (where u.control_impression) as control_impression_users,
               count(*) filter (where u.variant_impression) as variant_impression_users
        from arm_users as u
        where u.source_id = any(array(
                  select g.source_id from impression_groups as g where g.control_users = 0 and g.variant_users > 0
              ))
        group by u.source_id
    ),
    control_campaigns as (
        select c.*, share.control_share, share.control_per_variant_user
        from campaign_arms as c
        join (select distinct source_id, app_id, campaign_id from groups) as source
            on source.source_id = c.source_id
        left join cardinal.campaign_settings as s
            on s.app_id = source.app_id and s.campaign_id = source.campaign_id
        cross join lateral cardinal.expected_control_share(s.expected_split, c.control_send_users, c.send_users)
            as share
    ),
    control_impressions_missing as (
        select g.finding_id, g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        join control_campaigns as c on c.source_id = g.source_id
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                   n.sdk_version, n.app_version, i.stored_events, i.stored_users, 0 as rejected_events
            from (
                select finding_id, count(*) as stored_events, count(distinct user_key) as stored_users
                from interactions
                where control_user
                group by finding_id
            ) as i
            join findings as n on n.finding_id = i.finding_id
            union all
            select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform, r.sdk_version,
                   r.app_version, 0, 0, r.rejected_events
            from cardinal.control_interaction_rejections(
                     exposure_anomalies_from_user_state.app, exposure_anomalies_from_user_state.from_date,
                     exposure_anomalies_from_user_state.to_date, exposure_anomalies_from_user_state.include_test,
                     exposure_anomalies_from_user_state.campaign, exposure_anomalies_from_user_state.canvas
                 ) as r
        ) as both_sources
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    -- The users who met several arms in the range over the whole campaign or canvas: a few hundred, which
    -- each finding group's exposed users are joined to.
    several_arm_users as materialized (
        select source_id, user_key
        from arm_users
        where several_arms
    ),
    users_in_several_arms as (
        select s.finding_id,
               count(several.user_key) as users,
               count(*) as exposed_users
        from source_users as s
        left join several_arm_users as several
            on several.source_id = s.source_id and several.user_key = s.user_key
        where s.first_arm is not null
        group by s.finding_id
    )

    -- Each kind's counts per finding group, made findings by exposure_anomaly_finding, which leaves out the
    -- counts that make none.
    select c.kind, f.severity, n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
           n.sdk_version, n.app_version, f.evidence, f.likely_cause
    from (
        select d.finding_id, 'dismissals_exceed_impressions' as kind, to_jsonb(d) as counts
        from dismissals_exceed_impressions as d
        union all
        select w.finding_id, w.type || '_without_impression', to_jsonb(w)
        from without_impression as w
        union all
        select m.finding_id, 'control_impressions_missing', to_jsonb(m)
        from control_impressions_missing as m
        union all
        select a.finding_id, 'users_in_several_arms', to_jsonb(a)
        from users_in_several_arms as a
    ) as c
    join findings as n on n.finding_id = c.finding_id
    cross join lateral cardinal.exposure_anomaly_finding(c.kind, c.counts) as f
    union all
    select 'control_interaction', f.severity, i.app_name, i.campaign_id, i.canvas_id, i.canvas_step_id, i.channel,
           i.platform, i.sdk_version, i.app_version, f.evidence, f.likely_cause
    from control_interaction as i
    cross join lateral cardinal.exposure_anomaly_finding('control_interaction', to_jsonb(i)) as f;
$function$;
alter function cardinal.exposure_anomalies_from_user_state(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.exposure_anomalies_from_user_state(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.exposure_anomalies_from_user_state(text, date, date, boolean, text, text) is
    'The kinds of exposure_anomalies from the per-user report state, by campaign or canvas step: what '
    'anomalies runs with test events, whose users report_finding_day_users does not count; without them '
    'exposure_anomalies_from_counts. Same arguments and rows as exposure_anomalies_from_counts, include_test '
    'added.';


-- One finding group's session rows of the range, by report_session_state's primary key.
create or replace function cardinal.report_session_rows_of(group_ids bigint[], from_date date, to_date date)
    returns table (
        user_key    text,
        session_id  text,
        day         date,
        impressions integer,
        message_ids text[]
    )
    language sql
    stable
    -- By the index whatever the estimates: logging_anomalies_from_source calls this once per finding group, and a
    -- sequential scan (which an unanalyzed table invites) would read every group's rows for each.
    set enable_seqscan = off
as $function$
    select v.user_key, v.session_id, v.day, v.impressions, v.message_ids
    from cardinal.report_session_state as v
    where v.group_id = any(report_session_rows_of.group_ids)
      and v.day between report_session_rows_of.from_date and report_session_rows_of.to_date;
$function$;
alter function cardinal.report_session_rows_of(bigint[], date, date) owner to cardinal_owner;
grant execute on function cardinal.report_session_rows_of(bigint[], date, date) to cardinal_reader;
comment on function cardinal.report_session_rows_of(bigint[], date, date) is
    'The report_session_state rows of the report groups group_ids on the report days from_date..to_date '
    '(the group''s columns left out), read by the primary key whatever the planner estimates.';


-- The exposure kinds without test events from the counts kept beside the report state (the day pairs of
-- report_finding_day_users, report_source_day_users and report_interaction_day_*, report_several_arm_users),
-- so that no kind reads every state row: only the users the counts leave out, and the pending events' users,
-- are judged from their rows.
create or replace function cardinal.exposure_anomalies_from_counts(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text,
    canvas       text
)
    returns setof cardinal.anomalies_row
    language sql
    stable
    -- Hash joins whatever the row estimates: a merge join chosen on a 1-row estimate may merge on one key
    -- and filter the rest (quadratic). jit off.
    set enable_nestloop = off
    set enable_mergejoin = off
    -- Users are made distinct by hashing whatever their estimated number: a sort of every state row by user
    -- costs more than hashing the integer keys.
    set enable_sort = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(exposure_anomalies_from_counts.from_date,
                                          exposure_anomalies_from_counts.to_date)
          and (exposure_anomalies_from_counts.app is null or a.name = exposure_anomalies_from_counts.app)
    ),
    -- The events not folded yet, as state rows of the selected sources (report_user_facts_of's pending part),
    -- each under a negative stand-in for a group id: its group may not exist in report_groups yet.
    pending as materialized (
        select -dense_rank() over (
                   order by p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel,
                            p.platform, p.sdk_version, p.app_version, p.test
               ) as group_id,
               p.*
        from cardinal.report_pending_user_facts as p
        join target as t on t.app_id = p.app_id
        where (p.campaign_id is not null or p.canvas_id is not null)
          and (exposure_anomalies_from_counts.campaign is null
               or p.campaign_id = exposure_anomalies_from_counts.campaign)
          and (exposure_anomalies_from_counts.canvas is null or p.canvas_id = exposure_anomalies_from_counts.canvas)
    ),
    -- The selected sources' report groups, folded and pending, each with small integer keys: its finding
    -- group (the report group without variant and test flag), its source (campaign or canvas), its step
    -- (campaign or canvas step) and its variant arm (control is 0). Users are made distinct per these keys,
    -- so that each hashed user row carries a few integers and the user key, not eight texts; the keys are
    groups as materialized (
        select k.group_id, k.app_id, t.app_name, t.report_time_zone as app_time_zone, k.campaign_id,
               k.canvas_id, k.canvas_step_id, k.channel, k.platform, k.sdk_version, k.app_version, k.test,
               k.channel in ('content_card', 'in_app_message', 'banner') as dismissible,
               k.channel in ('content_card', 'in_app_message', 'feature_flag') as impression_channel,
               k.channel = 'push' as push,
               dense_rank() over (
                   order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id, k.channel, k.platform,
                            k.sdk_version, k.app_version
               )::integer as finding_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id)::integer as source_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id)::integer
                   as step_id,
               dense_rank() over (order by k.variant_id)::integer as variant_arm,
               k.finding_key
        from (
            select g.group_id, g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel,
                   g.platform, g.sdk_version, g.app_version, g.test, g.finding_id as finding_key
            from cardinal.report_groups as g
            where (g.campaign_id is not null or g.canvas_id is not null)
              and (exposure_anomalies_from_counts.campaign is null
                   or g.campaign_id = exposure_anomalies_from_counts.campaign)
              and (exposure_anomalies_from_counts.canvas is null or g.canvas_id = exposure_anomalies_from_counts.canvas)
            union all
            select distinct p.group_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id,
                   p.channel, p.platform, p.sdk_version, p.app_version, p.test, f.finding_id
            from pending as p
            -- A pending group's finding group is in report_findings when a folded group shares it ('' for NULL:
            -- the tables' CHECKs keep every key column non-empty, so the join is an equality and hashed).
            left join cardinal.report_findings as f
                on f.app_id = p.app_id and coalesce(f.campaign_id, '') = coalesce(p.campaign_id, '')
               and coalesce(f.canvas_id, '') = coalesce(p.canvas_id, '')
               and coalesce(f.canvas_step_id, '') = coalesce(p.canvas_step_id, '') and f.channel = p.channel
               and coalesce(f.platform, '') = coalesce(p.platform, '')
               and coalesce(f.sdk_version, '') = coalesce(p.sdk_version, '')
               and coalesce(f.app_version, '') = coalesce(p.app_version, '')
        ) as k
        join target as t on t.app_id = k.app_id
    ),
    -- The finding groups' columns, for the findings' rows.
    findings as materialized (
        select distinct finding_id, source_id, finding_key, app_id, app_name, campaign_id, canvas_id,
               canvas_step_id, channel, platform, sdk_version, app_version, dismissible, impression_channel
        from groups
    ),
    -- The campaigns and canvases, by the keys of report_source_day_users and report_several_arm_users.
    sources as materialized (
        select distinct g.source_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key,
               coalesce(g.canvas_id, '') as canvas_key
        from groups as g
    ),
    -- The users whose clicks and dismissals are judged from their rows for the range: those exposed to
    -- control who act (report_control_acting_users; the counts leave them out), and those with pending events
    -- in a selected source, which may re-judge their folded interactions or expose them to control.
    apart_users as materialized (
        select o.source_id, s.user_key
        from cardinal.report_control_acting_users as s
        join sources as o
            on o.app_id = s.app_id and o.campaign_key = s.campaign_id and o.canvas_key = s.canvas_id
        where s.app_id = any(array(select t.app_id from target as t))
          and (exposure_anomalies_from_counts.campaign is null
               or s.campaign_id = exposure_anomalies_from_counts.campaign)
          and (exposure_anomalies_from_counts.canvas is null or s.canvas_id = exposure_anomalies_from_counts.canvas)
        union
        select g.source_id, p.user_key
        from pending as p
        join groups as g on g.group_id = p.group_id
    ),
    -- Their rows of those sources (test rows too): folded ones by the user_key index, and pending ones.
    apart_rows as materialized (
        select true as folded, g.finding_id, g.source_id, g.step_id, g.app_id, g.campaign_id, g.app_time_zone,
               g.channel, g.test, u.user_key, u.first_impression_at, u.first_control_impression_at,
               u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        join apart_users as a on a.source_id = g.source_id and a.user_key = u.user_key
        where u.user_key = any(array(select distinct a.user_key from apart_users as a))
          and g.group_id > 0
        union all
        select false, g.finding_id, g.source_id, g.step_id, g.app_id, g.campaign_id, g.app_time_zone, g.channel,
               g.test, p.user_key, p.first_impression_at, p.first_control_impression_at, p.first_control_send_at,
               p.click_times, p.dismissal_times
        from pending as p
        join groups as g on g.group_id = p.group_id
    ),

    -- Their clicks and dismissals of the range, on the report days of the campaign's time zone (the app's for
    -- a canvas).
    interaction_times as materialized (
        select r.finding_id, r.source_id, r.step_id, r.channel, r.user_key, x.type, x.time
        from apart_rows as r
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join lateral (
            select 'click' as type, t as time from unnest(r.click_times) as t
            union all
            select 'dismissal', t from unnest(r.dismissal_times) as t
        ) as x
        where (r.click_times is not null or r.dismissal_times is not null)
          and not r.test
          and (x.time at time zone coalesce(s.report_time_zone, r.app_time_zone))::date
              between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
    ),
    -- Per user and step, over all the user's rows of the source (test rows too): the first impression before
    -- the end of the broad range, and whether a control exposure came by then.
    step_exposures as materialized (
        select r.source_id, r.user_key, r.step_id,
               min(r.first_impression_at) filter (
                   where r.first_impression_at
                         < (exposure_anomalies_from_counts.to_date + 2)::timestamp at time zone 'UTC'
               ) as first_impression,
               bool_or(least(r.first_control_impression_at, r.first_control_send_at)
                       < (exposure_anomalies_from_counts.to_date + 2)::timestamp at time zone 'UTC') as control_exposure
        from apart_rows as r
        group by r.source_id, r.user_key, r.step_id
    ),
    -- The control exposure over all the user's steps: a canvas's control group is the canvas's.
    user_control_exposures as (
        select source_id, user_key, coalesce(bool_or(control_exposure), false) as has_control_exposure
        from step_exposures
        group by source_id, user_key
    ),
    -- The users read apart are the only ones who can be control users: the others were never exposed.
    interactions as (
        select i.finding_id, i.channel, i.user_key, i.type,
               u.has_control_exposure and e.first_impression is null as control_user,
               e.first_impression is null or e.first_impression > i.time as without_impression
        from interaction_times as i
        join step_exposures as e
            on e.source_id = i.source_id and e.user_key = i.user_key and e.step_id = i.step_id
        join user_control_exposures as u on u.source_id = i.source_id and u.user_key = i.user_key
    ),
    -- What the counts hold of the users read apart: their folded rows' interactions of the range, judged as the
    -- counting trigger judges them (report_interaction_rows).
    apart_counted as materialized (
        select r.finding_id, r.user_key, x.type, x.without_impression
        from (
            select r.*,
                   min(r.first_impression_at) over (partition by r.source_id, r.step_id, r.user_key)
                       as step_first_impression_at,
                   bool_or(r.first_control_impression_at is not null or r.first_control_send_at is not null)
                       over (partition by r.source_id, r.user_key) as control_exposed
            from apart_rows as r
            where r.folded
        ) as r
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join cardinal.report_row_interactions(r.click_times, r.dismissal_times,
                                                    coalesce(s.report_time_zone, r.app_time_zone),
                                                    r.step_first_impression_at) as x
        where not r.test and not r.control_exposed and r.channel in ('content_card', 'in_app_message', 'banner')
          and x.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
    ),
    -- The counted users per finding group and kind in the range (day pairs), and the counted events.
    counted_interaction_users as materialized (
        select c.finding_id as finding_key, c.kind, sum(c.users) as users
        from cardinal.report_interaction_day_users as c
        where c.finding_id = any(array(
                  select f.finding_key from findings as f where f.finding_key is not null and f.dismissible))
          and c.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
          and c.previous_day < exposure_anomalies_from_counts.from_date
        group by 1, 2
    ),
    counted_interaction_events as materialized (
        select c.finding_id as finding_key, c.type, sum(c.events) as events,
               sum(c.events_without_impression) as events_without_impression
        from cardinal.report_interaction_day_events as c
        where c.finding_id = any(array(
                  select f.finding_key from findings as f where f.finding_key is not null and f.dismissible))
          and c.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
        group by 1, 2
    ),


    -- The distinct users per finding group and kind of day in the range (report_finding_kind_days), of the
    -- non-test groups: the folded state's day pairs plus the pending users who have the kind in the range
    -- and no folded day of it there.
    folded_counts as materialized (
        select c.finding_id as finding_key, c.kind, sum(c.users) as users
        from cardinal.report_finding_day_users as c
        where c.finding_id = any(array(select f.finding_key from findings as f where f.finding_key is not null))
          and c.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
          and c.previous_day < exposure_anomalies_from_counts.from_date
        group by 1, 2
    ),
    pending_kind_users as materialized (
        select distinct g.finding_id, g.finding_key, p.user_key, k.kind
        from pending as p
        join groups as g on g.group_id = p.group_id
        cross join cardinal.report_finding_kind_days(p.channel, p.impression_days, p.dismissal_days,
                                                     p.control_impression_days, p.send_days,
                                                     p.control_send_days) as k
        where not p.test
          and k.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
    ),
    -- Those users' folded days of the kinds in the range, by report_user_state's user_key index.
    folded_kind_users as materialized (
        select distinct g.finding_key, u.user_key, k.kind
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        cross join cardinal.report_finding_kind_days(g.channel, u.impression_days, u.dismissal_days,
                                                     u.control_impression_days, u.send_days,
                                                     u.control_send_days) as k
        where u.user_key = any(array(select distinct p.user_key from pending_kind_users as p))
          and not g.test
          and k.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
    ),
    finding_counts as materialized (
        select x.finding_id,
               coalesce(sum(x.users) filter (where x.kind = 'impression'), 0) as impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'dismissal'), 0) as dismissal_users,
               coalesce(sum(x.users) filter (where x.kind = 'control_impression'), 0) as control_impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'exposure'), 0) as exposed_users
        from (
            select f.finding_id, c.kind, c.users
            from folded_counts as c
            join findings as f on f.finding_key = c.finding_key
            union all
            select p.finding_id, p.kind, count(*)
            from pending_kind_users as p
            where not exists (
                select from folded_kind_users as k
                where k.finding_key = p.finding_key and k.user_key = p.user_key and k.kind = p.kind)
            group by 1, 2
        ) as x
        group by x.finding_id
    ),

    dismissals_exceed_impressions as (
        select c.finding_id, c.impression_users as unique_impressions, c.dismissal_users as unique_dismissals
        from finding_counts as c
        join findings as f on f.finding_id = c.finding_id
        where f.dismissible
    ),

    -- The counts, without what they hold of the users read apart, plus those users judged for the range.
    without_impression as (
        select x.type, x.finding_id,
               sum(x.users_without_impression) as users_without_impression, sum(x.users) as users,
               sum(x.events_without_impression) as events_without_impression, sum(x.events) as events
        from (
            select f.finding_id, k.type,
                   case when k.without_impression then c.users else 0 end as users_without_impression,
                   case when k.without_impression then 0 else c.users end as users,
                   0 as events_without_impression, 0 as events
            from counted_interaction_users as c
            join findings as f on f.finding_key = c.finding_key
            cross join lateral (
                select split_part(c.kind, '_', 1) as type, c.kind like '%_without_impression' as without_impression
            ) as k
            union all
            select f.finding_id, c.type, 0, 0, c.events_without_impression, c.events
            from counted_interaction_events as c
            join findings as f on f.finding_key = c.finding_key
            union all
            select finding_id, type,
                   -count(distinct user_key) filter (where without_impression), -count(distinct user_key),
                   -count(*) filter (where without_impression), -count(*)
            from apart_counted
            group by finding_id, type
            union all
            select finding_id, type,
                   count(distinct user_key) filter (where without_impression), count(distinct user_key),
                   count(*) filter (where without_impression), count(*)
            from interactions
            where channel in ('content_card', 'in_app_message', 'banner') and not control_user
            group by finding_id, type
        ) as x
        group by x.type, x.finding_id
    ),


    impression_groups as materialized (
        select c.finding_id, f.source_id, c.impression_users as variant_users,
               c.control_impression_users as control_users
        from finding_counts as c
        join findings as f on f.finding_id = c.finding_id
        where f.impression_channel and (c.impression_users > 0 or c.control_impression_users > 0)
    ),
    -- control_impressions_missing's campaign arms, for the campaigns (canvases) it may name (a group of
    -- impressions without a control impression): the distinct users per source and kind of day in the range
    -- (report_source_kind_days) of the non-test groups, from the folded state's day pairs plus the pending users
    -- without a folded day of the kind in the range.
    candidate_sources as materialized (
        select distinct s.source_id, s.app_id, s.campaign_key, s.canvas_key
        from impression_groups as i
        join sources as s on s.source_id = i.source_id
        where i.control_users = 0 and i.variant_users > 0
    ),
    pending_source_kind_users as materialized (
        select distinct g.source_id, p.user_key, k.kind
        from pending as p
        join groups as g on g.group_id = p.group_id
        cross join cardinal.report_source_kind_days(p.channel, p.impression_days, p.control_impression_days,
                                                    p.send_days, p.control_send_days) as k
        where not p.test
          and g.source_id = any(array(select c.source_id from candidate_sources as c))
          and k.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
    ),
    folded_source_kind_users as materialized (
        select distinct g.source_id, u.user_key, k.kind
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        cross join cardinal.report_source_kind_days(g.channel, u.impression_days, u.control_impression_days,
                                                    u.send_days, u.control_send_days) as k
        where u.user_key = any(array(select distinct p.user_key from pending_source_kind_users as p))
          and not g.test
          and k.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
    ),
    campaign_arms as (
        select c.source_id,
               coalesce(sum(x.users) filter (where x.kind = 'control_send'), 0) as control_send_users,
               coalesce(sum(x.users) filter (where x.kind = 'send'), 0) as send_users,
               coalesce(sum(x.users) filter (where x.kind = 'control_impression'), 0) as control_impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'variant_impression'), 0) as variant_impression_users
        from candidate_sources as c
        left join (
            select o.source_id, d.kind, d.users
            from cardinal.report_source_day_users as d
            join candidate_sources as o
                on o.app_id = d.app_id and o.campaign_key = d.campaign_id and o.canvas_key = d.canvas_id
            where d.app_id = any(array(select o.app_id from candidate_sources as o))
              and d.campaign_id = any(array(select o.campaign_key from candidate_sources as o))
              and d.day between exposure_anomalies_from_counts.from_date and exposure_anomalies_from_counts.to_date
              and d.previous_day < exposure_anomalies_from_counts.from_date
            union all
            select p.source_id, p.kind, 1
            from pending_source_kind_users as p
            where not exists (
                select from folded_source_kind_users as f
                where f.source_id = p.source_id and f.user_key = p.user_key and f.kind = p.kind)
        ) as x on x.source_id = c.source_id
        group by c.source_id
    ),
    control_campaigns as (
        select c.*, share.control_share, share.control_per_variant_user
        from campaign_arms as c
        join (select distinct source_id, app_id, campaign_id from groups) as source
            on source.source_id = c.source_id
        left join cardinal.campaign_settings as s
            on s.app_id = source.app_id and s.campaign_id = source.campaign_id
        cross join lateral cardinal.expected_control_share(s.expected_split, c.control_send_users, c.send_users)
            as share
    ),
    control_impressions_missing as (
        select g.finding_id, g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        join control_campaigns as c on c.source_id = g.source_id
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                   n.sdk_version, n.app_version, i.stored_events, i.stored_users, 0 as rejected_events
            from (
                select finding_id, count(*) as stored_events, count(distinct user_key) as stored_users
                from interactions
                where control_user
                group by finding_id
            ) as i
            join findings as n on n.finding_id = i.finding_id
            union all
            select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform, r.sdk_version,
                   r.app_version, 0, 0, r.rejected_events
            from cardinal.control_interaction_rejections(
                     exposure_anomalies_from_counts.app, exposure_anomalies_from_counts.from_date,
                     exposure_anomalies_from_counts.to_date, false,
                     exposure_anomalies_from_counts.campaign, exposure_anomalies_from_counts.canvas
                 ) as r
        ) as both_sources
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    -- The users who may have met several arms in the range: those whose folded rows of the source ever did
    -- (report_several_arm_users) and the pending events' exposed users. Their non-test rows of the source give
    -- the arms of the range (control 0); a user is counted in each finding group where it was exposed.
    several_arm_candidates as materialized (
        select o.source_id, s.user_key
        from cardinal.report_several_arm_users as s
        join sources as o
            on o.app_id = s.app_id and o.campaign_key = s.campaign_id and o.canvas_key = s.canvas_id
        where s.app_id = any(array(select t.app_id from target as t))
          and (exposure_anomalies_from_counts.campaign is null
               or s.campaign_id = exposure_anomalies_from_counts.campaign)
          and (exposure_anomalies_from_counts.canvas is null or s.canvas_id = exposure_anomalies_from_counts.canvas)
        union
        select g.source_id, p.user_key
        from pending as p
        join groups as g on g.group_id = p.group_id
        where not p.test
          and (p.impression_days is not null or p.control_impression_days is not null
               or (g.push and (p.send_days is not null or p.control_send_days is not null)))
    ),
    several_arm_exposures as materialized (
        select e.finding_id, e.source_id, e.user_key, a.arm
        from (
            select g.finding_id, g.source_id, g.variant_arm, g.push, u.user_key, u.impression_days, u.send_days,
                   u.control_impression_days, u.control_send_days
            from cardinal.report_user_state as u
            join groups as g on g.group_id = u.group_id
            where u.user_key = any(array(select distinct c.user_key from several_arm_candidates as c))
              and g.group_id > 0 and not g.test
            union all
            select g.finding_id, g.source_id, g.variant_arm, g.push, p.user_key, p.impression_days, p.send_days,
                   p.control_impression_days, p.control_send_days
            -- Every pending exposure is a candidate; the join below narrows the rest. An `= any(array(…))`
            -- filter here was a linear search of the candidates per pending row: on 100,000 pending events
            -- (52,000 rows, 48,000 candidates) 60 of the report's 64 s.
            from pending as p
            join groups as g on g.group_id = p.group_id
            where not p.test
        ) as e
        join several_arm_candidates as c on c.source_id = e.source_id and c.user_key = e.user_key
        cross join lateral (
            select daterange(exposure_anomalies_from_counts.from_date, exposure_anomalies_from_counts.to_date, '[]')
                       as days
        ) as range
        cross join lateral (
            select e.variant_arm as arm
            where range.days @> any(e.impression_days) or (e.push and range.days @> any(e.send_days))
            union all
            select 0
            where range.days @> any(e.control_impression_days)
               or (e.push and range.days @> any(e.control_send_days))
        ) as a
    ),
    several_arm_users as materialized (
        select source_id, user_key
        from several_arm_exposures
        group by source_id, user_key
        having min(arm) <> max(arm)
    ),
    users_in_several_arms as (
        select x.finding_id, x.users, c.exposed_users
        from (
            select e.finding_id, count(distinct e.user_key) as users
            from several_arm_exposures as e
            join several_arm_users as s on s.source_id = e.source_id and s.user_key = e.user_key
            group by e.finding_id
        ) as x
        join finding_counts as c on c.finding_id = x.finding_id
    )


    -- Each kind's counts per finding group, made findings by exposure_anomaly_finding, which leaves out the
    -- counts that make none.
    select c.kind, f.severity, n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
           n.sdk_version, n.app_version, f.evidence, f.likely_cause
    from (
        select d.finding_id, 'dismissals_exceed_impressions' as kind, to_jsonb(d) as counts
        from dismissals_exceed_impressions as d
        union all
        select w.finding_id, w.type || '_without_impression', to_jsonb(w)
        from without_impression as w
        union all
        select m.finding_id, 'control_impressions_missing', to_jsonb(m)
        from control_impressions_missing as m
        union all
        select a.finding_id, 'users_in_several_arms', to_jsonb(a)
        from users_in_several_arms as a
    ) as c
    join findings as n on n.finding_id = c.finding_id
    cross join lateral cardinal.exposure_anomaly_finding(c.kind, c.counts) as f
    union all
    select 'control_interaction', f.severity, i.app_name, i.campaign_id, i.canvas_id, i.canvas_step_id, i.channel,
           i.platform, i.sdk_version, i.app_version, f.evidence, f.likely_cause
    from control_interaction as i
    cross join lateral cardinal.exposure_anomaly_finding('control_interaction', to_jsonb(i)) as f;
$function$;
alter function cardinal.exposure_anomalies_from_counts(text, date, date, text, text) owner to cardinal_owner;
grant execute on function cardinal.exposure_anomalies_from_counts(text, date, date, text, text) to cardinal_reader;
comment on function cardinal.exposure_anomalies_from_counts(text, date, date, text, text) is
    'The kinds of exposure_anomalies without test events, by campaign or canvas step: the distinct users of '
    'each finding group from report_finding_day_users'' day pairs, the users of several arms from '
    'report_several_arm_users'' users'' rows, the campaign arms of control_impressions_missing from the rows '
    'of the campaigns it may name, clicks and dismissals from report_interaction_day_users and '
    'report_interaction_day_events, with the users exposed to control who act and the pending events'' users '
    'judged from their rows, plus the pending events. Rows as exposure_anomalies_from_user_state''s.';


-- The findings about who was exposed to what, from the report state: from the counts beside it without test
-- events, from the per-user state with them (the counts leave test events out).
create or replace function cardinal.exposure_anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns setof cardinal.anomalies_row
    language sql
    stable
as $function$
    -- Only one of the two runs: the other's one-time filter is false.
    select *
    from cardinal.exposure_anomalies_from_counts(exposure_anomalies.app, exposure_anomalies.from_date,
                                                exposure_anomalies.to_date, exposure_anomalies.campaign,
                                                exposure_anomalies.canvas)
    where not exposure_anomalies.include_test
    union all
    select *
    from cardinal.exposure_anomalies_from_user_state(exposure_anomalies.app, exposure_anomalies.from_date,
                                                     exposure_anomalies.to_date, exposure_anomalies.include_test,
                                                     exposure_anomalies.campaign, exposure_anomalies.canvas)
    where exposure_anomalies.include_test;
$function$;
alter function cardinal.exposure_anomalies(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.exposure_anomalies(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.exposure_anomalies(text, date, date, boolean, text, text) is
    'The half of cardinal.anomalies about who was exposed to what: dismissals_exceed_impressions, '
    'dismissal_without_impression, click_without_impression, control_impressions_missing (a campaign with a '
    'control arm whose group logs no control impressions), control_interaction and users_in_several_arms '
    '(exposure_anomalies_from_counts, or exposure_anomalies_from_user_state with test events). The same '
    'arguments and columns as cardinal.anomalies, and its rows of these kinds, unordered; it can run on a '
    'connection of its own beside logging_anomalies, on the same snapshot.';


-- The findings about what is logged, from the report state.
create or replace function cardinal.logging_anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns setof cardinal.anomalies_row
    language sql
    stable
as $function$
    select *
    from cardinal.logging_anomalies_from_source(logging_anomalies.app, logging_anomalies.from_date,
                                                logging_anomalies.to_date, logging_anomalies.include_test,
                                                logging_anomalies.campaign, logging_anomalies.canvas, true);
$function$;
alter function cardinal.logging_anomalies(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.logging_anomalies(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.logging_anomalies(text, date, date, boolean, text, text) is
    'The half of cardinal.anomalies about what is logged: repeated_impressions, repeated_dismissals, '
    'push_opens_missing, logging_stopped, repeated_conversions and control_impressions_missing for a campaign '
    'with no control exposure at all (logging_anomalies_from_source from the report state). The same '
    'arguments and columns as cardinal.anomalies, and its rows of these kinds, unordered; it can run on a '
    'connection of its own beside exposure_anomalies, on the same snapshot.';
