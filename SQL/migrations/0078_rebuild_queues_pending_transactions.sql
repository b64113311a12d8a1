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
--   report_folded_xids, which is what the pending read and every "folded or not" test already read
--   (0021): at or above folded_below, an event of a transaction in report_folded_xids is not pending, and
--   is folded unless queued. So each moved event is unfolded once (queued, no longer pending) until the
--   part of the queue that holds it is folded, and the fold prunes the transaction as the watermark passes
--   it, as for any other. The other apps' and campaigns' moved events were pending, so they were in no
--   state and nowhere in the queue: queuing them changes no report.
--
-- * A transaction is moved only when its events are visible, that is committed: a committed transaction's
--   rows are all visible or none, so nothing of it stays behind. One still running is left to the pending
--   read, as before. So is the rebuild's own transaction (a caller that stores events and rebuilds in one
--   transaction could store more after the rebuild): its transaction is recorded in event_storing_xids,
--   as 0063 recorded every pending one, for an insert that fired no trigger.
--
-- * Only the body changes: arguments, return value and grants are 0021's.

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
    select * into strict horizon from cardinal.report_fold_watermark;
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

    -- The committed transactions whose events of the app the pending read would take by the watermark
    -- (unfolded_stored_events' two conditions): from now on the queue holds them, and they count as folded
    -- for the pending read.
    select coalesce(array_agg(distinct e.stored_xid), '{}') into moved
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign)
      and e.stored_xid >= horizon.folded_below
      and (e.stored_xid >= horizon.next_xid or e.stored_xid = any(horizon.running_xids))
      and e.stored_xid <> own_xid
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    insert into cardinal.report_folded_xids (xid)
    select unnest(moved);

    -- The rebuild's own events stay pending: recorded where the pending read looks, for an insert that fired
    -- no trigger (0063).
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
    'stored some of them past the watermark (those transactions recorded in report_folded_xids, so that the '
    'next folds take them from the queue, in parts), and returns how many events the next '
    'fold_report_state() calls will fold for it. Reports are exact meanwhile (they count the unfolded '
    'events). For members of cardinal_owner.';
