-- 0017_anomalies_from_state.sql — the anomalies report reads the report state (0015), like 0016's reports.
--
-- cardinal.anomalies keeps its name, arguments, result columns and kinds; the raw-event function (0011, as
-- rewritten by 0014) stays as anomalies_reference, which the property tests compare it with. One
-- definition changes, in both: click_without_impression and dismissal_without_impression look for the user's first impression over the
-- campaign's whole history (within retention), no longer over the 30 days before the range only. A real
-- impression 40 days before a click is an impression; the bound was there to keep the raw scan short, and
-- the state keeps each user's first impression whatever its age.
--
-- How the kinds read the state: day sets tell who did what in the range (an overlap with the range's
-- days), the first-exposure times and the interaction times tell clicks and dismissals before any
-- impression, report_session_facts holds impressions per session and day with their message ids, and the
-- rejected events of control interactions are still read from rejected_events (they are never folded).

drop function cardinal.anomalies(text, date, date, boolean, text);


create aggregate cardinal.array_concat_agg(anycompatiblearray) (
    sfunc = array_cat,
    stype = anycompatiblearray
);

alter aggregate cardinal.array_concat_agg(anycompatiblearray) owner to cardinal_owner;

comment on aggregate cardinal.array_concat_agg(anycompatiblearray) is
    'The concatenation of arrays, in input order (the message ids of a session''s days).';

grant execute on function cardinal.array_concat_agg(anycompatiblearray) to cardinal_reader;

create function cardinal.anomalies_reference(
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
        where cardinal.check_report_range(anomalies_reference.from_date, anomalies_reference.to_date)
          and (anomalies_reference.app is null or a.name = anomalies_reference.app)
    ),
    -- Every message event of the range, read once.
    in_range as materialized (
        select t.app_name, e.app_id, e.campaign_id, e.channel, e.platform, e.sdk_version, e.app_version,
               e.type, e.control, e.user_key, e.session_id, e.message_id, e.variant_id, e.time
        from target as t
        join cardinal.events as e on e.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        where e.campaign_id is not null
          and (anomalies_reference.campaign is null or e.campaign_id = anomalies_reference.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and (anomalies_reference.include_test or not e.test)
          and e.time >= (anomalies_reference.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (anomalies_reference.to_date + 2)::timestamp at time zone 'UTC'
          and (e.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
              between anomalies_reference.from_date and anomalies_reference.to_date
    ),

    -- The campaigns with clicks or dismissals in the range: a few rows, materialized so that the look-back
    -- below is one index scan of events_campaign_idx per campaign (or one scan of the partitions) whichever
    -- side of the join the planner puts them on.
    interacting_campaigns as materialized (
        select distinct app_id, campaign_id from in_range where type in ('click', 'dismissal')
    ),
    -- Each click and dismissal of the range next to its user's first impression and control exposure of
    -- the campaign over its history up to the end of the range (an impression logged before from_date
    -- still counts; 0017 dropped 0014's 30-day bound, which only kept the raw scan short). The look-back is
    -- aggregated per user and appended to the clicks and dismissals, and a window over each user's rows
    -- hands its figures to them: the clicks never meet the look-back in a join, so no plan can rerun the
    -- look-back once per click.
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
                  and (anomalies_reference.campaign is null or e.campaign_id = anomalies_reference.campaign)
                  and e.type in ('impression', 'send')
                  and e.time < (anomalies_reference.to_date + 2)::timestamp at time zone 'UTC'
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
              and r.received_at >= (anomalies_reference.from_date - 1)::timestamp at time zone 'UTC'
              and r.received_at < (anomalies_reference.to_date + 2)::timestamp at time zone 'UTC'
              and (r.received_at at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
                  between anomalies_reference.from_date and anomalies_reference.to_date
              and (anomalies_reference.campaign is null or raw.campaign_id = anomalies_reference.campaign)
              and (anomalies_reference.include_test or not raw.test)
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

alter function cardinal.anomalies_reference(text, date, date, boolean, text) owner to cardinal_owner;

grant execute on function cardinal.anomalies_reference(text, date, date, boolean, text) to cardinal_reader;

comment on function cardinal.anomalies_reference(text, date, date, boolean, text) is
    'Reference implementation of anomalies over the raw events (0011, with 0017''s whole-history look-back): '
    'the same arguments and rows, computed without the report state. Slow on large apps; for checking '
    'numbers and tests.';


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
        select a.app_id, a.name as app_name, a.report_time_zone,
               -- The report days of the range, for the array overlap tests on the state's day sets.
               array(select d::date
                     from generate_series(anomalies.from_date, anomalies.to_date, interval '1 day') as d) as days
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies.from_date, anomalies.to_date)
          and (anomalies.app is null or a.name = anomalies.app)
    ),
    -- Per user and report group of each campaign: what happened in the range, the interaction times, and
    -- the user's first impression of the campaign before the end of the broad range and whether the user
    -- had a control exposure by then (0011's campaign_users, over the whole history and test events
    -- included), handed to each of the user's rows by a window rather than a join (see 0014).
    facts as (
        select t.app_id, t.app_name, f.campaign_id, f.channel, f.platform, f.sdk_version, f.app_version,
               f.variant_id, f.test, f.user_key,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone,
               coalesce(f.impression_days && t.days, false) as impression_in_range,
               coalesce(f.dismissal_days && t.days, false) as dismissal_in_range,
               coalesce(f.send_days && t.days, false) as send_in_range,
               coalesce(f.control_impression_days && t.days, false) as control_impression_in_range,
               coalesce(f.control_send_days && t.days, false) as control_send_in_range,
               f.click_times, f.dismissal_times,
               min(f.first_impression_at) filter (
                   where f.first_impression_at < (anomalies.to_date + 2)::timestamp at time zone 'UTC'
               ) over per_user as first_impression,
               coalesce(bool_or(least(f.first_control_impression_at, f.first_control_send_at)
                                < (anomalies.to_date + 2)::timestamp at time zone 'UTC') over per_user, false)
                   as has_control_exposure
        from target as t
        join cardinal.report_user_facts as f on f.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
        where f.campaign_id is not null
          and (anomalies.campaign is null or f.campaign_id = anomalies.campaign)
        window per_user as (partition by f.app_id, f.campaign_id, f.user_key)
    ),
    in_range as (
        select * from facts where anomalies.include_test or not test
    ),

    -- Every click and dismissal of the range.
    interactions as (
        select r.app_name, r.campaign_id, r.channel, r.platform, r.sdk_version, r.app_version, r.user_key,
               x.type,
               r.has_control_exposure and r.first_impression is null as control_user,
               r.first_impression is null or r.first_impression > x.time as without_impression
        from in_range as r
        cross join lateral (
            select 'click' as type, t as time from unnest(r.click_times) as t
            union all
            select 'dismissal', t from unnest(r.dismissal_times) as t
        ) as x
        where (x.time at time zone r.time_zone)::date between anomalies.from_date and anomalies.to_date
    ),

    dismissals_exceed_impressions as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where impression_in_range) as unique_impressions,
               count(distinct user_key) filter (where dismissal_in_range) as unique_dismissals
        from in_range
        where channel in ('content_card', 'in_app_message', 'banner')
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

    campaign_arms as (
        select app_id, campaign_id,
               count(distinct user_key) filter (where control_send_in_range) as control_send_users,
               count(distinct user_key) filter (where send_in_range or control_send_in_range) as send_users,
               count(distinct user_key) filter (where control_impression_in_range) as control_impression_users,
               count(distinct user_key) filter (
                   where impression_in_range and channel in ('content_card', 'in_app_message', 'feature_flag')
               ) as variant_impression_users
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
               count(distinct user_key) filter (where impression_in_range) as variant_users,
               count(distinct user_key) filter (where control_impression_in_range) as control_users
        from in_range
        where channel in ('content_card', 'in_app_message', 'feature_flag')
          and (impression_in_range or control_impression_in_range)
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

    -- Impressions per user and session over the report days of the range, with every message id shown.
    sessions as (
        select t.app_name, v.campaign_id, v.channel, v.platform, v.sdk_version, v.app_version,
               sum(v.impressions) as impressions,
               cardinal.array_concat_agg(v.message_ids) as message_ids
        from target as t
        join cardinal.report_session_facts as v on v.app_id = t.app_id
        where v.campaign_id is not null
          and (anomalies.campaign is null or v.campaign_id = anomalies.campaign)
          and (anomalies.include_test or not v.test)
          and v.channel <> 'push'
          and v.day between anomalies.from_date and anomalies.to_date
        group by t.app_name, v.campaign_id, v.channel, v.platform, v.sdk_version, v.app_version, v.user_key,
                 v.session_id
    ),
    session_impressions as (
        select s.app_name, s.campaign_id, s.channel, s.platform, s.sdk_version, s.app_version, s.impressions,
               case when s.channel in ('banner', 'feature_flag') then 1
                    else greatest(1, (select count(distinct m) from unnest(s.message_ids) as m)) end as allowed
        from sessions as s
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

    -- A user is in several arms when the smallest and the largest arm of the user's exposures in the range
    -- differ: a window over one sorted pass (0014's shape).
    users_in_several_arms as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where in_several_arms) as users,
               count(distinct user_key) as exposed_users
        from (
            select e.app_name, e.campaign_id, e.channel, e.platform, e.sdk_version, e.app_version, e.user_key,
                   min(e.arm) over per_user <> max(e.arm) over per_user as in_several_arms
            from (
                select r.app_id, r.app_name, r.campaign_id, r.channel, r.platform, r.sdk_version, r.app_version,
                       r.user_key, x.arm
                from in_range as r
                cross join lateral (
                    values (case when r.impression_in_range or (r.channel = 'push' and r.send_in_range)
                                 then 'variant:' || coalesce(r.variant_id, '') end),
                           (case when r.control_impression_in_range or (r.channel = 'push' and r.control_send_in_range)
                                 then 'control' end)
                ) as x (arm)
                where x.arm is not null
            ) as e
            window per_user as (partition by e.app_id, e.campaign_id, e.user_key)
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

alter function cardinal.anomalies(text, date, date, boolean, text) owner to cardinal_owner;

grant execute on function cardinal.anomalies(text, date, date, boolean, text) to cardinal_reader;

comment on function cardinal.anomalies(text, date, date, boolean, text) is
    'Integration-health findings over the report days from_date..to_date (both included, each campaign''s '
    'report time zone), read from the report state (report_*_facts, 0015): dismissals_exceed_impressions, '
    'dismissal_without_impression, click_without_impression, control_impressions_missing, '
    'control_interaction, repeated_impressions, users_in_several_arms; one row per kind × app × campaign × '
    'channel × platform × sdk_version × app_version with severity (info, warning, critical), numeric '
    'evidence and a likely cause. app NULL = every app; campaign NULL = every campaign. '
    'sample_ratio_mismatch is added by `cardinal report anomalies` (it needs the chi-square test). '
    'Definitions in SQL/migrations/0011_anomalies.sql and 0017; anomalies_reference computes the same from '
    'raw events.';
