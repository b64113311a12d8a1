-- 0075_anomaly_reference_events_planned_apart.sql — anomalies_since_0027 reads its raw events (the reference's
-- source) through a function of their own, so that the report state's path no longer plans a scan of every
-- events partition it never runs (issue 8).
--
-- Design notes (why, not what):
--
-- * anomalies for one campaign of the 10 M reports bench took 0.11 s (0.11–0.15) through the CLI against a goal
--   of 100 ms, of which about 25 ms is running the two function bodies. A SQL function's body is planned on each
--   call, with its arguments unknown, so anomalies_since_0027's raw_events was planned for the state's path
--   too, where `not from_state` is false and it never runs: a scan of identified_events over each of the 17
--   monthly events partitions (13 months of retention and the months made ahead), each with its six indexes
--   and 25 CHECK constraints to try. In psql on that state (c17, jit off) the call took 55 ms in a session
--   that had made it before and 79 ms as a new session's first (its catalog caches empty, as every CLI run's
--   are); with the 15 empty partitions detached (in a transaction, rolled back) 35 ms.
--
-- * A set-returning SQL function with a SET clause is not inlined: its body is planned when the executor first
--   calls it, and the `not from_state` one-time filter above the call means it is never called for the state.
--   With raw_events read through anomaly_reference_events: 41 ms for the second call of a session, 59 ms for
--   the first. Its rows are raw_events' columns as before, so the rest of the body is 0074's.
--
-- * The reference (anomalies_reference, the property tests' yardstick) plans and runs the same query as before,
--   once per call.


-- The raw message events of one app that anomalies_since_0027 reads for its reference: from 7 report days
-- before the range to its end, with their report day in the campaign's time zone, or the app's.
create function cardinal.anomaly_reference_events(
    app_id           bigint,
    app_name         text,
    report_time_zone text,
    from_date        date,
    to_date          date,
    include_test     boolean,
    campaign         text,
    canvas           text
)
    returns table (
        app_id         bigint,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        type           text,
        control        boolean,
        user_key       text,
        session_id     text,
        message_id     text,
        test           boolean,
        time_zone      text,
        day            date
    )
    language sql
    stable
    -- The SET clause keeps the function from being inlined into its caller's plan (see the notes): jit off as
    -- every report.
    set jit = off
as $function$
    select e.app_id, anomaly_reference_events.app_name, e.campaign_id, e.canvas_id, e.canvas_step_id, e.channel,
           e.platform, e.sdk_version, e.app_version, e.type, e.control, e.user_key, e.session_id, e.message_id,
           e.test, coalesce(s.report_time_zone, anomaly_reference_events.report_time_zone), local.day
    from cardinal.identified_events as e
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    cross join lateral (
        select (e.time at time zone coalesce(s.report_time_zone, anomaly_reference_events.report_time_zone))::date
                   as day
    ) as local
    where e.app_id = anomaly_reference_events.app_id
      and (anomaly_reference_events.campaign is null or e.campaign_id = anomaly_reference_events.campaign)
      and (anomaly_reference_events.canvas is null or e.canvas_id = anomaly_reference_events.canvas)
      and e.type in ('send', 'impression', 'click', 'dismissal')
      and (anomaly_reference_events.include_test or not e.test)
      and e.time >= (anomaly_reference_events.from_date - 8)::timestamp at time zone 'UTC'
      and e.time < (anomaly_reference_events.to_date + 2)::timestamp at time zone 'UTC'
      and local.day between anomaly_reference_events.from_date - 7 and anomaly_reference_events.to_date;
$function$;
alter function cardinal.anomaly_reference_events(bigint, text, text, date, date, boolean, text, text)
    owner to cardinal_owner;
grant execute on function cardinal.anomaly_reference_events(bigint, text, text, date, date, boolean, text, text)
    to cardinal_reader;
comment on function cardinal.anomaly_reference_events(bigint, text, text, date, date, boolean, text, text) is
    'The message events (sends, impressions, clicks, dismissals) of one app from 7 report days before the '
    'range to its end, with the day in the campaign''s report time zone or the app''s, narrowed to a campaign '
    'or canvas when given and without test events unless include_test: the raw source of anomalies_since_0027 '
    'for anomalies_reference (0075). Not inlined, so that the report state''s path does not plan it.';


-- 0074's anomalies_since_0027 with raw_events read through anomaly_reference_events.
create or replace function cardinal.anomalies_since_0027(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text,
    from_state   boolean
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
    -- Hash every aggregate and join whatever the estimates (0053): sorts of the session and user rows are
    -- what this replaces, and no plan may hinge on a row estimate (0036). jit off as every report.
    set enable_sort = off
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               -- The report days of the range, for the containment tests on the state's day sets.
               daterange(anomalies_since_0027.from_date, anomalies_since_0027.to_date, '[]') as days
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_since_0027.from_date, anomalies_since_0027.to_date)
          and (anomalies_since_0027.app is null or a.name = anomalies_since_0027.app)
    ),
    -- The report groups of the one campaign or canvas asked for (none when neither is): its folded
    -- dismissals are read by these keys (0042's index condition), not by a scan of every source's.
    source_groups as materialized (
        select array(
                   select g.group_id
                   from cardinal.report_groups as g
                   where (anomalies_since_0027.campaign is not null or anomalies_since_0027.canvas is not null)
                     and (anomalies_since_0027.campaign is null or g.campaign_id = anomalies_since_0027.campaign)
                     and (anomalies_since_0027.canvas is null or g.canvas_id = anomalies_since_0027.canvas)
               ) as group_ids
    ),
    -- The raw message events from 7 report days before the range to its end (reference only), read through a
    -- function that is planned only when the reference runs.
    raw_events as materialized (
        select r.*
        from target as t
        cross join lateral cardinal.anomaly_reference_events(
            t.app_id, t.app_name, t.report_time_zone, anomalies_since_0027.from_date,
            anomalies_since_0027.to_date, anomalies_since_0027.include_test, anomalies_since_0027.campaign,
            anomalies_since_0027.canvas
        ) as r
        where not anomalies_since_0027.from_state
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
            -- The folded counts per step, channel, platform and day (report_step_daily_counts, 0072: a few rows
            -- per day, where report_daily_counts has one per report group), and the pending counts.
            select d.app_id, d.campaign_id, d.canvas_id, d.canvas_step_id, d.channel, d.platform, d.test, d.day,
                   d.impressions, d.clicks, d.dismissals, d.sends, d.control_impressions, d.control_sends
            from cardinal.report_step_daily_counts as d
            where d.app_id = any(array(select t.app_id from target as t))
              and (anomalies_since_0027.campaign is null or d.campaign_id = anomalies_since_0027.campaign)
              and (anomalies_since_0027.canvas is null or d.canvas_id = anomalies_since_0027.canvas)
              and d.day between anomalies_since_0027.from_date - 7 and anomalies_since_0027.to_date
            union all
            select p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.channel, p.platform, p.test, p.day,
                   p.impressions, p.clicks, p.dismissals, p.sends, p.control_impressions, p.control_sends
            from cardinal.report_pending_daily_counts as p
        ) as c on c.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        where anomalies_since_0027.from_state
          and (c.campaign_id is not null or c.canvas_id is not null)
          and (anomalies_since_0027.campaign is null or c.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or c.canvas_id = anomalies_since_0027.canvas)
          and (anomalies_since_0027.include_test or not c.test)
          and c.day between anomalies_since_0027.from_date - 7 and anomalies_since_0027.to_date
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
        where anomalies_since_0027.from_state
          and (g.campaign_id is not null or g.canvas_id is not null)
          and (anomalies_since_0027.campaign is null or g.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or g.canvas_id = anomalies_since_0027.canvas)
          and (anomalies_since_0027.include_test or not g.test)
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
        where anomalies_since_0027.from_state
          and (p.campaign_id is not null or p.canvas_id is not null)
          and (anomalies_since_0027.campaign is null or p.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or p.canvas_id = anomalies_since_0027.canvas)
          and (anomalies_since_0027.include_test or not p.test)
          and p.channel <> 'push'
          and p.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
        union all
        select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
               app_version, user_key, coalesce(session_id, ''), day, count(*)::integer,
               array_agg(distinct message_id) filter (where message_id is not null)
        from raw_events
        where type = 'impression' and channel <> 'push' and day >= anomalies_since_0027.from_date
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
          and d.day >= anomalies_since_0027.from_date and s.expected_split is null
        group by d.app_id, d.campaign_id
        having sum(d.control_events) = 0
           and coalesce(sum(d.impressions) filter (
                   where d.channel in ('content_card', 'in_app_message', 'feature_flag')), 0) >= 200
    ),
    -- Those whose variant impressions of the range are in one channel, without test events: their users are
    -- the campaign's distinct variant_impression users of the range, which 0069's day pairs count
    -- (report_source_day_users, '' for the canvas), plus the pending users without a folded impression of the
    -- range. The others' users are read below.
    counted_candidates as materialized (
        select c.app_id, c.campaign_id, c.impression_channel as channel
        from control_candidates as c
        where anomalies_since_0027.from_state and not anomalies_since_0027.include_test
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
              and d.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
              and d.previous_day < anomalies_since_0027.from_date
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
        where anomalies_since_0027.from_state
          and not exists (select from counted_candidates as o
                          where o.app_id = c.app_id and o.campaign_id = c.campaign_id)
          and g.channel in ('content_card', 'in_app_message', 'feature_flag')
          and (anomalies_since_0027.include_test or not g.test)
    ),
    -- The users of those campaigns with a variant impression in the range, per channel: the candidates'
    -- folded rows by their groups (0042's index condition on the primary key), only the columns counted, and
    -- the pending events' rows; or the raw impressions (the reference). A row is in the range when the
    -- range contains any of its days (0053).
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
        where anomalies_since_0027.from_state
          and not exists (select from counted_candidates as o
                          where o.app_id = c.app_id and o.campaign_id = c.campaign_id)
          and p.channel in ('content_card', 'in_app_message', 'feature_flag')
          and (anomalies_since_0027.include_test or not p.test)
          and t.days @> any(p.impression_days)
        union all
        select r.app_id, r.campaign_id, r.channel, r.user_key
        from raw_events as r
        join control_candidates as c on c.app_id = r.app_id and c.campaign_id = r.campaign_id
        where r.type = 'impression' and not r.control and r.day >= anomalies_since_0027.from_date
          and r.channel in ('content_card', 'in_app_message', 'feature_flag')
    ),

    -- Without test events, the dismissal counts (0074) hold every user but those judged from their rows: the
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
        where anomalies_since_0027.from_state and not anomalies_since_0027.include_test and not p.test
          and p.channel = 'content_card' and (p.campaign_id is not null or p.canvas_id is not null)
          and (anomalies_since_0027.campaign is null or p.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or p.canvas_id = anomalies_since_0027.canvas)
    ),
    dismissal_apart_users as materialized (
        select a.finding_id, a.user_key, true as repeats
        from cardinal.report_dismissal_repeat_users as a
        where anomalies_since_0027.from_state and not anomalies_since_0027.include_test
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
            where anomalies_since_0027.include_test
              and anomalies_since_0027.campaign is null and anomalies_since_0027.canvas is null
            union all
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                   g.app_version, g.test, x.user_key, x.message_id, x.day, x.dismissals
            from cardinal.report_dismissal_state as x
            join cardinal.report_groups as g on g.group_id = x.group_id
            where anomalies_since_0027.include_test
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
        where anomalies_since_0027.from_state
          and (d.campaign_id is not null or d.canvas_id is not null)
          and (anomalies_since_0027.campaign is null or d.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or d.canvas_id = anomalies_since_0027.canvas)
          and (anomalies_since_0027.include_test or not d.test)
          and d.channel = 'content_card'
          and d.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
        union all
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               user_key, message_id, count(*)
        from raw_events
        where type = 'dismissal' and channel = 'content_card' and message_id is not null
          and day >= anomalies_since_0027.from_date
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
    -- Without test events, what the counts add for the finding groups judged from rows (0074): the day pairs'
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
                               and u.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
                               and u.previous_day < anomalies_since_0027.from_date), 0) as users,
                   coalesce((select sum(c.dismissals)
                             from cardinal.report_dismissal_day_counts as c
                             where c.finding_id = f.finding_id
                               and c.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date),
                            0) as dismissals
            from (select distinct finding_id from dismissal_apart_users) as f
        ) as k
        left join (
            select r.finding_id, count(distinct r.user_key) as users, sum(r.dismissals) as dismissals
            from apart_dismissal_rows as r
            where not r.repeats
              and r.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
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
                            from cardinal.report_session_rows_of(s.group_ids, anomalies_since_0027.from_date,
                                                                 anomalies_since_0027.to_date) as x
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
        -- The reference and test events: without them, from the counts below (0072).
        where not anomalies_since_0027.from_state or anomalies_since_0027.include_test
    ),

    -- Without test events, from the session counts (0072): the sessions of the range by impressions and
    -- allowed impressions (report_session_units) and the users' day pairs (report_session_day_users), the
    -- finding groups keyed as there (report_groups.finding_id).
    counted_findings as materialized (
        select distinct s.finding_group, g.finding_id
        from session_groups as s
        join cardinal.report_groups as g on g.group_id = s.group_id
        where anomalies_since_0027.from_state and not anomalies_since_0027.include_test
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
        where anomalies_since_0027.from_state and not anomalies_since_0027.include_test
    ),
    -- Their folded rows of those finding groups, every day: one probe of the primary key per user and report
    -- group (a lateral subquery kept from being pulled up by OFFSET 0, so a nested loop whatever the
    -- settings), as 0073's triggers find theirs.
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
          and u.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
    ),
    -- Their sessions of the range from all their rows, folded and pending, as 0056 judges them.
    apart_judged_units as materialized (
        select v.finding_group, v.channel, v.user_key, v.session_id = '' as without_session,
               sum(v.impressions) as impressions,
               cardinal.report_session_allowed(v.channel, cardinal.array_concat_agg(v.message_ids)) as allowed
        from (
            select r.finding_group, r.channel, r.user_key, r.session_id, r.day, r.impressions, r.message_ids
            from apart_session_rows as r
            where r.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
            union all
            select g.finding_group, n.channel, n.user_key, n.session_id, n.day, n.impressions, n.message_ids
            from unkeyed_sessions as n
            join unkeyed_groups as g
                on g.app_id = n.app_id
                       and row(g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                               g.app_version)::text
                           = row(n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                                 n.sdk_version, n.app_version)::text
            where anomalies_since_0027.from_state and not anomalies_since_0027.include_test
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
              and c.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
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
              and c.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
              and c.previous_day < anomalies_since_0027.from_date
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
        where channel = 'push' and day >= anomalies_since_0027.from_date
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
                cross join generate_series(anomalies_since_0027.from_date - 7, anomalies_since_0027.to_date,
                                           interval '1 day') as x
            ) as with_zeros
            group by app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, time_zone, day
        ) as dense
    ),
    judged_days as (
        select v.*,
               v.day >= anomalies_since_0027.from_date
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
    from logging_stopped;
$function$;
comment on function cardinal.anomalies_since_0027(text, date, date, boolean, text, text, boolean) is
    'The anomaly kinds of 0027 (repeated_impressions per session and user-day, repeated_dismissals, '
    'control_impressions_missing for a campaign with no control exposure at all, push_opens_missing, '
    'logging_stopped; definitions in 0027''s notes), by campaign or canvas step (0033), from the report state '
    '(from_state) or from the raw events (not from_state, for anomalies_reference). Same arguments and rows '
    'as anomalies, from_state last. Without test events, repeated_impressions sums report_session_units and '
    'report_session_day_users and judges the users of report_session_apart_users and the pending impressions'' '
    'users from their rows, and daily reads report_step_daily_counts (0072); control_impressions_missing '
    'counts the variant users of a campaign with one impression channel from report_source_day_users, and '
    'repeated_dismissals without test events adds report_dismissal_day_users and report_dismissal_day_counts '
    'to the users of report_dismissal_repeat_users and the pending dismissals'' users, judged from their rows '
    '(0074). The raw events are read through anomaly_reference_events, planned only when the reference runs '
    '(0075).';
