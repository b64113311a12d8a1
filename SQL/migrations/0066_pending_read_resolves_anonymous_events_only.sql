-- 0066_pending_read_resolves_anonymous_events_only.sql — the pending read looks up the identity link of an
-- anonymous event only, not of every stored event (issues 8 and 9).
--
-- Design notes (why, not what):
--
-- * report_unfolded_events_full (0041) resolves each stored event's user key through identity_links, with
--   `e.user_id is null` in the join's ON clause: only an anonymous event can be re-keyed to the user its
--   device logged in as. A condition on the outer side of a LEFT JOIN cannot filter the outer rows, so it is
--   a join filter, checked after the inner side was read: with the planner settings of 0038 the join is a
--   nested loop of one bitmap probe of identity_links_pkey per stored event, and the probe's row is then
--   dropped for every event that carries a user id. In a fold of 56,300 ingest-bench events (each carries a
--   user id and a device id) on a state of 100,000 links, the snapshot took 0.60 of the fold's 5.3 s,
--   nearly all of it those 56,300 probes, and every one was dropped ("Rows Removed by Join Filter: 56300").
--
-- * A scalar subquery under `case when e.user_id is null` runs only for anonymous events, and gives what the
--   join gave: identity_links has one row per (app_id, device_id) at most (its primary key). Reports that
--   read the raw tail past the watermark (every report, between folds) read it through this function too.
--
-- * The queued half is unchanged: a queued event carries only its raw key, and its join is a hash join of
--   the queue with the merged links.

-- 0041's body, the stored half resolving anonymous events only.
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
