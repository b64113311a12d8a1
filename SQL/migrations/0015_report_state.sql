-- 0015_report_state.sql — report state: per-user facts folded from every stored event, which the reports
-- read instead of scanning raw events (issue 8).
--
-- Design notes (why, not what):
--
-- * One row per user and report group. A report group (report_groups) is everything a report groups or
--   filters events by except the user and the day: app, campaign or canvas step, variant, channel,
--   platform, SDK and app version, and the test flag. Groups are few (thousands); keying the per-user rows
--   by a small group_id keeps their index narrow. Every report grouping (campaign × variant × channel,
--   by platform, by version, the anomaly groups) is a roll-up of groups, so one shape serves them all.
--
-- * Per user and group, each kind of event keeps the report days it happened on. Unique and unique-daily
--   counts over any range of report days are then exact (a user counts when one of its days is in the
--   range; a (user, day) pair once), and the rows are far fewer than the events: repeated impressions,
--   sessions and duplicate kinds collapse. The first time of each kind of exposure is kept for the control
--   report, the time of each click and dismissal for the anomaly report. How many events fell on a day is
--   a per-group figure, kept in report_daily_counts, so that totals are sums over few rows.
--
-- * The fold merges with plain operators only: a day set gains the new days by concatenation when it
--   lacks any of them (so it may hold a day twice, never a day it should not), times are appended, counts
--   added. Every reader counts distinct days and users, so repeats change nothing; a merge function per
--   column and row cost more than the rest of the fold together (measured: 2.3 of 3.9 s for 100 k events).
--
-- * Folded asynchronously, behind a queue. The writer's transaction only adds the rows it stored to
--   report_fold_queue (a statement trigger whose transition table holds exactly what INSERT … ON CONFLICT
--   DO NOTHING stored, so duplicates and retries never count twice; no index, so it costs a heap append).
--   fold_report_state() moves the queue into the state in one REPEATABLE READ transaction; cardinald calls
--   it every second. Folding in the writer's transaction instead cost 60 % of ingest throughput (measured:
--   11.8 k against 31.2 k events/s raw COPY), because every batch paid for planning and upserting.
--
-- * Exact and fresh all the same: the reports read report_user_facts, report_session_facts and
--   report_conversion_facts, views that add the facts of the events still in the queue (aggregated on the
--   fly, the "raw tail") to the folded state. The fold removes rows from the queue and adds them to the
--   state in one transaction, so every snapshot sees each stored event exactly once, on one side or the
--   other, and a report reflects every event committed before it started.
--
-- * Report days are local days in the campaign's report time zone (campaign_settings, else the app's),
--   fixed when an event is folded. When a zone changes, the triggers at the end put the affected events
--   back into the queue and drop their state, so the state always equals a fresh computation. The other
--   settings (conversion event and window, expected split) are applied when a report runs: the state does
--   not depend on them.
--
-- * The user key is the state's only identity column, so a later identity merge can re-key one device's
--   rows (merge its arrays into the user's) without a rebuild.
--
-- * One advisory lock (report_state_lock_key) serialises the fold with re-queueing (requeue_report_state):
--   each runs alone, and the writers never wait for either.


create table cardinal.report_groups (
    group_id       bigint generated always as identity,
    app_id         bigint  not null,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    variant_id     text,
    channel        text    not null,
    platform       text,
    sdk_version    text,
    app_version    text,
    test           boolean not null,

    constraint report_groups_pkey primary key (group_id),
    constraint report_groups_key unique nulls not distinct (
        app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
        app_version, test
    )
);

alter table cardinal.report_groups owner to cardinal_owner;

comment on table cardinal.report_groups is
    'Report groups of the report state: each distinct app × message source × variant × channel × platform × '
    'SDK version × app version × test flag that stored events have had. Made by the fold; never deleted, so '
    'a group_id stays valid.';
comment on column cardinal.report_groups.group_id is 'Identity of the group; report_user_state refers to it.';
comment on column cardinal.report_groups.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_groups.campaign_id is 'Campaign of the events; NULL for canvas steps.';
comment on column cardinal.report_groups.canvas_id is 'Canvas of the events; NULL for campaigns.';
comment on column cardinal.report_groups.canvas_step_id is 'Canvas step of the events; NULL for campaigns.';
comment on column cardinal.report_groups.variant_id is 'Variant of the events as sent (control events included).';
comment on column cardinal.report_groups.channel is 'Channel of the events.';
comment on column cardinal.report_groups.platform is 'Platform of the events, NULL when not sent.';
comment on column cardinal.report_groups.sdk_version is 'SDK version of the events, NULL when not sent.';
comment on column cardinal.report_groups.app_version is 'App version of the events, NULL when not sent.';
comment on column cardinal.report_groups.test is 'Whether the events are test events.';


create table cardinal.report_user_state (
    group_id                    bigint not null,
    user_key                    text   not null,
    impression_days             date[],
    click_days                  date[],
    dismissal_days              date[],
    send_days                   date[],
    control_impression_days     date[],
    control_send_days           date[],
    first_impression_at         timestamptz,
    first_send_at               timestamptz,
    first_control_impression_at timestamptz,
    first_control_send_at       timestamptz,
    click_times                 timestamptz[],
    dismissal_times             timestamptz[],

    constraint report_user_state_pkey primary key (group_id, user_key)
);

alter table cardinal.report_user_state owner to cardinal_owner;

comment on table cardinal.report_user_state is
    'Report state: what each user did in each report group, folded from the stored events (0015). The '
    'reports read it (through report_user_facts) instead of the raw events. *_days are the report days '
    '(campaign''s report time zone) with at least one such event, unordered and possibly repeated; NULL '
    'when there was none.';
comment on column cardinal.report_user_state.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_user_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_user_state.impression_days is 'Report days with impressions (not control).';
comment on column cardinal.report_user_state.click_days is 'Report days with clicks.';
comment on column cardinal.report_user_state.dismissal_days is 'Report days with dismissals.';
comment on column cardinal.report_user_state.send_days is 'Report days with sends (not control).';
comment on column cardinal.report_user_state.control_impression_days is 'Report days with control impressions.';
comment on column cardinal.report_user_state.control_send_days is 'Report days with control sends.';
comment on column cardinal.report_user_state.first_impression_at is 'Time of the first impression (not control).';
comment on column cardinal.report_user_state.first_send_at is 'Time of the first send (not control).';
comment on column cardinal.report_user_state.first_control_impression_at is 'Time of the first control impression.';
comment on column cardinal.report_user_state.first_control_send_at is 'Time of the first control send.';
comment on column cardinal.report_user_state.click_times is
    'Times of every click, unordered: the anomaly report compares each with the user''s first impression.';
comment on column cardinal.report_user_state.dismissal_times is
    'Times of every dismissal, unordered: the anomaly report compares each with the user''s first impression.';


create table cardinal.report_daily_counts (
    group_id            bigint not null,
    day                 date   not null,
    impressions         bigint not null,
    clicks              bigint not null,
    dismissals          bigint not null,
    sends               bigint not null,
    control_impressions bigint not null,
    control_sends       bigint not null,

    constraint report_daily_counts_pkey primary key (group_id, day)
);

alter table cardinal.report_daily_counts owner to cardinal_owner;

comment on table cardinal.report_daily_counts is
    'Report state: events per report group and report day, by kind, folded from the stored events (0015); '
    'the totals of the unique-impressions report.';
comment on column cardinal.report_daily_counts.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_daily_counts.day is 'The report day (campaign''s report time zone).';
comment on column cardinal.report_daily_counts.impressions is 'Impressions (not control).';
comment on column cardinal.report_daily_counts.clicks is 'Clicks.';
comment on column cardinal.report_daily_counts.dismissals is 'Dismissals.';
comment on column cardinal.report_daily_counts.sends is 'Sends (not control).';
comment on column cardinal.report_daily_counts.control_impressions is 'Control impressions.';
comment on column cardinal.report_daily_counts.control_sends is 'Control sends.';


create table cardinal.report_session_state (
    group_id    bigint  not null,
    user_key    text    not null,
    session_id  text    not null,
    day         date    not null,
    impressions integer not null,
    message_ids text[],

    constraint report_session_state_pkey primary key (group_id, user_key, session_id, day)
);

alter table cardinal.report_session_state owner to cardinal_owner;

comment on table cardinal.report_session_state is
    'Report state of sessions: impressions (control ones included) per user, session and report day in each '
    'report group, and the distinct message ids shown, for the repeated_impressions anomaly. Impressions '
    'without a session_id are not kept.';
comment on column cardinal.report_session_state.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_session_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_session_state.session_id is 'The SDK session (events.session_id).';
comment on column cardinal.report_session_state.day is 'The report day of the impressions.';
comment on column cardinal.report_session_state.impressions is 'Impressions in the session on that day.';
comment on column cardinal.report_session_state.message_ids is
    'Message ids of those impressions, unordered and possibly repeated; NULL when none carried one.';


create table cardinal.report_conversion_state (
    app_id          bigint        not null,
    user_key        text          not null,
    conversion_name text          not null,
    test            boolean       not null,
    times           timestamptz[] not null,

    constraint report_conversion_state_pkey primary key (app_id, user_key, conversion_name, test)
);

alter table cardinal.report_conversion_state owner to cardinal_owner;

comment on table cardinal.report_conversion_state is
    'Report state of conversions: the times of each user''s conversions of each name, folded from '
    'the stored events (0015). The control report looks converters up here.';
comment on column cardinal.report_conversion_state.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_conversion_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_conversion_state.conversion_name is 'Name of the conversion event.';
comment on column cardinal.report_conversion_state.test is 'Whether these are test events.';
comment on column cardinal.report_conversion_state.times is 'Event times of the conversions, unordered.';


create table cardinal.report_fold_queue (
    app_id          bigint      not null,
    id              uuid        not null,
    time            timestamptz not null,
    received_at     timestamptz not null,
    type            text        not null,
    channel         text,
    campaign_id     text,
    canvas_id       text,
    canvas_step_id  text,
    variant_id      text,
    control         boolean     not null,
    platform        text,
    sdk_version     text,
    app_version     text,
    test            boolean     not null,
    user_key        text        not null,
    session_id      text,
    message_id      text,
    conversion_name text
)
-- Emptied every second: vacuum it by the number of dead rows, not by a share of a table that is always
-- nearly empty.
with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
      autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000);

alter table cardinal.report_fold_queue owner to cardinal_owner;

comment on table cardinal.report_fold_queue is
    'Stored events not yet folded into the report state: the columns of cardinal.events the state is made '
    'of. Filled by the trigger events_queue_for_report_state, emptied by fold_report_state(). The reports '
    'count these rows too (report_*_facts), so the queue delays nothing but speed.';
comment on column cardinal.report_fold_queue.app_id is 'events.app_id of the queued event.';
comment on column cardinal.report_fold_queue.id is 'events.id of the queued event.';
comment on column cardinal.report_fold_queue.time is 'events.time of the queued event.';
comment on column cardinal.report_fold_queue.received_at is 'events.received_at: the folding lag is measured from it.';
comment on column cardinal.report_fold_queue.type is 'events.type of the queued event.';
comment on column cardinal.report_fold_queue.channel is 'events.channel of the queued event.';
comment on column cardinal.report_fold_queue.campaign_id is 'events.campaign_id of the queued event.';
comment on column cardinal.report_fold_queue.canvas_id is 'events.canvas_id of the queued event.';
comment on column cardinal.report_fold_queue.canvas_step_id is 'events.canvas_step_id of the queued event.';
comment on column cardinal.report_fold_queue.variant_id is 'events.variant_id of the queued event.';
comment on column cardinal.report_fold_queue.control is 'events.control of the queued event.';
comment on column cardinal.report_fold_queue.platform is 'events.platform of the queued event.';
comment on column cardinal.report_fold_queue.sdk_version is 'events.sdk_version of the queued event.';
comment on column cardinal.report_fold_queue.app_version is 'events.app_version of the queued event.';
comment on column cardinal.report_fold_queue.test is 'events.test of the queued event.';
comment on column cardinal.report_fold_queue.user_key is 'events.user_key of the queued event.';
comment on column cardinal.report_fold_queue.session_id is 'events.session_id of the queued event.';
comment on column cardinal.report_fold_queue.message_id is 'events.message_id of the queued event.';
comment on column cardinal.report_fold_queue.conversion_name is 'events.conversion_name of the queued event.';


-- SECURITY DEFINER: the ingest role inserts events but has no privilege on the queue; the trigger runs as
-- its owner and reads nothing but the transition table.
create function cardinal.queue_for_report_state()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.report_fold_queue
        (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name)
    select app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
           control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name
    from stored;
    return null;
end
$function$;

alter function cardinal.queue_for_report_state() owner to cardinal_owner;

revoke execute on function cardinal.queue_for_report_state() from public;

comment on function cardinal.queue_for_report_state() is
    'Statement trigger of cardinal.events: queues the rows just stored (the transition table "stored") for '
    'the report state.';

create trigger events_queue_for_report_state
    after insert on cardinal.events
    referencing new table as stored
    for each statement
    execute function cardinal.queue_for_report_state();

comment on trigger events_queue_for_report_state on cardinal.events is
    'Queues every stored event for the report state (0015), in the storing transaction.';


-- The facts of the queued events, in the shape of the state. The fold inserts these; the reports add them
-- to the folded state. Local days use the report time zone in force now.
create view cardinal.report_pending_user_facts as
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
from cardinal.report_fold_queue as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type <> 'conversion'
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

alter view cardinal.report_pending_user_facts owner to cardinal_owner;

comment on view cardinal.report_pending_user_facts is
    'The queued events (report_fold_queue) as report_user_state rows, with the group''s columns instead of '
    'group_id: what the next fold adds.';


create view cardinal.report_pending_daily_counts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform,
       q.sdk_version, q.app_version, q.test, local.day,
       count(*) filter (where q.type = 'impression' and not q.control) as impressions,
       count(*) filter (where q.type = 'click') as clicks,
       count(*) filter (where q.type = 'dismissal') as dismissals,
       count(*) filter (where q.type = 'send' and not q.control) as sends,
       count(*) filter (where q.type = 'impression' and q.control) as control_impressions,
       count(*) filter (where q.type = 'send' and q.control) as control_sends
from cardinal.report_fold_queue as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type <> 'conversion'
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

alter view cardinal.report_pending_daily_counts owner to cardinal_owner;

comment on view cardinal.report_pending_daily_counts is
    'The queued events as report_daily_counts rows, with the group''s columns instead of group_id.';


create view cardinal.report_pending_session_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, q.session_id, local.day,
       count(*)::integer as impressions,
       array_agg(distinct q.message_id) filter (where q.message_id is not null) as message_ids
from cardinal.report_fold_queue as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type = 'impression' and q.session_id is not null
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

alter view cardinal.report_pending_session_facts owner to cardinal_owner;

comment on view cardinal.report_pending_session_facts is
    'The queued impressions as report_session_state rows, with the group''s columns instead of group_id.';


create view cardinal.report_pending_conversion_facts as
select app_id, user_key, conversion_name, test, array_agg(time) as times
from cardinal.report_fold_queue
where type = 'conversion'
group by app_id, user_key, conversion_name, test;

alter view cardinal.report_pending_conversion_facts owner to cardinal_owner;

comment on view cardinal.report_pending_conversion_facts is
    'The queued conversions as report_conversion_state rows.';


-- What the reports read: the folded state and the queue, each stored event on exactly one side.
create view cardinal.report_user_facts as
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

comment on view cardinal.report_user_facts is
    'Per user and report group, what the user did: the folded report_user_state and the not yet folded '
    'queue (report_pending_user_facts). A user can have a row on each side; the reports aggregate over both.';


create view cardinal.report_daily_count_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, c.day, c.impressions, c.clicks, c.dismissals, c.sends,
       c.control_impressions, c.control_sends
from cardinal.report_daily_counts as c
join cardinal.report_groups as g on g.group_id = c.group_id
union all
select * from cardinal.report_pending_daily_counts;

alter view cardinal.report_daily_count_facts owner to cardinal_owner;

comment on view cardinal.report_daily_count_facts is
    'Events per report group and day by kind: report_daily_counts and the queue; sum over both.';


create view cardinal.report_session_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, v.user_key, v.session_id, v.day, v.impressions, v.message_ids
from cardinal.report_session_state as v
join cardinal.report_groups as g on g.group_id = v.group_id
union all
select * from cardinal.report_pending_session_facts;

alter view cardinal.report_session_facts owner to cardinal_owner;

comment on view cardinal.report_session_facts is
    'Impressions per user, session and report day in each report group: report_session_state and the queue.';


create view cardinal.report_conversion_facts as
select app_id, user_key, conversion_name, test, times from cardinal.report_conversion_state
union all
select * from cardinal.report_pending_conversion_facts;

alter view cardinal.report_conversion_facts owner to cardinal_owner;

comment on view cardinal.report_conversion_facts is
    'Conversion times per user and name: report_conversion_state and the queue.';


-- Each column of the views above means what the column of the same name means in the state table the view
-- mirrors (or in report_groups, for the group's columns): their comments are copied from there.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name, source.description
        from (
            values ('report_pending_user_facts', 'cardinal.report_user_state'::regclass),
                   ('report_user_facts', 'cardinal.report_user_state'),
                   ('report_pending_daily_counts', 'cardinal.report_daily_counts'),
                   ('report_daily_count_facts', 'cardinal.report_daily_counts'),
                   ('report_pending_session_facts', 'cardinal.report_session_state'),
                   ('report_session_facts', 'cardinal.report_session_state'),
                   ('report_pending_conversion_facts', 'cardinal.report_conversion_state'),
                   ('report_conversion_facts', 'cardinal.report_conversion_state')
        ) as v (view_name, state_table)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
        cross join lateral (
            select pg_catalog.col_description(t.relation, t.attnum) as description
            from (
                select c.attrelid as relation, c.attnum, c.attrelid = v.state_table as preferred
                from pg_catalog.pg_attribute as c
                where c.attrelid in (v.state_table, 'cardinal.report_groups'::regclass)
                  and c.attname = a.attname
            ) as t
            order by t.preferred desc
            limit 1
        ) as source
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- The advisory lock key that runs the fold and re-queueing one at a time.
create function cardinal.report_state_lock_key()
    returns bigint
    language sql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
    select hashtextextended('cardinal.report_state', 0);
$function$;

alter function cardinal.report_state_lock_key() owner to cardinal_owner;

comment on function cardinal.report_state_lock_key() is
    'Advisory lock key of the report state: fold_report_state and requeue_report_state hold it exclusively.';


-- The fold. REPEATABLE READ, so that every statement reads the same queue: the rows it folds are exactly
-- the rows it deletes, and rows committed meanwhile stay for the next fold. One fold runs at a time (the
-- lock), so nothing else writes these rows; a second caller gets NULL at once and tries again later.
create function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    -- The queue is never analyzed in time (it lives for a second), so the planner guesses its size; with
    -- the ten-column group key it guessed one row and chose a merge join that rescanned the groups 3 M
    -- times for 55 k facts. Hash joins are right at every size here.
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
declare
    folded bigint;
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- Not waiting: the snapshot was taken before the lock, so a fold that waited would work from a queue
    -- that the holder has since changed. (Even so a requeue committed between the snapshot and the lock
    -- only makes the final delete fail with 40001, never fold a row twice: it deletes every row it read.)
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;

    insert into cardinal.report_groups
        (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version,
         test)
    select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
           app_version, test
    from cardinal.report_fold_queue
    where type <> 'conversion'
    order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict do nothing;

    -- A day set takes the new days only when it lacks one of them; see the design notes.
    insert into cardinal.report_user_state as u
    select g.group_id, f.user_key,
           f.impression_days, f.click_days, f.dismissal_days, f.send_days, f.control_impression_days,
           f.control_send_days, f.first_impression_at, f.first_send_at, f.first_control_impression_at,
           f.first_control_send_at, f.click_times, f.dismissal_times
    from cardinal.report_pending_user_facts as f
    -- '' stands for NULL: no key column can hold an empty string (0005's CHECKs), and equality on it
    -- can be hashed where IS NOT DISTINCT FROM cannot.
    join cardinal.report_groups as g
        on g.app_id = f.app_id
               and coalesce(g.campaign_id, '') = coalesce(f.campaign_id, '')
               and coalesce(g.canvas_id, '') = coalesce(f.canvas_id, '')
               and coalesce(g.canvas_step_id, '') = coalesce(f.canvas_step_id, '')
               and coalesce(g.variant_id, '') = coalesce(f.variant_id, '')
               and g.channel = f.channel
               and coalesce(g.platform, '') = coalesce(f.platform, '')
               and coalesce(g.sdk_version, '') = coalesce(f.sdk_version, '')
               and coalesce(g.app_version, '') = coalesce(f.app_version, '')
               and g.test = f.test
    order by g.group_id, f.user_key
    on conflict (group_id, user_key) do update set
        impression_days = case when excluded.impression_days <@ u.impression_days then u.impression_days
                               else u.impression_days || excluded.impression_days end,
        click_days = case when excluded.click_days <@ u.click_days then u.click_days
                          else u.click_days || excluded.click_days end,
        dismissal_days = case when excluded.dismissal_days <@ u.dismissal_days then u.dismissal_days
                              else u.dismissal_days || excluded.dismissal_days end,
        send_days = case when excluded.send_days <@ u.send_days then u.send_days
                         else u.send_days || excluded.send_days end,
        control_impression_days = case when excluded.control_impression_days <@ u.control_impression_days
                                       then u.control_impression_days
                                       else u.control_impression_days || excluded.control_impression_days end,
        control_send_days = case when excluded.control_send_days <@ u.control_send_days then u.control_send_days
                                 else u.control_send_days || excluded.control_send_days end,
        first_impression_at = least(u.first_impression_at, excluded.first_impression_at),
        first_send_at = least(u.first_send_at, excluded.first_send_at),
        first_control_impression_at = least(u.first_control_impression_at, excluded.first_control_impression_at),
        first_control_send_at = least(u.first_control_send_at, excluded.first_control_send_at),
        click_times = u.click_times || excluded.click_times,
        dismissal_times = u.dismissal_times || excluded.dismissal_times;

    insert into cardinal.report_daily_counts as c
    select g.group_id, f.day, f.impressions, f.clicks, f.dismissals, f.sends, f.control_impressions,
           f.control_sends
    from cardinal.report_pending_daily_counts as f
    join cardinal.report_groups as g
        on g.app_id = f.app_id
               and coalesce(g.campaign_id, '') = coalesce(f.campaign_id, '')
               and coalesce(g.canvas_id, '') = coalesce(f.canvas_id, '')
               and coalesce(g.canvas_step_id, '') = coalesce(f.canvas_step_id, '')
               and coalesce(g.variant_id, '') = coalesce(f.variant_id, '')
               and g.channel = f.channel
               and coalesce(g.platform, '') = coalesce(f.platform, '')
               and coalesce(g.sdk_version, '') = coalesce(f.sdk_version, '')
               and coalesce(g.app_version, '') = coalesce(f.app_version, '')
               and g.test = f.test
    order by g.group_id, f.day
    on conflict (group_id, day) do update set
        impressions = c.impressions + excluded.impressions,
        clicks = c.clicks + excluded.clicks,
        dismissals = c.dismissals + excluded.dismissals,
        sends = c.sends + excluded.sends,
        control_impressions = c.control_impressions + excluded.control_impressions,
        control_sends = c.control_sends + excluded.control_sends;

    insert into cardinal.report_session_state as v
    select g.group_id, f.user_key, f.session_id, f.day, f.impressions, f.message_ids
    from cardinal.report_pending_session_facts as f
    join cardinal.report_groups as g
        on g.app_id = f.app_id
               and coalesce(g.campaign_id, '') = coalesce(f.campaign_id, '')
               and coalesce(g.canvas_id, '') = coalesce(f.canvas_id, '')
               and coalesce(g.canvas_step_id, '') = coalesce(f.canvas_step_id, '')
               and coalesce(g.variant_id, '') = coalesce(f.variant_id, '')
               and g.channel = f.channel
               and coalesce(g.platform, '') = coalesce(f.platform, '')
               and coalesce(g.sdk_version, '') = coalesce(f.sdk_version, '')
               and coalesce(g.app_version, '') = coalesce(f.app_version, '')
               and g.test = f.test
    order by 1, 2, 3, 4
    on conflict (group_id, user_key, session_id, day) do update set
        impressions = v.impressions + excluded.impressions,
        message_ids = case when excluded.message_ids <@ v.message_ids then v.message_ids
                           else v.message_ids || excluded.message_ids end;

    insert into cardinal.report_conversion_state as c
    select app_id, user_key, conversion_name, test, times
    from cardinal.report_pending_conversion_facts
    order by 1, 2, 3, 4
    on conflict (app_id, user_key, conversion_name, test) do update set
        times = c.times || excluded.times;

    delete from cardinal.report_fold_queue;
    get diagnostics folded = row_count;
    return folded;
end
$function$;

alter function cardinal.fold_report_state() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_state() from public;

comment on function cardinal.fold_report_state() is
    'Moves every queued event (report_fold_queue) into the report state and returns how many, or NULL when '
    'another fold or a requeue holds the state lock. Call it in a REPEATABLE READ transaction (it refuses '
    'any other); cardinald does every second. SQLSTATE 40001 means a requeue raced it: call again. For '
    'cardinal_owner and cardinal_ingest.';


-- Puts an app's (or one campaign's) stored events back into the queue and drops their state: after
-- restoring a backup, after a fix to the fold, after a time zone change or a retention drop. One statement
-- removes the queued rows of the scope and queues the stored events of the scope from one snapshot, so an
-- event committed meanwhile is queued exactly once (by its own trigger) and none is lost or doubled.
create function cardinal.requeue_report_state(app_id bigint, campaign text default null)
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := requeue_report_state.app_id;
    queued bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    delete from cardinal.report_user_state as u
    using cardinal.report_groups as g
    where g.group_id = u.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    delete from cardinal.report_session_state as v
    using cardinal.report_groups as g
    where g.group_id = v.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    delete from cardinal.report_daily_counts as c
    using cardinal.report_groups as g
    where g.group_id = c.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    if campaign is null then
        delete from cardinal.report_conversion_state as c where c.app_id = target_app;
    end if;

    with unqueued as (
        delete from cardinal.report_fold_queue as q
        where q.app_id = target_app
          and (campaign is null or q.campaign_id = campaign)
    )
    insert into cardinal.report_fold_queue
        (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name)
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test, e.user_key, e.session_id,
           e.message_id, e.conversion_name
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign);
    get diagnostics queued = row_count;
    return queued;
end
$function$;

alter function cardinal.requeue_report_state(bigint, text) owner to cardinal_owner;

revoke execute on function cardinal.requeue_report_state(bigint, text) from public;

comment on function cardinal.requeue_report_state(bigint, text) is
    'Drops the report state of one app (campaign NULL: every campaign, canvas step and conversion) or of '
    'one campaign, queues its stored events again, and returns how many. The next fold_report_state() '
    'rebuilds it; reports are exact meanwhile (they count the queue). For members of cardinal_owner.';


-- A report time zone that changes moves events to other report days: rebuild what it affects.
create function cardinal.requeue_on_time_zone_change()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if tg_table_name = 'apps' then
        if new.report_time_zone is distinct from old.report_time_zone then
            perform cardinal.requeue_report_state(new.app_id);
        end if;
    elsif tg_op = 'DELETE' then
        if old.report_time_zone is not null then
            perform cardinal.requeue_report_state(old.app_id, old.campaign_id);
        end if;
    elsif tg_op = 'INSERT' then
        if new.report_time_zone is not null then
            perform cardinal.requeue_report_state(new.app_id, new.campaign_id);
        end if;
    elsif new.report_time_zone is distinct from old.report_time_zone then
        perform cardinal.requeue_report_state(new.app_id, new.campaign_id);
    end if;
    return null;
end
$function$;

alter function cardinal.requeue_on_time_zone_change() owner to cardinal_owner;

revoke execute on function cardinal.requeue_on_time_zone_change() from public;

comment on function cardinal.requeue_on_time_zone_change() is
    'Trigger of apps and campaign_settings: requeues the events of the app or campaign whose report time '
    'zone changed.';

create trigger apps_requeue_on_time_zone_change
    after update of report_time_zone on cardinal.apps
    for each row
    execute function cardinal.requeue_on_time_zone_change();

comment on trigger apps_requeue_on_time_zone_change on cardinal.apps is
    'Rebuilds the app''s report state when its report time zone changes.';

create trigger campaign_settings_requeue_on_time_zone_change
    after insert or update or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.requeue_on_time_zone_change();

comment on trigger campaign_settings_requeue_on_time_zone_change on cardinal.campaign_settings is
    'Rebuilds a campaign''s report state when its own report time zone is set, changed or removed.';


grant select on
    cardinal.report_groups,
    cardinal.report_user_state,
    cardinal.report_daily_counts,
    cardinal.report_session_state,
    cardinal.report_conversion_state,
    cardinal.report_fold_queue,
    cardinal.report_pending_user_facts,
    cardinal.report_pending_daily_counts,
    cardinal.report_pending_session_facts,
    cardinal.report_pending_conversion_facts,
    cardinal.report_user_facts,
    cardinal.report_daily_count_facts,
    cardinal.report_session_facts,
    cardinal.report_conversion_facts
    to cardinal_reader;

grant execute on function cardinal.fold_report_state() to cardinal_ingest;


-- Existing events: queue them; the first fold makes their state.
select cardinal.requeue_report_state(a.app_id) from cardinal.apps as a order by a.app_id;
