-- 0045_campaign_conversion_day_counts.sql — campaign_conversions of every campaign reads counts per report day,
-- kept equal to report_campaign_receipts by triggers, and the conversion window is on the campaign's clock
-- (issue 8).
--
-- Design notes (why, not what):
--
-- * 0043 made one campaign fast but left all campaigns of an app reading every recipient row: 3.4 M rows at
--   10 M events, their receipt days unnested for unique_recipients, and a revenue probe per converter (15–20 s).
--   What a range asks of those rows is a sum over report days: unique_recipients is the sum over the range's
--   days of the rows that received on that day (exact, since a row's days are distinct), and the cohort of a
--   range is exactly the rows whose first receipt's day is in it (0043's note), so converters and revenue are
--   sums over the range's first days. Counts per app × campaign × variant × day answer any range, at a cost
--   of the days and campaigns reported, not of the recipients.
--
-- * A count ahead of the report needs "converted within the window" to be a fact of the row. It was not: the
--   window was added in the session's TimeZone. 0044's report_window_end adds it on the campaign's clock;
--   every computation of the report switches to it here (the reference over raw events, the per-user state
--   of include_test, the rows below), so they stay equal to each other.
--
-- * The row carries its outcome: window_revenue holds per goal JSON null (no conversion within the window)
--   or the object currency → sum of the goal's conversion values within [first receipt, window end] ({} for
--   a converter without values). It is filled wherever converted_at is (the pending view, the fold, the goal
--   recompute) and from the same folded state, so a row's contribution to every count is a function of the
--   row alone. That is what lets triggers keep the counts: a contribution computed from the goals of the
--   moment would differ between the rows added and the rows later subtracted once the goals changed.
--   First day = received_days[1]: the days are sorted, and the first receipt's day is the least of them.
--
-- * The counts equal an aggregate of report_campaign_receipts by construction: statement triggers with
--   transition tables add the inserted rows' contribution and subtract the deleted rows'; an update does
--   both. So the fold (an upsert fires the insert and the update trigger, each with its own rows), 0043's
--   deletion trigger (erasure, requeue, time zone change, retention, identity re-key, rebuild) and the goal
--   recompute keep them with no code of their own. A change of the campaign's window changes every row's
--   outcome, so it now runs the goal recompute too (one campaign, under the state lock, as 0043's): the
--   rows are updated and the triggers move the counts. Count rows that reach zero are deleted, so that the
--   tables hold only days and goals that have someone in them, and a report's sums over present rows are
--   positive exactly when the folded rows have a recipient there.
--
-- * Inside a fold the value state already holds the snapshot's values (fold_report_conversion_values runs
--   before fold_report_campaign_receipts, and fold_report_state is not ours to reorder), whereas the pending
--   conversions' times are not in report_conversion_state yet. So the pending view adds the pending values
--   only outside a fold (cardinal.report_fold_snapshot, 0038's marker), and the pending times always.
--
-- * The report adds to the folded counts the pending adjustment: the rows of the pending view replace the
--   folded rows of the same key, so their contribution is added and the replaced rows' subtracted. The
--   replaced rows are found by the (app_id, user_key) index with `= any(array(...))`, then hashed on the key;
--   nothing hinges on a row estimate (enable_nestloop off, with jit off). include_test keeps the per-user
--   state (campaign_conversions_from_user_state).
--
-- * No requeue: window_revenue is filled from the folded conversion and value state under the state lock, as
--   0043 filled converted_at; the events not folded yet are in neither, and the next fold (or a report's
--   pending view) merges them into the rows they touch, so the fill is what a refold would make. The counts
--   are then an aggregate of the table, made after the triggers exist and under the same lock.
--
-- * Measured in psql on 300 k events of scripts/bench/seed_reports.sql (108 k rows; 5,997 day counts, 2,801
--   cohort and 2,801 revenue counts), folded and analyzed, `set jit = off; set work_mem = '64MB'`, load
--   average 2.0–2.2, before = 0044 on a copy of the same database, same 200 rows: one campaign (c17) 34–74 ms
--   before, 18–49 ms after; all campaigns 394–508 ms before, 28–45 ms after. With c17's 10,868 events
--   requeued (all pending; the pending view is most of it): one campaign 213–396 ms before, 294–373 ms after;
--   all 651–901 ms before, 328–444 ms after. The fold (`cardinal state rebuild`, 300 k events, track_functions):
--   fold_report_campaign_receipts 4.7–5.5 s before, 7.1–8.3 s after, of which the count triggers on the
--   inserted rows about 1 s; the requeue's deletion of the 108 k rows 0.5–0.8 s before, 1.8 s after (the
--   triggers about 1.1 s); the whole rebuild 57–63 s before, 59–88 s after (load 2–3). The migration: 5.3 s
--   (the outcomes of the folded rows, then the counts). Without jit off in the refresh, JIT compiling made it
--   3 min.


-- Every statement below reads and writes the state the fold keeps: no fold may run meanwhile.
select pg_advisory_xact_lock(cardinal.report_state_lock_key());


-- The campaign conversions computed elsewhere switch to the window on the campaign's clock (see the notes):
-- 0030's reference (over identified_events since 0032) and its per-user-state body (include_test, 0043).
create or replace function cardinal.campaign_conversions_reference(
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
    language sql
    stable
as $function$

    with receipts as (
        select a.app_id, a.name as app_name, e.campaign_id, e.variant_id, e.user_key, e.time,
               (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day,
               campaign_conversions_reference.from_date::timestamp
                   at time zone coalesce(s.report_time_zone, a.report_time_zone) as lower_time,
               coalesce(s.report_time_zone, a.report_time_zone) as time_zone
        from cardinal.apps as a
        join cardinal.identified_events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        where cardinal.check_report_range(campaign_conversions_reference.from_date,
                                          campaign_conversions_reference.to_date)
          and (campaign_conversions_reference.app is null or a.name = campaign_conversions_reference.app)
          and e.campaign_id is not null
          and (campaign_conversions_reference.campaign is null
               or e.campaign_id = campaign_conversions_reference.campaign)
          and (campaign_conversions_reference.include_test or not e.test)
          and not e.control
          and e.type = case when e.channel in ('content_card', 'in_app_message') then 'impression' else 'send' end
    ),
    recipients as (
        select app_id, app_name, campaign_id, variant_id, user_key, time_zone, min(time) as first_at,
               min(time) >= min(lower_time) as first_in_range,
               count(distinct day) filter (
                   where day between campaign_conversions_reference.from_date and campaign_conversions_reference.to_date
               ) as days
        from receipts
        group by app_id, app_name, campaign_id, variant_id, user_key, time_zone
    ),
    -- Each converter's conversions in its window, by currency (a conversion without a value adds none).
    outcomes as (
        select r.app_id, r.campaign_id, r.variant_id, g.ordinal, r.user_key, v.currency, v.amount
        from recipients as r
        join cardinal.campaign_conversion_goals as g on g.app_id = r.app_id and g.campaign_id = r.campaign_id
        cross join lateral (
            select coalesce(e.currency, 'XXX') as currency, sum(e.value) as amount
            from cardinal.identified_events as e
            where e.type = 'conversion'
              and e.app_id = r.app_id
              and e.user_key = r.user_key
              and e.conversion_name = g.conversion_event
              -- The window on the campaign's clock (0044), whatever the session's TimeZone.
              and e.time between r.first_at
                             and cardinal.report_window_end(r.first_at, g.conversion_window, r.time_zone)
              and (campaign_conversions_reference.include_test or not e.test)
            group by 1
        ) as v
        where r.days > 0 and r.first_in_range
    ),
    arms as (
        select r.app_id, r.app_name, r.campaign_id, r.variant_id, g.ordinal, g.conversion_event,
               g.conversion_window, sum(r.days)::bigint as unique_recipients
        from recipients as r
        join cardinal.campaign_conversion_goals as g on g.app_id = r.app_id and g.campaign_id = r.campaign_id
        where r.days > 0
        group by 1, 2, 3, 4, 5, 6, 7
    )
    select m.app_name, m.campaign_id, m.variant_id, m.ordinal, m.conversion_event, m.conversion_window,
           m.unique_recipients, converted.users, converted.users::double precision / m.unique_recipients,
           coalesce(money.revenue, '{}'), coalesce(money.per_recipient, '{}')
    from arms as m
    cross join lateral (
        select count(distinct o.user_key) as users
        from outcomes as o
        where o.app_id = m.app_id and o.campaign_id = m.campaign_id
          and o.variant_id is not distinct from m.variant_id and o.ordinal = m.ordinal
    ) as converted
    cross join lateral (
        select jsonb_object_agg(c.currency, c.amount) as revenue,
               jsonb_object_agg(c.currency, c.amount / m.unique_recipients) as per_recipient
        from (
            select o.currency, sum(o.amount) as amount
            from outcomes as o
            where o.app_id = m.app_id and o.campaign_id = m.campaign_id
              and o.variant_id is not distinct from m.variant_id and o.ordinal = m.ordinal
              and o.amount is not null
            group by o.currency
        ) as c
    ) as money
    order by m.app_name, m.campaign_id, m.variant_id nulls first, m.ordinal;
$function$;

create or replace function cardinal.campaign_conversions_from_user_state(
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
    language sql
    stable
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$

    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(campaign_conversions_from_user_state.from_date, campaign_conversions_from_user_state.to_date)
          and (campaign_conversions_from_user_state.app is null or a.name = campaign_conversions_from_user_state.app)
    ),
    -- Per user and report group of a campaign, the receipt days and the first receipt (see the header).
    receipts as (
        select t.app_id, t.app_name, u.campaign_id, u.variant_id, u.user_key,
               campaign_conversions_from_user_state.from_date::timestamp
                   at time zone coalesce(s.report_time_zone, t.report_time_zone) as lower_time,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone,
               case when u.channel in ('content_card', 'in_app_message') then u.first_impression_at
                    else u.first_send_at end as first_at,
               unnest(case when u.channel in ('content_card', 'in_app_message') then u.impression_days
                           else u.send_days end) as day
        from target as t
        join cardinal.report_user_facts as u on u.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = u.app_id and s.campaign_id = u.campaign_id
        where u.campaign_id is not null
          and (campaign_conversions_from_user_state.campaign is null or u.campaign_id = campaign_conversions_from_user_state.campaign)
          and (campaign_conversions_from_user_state.include_test or not u.test)
    ),
    recipients as (
        select app_id, app_name, campaign_id, variant_id, user_key, lower_time, time_zone,
               min(first_at) as first_at,
               count(distinct day) filter (
                   where day between campaign_conversions_from_user_state.from_date and campaign_conversions_from_user_state.to_date
               ) as days
        from receipts
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    totals as (
        select app_id, app_name, campaign_id, variant_id, sum(days)::bigint as unique_recipients
        from recipients
        where days > 0
        group by 1, 2, 3, 4
    ),
    -- The cohort: users first reached in the range, one row per conversion event of their campaign.
    cohort as (
        select r.app_id, r.campaign_id, r.variant_id, r.user_key, r.first_at, g.ordinal, g.conversion_event,
               g.conversion_window, r.time_zone
        from recipients as r
        join cardinal.campaign_conversion_goals as g on g.app_id = r.app_id and g.campaign_id = r.campaign_id
        where r.days > 0 and r.first_at >= r.lower_time
    ),
    -- Every conversion of the apps, with its value where it had one: a conversion with a value is in both
    -- parts, which changes no count of distinct users and adds its value once.
    conversions as (
        select v.app_id, v.user_key, v.conversion_name, unnest(v.times) as time, null::numeric as amount,
               null::text as currency
        from cardinal.report_conversion_facts as v
        where v.app_id in (select app_id from target)
          and (campaign_conversions_from_user_state.include_test or not v.test)
        union all
        select v.app_id, v.user_key, v.conversion_name, unnest(v.times), unnest(v.amounts), unnest(v.currencies)
        from cardinal.report_conversion_value_facts as v
        where v.app_id in (select app_id from target)
          and (campaign_conversions_from_user_state.include_test or not v.test)
    ),
    -- An equality join on (app, user, name), hashed whatever the estimates; the few rows per campaign below
    -- are then joined by '' for NULL, as in unique_impressions.
    in_window as (
        select x.app_id, x.campaign_id, x.variant_id, x.ordinal, x.user_key, c.amount, c.currency
        from cohort as x
        join conversions as c
            on c.app_id = x.app_id and c.user_key = x.user_key and c.conversion_name = x.conversion_event
        -- The window on the campaign's clock (0044), whatever the session's TimeZone.
        where c.time >= x.first_at
          and c.time <= cardinal.report_window_end(x.first_at, x.conversion_window, x.time_zone)
    ),
    converted as (
        select app_id, campaign_id, coalesce(variant_id, '') as variant_key, ordinal,
               count(distinct user_key) as converters
        from in_window
        group by 1, 2, 3, 4
    ),
    revenue as (
        select app_id, campaign_id, variant_key, ordinal, jsonb_object_agg(currency, amount) as amounts
        from (
            select app_id, campaign_id, coalesce(variant_id, '') as variant_key, ordinal, currency,
                   sum(amount) as amount
            from in_window
            where amount is not null
            group by 1, 2, 3, 4, 5
        ) as per_currency
        group by 1, 2, 3, 4
    )
    select t.app_name, t.campaign_id, t.variant_id, g.ordinal, g.conversion_event, g.conversion_window,
           t.unique_recipients, coalesce(c.converters, 0),
           coalesce(c.converters, 0)::double precision / t.unique_recipients,
           coalesce(r.amounts, '{}'),
           coalesce((select jsonb_object_agg(m.key, m.value::numeric / t.unique_recipients)
                     from jsonb_each(r.amounts) as m), '{}')
    from totals as t
    join cardinal.campaign_conversion_goals as g on g.app_id = t.app_id and g.campaign_id = t.campaign_id
    left join converted as c
        on c.app_id = t.app_id and c.campaign_id = t.campaign_id and c.variant_key = coalesce(t.variant_id, '')
           and c.ordinal = g.ordinal
    left join revenue as r
        on r.app_id = t.app_id and r.campaign_id = t.campaign_id and r.variant_key = coalesce(t.variant_id, '')
           and r.ordinal = g.ordinal
    order by t.app_name, t.campaign_id, t.variant_id nulls first, g.ordinal;
$function$;


-- The row's outcome per goal (see the notes). The default is "no outcome yet", as 0043's fill inserts its rows
-- with NULL conversions and then looks them up (refresh_campaign_receipt_conversions, which sets both).
alter table cardinal.report_campaign_receipts
    add column window_revenue jsonb not null default '[null, null, null, null]',
    add constraint report_campaign_receipts_four_outcomes check (jsonb_array_length(window_revenue) = 4);

comment on column cardinal.report_campaign_receipts.window_revenue is
    'Per conversion goal ordinal k, element k - 1 of a JSON array of four: null when the user did not convert '
    'to that goal within the window (report_window_end of first_received_at in the campaign''s report time '
    'zone), else an object of currency to the sum of the values of the goal''s non-test conversions within '
    '[first_received_at, window end] ({} when none had a value) (0045).';


-- 0043's lookup of one campaign's converted_at, now with the outcomes in the window, for the goal and window
-- triggers and the fill below. The window is the campaign's (campaign_conversion_goals takes it from
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

comment on function cardinal.refresh_campaign_receipt_conversions(bigint, text) is
    'Sets converted_at and window_revenue of the campaign''s report_campaign_receipts rows from the folded '
    'conversion and value state (report_conversion_state, report_conversion_value_state) and the campaign''s '
    'goals and window of the moment. The pending conversions are the pending view''s. For the goals'' and '
    'window''s trigger and the fills of 0043 and 0045; the caller holds the state lock.';


-- 0043's view with each row's outcomes in the window (window_revenue, last, as in the table). The pending
-- events come from report_unfolded_events_full() for their values.
create or replace view cardinal.report_pending_campaign_receipts as
with pending as materialized (
    select e.app_id, e.campaign_id, coalesce(e.variant_id, '') as variant_key, e.user_key, e.type, e.time,
           e.conversion_name, e.value, coalesce(e.currency, 'XXX') as currency,
           -- The report day as report_pending_user_facts computes it (the campaign's zone, else the app's).
           (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
    from cardinal.report_unfolded_events_full() as e
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
-- Each pending user's conversions, as aligned arrays (names[i] made at times[i], worth amounts[i] in
-- currencies[i]; amounts[i] NULL without a value).
pending_conversions as materialized (
    select app_id, user_key, array_agg(conversion_name) as names, array_agg(time) as times,
           array_agg(value) as amounts, array_agg(currency) as currencies
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
),
reached as (
    select m.app_id, m.campaign_id, m.variant_key, m.user_key, m.first_received_at, m.received_days,
           coalesce(ge.conversion_events, array[null, null, null, null]::text[]) as conversion_events,
           c.names, c.times, c.amounts, c.currencies,
           -- Per goal, the first conversion at or after the first receipt: the folded conversions by one
           -- primary-key probe, and the user's pending ones (as refresh_campaign_receipt_conversions, plus
           -- those); no probe for a missing goal.
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
    left join cardinal.campaign_conversion_goal_events as ge
        on ge.app_id = m.app_id and ge.campaign_id = m.campaign_id
    left join pending_conversions as c on c.app_id = m.app_id and c.user_key = m.user_key
)
select x.app_id, x.campaign_id, x.variant_key, x.user_key, x.first_received_at, x.received_days, x.converted_at,
       -- Per goal converted within the window, its values in the window by currency: the folded ones by one
       -- primary-key probe, and the pending ones outside a fold (inside, the value state holds them already;
       -- see the notes). A row without conversions (most) skips it all.
       case when array_remove(x.converted_at, null) = '{}' then '[null, null, null, null]'::jsonb
       else to_jsonb(array(
           select case when x.converted_at[g.ordinal] <= w.window_end then coalesce((
                      select jsonb_object_agg(u.currency, u.amount)
                      from (
                          select o.currency, sum(o.amount) as amount
                          from (
                              select t.currency, t.amount
                              from cardinal.report_conversion_value_state as v
                              cross join lateral unnest(v.times, v.amounts, v.currencies)
                                  as t (time, amount, currency)
                              where v.app_id = x.app_id and v.user_key = x.user_key
                                and v.conversion_name = g.event and not v.test
                                and t.time between x.first_received_at and w.window_end
                              union all
                              select p.currency, p.amount
                              from unnest(x.names, x.times, x.amounts, x.currencies)
                                  as p (name, time, amount, currency)
                              where current_setting('cardinal.report_fold_snapshot', true) is distinct from 'taken'
                                and p.name = g.event and p.amount is not null
                                and p.time between x.first_received_at and w.window_end
                          ) as o
                          group by o.currency
                      ) as u
                  ), '{}') end
           from (
               select cardinal.report_window_end(x.first_received_at, s.conversion_window,
                                                 coalesce(s.report_time_zone, a.report_time_zone)) as window_end
           ) as w
           cross join unnest(x.conversion_events) with ordinality as g (event, ordinal)
           order by g.ordinal
       )) end as window_revenue
from reached as x
join cardinal.apps as a on a.app_id = x.app_id
left join cardinal.campaign_settings as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id;

comment on column cardinal.report_pending_campaign_receipts.window_revenue is
    'Per conversion goal ordinal k, element k - 1 of a JSON array of four: null when the user did not convert '
    'to that goal within the window (report_window_end of first_received_at in the campaign''s report time '
    'zone), else an object of currency to the sum of the values of the goal''s non-test conversions within '
    '[first_received_at, window end] ({} when none had a value) (0045).';


-- 0043's fold step, which now also keeps the outcomes.
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
        window_revenue = excluded.window_revenue;
end
$function$;


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

comment on function cardinal.recompute_campaign_receipt_conversions() is
    'Trigger of campaign_settings and campaign_conversion_events: when a campaign''s conversion goals or its '
    'window change, looks its report_campaign_receipts rows'' converted_at and window_revenue up again in the '
    'folded state (pending conversions are the pending view''s), under the state lock (0043, 0045).';

create or replace trigger campaign_settings_recompute_campaign_receipts
    after insert or update of conversion_event, conversion_window or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.recompute_campaign_receipt_conversions();

comment on trigger campaign_settings_recompute_campaign_receipts on cardinal.campaign_settings is
    'Keeps report_campaign_receipts.converted_at and window_revenue of the campaign''s primary conversion '
    'event and window (0043, 0045).';


-- The outcomes of the rows folded so far (see the notes: no requeue), before the counts' triggers exist.
select cardinal.refresh_campaign_receipt_conversions(ge.app_id, ge.campaign_id)
from cardinal.campaign_conversion_goal_events as ge
order by ge.app_id, ge.campaign_id;


create table cardinal.report_campaign_receipt_days (
    app_id      bigint not null,
    campaign_id text   not null,
    variant_key text   not null,
    day         date   not null,
    recipients  bigint not null,

    -- No check that the count is positive: an upsert checks the proposed row, a negative change, before it
    -- finds the conflict. The trigger deletes the counts that reach zero.
    constraint report_campaign_receipt_days_pkey primary key (app_id, campaign_id, variant_key, day)
);

alter table cardinal.report_campaign_receipt_days owner to cardinal_owner;

comment on table cardinal.report_campaign_receipt_days is
    'Counts of report_campaign_receipts per app, campaign, variant and report day (0045): the sum over a '
    'range''s days is campaign_conversions'' unique_recipients. Kept by triggers of report_campaign_receipts; '
    'no row for a day without recipients.';
comment on column cardinal.report_campaign_receipt_days.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_campaign_receipt_days.campaign_id is 'The campaign.';
comment on column cardinal.report_campaign_receipt_days.variant_key is
    'The variant, '''' for none (report_campaign_receipts.variant_key).';
comment on column cardinal.report_campaign_receipt_days.day is
    'The report day (campaign''s report time zone).';
comment on column cardinal.report_campaign_receipt_days.recipients is
    'The number of report_campaign_receipts rows whose received_days hold the day.';


create table cardinal.report_campaign_cohort_days (
    app_id      bigint   not null,
    campaign_id text     not null,
    variant_key text     not null,
    first_day   date     not null,
    ordinal     smallint not null,
    converters  bigint   not null,

    -- No check that the count is positive, as report_campaign_receipt_days.
    constraint report_campaign_cohort_days_pkey primary key (app_id, campaign_id, variant_key, first_day, ordinal)
);

alter table cardinal.report_campaign_cohort_days owner to cardinal_owner;

comment on table cardinal.report_campaign_cohort_days is
    'Converters of report_campaign_receipts per app, campaign, variant, day of first receipt and conversion '
    'goal (0045): the sum over a range''s days is campaign_conversions'' converters. Kept by triggers of '
    'report_campaign_receipts; no row without converters.';
comment on column cardinal.report_campaign_cohort_days.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_campaign_cohort_days.campaign_id is 'The campaign.';
comment on column cardinal.report_campaign_cohort_days.variant_key is
    'The variant, '''' for none (report_campaign_receipts.variant_key).';
comment on column cardinal.report_campaign_cohort_days.first_day is
    'The report day (campaign''s report time zone) of the first receipt: received_days[1].';
comment on column cardinal.report_campaign_cohort_days.ordinal is
    'The conversion goal''s ordinal (campaign_conversion_goals), 1 = primary.';
comment on column cardinal.report_campaign_cohort_days.converters is
    'The number of rows that converted to the goal within the window (window_revenue element not null).';


create table cardinal.report_campaign_cohort_revenue (
    app_id      bigint   not null,
    campaign_id text     not null,
    variant_key text     not null,
    first_day   date     not null,
    ordinal     smallint not null,
    currency    text     not null,
    amount      numeric  not null,
    converters  bigint   not null,

    -- No check that the count is positive, as report_campaign_receipt_days.
    constraint report_campaign_cohort_revenue_pkey
        primary key (app_id, campaign_id, variant_key, first_day, ordinal, currency)
);

alter table cardinal.report_campaign_cohort_revenue owner to cardinal_owner;

comment on table cardinal.report_campaign_cohort_revenue is
    'Revenue of report_campaign_receipts per app, campaign, variant, day of first receipt, conversion goal and '
    'currency (0045): the sum over a range''s days is campaign_conversions'' revenue in that currency. Kept '
    'by triggers of report_campaign_receipts; no row without a converter with a value in the currency.';
comment on column cardinal.report_campaign_cohort_revenue.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_campaign_cohort_revenue.campaign_id is 'The campaign.';
comment on column cardinal.report_campaign_cohort_revenue.variant_key is
    'The variant, '''' for none (report_campaign_receipts.variant_key).';
comment on column cardinal.report_campaign_cohort_revenue.first_day is
    'The report day (campaign''s report time zone) of the first receipt: received_days[1].';
comment on column cardinal.report_campaign_cohort_revenue.ordinal is
    'The conversion goal''s ordinal (campaign_conversion_goals), 1 = primary.';
comment on column cardinal.report_campaign_cohort_revenue.currency is
    'ISO 4217 code; XXX for values sent without one.';
comment on column cardinal.report_campaign_cohort_revenue.amount is
    'The sum of the rows'' values in the currency within their windows (window_revenue).';
comment on column cardinal.report_campaign_cohort_revenue.converters is
    'The number of rows with a value in the currency within their window: the currency is reported while '
    'it is positive, even when the amounts sum to zero.';


-- The counts follow the rows. One function for the three triggers: the changed rows with a sign (+1 added,
-- -1 removed) are one source text that every statement reads; a statement per count table, then the
-- deletion of the counts that reached zero (an upsert cannot delete).
create function cardinal.count_report_campaign_receipts()
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

revoke execute on function cardinal.count_report_campaign_receipts() from public;

comment on function cardinal.count_report_campaign_receipts() is
    'Statement trigger of report_campaign_receipts: adds the inserted rows'' contribution to '
    'report_campaign_receipt_days, report_campaign_cohort_days and report_campaign_cohort_revenue, subtracts '
    'the deleted rows'', both for an update, and deletes the counts that reach zero (0045).';

create trigger report_campaign_receipts_count_inserted
    after insert on cardinal.report_campaign_receipts
    referencing new table as added_rows
    for each statement
    execute function cardinal.count_report_campaign_receipts();

create trigger report_campaign_receipts_count_updated
    after update on cardinal.report_campaign_receipts
    referencing old table as removed_rows new table as added_rows
    for each statement
    execute function cardinal.count_report_campaign_receipts();

create trigger report_campaign_receipts_count_deleted
    after delete on cardinal.report_campaign_receipts
    referencing old table as removed_rows
    for each statement
    execute function cardinal.count_report_campaign_receipts();

comment on trigger report_campaign_receipts_count_inserted on cardinal.report_campaign_receipts is
    'Keeps the campaign conversion counts an aggregate of the rows: adds the inserted rows (0045).';
comment on trigger report_campaign_receipts_count_updated on cardinal.report_campaign_receipts is
    'Keeps the campaign conversion counts an aggregate of the rows: the old rows out, the new ones in (0045).';
comment on trigger report_campaign_receipts_count_deleted on cardinal.report_campaign_receipts is
    'Keeps the campaign conversion counts an aggregate of the rows: subtracts the deleted rows (0045).';


-- The conversions report of campaigns from the counts, without test events: the folded counts of the range's
-- days plus the pending adjustment (see the notes). Same arguments and rows as 0043's.
create or replace function cardinal.campaign_conversions_from_receipts(
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
    -- Hash joins and aggregates whatever the row estimates (0039, 0040); the count tables are read by index.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name
        from cardinal.apps as a
        where campaign_conversions_from_receipts.app is null or a.name = campaign_conversions_from_receipts.app
    ),
    -- The campaigns reported: only one with conversion goals has rows (0030 joins its totals to the goals),
    -- and goals need settings.
    sources as materialized (
        select t.app_id, t.app_name, s.campaign_id
        from target as t
        join cardinal.campaign_settings as s on s.app_id = t.app_id
        where (campaign_conversions_from_receipts.campaign is null
               or s.campaign_id = campaign_conversions_from_receipts.campaign)
          and exists (
              select from cardinal.campaign_conversion_goals as g
              where g.app_id = s.app_id and g.campaign_id = s.campaign_id
          )
    ),
    -- The rows the pending events make, in place of the folded rows of the same key.
    pending as materialized (
        select p.app_id, p.campaign_id, p.variant_key, p.user_key, p.received_days, p.window_revenue
        from cardinal.report_pending_campaign_receipts as p
        join sources as s on s.app_id = p.app_id and s.campaign_id = p.campaign_id
    ),
    -- The folded rows they replace: the pending users' rows by index, whatever their number, then the key.
    replaced as materialized (
        select r.app_id, r.campaign_id, r.variant_key, r.received_days, r.window_revenue
        from cardinal.report_campaign_receipts as r
        join pending as p
            on p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.variant_key = r.variant_key
               and p.user_key = r.user_key
        where r.app_id = any(array(select distinct p.app_id from pending as p))
          and r.user_key = any(array(select distinct p.user_key from pending as p))
    ),
    -- The pending adjustment: what a trigger would add and subtract if the pending rows were folded.
    changes as materialized (
        select 1 as sign, p.app_id, p.campaign_id, p.variant_key, p.received_days, p.window_revenue
        from pending as p
        union all
        select -1, r.app_id, r.campaign_id, r.variant_key, r.received_days, r.window_revenue
        from replaced as r
    ),
    -- The outcomes per goal of the changed rows whose first day is in the range (the cohort's).
    changed_outcomes as materialized (
        select c.sign, c.app_id, c.campaign_id, c.variant_key, g.ordinal::smallint as ordinal, g.outcome
        from changes as c
        cross join lateral jsonb_array_elements(c.window_revenue) with ordinality as g (outcome, ordinal)
        where c.received_days[1] between campaign_conversions_from_receipts.from_date
                                     and campaign_conversions_from_receipts.to_date
          and c.window_revenue <> '[null, null, null, null]'
          and jsonb_typeof(g.outcome) = 'object'
    ),
    -- The count rows of the reported campaigns, by their primary key's (app_id, campaign_id) prefix, then
    -- exactly the pairs of sources.
    totals as (
        select x.app_id, x.campaign_id, x.variant_key, sum(x.recipients)::bigint as unique_recipients
        from (
            select d.app_id, d.campaign_id, d.variant_key, d.recipients
            from cardinal.report_campaign_receipt_days as d
            join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
            where d.app_id = any(array(select s.app_id from sources as s))
              and d.campaign_id = any(array(select s.campaign_id from sources as s))
              and d.day between campaign_conversions_from_receipts.from_date
                            and campaign_conversions_from_receipts.to_date
            union all
            -- Each changed row's days in the range (distinct, so counted).
            select c.app_id, c.campaign_id, c.variant_key,
                   c.sign * (select count(*)
                             from unnest(c.received_days) as r (day)
                             where r.day between campaign_conversions_from_receipts.from_date
                                             and campaign_conversions_from_receipts.to_date)
            from changes as c
        ) as x
        group by 1, 2, 3
        having sum(x.recipients) > 0
    ),
    converter_counts as (
        select x.app_id, x.campaign_id, x.variant_key, x.ordinal, sum(x.converters)::bigint as converters
        from (
            select k.app_id, k.campaign_id, k.variant_key, k.ordinal, k.converters
            from cardinal.report_campaign_cohort_days as k
            join sources as s on s.app_id = k.app_id and s.campaign_id = k.campaign_id
            where k.app_id = any(array(select s.app_id from sources as s))
              and k.campaign_id = any(array(select s.campaign_id from sources as s))
              and k.first_day between campaign_conversions_from_receipts.from_date
                                  and campaign_conversions_from_receipts.to_date
            union all
            select o.app_id, o.campaign_id, o.variant_key, o.ordinal, o.sign
            from changed_outcomes as o
        ) as x
        group by 1, 2, 3, 4
    ),
    -- A currency is reported while some converter has a value in it (converters > 0), as the reference.
    revenue as (
        select app_id, campaign_id, variant_key, ordinal, jsonb_object_agg(currency, amount) as amounts
        from (
            select x.app_id, x.campaign_id, x.variant_key, x.ordinal, x.currency, sum(x.amount) as amount
            from (
                select v.app_id, v.campaign_id, v.variant_key, v.ordinal, v.currency, v.amount, v.converters
                from cardinal.report_campaign_cohort_revenue as v
                join sources as s on s.app_id = v.app_id and s.campaign_id = v.campaign_id
                where v.app_id = any(array(select s.app_id from sources as s))
                  and v.campaign_id = any(array(select s.campaign_id from sources as s))
                  and v.first_day between campaign_conversions_from_receipts.from_date
                                      and campaign_conversions_from_receipts.to_date
                union all
                select o.app_id, o.campaign_id, o.variant_key, o.ordinal, m.key, o.sign * m.value::numeric, o.sign
                from changed_outcomes as o
                cross join lateral jsonb_each(o.outcome) as m
            ) as x
            group by 1, 2, 3, 4, 5
            having sum(x.converters) > 0
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

comment on function cardinal.campaign_conversions_from_receipts(text, date, date, text) is
    'campaign_conversions without test events: the counts of the range''s days (report_campaign_receipt_days, '
    'report_campaign_cohort_days, report_campaign_cohort_revenue) plus the change the pending events make '
    '(report_pending_campaign_receipts in place of the folded rows they replace) (0043, 0045). '
    'campaign_conversions calls it when include_test is false.';


grant select on
    cardinal.report_campaign_receipt_days,
    cardinal.report_campaign_cohort_days,
    cardinal.report_campaign_cohort_revenue
    to cardinal_reader;


-- The counts of the rows folded so far: their aggregate, made after the triggers exist and under the state
-- lock taken above, so that no change of the rows falls between the two.
insert into cardinal.report_campaign_receipt_days
select r.app_id, r.campaign_id, r.variant_key, d.day, count(*)
from cardinal.report_campaign_receipts as r
cross join lateral unnest(r.received_days) as d (day)
group by 1, 2, 3, 4
order by 1, 2, 3, 4;

insert into cardinal.report_campaign_cohort_days
select r.app_id, r.campaign_id, r.variant_key, r.received_days[1], g.ordinal, count(*)
from cardinal.report_campaign_receipts as r
cross join lateral jsonb_array_elements(r.window_revenue) with ordinality as g (outcome, ordinal)
where jsonb_typeof(g.outcome) = 'object'
group by 1, 2, 3, 4, 5
order by 1, 2, 3, 4, 5;

insert into cardinal.report_campaign_cohort_revenue
select r.app_id, r.campaign_id, r.variant_key, r.received_days[1], g.ordinal, m.key, sum(m.value::numeric), count(*)
from cardinal.report_campaign_receipts as r
cross join lateral jsonb_array_elements(r.window_revenue) with ordinality as g (outcome, ordinal)
cross join lateral jsonb_each(case when jsonb_typeof(g.outcome) = 'object' then g.outcome end) as m
group by 1, 2, 3, 4, 5, 6
order by 1, 2, 3, 4, 5, 6;
