-- 0041_fold_horizon.sql — a long writing transaction no longer makes every report and every fold re-read the
-- events stored since it began (issue 8).
--
-- Design notes (why, not what):
--
-- * The watermark of 0021 is the last fold's snapshot xmin: an event stored by a transaction at or above it
--   is unfolded unless that transaction is in report_folded_xids. While one writing transaction stays open
--   (a rebuild's requeue, a big erasure, a psql session left idle in a transaction after an UPDATE), the xmin
--   does not move, so each pending read (each fold, and each of the four report_*_facts views a report
--   reads) fetched every event stored since that transaction began and dropped nearly all of them in the
--   anti-join with report_folded_xids: measured last session at 0.75–1.1 s per view on 300 k events, and
--   growing with the ingest rate for as long as the transaction stays open.
--
-- * The last fold's snapshot says more than its xmin. Every transaction that had ended when it was taken
--   (below its xmax and not in its list of running transactions) was visible to the fold, so its events
--   are folded (or it aborted and stored nothing). An unfolded event therefore belongs to a transaction at
--   or above that xmax, or to one that was running then: the watermark row now keeps both
--   (next_xid, running_xids), and the pending read looks only there. Both are index lookups: the BRIN index
--   of 0021 serves "at or above next_xid" (the table's tail), and one equality lookup per running
--   transaction (BRIN has no `= any(array)`), of which there are at most as many as connections. The ranges of
--   an old running transaction hold only the rows it wrote itself.
--
-- * The old conditions stay (at or above folded_below, not in report_folded_xids): the new ones only narrow
--   which rows are fetched. So the migration starts with next_xid = folded_below and no running
--   transactions, which selects exactly what 0021's conditions select, and the first fold sets them. The
--   functions that ask whether one known event is folded (requeue, erasure, identity re-keying) keep 0021's
--   test, which stays true.
--
-- * One function (unfolded_stored_events) is now the only reader of the events past the watermark: before,
--   report_unfolded_events_full (0038) and unfolded_identified_events (0032) each spelled the conditions.
--   Both read it.
--
-- * Under Citus (SQL/citus.sql) stored_xid stays NULL and the queue carries everything: nothing changes.


alter table cardinal.report_fold_watermark
    add column next_xid     bigint,
    add column running_xids bigint[] not null default '{}';

update cardinal.report_fold_watermark set next_xid = folded_below;

alter table cardinal.report_fold_watermark alter column next_xid set not null;

comment on column cardinal.report_fold_watermark.next_xid is
    'The last fold''s snapshot xmax: a transaction at or above it began after that fold, so its events are '
    'unfolded (0041).';
comment on column cardinal.report_fold_watermark.running_xids is
    'The transactions running when the last fold took its snapshot (between folded_below and next_xid): the '
    'only ones below next_xid whose events can still be unfolded (0041).';


-- The events past the watermark, as stored (report_unfolded_events_full resolves identities and adds the
-- queue). PL/pgSQL with the settings of 0021, so that only the BRIN bitmap scans are left to the planner.
create function cardinal.unfolded_stored_events()
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
as $function$
declare
    horizon cardinal.report_fold_watermark;
begin
    select * into strict horizon from cardinal.report_fold_watermark;
    -- The transactions that began after the last fold: the tail of the table.
    return query
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
           e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
           e.user_key, e.user_id, e.device_id, e.session_id, e.message_id, e.conversion_name, e.stored_xid,
           e.placement_id, e.button_id, e.value, e.currency
    from cardinal.events as e
    where e.stored_xid >= greatest(horizon.next_xid, horizon.folded_below)
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    -- Those that were running then, one lookup each: an old one's rows are wherever it wrote them.
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
end
$function$;

alter function cardinal.unfolded_stored_events() owner to cardinal_owner;

grant execute on function cardinal.unfolded_stored_events() to cardinal_reader;

comment on function cardinal.unfolded_stored_events() is
    'The stored events not yet folded into the report state, as stored (user_key unresolved; the re-queued '
    'events are not here): those of the transactions at or above report_fold_watermark.next_xid, and of '
    'those in its running_xids, less report_folded_xids (0041). report_unfolded_events_full() and '
    'unfolded_identified_events() read them.';


-- 0038's body, with the stored half from unfolded_stored_events().
create or replace function cardinal.report_unfolded_events_full()
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
    -- 0038's settings, so that the queue and the identity links are read as before.
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
        from cardinal.unfolded_stored_events() as e
        left join cardinal.identity_links as l
            on l.app_id = e.app_id and l.device_id = e.device_id and e.user_id is null and l.merged
    ) as u;
end
$function$;


-- 0032's body, from unfolded_stored_events().
create or replace function cardinal.unfolded_identified_events()
    returns table (app_id bigint, device_id text, user_id text, "time" timestamptz, id uuid)
    language sql
    stable
    rows 100
as $function$
    select e.app_id, e.device_id, e.user_id, e.time, e.id
    from cardinal.unfolded_stored_events() as e
    where e.user_id is not null;
$function$;


-- 0040's fold, which now also records the horizon of its snapshot once the watermark has moved.
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
    -- Before the conversion state takes the pending conversions: the step adds them itself (0040).
    perform cardinal.fold_report_control_exposures();
    folded := cardinal.fold_report_user_state();
    perform cardinal.drop_report_fold_snapshot();
    -- What this fold could not see: the transactions that began after its snapshot, and those running
    -- then. A REPEATABLE READ transaction keeps one snapshot, so this is the one every step read.
    update cardinal.report_fold_watermark
    set next_xid = pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        running_xids = array(select x::text::bigint from pg_snapshot_xip(pg_current_snapshot()) as x order by 1);
    return folded;
end
$function$;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many, or NULL when another fold holds the state lock. Learns identity links first '
    '(fold_identity_links, 0032), then reads the pending events once (take_report_fold_snapshot, 0038) for '
    'every step, report_control_exposures (0040) among them, and records its snapshot''s horizon (next_xid, '
    'running_xids, 0041). Must run in a REPEATABLE READ transaction.';
