-- 0037_anomalies_at_scale.sql — the anomalies report on large apps (issue 8): fewer sorts of the per-user
-- state, and no count(distinct …) over it.
--
-- Design notes (why, not what):
--
-- * The kinds of 0017 counted distinct users per finding group (campaign or canvas step × channel × platform ×
--   SDK version × app version) straight over the per-user state, which has a row per user and report group
--   (the group also has the variant and the test flag, and a user can have a folded and a pending row):
--   count(distinct …) sorts its input once per aggregate and group, and the state was sorted again for each
--   kind. source_users now folds those rows first into one per user and finding group (what the user did
--   there, and the smallest and largest arm of the user's exposures), materialized, and every kind counts
--   its rows; users_in_several_arms runs its window over these rows instead of over two per state row.
--
-- * The two windows of facts (the first impression per user and step, the control exposure per user and
--   campaign or canvas) partition by the same columns in the same order, the step last, so that one sort
--   serves both instead of two sorts of the whole state.
--
-- * repeated_impressions and repeated_dismissals (0027) also count per user first, then per finding group,
--   for the same reason. The reference (not from_state) shares these steps, so both stay equal.
--
-- * Rows, arguments and return types are 0033's: only the bodies change.

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
    -- Per user and report group of each campaign or canvas step: what happened in the range, the interaction
    -- times, the user's first impression of the campaign (of the step) before the end of the broad range,
    -- and whether the user had a control exposure of the campaign (of the canvas: its control group is the
    -- canvas's) by then, over the whole history and test events included, handed to each of the user's rows
    -- by a window rather than a join (see 0014).
    facts as (
        select t.app_id, t.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform,
               f.sdk_version, f.app_version, f.variant_id, f.test, f.user_key,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone,
               coalesce(f.impression_days && t.days, false) as impression_in_range,
               coalesce(f.dismissal_days && t.days, false) as dismissal_in_range,
               coalesce(f.send_days && t.days, false) as send_in_range,
               coalesce(f.control_impression_days && t.days, false) as control_impression_in_range,
               coalesce(f.control_send_days && t.days, false) as control_send_in_range,
               f.click_times, f.dismissal_times,
               min(f.first_impression_at) filter (
                   where f.first_impression_at < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC'
               ) over per_source_user as first_impression,
               coalesce(bool_or(least(f.first_control_impression_at, f.first_control_send_at)
                                < (anomalies_of_0017.to_date + 2)::timestamp at time zone 'UTC')
                            over per_arm_user, false)
                   as has_control_exposure
        from target as t
        join cardinal.report_user_facts as f on f.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
        where (f.campaign_id is not null or f.canvas_id is not null)
          and (anomalies_of_0017.campaign is null or f.campaign_id = anomalies_of_0017.campaign)
          and (anomalies_of_0017.canvas is null or f.canvas_id = anomalies_of_0017.canvas)
        -- The step after the user, so that one sort serves both windows (per_arm_user is a prefix).
        window per_source_user as (partition by f.app_id, f.campaign_id, f.canvas_id, f.user_key, f.canvas_step_id),
               per_arm_user as (partition by f.app_id, f.campaign_id, f.canvas_id, f.user_key)
    ),
    in_range as (
        select * from facts where anomalies_of_0017.include_test or not test
    ),

    -- Every click and dismissal of the range.
    interactions as (
        select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform, r.sdk_version,
               r.app_version, r.user_key, x.type,
               r.has_control_exposure and r.first_impression is null as control_user,
               r.first_impression is null or r.first_impression > x.time as without_impression
        from in_range as r
        cross join lateral (
            select 'click' as type, t as time from unnest(r.click_times) as t
            union all
            select 'dismissal', t from unnest(r.dismissal_times) as t
        ) as x
        where (x.time at time zone r.time_zone)::date between anomalies_of_0017.from_date and anomalies_of_0017.to_date
    ),

    -- One row per user and finding group (the report group without variant and test flag; a user can also
    -- have a folded and a pending row): what the user did there in the range, and the smallest and largest
    -- arm of the user's exposures. Each kind below then counts these rows instead of distinct users, and a
    -- distinct count, which sorts its input once per aggregate and group, becomes a plain one.
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
        from in_range as r
        cross join lateral (
            select case when r.impression_in_range or (r.channel = 'push' and r.send_in_range)
                        then 'variant:' || coalesce(r.variant_id, '') end as variant_arm,
                   case when r.control_impression_in_range or (r.channel = 'push' and r.control_send_in_range)
                        then 'control' end as control_arm
        ) as exposure
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

    -- The arms of each campaign, or of each canvas over all its steps.
    campaign_arms as (
        select app_id, campaign_id, canvas_id,
               count(*) filter (where control_send) as control_send_users,
               count(*) filter (where send or control_send) as send_users,
               count(*) filter (where control_impression) as control_impression_users,
               count(*) filter (where variant_impression) as variant_impression_users
        from (
            -- A user of several steps or channels once per campaign or canvas.
            select app_id, campaign_id, canvas_id, user_key,
                   bool_or(control_send) as control_send, bool_or(send) as send,
                   bool_or(control_impression) as control_impression,
                   bool_or(impression and channel in ('content_card', 'in_app_message', 'feature_flag'))
                       as variant_impression
            from source_users
            group by app_id, campaign_id, canvas_id, user_key
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
    -- differ, over the whole campaign or canvas: a window over the user's finding groups that had one.
    users_in_several_arms as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(*) filter (where in_several_arms) as users,
               count(*) as exposed_users
        from (
            select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                   min(first_arm) over per_user <> max(last_arm) over per_user as in_several_arms
            from source_users
            where first_arm is not null
            window per_user as (partition by app_id, campaign_id, canvas_id, user_key)
        ) as exposed
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
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
    'users of each kind are counted over one row per user and finding group (0037).';


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
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               array(select d::date
                     from generate_series(anomalies_since_0027.from_date, anomalies_since_0027.to_date,
                                          interval '1 day') as d) as days
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_since_0027.from_date, anomalies_since_0027.to_date)
          and (anomalies_since_0027.app is null or a.name = anomalies_since_0027.app)
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
        join cardinal.report_daily_count_facts as c on c.app_id = t.app_id
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

    -- Impressions per user and session (per user and report day without a session) in the range, with the
    -- message ids shown.
    session_units as (
        select t.app_name, v.campaign_id, v.canvas_id, v.canvas_step_id, v.channel, v.platform, v.sdk_version,
               v.app_version, v.user_key,
               v.session_id = '' as without_session,
               sum(v.impressions) as impressions,
               cardinal.array_concat_agg(v.message_ids) as message_ids
        from target as t
        join cardinal.report_session_facts as v on v.app_id = t.app_id
        where anomalies_since_0027.from_state
          and (v.campaign_id is not null or v.canvas_id is not null)
          and (anomalies_since_0027.campaign is null or v.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.canvas is null or v.canvas_id = anomalies_since_0027.canvas)
          and (anomalies_since_0027.include_test or not v.test)
          and v.channel <> 'push'
          and v.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
        group by t.app_name, v.campaign_id, v.canvas_id, v.canvas_step_id, v.channel, v.platform, v.sdk_version,
                 v.app_version, v.user_key, v.session_id, case when v.session_id = '' then v.day end
        union all
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               user_key,
               session_id is null,
               count(*),
               array_agg(distinct message_id) filter (where message_id is not null)
        from raw_events
        where type = 'impression' and channel <> 'push' and day >= anomalies_since_0027.from_date
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                 user_key, session_id, case when session_id is null then day end
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
    -- The users of those campaigns with a variant impression in the range, per channel.
    campaign_users as (
        select t.app_name, f.campaign_id, f.channel, f.user_key
        from target as t
        join cardinal.report_user_facts as f on f.app_id = t.app_id
        join control_candidates as c on c.app_id = f.app_id and c.campaign_id = f.campaign_id
        where anomalies_since_0027.from_state
          and (anomalies_since_0027.include_test or not f.test)
          and f.impression_days && t.days
        union all
        select r.app_name, r.campaign_id, r.channel, r.user_key
        from raw_events as r
        join control_candidates as c on c.app_id = r.app_id and c.campaign_id = r.campaign_id
        where r.type = 'impression' and not r.control and r.day >= anomalies_since_0027.from_date
    ),

    -- Dismissals per user and content card in the range.
    card_dismissals as (
        select t.app_name, d.campaign_id, d.canvas_id, d.canvas_step_id, d.channel, d.platform, d.sdk_version,
               d.app_version, d.user_key, d.message_id, sum(d.dismissals) as dismissals
        from target as t
        join cardinal.report_dismissal_facts as d on d.app_id = t.app_id
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

    -- Per user first, then per finding group, as repeated_dismissals.
    repeated_impressions as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(units)::bigint as units,
               sum(user_days_without_session)::bigint as user_days_without_session,
               sum(repeated_units)::bigint as repeated_units,
               count(*) as users,
               count(*) filter (where repeated_units > 0) as affected_users,
               sum(impressions) as impressions,
               sum(allowed) as allowed,
               max(max_in_a_session) as max_in_a_session,
               min(factor) as factor
        from (
            select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                   user_key,
                   count(*) as units,
                   count(*) filter (where without_session) as user_days_without_session,
                   count(*) filter (where repeated) as repeated_units,
                   sum(impressions) as impressions,
                   sum(allowed) as allowed,
                   max(impressions) as max_in_a_session,
                   min(factor) as factor
            from (
                select u.*, rule.allowed, rule.factor, u.impressions >= rule.factor * rule.allowed as repeated
                from session_units as u
                cross join lateral (
                    select case when u.channel in ('banner', 'feature_flag') then 1
                                else greatest(1, (select count(distinct m) from unnest(u.message_ids) as m)) end
                               as allowed,
                           case when u.channel = 'content_card' then 3 else 2 end as factor
                ) as rule
            ) as judged
            group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                     user_key
        ) as per_user
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    control_absent as (
        select app_name, campaign_id, channel, count(distinct user_key) as variant_users
        from campaign_users
        where channel in ('content_card', 'in_app_message', 'feature_flag')
        group by app_name, campaign_id, channel
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
