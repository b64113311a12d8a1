-- naive/anomalies.sql — the findings of `cardinal report anomalies` as a psql user would get them without
-- the report: one query per check, each over the raw events, glued with UNION ALL. Variables (psql -v):
-- app, from_date, to_date (report days, both included, UTC), campaign ('' for every campaign). Prints CSV:
-- kind, the group (campaign, channel, platform, sdk_version, app_version) and the evidence as JSON, which
-- reports.py compares with the report's findings.
--
-- The definitions are those of SQL/docs/reports.md, 0011_anomalies.sql and, for repeated_impressions and the
-- info finding of control_impressions_missing, 0027_known_splits_and_anomaly_kinds.sql. Left out, because the
-- benchmark has nothing there: rejected events (control_interaction counts only stored events here), canvas
-- steps and campaign time zones (the bench app reports in UTC). sample_ratio_mismatch comes from the control report
-- and is checked there.

-- unique dismissals > unique impressions
select 'dismissals_exceed_impressions' as kind, campaign_id, channel, platform, sdk_version, app_version,
       jsonb_build_object('unique_impressions', count(distinct user_key) filter (where type = 'impression'),
                          'unique_dismissals', count(distinct user_key) filter (where type = 'dismissal'))
           as evidence
from cardinal.events
where app_id = (select app_id from cardinal.apps where name = :'app')
  and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
  and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
  and not test and not control
  and type in ('impression', 'dismissal')
  and channel in ('content_card', 'in_app_message', 'banner')
group by campaign_id, channel, platform, sdk_version, app_version
having count(distinct user_key) filter (where type = 'dismissal')
       > count(distinct user_key) filter (where type = 'impression')

-- clicks and dismissals with no earlier impression by the same user (the whole history), control users
-- left out
union all
select case d.type when 'click' then 'click_without_impression' else 'dismissal_without_impression' end,
       d.campaign_id, d.channel, d.platform, d.sdk_version, d.app_version,
       jsonb_build_object(
           'users_without_impression',
               count(distinct d.user_key) filter (where u.first_impression is null or u.first_impression > d.time),
           'users', count(distinct d.user_key),
           'share', count(distinct d.user_key) filter (where u.first_impression is null or u.first_impression > d.time)
                    ::float8 / count(distinct d.user_key),
           'events_without_impression',
               count(*) filter (where u.first_impression is null or u.first_impression > d.time),
           'events', count(*))
from cardinal.events as d
left join (
    select campaign_id, user_key,
           min(time) filter (where type = 'impression' and not control) as first_impression,
           bool_or(control) as control_exposure
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time < (:'to_date'::date + 2)::timestamptz
      and campaign_id is not null
      and type in ('impression', 'send')
    group by campaign_id, user_key
) as u on u.campaign_id = d.campaign_id and u.user_key = d.user_key
where d.app_id = (select app_id from cardinal.apps where name = :'app')
  and d.time >= :'from_date'::date::timestamptz and d.time < (:'to_date'::date + 1)::timestamptz
  and d.campaign_id is not null and (:'campaign' = '' or d.campaign_id = :'campaign')
  and not d.test
  and d.type in ('click', 'dismissal')
  and d.channel in ('content_card', 'in_app_message', 'banner')
  and not coalesce(u.control_exposure and u.first_impression is null, false)
group by d.type, d.campaign_id, d.channel, d.platform, d.sdk_version, d.app_version
having count(*) filter (where u.first_impression is null or u.first_impression > d.time) > 0

-- groups of impressions without a control impression in a campaign that has a control arm
union all
select 'control_impressions_missing', g.campaign_id, g.channel, g.platform, g.sdk_version, g.app_version,
       jsonb_build_object('variant_impression_users', g.variant_users,
                          'control_impression_users', 0,
                          'expected_control_impression_users', g.variant_users * c.control_share / (1 - c.control_share),
                          'campaign_control_impression_users', c.control_impression_users,
                          'campaign_control_send_users', c.control_send_users,
                          'expected_control_share', c.control_share)
from (
    select campaign_id, channel, platform, sdk_version, app_version,
           count(distinct user_key) filter (where not control) as variant_users,
           count(distinct user_key) filter (where control) as control_users
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
      and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
      and not test
      and type = 'impression'
      and channel in ('content_card', 'in_app_message', 'feature_flag')
    group by campaign_id, channel, platform, sdk_version, app_version
) as g
join (
    select a.campaign_id, a.control_send_users, a.control_impression_users, a.variant_impression_users,
           case when s.expected_split ? 'control'
                    then (s.expected_split ->> 'control')::float8
                         / (select sum(w.value::float8) from jsonb_each_text(s.expected_split) as w)
                when a.send_users > 0 then a.control_send_users::float8 / a.send_users
           end as control_share
    from (
        select campaign_id,
               count(distinct user_key) filter (where type = 'send' and control) as control_send_users,
               count(distinct user_key) filter (where type = 'send') as send_users,
               count(distinct user_key) filter (where type = 'impression' and control) as control_impression_users,
               count(distinct user_key) filter (
                   where type = 'impression' and not control
                     and channel in ('content_card', 'in_app_message', 'feature_flag')
               ) as variant_impression_users
        from cardinal.events
        where app_id = (select app_id from cardinal.apps where name = :'app')
          and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
          and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
          and not test
          and type in ('send', 'impression')
        group by campaign_id
    ) as a
    left join cardinal.campaign_settings as s
      on s.app_id = (select app_id from cardinal.apps where name = :'app') and s.campaign_id = a.campaign_id
    where a.control_send_users > 0 or coalesce(s.expected_split ? 'control', false)
) as c on c.campaign_id = g.campaign_id
where g.control_users = 0 and g.variant_users > 0
  and ((c.control_impression_users = 0
        and coalesce(c.variant_impression_users * c.control_share / (1 - c.control_share) >= 8, true))
       or coalesce(g.variant_users * c.control_share / (1 - c.control_share) >= 8, true))

-- campaigns that may have a control group nobody logs (0027's info finding): no expected split, no control
-- impression or send in the range, at least 200 impressions in the channels that log control impressions,
-- and per such channel at least 200 users with an impression
union all
select 'control_impressions_missing', i.campaign_id, i.channel, null, null, null,
       jsonb_build_object('variant_impression_users', i.variant_users,
                          'control_impression_users', 0,
                          'campaign_control_send_users', 0,
                          'minimum_variant_impression_users', 200)
from (
    select campaign_id, channel, count(distinct user_key) as variant_users
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
      and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
      and not test
      and type = 'impression' and not control
      and channel in ('content_card', 'in_app_message', 'feature_flag')
    group by campaign_id, channel
) as i
join (
    select campaign_id
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
      and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
      and not test
    group by campaign_id
    having count(*) filter (where control and type in ('impression', 'send')) = 0
       and count(*) filter (
               where type = 'impression' and not control
                 and channel in ('content_card', 'in_app_message', 'feature_flag')
           ) >= 200
) as c on c.campaign_id = i.campaign_id
left join cardinal.campaign_settings as s
  on s.app_id = (select app_id from cardinal.apps where name = :'app') and s.campaign_id = i.campaign_id
where s.expected_split is null and i.variant_users >= 200

-- clicks and dismissals by control users (a control send or control impression and no other impression)
union all
select 'control_interaction', d.campaign_id, d.channel, d.platform, d.sdk_version, d.app_version,
       jsonb_build_object('stored_events', count(*), 'stored_users', count(distinct d.user_key),
                          'rejected_events', 0)
from cardinal.events as d
join (
    select campaign_id, user_key
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time < (:'to_date'::date + 2)::timestamptz
      and campaign_id is not null
      and type in ('impression', 'send')
    group by campaign_id, user_key
    having bool_or(control) and count(*) filter (where type = 'impression' and not control) = 0
) as u on u.campaign_id = d.campaign_id and u.user_key = d.user_key
where d.app_id = (select app_id from cardinal.apps where name = :'app')
  and d.time >= :'from_date'::date::timestamptz and d.time < (:'to_date'::date + 1)::timestamptz
  and d.campaign_id is not null and (:'campaign' = '' or d.campaign_id = :'campaign')
  and not d.test
  and d.type in ('click', 'dismissal')
group by d.campaign_id, d.channel, d.platform, d.sdk_version, d.app_version

-- impressions per user and session (per user and day without a session) at or above the channel's rule:
-- every group with a user who had such a session (0027; the severity is not compared)
union all
select 'repeated_impressions', campaign_id, channel, platform, sdk_version, app_version,
       jsonb_build_object('sessions', sum(units),
                          'repeated_sessions', sum(repeated_units),
                          'user_days_without_session', sum(days_without_session),
                          'users', count(*),
                          'affected_users', count(*) filter (where repeated_units > 0),
                          'share', (count(*) filter (where repeated_units > 0))::float8 / count(*),
                          'impressions', sum(impressions),
                          'allowed_impressions', sum(allowed),
                          'impressions_per_allowed', sum(impressions)::float8 / sum(allowed),
                          'max_in_a_session', max(max_in_a_session))
from (
    select campaign_id, channel, platform, sdk_version, app_version, user_key,
           count(*) as units,
           count(*) filter (where session_id is null) as days_without_session,
           count(*) filter (where impressions >= factor * allowed) as repeated_units,
           sum(impressions) as impressions,
           sum(allowed) as allowed,
           max(impressions) as max_in_a_session
    from (
        select campaign_id, channel, platform, sdk_version, app_version, user_key, session_id,
               count(*) as impressions,
               case when channel in ('banner', 'feature_flag') then 1
                    else greatest(1, count(distinct message_id)) end as allowed,
               case when channel = 'content_card' then 3 else 2 end as factor
        from cardinal.events
        where app_id = (select app_id from cardinal.apps where name = :'app')
          and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
          and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
          and not test
          and type = 'impression' and channel <> 'push'
        group by campaign_id, channel, platform, sdk_version, app_version, user_key, session_id,
                 case when session_id is null then (time at time zone 'UTC')::date end
    ) as units
    group by campaign_id, channel, platform, sdk_version, app_version, user_key
) as per_user
group by campaign_id, channel, platform, sdk_version, app_version
having count(*) filter (where repeated_units > 0) > 0

-- users exposed to more than one arm of a campaign
union all
select 'users_in_several_arms', x.campaign_id, x.channel, x.platform, x.sdk_version, x.app_version,
       jsonb_build_object('users', count(distinct m.user_key),
                          'exposed_users', count(distinct x.user_key),
                          'share', count(distinct m.user_key)::float8 / count(distinct x.user_key))
from cardinal.events as x
left join (
    select campaign_id, user_key
    from cardinal.events
    where app_id = (select app_id from cardinal.apps where name = :'app')
      and time >= :'from_date'::date::timestamptz and time < (:'to_date'::date + 1)::timestamptz
      and campaign_id is not null and (:'campaign' = '' or campaign_id = :'campaign')
      and not test
      and (type = 'impression' or (type = 'send' and channel = 'push'))
    group by campaign_id, user_key
    having count(distinct case when control then 'control' else 'variant:' || coalesce(variant_id, '') end) > 1
) as m on m.campaign_id = x.campaign_id and m.user_key = x.user_key
where x.app_id = (select app_id from cardinal.apps where name = :'app')
  and x.time >= :'from_date'::date::timestamptz and x.time < (:'to_date'::date + 1)::timestamptz
  and x.campaign_id is not null and (:'campaign' = '' or x.campaign_id = :'campaign')
  and not x.test
  and (x.type = 'impression' or (x.type = 'send' and x.channel = 'push'))
group by x.campaign_id, x.channel, x.platform, x.sdk_version, x.app_version
having count(distinct m.user_key) > 0
order by 1, 2, 3, 4, 5, 6;
