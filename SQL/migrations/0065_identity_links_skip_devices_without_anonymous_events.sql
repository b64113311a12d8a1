-- 0065_identity_links_skip_devices_without_anonymous_events.sql — the fold's first step learns a batch of new
-- logins without re-keying devices that never sent an anonymous event, and asks whether each login's user is new
-- in one query (issues 8 and 9).
--
-- Design notes (why, not what):
--
-- * The fold's first step (fold_identity_links, 0032 and 0062) dominated every fold of a young app: in a fold of
--   103,700 events from the ingest bench (100,000 users, each event carrying both a user id and a device id, so
--   53,400 first logins), it took 11.1 of 19.1 s. The rest of the fold, every other step together, took 8 s.
--   cardinald folds every 5 s, and at half the ingest peak that fold ran without pause on one of the 2 cores:
--   the fold backend used 80 % of a core, the two writers' backends 76 %, the daemon 27 %, so the half-peak
--   ack tail (issue 9) was measured on a machine with no core to spare.
--
-- * 6.6 s of it was requeue_identity_state for the 53,400 old keys `device:` || device_id. A first login of a
--   device whose user is new merges the device's anonymous history into the user, so the device's old key is
--   re-keyed: its state is forgotten and its folded events queued again. But none of those devices had sent
--   an anonymous event, so there was no state and no event to move, and finding that out took one probe of
--   events_user_key_idx per partition and key, twice (the folded events to subtract from the day counts, and
--   the events to queue again), plus the state deletions by key. State under a device's own key is folded
--   from that device's anonymous events alone, and every event stays in `events` as long as state counts it
--   (erasure and retention delete both), so a device's own key whose app holds no event of that key has no
--   state: it is left out, after one probe per key. The key of a previously linked user is always
--   re-keyed, as before.
--
-- * 3.0 s was pending_identity_links calling identity_is_new once per login: a SQL function with its own
--   `search_path` is never inlined, so each call set up its executor state again, 56 µs a call. The same
--   `not exists` written into the query takes 1.1 s for the 53,400 logins, the same rows. identity_is_new stays
--   for first_logins (the backfill of 0032 and erasure), which call it once per device.
--
-- * Measured in psql on that fold, inside a rolled-back transaction: 19.1 s through 0064, 9.3 s with this
--   migration; the identity step 11.1 → 2.2 s with auto_explain. The identity links, the per-user state, and
--   unique_impressions, anomalies and control_arms for the whole app came out the same (md5 of each).

-- pending_identity_links (0032) with identity_is_new's probe inlined.
create or replace function cardinal.pending_identity_links()
    returns table (
        app_id       bigint,
        device_id    text,
        user_id      text,
        linked_at    timestamptz,
        event_id     uuid,
        merged       boolean,
        previous_key text
    )
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    with seen as materialized (
        select * from cardinal.unfolded_identified_events()
    ),
    logins as (
        select distinct on (s.app_id, s.device_id) s.app_id, s.device_id, s.user_id, s.time, s.id
        from seen as s
        where s.device_id is not null
        order by s.app_id, s.device_id, s.time, s.id
    ),
    -- A device linked for the first time, or by an earlier login. Merged: the user has no event before the
    -- login (identity_is_new's rule, through user_key so that events_user_key_idx serves it).
    relinked as (
        select n.app_id, n.device_id, n.user_id, n.time as linked_at, n.id as event_id,
               not exists (select
                           from cardinal.events as e
                           where e.app_id = n.app_id and e.user_key = n.user_id and e.user_id = n.user_id
                             and e.time < n.time) as merged,
               case when l.merged then l.user_id else 'device:' || n.device_id end as previous_key
        from logins as n
        left join cardinal.identity_links as l on l.app_id = n.app_id and l.device_id = n.device_id
        where l.app_id is null or (n.time, n.id) < (l.linked_at, l.event_id)
    ),
    -- A merged link whose user has an event before the login: the user existed, nothing merges.
    existed as (
        select distinct l.app_id, l.device_id, l.user_id, l.linked_at, l.event_id, false, l.user_id
        from seen as s
        join cardinal.identity_links as l on l.app_id = s.app_id and l.user_id = s.user_id
        where l.merged and s.time < l.linked_at
          and not exists (select from relinked as r where r.app_id = l.app_id and r.device_id = l.device_id)
    )
    select * from relinked
    union all
    select * from existed;
$function$;


-- 0062's fold_identity_links, re-keying only the old keys that can have state.
create or replace function cardinal.fold_identity_links()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    create temporary table report_fold_identity_links as
    select * from cardinal.pending_identity_links();
    -- The old keys' state first, while the links are as they were: requeue_identity_state finds the devices
    -- linked to a previous user through them. A device's own key has state only when the app holds an
    -- anonymous event of the device (see the notes of 0065).
    perform cardinal.requeue_identity_state(c.app_id, c.old_keys)
    from (
        select p.app_id, array_agg(distinct p.previous_key) as old_keys
        from pg_temp.report_fold_identity_links as p
        where p.previous_key <> case when p.merged then p.user_id else 'device:' || p.device_id end
          and (p.previous_key <> 'device:' || p.device_id
               or exists (select
                          from cardinal.events as e
                          where e.app_id = p.app_id and e.user_key = p.previous_key))
        group by p.app_id
        order by p.app_id
    ) as c;

    insert into cardinal.identity_links as l (app_id, device_id, user_id, linked_at, event_id, merged)
    select p.app_id, p.device_id, p.user_id, p.linked_at, p.event_id, p.merged
    from pg_temp.report_fold_identity_links as p
    order by p.app_id, p.device_id
    on conflict (app_id, device_id) do update set
        user_id = excluded.user_id, linked_at = excluded.linked_at, event_id = excluded.event_id,
        merged = excluded.merged;
    drop table pg_temp.report_fold_identity_links;
end
$function$;
