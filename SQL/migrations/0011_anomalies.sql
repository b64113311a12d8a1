-- 0011_anomalies.sql — integration-health findings as a function psql users call directly:
--
--     select kind, severity, campaign_id, platform, sdk_version, evidence
--     from cardinal.anomalies('shop', '2026-11-01', '2026-11-30');
--
-- `cardinal report anomalies` runs this function and adds sample_ratio_mismatch, which needs the
-- chi-square distribution and therefore lives in Swift next to the control report (CardinalReports).
--
-- Every finding names its group — app × campaign × channel × platform × sdk_version × app_version of the
-- events that show the problem — so that the broken build is pointed at, with numeric evidence (jsonb) and
-- a one-line likely cause. Only campaigns are checked: canvas-step messages have no control arm settings
-- and are not in events_campaign_idx. Report days, the range, test events and user keys are as in
-- unique_impressions (0010). The kinds:
--
--   dismissals_exceed_impressions  unique dismissals > unique impressions in a group (content cards,
--                                  in-app messages, banners). critical: DOMAIN.md's custom-UI bug.
--   dismissal_without_impression   users who dismissed / clicked a message of the campaign with no
--   click_without_impression       impression of the campaign by the same user at or before that time,
--                                  looking back up to 30 days before the range (a message is clicked
--                                  when it is shown, and showing it logs an impression; the bound keeps
--                                  the daily run from reading a campaign's whole history). Push is left out
--                                  (it has no impressions) and so are control users (see
--                                  control_interaction).
--                                  Severity by the share of the acting users (anomaly_severity).
--   control_impressions_missing    the campaign has a control arm (control sends in the range, or an
--                                  expected split with a "control" key) but a group of content-card,
--                                  in-app-message or feature-flag impressions has no control impression
--                                  although at least 8 were expected there (the SRM check's floor:
--                                  P(0 | Poisson(8)) ≈ 0.0003). critical when the whole campaign has none,
--                                  warning when only this group lacks them.
--   control_interaction            clicks or dismissals by users of the control arm (a control send or
--                                  control impression and no other impression of the campaign) that were
--                                  stored, plus rejected events with code control_interaction received in
--                                  the range (their group is read from the raw JSON). critical when stored,
--                                  warning when ingest rejected them all.
--   repeated_impressions           impressions per user and session far above the channel's rule: banners
--                                  and feature flags once per session (flagged at 2× on average), content
--                                  cards and in-app messages once per message per session (flagged at 3×:
--                                  reopening a feed is legitimate). Only impressions with a session_id.
--                                  warning.
--   users_in_several_arms          users exposed (impression, control impression, or push send) to more than
--                                  one arm of the campaign in the range; the control report excludes them.
--                                  Severity by their share of the group's exposed users.

create function cardinal.anomalies(
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
    -- Every message event of the range, read once (a CTE referenced several times is materialized).
    in_range as (
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

    -- Per user of each campaign that had clicks or dismissals: the first impression and whether the user
    -- is in the control arm, from 30 days before the range (an impression logged before from_date still
    -- counts) to its end. One index-only scan of events_campaign_idx per campaign, or a scan of the
    -- partitions when most campaigns are involved.
    interacting_campaigns as (
        select distinct app_id, campaign_id from in_range where type in ('click', 'dismissal')
    ),
    campaign_users as (
        select e.app_id, e.campaign_id, e.user_key,
               min(e.time) filter (where e.type = 'impression' and not e.control) as first_impression,
               bool_or(e.control) as has_control_exposure
        from interacting_campaigns as c
        join cardinal.events as e on e.app_id = c.app_id and e.campaign_id = c.campaign_id
        where e.campaign_id is not null
          -- Repeated here, not only through the join: the planner then bounds the index scan to the one
          -- campaign instead of reading every campaign's impressions of the look-back (5.6 s → 3.5 s on 10 M).
          and (anomalies.campaign is null or e.campaign_id = anomalies.campaign)
          and e.type in ('impression', 'send')
          and e.time >= (anomalies.from_date - 31)::timestamp at time zone 'UTC'
          and e.time < (anomalies.to_date + 2)::timestamp at time zone 'UTC'
        group by e.app_id, e.campaign_id, e.user_key
    ),
    interactions as (
        select r.*,
               coalesce(u.has_control_exposure and u.first_impression is null, false) as control_user,
               u.first_impression is null or u.first_impression > r.time as without_impression
        from in_range as r
        left join campaign_users as u
            on u.app_id = r.app_id and u.campaign_id = r.campaign_id and u.user_key = r.user_key
        where r.type in ('click', 'dismissal')
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

    exposures as (
        select app_id, app_name, campaign_id, channel, platform, sdk_version, app_version, user_key,
               case when control then 'control' else 'variant:' || coalesce(variant_id, '') end as arm
        from in_range
        where type = 'impression' or (type = 'send' and channel = 'push')
    ),
    several_arms as (
        select app_id, campaign_id, user_key
        from exposures
        group by app_id, campaign_id, user_key
        having count(distinct arm) > 1
    ),
    users_in_several_arms as (
        select x.app_name, x.campaign_id, x.channel, x.platform, x.sdk_version, x.app_version,
               count(distinct x.user_key) filter (where s.user_key is not null) as users,
               count(distinct x.user_key) as exposed_users
        from exposures as x
        left join several_arms as s
            on s.app_id = x.app_id and s.campaign_id = x.campaign_id and s.user_key = x.user_key
        group by x.app_name, x.campaign_id, x.channel, x.platform, x.sdk_version, x.app_version
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

alter function cardinal.anomalies(text, date, date, boolean, text) owner to cardinal_owner;

grant execute on function cardinal.anomalies(text, date, date, boolean, text) to cardinal_reader;

comment on function cardinal.anomalies(text, date, date, boolean, text) is
    'Integration-health findings over the report days from_date..to_date (both included, each campaign''s '
    'report time zone): dismissals_exceed_impressions, dismissal_without_impression, '
    'click_without_impression, control_impressions_missing, control_interaction, repeated_impressions, '
    'users_in_several_arms; one row per kind × app × campaign × channel × platform × sdk_version × '
    'app_version with severity (info, warning, critical), numeric evidence and a likely cause. app NULL = '
    'every app; campaign NULL = every campaign. sample_ratio_mismatch is added by `cardinal report '
    'anomalies` (it needs the chi-square test). Definitions in SQL/migrations/0011_anomalies.sql.';
