-- 0050_anomalies_exposures_of_acting_users.sql — the anomalies kinds of 0017 look up exposures for the users
-- who clicked or dismissed only, and hash every join and aggregate (issue 8).
--
-- Design notes (why, not what):
--
-- * Profile at 10 M events (the bench database, 4.1 M per-user state rows, 50 campaigns; auto_explain with
--   log_analyze and log_nested_statements, jit off, work_mem 64MB). One campaign (c38, the largest: 137 k
--   state rows): anomalies 2.9 s, of which anomalies_of_0017 2.5 s and anomalies_since_0027 56 ms (load
--   average 0.6). In anomalies_of_0017 the facts CTE's two windows (the first impression per user and step,
--   the control exposure per user) sorted all the source's rows (0.4 s) and ran over them (0.6 s), the join to
--   campaign_settings probed its index once per row (0.35 s), source_users hashed them (0.45 s) and
--   campaign_arms sorted source_users again (0.8 s) for control_impressions_missing, which had no group to
--   name. All campaigns (load average 4.5): anomalies_of_0017 335 s, anomalies_since_0027 153 s.
--
-- * A click or dismissal needs the user's first impression of the step and control exposure of the campaign
--   (canvas) over all the user's rows; nothing else does. The windows computed them for every row; now
--   interaction_times takes the clicks and dismissals of the range first (a row without interaction times is
--   skipped before the settings are joined, so the join runs for those rows only), acting_users the users
--   among them, and step_exposures aggregates only those users' rows, found by a hash join. The same rows
--   (test rows included, the same bound to+2) feed the same min and bool_or, so the results are 0037's.
--
-- * campaign_arms is counted only for the campaigns (canvases) that have an impression group without control
--   impressions (uncontrolled_sources): control_impressions_missing joins the arms to exactly those groups,
--   so no other campaign's arms can reach a finding.
--
-- * users_in_several_arms finds the users whose smallest and largest arm differ by one hashed aggregate per
--   user and joins them back to the finding groups, instead of a window that sorted every exposed row.
--
-- * No plan hinges on a row estimate: every join is hashed (nested loops and merge joins off, jit off). A
--   merge join is off too because, on the 1-row estimates of CTEs, the planner merged the interactions with
--   step_exposures on app_id alone and filtered the other keys: quadratic (minutes for one campaign).
--
-- * Measured in psql on the same database after this migration, the old body as a pg_temp function run
--   alternately with the new one (jit off, work_mem 64MB, load average 2–4: the machine was slower than at the
--   profile, where the old body took 2.5 s for c38). c38: 6.0 / 6.4 / 9.7 s before, 2.9 / 2.9 / 2.8 s after;
--   c17 with test events 8.7 s before, 3.7 s after; all campaigns 257 s before, 193 s after (301 rows, the
--   same md5 of the sorted rows). anomalies for all campaigns: 790 rows, the same md5 before and after.
--   Applying the migration took 2 s (a function body; nothing to backfill). All campaigns gain little: there
--   752 k of the 4.1 M rows are acting users', and the hashed aggregates per user spill at 64 MB
--   (source_users 339 MB in 33 batches, several_arm_users 218 MB, the 30 uncontrolled campaigns' arms 118 MB).
--
-- * Not done: the kinds still read every state row of the source (137 k rows for the largest campaign,
--   4.1 M for all), since dismissals_exceed_impressions, the arms and users_in_several_arms count distinct
--   users per range; counts kept by statement triggers on report_user_state (0025's day pairs per finding
--   group) would replace that read. anomalies_since_0027's all-campaign cost (repeated_impressions sorting
--   3.7 M session rows, the control candidates' 2.4 M user rows) is untouched.
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
    -- Hash joins whatever the row estimates (0040, 0046): every join here is on several keys, and a merge
    -- join chosen on a 1-row estimate may merge on app_id alone and filter the rest (quadratic). jit off.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               -- The report days of the range, for the array overlap tests on the state's day sets.
               array(select d::date
                     from generate_series(anomalies_of_0017.from_date, anomalies_of_0017.to_date,
                                          interval '1 day') as d) as days
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_of_0017.from_date, anomalies_of_0017.to_date)
          and (anomalies_of_0017.app is null or a.name = anomalies_of_0017.app)
    ),
    -- Per user and report group of each campaign or canvas step, test rows included (the exposures a click
    -- or dismissal is judged by are taken over every row, 0017): what happened in the range, the interaction
    -- times, the first exposures. No window: only the users who clicked or dismissed in the range need the
    -- exposures of their other rows (step_exposures).
    facts as materialized (
        select t.app_id, t.app_name, t.report_time_zone as app_time_zone, f.campaign_id, f.canvas_id,
               f.canvas_step_id, f.channel, f.platform, f.sdk_version, f.app_version, f.variant_id, f.test,
               f.user_key,
               coalesce(f.impression_days && t.days, false) as impression_in_range,
               coalesce(f.dismissal_days && t.days, false) as dismissal_in_range,
               coalesce(f.send_days && t.days, false) as send_in_range,
               coalesce(f.control_impression_days && t.days, false) as control_impression_in_range,
               coalesce(f.control_send_days && t.days, false) as control_send_in_range,
               f.click_times, f.dismissal_times, f.first_impression_at,
               least(f.first_control_impression_at, f.first_control_send_at) as first_control_exposure_at
        from target as t
        join cardinal.report_user_facts_of(anomalies_of_0017.campaign, anomalies_of_0017.canvas) as f
            on f.app_id = t.app_id
        where (f.campaign_id is not null or f.canvas_id is not null)
          and (anomalies_of_0017.campaign is null or f.campaign_id = anomalies_of_0017.campaign)
          and (anomalies_of_0017.canvas is null or f.canvas_id = anomalies_of_0017.canvas)
    ),

    -- Every click and dismissal of the range, on the report days of the campaign's time zone (the app's for
    -- a canvas). Rows without interaction times are skipped before the settings are joined.
    interaction_times as materialized (
        select r.app_id, r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform,
               r.sdk_version, r.app_version, r.user_key, x.type, x.time
        from facts as r
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join lateral (
            select 'click' as type, t as time from unnest(r.click_times) as t
            union all
            select 'dismissal', t from unnest(r.dismissal_times) as t
        ) as x
        where (r.click_times is not null or r.dismissal_times is not null)
          and (anomalies_of_0017.include_test or not r.test)
          and (x.time at time zone coalesce(s.report_time_zone, r.app_time_zone))::date
              between anomalies_of_0017.from_date and anomalies_of_0017.to_date
    ),
    -- The campaigns' (canvases') users who clicked or dismissed in the range.
    acting_users as materialized (
        select distinct app_id, campaign_id, canvas_id, user_key
        from interaction_times
    ),
    -- Per acting user and campaign (canvas) step, over all the user's rows there (test rows too): the first
    -- impression before the end of the broad range, and whether a control exposure came by then.
    step_exposures as materialized (
        select f.app_id, f.campaign_id, f.canvas_id, f.user_key, f.canvas_step_id,
               min(f.first_impression_at) filter (
                   where f.first_impression_at < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC'
               ) as first_impression,
               bool_or(f.first_control_exposure_at
                       < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC') as control_exposure
        from facts as f
        -- '' stands for NULL (no id is empty), so that the join stays an equality.
        join acting_users as a
            on a.app_id = f.app_id
                   and coalesce(a.campaign_id, '') = coalesce(f.campaign_id, '')
                   and coalesce(a.canvas_id, '') = coalesce(f.canvas_id, '')
                   and a.user_key = f.user_key
        group by f.app_id, f.campaign_id, f.canvas_id, f.user_key, f.canvas_step_id
    ),
    -- The control exposure over all the user's steps: a canvas's control group is the canvas's.
    user_control_exposures as (
        select app_id, campaign_id, canvas_id, user_key,
               coalesce(bool_or(control_exposure), false) as has_control_exposure
        from step_exposures
        group by app_id, campaign_id, canvas_id, user_key
    ),
    interactions as (
        select i.app_name, i.campaign_id, i.canvas_id, i.canvas_step_id, i.channel, i.platform, i.sdk_version,
               i.app_version, i.user_key, i.type,
               u.has_control_exposure and e.first_impression is null as control_user,
               e.first_impression is null or e.first_impression > i.time as without_impression
        from interaction_times as i
        join step_exposures as e
            on e.app_id = i.app_id
                   and coalesce(e.campaign_id, '') = coalesce(i.campaign_id, '')
                   and coalesce(e.canvas_id, '') = coalesce(i.canvas_id, '')
                   and e.user_key = i.user_key
                   and coalesce(e.canvas_step_id, '') = coalesce(i.canvas_step_id, '')
        join user_control_exposures as u
            on u.app_id = i.app_id
                   and coalesce(u.campaign_id, '') = coalesce(i.campaign_id, '')
                   and coalesce(u.canvas_id, '') = coalesce(i.canvas_id, '')
                   and u.user_key = i.user_key
    ),

    -- One row per user and finding group (the report group without variant and test flag; a user can also
    -- have a folded and a pending row): what the user did there in the range, and the smallest and largest
    -- arm of the user's exposures. Each kind below then counts these rows instead of distinct users (0037).
    source_users as materialized (
        select r.app_id, r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform,
               r.sdk_version, r.app_version, r.user_key,
               bool_or(r.impression_in_range) as impression,
               bool_or(r.dismissal_in_range) as dismissal,
               bool_or(r.send_in_range) as send,
               bool_or(r.control_impression_in_range) as control_impression,
               bool_or(r.control_send_in_range) as control_send,
               min(least(exposure.variant_arm, exposure.control_arm)) as first_arm,
               max(greatest(exposure.variant_arm, exposure.control_arm)) as last_arm
        from facts as r
        cross join lateral (
            select case when r.impression_in_range or (r.channel = 'push' and r.send_in_range)
                        then 'variant:' || coalesce(r.variant_id, '') end as variant_arm,
                   case when r.control_impression_in_range or (r.channel = 'push' and r.control_send_in_range)
                        then 'control' end as control_arm
        ) as exposure
        where anomalies_of_0017.include_test or not r.test
        group by r.app_id, r.app_name, r.campaign_id, r.canvas_id, r.user_key, r.canvas_step_id, r.channel,
                 r.platform, r.sdk_version, r.app_version
    ),

    dismissals_exceed_impressions as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(*) filter (where impression) as unique_impressions,
               count(*) filter (where dismissal) as unique_dismissals
        from source_users
        where channel in ('content_card', 'in_app_message', 'banner')
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    without_impression as (
        select type, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where without_impression) as users_without_impression,
               count(distinct user_key) as users,
               count(*) filter (where without_impression) as events_without_impression,
               count(*) as events
        from interactions
        where channel in ('content_card', 'in_app_message', 'banner') and not control_user
        group by type, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                 app_version
    ),

    impression_groups as (
        select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
               app_version,
               count(*) filter (where impression) as variant_users,
               count(*) filter (where control_impression) as control_users
        from source_users
        where channel in ('content_card', 'in_app_message', 'feature_flag')
          and (impression or control_impression)
        group by app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                 app_version
    ),
    -- The campaigns (canvases) with a group of impressions but no control impression: the only ones
    -- control_impressions_missing can name, so the only ones whose arms are counted.
    uncontrolled_sources as materialized (
        select distinct app_id, campaign_id, canvas_id
        from impression_groups
        where control_users = 0 and variant_users > 0
    ),
    -- The arms of each of those campaigns, or of each canvas over all its steps.
    campaign_arms as (
        select app_id, campaign_id, canvas_id,
               count(*) filter (where control_send) as control_send_users,
               count(*) filter (where send or control_send) as send_users,
               count(*) filter (where control_impression) as control_impression_users,
               count(*) filter (where variant_impression) as variant_impression_users
        from (
            -- A user of several steps or channels once per campaign or canvas.
            select u.app_id, u.campaign_id, u.canvas_id, u.user_key,
                   bool_or(u.control_send) as control_send, bool_or(u.send) as send,
                   bool_or(u.control_impression) as control_impression,
                   bool_or(u.impression and u.channel in ('content_card', 'in_app_message', 'feature_flag'))
                       as variant_impression
            from source_users as u
            join uncontrolled_sources as c
                on c.app_id = u.app_id
                       and coalesce(c.campaign_id, '') = coalesce(u.campaign_id, '')
                       and coalesce(c.canvas_id, '') = coalesce(u.canvas_id, '')
            group by u.app_id, u.campaign_id, u.canvas_id, u.user_key
        ) as arm_users
        group by app_id, campaign_id, canvas_id
    ),
    control_campaigns as (
        select c.*, share.control_share,
               case when share.control_share < 1
                    then share.control_share / (1 - share.control_share) end as control_per_variant_user
        from campaign_arms as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
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
        select g.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
               g.app_version, g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        -- '' stands for NULL (no id is empty), so that the join stays an equality.
        join control_campaigns as c
            on c.app_id = g.app_id
                   and coalesce(c.campaign_id, '') = coalesce(g.campaign_id, '')
                   and coalesce(c.canvas_id, '') = coalesce(g.canvas_id, '')
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                   count(*) as stored_events, count(distinct user_key) as stored_users, 0 as rejected_events
            from interactions
            where control_user
            group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                     app_version
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

    -- A user is in several arms when the smallest and the largest arm of the user's exposures in the range
    -- differ over the whole campaign or canvas: those users are found by one hashed aggregate per user (not a
    -- window, which sorted every exposed row), then each finding group counts its exposed rows and theirs.
    several_arm_users as materialized (
        select app_id, campaign_id, canvas_id, user_key
        from source_users
        where first_arm is not null
        group by app_id, campaign_id, canvas_id, user_key
        having min(first_arm) <> max(last_arm)
    ),
    users_in_several_arms as (
        select s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.channel, s.platform, s.sdk_version,
               s.app_version,
               count(several.user_key) as users,
               count(*) as exposed_users
        from source_users as s
        left join several_arm_users as several
            on several.app_id = s.app_id
                   and coalesce(several.campaign_id, '') = coalesce(s.campaign_id, '')
                   and coalesce(several.canvas_id, '') = coalesce(s.canvas_id, '')
                   and several.user_key = s.user_key
        where s.first_arm is not null
        group by s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.channel, s.platform, s.sdk_version,
                 s.app_version
    )

    select 'dismissals_exceed_impressions', 'critical',
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('unique_impressions', unique_impressions,
                              'unique_dismissals', unique_dismissals),
           'A custom UI logs dismissals but not the impressions of the same messages (the default UI logs both).'
    from dismissals_exceed_impressions
    where unique_dismissals > unique_impressions

    union all
    select case type when 'click' then 'click_without_impression' else 'dismissal_without_impression' end,
           cardinal.anomaly_severity(users_without_impression::double precision / users),
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('users_without_impression', users_without_impression,
                              'users', users,
                              'share', users_without_impression::double precision / users,
                              'events_without_impression', events_without_impression,
                              'events', events),
           case type
               when 'click' then 'A custom UI logs clicks without logging the message''s impression first '
                                 '(or logs it only after the click).'
               else 'A custom UI logs dismissals of messages whose impression it never logged (or logs it only '
                    'after the dismissal).'
           end
    from without_impression
    where users_without_impression > 0

    union all
    select 'control_impressions_missing',
           case when control_impression_users = 0 then 'critical' else 'warning' end,
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('variant_impression_users', variant_users,
                              'control_impression_users', 0,
                              'expected_control_impression_users', expected_group,
                              'campaign_control_impression_users', control_impression_users,
                              'campaign_control_send_users', control_send_users,
                              'expected_control_share', control_share),
           'The custom UI filters control messages out instead of logging a control impression when the user '
           'would have seen the message.'
    from control_impressions_missing
    where (control_impression_users = 0 and coalesce(expected_campaign >= 8, true))
       or coalesce(expected_group >= 8, true)

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
           cardinal.anomaly_severity(users::double precision / exposed_users),
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('users', users,
                              'exposed_users', exposed_users,
                              'share', users::double precision / exposed_users),
           'Users are assigned to more than one arm: the variant changes between sends or devices, or the UI '
           'logs another variant (or control) than the one it shows.'
    from users_in_several_arms
    where users > 0;
$function$;

comment on function cardinal.anomalies_of_0017(text, date, date, boolean, text, text) is
    'The kinds of 0011 and 0017 from the report state, by campaign or canvas step (0033): '
    'dismissals_exceed_impressions, dismissal_without_impression, click_without_impression, '
    'control_impressions_missing, control_interaction, users_in_several_arms; arms and control exposures '
    'are judged over a whole campaign or canvas. Part of anomalies; same arguments and rows. The distinct '
    'users of each kind are counted over one row per user and finding group (0037); exposures are looked up '
    'for the users who clicked or dismissed in the range only, and every join is hashed (0050).';
