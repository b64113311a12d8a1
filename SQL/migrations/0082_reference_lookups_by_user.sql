-- 0082_reference_lookups_by_user.sql — the reference functions look up one user's events by index, and the
-- push report's influenced opens are joined to its rows once per row rather than once per event (issue 8,
-- "Planner-proof").
--
-- Design notes (why, not what):
--
-- * Three reference functions read, for each recipient or exposed user, that user's conversions or app opens
--   in a window: `identified_events … where e.user_key = r.user_key`. identified_events computes user_key (the
--   identity merge, 0032), so no index can answer that condition: each lookup read every event of its type in
--   the window, for every user, which grows with users × events. Over FreshWorkload (50,000 events, 6,000
--   users, every tenth anonymous) in psql: campaign_conversions_reference 19.8 s, push_opens_reference 1.4 s.
-- * identified_events_of_user(app_id, user_key) returns what identified_events gives one user, from indexes
--   alone: its identified events on (app_id, user_key) (an identified event's user_key is its user_id, 0005),
--   then the anonymous events of each device that could be merged into it (one its events name, or the device
--   whose key it is) on (app_id, device_id), kept when identified_events gives them this user. Over both test
--   workloads (FreshWorkload, and 0081's 30,000 devices that log in), every event of the app came back exactly
--   once across its users' calls (EXCEPT ALL against identified_events, in psql: none left). The property
--   tests compare every reference function that calls it with the report state.
--   campaign_conversions_reference, control_arms_reference and push_opens_reference now call it, each edited
--   in place (the one condition; the rest of each body unchanged), as 0079 and 0080 edited theirs.
-- * Its lookup of a device's events is fenced (OFFSET 0). Inlined and flattened, the planner read the app's
--   conversions of the window for every user through the caller's conditions, and only then matched them to
--   the devices: campaign_conversions_reference took 11.0 s without the fence.
-- * unique_impressions_reference_of_0029 joined push_opens_reference's rows to its events before counting
--   them, and the plan recomputed the opens' aggregate once per event (40,186 times on FreshWorkload: 7.9 s).
--   The join now comes after the counts, one push row to one opens row, as the MIN over the joined rows it
--   replaces picked that row's value.
-- * push_opens_reference's check that a send's user did not click (NOT EXISTS on its own CTE) became a nested
--   loop over that CTE, which the planner estimates at one row: 20,000 sends × 6,667 clicks, 35.4 s in psql.
--   The function now runs with nested loops off, as the state's reports do (0053): 0.48 s. The setting stops
--   it from being inlined, which costs nothing now that unique_impressions_reference_of_0029 joins it once per
--   push row.
-- * On FreshWorkload, in psql: unique_impressions_reference 7.8 → 1.1 s (by day 9.8 → 1.2 s),
--   campaign_conversions_reference 19.8 → 3.0 s, push_opens_reference 1.4 → 0.3 s; control_arms_reference
--   0.33 → 0.68 s (a probe per exposed user, where this workload's few matured users were cheaper to scan for).
--   PlannerProofReportsTests' 20,000 devices that log in, click, convert and get a push:
--   campaign_conversions_reference 2.9 s, over its 60 s timeout before; unique_impressions_reference 2.6 s,
--   32.5 s with nested loops left on in push_opens_reference.

create function cardinal.identified_events_of_user(app_id bigint, user_key text)
    returns setof cardinal.identified_events
    language sql
    stable
as $function$
    -- Its identified events: an identified event's user_key is its user_id (0005), on the (app_id, user_key)
    -- index.
    select e.app_id, e.id, e.type, e.channel, e.time, e.received_at, e.user_id, e.device_id, e.session_id,
           e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.control, e.message_id, e.placement_id,
           e.button_id, e.url, e.platform, e.sdk_version, e.app_version, e.os_version, e.test, e.conversion_name,
           e.value, e.currency, e.properties, e.user_id, e.stored_xid
    from cardinal.events as e
    where e.app_id = identified_events_of_user.app_id
      and e.user_key = identified_events_of_user.user_key
      and e.user_id = identified_events_of_user.user_key
    union all
    -- The anonymous events identified_events gives it: of a device it logged in on (its events name the
    -- device), or of the device whose key it is; each device's on the (app_id, device_id) index.
    select a.*
    from (
        select l.device_id
        from cardinal.events as l
        where l.app_id = identified_events_of_user.app_id
          and l.user_key = identified_events_of_user.user_key
          and l.user_id = identified_events_of_user.user_key
          and l.device_id is not null
        union
        select substr(identified_events_of_user.user_key, 8)
        where starts_with(identified_events_of_user.user_key, 'device:')
    ) as d
    cross join lateral (
        select v.*
        from cardinal.identified_events as v
        where v.app_id = identified_events_of_user.app_id
          and v.device_id = d.device_id
          and v.user_id is null
          and v.user_key = identified_events_of_user.user_key
        -- A fence: without it the planner may flatten this lookup into the caller's query and read the app's
        -- events by the caller's conditions (a conversion name, a time range) for every user, then join them
        -- to the devices.
        offset 0
    ) as a
$function$;

alter function cardinal.identified_events_of_user(bigint, text) owner to cardinal_owner;

grant execute on function cardinal.identified_events_of_user(bigint, text) to cardinal_reader;

comment on function cardinal.identified_events_of_user(bigint, text) is
    'The rows of identified_events (0032) of one app whose user_key is the given one, looked up by index: '
    'the user''s identified events on (app_id, user_key), and the anonymous events of each device that could '
    'be merged into it (one its events name, or the device whose key it is) on (app_id, device_id). What the '
    'reference functions read a user''s conversions and app opens from (0082). Lists the view''s columns: a '
    'migration that changes the view replaces this function with it.';


do $by_user$
declare
    edit record;
    definition text;
begin
    for edit in
        select *
        from (values
            ('cardinal.campaign_conversions_reference(text, date, date, text, boolean)'::regprocedure,
             $old$
            from cardinal.identified_events as e
            where e.type = 'conversion'
              and e.app_id = r.app_id
              and e.user_key = r.user_key
$old$,
             $new$
            from cardinal.identified_events_of_user(r.app_id, r.user_key) as e
            where e.type = 'conversion'
$new$),
            ('cardinal.control_arms_reference(text, text, date, date, timestamp with time zone, text, interval, '
             'boolean, text)'::regprocedure,
             $old$
    -- The conversion of each matured user is one probe of events_conversion_idx (a correlated EXISTS on the
    -- events, not on a CTE: its cost is per user, whatever the estimates).
$old$,
             $new$
    -- The conversion of each matured user is a probe of that user's events (identified_events_of_user, 0082:
    -- a correlated EXISTS on the events, not on a CTE, its cost per user whatever the estimates).
$new$),
            ('cardinal.control_arms_reference(text, text, date, date, timestamp with time zone, text, interval, '
             'boolean, text)'::regprocedure,
             $old$
                       from cardinal.identified_events as v
                       where v.type = 'conversion'
                         and v.app_id = x.app_id
                         and v.user_key = x.user_key
$old$,
             $new$
                       from cardinal.identified_events_of_user(x.app_id, x.user_key) as v
                       where v.type = 'conversion'
$new$),
            ('cardinal.push_opens_reference(text, date, date, boolean, text, text)'::regprocedure,
             $old$
      and exists (select from cardinal.identified_events as o
                  where o.app_id = s.app_id and o.user_key = s.user_key and o.type = 'session_start'
$old$,
             $new$
      and exists (select from cardinal.identified_events_of_user(s.app_id, s.user_key) as o
                  where o.type = 'session_start'
$new$),
            ('cardinal.unique_impressions_reference_of_0029(text, date, date, boolean, text, text)'::regprocedure,
             -- The old text keeps 0029's line as it is stored (too long for this file's width).
             $old$
               count(distinct c.user_key) filter (where c.type = 'dismissal') as unique_dismissals,
               min(p.influenced_opens) filter (where c.channel = 'push') as influenced_opens
        from scoped as c
        left join cardinal.push_opens_reference(unique_impressions_reference_of_0029.app, unique_impressions_reference_of_0029.from_date,
                                                unique_impressions_reference_of_0029.to_date,
                                                unique_impressions_reference_of_0029.include_test,
                                                unique_impressions_reference_of_0029.campaign,
                                                unique_impressions_reference_of_0029.by) as p
            on c.channel = 'push'
           and p.app_name = c.app_name
           and p.campaign_id is not distinct from c.campaign_id
           and p.canvas_id is not distinct from c.canvas_id
           and p.canvas_step_id is not distinct from c.canvas_step_id
           and p.variant_id is not distinct from c.variant_id
           and p.breakdown is not distinct from c.breakdown
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    opened as (
        select c.*, case when c.channel = 'push' then coalesce(c.influenced_opens, 0) end as influenced
        from counted as c
    )
$old$,
             $new$
               count(distinct c.user_key) filter (where c.type = 'dismissal') as unique_dismissals
        from scoped as c
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- The influenced opens of each push row (0082: joined to the counted rows, not to every event).
    opened as (
        select c.*, case when c.channel = 'push' then coalesce(p.influenced_opens, 0) end as influenced
        from counted as c
        left join cardinal.push_opens_reference(unique_impressions_reference_of_0029.app,
                                                unique_impressions_reference_of_0029.from_date,
                                                unique_impressions_reference_of_0029.to_date,
                                                unique_impressions_reference_of_0029.include_test,
                                                unique_impressions_reference_of_0029.campaign,
                                                unique_impressions_reference_of_0029.by) as p
            on c.channel = 'push'
           and p.app_name = c.app_name
           and p.campaign_id is not distinct from c.campaign_id
           and p.canvas_id is not distinct from c.canvas_id
           and p.canvas_step_id is not distinct from c.canvas_step_id
           and p.variant_id is not distinct from c.variant_id
           and p.breakdown is not distinct from c.breakdown
    )
$new$)
        ) as edits (function, old_text, new_text)
    loop
        definition := pg_catalog.pg_get_functiondef(edit.function);
        if array_length(string_to_array(definition, edit.old_text), 1) is distinct from 2 then
            raise exception '0082: % does not read the way this migration expects', edit.function;
        end if;
        execute replace(definition, edit.old_text, edit.new_text);
    end loop;
end
$by_user$;


-- A hash anti-join of the sends and clicks, whatever the estimate of the CTE they come from.
alter function cardinal.push_opens_reference(text, date, date, boolean, text, text) set enable_nestloop = off;
