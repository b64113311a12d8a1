-- 0038_fold_reads_pending_once.sql — the report-state fold reads the pending events once (issue 8).
--
-- Design notes (why, not what):
--
-- * fold_report_state (0032) runs fold_identity_links and then six steps, and every step reads the pending
--   events through report_unfolded_events(), most of them two or three times (once to add the report groups
--   or rows, once per state table): 17 scans per fold of the events past the watermark (the BRIN bitmap
--   scan), of the re-queue table and of their join with identity_links, besides fold_identity_links' two. 0030 and 0031 also probed
--   cardinal.events by primary key, per pending conversion and per pending banner or in-app event, for the
--   columns report_unfolded_events() does not return. Measured on 50,000 new events whose logins re-keyed
--   300,000 more: 38.5 s, about 9 k events/s (README).
--
-- * Now the fold takes a snapshot of the pending events once, after fold_identity_links (which may re-key
--   devices and queue their events again, so the snapshot must follow it), into a temporary table of the
--   fold's transaction (take_report_fold_snapshot), and report_unfolded_events() returns that table while
--   it exists. The steps, the pending views they read and their plans stay as they were; each scan of the
--   pending events becomes a sequential read of one temporary table. Inside the fold the snapshot is what
--   every step read anyway: the fold's REPEATABLE READ snapshot does not move, and no step before the last
--   writes the queue, the watermark, the folded transactions or the links. The last step
--   (fold_report_user_state) moves the watermark and empties the queue at its very end, after its last read;
--   then fold_report_state drops the snapshot, so that whatever runs later in the same transaction sees the
--   pending events as they are. Outside a fold nothing changes: reports and psql read the stored events.
--
-- * The snapshot is found by a transaction-local setting (cardinal.report_fold_snapshot), not by the table's
--   existence: the snapshot is filled from report_unfolded_events_full() itself, which must then read the
--   stored events, not the table being filled. A session that sets the setting by hand only misleads itself
--   (its own reports), or fails when it has no such table; the fold creates the table, so a table made
--   beforehand in the fold's session makes the fold fail rather than fold it.
--
-- * The snapshot carries placement_id, button_id, value and currency too, so report_pending_part_facts
--   (0031) and report_unfolded_conversion_values (0030) read them from the pending events instead of
--   probing cardinal.events per event. For that the re-queue table carries them as well: the three
--   functions that fill it (requeue_report_state, 0022's erasure, requeue_identity_state) read each event's
--   row anyway. report_unfolded_events() keeps its columns (its result type is what the pending views and
--   the reports' unfolded tail are built on); report_unfolded_events_full() is the wider source, and
--   report_unfolded_events() is now a SQL function over it, which the planner inlines into the views, so
--   the rows are not copied twice.
--
-- * No statistics are needed: the table is only read whole, inside report_unfolded_events_full(), whose
--   result the callers' planner estimates as before (the function's fixed row estimate). No step's plan
--   depends on how many rows the snapshot holds.
--
-- * The table lives in the fold session's temporary schema, created by the fold's owner (fold_report_state
--   is SECURITY DEFINER), which therefore needs TEMPORARY on the database: PUBLIC has it by default, hardened
--   clusters revoke it (as 0008 says for cardinal_ingest).


do $grant$
begin
    execute format('grant temporary on database %I to cardinal_owner', current_database());
end
$grant$;


alter table cardinal.report_fold_queue
    add column placement_id text,
    add column button_id    text,
    add column value        numeric,
    add column currency     text;

comment on column cardinal.report_fold_queue.placement_id is 'events.placement_id of the queued event (0038).';
comment on column cardinal.report_fold_queue.button_id is 'events.button_id of the queued event (0038).';
comment on column cardinal.report_fold_queue.value is 'events.value of the queued event (0038).';
comment on column cardinal.report_fold_queue.currency is 'events.currency of the queued event (0038).';

-- The rows queued before this migration: the same columns from their events, once.
update cardinal.report_fold_queue as q
set placement_id = e.placement_id, button_id = e.button_id, value = e.value, currency = e.currency
from cardinal.events as e
where e.app_id = q.app_id and e.time = q.time and e.id = q.id;


-- The functions that queue events again copy the four columns too. Their bodies are long and otherwise
-- unchanged, so the column lists are extended in place (as 0032 requalified the reference functions), and
-- the migration stops if a body does not read as expected.
do $queue_columns$
declare
    requeuer   regprocedure;
    definition text;
begin
    foreach requeuer in array array[
        'cardinal.requeue_report_state(bigint, text)'::regprocedure,
        'cardinal.erase_identity_of_0022(bigint, text, text, boolean)'::regprocedure,
        'cardinal.requeue_identity_state(bigint, text[])'::regprocedure
    ]
    loop
        definition := pg_catalog.pg_get_functiondef(requeuer);
        if regexp_count(definition, '\mconversion_name\)\s+select\M') <> 1
           or regexp_count(definition, '\me\.conversion_name\s+from cardinal\.events as e\M') <> 1 then
            raise exception '0038: % does not fill report_fold_queue the way this migration expects', requeuer;
        end if;
        definition := regexp_replace(definition, '\mconversion_name\)(\s+select)\M',
                                     'conversion_name, placement_id, button_id, value, currency)\1');
        definition := regexp_replace(definition, '\me\.conversion_name(\s+from cardinal\.events as e)\M',
                                     'e.conversion_name, e.placement_id, e.button_id, e.value, e.currency\1');
        execute definition;
    end loop;
end
$queue_columns$;


-- The pending events with every column a fold step reads: the fold's snapshot while it has one, else 0032's
-- report_unfolded_events with the four columns of parts and values.
create function cardinal.report_unfolded_events_full()
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
        stored_xid      bigint,
        placement_id    text,
        button_id       text,
        value           numeric,
        currency        text
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
    -- The settings of 0021: only the BRIN bitmap scan is left to the planner (the snapshot, a sequential
    -- read, has no other path).
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
as $function$
begin
    if current_setting('cardinal.report_fold_snapshot', true) = 'taken' then
        return query select * from pg_temp.report_fold_events;
        return;
    end if;
    return query
    select u.app_id, u.id, u.time, u.received_at,
           case when u.type = 'session_start' then 'conversion' else u.type end,
           u.channel, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.control, u.platform,
           u.sdk_version, u.app_version, u.test, u.user_key, u.session_id, u.message_id,
           case when u.type = 'session_start' then cardinal.session_start_state_name() else u.conversion_name end,
           u.stored_xid, u.placement_id, u.button_id, u.value, u.currency
    from (
        -- A queued event carries only the raw key: an anonymous one is 'device:' || device_id.
        select q.app_id, q.id, q.time, q.received_at, q.type, q.channel, q.campaign_id, q.canvas_id,
               q.canvas_step_id, q.variant_id, q.control, q.platform, q.sdk_version, q.app_version, q.test,
               coalesce(l.user_id, q.user_key) as user_key, q.session_id, q.message_id, q.conversion_name,
               null::bigint as stored_xid, q.placement_id, q.button_id, q.value, q.currency
        from cardinal.report_fold_queue as q
        left join cardinal.identity_links as l
            on l.app_id = q.app_id and 'device:' || l.device_id = q.user_key and l.merged
        union all
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               coalesce(l.user_id, e.user_key), e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from cardinal.events as e
        left join cardinal.identity_links as l
            on l.app_id = e.app_id and l.device_id = e.device_id and e.user_id is null and l.merged
        where e.stored_xid >= (select w.folded_below from cardinal.report_fold_watermark as w)
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
    ) as u;
end
$function$;

alter function cardinal.report_unfolded_events_full() owner to cardinal_owner;

grant execute on function cardinal.report_unfolded_events_full() to cardinal_reader;

comment on function cardinal.report_unfolded_events_full() is
    'report_unfolded_events() with the pending events'' placement_id, button_id, value and currency (0038). '
    'Inside a report-state fold, after take_report_fold_snapshot(), the fold''s snapshot of them '
    '(pg_temp.report_fold_events); otherwise the stored events not yet folded.';


-- 0032's columns, from the full function. SQL without SET clauses, so the planner inlines it into the pending
-- views and the reports: the planner settings it had are the full function's.
create or replace function cardinal.report_unfolded_events()
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
    language sql
    stable
as $function$
    select f.app_id, f.id, f.time, f.received_at, f.type, f.channel, f.campaign_id, f.canvas_id, f.canvas_step_id,
           f.variant_id, f.control, f.platform, f.sdk_version, f.app_version, f.test, f.user_key, f.session_id,
           f.message_id, f.conversion_name, f.stored_xid
    from cardinal.report_unfolded_events_full() as f;
$function$;

comment on function cardinal.report_unfolded_events() is
    'The stored events not yet folded into the report state: the re-queued ones (report_fold_queue, '
    'stored_xid NULL) and those stored since the last fold (events past report_fold_watermark), with '
    'user_key resolved through identity_links (0032): an anonymous event of a device with a merged link '
    'counts as its user. A session_start is returned as a conversion named session_start_state_name() '
    '(0029). Inside a report-state fold, the fold''s snapshot of them (0038). The report_pending_* views '
    'aggregate them.';


create function cardinal.take_report_fold_snapshot()
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    taken bigint;
begin
    -- ON COMMIT DROP: the snapshot never outlives the fold's transaction, even when the fold fails.
    create temporary table report_fold_events on commit drop as
    select * from cardinal.report_unfolded_events_full();
    get diagnostics taken = row_count;
    perform set_config('cardinal.report_fold_snapshot', 'taken', true);
    return taken;
end
$function$;

alter function cardinal.take_report_fold_snapshot() owner to cardinal_owner;

revoke execute on function cardinal.take_report_fold_snapshot() from public;

comment on function cardinal.take_report_fold_snapshot() is
    'Copies the pending events (report_unfolded_events_full) into the temporary table '
    'pg_temp.report_fold_events, which report_unfolded_events_full() and report_unfolded_events() return '
    'from then on in this transaction, and returns how many. Part of fold_report_state(), after '
    'fold_identity_links(); drop_report_fold_snapshot() ends it.';


create function cardinal.drop_report_fold_snapshot()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform set_config('cardinal.report_fold_snapshot', '', true);
    drop table if exists pg_temp.report_fold_events;
end
$function$;

alter function cardinal.drop_report_fold_snapshot() owner to cardinal_owner;

revoke execute on function cardinal.drop_report_fold_snapshot() from public;

comment on function cardinal.drop_report_fold_snapshot() is
    'Ends the fold''s snapshot of the pending events (take_report_fold_snapshot): report_unfolded_events() '
    'reads the stored events again. Part of fold_report_state(), after its last step.';


-- 0030's values without the probe of cardinal.events: the pending events carry value and currency. A
-- session start (a conversion here, 0029) never has a value (0005's CHECK).
create or replace function cardinal.report_unfolded_conversion_values()
    returns table (
        app_id          bigint,
        user_key        text,
        conversion_name text,
        test            boolean,
        "time"          timestamptz,
        id              uuid,
        value           numeric,
        currency        text
    )
    language sql
    stable
as $function$
    select u.app_id, u.user_key, u.conversion_name, u.test, u.time, u.id, u.value, coalesce(u.currency, 'XXX')
    from cardinal.report_unfolded_events_full() as u
    where u.type = 'conversion' and u.value is not null;
$function$;

comment on function cardinal.report_unfolded_conversion_values() is
    'The unfolded conversions (report_unfolded_events_full) that have a value, with the value and currency '
    '(''XXX'' when none). report_pending_conversion_value_facts aggregates them.';


-- 0031's view with the part from the pending event's own columns instead of a probe of cardinal.events. Same
-- columns, so the view's comments and report_part_facts stay.
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
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

comment on view cardinal.report_pending_part_facts is
    'The unfolded events (report_unfolded_events_full) as report_part_state rows, with the group''s columns: '
    'what the next fold adds.';


-- 0032's fold_report_state (and 0025's work_mem, which CREATE OR REPLACE would otherwise drop), its steps
-- reading one snapshot of the pending events.
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set work_mem = '64MB'
as $function$
declare
    folded bigint;
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- The same lock fold_report_user_state takes again (advisory locks nest within a transaction).
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;
    -- The links first: they may queue re-keyed events, which the snapshot must hold.
    perform cardinal.fold_identity_links();
    perform cardinal.take_report_fold_snapshot();
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    perform cardinal.fold_report_conversion_values();
    perform cardinal.fold_report_parts();
    folded := cardinal.fold_report_user_state();
    perform cardinal.drop_report_fold_snapshot();
    return folded;
end
$function$;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many, or NULL when another fold holds the state lock. Learns identity links first '
    '(fold_identity_links, 0032), then reads the pending events once (take_report_fold_snapshot, 0038) for '
    'every step. Must run in a REPEATABLE READ transaction.';
