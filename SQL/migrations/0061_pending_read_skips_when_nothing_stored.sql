-- 0061_pending_read_skips_when_nothing_stored.sql — a report in a new session no longer plans a read of every
-- events partition when no transaction has stored an event since the last fold (issue 8).
--
-- Design notes (why, not what):
--
-- * Profiled at 10 M events with the release CLI (a new process and session per run, as `make bench` times
--   it): unique_impressions and control_arms for one campaign spend most of their first call, not of their
--   execution. In psql, load 2–7: unique_impressions for c17 120–200 ms on a session's first call against
--   75–87 ms on later ones, control_arms for c38 170–185 against 72–87 ms. Of that first-call surplus,
--   unfolded_stored_events() alone took 40–70 ms (its first call in a session against 2–12 ms later): its
--   generic plan covers the 17 partitions of cardinal.events and their 6 indexes each, so a new session
--   builds about a hundred relation cache entries before it learns that nothing is pending, and each report
--   calls it two to four times (once per pending view it reads).
--
-- * Whether a transaction stored events is known when it stores them. A statement trigger on cardinal.events
--   records the storing transaction's id in event_storing_xids, in that transaction: the row commits, aborts
--   and becomes visible with the events, so a snapshot that sees an event sees its transaction's row, and an
--   event acknowledged before a report began is found by the report. The pending read now asks
--   event_storing_xids (a handful of rows by the primary key) whether some transaction past the watermark
--   stored events and is not folded, and reads the partitions only then; each of its two queries (the table's
--   tail, the transactions running at the last fold) is asked separately, so the running ones are not looked
--   up either when none of them stored an event (other sessions' open transactions that only read or write
--   elsewhere no longer cost a lookup per partition). The conditions of 0041 stay as they are: the test only
--   decides whether they are evaluated at all, so what the pending read returns is unchanged.
--
-- * A statement trigger, not a row trigger: it fires once per INSERT or COPY (ingest stores a batch with one
--   INSERT … SELECT from its staging table), so ingest pays one primary-key insert per batch, and ON CONFLICT
--   DO NOTHING keeps a transaction's second batch free. Every writer of events inserts through the
--   partitioned table (ingest, the tests, the bench seed); a statement trigger of a partitioned table does
--   not fire for an insert into a partition named directly, which nothing does.
--
-- * An UPDATE keeps an event's stored_xid (the column's default applies on insert only), so re-keying and
--   erasure store nothing pending and need no row; the re-queued events are in report_fold_queue, which is
--   read as before.
--
-- * The rows below report_fold_watermark.folded_below can never be pending (their transactions ended before
--   a fold's snapshot): a trigger on the watermark deletes them when a fold advances it, so
--   fold_report_state stays as it is and the table holds the transactions of about one fold interval.
--
-- * The migration creates the trigger before it backfills the transactions of the events pending now (read
--   by 0041's pending read, still in place at that point): CREATE TRIGGER takes a lock that waits for every
--   transaction writing cardinal.events and holds off new ones until this migration commits, so no storing
--   transaction falls between the backfill and the trigger.
--
-- * Under Citus (SQL/citus.sql) stored_xid stays NULL, so the rows recorded there never match an event: the
--   pending read returns nothing, as before.


create table cardinal.event_storing_xids (
    xid bigint primary key
);

alter table cardinal.event_storing_xids owner to cardinal_owner;

grant select on cardinal.event_storing_xids to cardinal_reader;

comment on table cardinal.event_storing_xids is
    'The transactions that stored events (inserted into cardinal.events) at or above '
    'report_fold_watermark.folded_below, one row each, written in the storing transaction by a statement '
    'trigger on cardinal.events: the pending read (unfolded_stored_events) reads the events partitions only '
    'when one of them is past the watermark and not folded. Pruned as the watermark passes them (0061).';
comment on column cardinal.event_storing_xids.xid is
    'The storing transaction''s id, as events.stored_xid holds it.';


-- Records the storing transaction; the owner's rights, so that the ingest role needs none on the table.
create function cardinal.record_event_storing_xid()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.event_storing_xids (xid)
    values ((pg_current_xact_id()::text)::bigint)
    on conflict (xid) do nothing;
    return null;
end
$function$;

alter function cardinal.record_event_storing_xid() owner to cardinal_owner;

-- It runs as cardinal_owner: only its trigger may call it.
revoke execute on function cardinal.record_event_storing_xid() from public;

comment on function cardinal.record_event_storing_xid() is
    'Statement trigger of cardinal.events: records the storing transaction in event_storing_xids, the same id '
    'events.stored_xid defaults to (0061).';

create trigger events_record_storing_xid
    after insert on cardinal.events
    for each statement
    execute function cardinal.record_event_storing_xid();

comment on trigger events_record_storing_xid on cardinal.events is
    'Records each storing transaction in event_storing_xids, so that a pending read knows whether to read '
    'the partitions (0061).';


-- Forgets the transactions a fold's watermark has passed.
create function cardinal.prune_event_storing_xids()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.event_storing_xids as s where s.xid < new.folded_below;
    return null;
end
$function$;

alter function cardinal.prune_event_storing_xids() owner to cardinal_owner;

-- It runs as cardinal_owner: only its trigger may call it.
revoke execute on function cardinal.prune_event_storing_xids() from public;

comment on function cardinal.prune_event_storing_xids() is
    'Row trigger of report_fold_watermark: deletes the rows of event_storing_xids below the new folded_below, '
    'whose events are folded (0061).';

create trigger report_fold_watermark_prunes_storing_xids
    after update of folded_below on cardinal.report_fold_watermark
    for each row
    when (new.folded_below > old.folded_below)
    execute function cardinal.prune_event_storing_xids();

comment on trigger report_fold_watermark_prunes_storing_xids on cardinal.report_fold_watermark is
    'Prunes event_storing_xids as a fold advances the watermark (0061).';


-- The transactions whose events are pending now, by 0041's read (the trigger above holds off new ones).
insert into cardinal.event_storing_xids (xid)
select distinct e.stored_xid
from cardinal.unfolded_stored_events() as e
where e.stored_xid is not null;


-- 0041's pending read, each query behind a test of event_storing_xids.
create or replace function cardinal.unfolded_stored_events()
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
        user_id         text,
        device_id       text,
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
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
    set plan_cache_mode = force_generic_plan
as $function$
declare
    horizon cardinal.report_fold_watermark;
begin
    select * into strict horizon from cardinal.report_fold_watermark;
    -- The transactions that began after the last fold: the tail of the table, if one of them stored events.
    if exists (
        select
        from cardinal.event_storing_xids as s
        where s.xid >= greatest(horizon.next_xid, horizon.folded_below)
          and not exists (select from cardinal.report_folded_xids as x where x.xid = s.xid)
    ) then
        return query
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.user_id, e.device_id, e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from cardinal.events as e
        where e.stored_xid >= greatest(horizon.next_xid, horizon.folded_below)
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    end if;
    -- Those that were running then, one lookup each, if one of them stored events: an old one's rows are
    -- wherever it wrote them.
    if exists (
        select
        from cardinal.event_storing_xids as s
        where s.xid = any(horizon.running_xids)
          and s.xid >= horizon.folded_below
          and s.xid < horizon.next_xid
          and not exists (select from cardinal.report_folded_xids as x where x.xid = s.xid)
    ) then
        return query
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.user_id, e.device_id, e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from unnest(horizon.running_xids) as running (xid)
        cross join lateral (
            select * from cardinal.events as s where s.stored_xid = running.xid
        ) as e
        where running.xid >= horizon.folded_below
          and running.xid < horizon.next_xid
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    end if;
end
$function$;

comment on function cardinal.unfolded_stored_events() is
    'The stored events not yet folded into the report state, as stored (user_key unresolved; the re-queued '
    'events are not here): those of the transactions at or above report_fold_watermark.next_xid, and of '
    'those in its running_xids, less report_folded_xids (0041). The partitions are read only when '
    'event_storing_xids holds such a transaction (0061). report_unfolded_events_full() and '
    'unfolded_identified_events() read them.';
