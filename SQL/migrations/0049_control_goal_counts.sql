-- 0049_control_goal_counts.sql — the control report's further conversion goals read counts per exposure day and
-- per-user rows only for the days the as-of time cuts, as 0046 made the primary goal read them (issue 8).
--
-- Design notes (why, not what):
--
-- * control_arm_conversions (0030, 0034) ran control_arms once per campaign × conversion goal. For a further
--   goal (ordinals 2–4 of campaign_conversion_goals) the event is not the campaign's configured one, so
--   control_arms read the per-user state of every exposed user (control_arms_from_user_state); for the
--   primary goal it read 0046's counts, but once per campaign, each time computing the pending rows anew.
--   What a user contributes to a further goal is the same kind of fact as for the primary: the first
--   conversion of the goal's event at or after the exposure. report_control_exposures keeps it
--   (further_converted_at, indexed by ordinal like report_campaign_receipts.converted_at, 0043) wherever it
--   keeps converted_at: the pending view (so the fold step and the reports), and a recompute when a goal
--   changes. It is NULL when the user converted to no further goal, so the rows of campaigns without further
--   goals (most) are never rewritten and the backfill touches only the rows that have one.
--
-- * report_control_goal_days counts, per app, campaign, local exposure day, arm, local day of the second arm
--   (0046's key) and ordinal, the rows that converted to the goal within the campaign's configured window
--   (campaign_conversion_goals gives every goal the campaign's window). The users of those keys are 0046's
--   counts; only converters differ per goal. Statement triggers with transition tables on
--   report_control_exposures keep the counts equal to the rows' aggregate (report_control_goal_days_of_rows),
--   exactly as 0046's keep report_control_exposure_days, and rows reaching zero are deleted. A change of a
--   campaign's window or zone recounts them in 0046's statement trigger of campaign_settings and apps.
--
-- * A goal's event that changes (campaign_conversion_events inserted, updated or deleted; a settings row
--   deleted cascades to them) recomputes further_converted_at of the campaigns concerned from the folded
--   conversion state under the state lock (0040's recompute of converted_at, 0043's of the receipts), once
--   per campaign and statement; only rows whose value changes are updated, so that the triggers move only
--   their counts. The pending conversions are the pending view's, looked up under the goals of the moment.
--
-- * control_arm_conversions_from_exposures answers every goal, the primary one included, in one pass:
--   0046's split of each campaign's range into count days (wholly matured at as_of with the configured
--   window) and row days, the count days from report_control_exposure_days (users; the primary's converters)
--   and report_control_goal_days (the further goals' converters), the row days and the pending adjustment
--   (pending rows added, the folded rows they replace subtracted) from the per-user rows. Users in several
--   arms are dropped before anything is added up: control_arm_conversions does not report them. A window
--   override that differs from the configured one makes every day a row day (0046's rule), which the rows
--   answer for any window, so it needs no other path. Canvases and include_test keep 0034's body
--   (control_arms per goal, which reads the per-user state for them), as reference = true keeps the reference.
--
-- * Same signature and rows: control_arm_conversions stays an SQL function that the planner inlines, so that
--   the CLI's `where ordinal > 1` still prunes the primary goal in the fallback branch; the branch whose
--   argument test fails is never run (a one-time filter).
--
-- * No plan hinges on a row estimate: the counts are read with `= any(array(...))` index conditions, the row
--   days an index range per campaign in a lateral loop (0046), everything else hashed (enable_nestloop,
--   enable_sort and jit off), the CTEs read more than once materialized. The trigger function and the
--   recompute hash their joins whatever the transition tables' size.
--
-- * Measured in psql on a copy of the 10 M-event bench database (scripts/bench/seed_reports.sql, 3.56 M
--   exposure rows, 50 campaigns), given a second goal (app_rating) on every campaign and a third and fourth on
--   c38, the largest (136,556 rows), `set jit = off; set work_mem = '64MB'`, as of the day after the range,
--   load average 4–7.6 (other sessions' work): control_arm_conversions for all campaigns 227 s before, 6.9–11.4 s
--   after; for c38 12.1–20.6 s before, 0.65–0.72 s after; the same 480 and 20 rows. Most of what remains is
--   0046's row days: all campaigns read 428 k per-user rows, those of the range's last 7 days (the longest
--   window), as control_arms does. The migration: 1 min 59 s (102,631 rows got a further conversion, 5,491 goal
--   counts). A goal change of c38 recomputes its rows in 11.5 s (three probes per row, nothing changed).
--
-- * The migration fills further_converted_at from the folded conversion state and the counts from the
--   triggers that the fill's updates fire (no requeue): the events not folded yet are in neither, and are
--   what the next fold (or a report's pending view) merges, as 0043 and 0046 argued.


-- Every statement below reads and writes the state the fold keeps: no fold may run meanwhile.
select pg_advisory_xact_lock(cardinal.report_state_lock_key());


alter table cardinal.report_control_exposures
    add column further_converted_at timestamptz[],
    add constraint report_control_exposures_further_goals_by_ordinal
        check (further_converted_at is null or (cardinality(further_converted_at) = 4
                                                and further_converted_at[1] is null));

comment on column cardinal.report_control_exposures.further_converted_at is
    'Per further conversion goal, element k for ordinal k = 2..4 (campaign_conversion_goals; element 1 is '
    'always NULL, the primary being converted_at): the time of the user''s first non-test conversion of that '
    'goal''s event at or after exposed_at, NULL when none or no such goal. The whole array is NULL when the '
    'user converted to no further goal (0049).';


-- 0040's view with the further goals: their pending conversions touch a user's folded row too, and each row
-- carries further_converted_at (last, as in the table).
create or replace view cardinal.report_pending_control_exposures as
with pending as materialized (
    select e.app_id, e.campaign_id, e.user_key, e.type, e.control,
           case when e.control then null else e.variant_id end as variant_id, e.time, e.conversion_name
    from cardinal.report_unfolded_events() as e
    where not e.test
      and (e.type = 'conversion'
           or (e.campaign_id is not null
               and (e.type = 'impression' or (e.type = 'send' and e.channel = 'push'))))
),
-- The folded rows of the pending users, by index whatever their number.
folded as materialized (
    select r.*
    from cardinal.report_control_exposures as r
    where r.app_id = any(array(select distinct p.app_id from pending as p))
      and r.user_key = any(array(select distinct p.user_key from pending as p))
),
pending_conversions as materialized (
    select app_id, user_key, conversion_name, array_agg(time) as times
    from pending
    where type = 'conversion'
    group by 1, 2, 3
),
-- Each pending user's conversions as two aligned arrays (names[i] made at times[i]), for the further goals.
pending_user_conversions as (
    select app_id, user_key, array_agg(conversion_name) as names, array_agg(time) as times
    from pending
    where type = 'conversion'
    group by 1, 2
),
-- Every arm's first time: the folded row's two arms and the pending exposures.
arms as (
    select app_id, campaign_id, user_key, control, variant_id, min(first_at) as first_at
    from (
        select app_id, campaign_id, user_key, control, variant_id, exposed_at as first_at
        from folded
        union all
        select app_id, campaign_id, user_key, second_arm_control, second_arm_variant_id, second_arm_at
        from folded
        where second_arm_at is not null
        union all
        select app_id, campaign_id, user_key, control, variant_id, time
        from pending
        where type <> 'conversion'
    ) as a
    group by 1, 2, 3, 4, 5
),
touched as (
    select app_id, campaign_id, user_key from pending where type <> 'conversion'
    union
    select f.app_id, f.campaign_id, f.user_key
    from folded as f
    join pending_conversions as c
        on c.app_id = f.app_id and c.user_key = f.user_key and c.conversion_name = f.conversion_event
    union
    select f.app_id, f.campaign_id, f.user_key
    from folded as f
    join cardinal.campaign_conversion_events as g on g.app_id = f.app_id and g.campaign_id = f.campaign_id
    join pending_conversions as c
        on c.app_id = f.app_id and c.user_key = f.user_key and c.conversion_name = g.conversion_event
),
ranked as (
    select a.*,
           row_number() over (partition by a.app_id, a.campaign_id, a.user_key
                              order by a.first_at, a.control, a.variant_id nulls first) as rank
    from arms as a
    join touched as t using (app_id, campaign_id, user_key)
),
exposures as (
    select app_id, campaign_id, user_key,
           min(first_at) filter (where rank = 1) as exposed_at,
           bool_or(control) filter (where rank = 1) as control,
           min(variant_id) filter (where rank = 1) as variant_id,
           min(first_at) filter (where rank = 2) as second_arm_at,
           bool_or(control) filter (where rank = 2) as second_arm_control,
           min(variant_id) filter (where rank = 2) as second_arm_variant_id
    from ranked
    where rank <= 2
    group by 1, 2, 3
)
select x.app_id, x.campaign_id, x.user_key, x.exposed_at, x.control, x.variant_id, x.second_arm_at,
       x.second_arm_control, x.second_arm_variant_id, s.conversion_event,
       least(
           -- The folded conversions: one primary-key probe per touched user.
           (select min(t.time)
            from cardinal.report_conversion_state as v
            cross join lateral unnest(v.times) as t (time)
            where v.app_id = x.app_id and v.user_key = x.user_key and v.conversion_name = s.conversion_event
              and not v.test and t.time >= x.exposed_at),
           (select min(t.time) from unnest(c.times) as t (time) where t.time >= x.exposed_at)
       ) as converted_at,
       -- Per further goal the same, the folded conversions by one primary-key probe and the user's pending
       -- ones; no probe for a missing goal, and NULL when no goal converted.
       (select case when array_remove(further.times, null) <> '{}' then further.times end
        from (
            select array(
                select case when g.ordinal > 1 and g.event is not null then least(
                           (select min(t.time)
                            from cardinal.report_conversion_state as v
                            cross join lateral unnest(v.times) as t (time)
                            where v.app_id = x.app_id and v.user_key = x.user_key and v.conversion_name = g.event
                              and not v.test and t.time >= x.exposed_at),
                           (select min(p.time)
                            from unnest(u.names, u.times) as p (name, time)
                            where p.name = g.event and p.time >= x.exposed_at)
                       ) end
                from unnest(ge.conversion_events) with ordinality as g (event, ordinal)
                order by g.ordinal
            ) as times
            -- Keeps the planner from copying the array into both uses, which looked it up twice (0045).
            offset 0
        ) as further) as further_converted_at
from exposures as x
left join cardinal.campaign_settings as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
left join cardinal.campaign_conversion_goal_events as ge on ge.app_id = x.app_id and ge.campaign_id = x.campaign_id
left join pending_conversions as c
    on c.app_id = x.app_id and c.user_key = x.user_key and c.conversion_name = s.conversion_event
left join pending_user_conversions as u on u.app_id = x.app_id and u.user_key = x.user_key;

comment on view cardinal.report_pending_control_exposures is
    'The report_control_exposures rows that folding the unfolded events (report_unfolded_events) makes: for '
    'each user with a pending exposure to a campaign or a pending conversion of one of its conversion goals '
    '(0049: the further ones too), the folded row merged with the pending events. Reports put them in place '
    'of the folded rows.';

comment on column cardinal.report_pending_control_exposures.further_converted_at is
    'Per further conversion goal, element k for ordinal k = 2..4 (campaign_conversion_goals; element 1 is '
    'always NULL, the primary being converted_at): the time of the user''s first non-test conversion of that '
    'goal''s event at or after exposed_at, NULL when none or no such goal. The whole array is NULL when the '
    'user converted to no further goal (0049).';


-- 0040's fold step, which now also keeps the further goals' conversions.
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
        further_converted_at = excluded.further_converted_at;
end
$function$;


create table cardinal.report_control_goal_days (
    app_id         bigint   not null,
    campaign_id    text     not null,
    exposed_day    date     not null,
    control        boolean  not null,
    variant_key    text     not null,
    second_arm_day date     not null,
    ordinal        smallint not null,
    converters     bigint   not null,

    constraint report_control_goal_days_pkey
        primary key (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal),
    constraint report_control_goal_days_further_goal check (ordinal between 2 and 4)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_control_goal_days_emptied_idx
    on cardinal.report_control_goal_days (app_id)
    where converters = 0;

alter table cardinal.report_control_goal_days owner to cardinal_owner;

comment on index cardinal.report_control_goal_days_emptied_idx is
    'The rows the last change brought to zero converters, which the counting trigger deletes (0049).';

comment on table cardinal.report_control_goal_days is
    'Report state of the control report''s further conversion goals (0049): per app, campaign, local exposure '
    'day, arm, local day of the second arm (report_control_exposure_days'' key, which holds the users) and '
    'goal ordinal 2..4, the report_control_exposures rows converted to that goal within the campaign''s window. '
    'An aggregate of report_control_exposures kept by triggers; no row without converters; '
    'control_arm_conversions reads it for the days matured at as_of.';
comment on column cardinal.report_control_goal_days.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_control_goal_days.campaign_id is 'The campaign.';
comment on column cardinal.report_control_goal_days.exposed_day is
    'Local day of exposed_at in the campaign''s report time zone (else the app''s).';
comment on column cardinal.report_control_goal_days.control is 'Whether the first exposure was in the control arm.';
comment on column cardinal.report_control_goal_days.variant_key is
    'Variant of the first exposure''s arm; '''' when it has none (the control arm).';
comment on column cardinal.report_control_goal_days.second_arm_day is
    'Local day of second_arm_at in the same zone; ''infinity'' when the users met one arm only.';
comment on column cardinal.report_control_goal_days.ordinal is
    'The further conversion goal''s ordinal, 2 to 4 (campaign_conversion_goals).';
comment on column cardinal.report_control_goal_days.converters is
    'How many rows converted to the goal within the campaign''s configured window: further_converted_at[ordinal] '
    '<= report_window_end(exposed_at, window, zone).';


-- The counts the rows make: a recount and the tests read it.
create view cardinal.report_control_goal_days_of_rows as
select r.app_id, r.campaign_id,
       (r.exposed_at at time zone clock.time_zone)::date as exposed_day,
       r.control,
       coalesce(r.variant_id, '') as variant_key,
       coalesce((r.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
       goal.ordinal::smallint as ordinal,
       count(*) as converters
from cardinal.report_control_exposures as r
join cardinal.apps as a on a.app_id = r.app_id
left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
cross join lateral (
    select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
           coalesce(s.conversion_window, interval '3 days') as window_length
) as clock
cross join lateral unnest(r.further_converted_at) with ordinality as goal (converted_at, ordinal)
where r.further_converted_at is not null
  and goal.converted_at <= cardinal.report_window_end(r.exposed_at, clock.window_length, clock.time_zone)
group by 1, 2, 3, 4, 5, 6, 7;

alter view cardinal.report_control_goal_days_of_rows owner to cardinal_owner;

comment on view cardinal.report_control_goal_days_of_rows is
    'report_control_goal_days computed from report_control_exposures and the current settings: what the '
    'triggers keep the table equal to (0049).';

do $comments$
declare
    target record;
begin
    for target in
        select a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from pg_catalog.pg_attribute as a
        join pg_catalog.pg_attribute as t
            on t.attrelid = 'cardinal.report_control_goal_days'::regclass and t.attname = a.attname
        where a.attrelid = 'cardinal.report_control_goal_days_of_rows'::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.report_control_goal_days_of_rows.%I is %L',
                       target.column_name, target.description);
    end loop;
end
$comments$;


-- The statement triggers of report_control_exposures: the changed rows' further goals, added or subtracted.
create function cardinal.count_control_goal_days()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever its size (0046).
    set enable_nestloop = off
    set enable_sort = off
    set jit = off
as $function$
declare
    changes text;
begin
    -- Each trigger declares only the transition tables of its event; the one statement below reads them
    -- through EXECUTE, so that it is written once. Rows without a further conversion (most) add nothing.
    changes := case tg_op
        when 'INSERT' then 'select 1 as sign, n.* from added as n where n.further_converted_at is not null'
        when 'DELETE' then 'select -1 as sign, o.* from removed as o where o.further_converted_at is not null'
        else 'select 1 as sign, n.* from added as n where n.further_converted_at is not null
              union all
              select -1 as sign, o.* from removed as o where o.further_converted_at is not null'
    end;
    execute format($statement$
        with delta as materialized (
            select c.app_id, c.campaign_id,
                   (c.exposed_at at time zone clock.time_zone)::date as exposed_day,
                   c.control,
                   coalesce(c.variant_id, '') as variant_key,
                   coalesce((c.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
                   goal.ordinal::smallint as ordinal,
                   sum(c.sign) as converters
            from (%s) as c
            join cardinal.apps as a on a.app_id = c.app_id
            left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
            cross join lateral (
                select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
                       coalesce(s.conversion_window, interval '3 days') as window_length
            ) as clock
            cross join lateral unnest(c.further_converted_at) with ordinality as goal (converted_at, ordinal)
            where goal.converted_at
                  <= cardinal.report_window_end(c.exposed_at, clock.window_length, clock.time_zone)
            group by 1, 2, 3, 4, 5, 6, 7
        )
        insert into cardinal.report_control_goal_days as d
        select *
        from delta
        -- An update that leaves a row's goals where they were changes nothing.
        where converters <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal
        on conflict (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal) do update set
            converters = d.converters + excluded.converters
    $statement$, changes);
    if tg_op <> 'INSERT' then
        delete from cardinal.report_control_goal_days where converters = 0;
    end if;
    return null;
end
$function$;

alter function cardinal.count_control_goal_days() owner to cardinal_owner;

revoke execute on function cardinal.count_control_goal_days() from public;

comment on function cardinal.count_control_goal_days() is
    'Statement trigger of report_control_exposures (0049): adds the further goals converted within the window '
    'of the inserted and new rows to report_control_goal_days and subtracts those of the deleted and old ones, '
    'with the campaign''s current window and zone; deletes the counts that reach zero.';

create trigger report_control_exposures_count_goals_inserted
    after insert on cardinal.report_control_exposures
    referencing new table as added
    for each statement
    execute function cardinal.count_control_goal_days();

create trigger report_control_exposures_count_goals_updated
    after update on cardinal.report_control_exposures
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_control_goal_days();

create trigger report_control_exposures_count_goals_deleted
    after delete on cardinal.report_control_exposures
    referencing old table as removed
    for each statement
    execute function cardinal.count_control_goal_days();

comment on trigger report_control_exposures_count_goals_inserted on cardinal.report_control_exposures is
    'Keeps report_control_goal_days the aggregate of the rows (0049).';
comment on trigger report_control_exposures_count_goals_updated on cardinal.report_control_exposures is
    'Keeps report_control_goal_days the aggregate of the rows (0049).';
comment on trigger report_control_exposures_count_goals_deleted on cardinal.report_control_exposures is
    'Keeps report_control_goal_days the aggregate of the rows (0049).';


-- A recount of one campaign's further goal counts, or of an app's (campaign NULL), from the rows.
create function cardinal.recount_control_goal_days(app_id bigint, campaign_id text)
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_control_goal_days as d
    where d.app_id = recount_control_goal_days.app_id
      and (recount_control_goal_days.campaign_id is null or d.campaign_id = recount_control_goal_days.campaign_id);
    insert into cardinal.report_control_goal_days
    select * from cardinal.report_control_goal_days_of_rows as r
    where r.app_id = recount_control_goal_days.app_id
      and (recount_control_goal_days.campaign_id is null or r.campaign_id = recount_control_goal_days.campaign_id)
    order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal;
end
$function$;

alter function cardinal.recount_control_goal_days(bigint, text) owner to cardinal_owner;

revoke execute on function cardinal.recount_control_goal_days(bigint, text) from public;

comment on function cardinal.recount_control_goal_days(bigint, text) is
    'Makes report_control_goal_days of a campaign (of every campaign of the app when campaign_id is NULL) anew '
    'from report_control_exposures and the current settings (0049). The caller holds the state lock.';


-- 0046's recount when a window or zone changes, now of both counts.
create or replace function cardinal.recount_control_exposure_days_of_settings()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target record;
begin
    for target in execute case tg_table_name
        when 'apps' then
            'select n.app_id, null::text as campaign_id
             from added as n join removed as o using (app_id)
             where n.report_time_zone is distinct from o.report_time_zone'
        else case tg_op
            when 'INSERT' then 'select app_id, campaign_id from added'
            when 'DELETE' then 'select app_id, campaign_id from removed'
            -- As text: '1 day' and '24 hours' are equal intervals but end a window differently across a
            -- daylight-saving change. A new conversion event changes the rows, which count themselves.
            else 'select n.app_id, n.campaign_id
                  from added as n join removed as o using (app_id, campaign_id)
                  where (n.conversion_window::text, n.report_time_zone)
                        is distinct from (o.conversion_window::text, o.report_time_zone)'
            end
        end
    loop
        -- Waits for a running fold, as 0040's recompute does: the rows read are the ones it left.
        perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
        perform cardinal.recount_control_exposure_days(target.app_id, target.campaign_id);
        perform cardinal.recount_control_goal_days(target.app_id, target.campaign_id);
    end loop;
    return null;
end
$function$;

comment on function cardinal.recount_control_exposure_days_of_settings() is
    'Statement trigger of campaign_settings and apps (0046): recounts report_control_exposure_days and '
    'report_control_goal_days (0049) of the campaigns whose window or zone changed (of the app whose zone '
    'changed), after their row triggers, under the state lock.';


-- One campaign's further_converted_at looked up again in the folded conversion state: after a change of its
-- goals (trigger below) and by the migration's fill. One primary-key probe per row and goal; only the rows
-- whose value changes are written, so that the counting triggers see only those.
create function cardinal.refresh_control_goal_conversions(app bigint, campaign text)
    returns void
    language sql
    set search_path = pg_catalog, pg_temp
    -- The self-join of the campaign's rows is hashed whatever the estimates; the probes' subqueries would
    -- otherwise raise the cost past jit_above_cost (0045).
    set enable_nestloop = off
    set jit = off
as $function$
    update cardinal.report_control_exposures as r
    set further_converted_at = n.further_converted_at
    from (
        select e.user_key,
               (select case when array_remove(further.times, null) <> '{}' then further.times end
                from (
                    select array(
                        select case when g.ordinal > 1 and g.event is not null then (
                                   select min(t.time)
                                   from cardinal.report_conversion_state as v
                                   cross join lateral unnest(v.times) as t (time)
                                   where v.app_id = e.app_id and v.user_key = e.user_key
                                     and v.conversion_name = g.event and not v.test and t.time >= e.exposed_at
                               ) end
                        from unnest(x.conversion_events) with ordinality as g (event, ordinal)
                        order by g.ordinal
                    ) as times
                    offset 0
                ) as further) as further_converted_at
        from cardinal.report_control_exposures as e
        cross join (
            select coalesce((select ge.conversion_events
                             from cardinal.campaign_conversion_goal_events as ge
                             where ge.app_id = refresh_control_goal_conversions.app
                               and ge.campaign_id = refresh_control_goal_conversions.campaign),
                            array[null, null, null, null]::text[]) as conversion_events
        ) as x
        where e.app_id = refresh_control_goal_conversions.app
          and e.campaign_id = refresh_control_goal_conversions.campaign
    ) as n
    where r.app_id = refresh_control_goal_conversions.app
      and r.campaign_id = refresh_control_goal_conversions.campaign
      and r.user_key = n.user_key
      and r.further_converted_at is distinct from n.further_converted_at;
$function$;

alter function cardinal.refresh_control_goal_conversions(bigint, text) owner to cardinal_owner;

revoke execute on function cardinal.refresh_control_goal_conversions(bigint, text) from public;

comment on function cardinal.refresh_control_goal_conversions(bigint, text) is
    'Sets further_converted_at of the campaign''s report_control_exposures rows from the folded conversion '
    'state (report_conversion_state) and the campaign''s further goals of the moment '
    '(campaign_conversion_goal_events), writing only the rows it changes (0049). The pending conversions are '
    'the pending view''s. For the goals'' trigger and 0049''s fill; the caller holds the state lock.';


-- A campaign's further goals that change: its rows look their conversions up again, once per campaign.
create function cardinal.recompute_control_goal_conversions()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    changed record;
begin
    -- The campaigns before and after the change (an update may move a goal to another campaign).
    for changed in execute case tg_op
        when 'INSERT' then 'select distinct app_id, campaign_id from added order by 1, 2'
        when 'DELETE' then 'select distinct app_id, campaign_id from removed order by 1, 2'
        else 'select app_id, campaign_id from added union select app_id, campaign_id from removed order by 1, 2'
    end
    loop
        -- Waits for a running fold, so that the conversion state read is the one its rows were made from.
        perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
        perform cardinal.refresh_control_goal_conversions(changed.app_id, changed.campaign_id);
    end loop;
    return null;
end
$function$;

alter function cardinal.recompute_control_goal_conversions() owner to cardinal_owner;

revoke execute on function cardinal.recompute_control_goal_conversions() from public;

comment on function cardinal.recompute_control_goal_conversions() is
    'Statement trigger of campaign_conversion_events (0049): when a campaign''s further conversion goals change, '
    'looks its report_control_exposures rows'' further_converted_at up again in the folded conversion state '
    '(pending conversions are the pending view''s), once per campaign, under the state lock.';

create trigger campaign_conversion_events_recompute_control_goals_inserted
    after insert on cardinal.campaign_conversion_events
    referencing new table as added
    for each statement
    execute function cardinal.recompute_control_goal_conversions();

create trigger campaign_conversion_events_recompute_control_goals_updated
    after update on cardinal.campaign_conversion_events
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.recompute_control_goal_conversions();

create trigger campaign_conversion_events_recompute_control_goals_deleted
    after delete on cardinal.campaign_conversion_events
    referencing old table as removed
    for each statement
    execute function cardinal.recompute_control_goal_conversions();

comment on trigger campaign_conversion_events_recompute_control_goals_inserted on cardinal.campaign_conversion_events is
    'Keeps report_control_exposures.further_converted_at of the campaign''s further goals (0049).';
comment on trigger campaign_conversion_events_recompute_control_goals_updated on cardinal.campaign_conversion_events is
    'Keeps report_control_exposures.further_converted_at of the campaign''s further goals (0049).';
comment on trigger campaign_conversion_events_recompute_control_goals_deleted on cardinal.campaign_conversion_events is
    'Keeps report_control_exposures.further_converted_at of the campaign''s further goals (0049).';


-- The control report of every conversion goal of campaigns from the counts and, for the days the as-of time
-- cuts, the rows (0046's split), in one pass over the goals.
create function cardinal.control_arm_conversions_from_exposures(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion_window interval
)
    returns table (
        app_name         text,
        campaign_id      text,
        ordinal          smallint,
        conversion_event text,
        window_length    interval,
        variant_id       text,
        control          boolean,
        users            bigint,
        converters       bigint,
        canvas_id        text
    )
    language sql
    stable
    -- Hash joins and aggregates whatever the row estimates (0040, 0046); jit off with them.
    set enable_nestloop = off
    set jit = off
    set enable_sort = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where control_arm_conversions_from_exposures.app is null
           or a.name = control_arm_conversions_from_exposures.app
    ),
    goals as materialized (
        select g.app_id, g.campaign_id, g.ordinal, g.conversion_event
        from cardinal.campaign_conversion_goals as g
        where g.app_id in (select t.app_id from target as t)
          and (control_arm_conversions_from_exposures.campaign is null
               or g.campaign_id = control_arm_conversions_from_exposures.campaign)
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.*
        from cardinal.report_pending_control_exposures as p
        where p.app_id in (select t.app_id from target as t)
          and (control_arm_conversions_from_exposures.campaign is null
               or p.campaign_id = control_arm_conversions_from_exposures.campaign)
    ),
    -- The campaigns with goals, their window, the range's bounds in their zone and the first day of the range
    -- that the counts do not answer (0046's split, the same expressions).
    sources as materialized (
        select t.app_id, t.app_name, s.campaign_id, clock.window_length, zone.name as time_zone,
               control_arm_conversions_from_exposures.from_date::timestamp at time zone zone.name as lower_time,
               (control_arm_conversions_from_exposures.to_date + 1)::timestamp at time zone zone.name as upper_time,
               split.day as split_day,
               split.day::timestamp at time zone zone.name as split_time
        from target as t
        join cardinal.campaign_settings as s on s.app_id = t.app_id
        cross join lateral (select coalesce(s.report_time_zone, t.report_time_zone) as name) as zone
        cross join lateral (
            select coalesce(s.conversion_window, interval '3 days') as configured,
                   coalesce(control_arm_conversions_from_exposures.conversion_window, s.conversion_window,
                            interval '3 days') as window_length
        ) as clock
        cross join lateral (
            select coalesce(min(d.day)::date, control_arm_conversions_from_exposures.to_date + 1) as day
            from generate_series(control_arm_conversions_from_exposures.from_date::timestamp,
                                 control_arm_conversions_from_exposures.to_date::timestamp,
                                 interval '1 day') as d (day)
            cross join lateral (select d.day + date_trunc('day', clock.window_length) as local_start) as image
            cross join lateral (
                select (image.local_start + interval '1 day') at time zone zone.name as utc_end,
                       image.local_start at time zone zone.name as utc_start
            ) as utc
            where clock.window_length::text <> clock.configured::text
               or utc.utc_end + (clock.window_length - date_trunc('day', clock.window_length))
                  + greatest(interval '0', interval '1 day' - (utc.utc_end - utc.utc_start))
                  > control_arm_conversions_from_exposures.as_of
        ) as split
        where (control_arm_conversions_from_exposures.campaign is null
               or s.campaign_id = control_arm_conversions_from_exposures.campaign)
          and exists (select from goals as g where g.app_id = s.app_id and g.campaign_id = s.campaign_id)
    ),
    -- The users and primary converters of the count days, of one arm each (users in several arms before the
    -- range's end are not reported).
    counted as materialized (
        select d.app_id, d.campaign_id, d.control, d.variant_key, d.users, d.converters
        from cardinal.report_control_exposure_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arm_conversions_from_exposures.from_date
          and d.exposed_day < (select max(s.split_day) from sources as s)
          and d.exposed_day < s.split_day
          and d.second_arm_day > control_arm_conversions_from_exposures.to_date
    ),
    -- The further goals' converters of the same days and arms.
    counted_goals as (
        select d.app_id, d.campaign_id, d.control, d.variant_key, d.ordinal, d.converters
        from cardinal.report_control_goal_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arm_conversions_from_exposures.from_date
          and d.exposed_day < (select max(s.split_day) from sources as s)
          and d.exposed_day < s.split_day
          and d.second_arm_day > control_arm_conversions_from_exposures.to_date
    ),
    -- The folded rows of the other days: an index range per campaign in a loop over the campaigns (0046).
    folded as (
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.converted_at, r.further_converted_at
        from sources as s
        cross join lateral (
            select *
            from cardinal.report_control_exposures as r
            where r.app_id = s.app_id
              and r.campaign_id = s.campaign_id
              and r.exposed_at >= s.split_time
              and r.exposed_at < s.upper_time
            offset 0
        ) as r
    ),
    -- The folded rows that the pending rows replace, by primary key.
    replaced as (
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               r.further_converted_at
        from cardinal.report_control_exposures as r
        join pending as p on p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.user_key = r.user_key
        where r.app_id = any(array(select distinct p.app_id from pending as p))
          and r.user_key = any(array(select distinct p.user_key from pending as p))
    ),
    -- One by one: the folded rows of the row days but the replaced ones, every pending row, and the replaced
    -- rows of the count days taken out of the counts (0046).
    items as (
        select f.app_id, f.campaign_id, f.exposed_at, f.control, f.variant_id, f.second_arm_at, f.converted_at,
               f.further_converted_at, 1 as sign, true as in_row_days
        from folded as f
        where not exists (
            select from pending as p
            where p.app_id = f.app_id and p.campaign_id = f.campaign_id and p.user_key = f.user_key
        )
        union all
        select p.app_id, p.campaign_id, p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at,
               p.further_converted_at, 1, null
        from pending as p
        union all
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               r.further_converted_at, -1, false
        from replaced as r
    ),
    -- The items of the range in one arm, with their window's end on the campaign's clock (0044).
    cohort as materialized (
        select x.app_id, x.campaign_id, x.control, coalesce(x.variant_id, '') as variant_key, x.sign,
               window_end.time <= control_arm_conversions_from_exposures.as_of as matured,
               x.converted_at, x.further_converted_at, window_end.time as window_end
        from items as x
        join sources as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
        cross join lateral (
            select cardinal.report_window_end(x.exposed_at, s.window_length, s.time_zone) as time
        ) as window_end
        where x.exposed_at >= s.lower_time and x.exposed_at < s.upper_time
          and (x.in_row_days is null or x.in_row_days = (x.exposed_at >= s.split_time))
          and not coalesce(x.second_arm_at < s.upper_time, false)
    ),
    -- Per arm: the exposed and matured users (ordinal NULL), and per goal the converters.
    parts as (
        select app_id, campaign_id, control, variant_key, null::smallint as ordinal,
               users as exposed, users, 0::bigint as converters
        from counted
        union all
        select app_id, campaign_id, control, variant_key, 1::smallint, 0, 0, converters
        from counted
        where converters <> 0
        union all
        select app_id, campaign_id, control, variant_key, ordinal, 0, 0, converters
        from counted_goals
        union all
        select app_id, campaign_id, control, variant_key, null, sign, case when matured then sign else 0 end, 0
        from cohort
        union all
        select c.app_id, c.campaign_id, c.control, c.variant_key, goal.ordinal, 0, 0, c.sign
        from cohort as c
        cross join lateral (
            select 1::smallint as ordinal
            where c.converted_at <= c.window_end
            union all
            select f.ordinal::smallint
            from unnest(c.further_converted_at) with ordinality as f (converted_at, ordinal)
            where f.converted_at <= c.window_end
        ) as goal
        where c.matured and (c.converted_at <= c.window_end or c.further_converted_at is not null)
    ),
    arm_groups as (
        select app_id, campaign_id, control, variant_key, coalesce(ordinal, 0) as ordinal,
               sum(exposed) as exposed, sum(users)::bigint as users, sum(converters)::bigint as converters
        from parts
        group by app_id, campaign_id, control, variant_key, coalesce(ordinal, 0)
    ),
    -- The arms reported: those with an exposed user (the pending events may have moved all of one's away).
    arms as (
        select app_id, campaign_id, control, variant_key, users
        from arm_groups
        where ordinal = 0 and exposed <> 0
    )
    select s.app_name, a.campaign_id, g.ordinal, g.conversion_event, s.window_length,
           nullif(a.variant_key, ''), a.control, a.users, coalesce(c.converters, 0), null::text
    from arms as a
    join sources as s on s.app_id = a.app_id and s.campaign_id = a.campaign_id
    join goals as g on g.app_id = a.app_id and g.campaign_id = a.campaign_id
    left join arm_groups as c
        on c.app_id = a.app_id and c.campaign_id = a.campaign_id and c.control = a.control
       and c.variant_key = a.variant_key and c.ordinal = g.ordinal
    order by s.app_name, a.campaign_id, g.ordinal, a.control desc, nullif(a.variant_key, '') nulls first;
$function$;

alter function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval)
    owner to cardinal_owner;

grant execute on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval)
    to cardinal_reader;

comment on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval) is
    'control_arm_conversions of campaigns (not a canvas), without test events, for every conversion goal and '
    'the given window (else the campaign''s): from report_control_exposure_days and report_control_goal_days '
    'for the days wholly matured at as_of with the configured window, else from report_control_exposures, with '
    'the pending events'' change (report_pending_control_exposures); 0046''s split, 0049. '
    'control_arm_conversions calls it when it can.';


-- 0034's control_arm_conversions with the counts' branch first; the other keeps 0034's body for canvases,
-- include_test and the reference.
create or replace function cardinal.control_arm_conversions(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    include_test      boolean     default false,
    reference         boolean     default false,
    conversion_window interval    default null,
    canvas            text        default null
)
    returns table (
        app_name         text,
        campaign_id      text,
        ordinal          smallint,
        conversion_event text,
        window_length    interval,
        variant_id       text,
        control          boolean,
        users            bigint,
        converters       bigint,
        canvas_id        text
    )
    language sql
    stable
as $function$
    select arm.*
    from cardinal.control_arm_conversions_from_exposures(control_arm_conversions.app,
                                                         control_arm_conversions.campaign,
                                                         control_arm_conversions.from_date,
                                                         control_arm_conversions.to_date,
                                                         control_arm_conversions.as_of,
                                                         control_arm_conversions.conversion_window) as arm
    where cardinal.check_report_range(control_arm_conversions.from_date, control_arm_conversions.to_date)
      and not control_arm_conversions.reference
      and control_arm_conversions.canvas is null
      and not control_arm_conversions.include_test
    union all
    (
        select arm.app_name, arm.campaign_id, g.ordinal, arm.conversion_event, arm.window_length, arm.variant_id,
               arm.control, arm.users, arm.converters, arm.canvas_id
        from cardinal.apps as a
        join cardinal.campaign_conversion_goals as g on g.app_id = a.app_id
        -- In canvas mode the goal's campaign_id is the canvas id: it goes to control_arms as the canvas.
        cross join lateral (
            select case when control_arm_conversions.canvas is null then g.campaign_id end as campaign,
                   coalesce(control_arm_conversions.conversion_window, g.conversion_window) as length
        ) as goal
        cross join lateral (
            select * from cardinal.control_arms(a.name, goal.campaign, control_arm_conversions.from_date,
                                                control_arm_conversions.to_date, control_arm_conversions.as_of,
                                                g.conversion_event, goal.length, control_arm_conversions.include_test,
                                                control_arm_conversions.canvas)
            where not control_arm_conversions.reference
            union all
            select * from cardinal.control_arms_reference(a.name, goal.campaign, control_arm_conversions.from_date,
                                                          control_arm_conversions.to_date,
                                                          control_arm_conversions.as_of, g.conversion_event,
                                                          goal.length, control_arm_conversions.include_test,
                                                          control_arm_conversions.canvas)
            where control_arm_conversions.reference
        ) as arm
        where (control_arm_conversions.reference
               or control_arm_conversions.canvas is not null
               or control_arm_conversions.include_test)
          and cardinal.check_report_range(control_arm_conversions.from_date, control_arm_conversions.to_date)
          and cardinal.check_control_source(control_arm_conversions.campaign, control_arm_conversions.canvas)
          and (control_arm_conversions.app is null or a.name = control_arm_conversions.app)
          and (control_arm_conversions.campaign is null or g.campaign_id = control_arm_conversions.campaign)
          and (control_arm_conversions.canvas is null or g.campaign_id = control_arm_conversions.canvas)
        order by arm.app_name, coalesce(arm.campaign_id, arm.canvas_id), g.ordinal, arm.control desc,
                 arm.variant_id nulls first
    );
$function$;

comment on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text) is
    'The control report per conversion event: for each conversion event of each campaign (ordinal 1 = '
    'primary, campaign_conversion_goals), control_arms with that event and the campaign''s window (or '
    'conversion_window, 0034): per arm the matured users and the converters. reference = true computes it '
    'with control_arms_reference over the raw events instead of the report state (for tests). app and '
    'campaign NULL = all; canvas (0034) reports that canvas, with the conversion events of its settings row '
    '(campaign_settings keyed by the canvas id). Campaigns without test events read the control counts and '
    'rows of every goal in one pass (control_arm_conversions_from_exposures, 0049); canvases and include_test '
    'run control_arms per goal.';


grant select on cardinal.report_control_goal_days, cardinal.report_control_goal_days_of_rows to cardinal_reader;


-- The further goals of the rows folded so far, from the folded conversion state (see the notes: no requeue);
-- the counting triggers fill report_control_goal_days from the rows this writes.
select cardinal.refresh_control_goal_conversions(c.app_id, c.campaign_id)
from (select distinct e.app_id, e.campaign_id from cardinal.campaign_conversion_events as e) as c
order by c.app_id, c.campaign_id;
