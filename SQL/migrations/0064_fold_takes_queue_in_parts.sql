-- 0064_fold_takes_queue_in_parts.sql — a fold takes at most about a million queued events, a part of the users,
-- so that a rebuild folds in parts it can show progress of (issue 8).
--
-- Design notes (why, not what):
--
-- * `cardinal state rebuild` queues every event of the app again (requeue_report_state) and folded them in one
--   fold: at 10 M events one transaction of about an hour (3,481 s at 0055), whose steps hash and sort all the
--   queued events at once (spilling at the fold's work_mem of 64MB), and which said nothing until it ended.
--   A fold of the same seed at 1 M events took 110 s, 9 k events a second, three times the 10 M fold's rate.
--
-- * Any split of the pending events into successive folds gives the same state: a fold merges its events into
--   the folded rows of their keys, which is what every fold does with late events. So a fold now takes the
--   events stored past the watermark (all of them: the watermark advances past them at the end) and, when the
--   queue holds more than the budget (`cardinal.fold_queue_budget`, 1,000,000 events by default; a setting so
--   that tests can make it small), only the queued events of one part of the users: with the queue's n events
--   split into ceil(n / budget) parts by a hash of the user key, the part of some queued event (the first a
--   scan of the queue finds), so that a part is never empty. The rest stays queued, pending for the reports,
--   which stay exact (state plus pending events, as between any two folds); the next fold takes another part,
--   whoever calls it (the rebuild command, or cardinald's periodic fold, which both take the state lock in
--   turn).
--
-- * A part by users, not the first n rows: a user's queued events are merged with the user's folded rows once
--   per fold, so keeping them together keeps a part's merges as few as its users. The hash is of the key the
--   fold counts the event under (identity links resolved as report_unfolded_events_full resolves them, which
--   fold_identity_links has brought up to date in this transaction); a NULL key hashes as 0.
--
-- * Each part still reads the whole queue through report_unfolded_events_full and keeps its part: at 10 M
--   queued events in ten parts, 55 M rows read where one fold read 10 M.
--
-- * The queue is counted at each fold that finds it not empty (a sequential scan: a second at 10 M rows).
--   The queue is empty except after a rebuild, a time zone change or a retention drop, and then a count is
--   little beside the fold.
--
-- * At the end, the fold deletes from the queue the queued events its snapshot took, not the whole queue; the
--   snapshot holds their keys (app_id, id, time), so the delete is one hash join.

-- The part of the queue a user's events are folded in, when the queue is folded in `parts` parts.
create function cardinal.report_fold_part(user_key text, parts bigint)
    returns bigint
    language sql
    immutable
    parallel safe
-- No SET clause, so that the planner inlines it (a standard-SQL body resolves its names when created).
return (coalesce(hashtext(user_key), 0)::bigint & 2147483647) % parts;

alter function cardinal.report_fold_part(text, bigint) owner to cardinal_owner;

comment on function cardinal.report_fold_part(text, bigint) is
    'The part (0 to parts - 1) of a long report_fold_queue that the queued events of the user (the resolved user '
    'key) are folded in, when a fold takes the queue in parts (take_report_fold_snapshot, 0064).';

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
    taken bigint;
begin
    if exists (select from cardinal.report_fold_queue) then
        select count(*) into queued from cardinal.report_fold_queue;
        parts := greatest(1, ceil(queued::numeric / greatest(budget, 1)))::bigint;
    end if;
    if parts > 1 then
        select cardinal.report_fold_part(resolved.user_key, parts) into strict part
        from cardinal.report_fold_queue as q
        cross join lateral (
            select coalesce(
                       (select l.user_id
                        from cardinal.identity_links as l
                        where l.app_id = q.app_id
                          and q.user_key like 'device:%'
                          and l.device_id = substr(q.user_key, 8)
                          and l.merged),
                       q.user_key
                   ) as user_key
        ) as resolved
        limit 1;
    end if;
    -- ON COMMIT DROP: the snapshot never outlives the fold's transaction, even when the fold fails. A queued
    -- event has no stored_xid; a stored one always comes.
    create temporary table report_fold_events on commit drop as
    select *
    from cardinal.report_unfolded_events_full() as u
    where parts = 1
       or u.stored_xid is not null
       or cardinal.report_fold_part(u.user_key, parts) = part;
    get diagnostics taken = row_count;
    perform set_config('cardinal.report_fold_snapshot', 'taken', true);
    return taken;
end
$function$;

comment on function cardinal.take_report_fold_snapshot() is
    'Copies the pending events (report_unfolded_events_full) into the temporary table '
    'pg_temp.report_fold_events, which report_unfolded_events_full() and report_unfolded_events() return '
    'from then on in this transaction, and returns how many: every event stored past the watermark, and of a '
    'queue longer than cardinal.fold_queue_budget (1,000,000) the queued events of one part of the users '
    '(0064). Part of fold_report_state(), after fold_identity_links(); drop_report_fold_snapshot() ends it.';


-- The queued events this fold took leave the queue, the others stay.
do $user_state$
declare
    every_queued constant text := '    delete from cardinal.report_fold_queue;';
    those_taken constant text := $delete$
    -- Only the queued events of the fold's snapshot: a long queue is folded in parts (0064).
    delete from cardinal.report_fold_queue as q
    using pg_temp.report_fold_events as f
    where f.stored_xid is null
      and q.app_id = f.app_id
      and q.id = f.id
      and q.time = f.time;$delete$;
    definition text := pg_catalog.pg_get_functiondef('cardinal.fold_report_user_state()'::regprocedure);
begin
    if (length(definition) - length(replace(definition, every_queued, ''))) / length(every_queued) <> 1 then
        raise exception '0064: fold_report_user_state does not empty the queue the way this migration expects';
    end if;
    execute replace(definition, every_queued, ltrim(those_taken, E'\n'));
end
$user_state$;
