-- 0068_requeue_reads_queue_once.sql — re-keying and erasure take the folded events' day counts out with one
-- read of the queue, whatever the planner believes the queue holds (issues 8 and 9).
--
-- Design notes (why, not what):
--
-- * requeue_identity_state (0032, a fold's identity step) and erase_identity_of_0022 (0022) first subtract
--   what the affected keys' folded events added to report_daily_counts. "Folded" is "not in
--   report_fold_queue", a NOT EXISTS on (app_id, id, time). The queue has no index (it is written in bulk
--   and emptied by the fold), and it is usually empty, so the planner, estimating one event or one queued
--   row, made the anti join a nested loop that scans the whole queue once per event. With the queue empty
--   that costs nothing; with the queue holding rows, or only their dead pages, it is quadratic:
--     - fold_steps.sql's re-keyed fold (30,000 first logins of devices with 10 anonymous events each):
--       fold_identity_links took 11.3 s in a fresh copy of the database, and 175-222 s in the same copy
--       after one rolled-back fold had left 42 MB of dead queue rows (autovacuum not yet run): the
--       day-count statement alone passed 60 s, 250,000 seq scans of the queue. Most likely the "more than
--       12 minutes" fold of the 2026-12-03 notes, whose database had been through earlier folds.
--     - In production the queue holds rows exactly when it hurts most: during `cardinal state rebuild`
--       (millions queued, folded in parts), a first login re-keys a device and scans all of them for each
--       of the device's events; the rebuild also vacuums the emptied queue, so the next rebuild starts from
--       statistics that say the queue is empty.
--   The same statement also joined the events to report_groups with IS NOT DISTINCT FROM, which a hash
--   join cannot use: it hashed on (channel, test) and filtered the rest (3,500,000 rows removed by the join
--   filter for 250,000 events of 60 groups).
--
-- * subtract_folded_daily_counts is that statement once, for both callers, with the plan fixed: joins and
--   the anti join hashed (nested loops and merge joins off); the queue read once and hashed, restricted to
--   the affected keys (a queued row carries its event's user_key, a generated column of events, so an
--   event of the keys can only be queued under one of them); the groups joined on 0015's coalesce keys
--   ('' stands for NULL: 0005's CHECKs keep every key column non-empty); jit off (the 30,000-key statement
--   was compiled, 166 functions). It is a function of its own so that these settings do not reach the
--   callers' other statements, whose deletions fire triggers that rely on nested-loop index probes.
--
-- * The two callers' bodies are otherwise unchanged: the statement is replaced in place, as 0038 extended
--   their column lists, and the migration stops if a body does not read as expected.
--
-- * requeue_identity_state runs with jit off: its re-queue of 300,000 events of 30,000 keys was estimated at
--   a cost of 2.2 M (the key array), above jit_optimize_above_cost, and compiling it took 3.5 of its 4.2 s.
--   JIT changes no plan, so the setting is safe for the triggers its deletions fire. On the copy with dead
--   queue pages the re-keyed fold's identity step took 7.6 s with the function alone and 3.6-4.6 s with
--   jit off too (above: 175-222 s).

create function cardinal.subtract_folded_daily_counts(
    app_id             bigint,
    user_keys          text[],
    folded_below       bigint,
    out touched_groups bigint[],
    out day_counts     bigint
)
    language sql
    volatile
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with queued as (
        select q.id, q.time
        from cardinal.report_fold_queue as q
        where q.app_id = subtract_folded_daily_counts.app_id
          and q.user_key = any(subtract_folded_daily_counts.user_keys)
    ),
    -- The keys' events that a fold has counted: not queued again, nor stored past the watermark (0021).
    folded as (
        select e.*
        from cardinal.events as e
        where e.app_id = subtract_folded_daily_counts.app_id
          and e.user_key = any(subtract_folded_daily_counts.user_keys)
          and e.type <> 'conversion'
          and not exists (select from queued as q where q.id = e.id and q.time = e.time)
          and (e.stored_xid is null
               or e.stored_xid < subtract_folded_daily_counts.folded_below
               or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid))
    ),
    counted as (
        select g.group_id, local.day,
               count(*) filter (where f.type = 'impression' and not f.control) as impressions,
               count(*) filter (where f.type = 'click') as clicks,
               count(*) filter (where f.type = 'dismissal') as dismissals,
               count(*) filter (where f.type = 'send' and not f.control) as sends,
               count(*) filter (where f.type = 'impression' and f.control) as control_impressions,
               count(*) filter (where f.type = 'send' and f.control) as control_sends
        from folded as f
        join cardinal.apps as a on a.app_id = f.app_id
        left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
        cross join lateral (
            select (f.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        join cardinal.report_groups as g
            on g.app_id = f.app_id
                   and coalesce(g.campaign_id, '') = coalesce(f.campaign_id, '')
                   and coalesce(g.canvas_id, '') = coalesce(f.canvas_id, '')
                   and coalesce(g.canvas_step_id, '') = coalesce(f.canvas_step_id, '')
                   and coalesce(g.variant_id, '') = coalesce(f.variant_id, '')
                   and g.channel = f.channel
                   and coalesce(g.platform, '') = coalesce(f.platform, '')
                   and coalesce(g.sdk_version, '') = coalesce(f.sdk_version, '')
                   and coalesce(g.app_version, '') = coalesce(f.app_version, '')
                   and g.test = f.test
        group by g.group_id, local.day
    ),
    reduced as (
        update cardinal.report_daily_counts as c
        set impressions = c.impressions - x.impressions,
            clicks = c.clicks - x.clicks,
            dismissals = c.dismissals - x.dismissals,
            sends = c.sends - x.sends,
            control_impressions = c.control_impressions - x.control_impressions,
            control_sends = c.control_sends - x.control_sends
        from counted as x
        where c.group_id = x.group_id and c.day = x.day
          -- The touched groups' rows by the primary key: the hashed join would otherwise read every app's
          -- day counts for each re-key and erasure.
          and c.group_id = any(array(select t.group_id from counted as t))
        returning c.group_id
    )
    select array_agg(distinct group_id), count(*)
    from reduced;
$function$;

alter function cardinal.subtract_folded_daily_counts(bigint, text[], bigint) owner to cardinal_owner;

revoke execute on function cardinal.subtract_folded_daily_counts(bigint, text[], bigint) from public;

comment on function cardinal.subtract_folded_daily_counts(bigint, text[], bigint) is
    'Takes out of report_daily_counts what the folded events of some raw user keys (events.user_key) of one '
    'app added: every event of the keys but conversions, those queued in report_fold_queue and those stored '
    'past the watermark folded_below (report_fold_watermark) and not folded yet. Returns the groups whose '
    'day rows it changed and how many day rows. The first step of a re-key (requeue_identity_state) and of an '
    'erasure (erase_identity_of_0022); reads the queue once, with every join hashed (0068).';


-- The two callers call it in place of their own copy of the statement.
do $subtract_folded$
declare
    caller     record;
    definition text;
    statement  constant text := '\mwith folded as \(.*?\mfrom reduced;';
begin
    for caller in
        select *
        from (values
            ('cardinal.requeue_identity_state(bigint, text[])'::regprocedure,
             'select d.touched_groups, d.day_counts into touched, report_daily_counts '
             || 'from cardinal.subtract_folded_daily_counts(target_app, raw_keys, watermark) as d;'),
            ('cardinal.erase_identity_of_0022(bigint, text, text, boolean)'::regprocedure,
             'select d.touched_groups, d.day_counts into touched, audit.report_daily_counts '
             || 'from cardinal.subtract_folded_daily_counts(target_app, affected, watermark) as d;')
        ) as c (function, call)
    loop
        definition := pg_catalog.pg_get_functiondef(caller.function);
        if regexp_count(definition, statement) <> 1
           or regexp_count(definition, 'not exists \(select from cardinal\.report_fold_queue as q') <> 1 then
            raise exception '0068: % does not subtract the folded day counts the way this migration expects',
                caller.function;
        end if;
        execute regexp_replace(definition, statement, caller.call);
    end loop;
end
$subtract_folded$;

alter function cardinal.requeue_identity_state(bigint, text[]) set jit = off;
