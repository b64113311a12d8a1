-- 0079_queue_read_finds_links_by_device.sql — the read of the fold queue finds a queued anonymous event's
-- identity link by its device id, so that its plan stays linear when the planner has no statistics (issue 8).
--
-- Design notes (why, not what):
--
-- * report_unfolded_events_full (0077) resolves a queued event's key through identity_links with
--   'device:' || l.device_id = q.user_key: an expression of the link, which no index of identity_links holds.
--   The function turns off nested loops, but also sequential scans, so a hash join's inner side costs as
--   much as a nested loop; with the queue's rows estimated at one (a queue filled in the same transaction, or
--   never analyzed) the planner takes the nested loop, whose inner side is every link of the app
--   (identity_links_pkey by app_id alone), once per queued event.
--
-- * 0078 made that the common case: a rebuild after a bulk load queues the load and learns its logins in one
--   transaction, then counts what the folds will take through this read. `make bench` at 200,000 events
--   (one transaction, 69,256 links) spent over 18 minutes in that count before it was stopped, where the
--   50 M run, whose tables had statistics, had taken a hash join.
--
-- * The join now compares the link's own columns with the queued key's parts: l.device_id = substr(user_key,
--   8) for a key that starts with 'device:', which identity_links_pkey (app_id, device_id) finds, one probe
--   per queued event whatever the estimate, and which a hash or merge join can take as well. The same
--   queue read in psql: over 120 s (stopped) before, 0.22 s after (a merge join).
--
-- * Only that condition changes, in place, as 0070 and 0078 edited fold_report_state; the other users of the
--   'device:' key (erase_identity, requeue_identity_state) look links up by user_id, which is indexed.

do $link_by_device$
declare
    definition text := pg_catalog.pg_get_functiondef(
        'cardinal.report_unfolded_events_full(bigint, bigint)'::regprocedure);
    old_join constant text := $join$on l.app_id = q.app_id and 'device:' || l.device_id = q.user_key and l.merged$join$;
begin
    if array_length(string_to_array(definition, old_join), 1) is distinct from 2 then
        raise exception '0079: report_unfolded_events_full does not read the way this migration expects';
    end if;
    execute replace(definition, old_join,
                    'on l.app_id = q.app_id and starts_with(q.user_key, ''device:'') '
                    || 'and l.device_id = substr(q.user_key, 8) and l.merged');
end
$link_by_device$;
