-- 0043_campaign_receipts.sql — campaign_conversions reads one row per recipient of the campaign it reports,
-- kept by the fold (issue 8).
--
-- Design notes (why, not what):
--
-- * campaign_conversions (0030) derived each recipient from report_user_state, every report group of every
--   campaign of the app (a scan of 4.1 M rows hashed to one campaign's groups at 10 M events, then an unnest,
--   sort and group of their days), and joined the cohort to every conversion of the app
--   (report_conversion_facts ∪ report_conversion_value_facts, 821 k rows unnested): 3.8 s for one campaign,
--   50 s for all. What a recipient contributes to any range and window is a few values that do not depend on
--   the report's arguments: the first receipt of the campaign × variant, the days of receipt, and per
--   conversion goal the first conversion at or after that first receipt. report_campaign_receipts keeps them
--   per app × campaign × variant × user (0040 did the same for control_arms), so that a report reads one
--   campaign's recipients by index range and looks the revenue of its converters up by primary key.
--
-- * Why these values suffice. unique_recipients is the sum over recipients of their receipt days in the range.
--   A recipient is in the cohort when its first receipt is in the range, and converted within the window w
--   exactly when the first conversion at or after the first receipt is at most first receipt + w: so the window
--   (DST makes "+ 3 days" depend on the session's zone) is applied when the report runs, as before. Revenue is
--   of every conversion in the window, not only the first, so it is looked up per converter, at report time.
--
-- * Merge, not recompute: a new receipt can only move the first receipt earlier and add days, so a row is the
--   merge of its old row with the pending events, and the same merge (report_pending_campaign_receipts) is
--   what a report puts in place of the folded row of a user the pending events touch: reports stay exact and
--   fresh (0015, 0021, 0025). The conversions are looked up again for every touched row (the folded
--   conversion state by primary key, plus the pending conversions), not merged: an earlier receipt can make
--   an older conversion count.
--   The fold step reads the pending events through report_unfolded_events(), which inside a fold is the fold's
--   snapshot (0038): the fold reads the stored events no more often than before.
--
-- * Deletions follow report_user_state (0025's rule, as 0040): its rows are only ever deleted whole per user
--   and campaign (erasure, re-keying, requeue of a campaign or an app, a time zone change, retention), and
--   the events are queued again. A trigger deletes the same users' rows of the campaign here; the next fold
--   merges them anew. So none of those paths, nor `cardinal state rebuild` (a requeue), needs code of its own.
--
-- * The goals are the campaign's conversion events (campaign_conversion_goals, ordinals 1..4). When they
--   change, triggers recompute the campaign's converted_at from the folded conversion state, under the state
--   lock (0040's recompute_control_conversions), so the fold never interleaves; the pending conversions are
--   the pending view's, which looks them up under the goals of the moment.
--
-- * Scope: non-test receipts. include_test (a user's test and non-test receipts merged into one first
--   receipt) keeps 0030's body, renamed campaign_conversions_from_user_state; campaign_conversions picks.
--
-- * No requeue: the migration fills the table from the folded state (report_user_state with report_groups for
--   the receipts, report_conversion_state for the conversions), under the state lock. The events not folded
--   yet are in none of those and are exactly what the next fold merges in (and what reports merge meanwhile),
--   so the backfill equals what a refold would make — without the refold (28 min at 10 M events).
--
-- * No plan hinges on a row estimate: the touched users' folded rows are found through `= any(array(...))`
--   index conditions, conversions and values by one primary-key probe per row (a subquery, not a join the
--   planner picks), and the rest is hashed (enable_nestloop and jit off, as 0039 and 0040).
--
-- * Measured in psql on 300 k events of scripts/bench/seed_reports.sql (108 k rows here, 50 campaigns with a
--   goal each), folded and analyzed, `set jit = off; set work_mem = '64MB'`, load average 1.7–2.1; before =
--   0030's body (campaign_conversions_from_user_state with include_test false), after = campaign_conversions,
--   same rows: one campaign (the largest, c17) 107–159 ms before, 36–40 ms after; all campaigns 1.36–1.51 s
--   before, 0.49–0.57 s after. With c17's 10,868 events requeued (all pending): one campaign 0.50–0.56 s
--   before, 0.29–0.38 s after (the pending view merges every touched row of the app, then keeps the
--   campaign's); all 1.51–1.77 s before, 0.62–0.64 s after. The fold step: 6.2 s of a fold of the 300 k events
--   (0040's step 6.0 s in the same transaction); the fold 43.0–43.5 s without it, 41.9–50.5 s with it (load
--   2.3–3). The fill: 5–7 s, equal row for row to what the refold made. All campaigns still read every
--   recipient of the app; counts per campaign, variant and receipt day would be the next step.


create table cardinal.report_campaign_receipts (
    app_id            bigint        not null,
    campaign_id       text          not null,
    variant_key       text          not null,
    user_key          text          not null,
    first_received_at timestamptz   not null,
    received_days     date[]        not null,
    converted_at      timestamptz[] not null,

    constraint report_campaign_receipts_pkey primary key (app_id, campaign_id, variant_key, user_key),
    constraint report_campaign_receipts_four_goals check (cardinality(converted_at) = 4)
);

-- The primary key serves one campaign's rows (its (app_id, campaign_id) prefix); this one the touched users.
create index report_campaign_receipts_user_idx on cardinal.report_campaign_receipts (app_id, user_key);

comment on index cardinal.report_campaign_receipts_user_idx is
    'The rows of the users that pending events touch, whatever their campaign (report_pending_campaign_receipts).';

alter table cardinal.report_campaign_receipts owner to cardinal_owner;

comment on table cardinal.report_campaign_receipts is
    'Report state of campaign_conversions (0043): per app, campaign, variant and user that received it '
    '(non-test, non-control; an impression for content cards and in-app messages, a send otherwise), the '
    'first receipt, the report days of receipt and per conversion goal the first conversion at or after the '
    'first receipt. Kept by the fold; campaign_conversions reads it.';
comment on column cardinal.report_campaign_receipts.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_campaign_receipts.campaign_id is 'The campaign.';
comment on column cardinal.report_campaign_receipts.variant_key is
    'The variant of the receipts, '''' for none (coalesce(variant_id, ''''), so that it can be in the key).';
comment on column cardinal.report_campaign_receipts.user_key is 'The user (resolved user key, 0032).';
comment on column cardinal.report_campaign_receipts.first_received_at is
    'Time of the user''s first receipt of the campaign × variant, any channel.';
comment on column cardinal.report_campaign_receipts.received_days is
    'Report days (campaign''s report time zone) with a receipt, any channel: sorted, distinct.';
comment on column cardinal.report_campaign_receipts.converted_at is
    'Per conversion goal ordinal 1..4 (campaign_conversion_goals), the time of the user''s first non-test '
    'conversion of that goal''s event at or after first_received_at; NULL when none or no such goal.';


create view cardinal.campaign_conversion_goal_events as
select g.app_id, g.campaign_id,
       array[min(g.conversion_event) filter (where g.ordinal = 1),
             min(g.conversion_event) filter (where g.ordinal = 2),
             min(g.conversion_event) filter (where g.ordinal = 3),
             min(g.conversion_event) filter (where g.ordinal = 4)] as conversion_events
from cardinal.campaign_conversion_goals as g
group by g.app_id, g.campaign_id;

alter view cardinal.campaign_conversion_goal_events owner to cardinal_owner;

comment on view cardinal.campaign_conversion_goal_events is
    'Per campaign with conversion goals, their events in one array indexed by ordinal (NULL where the '
    'campaign has no goal of that ordinal): the positions of report_campaign_receipts.converted_at.';
comment on column cardinal.campaign_conversion_goal_events.app_id is 'The app the campaign belongs to.';
comment on column cardinal.campaign_conversion_goal_events.campaign_id is 'The campaign.';
comment on column cardinal.campaign_conversion_goal_events.conversion_events is
    'Element k: the conversion event of ordinal k (campaign_conversion_goals), NULL when none.';


-- One campaign's converted_at looked up again in the folded conversion state: after a change of its goals
-- (trigger below) and by the migration's fill. One primary-key probe per row and goal, as subqueries of one
-- statement: a helper function per row (a SQL function with subqueries is never inlined) cost 75 µs a row.
create function cardinal.refresh_campaign_receipt_conversions(app bigint, campaign text)
    returns void
    language sql
    set search_path = pg_catalog, pg_temp
as $function$
    update cardinal.report_campaign_receipts as r
    set converted_at = array(
        -- No probe for a missing goal (most campaigns have fewer than four).
        select case when g.event is not null then (
                   select min(t.time)
                   from cardinal.report_conversion_state as v
                   cross join lateral unnest(v.times) as t (time)
                   where v.app_id = r.app_id and v.user_key = r.user_key and v.conversion_name = g.event
                     and not v.test and t.time >= r.first_received_at
               ) end
        from unnest(x.conversion_events) with ordinality as g (event, ordinal)
        order by g.ordinal
    )
    from (
        select coalesce((select ge.conversion_events
                         from cardinal.campaign_conversion_goal_events as ge
                         where ge.app_id = refresh_campaign_receipt_conversions.app
                           and ge.campaign_id = refresh_campaign_receipt_conversions.campaign),
                        array[null, null, null, null]::text[]) as conversion_events
    ) as x
    where r.app_id = refresh_campaign_receipt_conversions.app
      and r.campaign_id = refresh_campaign_receipt_conversions.campaign;
$function$;

alter function cardinal.refresh_campaign_receipt_conversions(bigint, text) owner to cardinal_owner;

revoke execute on function cardinal.refresh_campaign_receipt_conversions(bigint, text) from public;

comment on function cardinal.refresh_campaign_receipt_conversions(bigint, text) is
    'Sets converted_at of the campaign''s report_campaign_receipts rows from the folded conversion state '
    '(report_conversion_state) and the campaign''s goals of the moment (campaign_conversion_goal_events). '
    'The pending conversions are the pending view''s. For the goals'' trigger and 0043''s fill; the caller '
    'holds the state lock.';


-- What folding the pending events makes of the rows they touch: the users with a pending receipt of a
-- campaign, and those with a pending conversion of one of their campaign's goal events.
create view cardinal.report_pending_campaign_receipts as
with pending as materialized (
    select e.app_id, e.campaign_id, coalesce(e.variant_id, '') as variant_key, e.user_key, e.type, e.time,
           e.conversion_name,
           -- The report day as report_pending_user_facts computes it (the campaign's zone, else the app's).
           (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
    from cardinal.report_unfolded_events() as e
    join cardinal.apps as a on a.app_id = e.app_id
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    where not e.test
      and (e.type = 'conversion'
           or (e.campaign_id is not null
               and not e.control
               and e.type = case when e.channel in ('content_card', 'in_app_message') then 'impression'
                                 else 'send' end))
),
-- The folded rows of the pending users, by index whatever their number.
folded as materialized (
    select r.*
    from cardinal.report_campaign_receipts as r
    where r.app_id = any(array(select distinct p.app_id from pending as p))
      and r.user_key = any(array(select distinct p.user_key from pending as p))
),
pending_receipts as (
    select app_id, campaign_id, variant_key, user_key, min(time) as first_at, array_agg(day) as days
    from pending
    where type <> 'conversion'
    group by 1, 2, 3, 4
),
-- Each pending user's conversions, as two aligned arrays (names[i] made at times[i]).
pending_conversions as materialized (
    select app_id, user_key, array_agg(conversion_name) as names, array_agg(time) as times
    from pending
    where type = 'conversion'
    group by 1, 2
),
touched as (
    select app_id, campaign_id, variant_key, user_key from pending_receipts
    union
    select f.app_id, f.campaign_id, f.variant_key, f.user_key
    from folded as f
    join cardinal.campaign_conversion_goals as g on g.app_id = f.app_id and g.campaign_id = f.campaign_id
    join (select distinct app_id, user_key, conversion_name from pending where type = 'conversion') as c
        on c.app_id = f.app_id and c.user_key = f.user_key and c.conversion_name = g.conversion_event
),
merged as (
    select t.app_id, t.campaign_id, t.variant_key, t.user_key,
           least(f.first_received_at, r.first_at) as first_received_at,
           array(
               select distinct d.day
               from unnest(coalesce(f.received_days, '{}') || coalesce(r.days, '{}')) as d (day)
               order by d.day
           ) as received_days
    from touched as t
    left join folded as f
        on f.app_id = t.app_id and f.campaign_id = t.campaign_id and f.variant_key = t.variant_key
           and f.user_key = t.user_key
    left join pending_receipts as r
        on r.app_id = t.app_id and r.campaign_id = t.campaign_id and r.variant_key = t.variant_key
           and r.user_key = t.user_key
)
select m.app_id, m.campaign_id, m.variant_key, m.user_key, m.first_received_at, m.received_days,
       -- Per goal, the first conversion at or after the first receipt: the folded conversions by one
       -- primary-key probe, and the user's pending ones (as refresh_campaign_receipt_conversions, plus those);
       -- no probe for a missing goal.
       array(
           select case when g.event is not null then least(
               (select min(t.time)
                from cardinal.report_conversion_state as v
                cross join lateral unnest(v.times) as t (time)
                where v.app_id = m.app_id and v.user_key = m.user_key and v.conversion_name = g.event
                  and not v.test and t.time >= m.first_received_at),
               (select min(p.time)
                from unnest(c.names, c.times) as p (name, time)
                where p.name = g.event and p.time >= m.first_received_at)
           ) end
           from unnest(coalesce(ge.conversion_events, array[null, null, null, null]::text[]))
               with ordinality as g (event, ordinal)
           order by g.ordinal
       ) as converted_at
from merged as m
left join cardinal.campaign_conversion_goal_events as ge on ge.app_id = m.app_id and ge.campaign_id = m.campaign_id
left join pending_conversions as c on c.app_id = m.app_id and c.user_key = m.user_key;

alter view cardinal.report_pending_campaign_receipts owner to cardinal_owner;

comment on view cardinal.report_pending_campaign_receipts is
    'The report_campaign_receipts rows that folding the unfolded events (report_unfolded_events) makes: for '
    'each user with a pending receipt of a campaign, or a pending conversion of one of its campaigns'' goal '
    'events, the folded row merged with the pending events. Reports put them in place of the folded rows.';


-- The columns of the view mean what the table's columns mean.
do $comments$
declare
    target record;
begin
    for target in
        select a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from pg_catalog.pg_attribute as a
        join pg_catalog.pg_attribute as t
            on t.attrelid = 'cardinal.report_campaign_receipts'::regclass and t.attname = a.attname
        where a.attrelid = 'cardinal.report_pending_campaign_receipts'::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.report_pending_campaign_receipts.%I is %L',
                       target.column_name, target.description);
    end loop;
end
$comments$;


-- The fold step: the pending events' rows replace the folded ones.
create function cardinal.fold_report_campaign_receipts()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- The pending events are never analyzed: hash joins whatever the estimates (0040); the folded rows and
    -- conversions are index probes all the same (see the view). Merge joins too: on a guess of a few rows the
    -- planner merged the touched rows with the pending conversions on app_id alone (one app: 1.3 G rows, six
    -- minutes for 300 k events).
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
        converted_at = excluded.converted_at;
end
$function$;

alter function cardinal.fold_report_campaign_receipts() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_campaign_receipts() from public;

comment on function cardinal.fold_report_campaign_receipts() is
    'Folds the unfolded events into report_campaign_receipts (report_pending_campaign_receipts). Part of '
    'fold_report_state(), inside its snapshot of the pending events; not to be called alone.';


-- 0041's fold with the new step among the others (its work_mem, security and horizon kept).
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set work_mem = '64MB'
as $function$
declare
    folded bigint;
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- The same lock fold_report_user_state takes again (advisory locks nest within a transaction).
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;
    -- The links first: they may queue re-keyed events, which the snapshot must hold.
    perform cardinal.fold_identity_links();
    perform cardinal.take_report_fold_snapshot();
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    perform cardinal.fold_report_conversion_values();
    perform cardinal.fold_report_parts();
    -- Before the conversion state takes the pending conversions: these steps add them themselves (0040, 0043).
    perform cardinal.fold_report_control_exposures();
    perform cardinal.fold_report_campaign_receipts();
    folded := cardinal.fold_report_user_state();
    perform cardinal.drop_report_fold_snapshot();
    -- What this fold could not see: the transactions that began after its snapshot, and those running
    -- then. A REPEATABLE READ transaction keeps one snapshot, so this is the one every step read.
    update cardinal.report_fold_watermark
    set next_xid = pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        running_xids = array(select x::text::bigint from pg_snapshot_xip(pg_current_snapshot()) as x order by 1);
    return folded;
end
$function$;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many, or NULL when another fold holds the state lock. Learns identity links first '
    '(fold_identity_links, 0032), then reads the pending events once (take_report_fold_snapshot, 0038) for '
    'every step, report_control_exposures (0040) and report_campaign_receipts (0043) among them, and records '
    'its snapshot''s horizon (next_xid, running_xids, 0041). Must run in a REPEATABLE READ transaction.';


-- Deleting a user's state of a campaign (erasure, re-keying, requeue) deletes the user's rows of the campaign.
create function cardinal.forget_report_campaign_receipts()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_campaign_receipts as r
    using (
        select distinct g.app_id, g.campaign_id, f.user_key
        from forgotten as f
        join cardinal.report_groups as g on g.group_id = f.group_id
        where g.campaign_id is not null and not g.test
    ) as x
    where r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key;
    return null;
end
$function$;

alter function cardinal.forget_report_campaign_receipts() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_campaign_receipts() from public;

comment on function cardinal.forget_report_campaign_receipts() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_campaign_receipts '
    'rows of the same campaigns, every variant (their events are queued again; the next fold makes the rows '
    'anew).';

create trigger report_user_state_forget_campaign_receipts
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_campaign_receipts();

comment on trigger report_user_state_forget_campaign_receipts on cardinal.report_user_state is
    'Keeps report_campaign_receipts equal to what report_user_state holds (0043).';


-- A campaign's goals that change: its rows look their conversions up again.
create function cardinal.recompute_campaign_receipt_conversions()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    changed record;
begin
    if tg_table_name = 'campaign_settings' and tg_op = 'UPDATE'
       and new.conversion_event is not distinct from old.conversion_event then
        return null;
    end if;
    -- Waits for a running fold, so that the conversion state read below is the one its rows were made from.
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    -- The campaign before and after the change (an update may move a goal to another campaign).
    for changed in
        select old.app_id, old.campaign_id where tg_op <> 'INSERT'
        union
        select new.app_id, new.campaign_id where tg_op <> 'DELETE'
    loop
        perform cardinal.refresh_campaign_receipt_conversions(changed.app_id, changed.campaign_id);
    end loop;
    return null;
end
$function$;

alter function cardinal.recompute_campaign_receipt_conversions() owner to cardinal_owner;

revoke execute on function cardinal.recompute_campaign_receipt_conversions() from public;

comment on function cardinal.recompute_campaign_receipt_conversions() is
    'Trigger of campaign_settings and campaign_conversion_events: when a campaign''s conversion goals change, '
    'looks its report_campaign_receipts rows'' converted_at up again in the folded conversion state (pending '
    'conversions are the pending view''s), under the state lock.';

create trigger campaign_settings_recompute_campaign_receipts
    after insert or update of conversion_event or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.recompute_campaign_receipt_conversions();

comment on trigger campaign_settings_recompute_campaign_receipts on cardinal.campaign_settings is
    'Keeps report_campaign_receipts.converted_at of the campaign''s primary conversion event (0043).';

create trigger campaign_conversion_events_recompute_campaign_receipts
    after insert or update or delete on cardinal.campaign_conversion_events
    for each row
    execute function cardinal.recompute_campaign_receipt_conversions();

comment on trigger campaign_conversion_events_recompute_campaign_receipts on cardinal.campaign_conversion_events is
    'Keeps report_campaign_receipts.converted_at of the campaign''s further conversion events (0043).';


-- 0030's campaign_conversions keeps its body and settings under another name, for include_test (see the design
-- notes). The body names its arguments by the function's name, so it is copied with the new name (as 0040
-- did), and the migration stops if it does not read as expected.
do $from_user_state$
declare
    definition text;
begin
    definition := pg_catalog.pg_get_functiondef(
        'cardinal.campaign_conversions(text, date, date, text, boolean)'::regprocedure
    );
    if regexp_count(definition, '\mFUNCTION cardinal\.campaign_conversions\(') <> 1
       or regexp_count(definition, '\mcampaign_conversions_from_user_state\M') <> 0 then
        raise exception '0043: campaign_conversions does not read the way this migration expects';
    end if;
    definition := regexp_replace(definition, '\mFUNCTION cardinal\.campaign_conversions\(',
                                 'FUNCTION cardinal.campaign_conversions_from_user_state(');
    definition := regexp_replace(definition, '\mcampaign_conversions\.', 'campaign_conversions_from_user_state.', 'g');
    execute definition;
end
$from_user_state$;

drop function cardinal.campaign_conversions(text, date, date, text, boolean);

alter function cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean) owner to cardinal_owner;

grant execute on function cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean)
    to cardinal_reader;

comment on function cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean) is
    'campaign_conversions computed from the per-user report state (report_user_facts, report_conversion_facts, '
    'report_conversion_value_facts; 0030''s body), with or without test events. campaign_conversions calls it '
    'for include_test (0043).';


-- The conversions report of campaigns from report_campaign_receipts, without test events.
create function cardinal.campaign_conversions_from_receipts(
    app       text,
    from_date date,
    to_date   date,
    campaign  text
)
    returns table (
        app_name              text,
        campaign_id           text,
        variant_id            text,
        ordinal               smallint,
        conversion_event      text,
        window_length         interval,
        unique_recipients     bigint,
        converters            bigint,
        conversion_rate       double precision,
        revenue               jsonb,
        revenue_per_recipient jsonb
    )
    language sql
    stable
    set search_path = pg_catalog, pg_temp
    -- Hash joins and aggregates whatever the row estimates (0039, 0040); the index scans and the per-row
    -- probes below take no join decision.
    set enable_nestloop = off
    set enable_mergejoin = off
    set enable_sort = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where campaign_conversions_from_receipts.app is null or a.name = campaign_conversions_from_receipts.app
    ),
    -- The campaigns reported: only one with conversion goals has rows (0030 joins its totals to the goals),
    -- and goals need settings. The range's bounds are local midnights in the campaign's report time zone.
    sources as materialized (
        select t.app_id, t.app_name, s.campaign_id,
               campaign_conversions_from_receipts.from_date::timestamp at time zone zone.name as lower_time,
               (campaign_conversions_from_receipts.to_date + 1)::timestamp at time zone zone.name as upper_time
        from target as t
        join cardinal.campaign_settings as s on s.app_id = t.app_id
        cross join lateral (select coalesce(s.report_time_zone, t.report_time_zone) as name) as zone
        where (campaign_conversions_from_receipts.campaign is null
               or s.campaign_id = campaign_conversions_from_receipts.campaign)
          and exists (
              select from cardinal.campaign_conversion_goals as g
              where g.app_id = s.app_id and g.campaign_id = s.campaign_id
          )
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.*, s.lower_time, s.upper_time
        from cardinal.report_pending_campaign_receipts as p
        join sources as s on s.app_id = p.app_id and s.campaign_id = p.campaign_id
    ),
    -- The folded rows with their campaign's bounds: one campaign's by its primary key's range; every
    -- campaign's as the planner sees fit (the app's rows hashed to the campaigns with goals). Two branches,
    -- because "campaign is null or …" is no index condition; the one whose argument test fails is never run.
    folded as (
        select r.*, s.lower_time, s.upper_time
        from cardinal.report_campaign_receipts as r
        join sources as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        where campaign_conversions_from_receipts.campaign is not null
          and r.app_id = any(array(select s.app_id from sources as s))
          and r.campaign_id = campaign_conversions_from_receipts.campaign
        union all
        select r.*, s.lower_time, s.upper_time
        from cardinal.report_campaign_receipts as r
        join sources as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        where campaign_conversions_from_receipts.campaign is null
          and r.app_id = any(array(select s.app_id from sources as s))
    ),
    receipts as materialized (
        select f.app_id, f.campaign_id, f.variant_key, f.user_key, f.first_received_at, f.received_days,
               f.converted_at, f.lower_time, f.upper_time
        from folded as f
        where not exists (
            select from pending as p
            where p.app_id = f.app_id and p.campaign_id = f.campaign_id and p.variant_key = f.variant_key
              and p.user_key = f.user_key
        )
        union all
        select p.app_id, p.campaign_id, p.variant_key, p.user_key, p.first_received_at, p.received_days,
               p.converted_at, p.lower_time, p.upper_time
        from pending as p
    ),
    -- The number of recipients of a day, summed over the range's days: each row's days in the range, counted
    -- (a row's days are distinct).
    totals as (
        select app_id, campaign_id, variant_key, count(*) as unique_recipients
        from (
            select x.app_id, x.campaign_id, x.variant_key, unnest(x.received_days) as day
            from receipts as x
        ) as d
        where day between campaign_conversions_from_receipts.from_date and campaign_conversions_from_receipts.to_date
        group by 1, 2, 3
    ),
    -- 0030's cohort is "received in the range (days > 0) and first receipt at or after the range's lower local
    -- midnight". With the first receipt before the upper local midnight, its own day is in the range, so
    -- days > 0; and days > 0 means a receipt on a day no later than to_date, so the first receipt, no later
    -- than that one, is before the upper midnight. The days are of the same zone as the bounds (a time zone
    -- change requeues the campaign), so the two conditions are one.
    cohort as (
        select x.app_id, x.campaign_id, x.variant_key, x.user_key, x.first_received_at, x.converted_at
        from receipts as x
        where x.first_received_at >= x.lower_time and x.first_received_at < x.upper_time
    ),
    -- Each recipient of the cohort once per goal it converted to within the window (applied here, in the
    -- report's session, as 0030 does).
    converted as materialized (
        select r.app_id, r.campaign_id, r.variant_key, r.user_key, r.first_received_at, g.ordinal,
               g.conversion_event, g.conversion_window
        from cohort as r
        join cardinal.campaign_conversion_goals as g on g.app_id = r.app_id and g.campaign_id = r.campaign_id
        where r.converted_at[g.ordinal] <= r.first_received_at + g.conversion_window
    ),
    converter_counts as (
        select app_id, campaign_id, variant_key, ordinal, count(*) as converters
        from converted
        group by 1, 2, 3, 4
    ),
    -- The folded values of each converter's conversions in its window: one primary-key probe per converter
    -- and goal, as an object of currency to amount.
    folded_values as (
        select c.app_id, c.campaign_id, c.variant_key, c.ordinal,
               jsonb_each((
                   select jsonb_object_agg(w.currency, w.amount)
                   from (
                       select t.currency, sum(t.amount) as amount
                       from cardinal.report_conversion_value_state as v
                       cross join lateral unnest(v.times, v.amounts, v.currencies) as t (time, amount, currency)
                       where v.app_id = c.app_id and v.user_key = c.user_key
                         and v.conversion_name = c.conversion_event and not v.test
                         and t.time between c.first_received_at and c.first_received_at + c.conversion_window
                       group by t.currency
                   ) as w
               )) as currency_amount
        from converted as c
    ),
    pending_value_facts as materialized (
        select v.app_id, v.user_key, v.conversion_name, v.times, v.amounts, v.currencies
        from cardinal.report_pending_conversion_value_facts as v
        where not v.test and v.app_id in (select s.app_id from sources as s)
    ),
    -- The pending values of the converters' conversions, hashed to them by (app, user, name).
    pending_values as (
        select app_id, campaign_id, variant_key, ordinal, currency, amount
        from (
            select c.app_id, c.campaign_id, c.variant_key, c.ordinal, c.first_received_at, c.conversion_window,
                   unnest(v.times) as time, unnest(v.amounts) as amount, unnest(v.currencies) as currency
            from converted as c
            join pending_value_facts as v
                on v.app_id = c.app_id and v.user_key = c.user_key and v.conversion_name = c.conversion_event
        ) as u
        where time between first_received_at and first_received_at + conversion_window
    ),
    revenue as (
        select app_id, campaign_id, variant_key, ordinal, jsonb_object_agg(currency, amount) as amounts
        from (
            select app_id, campaign_id, variant_key, ordinal, currency, sum(amount) as amount
            from (
                select app_id, campaign_id, variant_key, ordinal, (currency_amount).key as currency,
                       (currency_amount).value::numeric as amount
                from folded_values
                union all
                select app_id, campaign_id, variant_key, ordinal, currency, amount
                from pending_values
            ) as v
            group by 1, 2, 3, 4, 5
        ) as per_currency
        group by 1, 2, 3, 4
    )
    select s.app_name, t.campaign_id, nullif(t.variant_key, ''), g.ordinal, g.conversion_event,
           g.conversion_window, t.unique_recipients, coalesce(c.converters, 0),
           coalesce(c.converters, 0)::double precision / t.unique_recipients,
           coalesce(r.amounts, '{}'),
           coalesce((select jsonb_object_agg(m.key, m.value::numeric / t.unique_recipients)
                     from jsonb_each(r.amounts) as m), '{}')
    from totals as t
    join sources as s on s.app_id = t.app_id and s.campaign_id = t.campaign_id
    join cardinal.campaign_conversion_goals as g on g.app_id = t.app_id and g.campaign_id = t.campaign_id
    left join converter_counts as c
        on c.app_id = t.app_id and c.campaign_id = t.campaign_id and c.variant_key = t.variant_key
           and c.ordinal = g.ordinal
    left join revenue as r
        on r.app_id = t.app_id and r.campaign_id = t.campaign_id and r.variant_key = t.variant_key
           and r.ordinal = g.ordinal
    order by 1, 2, 3 nulls first, 4;
$function$;

alter function cardinal.campaign_conversions_from_receipts(text, date, date, text) owner to cardinal_owner;

grant execute on function cardinal.campaign_conversions_from_receipts(text, date, date, text) to cardinal_reader;

comment on function cardinal.campaign_conversions_from_receipts(text, date, date, text) is
    'campaign_conversions without test events, from report_campaign_receipts and the pending events'' change '
    'to it (report_pending_campaign_receipts); revenue by a primary-key probe of report_conversion_value_state '
    'per converter plus the pending values (0043). campaign_conversions calls it when include_test is false.';


-- The report keeps its name, arguments and rows; it picks the state that answers the question.
create function cardinal.campaign_conversions(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text    default null,
    include_test boolean default false
)
    returns table (
        app_name              text,
        campaign_id           text,
        variant_id            text,
        ordinal               smallint,
        conversion_event      text,
        window_length         interval,
        unique_recipients     bigint,
        converters            bigint,
        conversion_rate       double precision,
        revenue               jsonb,
        revenue_per_recipient jsonb
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date);
    if coalesce(include_test, false) then
        return query select * from cardinal.campaign_conversions_from_user_state(app, from_date, to_date,
                                                                                 campaign, include_test);
    else
        return query select * from cardinal.campaign_conversions_from_receipts(app, from_date, to_date, campaign);
    end if;
end
$function$;

alter function cardinal.campaign_conversions(text, date, date, text, boolean) owner to cardinal_owner;

grant execute on function cardinal.campaign_conversions(text, date, date, text, boolean) to cardinal_reader;

comment on function cardinal.campaign_conversions(text, date, date, text, boolean) is
    'Conversions of the main report, read from the report state: per app × campaign × variant that received '
    'the campaign in the report days from_date..to_date, and per conversion event of the campaign (ordinal 1 = '
    'primary), the unique recipients, the converters (users first reached in the range who converted within '
    'the window after that first receipt), conversion_rate = converters / unique_recipients, revenue (JSON '
    'object: currency to the sum of the converters'' values in their windows; XXX = no currency) and '
    'revenue_per_recipient. app and campaign NULL = all. Definitions in '
    'SQL/migrations/0030_campaign_conversions.sql; campaign_conversions_reference computes the same from raw '
    'events. Without test events it reads report_campaign_receipts (0043), with them the per-user state.';


grant select on
    cardinal.report_campaign_receipts,
    cardinal.report_pending_campaign_receipts,
    cardinal.campaign_conversion_goal_events
    to cardinal_reader;


-- The rows of the events folded so far, from the folded state (see the design notes: no requeue). Under the
-- state lock, so that no fold runs meanwhile; the days are sorted and distinct, as the fold keeps them. The
-- conversions are looked up after, campaign by campaign, for the campaigns with goals (the others keep NULLs).
select pg_advisory_xact_lock(cardinal.report_state_lock_key());

insert into cardinal.report_campaign_receipts
select r.app_id, r.campaign_id, r.variant_key, r.user_key, min(r.first_at), array_agg(distinct r.day order by r.day),
       array[null, null, null, null]::timestamptz[]
from (
    select g.app_id, g.campaign_id, coalesce(g.variant_id, '') as variant_key, u.user_key,
           case when g.channel in ('content_card', 'in_app_message') then u.first_impression_at
                else u.first_send_at end as first_at,
           unnest(case when g.channel in ('content_card', 'in_app_message') then u.impression_days
                       else u.send_days end) as day
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    where g.campaign_id is not null and not g.test
) as r
group by 1, 2, 3, 4
order by 1, 2, 3, 4;

select cardinal.refresh_campaign_receipt_conversions(ge.app_id, ge.campaign_id)
from cardinal.campaign_conversion_goal_events as ge
order by ge.app_id, ge.campaign_id;
