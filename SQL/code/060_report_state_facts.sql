-- Facts views: the report state plus the pending events, as the reports read them.
--
-- Each report_pending_* view aggregates the unfolded events (report_unfolded_events) into the rows of one
-- state table, with the report group's columns instead of group_id: what the next fold adds. Each
-- report_*_facts view is the folded table joined to its groups, union all its pending view: every stored event
-- on exactly one side, so the reports are exact before the fold. report_pending_control_exposures and
-- report_pending_campaign_receipts differ: their rows are per user and campaign, so they return the folded row
-- merged with the pending events, and the reports put them in place of the folded rows. The last views
-- (report_interaction_rows, report_dismissal_user_days) are the state as the counting triggers read it
-- (080_report_state_counts.sql).
--
-- The per-user pending views group by the user key first. Their aggregates take DISTINCT, so PostgreSQL 15
-- sorts rather than hashes, by the GROUP BY columns in the order written; in one fold nearly every pending
-- event shares its group's ten keys with thousands of others, so with the user key last nearly every
-- comparison read ten equal columns first (56,300 pending rows: 416 ms sorted that way, 106 ms with the user
-- key first; the whole fold 4.22 s → 3.64 s). The groups are the same in any order, and no reader depends on
-- the order of the rows (every upsert sorts by its table's key).
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- Grouped by the user key first (see the head of this file).
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
-- A push delivery is counted per day only (report_daily_counts), never per user.
where q.type not in ('conversion', 'delivery')
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;
alter view cardinal.report_pending_user_facts owner to cardinal_owner;
grant select on cardinal.report_pending_user_facts to cardinal_reader;
comment on view cardinal.report_pending_user_facts is
    'The unfolded events (report_unfolded_events) as report_user_state rows, with the group''s columns '
    'instead of group_id: what the next fold adds.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_user_facts', 'cardinal.report_user_state', 'cardinal.report_groups'
);


create or replace view cardinal.report_pending_daily_counts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform,
       q.sdk_version, q.app_version, q.test, local.day,
       count(*) filter (where q.type = 'impression' and not q.control) as impressions,
       count(*) filter (where q.type = 'click') as clicks,
       count(*) filter (where q.type = 'dismissal') as dismissals,
       count(*) filter (where q.type = 'send' and not q.control) as sends,
       count(*) filter (where q.type = 'impression' and q.control) as control_impressions,
       count(*) filter (where q.type = 'send' and q.control) as control_sends,
       count(*) filter (where q.type = 'delivery') as deliveries
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type <> 'conversion'
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
alter view cardinal.report_pending_daily_counts owner to cardinal_owner;
grant select on cardinal.report_pending_daily_counts to cardinal_reader;
comment on view cardinal.report_pending_daily_counts is
    'The unfolded events as report_daily_counts rows, with the group''s columns instead of group_id.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_daily_counts', 'cardinal.report_groups', 'cardinal.report_daily_counts'
);


-- Grouped by the user key first (see the head of this file).
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
alter view cardinal.report_pending_session_facts owner to cardinal_owner;
grant select on cardinal.report_pending_session_facts to cardinal_reader;
comment on view cardinal.report_pending_session_facts is
    'The unfolded impressions as report_session_state rows, with the group''s columns instead of group_id.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_session_facts', 'cardinal.report_pending_user_facts', 'cardinal.report_session_state'
);
comment on column cardinal.report_pending_session_facts.session_id is
    'The SDK session (events.session_id); '''' for the impressions without one.';


create or replace view cardinal.report_pending_conversion_facts as
select app_id, user_key, conversion_name, test, array_agg(time) as times
from cardinal.report_unfolded_events()
where type = 'conversion'
group by app_id, user_key, conversion_name, test;
alter view cardinal.report_pending_conversion_facts owner to cardinal_owner;
grant select on cardinal.report_pending_conversion_facts to cardinal_reader;
comment on view cardinal.report_pending_conversion_facts is
    'The unfolded conversions as report_conversion_state rows.';
select cardinal.copy_column_comments('cardinal.report_pending_conversion_facts', 'cardinal.report_conversion_state');


-- What the reports read: the folded state and the queue, each stored event on exactly one side.
create or replace view cardinal.report_user_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, u.user_key,
       u.impression_days, u.click_days, u.dismissal_days, u.send_days, u.control_impression_days,
       u.control_send_days, u.first_impression_at, u.first_send_at, u.first_control_impression_at,
       u.first_control_send_at, u.click_times, u.dismissal_times
from cardinal.report_user_state as u
join cardinal.report_groups as g on g.group_id = u.group_id
union all
select * from cardinal.report_pending_user_facts;
alter view cardinal.report_user_facts owner to cardinal_owner;
grant select on cardinal.report_user_facts to cardinal_reader;
comment on view cardinal.report_user_facts is
    'Per user and report group, what the user did: the folded report_user_state and the not yet folded '
    'queue (report_pending_user_facts). A user can have a row on each side; the reports aggregate over both.';
select cardinal.copy_column_comments('cardinal.report_user_facts', 'cardinal.report_pending_user_facts');


create or replace view cardinal.report_daily_count_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, c.day, c.impressions, c.clicks, c.dismissals, c.sends,
       c.control_impressions, c.control_sends, c.deliveries
from cardinal.report_daily_counts as c
join cardinal.report_groups as g on g.group_id = c.group_id
union all
select * from cardinal.report_pending_daily_counts;
alter view cardinal.report_daily_count_facts owner to cardinal_owner;
grant select on cardinal.report_daily_count_facts to cardinal_reader;
comment on view cardinal.report_daily_count_facts is
    'Events per report group and day by kind: report_daily_counts and the queue; sum over both.';
select cardinal.copy_column_comments('cardinal.report_daily_count_facts', 'cardinal.report_pending_daily_counts');


create or replace view cardinal.report_session_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, v.user_key, v.session_id, v.day, v.impressions, v.message_ids
from cardinal.report_session_state as v
join cardinal.report_groups as g on g.group_id = v.group_id
union all
select * from cardinal.report_pending_session_facts;
alter view cardinal.report_session_facts owner to cardinal_owner;
grant select on cardinal.report_session_facts to cardinal_reader;
comment on view cardinal.report_session_facts is
    'Impressions per user, session and report day in each report group: report_session_state and the queue.';
select cardinal.copy_column_comments('cardinal.report_session_facts', 'cardinal.report_pending_session_facts');


create or replace view cardinal.report_conversion_facts as
select app_id, user_key, conversion_name, test, times from cardinal.report_conversion_state
union all
select * from cardinal.report_pending_conversion_facts;
alter view cardinal.report_conversion_facts owner to cardinal_owner;
grant select on cardinal.report_conversion_facts to cardinal_reader;
comment on view cardinal.report_conversion_facts is
    'Conversion times per user and name: report_conversion_state and the queue.';
select cardinal.copy_column_comments('cardinal.report_conversion_facts', 'cardinal.report_pending_conversion_facts');


-- Grouped by the user key first (see the head of this file).
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
alter view cardinal.report_pending_row_days owner to cardinal_owner;
grant select on cardinal.report_pending_row_days to cardinal_reader;
comment on view cardinal.report_pending_row_days is
    'The unfolded events (report_unfolded_events) as report_row_user_days rows, with the row''s columns; '
    'row_id is NULL until the fold makes the row: the days the next fold adds.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_row_days', 'cardinal.report_row_user_days', 'cardinal.report_rows'
);


-- Grouped by the user key first (see the head of this file).
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
alter view cardinal.report_pending_dismissal_facts owner to cardinal_owner;
grant select on cardinal.report_pending_dismissal_facts to cardinal_reader;
comment on view cardinal.report_pending_dismissal_facts is
    'The unfolded dismissals with a message id as report_dismissal_state rows, with the group''s columns '
    'instead of group_id.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_dismissal_facts', 'cardinal.report_pending_user_facts', 'cardinal.report_dismissal_state'
);


create or replace view cardinal.report_dismissal_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, d.user_key, d.message_id, d.day, d.dismissals
from cardinal.report_dismissal_state as d
join cardinal.report_groups as g on g.group_id = d.group_id
union all
select * from cardinal.report_pending_dismissal_facts;
alter view cardinal.report_dismissal_facts owner to cardinal_owner;
grant select on cardinal.report_dismissal_facts to cardinal_reader;
comment on view cardinal.report_dismissal_facts is
    'Dismissals per user, message id and report day in each report group: report_dismissal_state and the '
    'unfolded events; sum over both.';
select cardinal.copy_column_comments('cardinal.report_dismissal_facts', 'cardinal.report_pending_dismissal_facts');


-- Grouped by the user key first (see the head of this file).
create or replace view cardinal.report_pending_push_send_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, array_agg(q.time) as times
from cardinal.report_unfolded_events() as q
where q.type = 'send' and q.channel = 'push' and not q.control
group by 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;
alter view cardinal.report_pending_push_send_facts owner to cardinal_owner;
grant select on cardinal.report_pending_push_send_facts to cardinal_reader;
comment on view cardinal.report_pending_push_send_facts is
    'The unfolded non-control push sends as report_push_send_state rows, with the group''s columns instead '
    'of group_id.';
select cardinal.copy_column_comments('cardinal.report_pending_push_send_facts', 'cardinal.report_pending_user_facts');
comment on column cardinal.report_pending_push_send_facts.times is
    'Event times of the push sends, unordered.';


create or replace view cardinal.report_push_send_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, p.user_key, p.times
from cardinal.report_push_send_state as p
join cardinal.report_groups as g on g.group_id = p.group_id
union all
select * from cardinal.report_pending_push_send_facts;
alter view cardinal.report_push_send_facts owner to cardinal_owner;
grant select on cardinal.report_push_send_facts to cardinal_reader;
comment on view cardinal.report_push_send_facts is
    'Push send times per user in each report group: report_push_send_state and the unfolded events; a user '
    'may have a row on each side.';
select cardinal.copy_column_comments('cardinal.report_push_send_facts', 'cardinal.report_pending_push_send_facts');


-- The order is the same in the three aggregates, so the arrays stay aligned.
create or replace view cardinal.report_pending_conversion_value_facts as
select app_id, user_key, conversion_name, test,
       array_agg(time order by time, id) as times,
       array_agg(value order by time, id) as amounts,
       array_agg(currency order by time, id) as currencies
from cardinal.report_unfolded_conversion_values()
group by app_id, user_key, conversion_name, test;
alter view cardinal.report_pending_conversion_value_facts owner to cardinal_owner;
grant select on cardinal.report_pending_conversion_value_facts to cardinal_reader;
comment on view cardinal.report_pending_conversion_value_facts is
    'The unfolded conversions with a value as report_conversion_value_state rows: what the next fold adds.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_conversion_value_facts', 'cardinal.report_conversion_value_state'
);


create or replace view cardinal.report_conversion_value_facts as
select app_id, user_key, conversion_name, test, times, amounts, currencies
from cardinal.report_conversion_value_state
union all
select * from cardinal.report_pending_conversion_value_facts;
alter view cardinal.report_conversion_value_facts owner to cardinal_owner;
grant select on cardinal.report_conversion_value_facts to cardinal_reader;
comment on view cardinal.report_conversion_value_facts is
    'Time, value and currency of each conversion with a value, per user and name: '
    'report_conversion_value_state and the unfolded events.';
select cardinal.copy_column_comments(
    'cardinal.report_conversion_value_facts', 'cardinal.report_conversion_value_state'
);


-- Grouped by the user key first (see the head of this file).
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
alter view cardinal.report_pending_part_facts owner to cardinal_owner;
grant select on cardinal.report_pending_part_facts to cardinal_reader;
comment on view cardinal.report_pending_part_facts is
    'The unfolded events (report_unfolded_events_full) as report_part_state rows, with the group''s columns: '
    'what the next fold adds.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_part_facts', 'cardinal.report_pending_user_facts', 'cardinal.report_part_state'
);


create or replace view cardinal.report_part_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, p.user_key, p.part, p.day, p.impressions, p.clicks, p.dismissals,
       p.sends
from cardinal.report_part_state as p
join cardinal.report_groups as g on g.group_id = p.group_id
union all
select * from cardinal.report_pending_part_facts;
alter view cardinal.report_part_facts owner to cardinal_owner;
grant select on cardinal.report_part_facts to cardinal_reader;
comment on view cardinal.report_part_facts is
    'Events per user, message part and report day in each report group: report_part_state and the unfolded '
    'events; sum over both.';
select cardinal.copy_column_comments('cardinal.report_part_facts', 'cardinal.report_pending_part_facts');


-- CUPED's x of one exposure row: the user's non-test conversions of the event in the pre-exposure window (the
-- campaign's cuped_window, 14 days when not set, in elapsed time), from the folded conversion state and the
-- pending times given. One definition for the pending rows and the lookup after a settings change; a table
-- function of one SELECT and no SET clause, so that the planner inlines it into each caller's query, where a
-- scalar function would be called once per row.
create or replace function cardinal.pre_exposure_conversions(
    app_id           bigint,
    user_key         text,
    conversion_event text,
    exposed_at       timestamptz,
    cuped_window     interval,
    pending_times    timestamptz[]
)
    returns table (conversions bigint)
    language sql
    stable
as $function$
    select case when pre_exposure_conversions.conversion_event is null then 0 else
               (select count(*)
                from cardinal.report_conversion_state as v
                cross join lateral unnest(v.times) as t (time)
                where v.app_id = pre_exposure_conversions.app_id
                  and v.user_key = pre_exposure_conversions.user_key
                  and v.conversion_name = pre_exposure_conversions.conversion_event
                  and not v.test
                  and t.time >= bounds.window_start and t.time < pre_exposure_conversions.exposed_at)
               + (select count(*)
                  from unnest(pre_exposure_conversions.pending_times) as t (time)
                  where t.time >= bounds.window_start and t.time < pre_exposure_conversions.exposed_at)
           end
    from (
        select pre_exposure_conversions.exposed_at
               - make_interval(secs => extract(epoch from coalesce(pre_exposure_conversions.cuped_window,
                                                                   interval '14 days'))) as window_start
    ) as bounds;
$function$;
alter function cardinal.pre_exposure_conversions(bigint, text, text, timestamp with time zone, interval, timestamp with time zone[]) owner to cardinal_owner;
grant execute on function cardinal.pre_exposure_conversions(bigint, text, text, timestamp with time zone, interval, timestamp with time zone[]) to cardinal_reader;
comment on function cardinal.pre_exposure_conversions(bigint, text, text, timestamptz, interval, timestamptz[]) is
    'CUPED''s x for an exposure, as one row: the user''s non-test conversions of conversion_event in '
    '[exposed_at - cuped_window (14 days when NULL), exposed_at), from report_conversion_state plus the '
    'pending_times given; 0 without a conversion event. report_control_exposures.pre_exposure_conversions '
    'holds it.';


-- A user's exposure row depends on all of the user's events in the campaign (the first arm, a second arm, the
-- first conversion after the exposure, the conversions in the CUPED window before it), so a pending event
-- cannot simply be added to it: the view reads the
-- folded rows the pending events touch, merges them with the pending events and returns whole rows. A pending
-- conversion of any of a campaign's goals touches the row, the further goals included. A function of the
-- campaign, as pending_campaign_receipts is, so that a report of one campaign merges that campaign's rows only
-- (with 88,000 events pending on 1.17 M folded, the control counts' body of one campaign took 0.43 s
-- merging every campaign's); inlined into its callers.
create or replace function cardinal.pending_control_exposures(campaign text)
    returns table (
        app_id                   bigint,
        campaign_id              text,
        user_key                 text,
        exposed_at               timestamptz,
        control                  boolean,
        variant_id               text,
        second_arm_at            timestamptz,
        second_arm_control       boolean,
        second_arm_variant_id    text,
        conversion_event         text,
        converted_at             timestamptz,
        further_converted_at     timestamptz[],
        pre_exposure_conversions bigint
    )
    language sql
    stable
as $function$
with pending as materialized (
    -- The pending exposures (impressions, and push sends) of the campaign and conversions, not test; a control
    -- event's arm has no variant.
    select e.app_id, e.campaign_id, e.user_key, e.type, e.control,
           case when e.control then null else e.variant_id end as variant_id,
           e.time, e.conversion_name
    from cardinal.report_unfolded_events() as e
    where not e.test
      and (e.type = 'conversion'
           or (e.campaign_id is not null
               and (pending_control_exposures.campaign is null or e.campaign_id = pending_control_exposures.campaign)
               and (e.type = 'impression' or (e.type = 'send' and e.channel = 'push'))))
),
-- The folded rows the pending events touch: every row of a user with a pending conversion (any campaign), and
-- the row of each pending exposure's campaign, each looked up by the primary key behind a fence.
folded as materialized (
    select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
           r.second_arm_control, r.second_arm_variant_id, r.conversion_event, r.converted_at,
           r.further_converted_at
    from cardinal.report_control_exposures as r
    where r.app_id = any(array(select distinct p.app_id from pending as p where p.type = 'conversion'))
      and r.user_key = any(array(select distinct p.user_key from pending as p where p.type = 'conversion'))
      and (pending_control_exposures.campaign is null or r.campaign_id = pending_control_exposures.campaign)
    union
    select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
           r.second_arm_control, r.second_arm_variant_id, r.conversion_event, r.converted_at,
           r.further_converted_at
    from (
        select distinct p.app_id, p.campaign_id, p.user_key
        from pending as p
        where p.type <> 'conversion'
    ) as k
    cross join lateral (
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.second_arm_control, r.second_arm_variant_id, r.conversion_event, r.converted_at,
               r.further_converted_at
        from cardinal.report_control_exposures as r
        where r.app_id = k.app_id and r.campaign_id = k.campaign_id and r.user_key = k.user_key
        offset 0
    ) as r
),
pending_conversions as materialized (
    select pending.app_id, pending.user_key, pending.conversion_name, array_agg(pending.time) as times
    from pending
    where pending.type = 'conversion'
    group by pending.app_id, pending.user_key, pending.conversion_name
),
pending_user_conversions as (
    select pending.app_id, pending.user_key, array_agg(pending.conversion_name) as names,
           array_agg(pending.time) as times
    from pending
    where pending.type = 'conversion'
    group by pending.app_id, pending.user_key
),
-- Each arm a user met, with when first: the folded row's two arms and the pending exposures.
arms as (
    select a.app_id, a.campaign_id, a.user_key, a.control, a.variant_id, min(a.first_at) as first_at
    from (
        select folded.app_id, folded.campaign_id, folded.user_key, folded.control, folded.variant_id,
               folded.exposed_at as first_at
        from folded
        union all
        select folded.app_id, folded.campaign_id, folded.user_key, folded.second_arm_control,
               folded.second_arm_variant_id, folded.second_arm_at
        from folded
        where folded.second_arm_at is not null
        union all
        select pending.app_id, pending.campaign_id, pending.user_key, pending.control, pending.variant_id,
               pending.time
        from pending
        where pending.type <> 'conversion'
    ) as a
    group by a.app_id, a.campaign_id, a.user_key, a.control, a.variant_id
),
-- The rows the pending events change: a pending exposure, or a pending conversion of a goal of the campaign.
touched as (
    select pending.app_id, pending.campaign_id, pending.user_key
    from pending
    where pending.type <> 'conversion'
    union
    select f.app_id, f.campaign_id, f.user_key
    from folded as f
    join pending_conversions as c
        on c.app_id = f.app_id and c.user_key = f.user_key and c.conversion_name = f.conversion_event
    union
    select f.app_id, f.campaign_id, f.user_key
    from folded as f
    join cardinal.campaign_conversion_events as g on g.app_id = f.app_id and g.campaign_id = f.campaign_id
    join pending_conversions as c
        on c.app_id = f.app_id and c.user_key = f.user_key and c.conversion_name = g.conversion_event
),
ranked as (
    select a.app_id, a.campaign_id, a.user_key, a.control, a.variant_id, a.first_at,
           row_number() over (partition by a.app_id, a.campaign_id, a.user_key
                              order by a.first_at, a.control, a.variant_id nulls first) as rank
    from arms as a
    join touched as t using (app_id, campaign_id, user_key)
),
-- The first arm and the second distinct one.
exposures as (
    select ranked.app_id, ranked.campaign_id, ranked.user_key,
           min(ranked.first_at) filter (where ranked.rank = 1) as exposed_at,
           bool_or(ranked.control) filter (where ranked.rank = 1) as control,
           min(ranked.variant_id) filter (where ranked.rank = 1) as variant_id,
           min(ranked.first_at) filter (where ranked.rank = 2) as second_arm_at,
           bool_or(ranked.control) filter (where ranked.rank = 2) as second_arm_control,
           min(ranked.variant_id) filter (where ranked.rank = 2) as second_arm_variant_id
    from ranked
    where ranked.rank <= 2
    group by ranked.app_id, ranked.campaign_id, ranked.user_key
)
select x.app_id, x.campaign_id, x.user_key, x.exposed_at, x.control, x.variant_id, x.second_arm_at,
       x.second_arm_control, x.second_arm_variant_id, s.conversion_event,
       -- The first conversion at or after the exposure, folded or pending.
       least((select min(t.time)
              from cardinal.report_conversion_state as v
              cross join lateral unnest(v.times) as t (time)
              where v.app_id = x.app_id and v.user_key = x.user_key and v.conversion_name = s.conversion_event
                and not v.test and t.time >= x.exposed_at),
             (select min(t.time) from unnest(c.times) as t (time) where t.time >= x.exposed_at))
           as converted_at,
       -- The same per further goal (ordinal 2..4), NULL as a whole when the user reached none of them, or
       -- the campaign has none: most campaigns have one goal, and the subquery per row cost 1 s of the view's
       -- 5.7 with 1 M events unfolded.
       case when array_remove(ge.conversion_events[2:], null) <> '{}' then
       (select case when array_remove(further.times, null) <> '{}' then further.times end
        from (
            select array(
                       select case
                                  when g.ordinal > 1 and g.event is not null then
                                      least((select min(t.time)
                                             from cardinal.report_conversion_state as v
                                             cross join lateral unnest(v.times) as t (time)
                                             where v.app_id = x.app_id and v.user_key = x.user_key
                                               and v.conversion_name = g.event and not v.test
                                               and t.time >= x.exposed_at),
                                            (select min(p.time)
                                             from unnest(u.names, u.times) as p (name, time)
                                             where p.name = g.event and p.time >= x.exposed_at))
                              end
                       from unnest(ge.conversion_events) with ordinality as g (event, ordinal)
                       order by g.ordinal) as times
            offset 0
        ) as further)
       end as further_converted_at,
       pre.conversions as pre_exposure_conversions
from exposures as x
left join cardinal.campaign_settings as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
left join cardinal.campaign_conversion_goal_events as ge on ge.app_id = x.app_id and ge.campaign_id = x.campaign_id
left join pending_conversions as c
    on c.app_id = x.app_id and c.user_key = x.user_key and c.conversion_name = s.conversion_event
left join pending_user_conversions as u on u.app_id = x.app_id and u.user_key = x.user_key
-- CUPED's x: a pending conversion before the exposure, or an earlier exposure, changes it.
cross join lateral cardinal.pre_exposure_conversions(x.app_id, x.user_key, s.conversion_event, x.exposed_at,
                                                     s.cuped_window, c.times) as pre;
$function$;
alter function cardinal.pending_control_exposures(text) owner to cardinal_owner;
grant execute on function cardinal.pending_control_exposures(text) to cardinal_reader;
comment on function cardinal.pending_control_exposures(text) is
    'report_pending_control_exposures of one campaign (NULL: every campaign): the report_control_exposures rows '
    'of the campaign that folding the unfolded events makes, merged with the folded rows they touch.';


create or replace view cardinal.report_pending_control_exposures as
select * from cardinal.pending_control_exposures(null);
alter view cardinal.report_pending_control_exposures owner to cardinal_owner;
grant select on cardinal.report_pending_control_exposures to cardinal_reader;
comment on view cardinal.report_pending_control_exposures is
    'The report_control_exposures rows that folding the unfolded events (report_unfolded_events) makes: for '
    'each user with a pending exposure to a campaign or a pending conversion of one of its conversion goals '
    '(the further ones too), the folded row merged with the pending events. Reports put them in place '
    'of the folded rows.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_control_exposures', 'cardinal.report_control_exposures'
);
comment on column cardinal.report_pending_control_exposures.user_key is
    'The user (the resolved user key).';
comment on column cardinal.report_pending_control_exposures.further_converted_at is
    'Per further conversion goal, element k for ordinal k = 2..4 (campaign_conversion_goals; element 1 is '
    'always NULL, the primary being converted_at): the time of the user''s first non-test conversion of that '
    'goal''s event at or after exposed_at, NULL when none or no such goal. The whole array is NULL when the '
    'user converted to no further goal.';


-- As report_pending_control_exposures: the folded receipt rows the pending events touch, merged with them into
-- whole rows, each with its goals' first conversions and the revenue within the window (window_revenue). The
-- pending events come from report_unfolded_events_full() for their values. A function of the campaign, so that
-- a report of one campaign merges that campaign's rows only: with 88,000 events pending on 1.17 M folded, the
-- conversions of one campaign took 1.3 s merging every campaign's. Inlined into its callers (a single SELECT,
-- no SET clause), so that NULL, every campaign, costs no more than the view it was.
create or replace function cardinal.pending_campaign_receipts(campaign text)
    returns table (
        app_id            bigint,
        campaign_id       text,
        variant_key       text,
        user_key          text,
        first_received_at timestamptz,
        received_days     date[],
        converted_at      timestamptz[],
        window_revenue    jsonb
    )
    language sql
    stable
as $function$
with pending as materialized (
    -- The pending receipts (report_receipt_type: a push send, an impression on every other channel)
    -- of the campaign and conversions, not test nor control, with their report day and value (none that
    -- counts for a repeat of a stored order).
    select e.app_id, e.campaign_id, coalesce(e.variant_id, '') as variant_key, e.user_key, e.type, e.time,
           e.conversion_name, case when r.id is null then e.value end as value,
           coalesce(e.currency, 'XXX') as currency,
           (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
    from cardinal.report_unfolded_events_full() as e
    join cardinal.apps as a on a.app_id = e.app_id
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    left join cardinal.repeated_order_conversions as r
      on e.type = 'conversion' and r.app_id = e.app_id and r.time = e.time and r.id = e.id
    where not e.test
      and (e.type = 'conversion'
           or (e.campaign_id is not null
               and (pending_campaign_receipts.campaign is null or e.campaign_id = pending_campaign_receipts.campaign)
               and not e.control
               and e.type = cardinal.report_receipt_type(e.channel)))
),
-- The folded rows the pending events touch: every row of a user with a pending conversion (any campaign), and
-- the row of each pending receipt's campaign and variant, each looked up by the primary key behind a fence.
folded as materialized (
    select r.app_id, r.campaign_id, r.variant_key, r.user_key, r.first_received_at, r.received_days,
           r.converted_at, r.window_revenue
    from cardinal.report_campaign_receipts as r
    where r.app_id = any(array(select distinct p.app_id from pending as p where p.type = 'conversion'))
      and r.user_key = any(array(select distinct p.user_key from pending as p where p.type = 'conversion'))
      and (pending_campaign_receipts.campaign is null or r.campaign_id = pending_campaign_receipts.campaign)
    union
    select r.app_id, r.campaign_id, r.variant_key, r.user_key, r.first_received_at, r.received_days,
           r.converted_at, r.window_revenue
    from (
        select distinct p.app_id, p.campaign_id, p.variant_key, p.user_key
        from pending as p
        where p.type <> 'conversion'
    ) as k
    cross join lateral (
        select r.app_id, r.campaign_id, r.variant_key, r.user_key, r.first_received_at, r.received_days,
               r.converted_at, r.window_revenue
        from cardinal.report_campaign_receipts as r
        where r.app_id = k.app_id and r.campaign_id = k.campaign_id and r.variant_key = k.variant_key
          and r.user_key = k.user_key
        offset 0
    ) as r
),
pending_receipts as (
    select pending.app_id, pending.campaign_id, pending.variant_key, pending.user_key,
           min(pending.time) as first_at, array_agg(pending.day) as days
    from pending
    where pending.type <> 'conversion'
    group by pending.app_id, pending.campaign_id, pending.variant_key, pending.user_key
),
-- A user's pending conversions of every name, in aligned arrays.
pending_conversions as materialized (
    select pending.app_id, pending.user_key, array_agg(pending.conversion_name) as names,
           array_agg(pending.time) as times, array_agg(pending.value) as amounts,
           array_agg(pending.currency) as currencies
    from pending
    where pending.type = 'conversion'
    group by pending.app_id, pending.user_key
),
-- The rows the pending events change: a pending receipt, or a pending conversion of a goal of the campaign.
-- The receipts' keys are distinct already, so only the folded rows are checked against them (a hashed anti
-- join): a UNION sorted all of them, 1.3 s of this view's 9.8 with 1 M events unfolded.
touched as (
    select pending_receipts.app_id, pending_receipts.campaign_id, pending_receipts.variant_key,
           pending_receipts.user_key
    from pending_receipts
    union all
    select f.app_id, f.campaign_id, f.variant_key, f.user_key
    from folded as f
    where exists (
              select
              from cardinal.campaign_conversion_goals as g
              join pending as c
                  on c.app_id = g.app_id and c.conversion_name = g.conversion_event
              where g.app_id = f.app_id and g.campaign_id = f.campaign_id
                and c.type = 'conversion' and c.user_key = f.user_key
          )
      and not exists (
              select
              from pending_receipts as r
              where r.app_id = f.app_id and r.campaign_id = f.campaign_id and r.variant_key = f.variant_key
                and r.user_key = f.user_key
          )
),
-- The receipts, folded and pending together.
merged as (
    select t.app_id, t.campaign_id, t.variant_key, t.user_key,
           least(f.first_received_at, r.first_at) as first_received_at,
           -- Most touched rows are a new user's one pending day, already sorted and distinct: a subquery per
           -- row for it took 1.3 s of this view's 9.8 with 1 M events unfolded.
           case
               when f.received_days is null and cardinality(r.days) = 1 then r.days
               else array(select distinct d.day
                          from unnest(coalesce(f.received_days, '{}') || coalesce(r.days, '{}')) as d (day)
                          order by d.day)
           end as received_days
    from touched as t
    left join folded as f
        on f.app_id = t.app_id and f.campaign_id = t.campaign_id and f.variant_key = t.variant_key
           and f.user_key = t.user_key
    left join pending_receipts as r
        on r.app_id = t.app_id and r.campaign_id = t.campaign_id and r.variant_key = t.variant_key
           and r.user_key = t.user_key
),
-- Per goal ordinal, the first conversion at or after the first receipt, folded or pending.
reached as (
    select m.app_id, m.campaign_id, m.variant_key, m.user_key, m.first_received_at, m.received_days,
           coalesce(ge.conversion_events, array[null::text, null, null, null]) as conversion_events,
           c.names, c.times, c.amounts, c.currencies,
           array(select case
                            when g.event is not null then
                                least((select min(t.time)
                                       from cardinal.report_conversion_state as v
                                       cross join lateral unnest(v.times) as t (time)
                                       where v.app_id = m.app_id and v.user_key = m.user_key
                                         and v.conversion_name = g.event and not v.test
                                         and t.time >= m.first_received_at),
                                      (select min(p.time)
                                       from unnest(c.names, c.times) as p (name, time)
                                       where p.name = g.event and p.time >= m.first_received_at))
                        end
                 from unnest(coalesce(ge.conversion_events, array[null::text, null, null, null]))
                      with ordinality as g (event, ordinal)
                 order by g.ordinal) as converted_at
    from merged as m
    left join cardinal.campaign_conversion_goal_events as ge
        on ge.app_id = m.app_id and ge.campaign_id = m.campaign_id
    left join pending_conversions as c on c.app_id = m.app_id and c.user_key = m.user_key
)
select x.app_id, x.campaign_id, x.variant_key, x.user_key, x.first_received_at, x.received_days, x.converted_at,
       -- Per goal reached within the window, the values of its conversions in the window by currency, folded
       -- and pending.
       case
           when array_remove(x.converted_at, null) = '{}' then '[null, null, null, null]'::jsonb
           else to_jsonb(array(
               select case
                          when x.converted_at[g.ordinal] <= w.window_end then
                              coalesce((select jsonb_object_agg(u.currency, u.amount)
                                        from (
                                            select o.currency, sum(o.amount) as amount
                                            from (
                                                select t.currency, t.amount
                                                from cardinal.report_conversion_value_state as v
                                                cross join lateral unnest(v.times, v.amounts, v.currencies)
                                                    as t (time, amount, currency)
                                                where v.app_id = x.app_id and v.user_key = x.user_key
                                                  and v.conversion_name = g.event and not v.test
                                                  and t.time between x.first_received_at and w.window_end
                                                union all
                                                select p.currency, p.amount
                                                from unnest(x.names, x.times, x.amounts, x.currencies)
                                                    as p (name, time, amount, currency)
                                                where p.name = g.event and p.amount is not null
                                                  and p.time between x.first_received_at and w.window_end
                                            ) as o
                                            group by o.currency
                                        ) as u),
                                       '{}'::jsonb)
                      end
               from (select cardinal.report_window_end(x.first_received_at, s.conversion_window,
                                                       coalesce(s.report_time_zone, a.report_time_zone))
                                as window_end) as w
               cross join unnest(x.conversion_events) with ordinality as g (event, ordinal)
               order by g.ordinal))
       end as window_revenue
from reached as x
join cardinal.apps as a on a.app_id = x.app_id
left join cardinal.campaign_settings as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id;
$function$;
alter function cardinal.pending_campaign_receipts(text) owner to cardinal_owner;
grant execute on function cardinal.pending_campaign_receipts(text) to cardinal_reader;
comment on function cardinal.pending_campaign_receipts(text) is
    'report_pending_campaign_receipts of one campaign (NULL: every campaign): the report_campaign_receipts rows '
    'of the campaign that folding the unfolded events makes, merged with the folded rows they touch.';


create or replace view cardinal.report_pending_campaign_receipts as
select * from cardinal.pending_campaign_receipts(null);
alter view cardinal.report_pending_campaign_receipts owner to cardinal_owner;
grant select on cardinal.report_pending_campaign_receipts to cardinal_reader;
comment on view cardinal.report_pending_campaign_receipts is
    'The report_campaign_receipts rows that folding the unfolded events (report_unfolded_events) makes: for '
    'each user with a pending receipt of a campaign, or a pending conversion of one of its campaigns'' goal '
    'events, the folded row merged with the pending events. Reports put them in place of the folded rows.';
select cardinal.copy_column_comments(
    'cardinal.report_pending_campaign_receipts', 'cardinal.report_campaign_receipts'
);
comment on column cardinal.report_pending_campaign_receipts.user_key is
    'The user (the resolved user key).';
comment on column cardinal.report_pending_campaign_receipts.window_revenue is
    'Per conversion goal ordinal k, element k - 1 of a JSON array of four: null when the user did not convert '
    'to that goal within the window (report_window_end of first_received_at in the campaign''s report time '
    'zone), else an object of currency to the sum of the values of the goal''s non-test conversions within '
    '[first_received_at, window end] ({} when none had a value).';


-- What the state makes: the backfill and the tests read these; the trigger keeps the tables equal to them.
-- Each state row of a campaign or canvas with the user's first impression of its step and whether the user was
-- ever exposed to its control arm, over all the user's rows of the campaign (test ones too).
create or replace view cardinal.report_interaction_rows as
select g.finding_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key, coalesce(g.canvas_id, '') as canvas_key,
       g.channel, g.test, u.user_key, u.click_times, u.dismissal_times,
       coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
       min(u.first_impression_at) over (
           partition by g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, u.user_key
       ) as step_first_impression_at,
       bool_or(u.first_control_impression_at is not null or u.first_control_send_at is not null) over (
           partition by g.app_id, g.campaign_id, g.canvas_id, u.user_key
       ) as control_exposed
from cardinal.report_user_state as u
join cardinal.report_groups as g on g.group_id = u.group_id
join cardinal.apps as a on a.app_id = g.app_id
left join cardinal.campaign_settings as s on s.app_id = g.app_id and s.campaign_id = g.campaign_id
where g.campaign_id is not null or g.canvas_id is not null;
alter view cardinal.report_interaction_rows owner to cardinal_owner;
grant select on cardinal.report_interaction_rows to cardinal_reader;
comment on view cardinal.report_interaction_rows is
    'The report_user_state rows of campaigns and canvases as the interaction counts read them: with the '
    'report time zone of their clicks, the user''s first impression of the step and whether the user was ever '
    'exposed to control in the campaign (canvas), over all the user''s rows of it, test ones too.';
comment on column cardinal.report_interaction_rows.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_interaction_rows.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_interaction_rows.campaign_key is 'The campaign; '''' for a canvas.';
comment on column cardinal.report_interaction_rows.canvas_key is 'The canvas; '''' for a campaign.';
comment on column cardinal.report_interaction_rows.channel is 'The channel (events.channel).';
comment on column cardinal.report_interaction_rows.test is 'Whether the row counts test events.';
comment on column cardinal.report_interaction_rows.user_key is 'The user (events.user_key).';
comment on column cardinal.report_interaction_rows.click_times is 'report_user_state.click_times.';
comment on column cardinal.report_interaction_rows.dismissal_times is 'report_user_state.dismissal_times.';
comment on column cardinal.report_interaction_rows.time_zone is
    'The report time zone of the campaign, else of the app.';
comment on column cardinal.report_interaction_rows.step_first_impression_at is
    'The first impression of the user''s rows of the campaign or canvas step.';
comment on column cardinal.report_interaction_rows.control_exposed is
    'Whether any of the user''s rows of the campaign or canvas has a control impression or control send.';


-- What the state makes: the backfill and the tests read these; the trigger keeps the tables equal to them.
create or replace view cardinal.report_dismissal_user_days as
select d.*, bool_or(d.repeats_a_card) over (partition by d.finding_id, d.user_key) as repeats
from (
    select c.finding_id, c.user_key, c.day, sum(c.dismissals) as dismissals,
           bool_or(c.card_dismissals > 1) as repeats_a_card
    from (
        select g.finding_id, x.user_key, x.day, x.dismissals,
               sum(x.dismissals) over (partition by g.finding_id, x.user_key, x.message_id) as card_dismissals
        from cardinal.report_dismissal_state as x
        join cardinal.report_groups as g on g.group_id = x.group_id
        where not g.test and g.channel = 'content_card' and (g.campaign_id is not null or g.canvas_id is not null)
    ) as c
    group by c.finding_id, c.user_key, c.day
) as d;
alter view cardinal.report_dismissal_user_days owner to cardinal_owner;
grant select on cardinal.report_dismissal_user_days to cardinal_reader;
comment on view cardinal.report_dismissal_user_days is
    'The dismissals of report_dismissal_state as the dismissal counts read them: per finding group '
    '(non-test report groups of content cards), user and report day, and whether the user dismissed a card of '
    'the finding group more than once over all days.';
comment on column cardinal.report_dismissal_user_days.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_dismissal_user_days.user_key is 'The user (events.user_key).';
comment on column cardinal.report_dismissal_user_days.day is 'The report day.';
comment on column cardinal.report_dismissal_user_days.dismissals is 'The user''s dismissals on the day.';
comment on column cardinal.report_dismissal_user_days.repeats_a_card is
    'Whether a card dismissed on the day was dismissed more than once over all days.';
comment on column cardinal.report_dismissal_user_days.repeats is
    'Whether the user dismissed a card of the finding group more than once over all days.';
