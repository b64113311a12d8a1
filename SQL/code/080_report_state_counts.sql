-- Counts kept beside the report state by triggers, and their recomputation when settings change.
--
-- The reports of a whole campaign or app read pre-aggregated counts rather than every user's state: per day
-- and arm (report_control_exposure_days, report_control_goal_days, report_arm_day_users), per finding group
-- (report_finding_day_users, report_interaction_day_*, report_session_*, report_dismissal_*), per canvas step
-- (report_step_daily_counts), and the campaign conversion counts. Each count_* statement trigger nets what a
-- statement changed in the state tables into them; each *_of_rows view computes the same counts from the state,
-- which the backfill and the tests read. The recompute_*/refresh_*/recount_* functions and their triggers
-- redo the rows and counts a settings change affects (a conversion event, goals, a window, a time zone).
-- assign_report_finding gives each new report group its finding group.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- A campaign's conversion event or CUPED window that changes: its rows look their conversion and their
-- pre-exposure conversions up again.
create or replace function cardinal.recompute_control_conversions()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app       bigint;
    target_campaign  text;
    new_event        text;
    new_cuped_window interval;
begin
    if tg_op = 'DELETE' then
        target_app := old.app_id;
        target_campaign := old.campaign_id;
    else
        target_app := new.app_id;
        target_campaign := new.campaign_id;
        new_event := new.conversion_event;
        new_cuped_window := new.cuped_window;
    end if;
    -- x is counted in elapsed time, so an equal window ('1 day', '24 hours') changes nothing; nor does any
    -- window of a campaign without a conversion event.
    if tg_op = 'UPDATE' and (new_event is not distinct from old.conversion_event
                             and (new_cuped_window is not distinct from old.cuped_window or new_event is null)) then
        return null;
    end if;
    -- Waits for a running fold, so that the conversion state read below is the one its rows were made from.
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    update cardinal.report_control_exposures as r
    set conversion_event = new_event,
        converted_at = (
            select min(t.time)
            from cardinal.report_conversion_state as v
            cross join lateral unnest(v.times) as t (time)
            where v.app_id = r.app_id and v.user_key = r.user_key and v.conversion_name = new_event
              and not v.test and t.time >= r.exposed_at
        ),
        pre_exposure_conversions = (
            select p.conversions
            from cardinal.pre_exposure_conversions(r.app_id, r.user_key, new_event, r.exposed_at, new_cuped_window,
                                                   null) as p
        )
    where r.app_id = target_app and r.campaign_id = target_campaign;
    return null;
end
$function$;
alter function cardinal.recompute_control_conversions() owner to cardinal_owner;
revoke all on function cardinal.recompute_control_conversions() from public;
comment on function cardinal.recompute_control_conversions() is
    'Trigger of campaign_settings: when a campaign''s conversion event or CUPED window is set, changed or '
    'removed, sets its report_control_exposures rows'' conversion_event and looks converted_at and '
    'pre_exposure_conversions up again in the folded conversion state (pending conversions are the next '
    'fold''s), under the state lock.';


create or replace trigger campaign_settings_recompute_control_conversions
    after insert or update of conversion_event, cuped_window or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.recompute_control_conversions();
comment on trigger campaign_settings_recompute_control_conversions on cardinal.campaign_settings is
    'Keeps report_control_exposures.converted_at and pre_exposure_conversions of the campaign''s conversion '
    'event and CUPED window.';


-- Looks up one campaign's converted_at and the outcomes in the window again, for the goal and window
-- triggers. The window is the campaign's (campaign_conversion_goals takes it from
-- campaign_settings for every ordinal), in its report time zone. Values are probed only for a goal converted
-- within the window: the others are null without a lookup.
create or replace function cardinal.refresh_campaign_receipt_conversions(app bigint, campaign text)
    returns void
    language sql
    set search_path = pg_catalog, pg_temp
    -- The outcomes' subqueries raise the estimate past jit_above_cost: compiling took 2–4 s of a 0.5 s update
    -- of the largest campaign of 300 k seeded events.
    set jit = off
as $function$
    update cardinal.report_campaign_receipts as r
    set (converted_at, window_revenue) = (
        select c.converted_at,
               -- A row without conversions (most) needs no window.
               case when array_remove(c.converted_at, null) = '{}' then '[null, null, null, null]'::jsonb
                    else to_jsonb(array(
                        select case when c.converted_at[g.ordinal] <= w.window_end then coalesce((
                                   select jsonb_object_agg(m.currency, m.amount)
                                   from (
                                       select t.currency, sum(t.amount) as amount
                                       from cardinal.report_conversion_value_state as v
                                       cross join lateral unnest(v.times, v.amounts, v.currencies)
                                           as t (time, amount, currency)
                                       where v.app_id = r.app_id and v.user_key = r.user_key
                                         and v.conversion_name = g.event and not v.test
                                         and t.time between r.first_received_at and w.window_end
                                       group by t.currency
                                   ) as m
                               ), '{}') end
                        from (
                            select cardinal.report_window_end(r.first_received_at, x.window_length, x.time_zone)
                                as window_end
                        ) as w
                        cross join unnest(x.conversion_events) with ordinality as g (event, ordinal)
                        order by g.ordinal
                    )) end
        from (
            -- No probe for a missing goal (most campaigns have fewer than four). OFFSET 0 keeps the planner
            -- from copying the array into both columns, which looked the conversions up twice.
            select array(
                select case when g.event is not null then (
                           select min(t.time)
                           from cardinal.report_conversion_state as v
                           cross join lateral unnest(v.times) as t (time)
                           where v.app_id = r.app_id and v.user_key = r.user_key and v.conversion_name = g.event
                             and not v.test and t.time >= r.first_received_at
                       ) end
                from unnest(x.conversion_events) with ordinality as g (event, ordinal)
                order by g.ordinal
            ) as converted_at
            offset 0
        ) as c
    )
    from (
        select coalesce((select ge.conversion_events
                         from cardinal.campaign_conversion_goal_events as ge
                         where ge.app_id = refresh_campaign_receipt_conversions.app
                           and ge.campaign_id = refresh_campaign_receipt_conversions.campaign),
                        array[null, null, null, null]::text[]) as conversion_events,
               s.conversion_window as window_length,
               coalesce(s.report_time_zone, a.report_time_zone) as time_zone
        from cardinal.apps as a
        left join cardinal.campaign_settings as s
            on s.app_id = a.app_id and s.campaign_id = refresh_campaign_receipt_conversions.campaign
        where a.app_id = refresh_campaign_receipt_conversions.app
    ) as x
    where r.app_id = refresh_campaign_receipt_conversions.app
      and r.campaign_id = refresh_campaign_receipt_conversions.campaign;
$function$;
alter function cardinal.refresh_campaign_receipt_conversions(bigint, text) owner to cardinal_owner;
revoke all on function cardinal.refresh_campaign_receipt_conversions(bigint, text) from public;
comment on function cardinal.refresh_campaign_receipt_conversions(bigint, text) is
    'Sets converted_at and window_revenue of the campaign''s report_campaign_receipts rows from the folded '
    'conversion and value state (report_conversion_state, report_conversion_value_state) and the campaign''s '
    'goals and window of the moment. The pending conversions are the pending view''s. For the goals'' and '
    'window''s triggers and for a migration that fills the table; the caller holds the state lock.';


-- A campaign's window that changes changes its rows' outcomes: the goals' recompute runs for it too.
create or replace function cardinal.recompute_campaign_receipt_conversions()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    changed record;
begin
    -- Nested: a record's fields are resolved for the whole condition, and only campaign_settings has these.
    if tg_table_name = 'campaign_settings' and tg_op = 'UPDATE' then
        if new.conversion_event is not distinct from old.conversion_event
           and new.conversion_window is not distinct from old.conversion_window then
            return null;
        end if;
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
revoke all on function cardinal.recompute_campaign_receipt_conversions() from public;
comment on function cardinal.recompute_campaign_receipt_conversions() is
    'Trigger of campaign_settings and campaign_conversion_events: when a campaign''s conversion goals or its '
    'window change, looks its report_campaign_receipts rows'' converted_at and window_revenue up again in the '
    'folded state (pending conversions are the pending view''s), under the state lock.';


create or replace trigger campaign_settings_recompute_campaign_receipts
    after insert or update of conversion_event, conversion_window or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.recompute_campaign_receipt_conversions();
comment on trigger campaign_settings_recompute_campaign_receipts on cardinal.campaign_settings is
    'Keeps report_campaign_receipts.converted_at and window_revenue of the campaign''s primary conversion '
    'event and window.';


create or replace trigger campaign_conversion_events_recompute_campaign_receipts
    after insert or update or delete on cardinal.campaign_conversion_events
    for each row
    execute function cardinal.recompute_campaign_receipt_conversions();
comment on trigger campaign_conversion_events_recompute_campaign_receipts on cardinal.campaign_conversion_events is
    'Keeps report_campaign_receipts.converted_at of the campaign''s further conversion events.';


-- The counts follow the rows. One function for the three triggers: the changed rows with a sign (+1 added,
-- -1 removed) are one source text that every statement reads; a statement per count table, then the
-- deletion of the counts that reached zero (an upsert cannot delete).
create or replace function cardinal.count_report_campaign_receipts()
    returns trigger
    language plpgsql
    -- Run by the fold, the deletion trigger and the goal recompute alike, whoever caused them.
    security definer
    set search_path = pg_catalog, pg_temp
    -- Transition tables have no statistics: hashed whatever their size.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
declare
    changes           text;
    changed_apps      bigint[];
    changed_campaigns text[];
begin
    changes := case tg_op
        when 'INSERT' then 'select 1 as sign, * from added_rows'
        when 'DELETE' then 'select -1 as sign, * from removed_rows'
        else 'select 1 as sign, * from added_rows union all select -1 as sign, * from removed_rows'
    end;
    execute format($sql$
        insert into cardinal.report_campaign_receipt_days as d
        select c.app_id, c.campaign_id, c.variant_key, r.day, sum(c.sign)
        from (%s) as c
        cross join lateral unnest(c.received_days) as r (day)
        group by 1, 2, 3, 4
        having sum(c.sign) <> 0
        order by 1, 2, 3, 4
        on conflict (app_id, campaign_id, variant_key, day) do update
        set recipients = d.recipients + excluded.recipients
        $sql$, changes);
    -- Most rows converted to nothing: they are left out before their outcomes are unnested.
    execute format($sql$
        insert into cardinal.report_campaign_cohort_days as d
        select c.app_id, c.campaign_id, c.variant_key, c.received_days[1], g.ordinal, sum(c.sign)
        from (%s) as c
        cross join lateral jsonb_array_elements(c.window_revenue) with ordinality as g (outcome, ordinal)
        where c.window_revenue <> '[null, null, null, null]' and jsonb_typeof(g.outcome) = 'object'
        group by 1, 2, 3, 4, 5
        having sum(c.sign) <> 0
        order by 1, 2, 3, 4, 5
        on conflict (app_id, campaign_id, variant_key, first_day, ordinal) do update
        set converters = d.converters + excluded.converters
        $sql$, changes);
    execute format($sql$
        insert into cardinal.report_campaign_cohort_revenue as d
        select c.app_id, c.campaign_id, c.variant_key, c.received_days[1], g.ordinal, m.key,
               sum(c.sign * m.value::numeric), sum(c.sign)
        from (%s) as c
        cross join lateral jsonb_array_elements(c.window_revenue) with ordinality as g (outcome, ordinal)
        cross join lateral jsonb_each(case when jsonb_typeof(g.outcome) = 'object' then g.outcome end) as m
        where c.window_revenue <> '[null, null, null, null]'
        group by 1, 2, 3, 4, 5, 6
        having sum(c.sign) <> 0 or sum(c.sign * m.value::numeric) <> 0
        order by 1, 2, 3, 4, 5, 6
        on conflict (app_id, campaign_id, variant_key, first_day, ordinal, currency) do update
        set amount = d.amount + excluded.amount, converters = d.converters + excluded.converters
        $sql$, changes);
    -- Zero is only ever left by the statements above, on the changed campaigns: their few count rows (days ×
    -- variants × goals) by index.
    execute format('select array_agg(distinct c.app_id), array_agg(distinct c.campaign_id) from (%s) as c', changes)
        into changed_apps, changed_campaigns;
    delete from cardinal.report_campaign_receipt_days as d
    where d.app_id = any(changed_apps) and d.campaign_id = any(changed_campaigns) and d.recipients = 0;
    delete from cardinal.report_campaign_cohort_days as d
    where d.app_id = any(changed_apps) and d.campaign_id = any(changed_campaigns) and d.converters = 0;
    delete from cardinal.report_campaign_cohort_revenue as d
    where d.app_id = any(changed_apps) and d.campaign_id = any(changed_campaigns) and d.converters = 0;
    return null;
end
$function$;
alter function cardinal.count_report_campaign_receipts() owner to cardinal_owner;
revoke all on function cardinal.count_report_campaign_receipts() from public;
comment on function cardinal.count_report_campaign_receipts() is
    'Statement trigger of report_campaign_receipts: adds the inserted rows'' contribution to '
    'report_campaign_receipt_days, report_campaign_cohort_days and report_campaign_cohort_revenue, subtracts '
    'the deleted rows'', both for an update, and deletes the counts that reach zero.';


create or replace trigger report_campaign_receipts_count_inserted
    after insert on cardinal.report_campaign_receipts
    referencing new table as added_rows
    for each statement
    execute function cardinal.count_report_campaign_receipts();
comment on trigger report_campaign_receipts_count_inserted on cardinal.report_campaign_receipts is
    'Keeps the campaign conversion counts an aggregate of the rows: adds the inserted rows.';


create or replace trigger report_campaign_receipts_count_updated
    after update on cardinal.report_campaign_receipts
    referencing old table as removed_rows new table as added_rows
    for each statement
    execute function cardinal.count_report_campaign_receipts();
comment on trigger report_campaign_receipts_count_updated on cardinal.report_campaign_receipts is
    'Keeps the campaign conversion counts an aggregate of the rows: the old rows out, the new ones in.';


create or replace trigger report_campaign_receipts_count_deleted
    after delete on cardinal.report_campaign_receipts
    referencing old table as removed_rows
    for each statement
    execute function cardinal.count_report_campaign_receipts();
comment on trigger report_campaign_receipts_count_deleted on cardinal.report_campaign_receipts is
    'Keeps the campaign conversion counts an aggregate of the rows: subtracts the deleted rows.';


-- The counts the rows make: the backfill, a recount and the tests read it.
create or replace view cardinal.report_control_exposure_days_of_rows as
select r.app_id, r.campaign_id,
       (r.exposed_at at time zone clock.time_zone)::date as exposed_day,
       r.control,
       coalesce(r.variant_id, '') as variant_key,
       coalesce((r.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
       count(*) as users,
       count(*) filter (where r.converted_at <= window_end.time) as converters,
       sum(r.pre_exposure_conversions) as sum_x,
       sum(r.pre_exposure_conversions * r.pre_exposure_conversions) as sum_x_squares,
       coalesce(sum(r.pre_exposure_conversions) filter (where r.converted_at <= window_end.time), 0) as sum_xy
from cardinal.report_control_exposures as r
join cardinal.apps as a on a.app_id = r.app_id
left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
cross join lateral (
    select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
           coalesce(s.conversion_window, interval '3 days') as window_length
) as clock
cross join lateral (
    select cardinal.report_window_end(r.exposed_at, clock.window_length, clock.time_zone) as time
) as window_end
group by 1, 2, 3, 4, 5, 6;
alter view cardinal.report_control_exposure_days_of_rows owner to cardinal_owner;
grant select on cardinal.report_control_exposure_days_of_rows to cardinal_reader;
comment on view cardinal.report_control_exposure_days_of_rows is
    'report_control_exposure_days computed from report_control_exposures and the current settings: what the '
    'triggers keep the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_control_exposure_days_of_rows', 'cardinal.report_control_exposure_days'
);


-- The counts the rows make: a recount and the tests read it.
create or replace view cardinal.report_control_goal_days_of_rows as
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
grant select on cardinal.report_control_goal_days_of_rows to cardinal_reader;
comment on view cardinal.report_control_goal_days_of_rows is
    'report_control_goal_days computed from report_control_exposures and the current settings: what the '
    'triggers keep the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_control_goal_days_of_rows', 'cardinal.report_control_goal_days'
);


-- The statement triggers of report_control_exposures: the changed rows' contribution to both counts, added or
-- subtracted.
create or replace function cardinal.count_control_exposure_days()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins, and hash aggregates of the changed rows before the
    -- sorts of the few counts they touch (sorting every changed row by the six keys took twice as long).
    set enable_nestloop = off
    set enable_sort = off
    set jit = off
as $function$
begin
    -- Each trigger declares only the transition tables of its event; the one statement below reads them
    -- through EXECUTE, so that it is written once.
    execute format($statement$
        -- Each changed row on its campaign's clock, read once by both counts.
        with changed as materialized (
            select c.sign, c.app_id, c.campaign_id,
                   (c.exposed_at at time zone clock.time_zone)::date as exposed_day,
                   c.control,
                   coalesce(c.variant_id, '') as variant_key,
                   coalesce((c.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
                   cardinal.report_window_end(c.exposed_at, clock.window_length, clock.time_zone) as window_end,
                   c.converted_at, c.further_converted_at, c.pre_exposure_conversions as x
            from (%s) as c
            join cardinal.apps as a on a.app_id = c.app_id
            left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
            cross join lateral (
                select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
                       coalesce(s.conversion_window, interval '3 days') as window_length
            ) as clock
        ),
        delta as materialized (
            select c.app_id, c.campaign_id, c.exposed_day, c.control, c.variant_key, c.second_arm_day,
                   sum(c.sign) as users,
                   coalesce(sum(c.sign) filter (where c.converted_at <= c.window_end), 0) as converters,
                   sum(c.sign * c.x) as sum_x,
                   sum(c.sign * c.x * c.x) as sum_x_squares,
                   coalesce(sum(c.sign * c.x) filter (where c.converted_at <= c.window_end), 0) as sum_xy
            from changed as c
            group by 1, 2, 3, 4, 5, 6
        ),
        -- The further goals converted within the window; rows without one (most) unnest to nothing.
        goal_delta as materialized (
            select c.app_id, c.campaign_id, c.exposed_day, c.control, c.variant_key, c.second_arm_day,
                   goal.ordinal::smallint as ordinal, sum(c.sign) as converters
            from changed as c
            cross join lateral unnest(c.further_converted_at) with ordinality as goal (converted_at, ordinal)
            where goal.converted_at <= c.window_end
            group by 1, 2, 3, 4, 5, 6, 7
        ),
        goal_counts as (
            insert into cardinal.report_control_goal_days as d
            select *
            from goal_delta
            -- An update that leaves a row's goals where they were changes nothing.
            where converters <> 0
            -- One order for every writer, so that two never wait for each other's rows the other way round.
            order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal
            on conflict (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal) do update
            set converters = d.converters + excluded.converters
        )
        insert into cardinal.report_control_exposure_days as d
        select *
        from delta
        -- An update that leaves a row where it was (most of a fold's) changes nothing.
        where users <> 0 or converters <> 0 or sum_x <> 0 or sum_x_squares <> 0 or sum_xy <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day
        on conflict (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day) do update set
            users = d.users + excluded.users,
            converters = d.converters + excluded.converters,
            sum_x = d.sum_x + excluded.sum_x,
            sum_x_squares = d.sum_x_squares + excluded.sum_x_squares,
            sum_xy = d.sum_xy + excluded.sum_xy
    $statement$,
        case tg_op
            when 'INSERT' then 'select 1 as sign, n.* from added as n'
            when 'DELETE' then 'select -1 as sign, o.* from removed as o'
            else 'select 1 as sign, n.* from added as n union all select -1 as sign, o.* from removed as o'
        end);
    if tg_op <> 'INSERT' then
        delete from cardinal.report_control_exposure_days where users = 0;
        delete from cardinal.report_control_goal_days where converters = 0;
    end if;
    return null;
end
$function$;
alter function cardinal.count_control_exposure_days() owner to cardinal_owner;
revoke all on function cardinal.count_control_exposure_days() from public;
comment on function cardinal.count_control_exposure_days() is
    'Statement trigger of report_control_exposures: adds the inserted and new rows to '
    'report_control_exposure_days (users, converters and CUPED''s sums), and their further goals converted within the window to '
    'report_control_goal_days, and subtracts the deleted and old ones, with the campaign''s current window '
    'and zone; deletes the counts that reach zero.';


create or replace trigger report_control_exposures_count_inserted
    after insert on cardinal.report_control_exposures
    referencing new table as added
    for each statement
    execute function cardinal.count_control_exposure_days();
comment on trigger report_control_exposures_count_inserted on cardinal.report_control_exposures is
    'Keeps report_control_exposure_days and report_control_goal_days the aggregates of the rows.';


create or replace trigger report_control_exposures_count_updated
    after update on cardinal.report_control_exposures
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_control_exposure_days();
comment on trigger report_control_exposures_count_updated on cardinal.report_control_exposures is
    'Keeps report_control_exposure_days and report_control_goal_days the aggregates of the rows.';


create or replace trigger report_control_exposures_count_deleted
    after delete on cardinal.report_control_exposures
    referencing old table as removed
    for each statement
    execute function cardinal.count_control_exposure_days();
comment on trigger report_control_exposures_count_deleted on cardinal.report_control_exposures is
    'Keeps report_control_exposure_days and report_control_goal_days the aggregates of the rows.';


-- A recount of one campaign's counts, or of an app's (campaign NULL), from the rows.
create or replace function cardinal.recount_control_exposure_days(app_id bigint, campaign_id text)
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if recount_control_exposure_days.campaign_id is null then
        delete from cardinal.report_control_exposure_days as d
        where d.app_id = recount_control_exposure_days.app_id;
        insert into cardinal.report_control_exposure_days
        select * from cardinal.report_control_exposure_days_of_rows as r
        where r.app_id = recount_control_exposure_days.app_id;
    else
        delete from cardinal.report_control_exposure_days as d
        where d.app_id = recount_control_exposure_days.app_id
          and d.campaign_id = recount_control_exposure_days.campaign_id;
        insert into cardinal.report_control_exposure_days
        select * from cardinal.report_control_exposure_days_of_rows as r
        where r.app_id = recount_control_exposure_days.app_id
          and r.campaign_id = recount_control_exposure_days.campaign_id;
    end if;
    delete from cardinal.report_control_goal_days as d
    where d.app_id = recount_control_exposure_days.app_id
      and (recount_control_exposure_days.campaign_id is null
           or d.campaign_id = recount_control_exposure_days.campaign_id);
    insert into cardinal.report_control_goal_days
    select * from cardinal.report_control_goal_days_of_rows as r
    where r.app_id = recount_control_exposure_days.app_id
      and (recount_control_exposure_days.campaign_id is null
           or r.campaign_id = recount_control_exposure_days.campaign_id)
    order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day, ordinal;
end
$function$;
alter function cardinal.recount_control_exposure_days(bigint, text) owner to cardinal_owner;
revoke all on function cardinal.recount_control_exposure_days(bigint, text) from public;
comment on function cardinal.recount_control_exposure_days(bigint, text) is
    'Makes report_control_exposure_days and report_control_goal_days of a campaign (of every campaign of the '
    'app when campaign_id is NULL) anew from report_control_exposures and the current settings. The caller '
    'holds the state lock.';


-- A window or zone change moves the day a conversion counts on, and which conversions are within the window:
-- the control counts of the campaigns concerned are recounted (both the exposure and the goal counts).
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
        -- Waits for a running fold, as recompute_control_conversions does: the rows read are the ones it left.
        perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
        perform cardinal.recount_control_exposure_days(target.app_id, target.campaign_id);
    end loop;
    return null;
end
$function$;
alter function cardinal.recount_control_exposure_days_of_settings() owner to cardinal_owner;
revoke all on function cardinal.recount_control_exposure_days_of_settings() from public;
comment on function cardinal.recount_control_exposure_days_of_settings() is
    'Statement trigger of campaign_settings and apps: recounts report_control_exposure_days and '
    'report_control_goal_days of the campaigns whose window or zone changed (of the app whose zone '
    'changed), after their row triggers, under the state lock.';


create or replace trigger campaign_settings_recount_control_exposure_days_inserted
    after insert on cardinal.campaign_settings
    referencing new table as added
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();
comment on trigger campaign_settings_recount_control_exposure_days_inserted on cardinal.campaign_settings is
    'A campaign''s window or zone set: its control counts anew.';


create or replace trigger campaign_settings_recount_control_exposure_days_updated
    after update on cardinal.campaign_settings
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();
comment on trigger campaign_settings_recount_control_exposure_days_updated on cardinal.campaign_settings is
    'A campaign''s window or zone changed: its control counts anew.';


create or replace trigger campaign_settings_recount_control_exposure_days_deleted
    after delete on cardinal.campaign_settings
    referencing old table as removed
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();
comment on trigger campaign_settings_recount_control_exposure_days_deleted on cardinal.campaign_settings is
    'A campaign''s settings removed: its control counts anew with the defaults.';


create or replace trigger apps_recount_control_exposure_days
    after update on cardinal.apps
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();
comment on trigger apps_recount_control_exposure_days on cardinal.apps is
    'An app''s report time zone changed: its control counts anew.';


-- One campaign's further_converted_at looked up again in the folded conversion state: after a change of its
-- goals (trigger below) and by a migration that fills the column. One primary-key probe per row and goal; only
-- the rows whose value changes are written, so that the counting triggers see only those.
create or replace function cardinal.refresh_control_goal_conversions(app bigint, campaign text)
    returns void
    language sql
    set search_path = pg_catalog, pg_temp
    -- The self-join of the campaign's rows is hashed whatever the estimates; the probes' subqueries would
    -- otherwise raise the cost past jit_above_cost.
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
revoke all on function cardinal.refresh_control_goal_conversions(bigint, text) from public;
comment on function cardinal.refresh_control_goal_conversions(bigint, text) is
    'Sets further_converted_at of the campaign''s report_control_exposures rows from the folded conversion '
    'state (report_conversion_state) and the campaign''s further goals of the moment '
    '(campaign_conversion_goal_events), writing only the rows it changes. The pending conversions are '
    'the pending view''s. For the goals'' trigger and for a migration that fills the column; the caller holds '
    'the state lock.';


-- A campaign's further goals that change: its rows look their conversions up again, once per campaign.
create or replace function cardinal.recompute_control_goal_conversions()
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
revoke all on function cardinal.recompute_control_goal_conversions() from public;
comment on function cardinal.recompute_control_goal_conversions() is
    'Statement trigger of campaign_conversion_events: when a campaign''s further conversion goals change, '
    'looks its report_control_exposures rows'' further_converted_at up again in the folded conversion state '
    '(pending conversions are the pending view''s), once per campaign, under the state lock.';


create or replace trigger campaign_conversion_events_recompute_control_goals_inserted
    after insert on cardinal.campaign_conversion_events
    referencing new table as added
    for each statement
    execute function cardinal.recompute_control_goal_conversions();
comment on trigger campaign_conversion_events_recompute_control_goals_inserted on cardinal.campaign_conversion_events is
    'Keeps report_control_exposures.further_converted_at of the campaign''s further goals.';


create or replace trigger campaign_conversion_events_recompute_control_goals_updated
    after update on cardinal.campaign_conversion_events
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.recompute_control_goal_conversions();
comment on trigger campaign_conversion_events_recompute_control_goals_updated on cardinal.campaign_conversion_events is
    'Keeps report_control_exposures.further_converted_at of the campaign''s further goals.';


create or replace trigger campaign_conversion_events_recompute_control_goals_deleted
    after delete on cardinal.campaign_conversion_events
    referencing old table as removed
    for each statement
    execute function cardinal.recompute_control_goal_conversions();
comment on trigger campaign_conversion_events_recompute_control_goals_deleted on cardinal.campaign_conversion_events is
    'Keeps report_control_exposures.further_converted_at of the campaign''s further goals.';


-- What the state makes: the backfill and the tests read these; the triggers keep the tables equal to them.
create or replace view cardinal.report_arm_user_days_of_rows as
select s.user_key, s.app_id, s.campaign_id, s.control, s.variant_key, s.day, count(*)::integer as groups
from (
    -- Distinct per state row: the fold's `||` can repeat a day within a row.
    select distinct u.group_id, u.user_key, g.app_id, g.campaign_id, false as control,
           coalesce(g.variant_id, '') as variant_key, d.day
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    cross join unnest(u.send_days) as d (day)
    where g.campaign_id is not null and not g.test and d.day is not null
    union all
    select distinct u.group_id, u.user_key, g.app_id, g.campaign_id, true, '', d.day
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    cross join unnest(u.control_send_days) as d (day)
    where g.campaign_id is not null and not g.test and d.day is not null
) as s
group by 1, 2, 3, 4, 5, 6;
alter view cardinal.report_arm_user_days_of_rows owner to cardinal_owner;
grant select on cardinal.report_arm_user_days_of_rows to cardinal_reader;
comment on view cardinal.report_arm_user_days_of_rows is
    'report_arm_user_days computed from report_user_state: what the triggers keep the table equal to.';
select cardinal.copy_column_comments('cardinal.report_arm_user_days_of_rows', 'cardinal.report_arm_user_days');


create or replace view cardinal.report_arm_day_users_of_rows as
select p.app_id, p.campaign_id, p.control, p.variant_key, p.day, p.previous_day, count(*) as users
from (
    select r.app_id, r.campaign_id, r.control, r.variant_key, r.day,
           coalesce(lag(r.day) over (partition by r.user_key, r.app_id, r.campaign_id, r.control, r.variant_key
                                     order by r.day),
                    '-infinity') as previous_day
    from cardinal.report_arm_user_days_of_rows as r
) as p
group by 1, 2, 3, 4, 5, 6;
alter view cardinal.report_arm_day_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_arm_day_users_of_rows to cardinal_reader;
comment on view cardinal.report_arm_day_users_of_rows is
    'report_arm_day_users computed from report_user_state (the pairs of report_arm_user_days_of_rows): what '
    'the triggers keep the table equal to.';
select cardinal.copy_column_comments('cardinal.report_arm_day_users_of_rows', 'cardinal.report_arm_day_users');


-- The statement triggers of report_user_state: the changed rows' send days, netted and applied, and the pairs
-- of the arms whose day set changed moved.
create or replace function cardinal.count_arm_day_users()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates.
    set enable_nestloop = off
    set jit = off
as $function$
declare
    changes text;
begin
    -- Each trigger declares only the transition tables of its event; the one statement below reads them
    -- through EXECUTE, so that it is written once. Rows without a send day add nothing, and an update that
    -- keeps a row's send days (most of a fold's: impressions, clicks) would net to nothing: both are left out
    -- before anything is unnested or joined.
    changes := case tg_op
        when 'INSERT' then
            'select 1 as sign, n.group_id, n.user_key, n.send_days, n.control_send_days from added as n
             where n.send_days is not null or n.control_send_days is not null'
        when 'DELETE' then
            'select -1 as sign, o.group_id, o.user_key, o.send_days, o.control_send_days from removed as o
             where o.send_days is not null or o.control_send_days is not null'
        else 'select 1 as sign, n.group_id, n.user_key, n.send_days, n.control_send_days from added as n
              where (n.send_days is not null or n.control_send_days is not null)
                and not exists (
                    select from removed as o
                    where o.group_id = n.group_id and o.user_key = n.user_key
                      and o.send_days is not distinct from n.send_days
                      and o.control_send_days is not distinct from n.control_send_days)
              union all
              select -1 as sign, o.group_id, o.user_key, o.send_days, o.control_send_days from removed as o
              where (o.send_days is not null or o.control_send_days is not null)
                and not exists (
                    select from added as n
                    where n.group_id = o.group_id and n.user_key = o.user_key
                      and n.send_days is not distinct from o.send_days
                      and n.control_send_days is not distinct from o.control_send_days)'
    end;
    execute format($statement$
        with changed as materialized (%s),
        -- Per user, arm and day, the groups gained or lost; an update that keeps a row's days nets to nothing.
        delta as materialized (
            select s.user_key, s.app_id, s.campaign_id, s.control, s.variant_key, s.day,
                   sum(s.sign)::integer as groups
            from (
                select distinct c.sign, c.group_id, c.user_key, g.app_id, g.campaign_id, false as control,
                       coalesce(g.variant_id, '') as variant_key, d.day
                from changed as c
                join cardinal.report_groups as g on g.group_id = c.group_id
                cross join unnest(c.send_days) as d (day)
                where g.campaign_id is not null and not g.test and d.day is not null
                union all
                select distinct c.sign, c.group_id, c.user_key, g.app_id, g.campaign_id, true, '', d.day
                from changed as c
                join cardinal.report_groups as g on g.group_id = c.group_id
                cross join unnest(c.control_send_days) as d (day)
                where g.campaign_id is not null and not g.test and d.day is not null
            ) as s
            group by 1, 2, 3, 4, 5, 6
            having sum(s.sign) <> 0
        ),
        kept as materialized (
            select k.user_key, k.app_id, k.campaign_id, k.control, k.variant_key, k.day, k.groups
            from cardinal.report_arm_user_days as k
            where k.user_key = any(array(select distinct d.user_key from delta as d))
        ),
        -- The arms whose day set changes: a day that gains its first group or loses its last.
        moved as materialized (
            select distinct d.user_key, d.app_id, d.campaign_id, d.control, d.variant_key
            from delta as d
            left join kept as k using (user_key, app_id, campaign_id, control, variant_key, day)
            where coalesce(k.groups, 0) = 0 or coalesce(k.groups, 0) + d.groups = 0
        ),
        days as (
            select -1 as sign, k.user_key, k.app_id, k.campaign_id, k.control, k.variant_key, k.day
            from kept as k
            join moved as m using (user_key, app_id, campaign_id, control, variant_key)
            union all
            select 1, x.user_key, x.app_id, x.campaign_id, x.control, x.variant_key, x.day
            from (
                select user_key, app_id, campaign_id, control, variant_key, day,
                       coalesce(k.groups, 0) + coalesce(d.groups, 0) as groups
                from (
                    select k.user_key, k.app_id, k.campaign_id, k.control, k.variant_key, k.day, k.groups
                    from kept as k
                    join moved as m using (user_key, app_id, campaign_id, control, variant_key)
                ) as k
                full join (
                    select d.user_key, d.app_id, d.campaign_id, d.control, d.variant_key, d.day, d.groups
                    from delta as d
                    join moved as m using (user_key, app_id, campaign_id, control, variant_key)
                ) as d using (user_key, app_id, campaign_id, control, variant_key, day)
            ) as x
            where x.groups > 0
        ),
        pairs as (
            select y.sign, y.app_id, y.campaign_id, y.control, y.variant_key, y.day,
                   coalesce(lag(y.day) over (partition by y.sign, y.user_key, y.app_id, y.campaign_id, y.control,
                                                          y.variant_key
                                             order by y.day),
                            '-infinity') as previous_day
            from days as y
        ),
        stored as (
            insert into cardinal.report_arm_user_days as u
            select *
            from delta
            -- One order for every writer, so that two never wait for each other's rows the other way round.
            order by user_key, app_id, campaign_id, control, variant_key, day
            on conflict (user_key, app_id, campaign_id, control, variant_key, day) do update set
                groups = u.groups + excluded.groups
        )
        insert into cardinal.report_arm_day_users as c
        select p.app_id, p.campaign_id, p.control, p.variant_key, p.day, p.previous_day, sum(p.sign) as users
        from pairs as p
        group by 1, 2, 3, 4, 5, 6
        having sum(p.sign) <> 0
        order by 1, 2, 3, 4, 5, 6
        on conflict (app_id, campaign_id, control, variant_key, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$, changes);
    -- Only a deletion or an update takes a group from a day, but any new day can move a pair to zero (the pair
    -- it splits).
    if tg_op <> 'INSERT' then
        delete from cardinal.report_arm_user_days where groups = 0;
    end if;
    delete from cardinal.report_arm_day_users where users = 0;
    return null;
end
$function$;
alter function cardinal.count_arm_day_users() owner to cardinal_owner;
revoke all on function cardinal.count_arm_day_users() from public;
comment on function cardinal.count_arm_day_users() is
    'Statement trigger of report_user_state: nets the changed rows'' send and control send days per '
    'user, arm and day into report_arm_user_days and moves the day pairs of the arms whose day set changed in '
    'report_arm_day_users; deletes the days and counts that reach zero.';


create or replace trigger report_user_state_count_arm_days_inserted
    after insert on cardinal.report_user_state
    referencing new table as added
    for each statement
    execute function cardinal.count_arm_day_users();
comment on trigger report_user_state_count_arm_days_inserted on cardinal.report_user_state is
    'Keeps report_arm_user_days and report_arm_day_users what the state makes.';


create or replace trigger report_user_state_count_arm_days_updated
    after update on cardinal.report_user_state
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_arm_day_users();
comment on trigger report_user_state_count_arm_days_updated on cardinal.report_user_state is
    'Keeps report_arm_user_days and report_arm_day_users what the state makes.';


create or replace trigger report_user_state_count_arm_days_deleted
    after delete on cardinal.report_user_state
    referencing old table as removed
    for each statement
    execute function cardinal.count_arm_day_users();
comment on trigger report_user_state_count_arm_days_deleted on cardinal.report_user_state is
    'Keeps report_arm_user_days and report_arm_day_users what the state makes.';


-- The kinds of days a state row gives its finding group, as report_finding_day_users counts them: one
-- definition for the trigger, the backfill and the views that check them.
create or replace function cardinal.report_finding_kind_days(
    channel                 text,
    impression_days         date[],
    dismissal_days          date[],
    control_impression_days date[],
    send_days               date[],
    control_send_days       date[]
)
    returns table (kind text, day date)
    language sql
    immutable
as $function$
    select 'impression', d
    from unnest(report_finding_kind_days.impression_days) as d
    where report_finding_kind_days.channel in ('content_card', 'in_app_message', 'banner', 'feature_flag')
    union all
    select 'dismissal', d
    from unnest(report_finding_kind_days.dismissal_days) as d
    where report_finding_kind_days.channel in ('content_card', 'in_app_message', 'banner')
    union all
    select 'control_impression', d
    from unnest(report_finding_kind_days.control_impression_days) as d
    where report_finding_kind_days.channel in ('content_card', 'in_app_message', 'feature_flag')
    union all
    select 'exposure', d
    from unnest(report_finding_kind_days.impression_days || report_finding_kind_days.control_impression_days
                || case when report_finding_kind_days.channel = 'push'
                        then report_finding_kind_days.send_days || report_finding_kind_days.control_send_days
                   end) as d
$function$;
alter function cardinal.report_finding_kind_days(text, date[], date[], date[], date[], date[]) owner to cardinal_owner;
comment on function cardinal.report_finding_kind_days(text, date[], date[], date[], date[], date[]) is
    'The days of a report_user_state row (of a group of channel) by the kinds report_finding_day_users counts: '
    'impression (content cards, in-app messages, banners, feature flags), dismissal (the first three), '
    'control_impression (content cards, in-app messages, feature flags), exposure (impressions and control '
    'impressions, and for push sends and control sends too). Days may repeat and be NULL.';


-- The kinds of days a state row gives its campaign or canvas, as report_source_day_users counts them.
create or replace function cardinal.report_source_kind_days(
    channel                 text,
    impression_days         date[],
    control_impression_days date[],
    send_days               date[],
    control_send_days       date[]
)
    returns table (kind text, day date)
    language sql
    immutable
as $function$
    select 'send', d
    from unnest(report_source_kind_days.send_days || report_source_kind_days.control_send_days) as d
    union all
    select 'control_send', d
    from unnest(report_source_kind_days.control_send_days) as d
    union all
    select 'control_impression', d
    from unnest(report_source_kind_days.control_impression_days) as d
    union all
    select 'variant_impression', d
    from unnest(report_source_kind_days.impression_days) as d
    where report_source_kind_days.channel in ('content_card', 'in_app_message', 'feature_flag')
$function$;
alter function cardinal.report_source_kind_days(text, date[], date[], date[], date[]) owner to cardinal_owner;
comment on function cardinal.report_source_kind_days(text, date[], date[], date[], date[]) is
    'The days of a report_user_state row (of a group of channel) by the kinds report_source_day_users counts: '
    'send (sends and control sends), control_send, control_impression, variant_impression '
    '(impressions of content cards, in-app messages and feature flags). Days may repeat and be NULL.';


-- The arms a report_user_state row exposed its user to, over all its days: a variant's (the group's variant_id,
-- NULL being an arm of its own) and control. 'c' for control, 'v' || variant for a variant, as
-- report_several_arm_users compares them.
create or replace function cardinal.report_row_arms(
    variant_id              text,
    channel                 text,
    impression_days         date[],
    control_impression_days date[],
    send_days               date[],
    control_send_days       date[]
)
    returns table (arm text)
    language sql
    immutable
as $function$
    select 'v' || coalesce(report_row_arms.variant_id, '')
    where report_row_arms.impression_days is not null
       or (report_row_arms.channel = 'push' and report_row_arms.send_days is not null)
    union all
    select 'c'
    where report_row_arms.control_impression_days is not null
       or (report_row_arms.channel = 'push' and report_row_arms.control_send_days is not null)
$function$;
alter function cardinal.report_row_arms(text, text, date[], date[], date[], date[]) owner to cardinal_owner;
comment on function cardinal.report_row_arms(text, text, date[], date[], date[], date[]) is
    'The arms a report_user_state row (of a group of variant_id and channel) exposed its user to: '
    '''v'' || variant (NULL variant as ''v'') for impressions, and for push sends; ''c'' for control '
    'impressions, and for push control sends. Variant ids are never empty, so the keys compare as the arms.';


create or replace function cardinal.assign_report_finding()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.report_findings
        (app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version)
    values (new.app_id, new.campaign_id, new.canvas_id, new.canvas_step_id, new.channel, new.platform,
            new.sdk_version, new.app_version)
    on conflict on constraint report_findings_key do nothing;
    select f.finding_id into strict new.finding_id
    from cardinal.report_findings as f
    where f.app_id = new.app_id
      and f.campaign_id is not distinct from new.campaign_id
      and f.canvas_id is not distinct from new.canvas_id
      and f.canvas_step_id is not distinct from new.canvas_step_id
      and f.channel = new.channel
      and f.platform is not distinct from new.platform
      and f.sdk_version is not distinct from new.sdk_version
      and f.app_version is not distinct from new.app_version;
    return new;
end
$function$;
alter function cardinal.assign_report_finding() owner to cardinal_owner;
revoke all on function cardinal.assign_report_finding() from public;
comment on function cardinal.assign_report_finding() is
    'Row trigger of report_groups inserts: sets finding_id, making the finding group when it is new. '
    'Groups are made a few at a time (thousands in all), so a row trigger costs nothing that counts.';


create or replace trigger report_groups_assign_finding
    before insert on cardinal.report_groups
    for each row
    execute function cardinal.assign_report_finding();
comment on trigger report_groups_assign_finding on cardinal.report_groups is
    'Sets the new group''s finding_id.';


-- What the state makes: the backfill and the tests read these; the triggers keep the tables equal to them.
create or replace view cardinal.report_finding_day_users_of_rows as
select p.finding_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.finding_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.finding_id, d.user_key, d.kind order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct g.finding_id, u.user_key, k.kind, k.day
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        cross join cardinal.report_finding_kind_days(g.channel, u.impression_days, u.dismissal_days,
                                                     u.control_impression_days, u.send_days,
                                                     u.control_send_days) as k
        where not g.test and (g.campaign_id is not null or g.canvas_id is not null) and k.day is not null
    ) as d
) as p
group by 1, 2, 3, 4;
alter view cardinal.report_finding_day_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_finding_day_users_of_rows to cardinal_reader;
comment on view cardinal.report_finding_day_users_of_rows is
    'report_finding_day_users computed from report_user_state: what the triggers keep the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_finding_day_users_of_rows', 'cardinal.report_finding_day_users'
);


create or replace view cardinal.report_source_day_users_of_rows as
select p.app_id, p.campaign_id, p.canvas_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.app_id, d.campaign_id, d.canvas_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.app_id, d.campaign_id, d.canvas_id, d.user_key, d.kind
                                     order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct g.app_id, coalesce(g.campaign_id, '') as campaign_id, coalesce(g.canvas_id, '') as canvas_id,
               u.user_key, k.kind, k.day
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        cross join cardinal.report_source_kind_days(g.channel, u.impression_days, u.control_impression_days,
                                                    u.send_days, u.control_send_days) as k
        where not g.test and (g.campaign_id is not null or g.canvas_id is not null) and k.day is not null
    ) as d
) as p
group by 1, 2, 3, 4, 5, 6;
alter view cardinal.report_source_day_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_source_day_users_of_rows to cardinal_reader;
comment on view cardinal.report_source_day_users_of_rows is
    'report_source_day_users computed from report_user_state: what the triggers keep the table equal to.';
select cardinal.copy_column_comments('cardinal.report_source_day_users_of_rows', 'cardinal.report_source_day_users');


create or replace view cardinal.report_several_arm_users_of_rows as
select g.app_id, coalesce(g.campaign_id, '') as campaign_id, coalesce(g.canvas_id, '') as canvas_id, u.user_key
from cardinal.report_user_state as u
join cardinal.report_groups as g on g.group_id = u.group_id
cross join cardinal.report_row_arms(g.variant_id, g.channel, u.impression_days, u.control_impression_days,
                                    u.send_days, u.control_send_days) as a
where not g.test and (g.campaign_id is not null or g.canvas_id is not null)
group by 1, 2, 3, 4
having count(distinct a.arm) > 1;
alter view cardinal.report_several_arm_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_several_arm_users_of_rows to cardinal_reader;
comment on view cardinal.report_several_arm_users_of_rows is
    'report_several_arm_users computed from report_user_state: what the triggers keep the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_several_arm_users_of_rows', 'cardinal.report_several_arm_users'
);


-- The counting triggers join each row of the statement to its own report group before the touched users.
--
-- Design notes (why, not what):
--
-- * A rebuild of the 10 M bench ran out of disk (59.9 GB of temporary files) in count_finding_day_users. An
--   auto_explain of a 1 M rebuild showed why: in `versions` the planner, which sees 15 rows where the statement's
--   transition table and touched users hold 437,457, joined touched to report_groups on the campaign first,
--   80,402,055 rows (every touched user with every group of the campaign), hashed in 2,048 batches: 7 GB of
--   temporary files for that one statement. A fold touches few users and never showed it; a rebuild touches all.
--   Joining each row to its own group first (a subquery kept from being pulled up by OFFSET 0) leaves the planner
--   no such order. count_session_units joins the same way and gets the same order.
create or replace function cardinal.count_finding_day_users()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates; the users' rows
    -- are found by index conditions on arrays, which take no join decision.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
declare
    -- The statement's rows whose counted days may have changed, on both sides of an update (one that moves a
    -- row to another user or group changes two users' or groups' days): an update that keeps a row's
    -- impression, dismissal, control impression, send and control send days is left out.
    day_changes text;
    -- The same for the interactions: the rows whose clicks, dismissals, first impression or first control
    -- exposures may have changed.
    interaction_changes text;
    -- The touched users' rows before and after the statement, in the columns the counts read, from their rows
    -- now (current_rows) and the transition tables; report_state_versions says how an upsert is counted once.
    versions text;
begin
    versions := cardinal.report_state_versions(
        tg_op, array['group_id', 'user_key'],
        array['group_id', 'user_key', 'impression_days', 'dismissal_days', 'control_impression_days', 'send_days',
              'control_send_days', 'first_impression_at', 'first_control_impression_at', 'first_control_send_at',
              'click_times', 'dismissal_times']);
    day_changes := cardinal.report_user_state_changes(
        tg_op,
        array['impression_days', 'dismissal_days', 'control_impression_days', 'send_days', 'control_send_days']);
    interaction_changes := cardinal.report_user_state_changes(
        tg_op,
        array['click_times', 'dismissal_times', 'first_impression_at', 'first_control_impression_at',
              'first_control_send_at']);
    execute format($statement$
        with day_changed as materialized (%1$s),
        interaction_changed as materialized (%2$s),
        -- The finding groups and campaigns (canvases) of the rows whose days changed, per user: the user's
        -- other rows of a campaign change only its campaign's counts and arms.
        touched_findings as materialized (
            select distinct g.finding_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key,
                   coalesce(g.canvas_id, '') as canvas_key, c.user_key
            from day_changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where not g.test and (g.campaign_id is not null or g.canvas_id is not null)
        ),
        -- The (app, campaign or canvas, user) whose day sets may have changed.
        touched_days as materialized (
            select distinct t.app_id, t.campaign_key, t.canvas_key, t.user_key
            from touched_findings as t
        ),
        -- The (app, campaign or canvas, user) whose interactions may have changed: a test row's first
        -- impression or control exposure judges the user's other rows of the campaign too.
        touched_interactions as materialized (
            select distinct g.app_id, coalesce(g.campaign_id, '') as campaign_key,
                   coalesce(g.canvas_id, '') as canvas_key, c.user_key
            from interaction_changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where g.campaign_id is not null or g.canvas_id is not null
        ),
        touched as materialized (
            select * from touched_days
            union
            select * from touched_interactions
        ),
        -- The touched users' rows now, with the transaction and command that wrote each.
        current_rows as materialized (
            select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.control_impression_days,
                   u.send_days, u.control_send_days, u.first_impression_at, u.first_control_impression_at,
                   u.first_control_send_at, u.click_times, u.dismissal_times,
                   u.xmin::text || ':' || u.cmin::text as written_by
            from cardinal.report_user_state as u
            where u.user_key = any(array(select distinct t.user_key from touched as t))
        ),
        -- Their rows of the touched sources before (after false) and after the statement.
        versions as materialized (
            select r.after, r.app_id, t.campaign_key, t.canvas_key, r.campaign_id, r.canvas_step_id, r.finding_id,
                   r.variant_id, r.channel, r.test, r.user_key, r.impression_days, r.dismissal_days,
                   r.control_impression_days, r.send_days, r.control_send_days, r.first_impression_at,
                   r.first_control_impression_at, r.first_control_send_at, r.click_times, r.dismissal_times
            from (
                -- Each row with its own report group first (OFFSET 0 keeps the join order): joined to touched
                -- first, the planner, blind to the transition tables' sizes, paired every touched user with
                -- every report group of the campaign.
                select r.*, g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.finding_id, g.variant_id,
                       g.channel, g.test
                from (%3$s
                ) as r
                join cardinal.report_groups as g on g.group_id = r.group_id
                offset 0
            ) as r
            join touched as t
                on t.app_id = r.app_id and t.campaign_key = coalesce(r.campaign_id, '')
               and t.canvas_key = coalesce(r.canvas_id, '') and t.user_key = r.user_key
        ),
        -- The versions of the non-test rows whose sources' days may have changed.
        day_versions as materialized (
            select v.*
            from versions as v
            join touched_days as t
                on t.app_id = v.app_id and t.campaign_key = v.campaign_key and t.canvas_key = v.canvas_key
               and t.user_key = v.user_key
            where not v.test
        ),
        -- Each version's pairs, netted below: +1 after, -1 before.
        pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct v.after, v.finding_id, v.user_key, k.kind, k.day
                from day_versions as v
                join touched_findings as t on t.finding_id = v.finding_id and t.user_key = v.user_key
                cross join cardinal.report_finding_kind_days(v.channel, v.impression_days, v.dismissal_days,
                                                             v.control_impression_days, v.send_days,
                                                             v.control_send_days) as k
                where k.day is not null
            ) as d
        ),
        source_pairs as (
            select d.after, d.app_id, d.campaign_key, d.canvas_key, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.app_id, d.campaign_key, d.canvas_key, d.user_key,
                                                          d.kind
                                             order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct v.after, v.app_id, v.campaign_key, v.canvas_key, v.user_key, k.kind, k.day
                from day_versions as v
                cross join cardinal.report_source_kind_days(v.channel, v.impression_days, v.control_impression_days,
                                                            v.send_days, v.control_send_days) as k
                where k.day is not null
            ) as d
        ),
        source_counts as (
            insert into cardinal.report_source_day_users as c
            select p.app_id, p.campaign_key, p.canvas_key, p.kind, p.day, p.previous_day,
                   sum(case when p.after then 1 else -1 end) as users
            from source_pairs as p
            group by 1, 2, 3, 4, 5, 6
            having sum(case when p.after then 1 else -1 end) <> 0
            order by 1, 2, 3, 4, 5, 6
            on conflict (app_id, campaign_id, canvas_id, kind, day, previous_day) do update set
                users = c.users + excluded.users
        ),
        -- The touched users and sources that have two arms or more after the statement.
        several as materialized (
            select v.app_id, v.campaign_key, v.canvas_key, v.user_key
            from day_versions as v
            cross join cardinal.report_row_arms(v.variant_id, v.channel, v.impression_days,
                                                v.control_impression_days, v.send_days, v.control_send_days) as a
            where v.after
            group by 1, 2, 3, 4
            having count(distinct a.arm) > 1
        ),
        -- Rows leave and join report_several_arm_users apart (a statement cannot delete and insert one key).
        left_several as (
            -- A hash join with the touched keys: the table holds a few users per campaign, and an index
            -- condition on an array of every touched user would be searched once per row.
            delete from cardinal.report_several_arm_users as s
            using touched_days as t
            where s.app_id = t.app_id and s.campaign_id = t.campaign_key and s.canvas_id = t.canvas_key
              and s.user_key = t.user_key
              and not exists (
                  select from several as n
                  where n.app_id = s.app_id and n.campaign_key = s.campaign_id and n.canvas_key = s.canvas_id
                    and n.user_key = s.user_key)
        ),
        joined_several as (
            insert into cardinal.report_several_arm_users
            select * from several
            order by 1, 2, 3, 4
            on conflict on constraint report_several_arm_users_pkey do nothing
        ),
        -- The versions of the rows whose sources' interactions may have changed, each with its user's first
        -- impression of the step and whether the user was exposed to control in the source, in that version.
        interaction_versions as materialized (
            select v.after, v.app_id, v.campaign_key, v.canvas_key, v.campaign_id, v.finding_id, v.channel, v.test,
                   v.user_key, v.click_times, v.dismissal_times,
                   min(v.first_impression_at) over (
                       partition by v.after, v.app_id, v.campaign_key, v.canvas_key, v.canvas_step_id, v.user_key
                   ) as step_first_impression_at,
                   bool_or(v.first_control_impression_at is not null or v.first_control_send_at is not null) over (
                       partition by v.after, v.app_id, v.campaign_key, v.canvas_key, v.user_key
                   ) as control_exposed
            from versions as v
            join touched_interactions as t
                on t.app_id = v.app_id and t.campaign_key = v.campaign_key and t.canvas_key = v.canvas_key
               and t.user_key = v.user_key
        ),
        -- The interactions the counts take: non-test rows of the dismissible channels, of users never exposed
        -- to control, on report days of the campaign's zone (the app's for a canvas).
        interactions as materialized (
            select v.after, v.finding_id, v.user_key, x.type, x.day, x.without_impression
            from interaction_versions as v
            join cardinal.apps as a on a.app_id = v.app_id
            left join cardinal.campaign_settings as s on s.app_id = v.app_id and s.campaign_id = v.campaign_id
            cross join cardinal.report_row_interactions(v.click_times, v.dismissal_times,
                                                        coalesce(s.report_time_zone, a.report_time_zone),
                                                        v.step_first_impression_at) as x
            where not v.test and not v.control_exposed
              and v.channel in ('content_card', 'in_app_message', 'banner')
        ),
        interaction_events as (
            insert into cardinal.report_interaction_day_events as c
            select i.finding_id, i.type, i.day, sum(case when i.after then 1 else -1 end) as events,
                   coalesce(sum(case when i.after then 1 else -1 end) filter (where i.without_impression), 0)
            from interactions as i
            group by 1, 2, 3
            having sum(case when i.after then 1 else -1 end) <> 0
                or sum(case when i.after then 1 else -1 end) filter (where i.without_impression) <> 0
            order by 1, 2, 3
            on conflict (finding_id, type, day) do update set
                events = c.events + excluded.events,
                events_without_impression = c.events_without_impression + excluded.events_without_impression
        ),
        interaction_pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct i.after, i.finding_id, i.user_key, k.kind, i.day
                from interactions as i
                cross join lateral (
                    select i.type as kind
                    union all
                    select i.type || '_without_impression'
                    where i.without_impression
                ) as k
            ) as d
        ),
        interaction_users as (
            insert into cardinal.report_interaction_day_users as c
            select p.finding_id, p.kind, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
            from interaction_pairs as p
            group by 1, 2, 3, 4
            having sum(case when p.after then 1 else -1 end) <> 0
            order by 1, 2, 3, 4
            on conflict (finding_id, kind, day, previous_day) do update set
                users = c.users + excluded.users
        ),
        -- The touched users and sources exposed to control, with a click or dismissal, after the statement.
        control_acting as materialized (
            select distinct v.app_id, v.campaign_key, v.canvas_key, v.user_key
            from interaction_versions as v
            where v.after and v.control_exposed and not v.test
              and (v.click_times is not null or v.dismissal_times is not null)
        ),
        left_control_acting as (
            delete from cardinal.report_control_acting_users as s
            using touched_interactions as t
            where s.app_id = t.app_id and s.campaign_id = t.campaign_key and s.canvas_id = t.canvas_key
              and s.user_key = t.user_key
              and not exists (
                  select from control_acting as n
                  where n.app_id = s.app_id and n.campaign_key = s.campaign_id and n.canvas_key = s.canvas_id
                    and n.user_key = s.user_key)
        ),
        joined_control_acting as (
            insert into cardinal.report_control_acting_users
            select * from control_acting
            order by 1, 2, 3, 4
            on conflict on constraint report_control_acting_users_pkey do nothing
        )
        insert into cardinal.report_finding_day_users as c
        select p.finding_id, p.kind, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
        from pairs as p
        group by 1, 2, 3, 4
        having sum(case when p.after then 1 else -1 end) <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by 1, 2, 3, 4
        on conflict (finding_id, kind, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$, day_changes, interaction_changes, versions);
    delete from cardinal.report_finding_day_users where users = 0;
    delete from cardinal.report_source_day_users where users = 0;
    delete from cardinal.report_interaction_day_users where users = 0;
    delete from cardinal.report_interaction_day_events where events = 0;
    return null;
end
$function$;
alter function cardinal.count_finding_day_users() owner to cardinal_owner;
revoke all on function cardinal.count_finding_day_users() from public;
comment on function cardinal.count_finding_day_users() is
    'Statement trigger of report_user_state: for the users whose counted days changed, makes their '
    'day sets per finding group and kind before and after the statement from their rows (report_user_state''s '
    'user_key index) and the transition tables, nets the pairs into report_finding_day_users (deleting counts '
    'that reach zero), and sets their report_several_arm_users rows of the touched campaigns and canvases; for '
    'the users whose clicks, dismissals, first impressions or first control exposures changed, the same for '
    'report_interaction_day_users and report_interaction_day_events, and their report_control_acting_users '
    'rows.';


create or replace trigger report_user_state_count_finding_days_inserted
    after insert on cardinal.report_user_state
    referencing new table as added
    for each statement
    execute function cardinal.count_finding_day_users();
comment on trigger report_user_state_count_finding_days_inserted on cardinal.report_user_state is
    'Keeps report_finding_day_users and report_several_arm_users what the state makes.';


create or replace trigger report_user_state_count_finding_days_updated
    after update on cardinal.report_user_state
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_finding_day_users();
comment on trigger report_user_state_count_finding_days_updated on cardinal.report_user_state is
    'Keeps report_finding_day_users and report_several_arm_users what the state makes.';


create or replace trigger report_user_state_count_finding_days_deleted
    after delete on cardinal.report_user_state
    referencing old table as removed
    for each statement
    execute function cardinal.count_finding_day_users();
comment on trigger report_user_state_count_finding_days_deleted on cardinal.report_user_state is
    'Keeps report_finding_day_users and report_several_arm_users what the state makes.';


-- A state row's clicks and dismissals as the interaction counts see them: one definition for the trigger, the
-- views that check it and the report's pending users.
create or replace function cardinal.report_row_interactions(
    click_times              timestamp with time zone[],
    dismissal_times          timestamp with time zone[],
    time_zone                text,
    step_first_impression_at timestamp with time zone
)
    returns table (type text, day date, without_impression boolean)
    language sql
    immutable
as $function$
    select x.type, (x.time at time zone report_row_interactions.time_zone)::date,
           coalesce(report_row_interactions.step_first_impression_at > x.time, true)
    from (
        select 'click' as type, t as time from unnest(report_row_interactions.click_times) as t
        union all
        select 'dismissal', t from unnest(report_row_interactions.dismissal_times) as t
    ) as x
$function$;
alter function cardinal.report_row_interactions(timestamp with time zone[], timestamp with time zone[], text, timestamp with time zone) owner to cardinal_owner;
comment on function cardinal.report_row_interactions(timestamp with time zone[], timestamp with time zone[], text,
                                                    timestamp with time zone) is
    'The clicks and dismissals of a report_user_state row: type (click or dismissal), report day (the '
    'local day in time_zone, the campaign''s or else the app''s) and whether it came without an impression '
    '(step_first_impression_at, the first impression of the user''s rows of the step, NULL or later).';


create or replace view cardinal.report_interaction_day_users_of_rows as
select p.finding_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.finding_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.finding_id, d.user_key, d.kind order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct r.finding_id, r.user_key, k.kind, x.day
        from cardinal.report_interaction_rows as r
        cross join cardinal.report_row_interactions(r.click_times, r.dismissal_times, r.time_zone,
                                                    r.step_first_impression_at) as x
        cross join lateral (
            select x.type as kind
            union all
            select x.type || '_without_impression'
            where x.without_impression
        ) as k
        where not r.test and not r.control_exposed and r.channel in ('content_card', 'in_app_message', 'banner')
    ) as d
) as p
group by 1, 2, 3, 4;
alter view cardinal.report_interaction_day_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_interaction_day_users_of_rows to cardinal_reader;
comment on view cardinal.report_interaction_day_users_of_rows is
    'report_interaction_day_users computed from report_user_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_interaction_day_users_of_rows', 'cardinal.report_interaction_day_users'
);


create or replace view cardinal.report_interaction_day_events_of_rows as
select r.finding_id, x.type, x.day, count(*) as events,
       count(*) filter (where x.without_impression) as events_without_impression
from cardinal.report_interaction_rows as r
cross join cardinal.report_row_interactions(r.click_times, r.dismissal_times, r.time_zone,
                                            r.step_first_impression_at) as x
where not r.test and not r.control_exposed and r.channel in ('content_card', 'in_app_message', 'banner')
group by 1, 2, 3;
alter view cardinal.report_interaction_day_events_of_rows owner to cardinal_owner;
grant select on cardinal.report_interaction_day_events_of_rows to cardinal_reader;
comment on view cardinal.report_interaction_day_events_of_rows is
    'report_interaction_day_events computed from report_user_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_interaction_day_events_of_rows', 'cardinal.report_interaction_day_events'
);


create or replace view cardinal.report_control_acting_users_of_rows as
select distinct r.app_id, r.campaign_key as campaign_id, r.canvas_key as canvas_id, r.user_key
from cardinal.report_interaction_rows as r
where r.control_exposed and not r.test and (r.click_times is not null or r.dismissal_times is not null);
alter view cardinal.report_control_acting_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_control_acting_users_of_rows to cardinal_reader;
comment on view cardinal.report_control_acting_users_of_rows is
    'report_control_acting_users computed from report_user_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_control_acting_users_of_rows', 'cardinal.report_control_acting_users'
);


-- The impressions a session may have without repeating: one per distinct message when there are
-- two messages or more, else one; banners and feature flags one whatever the messages.
-- PL/pgSQL, not SQL: the count is a sub-select, which keeps a SQL function from being inlined, and a SQL
-- function that is not inlined sets up its executor at every call (32 µs; 43,000 calls and 1.4 s of a fold
-- of 48,000 events). Here the usual session, of one message, is a simple expression and runs no query.
create or replace function cardinal.report_session_allowed(channel text, message_ids text[])
    returns bigint
    language plpgsql
    immutable
as $function$
begin
    if channel in ('banner', 'feature_flag') or coalesce(cardinality(message_ids), 0) <= 1 then
        return 1;
    end if;
    return greatest(1, (select count(distinct m) from unnest(message_ids) as m));
end
$function$;
alter function cardinal.report_session_allowed(text, text[]) owner to cardinal_owner;
comment on function cardinal.report_session_allowed(text, text[]) is
    'The impressions a session of channel showing message_ids may log: the number of '
    'distinct messages when there are two or more, else 1; 1 for banners and feature flags.';


-- Whether a session repeats its impressions: content cards three times what they may log, the rest twice.
create or replace function cardinal.report_session_repeated(channel text, impressions bigint, allowed bigint)
    returns boolean
    language sql
    immutable
as $function$
    select report_session_repeated.impressions
           >= case when report_session_repeated.channel = 'content_card' then 3 else 2 end
              * report_session_repeated.allowed
$function$;
alter function cardinal.report_session_repeated(text, bigint, bigint) owner to cardinal_owner;
comment on function cardinal.report_session_repeated(text, bigint, bigint) is
    'Whether a session of channel with impressions and allowed impressions repeats: at '
    'least 3 times allowed for content cards, 2 times for the other channels.';


-- What the state makes: the backfill and the tests read these; the trigger keeps the tables equal to them.
-- Each session of the finding groups the counts keep, with whether its user has one that spans days.
create or replace view cardinal.report_session_user_units as
select u.*, bool_or(u.days > 1) over (partition by u.finding_id, u.user_key) as user_spans_days
from (
    select g.finding_id, g.channel, s.user_key, s.session_id, s.session_id = '' as without_session,
           min(s.day) as day, count(distinct s.day) as days, sum(s.impressions) as impressions,
           cardinal.report_session_allowed(g.channel, cardinal.array_concat_agg(s.message_ids)) as allowed
    from cardinal.report_session_state as s
    join cardinal.report_groups as g on g.group_id = s.group_id
    where not g.test and g.channel <> 'push' and (g.campaign_id is not null or g.canvas_id is not null)
    group by g.finding_id, g.channel, s.user_key, s.session_id, case when s.session_id = '' then s.day end
) as u;
alter view cardinal.report_session_user_units owner to cardinal_owner;
grant select on cardinal.report_session_user_units to cardinal_reader;
comment on view cardinal.report_session_user_units is
    'The sessions of report_session_state as the session counts read them: per finding group (non-test '
    'report groups, not push) and user, a session id''s rows, or one day''s rows without a session id.';
comment on column cardinal.report_session_user_units.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_session_user_units.channel is 'The finding group''s channel.';
comment on column cardinal.report_session_user_units.user_key is 'The user (events.user_key).';
comment on column cardinal.report_session_user_units.session_id is 'The session id, '''' for none.';
comment on column cardinal.report_session_user_units.without_session is 'Whether the session id is ''''.';
comment on column cardinal.report_session_user_units.day is 'The session''s first report day.';
comment on column cardinal.report_session_user_units.days is 'How many report days the session''s rows lie on.';
comment on column cardinal.report_session_user_units.impressions is 'The session''s impressions.';
comment on column cardinal.report_session_user_units.allowed is
    'The impressions the session may log (report_session_allowed).';
comment on column cardinal.report_session_user_units.user_spans_days is
    'Whether the user has a session of the finding group that spans report days.';


create or replace view cardinal.report_session_units_of_rows as
select u.finding_id, u.day, u.impressions, u.allowed, u.without_session, count(*) as units
from cardinal.report_session_user_units as u
where not u.user_spans_days
group by 1, 2, 3, 4, 5;
alter view cardinal.report_session_units_of_rows owner to cardinal_owner;
grant select on cardinal.report_session_units_of_rows to cardinal_reader;
comment on view cardinal.report_session_units_of_rows is
    'report_session_units computed from report_session_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments('cardinal.report_session_units_of_rows', 'cardinal.report_session_units');


create or replace view cardinal.report_session_day_users_of_rows as
select p.finding_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.finding_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.finding_id, d.user_key, d.kind order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct u.finding_id, u.user_key, k.kind, u.day
        from cardinal.report_session_user_units as u
        cross join lateral (
            select 'session' as kind
            union all
            select 'repeated'
            where cardinal.report_session_repeated(u.channel, u.impressions, u.allowed)
        ) as k
        where not u.user_spans_days
    ) as d
) as p
group by 1, 2, 3, 4;
alter view cardinal.report_session_day_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_session_day_users_of_rows to cardinal_reader;
comment on view cardinal.report_session_day_users_of_rows is
    'report_session_day_users computed from report_session_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_session_day_users_of_rows', 'cardinal.report_session_day_users'
);


create or replace view cardinal.report_session_apart_users_of_rows as
select distinct u.finding_id, u.user_key
from cardinal.report_session_user_units as u
where u.user_spans_days;
alter view cardinal.report_session_apart_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_session_apart_users_of_rows to cardinal_reader;
comment on view cardinal.report_session_apart_users_of_rows is
    'report_session_apart_users computed from report_session_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_session_apart_users_of_rows', 'cardinal.report_session_apart_users'
);


create or replace function cardinal.count_session_units()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates; the users' rows
    -- are found by index conditions on arrays, which take no join decision.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
begin
    execute format($statement$
        with changed as materialized (
            select n.group_id, n.user_key from %1$s as n
            union
            select o.group_id, o.user_key from %2$s as o
        ),
        -- The finding groups the counts keep, per touched user.
        touched as materialized (
            select distinct g.finding_id, c.user_key
            from changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where not g.test and g.channel <> 'push' and (g.campaign_id is not null or g.canvas_id is not null)
        ),
        -- The touched users' rows of those finding groups' non-test report groups now, with the transaction
        -- and command that wrote each: one probe of the primary key per user and report group (a lateral
        -- subquery, so a nested loop whatever the settings). Two array conditions, users and groups, would
        -- search every pair of the two: a requeue that deletes an app's 372,536 session rows at 1 M events
        -- ran over 15 minutes that way.
        current_rows as materialized (
            select s.group_id, s.user_key, s.session_id, s.day, s.impressions, s.message_ids,
                   s.xmin::text || ':' || s.cmin::text as written_by
            from touched as t
            join cardinal.report_groups as g on g.finding_id = t.finding_id and not g.test
            cross join lateral (
                select s.*, s.xmin, s.cmin
                from cardinal.report_session_state as s
                where s.group_id = g.group_id and s.user_key = t.user_key
                offset 0
            ) as s
        ),
        -- Their sessions before (after false) and after the statement.
        units as materialized (
            select u.*, bool_or(u.days > 1) over (partition by u.after, u.finding_id, u.user_key) as user_spans_days
            from (
                select r.after, r.finding_id, r.channel, r.user_key, r.session_id = '' as without_session,
                       min(r.day) as day, count(distinct r.day) as days, sum(r.impressions) as impressions,
                       cardinal.report_session_allowed(r.channel, cardinal.array_concat_agg(r.message_ids)) as allowed
                from (
                    -- Each row with its own report group first (OFFSET 0 keeps the join order).
                    select r.*, g.finding_id, g.channel, g.test
                    from (%3$s
                    ) as r
                    join cardinal.report_groups as g on g.group_id = r.group_id
                    offset 0
                ) as r
                join touched as t on t.finding_id = r.finding_id and t.user_key = r.user_key
                -- The transition tables hold the statement's test rows too, which share the finding group.
                where not r.test
                group by r.after, r.finding_id, r.channel, r.user_key, r.session_id,
                         case when r.session_id = '' then r.day end
            ) as u
        ),
        unit_counts as (
            insert into cardinal.report_session_units as c
            select u.finding_id, u.day, u.impressions, u.allowed, u.without_session,
                   sum(case when u.after then 1 else -1 end) as units
            from units as u
            where not u.user_spans_days
            group by 1, 2, 3, 4, 5
            having sum(case when u.after then 1 else -1 end) <> 0
            order by 1, 2, 3, 4, 5
            on conflict (finding_id, day, impressions, allowed, without_session) do update set
                units = c.units + excluded.units
        ),
        -- Each version's pairs, netted below: +1 after, -1 before.
        pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct u.after, u.finding_id, u.user_key, k.kind, u.day
                from units as u
                cross join lateral (
                    select 'session' as kind
                    union all
                    select 'repeated'
                    where cardinal.report_session_repeated(u.channel, u.impressions, u.allowed)
                ) as k
                where not u.user_spans_days
            ) as d
        ),
        -- The touched users with a session that spans days after the statement. Rows leave and join
        -- report_session_apart_users apart (a statement cannot delete and insert one key).
        apart as materialized (
            select distinct u.finding_id, u.user_key
            from units as u
            where u.after and u.user_spans_days
        ),
        left_apart as (
            delete from cardinal.report_session_apart_users as s
            using touched as t
            where s.finding_id = t.finding_id and s.user_key = t.user_key
              and not exists (select from apart as n where n.finding_id = s.finding_id and n.user_key = s.user_key)
        ),
        joined_apart as (
            insert into cardinal.report_session_apart_users
            select * from apart
            order by 1, 2
            on conflict on constraint report_session_apart_users_pkey do nothing
        )
        insert into cardinal.report_session_day_users as c
        select p.finding_id, p.kind, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
        from pairs as p
        group by 1, 2, 3, 4
        having sum(case when p.after then 1 else -1 end) <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by 1, 2, 3, 4
        on conflict (finding_id, kind, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$,
        case when tg_op = 'DELETE' then 'removed' else 'added' end,
        case when tg_op = 'INSERT' then 'added' else 'removed' end,
        -- The touched users' rows before and after the statement, from their rows now (current_rows) and the
        -- transition tables.
        cardinal.report_state_versions(tg_op, array['group_id', 'user_key', 'session_id', 'day'],
                                       array['group_id', 'user_key', 'session_id', 'day', 'impressions',
                                             'message_ids']));
    delete from cardinal.report_session_units where units = 0;
    delete from cardinal.report_session_day_users where users = 0;
    return null;
end
$function$;
alter function cardinal.count_session_units() owner to cardinal_owner;
revoke all on function cardinal.count_session_units() from public;
comment on function cardinal.count_session_units() is
    'Statement trigger of report_session_state: for the touched users, makes their sessions per finding '
    'group before and after the statement from their rows (the primary key, by user and the finding group''s '
    'report groups) and the transition tables, nets them into report_session_units and report_session_day_users '
    '(deleting counts that reach zero), and sets their report_session_apart_users rows.';


create or replace trigger report_session_state_count_units_inserted
    after insert on cardinal.report_session_state
    referencing new table as added
    for each statement
    execute function cardinal.count_session_units();
comment on trigger report_session_state_count_units_inserted on cardinal.report_session_state is
    'Keeps report_session_units, report_session_day_users and report_session_apart_users what the state makes.';


create or replace trigger report_session_state_count_units_updated
    after update on cardinal.report_session_state
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_session_units();
comment on trigger report_session_state_count_units_updated on cardinal.report_session_state is
    'Keeps report_session_units, report_session_day_users and report_session_apart_users what the state makes.';


create or replace trigger report_session_state_count_units_deleted
    after delete on cardinal.report_session_state
    referencing old table as removed
    for each statement
    execute function cardinal.count_session_units();
comment on trigger report_session_state_count_units_deleted on cardinal.report_session_state is
    'Keeps report_session_units, report_session_day_users and report_session_apart_users what the state makes.';


create or replace view cardinal.report_step_daily_counts_of_rows as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.test, d.day,
       sum(d.impressions) as impressions, sum(d.clicks) as clicks, sum(d.dismissals) as dismissals,
       sum(d.sends) as sends, sum(d.control_impressions) as control_impressions,
       sum(d.control_sends) as control_sends, count(*) as group_days
from cardinal.report_daily_counts as d
join cardinal.report_groups as g on g.group_id = d.group_id
where g.campaign_id is not null or g.canvas_id is not null
group by 1, 2, 3, 4, 5, 6, 7, 8;
alter view cardinal.report_step_daily_counts_of_rows owner to cardinal_owner;
grant select on cardinal.report_step_daily_counts_of_rows to cardinal_reader;
comment on view cardinal.report_step_daily_counts_of_rows is
    'report_step_daily_counts computed from report_daily_counts: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_step_daily_counts_of_rows', 'cardinal.report_step_daily_counts'
);


-- Statement triggers of report_daily_counts: the statement's rows added, less those removed, per step and day.
create or replace function cardinal.count_step_daily_counts()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
begin
    execute format($statement$
        insert into cardinal.report_step_daily_counts as c
        select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.test, d.day,
               sum(d.sign * d.impressions), sum(d.sign * d.clicks), sum(d.sign * d.dismissals),
               sum(d.sign * d.sends), sum(d.sign * d.control_impressions), sum(d.sign * d.control_sends),
               sum(d.sign)
        from (%s) as d
        join cardinal.report_groups as g on g.group_id = d.group_id
        where g.campaign_id is not null or g.canvas_id is not null
        group by 1, 2, 3, 4, 5, 6, 7, 8
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by 1, 2, 3, 4, 5, 6, 7, 8
        on conflict on constraint report_step_daily_counts_key do update set
            impressions = c.impressions + excluded.impressions,
            clicks = c.clicks + excluded.clicks,
            dismissals = c.dismissals + excluded.dismissals,
            sends = c.sends + excluded.sends,
            control_impressions = c.control_impressions + excluded.control_impressions,
            control_sends = c.control_sends + excluded.control_sends,
            group_days = c.group_days + excluded.group_days
    $statement$,
        case tg_op
            when 'INSERT' then 'select 1 as sign, n.* from added as n'
            when 'DELETE' then 'select -1 as sign, o.* from removed as o'
            else 'select 1 as sign, n.* from added as n union all select -1, o.* from removed as o'
        end);
    delete from cardinal.report_step_daily_counts where group_days = 0;
    return null;
end
$function$;
alter function cardinal.count_step_daily_counts() owner to cardinal_owner;
revoke all on function cardinal.count_step_daily_counts() from public;
comment on function cardinal.count_step_daily_counts() is
    'Statement trigger of report_daily_counts: adds the statement''s added rows and takes off its removed '
    'ones in report_step_daily_counts, deleting the rows left without a report_daily_counts row.';


create or replace trigger report_daily_counts_count_steps_inserted
    after insert on cardinal.report_daily_counts
    referencing new table as added
    for each statement
    execute function cardinal.count_step_daily_counts();
comment on trigger report_daily_counts_count_steps_inserted on cardinal.report_daily_counts is
    'Keeps report_step_daily_counts what report_daily_counts sums to.';


create or replace trigger report_daily_counts_count_steps_updated
    after update on cardinal.report_daily_counts
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_step_daily_counts();
comment on trigger report_daily_counts_count_steps_updated on cardinal.report_daily_counts is
    'Keeps report_step_daily_counts what report_daily_counts sums to.';


create or replace trigger report_daily_counts_count_steps_deleted
    after delete on cardinal.report_daily_counts
    referencing old table as removed
    for each statement
    execute function cardinal.count_step_daily_counts();
comment on trigger report_daily_counts_count_steps_deleted on cardinal.report_daily_counts is
    'Keeps report_step_daily_counts what report_daily_counts sums to.';


create or replace view cardinal.report_dismissal_day_users_of_rows as
select p.finding_id, p.day, p.previous_day, count(*) as users
from (
    select d.finding_id, d.day,
           coalesce(lag(d.day) over (partition by d.finding_id, d.user_key order by d.day), '-infinity')
               as previous_day
    from cardinal.report_dismissal_user_days as d
    where not d.repeats
) as p
group by 1, 2, 3;
alter view cardinal.report_dismissal_day_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_dismissal_day_users_of_rows to cardinal_reader;
comment on view cardinal.report_dismissal_day_users_of_rows is
    'report_dismissal_day_users computed from report_dismissal_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_dismissal_day_users_of_rows', 'cardinal.report_dismissal_day_users'
);


create or replace view cardinal.report_dismissal_day_counts_of_rows as
select d.finding_id, d.day, sum(d.dismissals) as dismissals
from cardinal.report_dismissal_user_days as d
where not d.repeats
group by 1, 2;
alter view cardinal.report_dismissal_day_counts_of_rows owner to cardinal_owner;
grant select on cardinal.report_dismissal_day_counts_of_rows to cardinal_reader;
comment on view cardinal.report_dismissal_day_counts_of_rows is
    'report_dismissal_day_counts computed from report_dismissal_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_dismissal_day_counts_of_rows', 'cardinal.report_dismissal_day_counts'
);


create or replace view cardinal.report_dismissal_repeat_users_of_rows as
select distinct d.finding_id, d.user_key
from cardinal.report_dismissal_user_days as d
where d.repeats;
alter view cardinal.report_dismissal_repeat_users_of_rows owner to cardinal_owner;
grant select on cardinal.report_dismissal_repeat_users_of_rows to cardinal_reader;
comment on view cardinal.report_dismissal_repeat_users_of_rows is
    'report_dismissal_repeat_users computed from report_dismissal_state: what the trigger keeps the table equal to.';
select cardinal.copy_column_comments(
    'cardinal.report_dismissal_repeat_users_of_rows', 'cardinal.report_dismissal_repeat_users'
);


-- The statement triggers of report_dismissal_state: the touched users' dismissals of the touched finding
-- groups before and after the statement, netted into the counts, and their report_dismissal_repeat_users rows.
create or replace function cardinal.count_dismissal_days()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates; the users' rows
    -- are found by one probe per user and report group.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
begin
    execute format($statement$
        with changed as materialized (
            select n.group_id, n.user_key from %1$s as n
            union
            select o.group_id, o.user_key from %2$s as o
        ),
        -- The finding groups the counts keep, per touched user.
        touched as materialized (
            select distinct g.finding_id, c.user_key
            from changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where not g.test and g.channel = 'content_card' and (g.campaign_id is not null or g.canvas_id is not null)
        ),
        -- The touched users' rows of those finding groups' non-test report groups now, with the transaction
        -- and command that wrote each: one probe of the primary key per user and report group (a lateral
        -- subquery kept from being pulled up by OFFSET 0, so a nested loop whatever the settings).
        current_rows as materialized (
            select x.group_id, x.user_key, x.message_id, x.day, x.dismissals,
                   x.xmin::text || ':' || x.cmin::text as written_by
            from touched as t
            join cardinal.report_groups as g on g.finding_id = t.finding_id and not g.test
            cross join lateral (
                select x.*, x.xmin, x.cmin
                from cardinal.report_dismissal_state as x
                where x.group_id = g.group_id and x.user_key = t.user_key
                offset 0
            ) as x
        ),
        -- Their dismissals per day before (after false) and after the statement, as report_dismissal_user_days
        -- makes them.
        user_days as materialized (
            select d.*, bool_or(d.repeats_a_card) over (partition by d.after, d.finding_id, d.user_key) as repeats
            from (
                select c.after, c.finding_id, c.user_key, c.day, sum(c.dismissals) as dismissals,
                       bool_or(c.card_dismissals > 1) as repeats_a_card
                from (
                    select r.after, g.finding_id, r.user_key, r.day, r.dismissals,
                           sum(r.dismissals) over (partition by r.after, g.finding_id, r.user_key, r.message_id)
                               as card_dismissals
                    from (%3$s
                    ) as r
                    join cardinal.report_groups as g on g.group_id = r.group_id
                    join touched as t on t.finding_id = g.finding_id and t.user_key = r.user_key
                    -- The transition tables hold the statement's test rows too, which share the finding group.
                    where not g.test
                ) as c
                group by c.after, c.finding_id, c.user_key, c.day
            ) as d
        ),
        day_counts as (
            insert into cardinal.report_dismissal_day_counts as c
            select d.finding_id, d.day, sum(case when d.after then d.dismissals else -d.dismissals end)
            from user_days as d
            where not d.repeats
            group by 1, 2
            having sum(case when d.after then d.dismissals else -d.dismissals end) <> 0
            order by 1, 2
            on conflict (finding_id, day) do update set
                dismissals = c.dismissals + excluded.dismissals
        ),
        -- Each version's pairs, netted below: +1 after, -1 before.
        pairs as (
            select d.after, d.finding_id, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key order by d.day),
                            '-infinity') as previous_day
            from user_days as d
            where not d.repeats
        ),
        -- The touched users who repeat a card after the statement. Rows leave and join
        -- report_dismissal_repeat_users apart (a statement cannot delete and insert one key).
        repeating as materialized (
            select distinct d.finding_id, d.user_key
            from user_days as d
            where d.after and d.repeats
        ),
        left_repeating as (
            delete from cardinal.report_dismissal_repeat_users as r
            using touched as t
            where r.finding_id = t.finding_id and r.user_key = t.user_key
              and not exists (select from repeating as n where n.finding_id = r.finding_id and n.user_key = r.user_key)
        ),
        joined_repeating as (
            insert into cardinal.report_dismissal_repeat_users
            select * from repeating
            order by 1, 2
            on conflict on constraint report_dismissal_repeat_users_pkey do nothing
        )
        insert into cardinal.report_dismissal_day_users as c
        select p.finding_id, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
        from pairs as p
        group by 1, 2, 3
        having sum(case when p.after then 1 else -1 end) <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by 1, 2, 3
        on conflict (finding_id, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$,
        case when tg_op = 'DELETE' then 'removed' else 'added' end,
        case when tg_op = 'INSERT' then 'added' else 'removed' end,
        cardinal.report_state_versions(tg_op, array['group_id', 'user_key', 'message_id', 'day'],
                                       array['group_id', 'user_key', 'message_id', 'day', 'dismissals']));
    delete from cardinal.report_dismissal_day_counts where dismissals = 0;
    delete from cardinal.report_dismissal_day_users where users = 0;
    return null;
end
$function$;
alter function cardinal.count_dismissal_days() owner to cardinal_owner;
revoke all on function cardinal.count_dismissal_days() from public;
comment on function cardinal.count_dismissal_days() is
    'Statement trigger of report_dismissal_state: for the touched users, makes their dismissals per '
    'finding group and day before and after the statement from their rows (the primary key, by user and the '
    'finding group''s report groups) and the transition tables, nets them into report_dismissal_day_counts and '
    'report_dismissal_day_users (deleting counts that reach zero), and sets their report_dismissal_repeat_users '
    'rows.';


create or replace trigger report_dismissal_state_count_days_inserted
    after insert on cardinal.report_dismissal_state
    referencing new table as added
    for each statement
    execute function cardinal.count_dismissal_days();
comment on trigger report_dismissal_state_count_days_inserted on cardinal.report_dismissal_state is
    'Keeps report_dismissal_day_users, report_dismissal_day_counts and report_dismissal_repeat_users what the '
    'state makes.';


create or replace trigger report_dismissal_state_count_days_updated
    after update on cardinal.report_dismissal_state
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_dismissal_days();
comment on trigger report_dismissal_state_count_days_updated on cardinal.report_dismissal_state is
    'Keeps report_dismissal_day_users, report_dismissal_day_counts and report_dismissal_repeat_users what the '
    'state makes.';


create or replace trigger report_dismissal_state_count_days_deleted
    after delete on cardinal.report_dismissal_state
    referencing old table as removed
    for each statement
    execute function cardinal.count_dismissal_days();
comment on trigger report_dismissal_state_count_days_deleted on cardinal.report_dismissal_state is
    'Keeps report_dismissal_day_users, report_dismissal_day_counts and report_dismissal_repeat_users what the '
    'state makes.';
