-- seed_reports.sql — the data of the reports benchmark (scripts/bench/reports.py): exactly :events events in a
-- freshly migrated database, inserted with INSERT … SELECT from generate_series (no HTTP, no COPY file).
--
--     psql -X -v ON_ERROR_STOP=1 -v events=10000000 -v from_date=2026-10-31 -v to_date=2026-11-29 \
--          -f scripts/bench/seed_reports.sql postgresql://postgres@127.0.0.1:54329/cardinal_bench_reports
--
-- The shape. One app, "bench" (report day in UTC), 50 campaigns c01..c50 over every channel (ten each), with
-- 1 to 7 variants and, in two campaigns of three, a control arm — 8 arms at most — and an expected split of
-- control 1 : each variant 2. Campaign sizes differ by a factor of five. 1 M users, of whom a fifth are
-- anonymous devices and a tenth of the others use two devices; activity is skewed (the most active 1% of
-- the users get about 5% of the messages). Each message a user gets (an "exposure") is a send, then — except
-- for push — impressions in one to three sessions (a control impression for the control arm), maybe a
-- click, maybe a dismissal, and maybe a conversion of the campaign's primary conversion event, a little
-- more often in the later variants; some conversions fall outside the window. About 2% of the events are
-- conversions unrelated to any message. 0.2% are test sends.
--
-- Three builds carry the integration bugs that the anomalies report is for, on about a tenth of their
-- platform's devices each: iOS SDK 5.9.3 logs an impression on every render (3–6 per session), Android SDK
-- 29.0.1 filters control messages out instead of logging control impressions (which also skews the control
-- arm), and Web SDK 5.3.1 logs content-card clicks and dismissals but no impressions. A few users with two
-- devices see another arm on their second device.
--
-- How it is fast and exact. Every random draw is made once per exposure into bench.exposures; the events
-- are a pure function of an exposure (the view bench.exposure_events), so a first pass can count each
-- exposure's events, a random subset of exposures is kept whose events sum to just under 98% of :events,
-- and unrelated conversions make up the rest exactly. The events are then inserted a day of exposures at a
-- time, ordered by time, so that the primary key and events_campaign_idx grow at their right edges instead
-- of being updated all over. VACUUM (ANALYZE) sets the visibility map (index-only scans, as autovacuum
-- would) and the planner statistics. The marker bench.seed tells reports.py what the database holds.

\set ON_ERROR_STOP 1
\pset pager off
set timezone = 'UTC';
set work_mem = '256MB';
set maintenance_work_mem = '1GB';
set synchronous_commit = off;
-- No report state is folded here: reports.py builds it afterwards with `cardinal state rebuild`, which is the
-- figure it measures.
-- The statements below are big but run once: compiling them costs seconds and saves nothing.
set jit = off;
select setseed(0.2024);

insert into cardinal.apps (name, report_time_zone) values ('bench', 'UTC');

create schema bench;

-- What the database holds, for reports.py; the range bounds for the statements below.
create table bench.seed as
select :events::bigint as events,
       :'from_date'::date as from_date,
       :'to_date'::date as to_date,
       :'from_date'::timestamptz as range_start,
       (:'to_date'::date + 1)::timestamptz as range_end,
       -- About 2.3 events per exposure (push has no impressions); 15% more exposures than needed, so that
       -- the kept subset is a uniform sample of them.
       ceil(:events * 0.98 / 2.3 * 1.15)::bigint as exposures,
       null::bigint as unrelated_conversions,
       clock_timestamp() as started_at,
       null::timestamptz as finished_at;

create table bench.campaigns as
select n,
       format('c%s', lpad(n::text, 2, '0')) as campaign_id,
       (array['content_card', 'in_app_message', 'banner', 'push', 'feature_flag'])[1 + n % 5] as channel,
       1 + (n * 3) % 7 as variants,
       n % 3 <> 0 as has_control,
       (array['purchase', 'signup', 'subscribe', 'add_to_cart'])[1 + n % 4] as conversion_event,
       (array[interval '3 days', interval '1 day', interval '7 days'])[1 + n % 3] as conversion_window,
       0.5 + ((n * 37) % 21) / 10.0 as weight,
       0.02 + (n % 7) * 0.01::float8 as base_conversion,
       0.05 + (n % 5) * 0.02::float8 as click_rate
from generate_series(1, 50) as n;

insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window, expected_split)
select a.app_id, c.campaign_id, c.conversion_event, c.conversion_window,
       case when c.has_control then
           jsonb_build_object('control', 1)
           || case when c.variants = 1 then jsonb_build_object('default', 2)
                   else (select jsonb_object_agg('v' || v, 2) from generate_series(1, c.variants) as v) end
       end
from cardinal.apps as a, bench.campaigns as c
where a.name = 'bench';

-- About 1000 slots, each campaign holding a share proportional to its weight: a slot drawn at random is a
-- campaign drawn by weight, found with a hash join instead of a range join.
create table bench.campaign_slots as
select row_number() over (order by c.n, s.k)::int - 1 as slot, c.n as campaign_number
from bench.campaigns as c
cross join lateral generate_series(1, round(1000 * c.weight / (select sum(weight) from bench.campaigns))::int) as s(k);


create unlogged table bench.exposures as
with draws as (
    select g as exposure_id,
           floor(random() * (select count(*) from bench.campaign_slots))::int as slot,
           floor(1000000 * power(random(), 1.5))::int as user_number,
           -- Increasing with g, so that the table is in time order and a day's exposures are adjacent.
           b.range_start + (g - 1 + random()) / b.exposures * interval '30 days' as t0,
           random() as r_device, random() as r_seen, random() as r_sessions, random() as r_gap,
           random() as r_repeat, random() as r_delay, random() as r_click, random() as r_dismiss,
           random() as r_convert, random() as r_conversion_delay, random() as r_test, random() as r_keep
    from bench.seed as b, generate_series(1, b.exposures) as g
),
people as (
    select d.*, s.campaign_number,
           d.user_number % 5 = 0 as anonymous,
           d.user_number % 5 <> 0 and d.user_number % 10 = 1 and d.r_device < 0.4 as second_device
    from draws as d
    join bench.campaign_slots as s on s.slot = d.slot
),
devices as (
    select p.*,
           case when (p.user_number * 7 + p.second_device::int * 3) % 20 < 9 then 'ios'
                when (p.user_number * 7 + p.second_device::int * 3) % 20 < 18 then 'android'
                else 'web' end as platform,
           (p.user_number / 20 + p.second_device::int) % 10 as build
    from people as p
),
assigned as (
    select v.*, c.*,
           -- The user's arm is fixed per campaign (a hash of user and campaign); a few second devices get
           -- the next arm, which is what users_in_several_arms finds.
           (hashint8(v.user_number::bigint * 64 + c.n) & 2147483647) / 2147483648::float8 as arm_draw,
           case when c.has_control then 1 / (1 + 2 * c.variants)::float8 else 0 end as control_share,
           c.variants + c.has_control::int as arms,
           (v.second_device and (v.user_number + c.n) % 20 = 0)::int as arm_shift,
           case v.platform
               when 'ios' then case when v.build = 0 then '5.9.3' when v.build <= 5 then '6.2.0' else '6.1.0' end
               when 'android' then case when v.build = 0 then '29.0.1' when v.build <= 5 then '30.2.0' else '30.1.0' end
               else case when v.build = 0 then '5.3.1' when v.build <= 5 then '5.4.0' else '5.3.0' end
           end as sdk_version
    from devices as v
    join bench.campaigns as c on c.n = v.campaign_number
),
armed as materialized (
    select x.*,
           (case when x.has_control and x.arm_draw < x.control_share then 0
                 else x.has_control::int
                      + least(x.variants - 1, floor((x.arm_draw - x.control_share) / (1 - x.control_share) * x.variants)::int)
            end + x.arm_shift) % x.arms as arm
    from assigned as x
),
shaped as (
    select a.*,
           a.has_control and a.arm = 0 as control,
           a.arm + 1 - a.has_control::int as variant_number,
           case
               when a.channel = 'push' then 0
               when a.has_control and a.arm = 0 then case when a.sdk_version = '29.0.1' then 0 else 1 end
               when a.r_seen < 0.2 then 0
               else 1 + (a.r_sessions < 0.3)::int + (a.r_sessions < 0.1)::int
           end as sessions,
           case
               when a.has_control and a.arm = 0 then 1
               when a.sdk_version = '5.9.3' then 3 + floor(a.r_repeat * 4)::int
               when a.sdk_version = '5.3.1' and a.channel = 'content_card' then 0
               when a.channel in ('content_card', 'in_app_message') and a.r_repeat < 0.08 then 2
               else 1
           end as impressions_per_session
    from armed as a
)
select s.exposure_id, s.r_keep,
       floor(date_part('epoch', s.t0 - (select range_start from bench.seed)) / 86400)::int as day_number,
       s.user_number, s.campaign_id, s.channel,
       case when s.anonymous then null else 'u' || s.user_number end as user_id,
       'd' || s.user_number || case when s.second_device then 'b' else '' end as device_id,
       s.platform, s.sdk_version,
       '3.' || (1 + (s.user_number / 7) % 4) as app_version,
       case s.platform when 'ios' then '17.' || s.user_number % 6 when 'android' then (11 + s.user_number % 4)::text
                       else 'web' end as os_version,
       s.control,
       case when s.control or s.variants = 1 then null else 'v' || s.variant_number end as variant_id,
       s.r_test < 0.002 as test,
       s.t0,
       s.t0 + interval '1 minute' * (1 + 30 * s.r_delay) as seen_at,
       interval '1 day' * (0.5 + 2 * s.r_gap) as session_gap,
       s.sessions, s.impressions_per_session,
       not s.control and (s.channel = 'push' or s.sessions > 0)
           and s.r_click < s.click_rate * (1 + 0.1 * (s.variant_number - 1)) as clicked,
       not s.control and s.sessions > 0 and s.channel in ('content_card', 'in_app_message', 'banner')
           and s.r_dismiss < 0.25 as dismissed,
       (s.channel = 'push' or s.sessions > 0)
           and s.r_convert < s.base_conversion * case when s.control then 1 else 1 + 0.08 * s.variant_number end
           as converted,
       s.conversion_window * 1.25 * s.r_conversion_delay as conversion_delay,
       s.conversion_event,
       round((5 + 95 * s.r_convert / s.base_conversion)::numeric, 2) as value
from shaped as s;

-- One row per event of an exposure, in time order: the send, the impressions of each session, a click, a
-- dismissal, a conversion; events that would happen after the range (today or later) do not exist yet.
create view bench.exposure_events as
select x.exposure_id, x.r_keep, x.day_number, x.user_id, x.device_id, x.platform, x.sdk_version,
       x.app_version, x.os_version, x.test,
       -- A conversion belongs to no message.
       case when e.type <> 'conversion' then x.campaign_id end as campaign_id,
       case when e.type <> 'conversion' then x.channel end as channel,
       case when e.type <> 'conversion' then x.variant_id end as variant_id,
       e.type, e.time, e.control, e.session, e.conversion_name, e.value
from bench.exposures as x
cross join lateral (
    select 'send' as type, x.t0 as time, x.control, null::int as session, null as conversion_name, null::numeric as value
    union all
    select 'impression', x.seen_at + (s.k - 1) * x.session_gap + (i.k - 1) * interval '40 seconds', x.control, s.k,
           null, null
    from generate_series(1, x.sessions) as s(k)
    cross join generate_series(1, x.impressions_per_session) as i(k)
    union all
    select 'click',
           case when x.channel = 'push' then x.t0 + interval '2 hours' * x.r_keep
                else x.seen_at + interval '20 seconds' + interval '5 minutes' * x.r_keep end,
           false, 1, null, null
    where x.clicked
    union all
    select 'dismissal', x.seen_at + (x.sessions - 1) * x.session_gap + interval '1 minute', false, x.sessions,
           null, null
    where x.dismissed
    union all
    select 'conversion', case when x.channel = 'push' then x.t0 else x.seen_at end + x.conversion_delay, false,
           null, x.conversion_event, x.value
    where x.converted
) as e
where e.time < (select range_end from bench.seed);

-- First pass: each exposure's events; keep a uniform random subset whose events fit in 98% of :events.
create unlogged table bench.kept as
select exposure_id, events
from (
    select exposure_id, count(*) as events, sum(count(*)) over (order by r_keep, exposure_id) as running_total
    from bench.exposure_events
    group by exposure_id, r_keep
) as counted
where running_total <= floor(:events * 0.98);

create index on bench.kept (exposure_id);
create index on bench.exposures (day_number);

update bench.seed set unrelated_conversions = events - (select sum(k.events) from bench.kept as k);

-- Conversions unrelated to any message, spread evenly over the days.
create function bench.insert_day(day integer) returns bigint
    language plpgsql
as $function$
declare
    inserted    bigint;
    unrelated   bigint;
    range_start timestamptz;
    range_end   timestamptz;
begin
    select s.unrelated_conversions / 30 + case when day = 29 then s.unrelated_conversions % 30 else 0 end,
           s.range_start, s.range_end
      into unrelated, range_start, range_end
      from bench.seed as s;

    insert into cardinal.events (app_id, id, type, channel, time, received_at, user_id, device_id, session_id,
                                 campaign_id, variant_id, control, message_id, placement_id, button_id, platform,
                                 sdk_version, app_version, os_version, test, conversion_name, value, currency)
    select (select app_id from cardinal.apps where name = 'bench'),
           gen_random_uuid(), e.type, e.channel, e.time, e.time + interval '2 seconds', e.user_id, e.device_id,
           case when e.session is not null then 's' || e.exposure_id || '-' || e.session end,
           e.campaign_id, e.variant_id, e.control,
           case when e.type = 'conversion' then null
                when e.channel = 'content_card' then 'm' || e.exposure_id
                else e.campaign_id || '-' || coalesce(e.variant_id, 'default') end,
           case when e.channel = 'banner' and e.type <> 'conversion' then 'home_top' end,
           case when e.channel = 'in_app_message' and e.type = 'click' then '0' end,
           e.platform, e.sdk_version, e.app_version, e.os_version, e.test,
           e.conversion_name, e.value, case when e.type = 'conversion' then 'USD' end
    from bench.exposure_events as e
    where e.day_number >= day and e.day_number < day + 1
      and e.exposure_id in (select exposure_id from bench.kept)
    union all
    select (select app_id from cardinal.apps where name = 'bench'),
           gen_random_uuid(), 'conversion', null, t.time, t.time + interval '2 seconds',
           case when u.n % 5 = 0 then null else 'u' || u.n end, 'd' || u.n, null,
           null, null, false, null, null, null,
           case when (u.n * 7) % 20 < 9 then 'ios' when (u.n * 7) % 20 < 18 then 'android' else 'web' end,
           null, '3.' || (1 + (u.n / 7) % 4), null, false,
           (array['purchase', 'signup', 'subscribe', 'add_to_cart', 'app_rating'])[1 + floor(random() * 5)::int],
           round((1 + random() * 99)::numeric, 2), 'USD'
    from generate_series(1, unrelated) as g
    cross join lateral (select floor(1000000 * power(random(), 1.5))::int + g * 0 as n) as u
    cross join lateral (
        select least(range_start + (day + random()) * interval '1 day', range_end - interval '1 second') as time
    ) as t
    order by 5;
    get diagnostics inserted = row_count;
    return inserted;
end
$function$;

\echo seed_reports: inserting events a day of exposures at a time
select sum(bench.insert_day(day)) as inserted from generate_series(0, 29) as day;

drop view bench.exposure_events;
drop table bench.exposures, bench.kept, bench.campaign_slots;

vacuum (analyze) cardinal.events;
analyze cardinal.apps;
analyze cardinal.campaign_settings;

-- Last: reports.py reuses only a database whose seed finished.
update bench.seed set finished_at = clock_timestamp();
