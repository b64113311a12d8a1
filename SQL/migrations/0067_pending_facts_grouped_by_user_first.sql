-- 0067_pending_facts_grouped_by_user_first.sql — the fold's per-user aggregations of the pending events group by
-- the user key first (issues 8 and 9).
--
-- Design notes (why, not what):
--
-- * Each per-user view of the pending events groups by its report group's keys and the user key: up to 13
--   columns, app_id first and user_key eleventh. Their aggregates take DISTINCT (array_agg(distinct day)), so
--   PostgreSQL 15 cannot hash them: it sorts the pending events by the GROUP BY columns in the order written.
--   In one fold nearly every pending event shares its first ten keys with thousands of others (one app, a
--   few campaigns, variants, channels, platforms and versions), so nearly every comparison of the sort reads
--   ten equal columns before the user key tells the two rows apart, and each column past the first is fetched
--   from the tuple again. Sorting 56,300 pending rows of the ingest bench by those eleven columns took 416 ms
--   in psql, by the same columns with the user key first 106 ms.
--
-- * The groups are the same in any order of the GROUP BY; no reader depends on the order of the rows a view
--   returns (every upsert sorts by its table's key). The day pairs' window partitions the days in the same
--   new order, so that the days' sort still serves it.
--
-- * Measured on the ingest bench's state (100,000 users, 300 report groups), a fold of 56,300 pending events
--   in psql, rolled back, five alternate runs each (medians, the range in brackets): the user-state step 1.22
--   (1.12-1.42) -> 0.97 (0.91-1.36) s, the parts 0.46 (0.40-0.61) -> 0.32 (0.30-0.40) s, the whole fold 4.22
--   (3.70-4.69) -> 3.64 (3.37-4.34) s. The day pairs' step did not move (0.89 -> 0.90 s): its sort has seven
--   columns, and most of its time is elsewhere.
--
-- * The bodies are those of the migrations named above each, with only the GROUP BY (and the window) changed.

-- 0021's body, grouped by the user key first.
create or replace view cardinal.report_pending_user_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform,
       q.sdk_version, q.app_version, q.test, q.user_key,
       array_agg(distinct local.day) filter (where q.type = 'impression' and not q.control) as impression_days,
       array_agg(distinct local.day) filter (where q.type = 'click') as click_days,
       array_agg(distinct local.day) filter (where q.type = 'dismissal') as dismissal_days,
       array_agg(distinct local.day) filter (where q.type = 'send' and not q.control) as send_days,
       array_agg(distinct local.day) filter (where q.type = 'impression' and q.control) as control_impression_days,
       array_agg(distinct local.day) filter (where q.type = 'send' and q.control) as control_send_days,
       min(q.time) filter (where q.type = 'impression' and not q.control) as first_impression_at,
       min(q.time) filter (where q.type = 'send' and not q.control) as first_send_at,
       min(q.time) filter (where q.type = 'impression' and q.control) as first_control_impression_at,
       min(q.time) filter (where q.type = 'send' and q.control) as first_control_send_at,
       array_agg(q.time) filter (where q.type = 'click') as click_times,
       array_agg(q.time) filter (where q.type = 'dismissal') as dismissal_times
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type <> 'conversion'
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;

-- 0027's body, grouped by the user key first.
create or replace view cardinal.report_pending_session_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, coalesce(q.session_id, '') as session_id, local.day,
       count(*)::integer as impressions,
       array_agg(distinct q.message_id) filter (where q.message_id is not null) as message_ids
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type = 'impression'
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13;

-- 0027's body, grouped by the user key first.
create or replace view cardinal.report_pending_dismissal_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, q.message_id, local.day, count(*)::integer as dismissals
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type = 'dismissal' and q.message_id is not null
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13;

-- 0038's body, grouped by the user key first.
create or replace view cardinal.report_pending_part_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, part.part, local.day,
       count(*) filter (where q.type = 'impression')::integer as impressions,
       count(*) filter (where q.type = 'click')::integer as clicks,
       count(*) filter (where q.type = 'dismissal')::integer as dismissals,
       count(*) filter (where q.type = 'send')::integer as sends
from cardinal.report_unfolded_events_full() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select case
               when q.channel = 'content_card' then coalesce(q.message_id, '')
               else coalesce(cardinal.report_message_part(q.channel, q.type, q.message_id, q.placement_id,
                                                          q.button_id), '')
           end as part
) as part
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type in ('impression', 'click', 'dismissal', 'send')
  and not q.control
  and (q.campaign_id is not null or q.canvas_step_id is not null)
  and cardinal.report_message_part(q.channel, q.type, '', '', '') is not null
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13;

-- 0029's body, grouped by the user key first.
create or replace view cardinal.report_pending_push_send_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, array_agg(q.time) as times
from cardinal.report_unfolded_events() as q
where q.type = 'send' and q.channel = 'push' and not q.control
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;

-- 0025's body, grouped by the user key first.
create or replace view cardinal.report_pending_row_days as
select r.row_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.user_key,
       p.impression_days, p.click_days, p.dismissal_days, p.send_days
from (
    select e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.channel, e.user_key,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'impression'), '{}')
               as impression_days,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'click'), '{}') as click_days,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'dismissal'), '{}')
               as dismissal_days,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'send'), '{}') as send_days
    from cardinal.report_unfolded_row_events as e
    group by 7, 1, 2, 3, 4, 5, 6
) as p
left join cardinal.report_rows as r
    on r.row_key = cardinal.report_row_key(p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id,
                                           p.channel);

-- 0025's body, grouped by the user key first.
create or replace view cardinal.report_pending_row_day_users as
with days as (
    -- A day the user had already is old, even when the unfolded events have it too.
    select p.row_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.user_key,
           kind.name as kind, day.day, bool_and(day.new) as new
    from cardinal.report_pending_row_days as p
    left join cardinal.report_row_user_days as old on old.row_id = p.row_id and old.user_key = p.user_key
    cross join lateral (
        values ('impression', old.impression_days, p.impression_days),
               ('click', old.click_days, p.click_days),
               ('dismissal', old.dismissal_days, p.dismissal_days),
               ('send', old.send_days, p.send_days)
    ) as kind (name, old_days, new_days)
    cross join lateral (
        select d, false from unnest(kind.old_days) as d
        union all
        select d, true from unnest(kind.new_days) as d
    ) as day (day, new)
    -- A kind whose days the user had already changes nothing.
    where not kind.new_days <@ coalesce(kind.old_days, '{}')
    group by 8, 1, 2, 3, 4, 5, 6, 7, 9, 10
),
paired as (
    select row_id, app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, kind, day, new,
           coalesce(lag(day) over user_days, '-infinity') as previous_day,
           coalesce(max(day) filter (where not new) over (user_days rows between unbounded preceding and 1 preceding),
                    '-infinity') as previous_old_day
    from days
    -- The days' grouping order, so that one sort serves both.
    window user_days as (partition by user_key, row_id, app_id, campaign_id, canvas_id, canvas_step_id, variant_id,
                                      channel, kind
                         order by day)
)
select p.row_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.kind, p.day,
       change.previous_day, sum(change.users)::bigint as users
from paired as p
cross join lateral (
    values (p.previous_day, 1), (p.previous_old_day, -1)
) as change (previous_day, users)
where case when p.new then change.users = 1
           else p.previous_day <> p.previous_old_day end
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
having sum(change.users) <> 0;
