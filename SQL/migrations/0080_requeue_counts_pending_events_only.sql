-- 0080_requeue_counts_pending_events_only.sql — a rebuild counts the events left to the pending read without
-- reading the queue it has just filled (issue 8).
--
-- Design notes (why, not what):
--
-- * requeue_report_state returns how many events the next folds will take for the app: the rows it queued,
--   plus its events still pending. 0078 counted the latter through report_unfolded_events(), keeping its rows
--   with a stored_xid: that read is the queue's (every queued event, each with its identity lookup) joined
--   to the pending events', so the rebuild read back everything it had just queued only to drop it: 50 M rows
--   at 50 M events, and before 0079 the quadratic plan on a fresh queue.
--
-- * Pending events are exactly the rows of unfolded_stored_events() (the second half of that read, whose
--   identity lookup a count does not need), so the count now reads them alone, the same number. At 200,000
--   queued events (the 200 k bench's rebuild, in psql): 482 ms before, 0.6 ms after; the queue's read grows
--   with the queue (by proportion about 2 minutes at 50 M; not measured there).
--
-- * Only that statement changes, in place, as 0078 and 0079 edited their functions.

do $count_pending$
declare
    definition text := pg_catalog.pg_get_functiondef('cardinal.requeue_report_state(bigint, text)'::regprocedure);
    old_count constant text := $old$
    from cardinal.report_unfolded_events() as u
    where u.app_id = target_app
      and (campaign is null or u.campaign_id = campaign)
      and u.stored_xid is not null;$old$;
begin
    if array_length(string_to_array(definition, old_count), 1) is distinct from 2 then
        raise exception '0080: requeue_report_state does not read the way this migration expects';
    end if;
    execute replace(definition, old_count, $new$
    from cardinal.unfolded_stored_events() as u
    where u.app_id = target_app
      and (campaign is null or u.campaign_id = campaign);$new$);
end
$count_pending$;
