-- 0062_fold_skips_unchanged_rows.sql — the fold writes a state row only when its events change it, and reads the
-- folded rows it merges by key (issue 8).
--
-- Design notes (why, not what):
--
-- * A fold at 10 M events costs far more per event than on the ingest bench's young database: 16,000 events
--   copied from the bench's last week (times one second later, so that they are new events of the same users,
--   as a live stream mostly is) took 6.1–6.9 s of CPU to fold, 0.4 ms an event, where the ingest bench folds
--   16 k events a second. auto_explain of that fold: report_control_exposures 2.1 s and
--   report_campaign_receipts 1.9 s of 12 s (with per-node timing), most of each in the upsert itself: every
--   touched row was updated, 9,376 and 7,862 of them, although a later impression of a user already exposed
--   changes neither the first exposure nor the receipt. Each such update writes a new row version, an entry in
--   every index of the table (the changed columns are indexed or the page is full, so not HOT), and a row in
--   each counting trigger's transition tables, whose delta is then zero.
--
-- * The upserts of report_control_exposures and report_campaign_receipts replace whole rows, computed from the
--   folded row and the pending events: they now update only when the computed row differs from the stored
--   one. The counting triggers (0046, 0049, 0045) add new minus old, which is zero for such a row, so leaving
--   it out of the transition tables changes no count.
--
-- * report_user_state's upsert merges: day sets take the new days when they lack one, first times take the
--   earlier, click and dismissal times append. It now updates only when one of those changes something: a day
--   set lacks a new day, a first time is earlier, or the events have a click or dismissal time. Its one update
--   trigger (count_arm_day_users, 0055) counts new minus old too. report_row_user_days already skipped rows
--   so (0025); the per-session, per-part and daily counters add counts, so every touched row changes.
--
-- * fold_identity_links (0032) computed pending_identity_links() twice, once to re-key the old keys and once
--   to store the links, and the two calls find the same changes (re-queued events are not past the
--   watermark). Each call read the pending events with a user id again and probed identity_links twice per
--   event: 0.44–0.66 s each for the 16,000 events above, which changed no link. The step now computes them
--   once, into a temporary table it drops when done (a failed fold rolls its creation back).
--
-- * The folded exposures and receipts the pending events merge with were every row of every pending user (0040,
--   0043: 47,762 and 38,696 rows for the fold above, 0.5–0.6 s each); they are now the rows of the keys the
--   pending events touch, plus every row of a user only when the user has a pending conversion (see below).
--
-- * Measured with the bench's fold (`BENCH_SCENARIOS=reports make bench` prints it) in psql on the 10 M bench
--   state, the migration applied inside the rolled-back transaction, backend CPU from /proc, alternated with
--   the installed fold, a test suite and stress-ng loading the 2 cores: 7.5–8.0 s of CPU before; 5.7–6.2 s with
--   the upserts and the identity links changed; 5.3 s (three runs, against 5.5–6.1 alternately) with the folded
--   rows read by key too.
--
-- * The three small step functions are restated; fold_report_user_state's long body is rewritten in place (as
--   0042 did), and the migration stops if it does not read the way it expects.


-- 0049's fold step: the same upsert, which leaves rows that would not change alone.
create or replace function cardinal.fold_report_control_exposures()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- As 0040: hash joins whatever the estimates of the never-analyzed pending events.
    set enable_nestloop = off
    set jit = off
as $function$
begin
    insert into cardinal.report_control_exposures as r
    select * from cardinal.report_pending_control_exposures
    order by app_id, campaign_id, user_key
    on conflict (app_id, campaign_id, user_key) do update set
        exposed_at = excluded.exposed_at,
        control = excluded.control,
        variant_id = excluded.variant_id,
        second_arm_at = excluded.second_arm_at,
        second_arm_control = excluded.second_arm_control,
        second_arm_variant_id = excluded.second_arm_variant_id,
        conversion_event = excluded.conversion_event,
        converted_at = excluded.converted_at,
        further_converted_at = excluded.further_converted_at
    where (r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.second_arm_control, r.second_arm_variant_id,
           r.conversion_event, r.converted_at, r.further_converted_at)
          is distinct from
          (excluded.exposed_at, excluded.control, excluded.variant_id, excluded.second_arm_at,
           excluded.second_arm_control, excluded.second_arm_variant_id, excluded.conversion_event,
           excluded.converted_at, excluded.further_converted_at);
end
$function$;


-- 0045's fold step: the same upsert, which leaves rows that would not change alone.
create or replace function cardinal.fold_report_campaign_receipts()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- As 0043: hash joins whatever the estimates of the never-analyzed pending events.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
begin
    insert into cardinal.report_campaign_receipts as r
    select * from cardinal.report_pending_campaign_receipts
    order by app_id, campaign_id, variant_key, user_key
    on conflict (app_id, campaign_id, variant_key, user_key) do update set
        first_received_at = excluded.first_received_at,
        received_days = excluded.received_days,
        converted_at = excluded.converted_at,
        window_revenue = excluded.window_revenue
    where (r.first_received_at, r.received_days, r.converted_at, r.window_revenue)
          is distinct from
          (excluded.first_received_at, excluded.received_days, excluded.converted_at, excluded.window_revenue);
end
$function$;


-- 0032's first step of the fold, which computes the pending links once.
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
    -- linked to a previous user through them.
    perform cardinal.requeue_identity_state(c.app_id, c.old_keys)
    from (
        select p.app_id, array_agg(distinct p.previous_key) as old_keys
        from pg_temp.report_fold_identity_links as p
        where p.previous_key <> case when p.merged then p.user_id else 'device:' || p.device_id end
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


-- fold_report_user_state's merge of report_user_state, with a condition: a NULL day set or time among the
-- pending facts means the events have none, and a stored NULL means the row has none yet.
do $user_state$
declare
    merge_end constant text := '        dismissal_times = u.dismissal_times || excluded.dismissal_times;';
    condition constant text := $condition$
        dismissal_times = u.dismissal_times || excluded.dismissal_times
    -- Only when the events change the row (0062).
    where not (coalesce(excluded.impression_days <@ u.impression_days, excluded.impression_days is null)
               and coalesce(excluded.click_days <@ u.click_days, excluded.click_days is null)
               and coalesce(excluded.dismissal_days <@ u.dismissal_days, excluded.dismissal_days is null)
               and coalesce(excluded.send_days <@ u.send_days, excluded.send_days is null)
               and coalesce(excluded.control_impression_days <@ u.control_impression_days,
                            excluded.control_impression_days is null)
               and coalesce(excluded.control_send_days <@ u.control_send_days, excluded.control_send_days is null)
               and coalesce(excluded.first_impression_at >= u.first_impression_at,
                            excluded.first_impression_at is null)
               and coalesce(excluded.first_send_at >= u.first_send_at, excluded.first_send_at is null)
               and coalesce(excluded.first_control_impression_at >= u.first_control_impression_at,
                            excluded.first_control_impression_at is null)
               and coalesce(excluded.first_control_send_at >= u.first_control_send_at,
                            excluded.first_control_send_at is null)
               and excluded.click_times is null
               and excluded.dismissal_times is null);$condition$;
    definition text := pg_catalog.pg_get_functiondef('cardinal.fold_report_user_state()'::regprocedure);
begin
    if (length(definition) - length(replace(definition, merge_end, ''))) / length(merge_end) <> 1 then
        raise exception '0062: fold_report_user_state does not merge report_user_state the way this migration '
                        'expects';
    end if;
    execute replace(definition, merge_end, ltrim(condition, E'\n'));
end
$user_state$;


-- The folded rows the pending exposures and receipts merge with: by the primary key for the keys the pending
-- exposures and receipts touch, and every row of a user only for the users with a pending conversion (a
-- conversion can touch any campaign of its user). 0040's and 0043's views read every row of every pending user,
-- 38–48 thousand rows for the 16,000 events above, where 8–9 thousand are merged. The rows of one key are found
-- by a lateral probe of the primary key, kept a subquery (OFFSET 0) so that the planner cannot pull it up into a
-- hash join over every row: a nested loop whatever the settings and estimates. The views are
-- rewritten in place (as 0051 did), and the migration stops if one does not read the way it expects.
do $folded_rows$
declare
    view_name text;
    key_columns text;
    definition text;
    -- pg_get_viewdef's text of 0040's and 0043's condition on the folded rows.
    every_row_of_pending_users constant text := $old$
          WHERE ((r.app_id = ANY (ARRAY( SELECT DISTINCT p.app_id
                   FROM pending p))) AND (r.user_key = ANY (ARRAY( SELECT DISTINCT p.user_key
                   FROM pending p))))$old$;
begin
    for view_name, key_columns in
        values ('report_pending_control_exposures', 'app_id, campaign_id, user_key'),
               ('report_pending_campaign_receipts', 'app_id, campaign_id, variant_key, user_key')
    loop
        definition := pg_catalog.pg_get_viewdef(format('cardinal.%I', view_name)::regclass);
        if (length(definition) - length(replace(definition, every_row_of_pending_users, '')))
           / length(every_row_of_pending_users) <> 1 then
            raise exception '0062: % does not read its folded rows the way this migration expects', view_name;
        end if;
        execute format('create or replace view cardinal.%I as ', view_name) || replace(
            definition,
            every_row_of_pending_users,
            format($new$
          WHERE r.app_id = ANY (ARRAY( SELECT DISTINCT p.app_id FROM pending p WHERE p.type = 'conversion'))
            AND r.user_key = ANY (ARRAY( SELECT DISTINCT p.user_key FROM pending p WHERE p.type = 'conversion'))
        UNION
         SELECT r.*
           FROM ( SELECT DISTINCT %1$s FROM pending p WHERE p.type <> 'conversion') k
           CROSS JOIN LATERAL ( SELECT r.* FROM %2$s r WHERE (%3$s) = (%4$s) OFFSET 0) r$new$,
                   key_columns,
                   'cardinal.' || replace(view_name, 'pending_', ''),
                   regexp_replace(key_columns, '(\w+)', 'r.\1', 'g'),
                   regexp_replace(key_columns, '(\w+)', 'k.\1', 'g')));
    end loop;
end
$folded_rows$;
