-- seed.sql — about 1 M synthetic events for the EXPLAIN captures of the report functions (regenerate.sh).
--
-- One app, "shop" (report time zone Europe/Madrid), 60 days of traffic ending yesterday: 40 campaigns of
-- every channel, each with variants v1 and v2 and a control arm (10% of its users), 200 000 users of whom a
-- quarter are anonymous devices, a few sessions each, and conversions. A second app, "news", holds 10% of
-- the events so that the app filter has something to filter. setseed makes the data the same on every run.

select setseed(0.42);

insert into cardinal.apps (name, report_time_zone) values ('shop', 'Europe/Madrid'), ('news', 'UTC');

insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window, expected_split)
select a.app_id, format('c%s', lpad(n::text, 2, '0')), 'purchase', interval '3 days',
       '{"control": 1, "v1": 4.5, "v2": 4.5}'::jsonb
from cardinal.apps as a, generate_series(1, 40) as n
where a.name = 'shop';

with draws as (
    select g,
           random() as r_app, random() as r_user, random() as r_campaign, random() as r_type,
           random() as r_time, random() as r_arm, random() as r_platform, random() as r_session
    from generate_series(1, 1000000) as g
),
shaped as (
    select g,
           case when r_app < 0.9 then 'shop' else 'news' end as app_name,
           (r_user * 200000)::int as user_number,
           1 + floor(r_campaign * 40)::int as campaign_number,
           r_type, r_arm, r_platform, r_session,
           date_trunc('day', now()) - interval '60 days' + r_time * interval '60 days' as time
    from draws
)
insert into cardinal.events (app_id, id, type, channel, time, received_at, user_id, device_id, session_id,
                             campaign_id, variant_id, control, message_id, platform, sdk_version, app_version,
                             test, conversion_name, value, currency)
select a.app_id,
       gen_random_uuid(),
       kind.type,
       case when kind.type = 'conversion' then null else channel.name end,
       s.time,
       s.time + interval '2 seconds',
       case when s.user_number % 4 = 0 then null else 'user-' || s.user_number end,
       'device-' || s.user_number,
       'session-' || s.user_number || '-' || (s.r_session * 5)::int,
       case when kind.type = 'conversion' then null else format('c%s', lpad(s.campaign_number::text, 2, '0')) end,
       case when kind.type = 'conversion' or arm.control then null
            when s.r_arm < 0.55 then 'v1' else 'v2' end,
       coalesce(arm.control, false),
       case when kind.type = 'conversion' then null else 'm-' || s.campaign_number || '-' || s.user_number % 7 end,
       case when s.r_platform < 0.45 then 'ios' when s.r_platform < 0.9 then 'android' else 'web' end,
       case when s.r_platform < 0.45 then '5.' || (s.user_number % 3) else '4.' || (s.user_number % 4) end,
       '1.' || (s.user_number % 5),
       s.g % 500 = 0,
       case when kind.type = 'conversion' then 'purchase' end,
       case when kind.type = 'conversion' then round((s.r_arm * 100)::numeric, 2) end,
       case when kind.type = 'conversion' then 'EUR' end
from shaped as s
join cardinal.apps as a on a.name = s.app_name
cross join lateral (
    select (array['content_card', 'in_app_message', 'banner', 'push', 'feature_flag'])[1 + s.campaign_number % 5]
        as name
) as channel
cross join lateral (
    select case
               when s.r_type < 0.08 then 'conversion'
               when channel.name = 'push' and s.r_type < 0.70 then 'send'
               when channel.name = 'push' then 'click'
               when s.r_type < 0.18 then 'send'
               when s.r_type < 0.80 then 'impression'
               when s.r_type < 0.90 then 'click'
               else 'dismissal'
           end as type
) as kind
cross join lateral (
    select s.r_arm < 0.1 and kind.type in ('send', 'impression') as control
) as arm;
