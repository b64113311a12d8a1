-- 0057_anomalies_of_0017_narrow_keys.sql — the anomalies kinds of 0017 read only the state columns they count
-- and make users distinct by small integer keys instead of the finding group's texts (issue 8).
--
-- Design notes (why, not what):
--
-- * Profile at 10 M events (the bench database: 4,146,689 per-user state rows, 12,285 report groups, 50
--   campaigns; auto_explain with log_analyze and log_nested_statements, jit off, work_mem 64MB), all
--   campaigns, 0050's body: 356 s under auto_explain's per-node timing at a load average of 10–12 (other
--   helpers' work; 0050 measured 193 s without it). What each step took between its input's last row and
--   its own (so without the reads under it): source_users, the hashed aggregate of every row by user and
--   finding group, 43 s (4,137,950 groups out of 4,146,689 rows: a user almost never has two rows in a
--   finding group, so the aggregate is nearly all cost and no reduction; 339 MB spilled in 33 batches);
--   step_exposures 38 s (hashing all 4.1 M facts rows 15 s, the join to the 752,051 acting users 14 s, the
--   aggregate 9 s); users_in_several_arms 20 s (every exposed row, 3.6 M, joined back to the 434 users in
--   several arms, then counted); several_arm_users 17 s (218 MB in 21 batches for 434 users);
--   campaign_arms' users of the 30 uncontrolled campaigns 13 s (2.4 M rows, 118 MB in 5 batches); the
--   sort of without_impression's 588 k interactions 14 s; facts, materialized with every column of every
--   row (day sets, click and dismissal times, the group's texts), fed every reader through a tuplestore.
--
-- * The aggregates' keys were eight texts per row (app name, campaign, canvas, step, channel, platform, SDK
--   and app version: 365 bytes a row in source_users) and the arms texts ('variant:' || id). Here the
--   selected groups (a few thousand; folded from report_groups, pending under negative stand-in ids) get
--   integer keys first: the finding group, the source (campaign or canvas), the step and the variant arm
--   (control 0), dense ranks in which NULL ranks as one value, as GROUP BY groups it. Every per-user
--   aggregate then hashes the user key and a few integers and booleans, and the texts are joined back to
--   the few hundred findings at the end. The arms compare as 0050's texts did: two rows are in the same arm
--   exactly when their ranks are equal.
--
-- * report_user_state is read by group id with the columns each reader needs, not through a materialized
--   facts CTE holding every column of every row: every folded row (a sequential scan), or one source's rows
--   by 0042's index condition on its groups, plus report_pending_user_facts (pending events still count, as
--   report_user_facts_of gave them). The CTE is not materialized, so each of its three readers scans the
--   state itself (a scan costs less than writing and reading back 4.1 M wide rows).
--
-- * The day tests (`daterange @> any(days)`, 0053's) run once per row behind an OFFSET 0 fence: pulled up,
--   each test was substituted into the filter and into every aggregate that used it (four to six
--   evaluations per row). Rows with nothing in the range are left out of source_users: no kind counts them.
--
-- * One aggregate per user and source (arm_users) gives both the uncontrolled campaigns' arms and whether
--   the user met several arms, instead of two (several_arm_users' and campaign_arms' own); the finding
--   groups' exposed users are joined to the few users in several arms only, by integer keys.
--
-- * No plan hinges on a row estimate: joins hashed (nested loops and merge joins off), aggregates hashed
--   (enable_sort off, as 0053; the ranks over the groups and count(distinct) still sort, a few thousand
--   rows or the acting users), the uncontrolled sources an `= any(array(...))`, CTEs read twice
--   materialized. jit off.
--
-- * Measured in psql on the bench database (jit off, work_mem 64MB), 0050's body as a pg_temp function run
--   alternately with this one; the machine was shared and loaded throughout (load average 4–13 on 2 cores),
--   so the backend's CPU time (utime + stime from /proc) is given with the wall time. All campaigns (301
--   rows, the same md5 of the ordered rows in every run): at load 6.5–6.9, 339 s wall and 96 s CPU before,
--   180 s wall and 76 s CPU after; earlier, at load 9.7–11.7 with test suites running beside, 295 and 479 s
--   before, 301 and 392 s after (wall only; too noisy to compare). c38 (the largest campaign, 137 k state
--   rows, 0 findings) at load 3.8: 3.9 / 4.3 s wall and 2.0 / 2.1 s CPU before, 3.3 / 3.5 s wall and
--   1.6 / 1.7 s CPU after. cardinal.anomalies before and after the migration: the same rows (md5) for c38,
--   c10 (20 rows) and c17 with test events over 2026-11-10..16 (4 rows). `cardinal migrate` applied it in
--   0.19 s (a function body; nothing to backfill). So this is a fifth less work, not the step the goal needs:
--   every state row is still hashed by user twice (source_users and arm_users, 4.1 M groups each, about
--   180 MB spilled in 21 batches each at 64 MB), and the acting users' rows once more.
--
-- * Not done: the counts that would stop reading every state row (0025's day pairs per finding group and
--   per source × arm, kept by statement triggers with transition tables on report_user_state, pending
--   events adjusted as report_pending_row_day_users does). They need a per-user table of each user's days
--   per finding group (a union over the user's variants and test flag, with the groups holding each day, so
--   that a deletion knows whether a day leaves the user), twice (test events left out and included);
--   users_in_several_arms is not a sum of per-user counts at all (a user's arms over the whole campaign),
--   so it would also need the users who ever met two arms kept apart and only their rows read. The kinds
--   that compare times (click/dismissal without impression, control_interaction) keep reading the acting
--   users' rows.
--
-- * Rows, arguments and return types are 0033's: only the body changes.

create or replace function cardinal.anomalies_of_0017(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text
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
    -- Hash joins whatever the row estimates (0040, 0046, 0050): a merge join chosen on a 1-row estimate may
    -- merge on one key and filter the rest (quadratic). jit off.
    set enable_nestloop = off
    set enable_mergejoin = off
    -- Users are made distinct by hashing whatever their estimated number (0053): a sort of every state row
    -- by user is what the integer keys make cheaper to hash.
    set enable_sort = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_of_0017.from_date, anomalies_of_0017.to_date)
          and (anomalies_of_0017.app is null or a.name = anomalies_of_0017.app)
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
          and (anomalies_of_0017.campaign is null or p.campaign_id = anomalies_of_0017.campaign)
          and (anomalies_of_0017.canvas is null or p.canvas_id = anomalies_of_0017.canvas)
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
              and (anomalies_of_0017.campaign is null or g.campaign_id = anomalies_of_0017.campaign)
              and (anomalies_of_0017.canvas is null or g.canvas_id = anomalies_of_0017.canvas)
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
    -- one source's by its groups (0042's index condition), and the pending rows. Not materialized: each
    -- reader below takes the columns it needs (the day sets, or the times of a few users).
    facts as not materialized (
        select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.send_days,
               u.control_impression_days, u.control_send_days, u.first_impression_at,
               u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        where anomalies_of_0017.campaign is null and anomalies_of_0017.canvas is null
        union all
        select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.send_days,
               u.control_impression_days, u.control_send_days, u.first_impression_at,
               u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        where (anomalies_of_0017.campaign is not null or anomalies_of_0017.canvas is not null)
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
          and (anomalies_of_0017.include_test or not g.test)
          and (x.time at time zone coalesce(s.report_time_zone, g.app_time_zone))::date
              between anomalies_of_0017.from_date and anomalies_of_0017.to_date
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
                   where f.first_impression_at < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC'
               ) as first_impression,
               bool_or(least(f.first_control_impression_at, f.first_control_send_at)
                       < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC') as control_exposure
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
                    select daterange(anomalies_of_0017.from_date, anomalies_of_0017.to_date, '[]') as days
                ) as range
                where anomalies_of_0017.include_test or not g.test
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
        select c.*, share.control_share,
               case when share.control_share < 1
                    then share.control_share / (1 - share.control_share) end as control_per_variant_user
        from campaign_arms as c
        join (select distinct source_id, app_id, campaign_id from groups) as source
            on source.source_id = c.source_id
        left join cardinal.campaign_settings as s
            on s.app_id = source.app_id and s.campaign_id = source.campaign_id
        cross join lateral (
            select case
                       when s.expected_split ? 'control'
                           then (s.expected_split ->> 'control')::double precision
                                / (select sum(w.value::double precision) from jsonb_each_text(s.expected_split) as w)
                       when c.send_users > 0
                           then c.control_send_users::double precision / c.send_users
                   end as control_share
        ) as share
        where c.control_send_users > 0 or coalesce(s.expected_split ? 'control', false)
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
            select t.app_name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
                   raw.sdk_version, raw.app_version, 0, 0, count(*)
            from target as t
            join cardinal.rejected_events as r on r.app_id = t.app_id
            cross join lateral (
                select j ->> 'campaign_id' as campaign_id, j ->> 'canvas_id' as canvas_id,
                       j ->> 'canvas_step_id' as canvas_step_id, j ->> 'channel' as channel,
                       j ->> 'platform' as platform, j ->> 'sdk_version' as sdk_version,
                       j ->> 'app_version' as app_version, coalesce(j ->> 'test', 'false') = 'true' as test
                from (select cardinal.try_jsonb(r.raw) as j) as parsed
            ) as raw
            left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = raw.campaign_id
            where r.code = 'control_interaction'
              and r.received_at >= (anomalies_of_0017.from_date - 1)::timestamp at time zone 'UTC'
              and r.received_at < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC'
              and (r.received_at at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
                  between anomalies_of_0017.from_date and anomalies_of_0017.to_date
              and (anomalies_of_0017.campaign is null or raw.campaign_id = anomalies_of_0017.campaign)
              and (anomalies_of_0017.canvas is null or raw.canvas_id = anomalies_of_0017.canvas)
              and (anomalies_of_0017.include_test or not raw.test)
            group by t.app_name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
                     raw.sdk_version, raw.app_version
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

    select 'dismissals_exceed_impressions', 'critical',
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('unique_impressions', d.unique_impressions,
                              'unique_dismissals', d.unique_dismissals),
           'A custom UI logs dismissals but not the impressions of the same messages (the default UI logs both).'
    from dismissals_exceed_impressions as d
    join findings as n on n.finding_id = d.finding_id
    where d.unique_dismissals > d.unique_impressions

    union all
    select case w.type when 'click' then 'click_without_impression' else 'dismissal_without_impression' end,
           cardinal.anomaly_severity(w.users_without_impression::double precision / w.users),
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('users_without_impression', w.users_without_impression,
                              'users', w.users,
                              'share', w.users_without_impression::double precision / w.users,
                              'events_without_impression', w.events_without_impression,
                              'events', w.events),
           case w.type
               when 'click' then 'A custom UI logs clicks without logging the message''s impression first '
                                 '(or logs it only after the click).'
               else 'A custom UI logs dismissals of messages whose impression it never logged (or logs it only '
                    'after the dismissal).'
           end
    from without_impression as w
    join findings as n on n.finding_id = w.finding_id
    where w.users_without_impression > 0

    union all
    select 'control_impressions_missing',
           case when m.control_impression_users = 0 then 'critical' else 'warning' end,
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('variant_impression_users', m.variant_users,
                              'control_impression_users', 0,
                              'expected_control_impression_users', m.expected_group,
                              'campaign_control_impression_users', m.control_impression_users,
                              'campaign_control_send_users', m.control_send_users,
                              'expected_control_share', m.control_share),
           'The custom UI filters control messages out instead of logging a control impression when the user '
           'would have seen the message.'
    from control_impressions_missing as m
    join findings as n on n.finding_id = m.finding_id
    where (m.control_impression_users = 0 and coalesce(m.expected_campaign >= 8, true))
       or coalesce(m.expected_group >= 8, true)

    union all
    select 'control_interaction',
           case when stored_events > 0 then 'critical' else 'warning' end,
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('stored_events', stored_events,
                              'stored_users', stored_users,
                              'rejected_events', rejected_events),
           'The app shows the message to control-group users, or logs clicks or dismissals for control messages '
           'it should only have counted as control impressions.'
    from control_interaction

    union all
    select 'users_in_several_arms',
           cardinal.anomaly_severity(a.users::double precision / a.exposed_users),
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('users', a.users,
                              'exposed_users', a.exposed_users,
                              'share', a.users::double precision / a.exposed_users),
           'Users are assigned to more than one arm: the variant changes between sends or devices, or the UI '
           'logs another variant (or control) than the one it shows.'
    from users_in_several_arms as a
    join findings as n on n.finding_id = a.finding_id
    where a.users > 0;
$function$;

comment on function cardinal.anomalies_of_0017(text, date, date, boolean, text, text) is
    'The kinds of 0011 and 0017 from the report state, by campaign or canvas step (0033): '
    'dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, '
    'control_impressions_missing, control_interaction, users_in_several_arms; arms and control exposures '
    'are judged over a whole campaign or canvas. Part of anomalies; same arguments and rows. The distinct '
    'users of each kind are counted over one row per user and finding group (0037); exposures are looked up '
    'for the users who clicked or dismissed in the range only, every join is hashed (0050); users are made '
    'distinct by integer keys of the finding group, source, step and arm, reading only the state columns '
    'counted (0057).';
