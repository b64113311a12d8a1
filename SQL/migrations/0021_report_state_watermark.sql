-- 0021_report_state_watermark.sql — the fold finds new events by the transaction that stored them, instead
-- of a copy of every stored row in report_fold_queue (issues 8 and 9: the ingest goal of 0.8 × COPY).
--
-- Design notes (why, not what):
--
-- * The queue trigger of 0015 wrote every stored event twice (the transition table, then a heap row and its
--   WAL in report_fold_queue): +38 % on the writer's INSERT, measured in psql on 100 k events, and ingest fell
--   to 0.64 × COPY. Now each event carries the id of the transaction that stored it (events.stored_xid, a
--   column default, so the writer does nothing new), and a BRIN index on it finds the recent ones: new rows
--   append to the tail of their partition, so each page range holds a narrow band of transaction ids and
--   the index stays a few pages per partition.
--
-- * The watermark. Transaction ids are handed out in one order but commit in another, so "every id above
--   the last one folded" would skip a transaction that was still running at the fold and committed after
--   it. The fold therefore advances report_fold_watermark.folded_below to its snapshot's xmin: every
--   transaction below it has ended, so what it stored is visible to the fold, and a transaction that ends
--   later has an id at or above it. Transactions at or above the xmin that had already committed are
--   visible too, and folded with the rest; their ids go into report_folded_xids so that no later fold or
--   report counts them again. That list stays short (the commits that overtook the oldest running writer)
--   and loses its entries as the watermark passes them. Only transactions that write hold the watermark
--   back (a snapshot's xmin ignores read-only ones: reports, pg_dump): a long one (a rebuild's requeue, a
--   migration) makes each fold re-read what was stored since it began, until it ends.
--
-- * The queue stays, for re-queued events only (requeue_report_state: a time zone change, a rebuild, a
--   retention drop). An event is unfolded when it is in the queue, or when its stored_xid is at or above
--   the watermark and not in report_folded_xids; report_unfolded_events() returns both kinds, the pending
--   views of 0015 now read it, and the reports stay exact and fresh exactly as before.
--
-- * report_unfolded_events() pins its plan to the BRIN index (sequential and plain index scans off): the
--   watermark is a value the planner cannot know when it plans, and its default guess for ">=" (a third of
--   the table) would pick a sequential scan of every partition. A bitmap scan of the BRIN index reads only
--   the page ranges whose ids reach the watermark, at any row estimate.
--
-- * Events stored before this migration have no stored_xid (NULL): they are folded already or in the
--   queue, and the column is added without rewriting the table.


alter table cardinal.events add column stored_xid bigint;

-- xid8 has no BRIN operator class; as bigint it has one, and the 64-bit id never wraps.
alter table cardinal.events alter column stored_xid set default (pg_current_xact_id()::text)::bigint;

comment on column cardinal.events.stored_xid is
    'Id (64-bit, with epoch) of the transaction that stored the event; NULL for events stored before '
    'migration 0021. The report-state fold finds new events by it (report_fold_watermark).';

-- autosummarize: a page range is summarized as soon as it fills, so the unsummarized tail that every scan
-- must read stays one range long. 32 pages (256 KiB) per range keeps the re-read around the watermark small.
create index events_stored_xid on cardinal.events using brin (stored_xid)
    with (pages_per_range = 32, autosummarize = on);

comment on index cardinal.events_stored_xid is
    'Finds the events stored since the last report-state fold (report_unfolded_events).';

-- The existing partitions' column and index need the comments too (partitions made later copy them with
-- LIKE … INCLUDING ALL, 0007).
do $partition_comments$
declare
    child record;
begin
    for child in
        select c.relname as partition_name
        from pg_catalog.pg_inherits as i
        join pg_catalog.pg_class as c on c.oid = i.inhrelid
        where i.inhparent = 'cardinal.events'::regclass
    loop
        execute format('comment on column cardinal.%I.stored_xid is %L', child.partition_name,
                       pg_catalog.col_description('cardinal.events'::regclass,
                                                  (select a.attnum from pg_catalog.pg_attribute as a
                                                   where a.attrelid = 'cardinal.events'::regclass
                                                     and a.attname = 'stored_xid')));
    end loop;
    for child in
        select c.relname as index_name
        from pg_catalog.pg_inherits as i
        join pg_catalog.pg_class as c on c.oid = i.inhrelid
        where i.inhparent = 'cardinal.events_stored_xid'::regclass
    loop
        execute format('comment on index cardinal.%I is %L', child.index_name,
                       pg_catalog.obj_description('cardinal.events_stored_xid'::regclass, 'pg_class'));
    end loop;
end
$partition_comments$;


create table cardinal.report_fold_watermark (
    folded_below bigint  not null,
    only_row     boolean not null default true primary key check (only_row)
);

alter table cardinal.report_fold_watermark owner to cardinal_owner;

comment on table cardinal.report_fold_watermark is
    'One row: how far the report-state fold has come in the transactions that stored events.';
comment on column cardinal.report_fold_watermark.folded_below is
    'Every event whose stored_xid is below this is folded into the report state (or re-queued in '
    'report_fold_queue); at or above it, an event is unfolded unless its stored_xid is in report_folded_xids.';
comment on column cardinal.report_fold_watermark.only_row is 'Always true: keeps the table to one row.';

-- Nothing stored so far has a stored_xid: the watermark starts at the current transaction.
insert into cardinal.report_fold_watermark (folded_below) values ((pg_current_xact_id()::text)::bigint);


create table cardinal.report_folded_xids (
    xid bigint primary key
);

alter table cardinal.report_folded_xids owner to cardinal_owner;

comment on table cardinal.report_folded_xids is
    'Transactions at or above report_fold_watermark.folded_below whose events are folded already: they '
    'committed before a fold while an older writer was still running. Pruned as the watermark passes them.';
comment on column cardinal.report_folded_xids.xid is 'events.stored_xid of the folded transaction.';


create function cardinal.report_unfolded_events()
    returns table (
        app_id          bigint,
        id              uuid,
        "time"          timestamptz,
        received_at     timestamptz,
        type            text,
        channel         text,
        campaign_id     text,
        canvas_id       text,
        canvas_step_id  text,
        variant_id      text,
        control         boolean,
        platform        text,
        sdk_version     text,
        app_version     text,
        test            boolean,
        user_key        text,
        session_id      text,
        message_id      text,
        conversion_name text,
        stored_xid      bigint
    )
    -- PL/pgSQL, not SQL: its plan is kept for the session (cardinald's fold connection, a report run),
    -- where a SQL function would plan the scan of every partition again on every call.
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
    -- See the design notes: only the BRIN bitmap scan is left to the planner. Turning the others off prices
    -- them at 1e10, which would otherwise make the plan compile with JIT (1.4 s measured, for no rows) and
    -- start parallel workers (20 ms); and the few remembered transactions are a hash, not a probe per row.
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
as $function$
begin
    return query
    select q.app_id, q.id, q.time, q.received_at, q.type, q.channel, q.campaign_id, q.canvas_id, q.canvas_step_id,
           q.variant_id, q.control, q.platform, q.sdk_version, q.app_version, q.test, q.user_key, q.session_id,
           q.message_id, q.conversion_name, null::bigint
    from cardinal.report_fold_queue as q
    union all
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test, e.user_key, e.session_id,
           e.message_id, e.conversion_name, e.stored_xid
    from cardinal.events as e
    where e.stored_xid >= (select w.folded_below from cardinal.report_fold_watermark as w)
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
end
$function$;

alter function cardinal.report_unfolded_events() owner to cardinal_owner;

comment on function cardinal.report_unfolded_events() is
    'The stored events not yet folded into the report state: the re-queued ones (report_fold_queue, '
    'stored_xid NULL) and those stored since the last fold (events past report_fold_watermark). The '
    'report_pending_* views aggregate them.';


-- The pending views of 0015, reading the unfolded events instead of the queue alone. Same columns, so their
-- comments and the views built on them stay.
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
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

comment on view cardinal.report_pending_user_facts is
    'The unfolded events (report_unfolded_events) as report_user_state rows, with the group''s columns '
    'instead of group_id: what the next fold adds.';


create or replace view cardinal.report_pending_daily_counts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform,
       q.sdk_version, q.app_version, q.test, local.day,
       count(*) filter (where q.type = 'impression' and not q.control) as impressions,
       count(*) filter (where q.type = 'click') as clicks,
       count(*) filter (where q.type = 'dismissal') as dismissals,
       count(*) filter (where q.type = 'send' and not q.control) as sends,
       count(*) filter (where q.type = 'impression' and q.control) as control_impressions,
       count(*) filter (where q.type = 'send' and q.control) as control_sends
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type <> 'conversion'
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

comment on view cardinal.report_pending_daily_counts is
    'The unfolded events as report_daily_counts rows, with the group''s columns instead of group_id.';


create or replace view cardinal.report_pending_session_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, q.session_id, local.day,
       count(*)::integer as impressions,
       array_agg(distinct q.message_id) filter (where q.message_id is not null) as message_ids
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type = 'impression' and q.session_id is not null
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

comment on view cardinal.report_pending_session_facts is
    'The unfolded impressions as report_session_state rows, with the group''s columns instead of group_id.';


create or replace view cardinal.report_pending_conversion_facts as
select app_id, user_key, conversion_name, test, array_agg(time) as times
from cardinal.report_unfolded_events()
where type = 'conversion'
group by app_id, user_key, conversion_name, test;

comment on view cardinal.report_pending_conversion_facts is
    'The unfolded conversions as report_conversion_state rows.';


-- What is waiting for the fold, for cardinald's metrics and `cardinal state status`.
create function cardinal.report_state_backlog(out events bigint, out oldest_received_at timestamptz)
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    select count(*), min(u.received_at) from cardinal.report_unfolded_events() as u;
$function$;

alter function cardinal.report_state_backlog() owner to cardinal_owner;

comment on function cardinal.report_state_backlog() is
    'How many stored events the report state has not folded yet, and when the oldest of them was received.';


-- The fold of 0015, reading the unfolded events and moving the watermark instead of emptying a copy of them.
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    -- The unfolded events are never analyzed (they live for a second), so the planner guesses their number;
    -- with the ten-column group key it guessed one row and chose a merge join that rescanned the groups 3 M
    -- times for 55 k facts. Hash joins are right at every size here.
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
declare
    -- Every transaction below it has ended (see the design notes).
    snapshot_xmin constant bigint := (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint;
    folded bigint;
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- Not waiting: the snapshot was taken before the lock, so a fold that waited would work from a state
    -- that the holder has since changed. (Even so a fold or requeue committed between the snapshot and the
    -- lock only makes this one fail with 40001 when it writes the rows the other wrote, never fold twice.)
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;

    select count(*) into folded from cardinal.report_unfolded_events();
    if folded = 0 then
        return 0;
    end if;

    insert into cardinal.report_groups
        (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version,
         test)
    select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
           app_version, test
    from cardinal.report_unfolded_events()
    where type <> 'conversion'
    order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict do nothing;

    -- A day set takes the new days only when it lacks one of them; see 0015's design notes.
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

    -- Last, while the unfolded events are still unfolded: the transactions at or above the new watermark
    -- whose events were just folded.
    insert into cardinal.report_folded_xids
    select distinct u.stored_xid
    from cardinal.report_unfolded_events() as u
    where u.stored_xid >= snapshot_xmin;
    delete from cardinal.report_folded_xids where xid < snapshot_xmin;
    update cardinal.report_fold_watermark set folded_below = greatest(folded_below, snapshot_xmin);
    delete from cardinal.report_fold_queue;
    return folded;
end
$function$;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many events it folded, or NULL when another fold or a requeue holds the state lock. Call it '
    'in a REPEATABLE READ transaction (it refuses any other); cardinald does every second. SQLSTATE 40001 '
    'means a requeue raced it: call again. For cardinal_owner and cardinal_ingest.';


-- The requeue of 0015, leaving alone the events the next fold takes anyway (those past the watermark).
create or replace function cardinal.requeue_report_state(app_id bigint, campaign text default null)
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := requeue_report_state.app_id;
    watermark  bigint;
    queued bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    select w.folded_below into watermark from cardinal.report_fold_watermark as w;
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
      and (campaign is null or e.campaign_id = campaign)
      -- Not the unfolded ones (report_unfolded_events): the next fold takes those from events anyway.
      and (e.stored_xid is null
           or e.stored_xid < watermark
           or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid));
    get diagnostics queued = row_count;
    select count(*) + queued into queued
    from cardinal.report_unfolded_events() as u
    where u.app_id = target_app
      and (campaign is null or u.campaign_id = campaign)
      and u.stored_xid is not null;
    return queued;
end
$function$;

comment on function cardinal.requeue_report_state(bigint, text) is
    'Drops the report state of one app (campaign NULL: every campaign, canvas step and conversion) or of '
    'one campaign, queues its stored events again (but those stored since the last fold, which the next '
    'fold takes anyway) and returns how many events the next fold_report_state() will fold for it. Reports '
    'are exact meanwhile (they count the unfolded events). For members of cardinal_owner.';


-- The writer's transaction no longer copies what it stored.
drop trigger events_queue_for_report_state on cardinal.events;
drop function cardinal.queue_for_report_state();

comment on table cardinal.report_fold_queue is
    'Re-queued events (requeue_report_state: a rebuild, a time zone change, a retention drop) not yet folded '
    'into the report state: the columns of cardinal.events the state is made of. Emptied by '
    'fold_report_state(). Events stored by ingest do not pass through it (report_fold_watermark).';


grant select on cardinal.report_fold_watermark, cardinal.report_folded_xids to cardinal_reader;
grant execute on function cardinal.report_unfolded_events(), cardinal.report_state_backlog() to cardinal_reader;
