-- 0014_planner_proof_reports.sql — anomalies and control_arms rewritten so that no plan of theirs is
-- quadratic, whatever the planner believes about row counts (issue 8, "Planner-proof").
--
-- What went wrong. On a fresh database nothing is analyzed, and the partitioned events table itself is
-- never analyzed by autovacuum (only its partitions are), so the planner estimates a single row for the
-- range CTE of 0011 and for every aggregate over it. With one row on each side, a nested loop looks free,
-- and a nested loop reruns its inner side once per outer row. Measured on 50 000 fresh events (one app in
-- America/Sao_Paulo, 6 000 users, 5 campaigns; the workload of PlannerProofReportsTests), anomalies ran for
-- over three minutes instead of a fraction of a second:
--   * users_in_several_arms joined the exposures (one row per impression) to their own per-user
--     aggregate, and the plan re-sorted and re-aggregated every exposure of the range for each exposure;
--   * interactions joined each click and dismissal to campaign_users, and the plan re-ran the 30-day
--     look-back aggregate for each of them;
--   * control_impressions_missing re-ran the per-group impression aggregate once per campaign.
-- control_arms had the same shapes at a smaller scale (each exposed user joined back to the campaigns CTE,
-- the arms joined to a second aggregate of the cohort), cheap here but linear in users × campaigns.
--
-- The rule now, for both functions: a join either
--   * drives an index probe from a small set (the app, the campaigns of the range: one index scan of
--     events_campaign_idx per campaign, a probe of campaign_settings or events_conversion_idx per row),
--     where a low estimate only makes the planner pick that plan the more surely; or
--   * meets two small sets that are MATERIALIZED CTEs, computed once, so that even a nested loop only
--     reads their stored rows (campaigns, impression groups), never reruns the query behind them;
-- and any per-user question (first impression before a click, several arms) is a window aggregate over one
-- sorted pass of the user's rows, not a join of two per-user sets. The results are unchanged: the
-- integration tests of 0010–0012 pin them.
--
-- unique_impressions (0010) has no such join (events, then one probe of campaign_settings per event, then
-- one aggregate) and is left as it is. The functions stay single-statement LANGUAGE sql functions without
-- a SET clause, so PostgreSQL still inlines them (see 0009): partition pruning and the campaign filter on
-- events_campaign_idx work as before. CREATE OR REPLACE keeps their owner and grants; the comments are
-- restated below.


create or replace function cardinal.anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null
)
    returns table (
        kind         text,
        severity     text,
        app_name     text,
        campaign_id  text,
        channel      text,
        platform     text,
        sdk_version  text,
        app_version  text,
        evidence     jsonb,
        likely_cause text
    )
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies.from_date, anomalies.to_date)
          and (anomalies.app is null or a.name = anomalies.app)
    ),
    -- Every message event of the range, read once.
    in_range as materialized (
        select t.app_name, e.app_id, e.campaign_id, e.channel, e.platform, e.sdk_version, e.app_version,
               e.type, e.control, e.user_key, e.session_id, e.message_id, e.variant_id, e.time
        from target as t
        join cardinal.events as e on e.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        where e.campaign_id is not null
          and (anomalies.campaign is null or e.campaign_id = anomalies.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and (anomalies.include_test or not e.test)
          and e.time >= (anomalies.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (anomalies.to_date + 2)::timestamp at time zone 'UTC'
          and (e.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
              between anomalies.from_date and anomalies.to_date
    ),

    -- The campaigns with clicks or dismissals in the range: a few rows, materialized so that the look-back
    -- below is one index scan of events_campaign_idx per campaign (or one scan of the partitions) whichever
    -- side of the join the planner puts them on.
    interacting_campaigns as materialized (
        select distinct app_id, campaign_id from in_range where type in ('click', 'dismissal')
    ),
    -- Each click and dismissal of the range next to its user's first impression and control exposure of
    -- the campaign from 30 days before the range (an impression logged before from_date still counts) to
    -- its end. The look-back is aggregated per user and appended to the clicks and dismissals, and a window
    -- over each user's rows hands its figures to them: the clicks never meet the look-back in a join, so no
    -- plan can rerun the look-back once per click.
    interactions as materialized (
        select app_name, app_id, campaign_id, channel, platform, sdk_version, app_version, type, control,
               user_key, session_id, message_id, variant_id, time,
               coalesce(has_control_exposure and first_impression is null, false) as control_user,
               first_impression is null or first_impression > time as without_impression
        from (
            select u.*,
                   min(u.user_first_impression) over per_user as first_impression,
                   bool_or(u.user_has_control_exposure) over per_user as has_control_exposure
            from (
                select false as look_back, r.app_name, r.app_id, r.campaign_id, r.channel, r.platform,
                       r.sdk_version, r.app_version, r.type, r.control, r.user_key, r.session_id, r.message_id,
                       r.variant_id, r.time,
                       null::timestamptz as user_first_impression, null::boolean as user_has_control_exposure
                from in_range as r
                where r.type in ('click', 'dismissal')
                union all
                select true, null, e.app_id, e.campaign_id, null, null, null, null, null, null, e.user_key,
                       null, null, null, null,
                       min(e.time) filter (where e.type = 'impression' and not e.control),
                       bool_or(e.control)
                from interacting_campaigns as c
                join cardinal.events as e on e.app_id = c.app_id and e.campaign_id = c.campaign_id
                where e.campaign_id is not null
                  -- Repeated here, not only through the join: the planner then bounds the index scan to the
                  -- one campaign instead of reading every campaign's impressions of the look-back.
                  and (anomalies.campaign is null or e.campaign_id = anomalies.campaign)
                  and e.type in ('impression', 'send')
                  and e.time >= (anomalies.from_date - 31)::timestamp at time zone 'UTC'
                  and e.time < (anomalies.to_date + 2)::timestamp at time zone 'UTC'
                group by e.app_id, e.campaign_id, e.user_key
            ) as u
            window per_user as (partition by u.app_id, u.campaign_id, u.user_key)
        ) as with_look_back
        where not look_back
    ),

    dismissals_exceed_impressions as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where type = 'impression') as unique_impressions,
               count(distinct user_key) filter (where type = 'dismissal') as unique_dismissals
        from in_range
        where channel in ('content_card', 'in_app_message', 'banner') and not control
        group by app_name, campaign_id, channel, platform, sdk_version, app_version
    ),

    without_impression as (
        select type, app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where without_impression) as users_without_impression,
               count(distinct user_key) as users,
               count(*) filter (where without_impression) as events_without_impression,
               count(*) as events
        from interactions
        where channel in ('content_card', 'in_app_message', 'banner') and not control_user
        group by type, app_name, campaign_id, channel, platform, sdk_version, app_version
    ),

    -- Control arm of each campaign in the range, and the share of users it should have: the expected
    -- split's weight when set, else the share of control sends among the users sent to.
    campaign_arms as (
        select app_id, campaign_id,
               count(distinct user_key) filter (where type = 'send' and control) as control_send_users,
               count(distinct user_key) filter (where type = 'send') as send_users,
               count(distinct user_key) filter (where type = 'impression' and control)
                   as control_impression_users,
               count(distinct user_key) filter (where type = 'impression' and not control
                                                  and channel in ('content_card', 'in_app_message', 'feature_flag'))
                   as variant_impression_users
        from in_range
        group by app_id, campaign_id
    ),
    -- Materialized, as impression_groups: the join below then meets two small sets computed once.
    control_campaigns as materialized (
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
    impression_groups as materialized (
        select app_id, app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where not control) as variant_users,
               count(distinct user_key) filter (where control) as control_users
        from in_range
        where type = 'impression' and channel in ('content_card', 'in_app_message', 'feature_flag')
        group by app_id, app_name, campaign_id, channel, platform, sdk_version, app_version
    ),
    control_impressions_missing as (
        select g.app_name, g.campaign_id, g.channel, g.platform, g.sdk_version, g.app_version,
               g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        join control_campaigns as c on c.app_id = g.app_id and c.campaign_id = g.campaign_id
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select app_name, campaign_id, channel, platform, sdk_version, app_version,
                   count(*) as stored_events, count(distinct user_key) as stored_users, 0 as rejected_events
            from interactions
            where control_user
            group by app_name, campaign_id, channel, platform, sdk_version, app_version
            union all
            select t.app_name, raw.campaign_id, raw.channel, raw.platform, raw.sdk_version, raw.app_version,
                   0, 0, count(*)
            from target as t
            join cardinal.rejected_events as r on r.app_id = t.app_id
            cross join lateral (
                select j ->> 'campaign_id' as campaign_id, j ->> 'channel' as channel,
                       j ->> 'platform' as platform, j ->> 'sdk_version' as sdk_version,
                       j ->> 'app_version' as app_version, coalesce(j ->> 'test', 'false') = 'true' as test
                from (select cardinal.try_jsonb(r.raw) as j) as parsed
            ) as raw
            left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = raw.campaign_id
            where r.code = 'control_interaction'
              and r.received_at >= (anomalies.from_date - 1)::timestamp at time zone 'UTC'
              and r.received_at < (anomalies.to_date + 2)::timestamp at time zone 'UTC'
              and (r.received_at at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
                  between anomalies.from_date and anomalies.to_date
              and (anomalies.campaign is null or raw.campaign_id = anomalies.campaign)
              and (anomalies.include_test or not raw.test)
            group by t.app_name, raw.campaign_id, raw.channel, raw.platform, raw.sdk_version, raw.app_version
        ) as both_sources
        group by app_name, campaign_id, channel, platform, sdk_version, app_version
    ),

    session_impressions as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(*) as impressions,
               case when channel in ('banner', 'feature_flag') then 1
                    else greatest(1, count(distinct message_id)) end as allowed
        from in_range
        where type = 'impression' and session_id is not null and channel <> 'push'
        group by app_name, campaign_id, channel, platform, sdk_version, app_version, user_key, session_id
    ),
    repeated_impressions as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(*) as sessions,
               count(*) filter (where impressions > allowed) as repeated_sessions,
               sum(impressions) as impressions,
               sum(allowed) as allowed,
               max(impressions) as max_in_a_session
        from session_impressions
        group by app_name, campaign_id, channel, platform, sdk_version, app_version
    ),

    -- A user is in several arms when the smallest and the largest arm of the user's exposures to the
    -- campaign differ: a window over one sorted pass, instead of joining the exposures to their own
    -- aggregate.
    users_in_several_arms as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where in_several_arms) as users,
               count(distinct user_key) as exposed_users
        from (
            select app_name, campaign_id, channel, platform, sdk_version, app_version, user_key,
                   min(arm) over per_user <> max(arm) over per_user as in_several_arms
            from (
                select app_id, app_name, campaign_id, channel, platform, sdk_version, app_version, user_key,
                       case when control then 'control' else 'variant:' || coalesce(variant_id, '') end as arm
                from in_range
                where type = 'impression' or (type = 'send' and channel = 'push')
            ) as exposures
            window per_user as (partition by app_id, campaign_id, user_key)
        ) as exposed
        group by app_name, campaign_id, channel, platform, sdk_version, app_version
    ),

    findings as (
        select 'dismissals_exceed_impressions' as kind, 'critical' as severity,
               app_name, campaign_id, channel, platform, sdk_version, app_version,
               jsonb_build_object('unique_impressions', unique_impressions,
                                  'unique_dismissals', unique_dismissals) as evidence,
               'A custom UI logs dismissals but not the impressions of the same messages (the default UI '
               'logs both).' as likely_cause
        from dismissals_exceed_impressions
        where unique_dismissals > unique_impressions

        union all
        select case type when 'click' then 'click_without_impression' else 'dismissal_without_impression' end,
               cardinal.anomaly_severity(users_without_impression::double precision / users),
               app_name, campaign_id, channel, platform, sdk_version, app_version,
               jsonb_build_object('users_without_impression', users_without_impression,
                                  'users', users,
                                  'share', users_without_impression::double precision / users,
                                  'events_without_impression', events_without_impression,
                                  'events', events),
               case type
                   when 'click' then 'A custom UI logs clicks without logging the message''s impression first '
                                     '(or logs it only after the click).'
                   else 'A custom UI logs dismissals of messages whose impression it never logged (or logs '
                        'it only after the dismissal).'
               end
        from without_impression
        where users_without_impression > 0

        union all
        select 'control_impressions_missing',
               case when control_impression_users = 0 then 'critical' else 'warning' end,
               app_name, campaign_id, channel, platform, sdk_version, app_version,
               jsonb_build_object('variant_impression_users', variant_users,
                                  'control_impression_users', 0,
                                  'expected_control_impression_users', expected_group,
                                  'campaign_control_impression_users', control_impression_users,
                                  'campaign_control_send_users', control_send_users,
                                  'expected_control_share', control_share),
               'The custom UI filters control messages out instead of logging a control impression when '
               'the user would have seen the message.'
        from control_impressions_missing
        where (control_impression_users = 0 and coalesce(expected_campaign >= 8, true))
           or coalesce(expected_group >= 8, true)

        union all
        select 'control_interaction',
               case when stored_events > 0 then 'critical' else 'warning' end,
               app_name, campaign_id, channel, platform, sdk_version, app_version,
               jsonb_build_object('stored_events', stored_events,
                                  'stored_users', stored_users,
                                  'rejected_events', rejected_events),
               'The app shows the message to control-group users, or logs clicks or dismissals for control '
               'messages it should only have counted as control impressions.'
        from control_interaction

        union all
        select 'repeated_impressions', 'warning',
               app_name, campaign_id, channel, platform, sdk_version, app_version,
               jsonb_build_object('sessions', sessions,
                                  'repeated_sessions', repeated_sessions,
                                  'impressions', impressions,
                                  'allowed_impressions', allowed,
                                  'impressions_per_allowed', impressions::double precision / allowed,
                                  'max_in_a_session', max_in_a_session),
               'The UI logs an impression on every render instead of once per session (banners, feature '
               'flags) or once per message view.'
        from repeated_impressions
        where impressions::double precision / allowed
              >= case when channel in ('banner', 'feature_flag') then 2 else 3 end

        union all
        select 'users_in_several_arms',
               cardinal.anomaly_severity(users::double precision / exposed_users),
               app_name, campaign_id, channel, platform, sdk_version, app_version,
               jsonb_build_object('users', users,
                                  'exposed_users', exposed_users,
                                  'share', users::double precision / exposed_users),
               'Users are assigned to more than one arm: the variant changes between sends or devices, or the '
               'UI logs another variant (or control) than the one it shows.'
        from users_in_several_arms
        where users > 0
    )
    select kind, severity, app_name, campaign_id, channel, platform, sdk_version, app_version, evidence,
           likely_cause
    from findings
    order by case severity when 'critical' then 0 when 'warning' then 1 else 2 end,
             kind, app_name, campaign_id, channel, platform, sdk_version, app_version;
$function$;

comment on function cardinal.anomalies(text, date, date, boolean, text) is
    'Integration-health findings over the report days from_date..to_date (both included, each campaign''s '
    'report time zone): dismissals_exceed_impressions, dismissal_without_impression, '
    'click_without_impression, control_impressions_missing, control_interaction, repeated_impressions, '
    'users_in_several_arms; one row per kind × app × campaign × channel × platform × sdk_version × '
    'app_version with severity (info, warning, critical), numeric evidence and a likely cause. app NULL = '
    'every app; campaign NULL = every campaign. sample_ratio_mismatch is added by `cardinal report '
    'anomalies` (it needs the chi-square test). Definitions in SQL/migrations/0011_anomalies.sql; the body in '
    '0014_planner_proof_reports.sql.';


create or replace function cardinal.control_arms(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    conversion        text        default null,
    conversion_window interval    default null,
    include_test      boolean     default false
)
    returns table (
        app_name             text,
        campaign_id          text,
        conversion_event     text,
        window_length        interval,
        variant_id           text,
        control              boolean,
        users                bigint,
        converters           bigint,
        exposed_users        bigint,
        users_in_several_arms bigint
    )
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(control_arms.from_date, control_arms.to_date)
          and (control_arms.app is null or a.name = control_arms.app)
    ),
    -- The campaigns with an exposure in the broad range (see 0010), with their settings and exact bounds.
    -- A few rows, materialized: the history scan below is then one index scan per campaign, or one scan of
    -- the partitions beside them, and never reruns this scan of the range.
    campaigns as materialized (
        select c.app_id, c.app_name, c.campaign_id,
               coalesce(control_arms.conversion, s.conversion_event) as conversion_event,
               coalesce(control_arms.conversion_window, s.conversion_window, interval '3 days') as window_length,
               control_arms.from_date::timestamp at time zone coalesce(s.report_time_zone, c.report_time_zone)
                   as lower_time,
               (control_arms.to_date + 1)::timestamp at time zone coalesce(s.report_time_zone, c.report_time_zone)
                   as upper_time
        from (
            select distinct t.app_id, t.app_name, t.report_time_zone, e.campaign_id
            from target as t
            join cardinal.events as e on e.app_id = t.app_id
            where e.campaign_id is not null
              and (control_arms.campaign is null or e.campaign_id = control_arms.campaign)
              and e.type in ('impression', 'send')
              and (e.type = 'impression' or e.channel = 'push')
              and (control_arms.include_test or not e.test)
              and e.time >= (control_arms.from_date - 1)::timestamp at time zone 'UTC'
              and e.time < (control_arms.to_date + 2)::timestamp at time zone 'UTC'
        ) as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
    ),
    -- Each user's first exposure per arm, over the campaign's history up to the end of the range. The
    -- campaign's settings ride along in the grouping (one value per campaign), so that no later step has
    -- to join the users back to their campaign.
    arm_exposures as (
        select c.app_id, c.campaign_id, e.user_key, e.control,
               case when e.control then null else e.variant_id end as variant_id,
               c.app_name, c.conversion_event, c.window_length, c.lower_time,
               min(e.time) as first_time
        from campaigns as c
        join cardinal.events as e on e.app_id = c.app_id and e.campaign_id = c.campaign_id
        where e.campaign_id is not null
          and e.type in ('impression', 'send')
          and (e.type = 'impression' or e.channel = 'push')
          and (control_arms.include_test or not e.test)
          and e.time < c.upper_time
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    exposed as (
        select app_id, campaign_id, user_key, app_name, conversion_event, window_length, lower_time,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, campaign_id, user_key, app_name, conversion_event, window_length, lower_time
    ),
    -- The conversion of each matured user is one probe of events_conversion_idx (a correlated EXISTS on the
    -- events table, not on a CTE: its cost is per user, whatever the estimates).
    cohort as (
        select x.app_name, x.campaign_id, x.conversion_event, x.window_length, x.variant_id, x.control,
               x.arms > 1 as several_arms,
               x.exposed_at + x.window_length <= control_arms.as_of as matured,
               x.arms = 1
                   and x.exposed_at + x.window_length <= control_arms.as_of
                   and x.conversion_event is not null
                   and exists (
                       select
                       from cardinal.events as v
                       where v.type = 'conversion'
                         and v.app_id = x.app_id
                         and v.user_key = x.user_key
                         and v.conversion_name = x.conversion_event
                         and v.time >= x.exposed_at
                         and v.time <= x.exposed_at + x.window_length
                         and (control_arms.include_test or not v.test)
                   ) as converted
        from exposed as x
        where x.exposed_at >= x.lower_time
    ),
    -- One row per arm, and one per campaign and arm of the users in several arms; a window over the
    -- campaign adds the latter up, instead of a join of the arms to a second aggregate.
    arm_groups as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               count(*) filter (where matured) as users,
               case when conversion_event is not null then count(*) filter (where converted) end as converters,
               count(*) as exposed_users
        from cohort
        group by app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               users, converters, exposed_users,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, campaign_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name, campaign_id, conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms
    from arms
    where not several_arms
    order by app_name, campaign_id, control desc, variant_id nulls first;
$function$;

comment on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean) is
    'Counts of the control-group report: per app × campaign × arm (control, or variant_id), the users first '
    'exposed in the report days from_date..to_date (first impression; first control impression for the '
    'control arm; the send for push) whose window had elapsed by as_of (users), those of them who converted '
    'within the window (converters; NULL without a conversion event), every exposed user '
    '(exposed_users) and, per campaign, the users excluded for being in several arms. conversion and '
    'conversion_window override campaign_settings. app and campaign NULL = all. Statistics: `cardinal '
    'report control`. Definitions in SQL/migrations/0012_control_arms.sql; the body in '
    '0014_planner_proof_reports.sql.';
