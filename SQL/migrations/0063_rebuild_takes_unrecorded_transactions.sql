-- 0063_rebuild_takes_unrecorded_transactions.sql — a rebuild folds the events whose storing transaction the
-- trigger of 0061 did not record (issue 8).
--
-- Design notes (why, not what):
--
-- * 0061's pending read looks at the events partitions only when event_storing_xids holds a transaction past
--   the watermark, and a statement trigger on cardinal.events records each storing transaction there. An
--   insert that fires no trigger records nothing: under session_replication_role = replica (the bench's seed
--   used it; logical replication's apply worker runs so), or a data-only restore with --disable-triggers. Its
--   events are then never pending, the next fold's watermark passes their transaction, and
--   requeue_report_state (the rebuild command, the remedy after a restore) left them out too: it queued only
--   the events below folded_below or of report_folded_xids, and counted the rest as the next fold's. Found on
--   a fresh bench seed of 10 M events: `cardinal state rebuild` reported "0 events" and every report read an
--   empty state.
--
-- * The rebuild now splits the app's events by what the pending read will do with them, not by what a trigger
--   should have recorded:
--   - those the pending read would take by the watermark (past next_xid, or of a transaction running at the
--     last fold, and not folded) are left to the fold as before, and their transactions are recorded in
--     event_storing_xids, so that the read's test opens for them (ON CONFLICT: most are recorded already);
--   - every other event is queued again, including those of a transaction between folded_below and next_xid
--     that the last fold did not see and did not record as folded: the watermark has passed them, so only the
--     queue can bring them back. A transaction the trigger did record is in report_folded_xids once folded,
--     so nothing is queued twice.
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
    horizon cardinal.report_fold_watermark;
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

    -- The transactions whose events the pending read takes by the watermark (unfolded_stored_events' two
    -- conditions), recorded where its test looks: a trigger-less insert left them out.
    insert into cardinal.event_storing_xids (xid)
    select distinct e.stored_xid
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign)
      and e.stored_xid >= horizon.folded_below
      and (e.stored_xid >= horizon.next_xid or e.stored_xid = any(horizon.running_xids))
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
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
      -- Every event but those the pending read takes (above): the next fold folds those from events.
      and (e.stored_xid is null
           or e.stored_xid < horizon.folded_below
           or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
           or (e.stored_xid < horizon.next_xid and e.stored_xid <> all(horizon.running_xids)));
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
    'one campaign, queues its stored events again (but those the pending read takes past the watermark, '
    'which the next fold folds anyway, their transactions recorded in event_storing_xids even when no '
    'trigger did) and returns how many events the next fold_report_state() calls will fold for it. Reports '
    'are exact meanwhile (they count the unfolded events). For members of cardinal_owner.';
