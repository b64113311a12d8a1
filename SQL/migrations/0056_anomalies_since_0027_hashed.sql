-- 0056_anomalies_since_0027_hashed.sql — anomalies_since_0027 judges sessions one finding group at a time, in
-- memory, and reads only the control candidates' user rows (issue 8).
--
-- Design notes (why, not what):
--
-- * Profile at 10 M events (the bench database: 3.73 M session state rows, 4.15 M per-user state rows, 9,795
--   report groups of 1,440 finding groups outside push; auto_explain with log_analyze and
--   log_nested_statements, jit off, work_mem 64MB, load average 10–12 on the shared 2 cores), all campaigns,
--   0037's body: 313 s (489 rows; 265 s at load 2.5–11 without auto_explain). repeated_impressions 277 s:
--   reading the session rows through report_session_facts 17 s, the sort of all 3.72 M rows by the eight
--   text columns of the finding group, the user, the session and the day 143 s (spilled), the per-session
--   aggregate 22 s and the per-user one 70 s, most of it the count(distinct) over each session's message ids
--   (a sort per session). control_impressions_missing's control_absent 28.6 s: every per-user row of the app
--   (4.15 M) read through report_user_facts with every column, joined to the 9 candidate campaigns (623 k
--   rows), `impression_days && <the range's days>` per row, and a sort for count(distinct). daily 5.4 s and
--   repeated_dismissals 7.6 s, both mostly sorts for their group by. One campaign (c38): 0.2 s.
--
-- * Sessions are judged one finding group at a time: a lateral subquery per finding group reads its report
--   groups' session rows by report_session_state's primary key (report_session_rows_of: `group_id =
--   any(<the group's ids>)`, the rows of the range, only the columns counted; sequential scans off in it, so
--   that no estimate turns the read into one full scan per group) and aggregates them per session, per user
--   and for the group, hashed in memory (about 2,600 rows per group at 10 M events). 0037 sorted every
--   session row of the range by the eight text columns of the finding group first (a 3.7 M-row sort that
--   spilled); a first version of this migration hashed them all at once by a bigint key instead, and its two
--   hash aggregates of 3.7 M rows still spilled (21 batches each at work_mem 64MB): 105 s for all campaigns,
--   against 41 s one group at a time under the same load. The group's key (session_groups) is the smallest
--   group_id of the report groups that differ only in variant and test flag; its columns are joined to the
--   results.
--
-- * Rows without a group key (the pending events', or every raw impression for the reference) are made
--   report_session_state rows (unkeyed_sessions) and given the state's key of their finding group, or a new
--   negative key when the state has none yet (unkeyed_groups), so that a session partly folded and partly
--   pending is still one session. The finding columns are compared as one row's text, which tells NULL from
--   '' and keeps the join an equality, so that it is hashed. Each group's unkeyed rows are handed to its
--   subquery as one jsonb array (finding_sources), read once, not the unkeyed rows scanned for every group.
--
-- * A session's allowed impressions count its distinct message ids only when it has two ids or more: with
--   none or one the answer is 1 without the per-session sort. Banners and feature flags allow one whatever
--   the messages, so their ids are not even gathered.
--
-- * control_absent reads only the candidate campaigns' groups in the three channels it counts, by the
--   primary key (0042's index condition), user_key and impression_days only, plus the pending events' rows
--   (report_pending_user_facts); the range is a daterange that contains any of the row's days (0053); users
--   are made distinct by one hash aggregate and counted.
--
-- * One campaign or canvas: with nested loops off, daily's and card_dismissals' joins of
--   report_daily_count_facts and report_dismissal_facts to their groups became hash joins over every
--   source's rows (a sequential scan of 247 k daily count rows: 0.43 s of c38's 0.8 s under load). They read
--   report_daily_counts and report_dismissal_state themselves: one source's rows by its groups (source_groups,
--   0042's index condition), every row when no source is asked for, and the pending views as before.
--
-- * No plan hinges on a row estimate: joins are hashed (nested loops and merge joins off), aggregates hashed
--   (they spill to disk rather than sort), jit off. Settings on the function keep the planner from inlining
--   it; callers read it whole (cardinal.anomalies unions its rows).
--
-- * Not done: counts kept by statement triggers on report_session_state (per finding group and day, users
--   through 0025's day pairs), which would replace the per-session and per-user hashing of every session row
--   in the range. A session can span report days (a session id across midnight), report groups (variants,
--   test and non-test events) and folded and pending rows, and its verdict is taken on its totals over the
--   range: the counts would have to keep those sessions apart. This step still hashes 3.7 M session rows
--   for all campaigns.
--
-- * Measured in psql on the bench database after this migration (jit off, work_mem 64MB), 0037's body as a
--   temporary function run alternately with this one, on the shared machine (test suites and other sessions
--   running). All campaigns (489 rows, the same md5 of the ordered rows every time): 303 s before, 66 and
--   44 s after at load average 6–7; 316 and 404 s before, 74 s after at load 10–11 (with a draft of the
--   per-group read). c17 (161 k session rows, the most of any campaign): 5.7 and 4.3 s before, 0.82 and
--   0.57 s after. c38: 184 and 134 ms before, 130 and 148 ms after. Test events included, 2026-11-03..05, all
--   campaigns: 18.1 s before, 6.6 s after (474 rows, same md5); c09 with test events over 2026-11-10..16:
--   same md5. anomalies for c17: the same md5 as anomalies_of_0017's rows with 0037's. `cardinal migrate`
--   applied the migration in 71 ms (function bodies; nothing to backfill).
--
-- * What is left at 10 M events for all campaigns (tens of seconds): repeated_impressions still hashes every
--   session row of the range, one group at a time (see "Not done"); control_absent makes 623 k candidate
--   user rows distinct; repeated_dismissals and daily hash 147 k and 237 k rows by text columns.
--
-- * Rows, arguments and return types are 0033's: the body changes, and report_session_rows_of is new.

-- One finding group's session rows of the range, by report_session_state's primary key.
create function cardinal.report_session_rows_of(group_ids bigint[], from_date date, to_date date)
    returns table (
        user_key    text,
        session_id  text,
        day         date,
        impressions integer,
        message_ids text[]
    )
    language sql
    stable
    -- By the index whatever the estimates: anomalies_since_0027 calls this once per finding group, and a
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
    '(the group''s columns left out), read by the primary key whatever the planner estimates (0056).';


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
    -- The report groups of the one campaign or canvas asked for (none when neither is): its folded daily
    -- counts and dismissals are read by these keys (0042's index condition), not by a scan of every source's.
    source_groups as materialized (
        select array(
                   select g.group_id
                   from cardinal.report_groups as g
                   where (anomalies_since_0027.campaign is not null or anomalies_since_0027.canvas is not null)
                     and (anomalies_since_0027.campaign is null or g.campaign_id = anomalies_since_0027.campaign)
                     and (anomalies_since_0027.canvas is null or g.canvas_id = anomalies_since_0027.canvas)
               ) as group_ids
    ),
    -- The raw message events from 7 report days before the range to its end (reference only).
    raw_events as materialized (
        select t.app_id, t.app_name, e.campaign_id, e.canvas_id, e.canvas_step_id, e.channel, e.platform,
               e.sdk_version, e.app_version, e.type, e.control, e.user_key, e.session_id, e.message_id, e.test,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone, local.day
        from target as t
        join cardinal.identified_events as e on e.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date as day
        ) as local
        where not anomalies_since_0027.from_state
          and (anomalies_since_0027.campaign is null or e.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or e.canvas_id = anomalies_since_0027.canvas)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and (anomalies_since_0027.include_test or not e.test)
          and e.time >= (anomalies_since_0027.from_date - 8)::timestamp at time zone 'UTC'
          and e.time < (anomalies_since_0027.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between anomalies_since_0027.from_date - 7 and anomalies_since_0027.to_date
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
            -- report_daily_count_facts: every source's folded counts, or one source's by its groups, and the
            -- pending counts.
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.test, d.day,
                   d.impressions, d.clicks, d.dismissals, d.sends, d.control_impressions, d.control_sends
            from cardinal.report_daily_counts as d
            join cardinal.report_groups as g on g.group_id = d.group_id
            where anomalies_since_0027.campaign is null and anomalies_since_0027.canvas is null
            union all
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.test, d.day,
                   d.impressions, d.clicks, d.dismissals, d.sends, d.control_impressions, d.control_sends
            from cardinal.report_daily_counts as d
            join cardinal.report_groups as g on g.group_id = d.group_id
            where d.group_id = any((select group_ids from source_groups)::bigint[])
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
        select d.app_id, d.campaign_id
        from daily as d
        left join cardinal.campaign_settings as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.campaign_id is not null
          and d.day >= anomalies_since_0027.from_date and s.expected_split is null
        group by d.app_id, d.campaign_id
        having sum(d.control_events) = 0
           and coalesce(sum(d.impressions) filter (
                   where d.channel in ('content_card', 'in_app_message', 'feature_flag')), 0) >= 200
    ),
    -- The report groups of those campaigns in the channels counted (test groups only with include_test).
    candidate_groups as materialized (
        select g.group_id, g.app_id, g.campaign_id, g.channel
        from control_candidates as c
        join cardinal.report_groups as g on g.app_id = c.app_id and g.campaign_id = c.campaign_id
        where anomalies_since_0027.from_state
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

    -- Dismissals per user and content card in the range.
    card_dismissals as (
        select t.app_name, d.campaign_id, d.canvas_id, d.canvas_step_id, d.channel, d.platform, d.sdk_version,
               d.app_version, d.user_key, d.message_id, sum(d.dismissals) as dismissals
        from target as t
        join (
            -- report_dismissal_facts: every source's folded dismissals, or one source's by its groups, and the
            -- pending ones.
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                   g.app_version, g.test, x.user_key, x.message_id, x.day, x.dismissals
            from cardinal.report_dismissal_state as x
            join cardinal.report_groups as g on g.group_id = x.group_id
            where anomalies_since_0027.campaign is null and anomalies_since_0027.canvas is null
            union all
            select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
                   g.app_version, g.test, x.user_key, x.message_id, x.day, x.dismissals
            from cardinal.report_dismissal_state as x
            join cardinal.report_groups as g on g.group_id = x.group_id
            where x.group_id = any((select group_ids from source_groups)::bigint[])
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
    ),

    -- Users made distinct by hashing, then counted.
    control_absent as (
        select t.app_name, u.campaign_id, u.channel, count(*) as variant_users
        from (select distinct app_id, campaign_id, channel, user_key from campaign_users) as u
        join target as t on t.app_id = u.app_id
        group by t.app_name, u.campaign_id, u.channel
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
    from repeated_impressions
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
    from repeated_dismissals
    where affected_users > 0

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
    'as anomalies, from_state last.';
