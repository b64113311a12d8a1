-- 0077_fold_parts_by_user_hash_range.sql — a fold that takes a long queue in parts reads only its part's queued
-- events, by an index on a hash of their user key, and deletes them the same way (issue 8).
--
-- Design notes (why, not what):
--
-- * A rebuild over a folded state (`cardinal state rebuild` after a fix, a time zone change, a retention drop)
--   queues the app's events again, and a fold takes a queue longer than the budget (1,000,000) in parts
--   (0064). Each part read the whole queue through report_unfolded_events_full (every queued event's identity
--   lookup, every row into the function's tuplestore) to keep one part of the users, and deleted its events
--   with a hash join that scans the whole queue again: over a rebuild, n² / (2 × budget) rows read, 55 M at
--   10 M events and 1.25 G at 50 M. The queue has no index. On the 1 M seed with the state folded, requeued and
--   folded in parts of 100,000 (psql, each in a rolled-back transaction): 16.4 and 17.2 s for the first two
--   parts before, 14.1 and 14.0 s after.
-- * The parts are now ranges of a hash of the queued event's user key (report_fold_user_hash: 0 to 2^31 - 1,
--   cut into `parts` equal ranges), which an expression index on the queue reads one at a time; a part is the
--   range of the first queued event a scan finds, so it is never empty. The key is the queued one, not the
--   key its identity link resolves it to (0064 hashed the latter), because only the former can be indexed: a
--   merged device's queued events and its user's may now fold in different parts, which gives the same state
--   (0064: any split of the pending events into successive folds does; a fold merges its events into the
--   folded rows of their keys).
--
-- * report_unfolded_events_full takes the range (report_unfolded_events_full() is the whole range, for the
--   reports' pending read and a fold of a short queue); take_report_fold_snapshot keeps the part's range in
--   cardinal.report_fold_queue_part for the fold's delete, which now selects the queued rows by the index
--   before joining them to the snapshot.
--
-- * report_fold_part (0064) is no longer used and is dropped.


-- The hash of a queued event's user key that a long queue is folded in parts by: 0 to 2^31 - 1 (NULL as 0).
create function cardinal.report_fold_user_hash(user_key text)
    returns bigint
    language sql
    immutable
    parallel safe
-- No SET clause, so that the planner inlines it and matches the index's expression.
return coalesce(hashtext(user_key), 0)::bigint & 2147483647;

alter function cardinal.report_fold_user_hash(text) owner to cardinal_owner;

comment on function cardinal.report_fold_user_hash(text) is
    'The hash (0 to 2^31 - 1) of a queued event''s user key, as queued (not resolved through identity '
    'links): a fold of a queue longer than cardinal.fold_queue_budget takes the queued events of one range '
    'of it (take_report_fold_snapshot, 0077).';

create index report_fold_queue_user_hash on cardinal.report_fold_queue (cardinal.report_fold_user_hash(user_key));

comment on index cardinal.report_fold_queue_user_hash is
    'One part of a long queue, a range of report_fold_user_hash, for a fold''s snapshot and delete (0077).';


-- The pending events with the queued ones of one range of report_fold_user_hash, [queue_hash_from,
-- queue_hash_below): 0038's body as 0066 made it, the queue's read narrowed.
create function cardinal.report_unfolded_events_full(queue_hash_from bigint, queue_hash_below bigint)
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
        -- The queued events of one part only (0077), by the queue's index.
        where cardinal.report_fold_user_hash(q.user_key) >= report_unfolded_events_full.queue_hash_from
          and cardinal.report_fold_user_hash(q.user_key) < report_unfolded_events_full.queue_hash_below
        union all
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               -- CASE evaluates the lookup only when the event is anonymous.
               coalesce(case when e.user_id is null
                             then (select l.user_id
                                   from cardinal.identity_links as l
                                   where l.app_id = e.app_id and l.device_id = e.device_id and l.merged)
                        end,
                        e.user_key),
               e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from cardinal.unfolded_stored_events() as e
    ) as u;
end
$function$;

alter function cardinal.report_unfolded_events_full(bigint, bigint) owner to cardinal_owner;
grant execute on function cardinal.report_unfolded_events_full(bigint, bigint) to cardinal_reader;

comment on function cardinal.report_unfolded_events_full(bigint, bigint) is
    'report_unfolded_events_full() with only the queued events whose report_fold_user_hash is in '
    '[queue_hash_from, queue_hash_below) (0077): the read of one part of a long queue. Inside a report-state '
    'fold, after take_report_fold_snapshot(), the fold''s snapshot whatever the range.';

-- The whole range, so that the body is written once.
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
    language sql
    stable
-- No SET clause, so that the callers' plans inline it and call the ranged function directly.
as $function$
    select * from cardinal.report_unfolded_events_full(0, 2147483648);
$function$;


-- 0064's snapshot with the part a range of report_fold_user_hash, kept for the fold's delete.
create or replace function cardinal.take_report_fold_snapshot()
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    budget constant bigint := coalesce(nullif(current_setting('cardinal.fold_queue_budget', true), ''),
                                       '1000000')::bigint;
    queued bigint;
    parts bigint := 1;
    part bigint := 0;
    hash_from bigint := 0;
    hash_below bigint := 2147483648;
    taken bigint;
begin
    if exists (select from cardinal.report_fold_queue) then
        select count(*) into queued from cardinal.report_fold_queue;
        parts := greatest(1, ceil(queued::numeric / greatest(budget, 1)))::bigint;
    end if;
    if parts > 1 then
        -- The part of the first queued event a scan finds, and its range: the hashes h with
        -- floor(h * parts / 2^31) = part, so that the event's own hash is in it.
        select cardinal.report_fold_user_hash(q.user_key) * parts / 2147483648 into strict part
        from cardinal.report_fold_queue as q
        limit 1;
        hash_from := (part * 2147483648 + parts - 1) / parts;
        hash_below := ((part + 1) * 2147483648 + parts - 1) / parts;
    end if;
    perform set_config('cardinal.report_fold_queue_part', format('%s %s', hash_from, hash_below), true);
    -- ON COMMIT DROP: the snapshot never outlives the fold's transaction, even when the fold fails. A queued
    -- event has no stored_xid; a stored one always comes.
    create temporary table report_fold_events on commit drop as
    select * from cardinal.report_unfolded_events_full(hash_from, hash_below);
    get diagnostics taken = row_count;
    perform set_config('cardinal.report_fold_snapshot', 'taken', true);
    return taken;
end
$function$;

comment on function cardinal.take_report_fold_snapshot() is
    'Copies the pending events (report_unfolded_events_full) into the temporary table '
    'pg_temp.report_fold_events, which report_unfolded_events_full() and report_unfolded_events() return '
    'from then on in this transaction, and returns how many: every event stored past the watermark, and of a '
    'queue longer than cardinal.fold_queue_budget (1,000,000) the queued events of one range of their '
    'report_fold_user_hash (0077), kept in cardinal.report_fold_queue_part for the fold''s delete. Part of '
    'fold_report_state(), after fold_identity_links(); drop_report_fold_snapshot() ends it.';


-- The queued events this fold took leave the queue, found by the part's range first.
do $user_state$
declare
    by_snapshot constant text := $delete$
    delete from cardinal.report_fold_queue as q
    using pg_temp.report_fold_events as f
    where f.stored_xid is null
      and q.app_id = f.app_id
      and q.id = f.id
      and q.time = f.time;$delete$;
    by_range constant text := $delete$
    delete from cardinal.report_fold_queue as q
    using pg_temp.report_fold_events as f
    where f.stored_xid is null
      and q.app_id = f.app_id
      and q.id = f.id
      and q.time = f.time
      -- The part's range (take_report_fold_snapshot, 0077), by the queue's index.
      and cardinal.report_fold_user_hash(q.user_key)
          >= split_part(current_setting('cardinal.report_fold_queue_part'), ' ', 1)::bigint
      and cardinal.report_fold_user_hash(q.user_key)
          < split_part(current_setting('cardinal.report_fold_queue_part'), ' ', 2)::bigint;$delete$;
    definition text := pg_catalog.pg_get_functiondef('cardinal.fold_report_user_state()'::regprocedure);
begin
    if (length(definition) - length(replace(definition, by_snapshot, ''))) / length(by_snapshot) <> 1 then
        raise exception '0077: fold_report_user_state does not delete the queue the way this migration expects';
    end if;
    execute replace(definition, by_snapshot, by_range);
end
$user_state$;


drop function cardinal.report_fold_part(text, bigint);
