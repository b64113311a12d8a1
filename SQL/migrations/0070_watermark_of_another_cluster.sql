-- 0070_watermark_of_another_cluster.sql — a fold refuses a watermark ahead of this cluster's transaction ids (a
-- logical dump restored into another cluster), and one function puts it back on this cluster's ids (issue 8).
--
-- Design notes (why, not what):
--
-- * The watermark (0021) and each event's stored_xid count in the storing cluster's transaction ids. pg_dump
--   carries both over as data; a cluster the dump is restored into has ids of its own, usually far below the
--   old ones. Every event stored after such a restore then has a stored_xid below folded_below, so no fold
--   takes it (the pending read sees it as folded) until the new ids pass the old watermark, and `cardinal
--   state rebuild` folds only the events stored so far. Reproduced on a copy with the watermark moved a
--   million ids ahead: an event stored then was counted nowhere, silently. A physical backup (pg_basebackup,
--   point-in-time recovery) keeps the ids and is not concerned.
--
-- * In one cluster the watermark can never pass the next transaction id: it is made of ids that were handed
--   out (it may pass an older transaction still running, one that stored no event, so the oldest running one
--   is no bound: a first version of this check compared with it and stopped a fold in CI). So a watermark
--   above pg_snapshot_xmax(pg_current_snapshot()) means another cluster's ids, and the fold (cardinald's periodic
--   one, `cardinal state fold`, the rebuild's) now stops with an error that names the remedy, instead of
--   folding nothing while the state drifts from the events. cardinald folds only when the backlog read finds
--   something pending, which it never would here, so ReportStateStore.backlog() (cardinald's fold loop,
--   `cardinal state status`) calls the check first: the daemon logs the error every fold interval.
--
-- * The remedy, rebase_report_state_watermark(), marks every stored event as not pending by transaction
--   (stored_xid NULL, an update of every event that has one) and puts the watermark on this cluster's ids;
--   `cardinal state rebuild` of each app then queues every event again (0063 queues those the pending read
--   will not take). It refuses to run when the watermark is not ahead: on a healthy cluster it would hide the
--   pending events from the fold until a rebuild. Steps tried by hand on that copy before they were made a
--   function: afterwards every event was counted and new ones were folded.


-- Raises when the watermark counts in another cluster's transaction ids.
create function cardinal.check_report_fold_watermark()
    returns void
    language plpgsql
    stable
    -- cardinald's role calls it before each fold's backlog read, and may not read the watermark itself.
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    watermark bigint;
    next_id   bigint := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
begin
    select w.folded_below into strict watermark from cardinal.report_fold_watermark as w;
    if watermark > next_id then
        raise exception 'the report-state watermark (transaction %) is ahead of this cluster''s next transaction id (%)',
                watermark, next_id
            using errcode = 'object_not_in_prerequisite_state',
                  detail = 'The database was most likely restored from a logical dump into another cluster: no '
                           'event stored since would ever be folded.',
                  hint = 'Stop cardinald, run select cardinal.rebase_report_state_watermark(); as the owner, then '
                         'cardinal state rebuild --app A for each app (README, Report state).';
    end if;
end
$function$;

alter function cardinal.check_report_fold_watermark() owner to cardinal_owner;

-- Those who may read the backlog may ask: cardinald's role and the reader (0021's report_state_backlog).
revoke execute on function cardinal.check_report_fold_watermark() from public;
grant execute on function cardinal.check_report_fold_watermark() to cardinal_ingest, cardinal_reader;

comment on function cardinal.check_report_fold_watermark() is
    'Raises object_not_in_prerequisite_state when report_fold_watermark.folded_below is above the next '
    'transaction id, which one cluster never allows: the ids are another cluster''s (a logical dump '
    'restored here). fold_report_state() calls it first (0070).';


create function cardinal.rebase_report_state_watermark()
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    watermark bigint;
    oldest    bigint := pg_snapshot_xmin(pg_current_snapshot())::text::bigint;
    next_id   bigint := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
    cleared   bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    select w.folded_below into strict watermark from cardinal.report_fold_watermark as w;
    if watermark <= next_id then
        raise exception 'the report-state watermark (transaction %) is not ahead of this cluster''s next transaction id (%)',
                watermark, next_id
            using errcode = 'object_not_in_prerequisite_state',
                  hint = 'Nothing to rebase: this function is for a database restored from a logical dump into '
                         'another cluster.';
    end if;
    update cardinal.events set stored_xid = null where stored_xid is not null;
    get diagnostics cleared = row_count;
    update cardinal.report_fold_watermark
    set folded_below = oldest,
        next_xid = pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        running_xids = '{}';
    truncate cardinal.report_folded_xids, cardinal.event_storing_xids;
    return cleared;
end
$function$;

alter function cardinal.rebase_report_state_watermark() owner to cardinal_owner;

revoke execute on function cardinal.rebase_report_state_watermark() from public;

comment on function cardinal.rebase_report_state_watermark() is
    'After a logical dump was restored into another cluster (check_report_fold_watermark raises): marks every '
    'stored event as not pending by transaction (stored_xid NULL) and puts report_fold_watermark on this '
    'cluster''s ids; returns how many events it cleared. `cardinal state rebuild` of each app must follow, '
    'before cardinald runs again. Refuses when the watermark is not ahead (0070).';


-- fold_report_state checks the watermark once it holds the state lock.
do $check_watermark$
declare
    definition text := pg_catalog.pg_get_functiondef('cardinal.fold_report_state()'::regprocedure);
    anchor     constant text := '(    -- The links first: they may queue re-keyed events, which the snapshot must hold\.)';
begin
    if regexp_count(definition, anchor) <> 1 then
        raise exception '0070: fold_report_state does not read the way this migration expects';
    end if;
    execute regexp_replace(definition, anchor,
                           E'    -- Another cluster''s watermark would fold nothing, silently (0070).\n'
                           || E'    perform cardinal.check_report_fold_watermark();\n\\1');
end
$check_watermark$;
