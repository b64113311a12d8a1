-- citus.sql — distributing Cardinal's schema (migrations 0001–0018) with Citus.
--
-- NOT applied by `cardinal migrate`: it is the scale-out plan of DESIGN.md, written as a script an operator
-- runs once, with psql as a superuser, on the Citus coordinator, after the migrations and while every
-- cardinald is stopped:
--
--     psql -v ON_ERROR_STOP=1 -f SQL/citus.sql "$CARDINAL_DATABASE_URL"
--
-- Not verified here: Citus is not packaged for the development machine. The statements follow the Citus
-- documentation for partitioned tables, reference tables and Citus-local tables (Citus 11 or later on
-- PostgreSQL 15); rehearse on a copy first.
--
-- THE TRADE-OFF. Events are distributed by user_key (the report identity), so that every report that
-- counts or joins per user — unique impressions (count distinct user_key), first impression per user and
-- campaign, the conversion join on (app_id, user_key, …) — runs shard-local and in parallel, and
-- count(distinct user_key) is pushed down exactly instead of being merged on the coordinator. Distributing
-- by app_id instead would keep the v1 primary key, but puts a whole app on one shard: the biggest app, the
-- one that needs scale-out, would get none, and per-user work would not parallelize within an app.
--
-- Citus requires the distribution column in every unique key of a distributed table, so the idempotency
-- key grows from (app_id, time, id) to (app_id, time, id, user_key). A retry is the same event from the same
-- user, so every retry is still caught; what is lost is only that an id reused for a DIFFERENT user of the
-- same app at the same time (a client bug) is stored twice instead of being reported as a duplicate.
-- v1 keeps the narrower key on a single server on purpose: it is the exact idempotency rule of the API,
-- its index is smaller (no text column in every entry of the largest index), and distributing the table
-- rewrites and re-indexes every row anyway, so widening the key at that moment costs nothing extra.
--
-- WHAT ELSE CHANGES for the software:
--   * cardinald must send user_key itself (the same rule: coalesce(user_id, 'device:' || device_id)),
--     because Citus routes each row by its distribution value on the coordinator, before the shard would
--     compute a generated column. A CHECK constraint keeps the rule enforced.
--   * ON CONFLICT DO NOTHING without a target keeps working; a writer that names the conflict target must
--     name (app_id, time, id, user_key), and cardinal_ingest then needs SELECT on user_key as well.
--   * Report SQL must join events to events on user_key (it already does: user_key is the identity) so
--     joins stay co-located.

\set ON_ERROR_STOP 1

create extension if not exists citus;

begin;

-- 1. user_key becomes a plain column that the writer fills. DROP EXPRESSION keeps the stored values.
alter table cardinal.events alter column user_key drop expression;
alter table cardinal.events alter column user_key set not null;
alter table cardinal.events
    add constraint events_user_key_rule check (user_key = coalesce(user_id, 'device:' || device_id));
comment on column cardinal.events.user_key is
    'Identity the reports count by: user_id when known, else ''device:'' || device_id. Sent by cardinald '
    '(checked by events_user_key_rule); the Citus distribution column.';

grant select (user_key) on cardinal.events to cardinal_ingest;

-- 2. The primary key gains the distribution column.
alter table cardinal.events drop constraint events_pkey;
alter table cardinal.events add constraint events_pkey primary key (app_id, time, id, user_key);
comment on index cardinal.events_pkey is
    'Idempotency key (ON CONFLICT DO NOTHING), widened by the distribution column user_key for Citus.';

commit;

-- 3. Functions used by CHECK constraints and triggers must exist on the workers before the tables that
--    use them are placed there.
select create_distributed_function('cardinal.is_valid_time_zone(text)');
select create_distributed_function('cardinal.touch_updated_at()');

-- 4. The small configuration tables become reference tables: a copy on every worker, so that joins with
--    events stay local. Foreign keys between reference tables are allowed. Referenced tables first.
select create_reference_table('cardinal.apps');
select create_reference_table('cardinal.ingest_keys');
select create_reference_table('cardinal.settings');
select create_reference_table('cardinal.campaign_settings');

-- 5. Events: the partitioned table and all its partitions are distributed together. 32 shards leave room
--    to add workers and rebalance without resharding.
--    The storing transactions that 0061's trigger records are numbered per worker too, and no event has a
--    stored_xid here: the pending read finds nothing by stored_xid whatever the record says, so the trigger goes
--    and event_storing_xids stays empty. Not yet run on Citus.
drop trigger events_record_storing_xid on cardinal.events;
select create_distributed_table('cardinal.events', 'user_key', shard_count := 32);

-- 6. Rejected events stay on the coordinator: few rows, read by app and time by humans, and distributing
--    would need app_id in their primary key. A Citus-local table can still be joined with reference tables.
select citus_add_local_table_to_metadata('cardinal.rejected_events');

-- 7. Partition maintenance needs no change: cardinal.ensure_event_partitions creates a plain table and
--    ATTACHes it, and Citus distributes a table attached to a distributed partitioned table;
--    drop_expired_event_partitions' DROP TABLE is propagated to the shards. Citus' own helpers are the
--    fallback if that ever fails (different partition names, e.g. events_p2027_01):
--        select create_time_partitions('cardinal.events', interval '1 month', now() + interval '2 months');
--        call drop_old_time_partitions('cardinal.events', now() - interval '400 days');

-- 8. The report state (0015). report_groups is small and joined by every report: a reference table. The
--    per-user tables are distributed by user_key and co-located with events, so that the fold (a
--    group-by per user) and each report's distinct counts run shard-local; their primary keys already
--    hold user_key (report_daily_counts has no user: it is per group and day, small, and becomes a
--    reference table too). The queue is distributed like events; fold_report_state() runs as a
--    distributed transaction on the coordinator.
--    Changed: the fold's watermark (0021) compares transaction ids, and each worker numbers its own
--    transactions, so it does not hold across nodes. Under Citus every stored event goes through the queue
--    again, as in 0015: stored_xid stays NULL (no default), so report_unfolded_events() reads the queue
--    alone, and a statement trigger copies what each INSERT stored into it (each shard appends locally).
--    The horizon of 0041 (next_xid, running_xids) then selects nothing, as the watermark did.
--    Not changed: the views and report functions, which only join on user_key and group columns.
--    The queue carries placement_id, button_id, value and currency since 0038, which the pending part and
--    conversion-value facts read instead of probing events by primary key (a query across shards per event
--    under Citus); the trigger below copies them.
--    Changed with 0038: the fold's snapshot of the pending events (take_report_fold_snapshot) is a temporary
--    table on the coordinator, so each step's INSERT … SELECT into a distributed state table reads it there
--    and Citus routes the rows to the shards (no longer shard-local): one read of the distributed queue per
--    fold instead of one per step.
-- report_groups references report_findings (0069), so that becomes a reference table first.
select create_reference_table('cardinal.report_findings');
select create_reference_table('cardinal.report_groups');
select create_reference_table('cardinal.report_daily_counts');
select create_distributed_table('cardinal.report_user_state', 'user_key', colocate_with := 'cardinal.events');
select create_distributed_table('cardinal.report_session_state', 'user_key', colocate_with := 'cardinal.events');
select create_distributed_table('cardinal.report_dismissal_state', 'user_key', colocate_with := 'cardinal.events');
-- anomalies_since_0027 (0056) reads report_session_state one finding group at a time through
-- report_session_rows_of (by group_id, which is not the distribution column): under Citus each call is a query
-- across every shard, one per finding group of the range. Changed: nothing; not yet run on Citus.
select create_distributed_table('cardinal.report_part_state', 'user_key', colocate_with := 'cardinal.events');
select create_distributed_table('cardinal.report_conversion_state', 'user_key', colocate_with := 'cardinal.events');
select create_distributed_table('cardinal.report_fold_queue', 'user_key', colocate_with := 'cardinal.events');
-- A re-key's and an erasure's day-count subtraction (0068, subtract_folded_daily_counts) reads the queued events
-- of the affected keys by user_key = any(...), which Citus prunes to those keys' shards. Changed: nothing.
-- The day pairs (0025): report_rows and the counts per row and day are small and read by every report, like
-- report_groups and report_daily_counts; each user's days per row are per user, like report_user_state.
-- Changed: nothing in the functions; the trigger that follows deletions of report_user_state runs on the
-- coordinator with its transition table, as the queue trigger below does per shard.
select create_reference_table('cardinal.report_rows');
select create_reference_table('cardinal.report_row_day_users');
select create_distributed_table('cardinal.report_row_user_days', 'user_key', colocate_with := 'cardinal.events');
-- The control report's rows (0040): one per user and campaign, so distributed like the per-user state, by
-- user_key and co-located with it (by app_id, one app's rows would all sit on one shard): a user's row sits
-- with the user's conversion state, which the fold looks converters up in. A report's index range over one
-- campaign then runs on every shard. Changed: nothing in the functions; the trigger that follows deletions of
-- report_user_state runs on the coordinator with its transition table, as 0025's does. Not yet run on Citus.
select create_distributed_table('cardinal.report_control_exposures', 'user_key', colocate_with := 'cardinal.events');
-- The control report's counts per day (0046): a few rows per campaign, arm and day, read per app and campaign
-- by every control report, so distributed by app_id (one app's counts on one shard). Changed: nothing in the
-- functions; the statement triggers on report_control_exposures run on the coordinator with their transition
-- tables, as 0040's does. Not yet run on Citus.
select create_distributed_table('cardinal.report_control_exposure_days', 'app_id');
-- The further conversion goals' counts (0049): the same key and an ordinal, read with those counts, so
-- distributed and co-located alike. Changed: nothing in the functions; the statement triggers on
-- report_control_exposures and campaign_conversion_events run on the coordinator with their transition tables,
-- as 0046's do. Not yet run on Citus.
select create_distributed_table('cardinal.report_control_goal_days', 'app_id', colocate_with := 'cardinal.report_control_exposure_days');
-- campaign_conversions' rows (0043): one per user, campaign and variant, distributed as the control report's
-- rows are and for the same reason (by user_key, not app_id: by app_id one app's rows would all sit on one
-- shard), next to the user's conversion state and conversion values, which the fold and the report probe by
-- primary key. Changed: nothing in the functions; the trigger that follows deletions of report_user_state runs
-- on the coordinator with its transition table, as 0040's does. Not yet run on Citus.
select create_distributed_table('cardinal.report_campaign_receipts', 'user_key', colocate_with := 'cardinal.events');
-- The counts campaign_conversions reads (0045): a few rows per app, campaign, variant and day, by app_id, so that
-- one app's counts sit on one shard and a report reads them there. Their statement triggers with transition
-- tables on report_campaign_receipts (distributed by user_key) would have to run on the coordinator, as the
-- deletion triggers do; not yet run on Citus.
select create_distributed_table('cardinal.report_campaign_receipt_days', 'app_id');
select create_distributed_table('cardinal.report_campaign_cohort_days', 'app_id', colocate_with := 'cardinal.report_campaign_receipt_days');
select create_distributed_table('cardinal.report_campaign_cohort_revenue', 'app_id', colocate_with := 'cardinal.report_campaign_receipt_days');
-- send_arms' day pairs (0055): each user's send days per campaign and arm are per user, like report_user_state, so
-- distributed by user_key and co-located with it (the triggers and send_arms find them by user key); the pairs are
-- a few hundred rows per campaign and arm, read per app and campaign, so by app_id. Changed: nothing in the
-- functions; the statement triggers on report_user_state run on the coordinator with their transition tables, as
-- 0025's does. Not yet run on Citus.
select create_distributed_table('cardinal.report_arm_user_days', 'user_key', colocate_with := 'cardinal.events');
select create_distributed_table('cardinal.report_arm_day_users', 'app_id');
-- The anomalies' counts (0069): the day pairs of finding groups and campaigns are a few rows per finding group
-- or campaign and day, read per app by every anomalies report, so reference tables like report_groups and
-- report_rows (report_findings is one too, above report_groups, which references it); the users of several arms
-- are a few per campaign, read by app, so distributed by app_id. The trigger reads the touched users'
-- report_user_state rows by user_key = any(...), which Citus prunes to their shards, and the cmin it compares is
-- per node: it would have to run on the coordinator with its transition tables, as 0055's does, and an upsert's
-- two halves would then have to be told apart another way. Changed: nothing in the functions. Not yet run on
-- Citus.
select create_reference_table('cardinal.report_finding_day_users');
select create_reference_table('cardinal.report_source_day_users');
select create_distributed_table('cardinal.report_several_arm_users', 'app_id');
-- The anomalies' interaction counts (0071): day pairs and per-day counts per finding group, like 0069's, so
-- reference tables; the users exposed to control who act are a few per campaign, read by app, so distributed by
-- app_id. The same trigger keeps them (above). Changed: nothing in the functions. Not yet run on Citus.
select create_reference_table('cardinal.report_interaction_day_users');
select create_reference_table('cardinal.report_interaction_day_events');
select create_distributed_table('cardinal.report_control_acting_users', 'app_id');
-- The session counts (0072): per finding group and day, so reference tables like 0069's; the users with a session
-- across days are a few per finding group, keyed by it, so a reference table too. The trigger on
-- report_session_state reads the touched users' rows by the primary key, which Citus would have to run on the
-- coordinator as 0069's. Changed: nothing in the functions. Not yet run on Citus.
select create_reference_table('cardinal.report_session_units');
select create_reference_table('cardinal.report_session_day_users');
select create_reference_table('cardinal.report_session_apart_users');
-- The step day counts (0072): a few rows per campaign step and day, read per app, so distributed by app_id. The
-- trigger on report_daily_counts reads its transition tables only.
select create_distributed_table('cardinal.report_step_daily_counts', 'app_id');
-- The dismissal counts (0074): day pairs and per-day dismissals per finding group, like 0072's, so reference
-- tables; the users who repeat a card are a few per finding group, keyed by it, so a reference table too. The
-- trigger on report_dismissal_state reads the touched users' rows by the primary key, which Citus would have to
-- run on the coordinator as 0069's. Changed: nothing in the functions. Not yet run on Citus.
select create_reference_table('cardinal.report_dismissal_day_users');
select create_reference_table('cardinal.report_dismissal_day_counts');
select create_reference_table('cardinal.report_dismissal_repeat_users');
-- The identity links (0032): one row per device that logged in, joined by device to every unfolded event, so a
-- reference table. NOT YET WORKING under Citus: the fold learns logins from the events past the watermark
-- (unfolded_identified_events), which stays empty here (stored_xid is NULL), and the queue carries no device_id.
-- Until the queue trigger below also records logins, a Citus installation keeps the links the migration made
-- from the events stored before it, and later anonymous events of new devices count as their devices.
select create_reference_table('cardinal.identity_links');

alter table cardinal.events alter column stored_xid drop default;

create function cardinal.queue_for_report_state()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.report_fold_queue
        (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name,
         placement_id, button_id, value, currency)
    select app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
           control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name,
           placement_id, button_id, value, currency
    from stored;
    return null;
end
$function$;

alter function cardinal.queue_for_report_state() owner to cardinal_owner;
revoke execute on function cardinal.queue_for_report_state() from public;
comment on function cardinal.queue_for_report_state() is
    'Under Citus only (SQL/citus.sql): queues the rows each INSERT stored for the report state.';

create trigger events_queue_for_report_state
    after insert on cardinal.events
    referencing new table as stored
    for each statement
    execute function cardinal.queue_for_report_state();

-- 9. Check: every table is known to Citus with the expected kind.
select logicalrelid, partmethod, colocationid
from pg_dist_partition
where logicalrelid::text like 'cardinal.%'
order by logicalrelid::text;
