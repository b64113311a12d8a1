-- 0078_rebuild_queues_pending_transactions.sql — a rebuild queues the events still waiting for the fold by
-- the watermark, so that the fold takes them in parts too (issue 8).
--
-- Design notes (why, not what):
--
-- * requeue_report_state (0063) queued an app's folded events and left the pending ones (stored past the
--   watermark) to the fold's pending read, which takes every pending event in one fold: only the queue is
--   folded in parts (0064, 0077). A bulk load is one transaction (or a few) that no fold has seen, so after
--   it all of its events are pending, and `cardinal state rebuild` was one fold of all of them. The 50 M
--   seed of the reports bench (one transaction, stored_xid 246507 past next_xid 246320): its first fold
--   wrote 38 GB of temporary files in 9 minutes, and was stopped with 17 GB of the disk left.
--
-- * Now the rebuild moves each pending transaction that stored events of the app (of the campaign) into the
--   queue: all of the transaction's events, every app's, since one writer batch holds several apps' events
--   and the pending read takes a transaction whole or not at all. The transaction goes into
--   report_folded_xids, which the pending read and every "folded or not" test already read (0021): at or
--   above folded_below, an event of a transaction in report_folded_xids is not pending, and counts as
--   folded unless it is queued. So each moved event is unfolded once (queued, no longer pending) until the
--   part of the queue that holds it is folded, and a fold prunes the transaction as the watermark passes it,
--   as any other. The other apps' and campaigns' moved events were pending, so they were in no state and
--   nowhere in the queue: queued, they are folded in parts like the rest.
--
-- * Logins are learned from pending events only (pending_identity_links, 0032 and 0065: a queued event has
--   no user_id or device_id), and a moved event is pending no more. So before moving anything the rebuild
--   runs the fold's identity step, fold_identity_links, on the pending events as they are (every app's,
--   the moved ones included): the links, and the re-keys they cause, that the next fold would have made.
--   That fold's own identity step finds them learned (learning a link again changes nothing, 0065). The
--   pending read looks only at the transactions in event_storing_xids (0061), so the moved ones are
--   recorded there first, as 0063 recorded every pending one: an insert that fired no trigger (the replica
--   role, a restore with --disable-triggers) recorded nothing. A time zone change and a retention drop
--   call requeue_report_state too, and now learn the pending logins as well.
--
-- * A fold reads everything from the snapshot its statement began with, then takes the state lock. A
--   rebuild that committed in between is invisible to it: it would fold a moved transaction from the
--   pending read while the queue holds it too. The rebuild therefore updates the watermark row (to the
--   same values), and the fold, once it holds the lock, locks that row: in REPEATABLE READ a row updated
--   after the snapshot cannot be locked, so the fold stops with a serialization failure before it folds
--   anything, and its caller folds again (cardinald's ReportStateFolder and `cardinal state` retry on one).
--   Without the lock the fold failed later and by chance: on the watermark's update (40001), or, while an
--   older transaction kept the moved one above the fold's xmin, on report_folded_xids' key (23505), which
--   no caller retries.
--
-- * A transaction is moved only when its events are visible, that is committed: a committed transaction's
--   rows are all visible or none, so nothing of it stays behind. One still running is left to the pending
--   read, as before. So is the rebuild's own transaction (a caller that stores events and rebuilds in one
--   transaction could store more after the rebuild): its transaction is recorded in event_storing_xids,
--   as 0063 recorded every pending one, for an insert that fired no trigger.
--
-- * Only requeue_report_state's body changes (arguments, return value and grants are 0021's), and
--   fold_report_state gains the lock, in place, as 0070 added its check. The comments of the watermark,
--   report_folded_xids and the queue say what they hold now.

create or replace function cardinal.requeue_report_state(app_id bigint, campaign text default null)
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := requeue_report_state.app_id;
    own_xid constant bigint := (pg_current_xact_id()::text)::bigint;
    horizon cardinal.report_fold_watermark;
    moved bigint[];
    queued bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    -- Written so that a fold whose snapshot predates this rebuild fails instead of committing (notes above).
    update cardinal.report_fold_watermark set next_xid = next_xid;
    select * into strict horizon from cardinal.report_fold_watermark;

    -- The committed transactions whose events of the app the pending read would take by the watermark
    -- (unfolded_stored_events' two conditions): below, the queue takes them over.
    select coalesce(array_agg(distinct e.stored_xid), '{}') into moved
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign)
      and e.stored_xid >= horizon.folded_below
      and (e.stored_xid >= horizon.next_xid or e.stored_xid = any(horizon.running_xids))
      and e.stored_xid <> own_xid
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    -- Their logins, while they are still pending: the fold learns links from pending events only, of the
    -- transactions recorded where the pending read looks (an insert that fired no trigger recorded none).
    if cardinality(moved) > 0 then
        insert into cardinal.event_storing_xids (xid)
        select unnest(moved)
        on conflict (xid) do nothing;
        perform cardinal.fold_identity_links();
    end if;

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

    -- From now on the queue holds the moved transactions' events, and the pending read skips them.
    insert into cardinal.report_folded_xids (xid)
    select unnest(moved);

    -- The rebuild's own events stay pending: recorded where the pending read looks, for an insert that fired
    -- no trigger (0063), as the moved transactions are above.
    insert into cardinal.event_storing_xids (xid)
    select own_xid
    where exists (select from cardinal.events as e where e.stored_xid = own_xid)
    on conflict (xid) do nothing;

    with unqueued as (
        delete from cardinal.report_fold_queue as q
        where q.app_id = target_app
          and (campaign is null or q.campaign_id = campaign)
    )
    insert into cardinal.report_fold_queue
        (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name,
         placement_id, button_id, value, currency)
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test, e.user_key, e.session_id,
           e.message_id, e.conversion_name, e.placement_id, e.button_id, e.value, e.currency
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign)
      -- Every event but those the pending read takes: the moved transactions' are in report_folded_xids now.
      and (e.stored_xid is null
           or e.stored_xid < horizon.folded_below
           or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
           or (e.stored_xid < horizon.next_xid and e.stored_xid <> all(horizon.running_xids)));
    get diagnostics queued = row_count;

    -- The moved transactions' other events, pending until now and so in no state and not queued.
    if cardinality(moved) > 0 then
        insert into cardinal.report_fold_queue
            (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
             control, platform, sdk_version, app_version, test, user_key, session_id, message_id,
             conversion_name, placement_id, button_id, value, currency)
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.session_id, e.message_id, e.conversion_name, e.placement_id, e.button_id, e.value,
               e.currency
        from cardinal.events as e
        where e.stored_xid = any(moved)
          and (e.app_id <> target_app or (campaign is not null and e.campaign_id is distinct from campaign));
    end if;

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
    'one campaign, queues its stored events again, with every event of the committed transactions that '
    'stored some of them and that no fold has taken yet (after learning the pending logins with '
    'fold_identity_links; those transactions then recorded in report_folded_xids, so that the next folds '
    'take them from the queue, in parts), and returns how many events the next fold_report_state() calls '
    'will fold for it. Its own transaction''s events stay pending. Updates report_fold_watermark, so that a '
    'fold whose snapshot began before it commits fails with a serialization failure (0078). Reports are '
    'exact meanwhile (they count the unfolded events). For members of cardinal_owner.';

comment on function cardinal.fold_report_state() is
    'Folds the unfolded events (report_unfolded_events) into the report state: every event stored past the '
    'watermark, and of the re-queued events (report_fold_queue) all of them or, when there are more than '
    'cardinal.fold_queue_budget, one part of the users (0064); advances the watermark and returns how many, '
    'or NULL when another fold holds the state lock. Learns identity links first (fold_identity_links, '
    '0032), then reads the pending events once (take_report_fold_snapshot, 0038) for every step, '
    'report_control_exposures (0040) and report_campaign_receipts (0043) among them, before the conversions '
    'reach report_conversion_value_state and report_conversion_state (0051), and records its snapshot''s '
    'horizon (next_xid, running_xids, 0041). Must run in a REPEATABLE READ transaction; fails with a '
    'serialization failure (40001: fold again) when a rebuild (requeue_report_state) committed after the '
    'transaction''s snapshot was taken (0078).';


-- fold_report_state locks the watermark row once it holds the state lock (notes above).
do $lock_watermark$
declare
    definition text := pg_catalog.pg_get_functiondef('cardinal.fold_report_state()'::regprocedure);
    anchor     constant text := '(    -- The links first: they may queue re-keyed events, which the snapshot must hold\.)';
begin
    if regexp_count(definition, anchor) <> 1 then
        raise exception '0078: fold_report_state does not read the way this migration expects';
    end if;
    execute regexp_replace(definition, anchor,
                           E'    -- A rebuild that committed after this fold''s snapshot: a serialization failure, now (0078).\n'
                           || E'    perform from cardinal.report_fold_watermark for no key update;\n\\1');
end
$lock_watermark$;

comment on column cardinal.report_fold_watermark.folded_below is
    'Every event whose stored_xid is below this is folded into the report state (or re-queued in '
    'report_fold_queue); at or above it, an event is unfolded unless its stored_xid is in report_folded_xids '
    '(then it is folded, or queued by a rebuild: 0078).';

comment on table cardinal.report_folded_xids is
    'Transactions at or above report_fold_watermark.folded_below whose events the pending read must not take: '
    'folded already (they committed before a fold while an older writer was still running), or moved into '
    'report_fold_queue whole by a rebuild (requeue_report_state, 0078). Pruned as the watermark passes them.';

comment on table cardinal.report_fold_queue is
    'Events waiting for the fold outside the pending read: the columns of cardinal.events the state is made '
    'of. requeue_report_state (a rebuild, a time zone change, a retention drop) queues folded events again '
    'and moves here the transactions no fold has taken yet (0078); a re-key of an identity '
    '(requeue_identity_state) queues folded events again. Emptied by fold_report_state(), in parts when '
    'long. Other stored events the fold reads from cardinal.events by report_fold_watermark.';
