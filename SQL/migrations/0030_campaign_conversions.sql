-- 0030_campaign_conversions.sql — conversions and revenue in the main report, up to four conversion events
-- per campaign, each in the control report too (issue 12):
--
--     select * from cardinal.campaign_conversions('shop', '2026-11-01', '2026-11-30');
--     select * from cardinal.control_arm_conversions('shop', 'spring_sale', '2026-11-01', '2026-11-30');
--
-- Definitions (DOMAIN.md; docs/DOMAIN.md says where each comes from):
--   * Conversion events of a campaign: campaign_settings.conversion_event is the primary one (ordinal 1, as
--     before, so existing settings and `campaigns set --conversion` keep their meaning);
--     campaign_conversion_events adds up to three more (ordinals 2..4). Braze: "conversion events … after
--     receiving a campaign", "the primary conversion rate". campaign_conversion_goals lists all of them.
--   * Receipt, as unique_recipients in unique_impressions (0010, 0025): an impression for content cards and
--     in-app messages, a send for the other channels; never a control impression or send.
--   * unique_recipients: per campaign × variant, the sum over the report days of the range of the users who
--     received it that day (over all its channels).
--   * First receipt: a user's earliest receipt of the campaign × variant over its whole history. A user
--     whose first receipt lies in the range is in the range's cohort; one first reached earlier belongs to an
--     earlier range's cohort, so consecutive ranges never count a converter twice (as control_arms, 0012).
--   * Converter: a user of the cohort with a conversion of that name at a time t with
--     first receipt <= t <= first receipt + the campaign's conversion window (3 days by default), once per
--     user and conversion event. Braze: "Specify up to a 30-day window during which a conversion will be
--     counted if the user takes the specified action."
--   * conversion_rate = converters / unique_recipients (Braze's "conversion rate … / unique recipients").
--   * revenue: per currency, the sum of value over every conversion of that name a converter made in its
--     window (not only the first); a value without currency is under 'XXX' (ISO 4217's "no currency").
--     Currencies are never converted into each other. revenue_per_recipient: each currency's revenue divided
--     by unique_recipients.
--   * Report days, the range, test events and user keys as in unique_impressions (0010).
--   * A user in several variants counts in each (as in unique_impressions); the control report, which must
--     compare arms, excludes such users (control_arms).
--
-- Design notes (why, not what):
--
-- * Revenue needs each conversion's value, which the report state (0015) did not keep and the fold's
--   unfolded events (report_unfolded_events, 0021) do not carry. report_conversion_value_state keeps, per
--   user and conversion name, the time, value and currency of the conversions that had a value, in three
--   arrays appended together (so they stay aligned). Its unfolded part looks each unfolded conversion's
--   value up in cardinal.events by primary key (report_unfolded_conversion_values: one pinned index probe per
--   unfolded conversion), rather than widening report_unfolded_events, whose result type every pending view
--   and the requeue depend on.
-- * It follows report_conversion_state as 0027's report_dismissal_state follows report_user_state: the fold
--   adds the unfolded valued conversions in the same snapshot, and a trigger deletes a user's rows here when
--   that user's report_conversion_state row goes (erasure, requeue, retention), so no path that keeps
--   report_conversion_state right needs to know of this table.
-- * campaign_conversions reads the state (report_user_facts and the conversion facts), joins users to their
--   conversions by equality (app, user, conversion name), and the reference twin reads raw events.
-- * control_arm_conversions is control_arms run once per conversion event (the function takes the event and
--   the window as arguments), so the control report's definitions hold for every event unchanged.


-- The conversion events after the primary one.
create table cardinal.campaign_conversion_events (
    app_id           bigint   not null,
    campaign_id      text     not null,
    ordinal          smallint not null,
    conversion_event text     not null,

    constraint campaign_conversion_events_pkey primary key (app_id, campaign_id, ordinal),
    constraint campaign_conversion_events_name_once unique (app_id, campaign_id, conversion_event),
    constraint campaign_conversion_events_settings_fkey foreign key (app_id, campaign_id)
        references cardinal.campaign_settings (app_id, campaign_id) on delete cascade,
    -- Braze allows four conversion events per campaign; the first is campaign_settings.conversion_event.
    constraint campaign_conversion_events_ordinal_range check (ordinal between 2 and 4),
    -- The same rule as campaign_settings.conversion_event and a conversion's name at ingest.
    constraint campaign_conversion_events_name check (
        char_length(conversion_event) between 1 and 255 and conversion_event !~ '^\$'
    )
);

alter table cardinal.campaign_conversion_events owner to cardinal_owner;

comment on table cardinal.campaign_conversion_events is
    'The conversion events of a campaign after its primary one (campaign_settings.conversion_event): up to '
    'three more, ordinals 2 to 4, each counted in campaign_conversions and control_arm_conversions with the '
    'campaign''s conversion window. Set with `cardinal campaigns set --conversions`.';
comment on column cardinal.campaign_conversion_events.app_id is 'The app the campaign belongs to.';
comment on column cardinal.campaign_conversion_events.campaign_id is 'The campaign (campaign_settings.campaign_id).';
comment on column cardinal.campaign_conversion_events.ordinal is
    'Position among the campaign''s conversion events, 2 to 4 (1 is campaign_settings.conversion_event); '
    'Braze''s conversion events B, C and D.';
comment on column cardinal.campaign_conversion_events.conversion_event is
    'Name of the conversion event (the name field of conversion events).';


create view cardinal.campaign_conversion_goals as
select s.app_id, s.campaign_id, 1::smallint as ordinal, s.conversion_event, s.conversion_window
from cardinal.campaign_settings as s
where s.conversion_event is not null
union all
select c.app_id, c.campaign_id, c.ordinal, c.conversion_event, s.conversion_window
from cardinal.campaign_conversion_events as c
join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id;

alter view cardinal.campaign_conversion_goals owner to cardinal_owner;

comment on view cardinal.campaign_conversion_goals is
    'Every conversion event of every campaign with its ordinal (1 = primary, from campaign_settings; 2..4 '
    'from campaign_conversion_events) and the campaign''s conversion window.';
comment on column cardinal.campaign_conversion_goals.app_id is 'The app the campaign belongs to.';
comment on column cardinal.campaign_conversion_goals.campaign_id is 'The campaign.';
comment on column cardinal.campaign_conversion_goals.ordinal is '1 for the primary conversion event, then 2 to 4.';
comment on column cardinal.campaign_conversion_goals.conversion_event is 'Name of the conversion event.';
comment on column cardinal.campaign_conversion_goals.conversion_window is
    'The campaign''s conversion window (campaign_settings.conversion_window).';


create table cardinal.report_conversion_value_state (
    app_id          bigint        not null,
    user_key        text          not null,
    conversion_name text          not null,
    test            boolean       not null,
    times           timestamptz[] not null,
    amounts         numeric[]     not null,
    currencies      text[]        not null,

    constraint report_conversion_value_state_pkey primary key (app_id, user_key, conversion_name, test)
);

alter table cardinal.report_conversion_value_state owner to cardinal_owner;

comment on table cardinal.report_conversion_value_state is
    'Report state of conversion values: per user and conversion name, the time, value and currency of each '
    'conversion that had a value, folded from the stored events (0030), for the revenue of '
    'campaign_conversions. The i-th elements of times, amounts and currencies belong to one conversion. Rows '
    'go when the user''s report_conversion_state row of the name goes.';
comment on column cardinal.report_conversion_value_state.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_conversion_value_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_conversion_value_state.conversion_name is 'Name of the conversion event.';
comment on column cardinal.report_conversion_value_state.test is 'Whether these are test events.';
comment on column cardinal.report_conversion_value_state.times is 'Event times of the conversions with a value.';
comment on column cardinal.report_conversion_value_state.amounts is 'Their values (events.value), in the order of times.';
comment on column cardinal.report_conversion_value_state.currencies is
    'Their currencies (events.currency; ''XXX'', ISO 4217''s "no currency", when none was sent), in the order '
    'of times.';


-- The unfolded conversions with a value, each looked up in cardinal.events by primary key: one index probe per
-- unfolded conversion, pinned (hash and merge joins off), since the planner cannot know how few they are and
-- would otherwise scan the events to hash them. PL/pgSQL with JIT off, like report_unfolded_events: as a
-- view, the probe's cost estimate over every partition (a thousand guessed rows times 17 partitions) made
-- each report compile its plan with JIT (0.5 s measured, for one row).
create function cardinal.report_unfolded_conversion_values()
    returns table (
        app_id          bigint,
        user_key        text,
        conversion_name text,
        test            boolean,
        "time"          timestamptz,
        id              uuid,
        value           numeric,
        currency        text
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
    set enable_hashjoin = off
    set enable_mergejoin = off
    set jit = off
as $function$
begin
    return query
    select u.app_id, u.user_key, u.conversion_name, u.test, u.time, u.id, e.value, coalesce(e.currency, 'XXX')
    from cardinal.report_unfolded_events() as u
    join cardinal.events as e on e.app_id = u.app_id and e.time = u.time and e.id = u.id
    where u.type = 'conversion' and e.type = 'conversion' and e.value is not null;
end
$function$;

alter function cardinal.report_unfolded_conversion_values() owner to cardinal_owner;

comment on function cardinal.report_unfolded_conversion_values() is
    'The unfolded conversions (report_unfolded_events) that have a value, with the value and currency (''XXX'' '
    'when none) looked up in cardinal.events by primary key. report_pending_conversion_value_facts aggregates them.';


-- The order is the same in the three aggregates, so the arrays stay aligned.
create view cardinal.report_pending_conversion_value_facts as
select app_id, user_key, conversion_name, test,
       array_agg(time order by time, id) as times,
       array_agg(value order by time, id) as amounts,
       array_agg(currency order by time, id) as currencies
from cardinal.report_unfolded_conversion_values()
group by app_id, user_key, conversion_name, test;

alter view cardinal.report_pending_conversion_value_facts owner to cardinal_owner;

comment on view cardinal.report_pending_conversion_value_facts is
    'The unfolded conversions with a value as report_conversion_value_state rows: what the next fold adds.';


create view cardinal.report_conversion_value_facts as
select app_id, user_key, conversion_name, test, times, amounts, currencies
from cardinal.report_conversion_value_state
union all
select * from cardinal.report_pending_conversion_value_facts;

alter view cardinal.report_conversion_value_facts owner to cardinal_owner;

comment on view cardinal.report_conversion_value_facts is
    'Time, value and currency of each conversion with a value, per user and name: '
    'report_conversion_value_state and the unfolded events.';

-- The views' columns mean what the state's columns of the same name mean.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name,
               pg_catalog.col_description('cardinal.report_conversion_value_state'::regclass,
                                          (select c.attnum from pg_catalog.pg_attribute as c
                                           where c.attrelid = 'cardinal.report_conversion_value_state'::regclass
                                             and c.attname = a.attname)) as description
        from unnest(array['report_pending_conversion_value_facts', 'report_conversion_value_facts']) as v (view_name)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- Part of the fold: runs before fold_report_user_state, which moves the watermark, so that both read the
-- same unfolded events.
create function cardinal.fold_report_conversion_values()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.report_conversion_value_state as c
    select app_id, user_key, conversion_name, test, times, amounts, currencies
    from cardinal.report_pending_conversion_value_facts
    order by 1, 2, 3, 4
    on conflict (app_id, user_key, conversion_name, test) do update set
        times = c.times || excluded.times,
        amounts = c.amounts || excluded.amounts,
        currencies = c.currencies || excluded.currencies;
end
$function$;

alter function cardinal.fold_report_conversion_values() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_conversion_values() from public;

comment on function cardinal.fold_report_conversion_values() is
    'Folds the unfolded conversions with a value into report_conversion_value_state. Part of '
    'fold_report_state(), which holds the state lock and moves the watermark; not to be called alone.';


-- 0029's fold_report_state (work_mem 64 MB, the row-days, dismissals and push-send steps) with the values step
-- added.
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set work_mem = '64MB'
as $function$
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
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    perform cardinal.fold_report_conversion_values();
    return cardinal.fold_report_user_state();
end
$function$;


-- Deleting a user's conversion state (erasure, requeue) deletes its values of the same names.
create function cardinal.forget_report_conversion_values()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_conversion_value_state as v
    using forgotten as f
    where v.app_id = f.app_id and v.user_key = f.user_key and v.conversion_name = f.conversion_name
      and v.test = f.test;
    return null;
end
$function$;

alter function cardinal.forget_report_conversion_values() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_conversion_values() from public;

comment on function cardinal.forget_report_conversion_values() is
    'Statement trigger of report_conversion_state deletions: deletes the same users'' '
    'report_conversion_value_state rows of the same conversion names.';

create trigger report_conversion_state_forget_values
    after delete on cardinal.report_conversion_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_conversion_values();

comment on trigger report_conversion_state_forget_values on cardinal.report_conversion_state is
    'Keeps report_conversion_value_state equal to what report_conversion_state holds (0030).';


-- The values of the conversions folded before this migration (every stored conversion that is not
-- unfolded). Under the state lock, so that no fold runs meanwhile.
select pg_advisory_xact_lock(cardinal.report_state_lock_key());

with unfolded as materialized (
    select u.app_id, u.time, u.id from cardinal.report_unfolded_events() as u where u.type = 'conversion'
)
insert into cardinal.report_conversion_value_state
select e.app_id, e.user_key, e.conversion_name, e.test,
       array_agg(e.time order by e.time, e.id), array_agg(e.value order by e.time, e.id),
       array_agg(coalesce(e.currency, 'XXX') order by e.time, e.id)
from cardinal.events as e
where e.type = 'conversion'
  and e.value is not null
  and not exists (select from unfolded as u where u.app_id = e.app_id and u.time = e.time and u.id = e.id)
group by 1, 2, 3, 4;


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
    language sql
    stable
    -- Hash joins only: the users-to-conversions join is of two per-user sets whose sizes the planner cannot
    -- know (the unfolded part is a function); with a nested loop it ran for minutes on 250 k events where the
    -- hashed plan takes 2 s (measured). Turning the others off prices them at 1e10, so JIT is off too (0021).
    -- The SET clauses also keep the function from being inlined into a caller's plan.
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(campaign_conversions.from_date, campaign_conversions.to_date)
          and (campaign_conversions.app is null or a.name = campaign_conversions.app)
    ),
    -- Per user and report group of a campaign, the receipt days and the first receipt (see the header).
    receipts as (
        select t.app_id, t.app_name, u.campaign_id, u.variant_id, u.user_key,
               campaign_conversions.from_date::timestamp
                   at time zone coalesce(s.report_time_zone, t.report_time_zone) as lower_time,
               case when u.channel in ('content_card', 'in_app_message') then u.first_impression_at
                    else u.first_send_at end as first_at,
               unnest(case when u.channel in ('content_card', 'in_app_message') then u.impression_days
                           else u.send_days end) as day
        from target as t
        join cardinal.report_user_facts as u on u.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = u.app_id and s.campaign_id = u.campaign_id
        where u.campaign_id is not null
          and (campaign_conversions.campaign is null or u.campaign_id = campaign_conversions.campaign)
          and (campaign_conversions.include_test or not u.test)
    ),
    recipients as (
        select app_id, app_name, campaign_id, variant_id, user_key, lower_time,
               min(first_at) as first_at,
               count(distinct day) filter (
                   where day between campaign_conversions.from_date and campaign_conversions.to_date
               ) as days
        from receipts
        group by 1, 2, 3, 4, 5, 6
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
               g.conversion_window
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
          and (campaign_conversions.include_test or not v.test)
        union all
        select v.app_id, v.user_key, v.conversion_name, unnest(v.times), unnest(v.amounts), unnest(v.currencies)
        from cardinal.report_conversion_value_facts as v
        where v.app_id in (select app_id from target)
          and (campaign_conversions.include_test or not v.test)
    ),
    -- An equality join on (app, user, name), hashed whatever the estimates; the few rows per campaign below
    -- are then joined by '' for NULL, as in unique_impressions.
    in_window as (
        select x.app_id, x.campaign_id, x.variant_id, x.ordinal, x.user_key, c.amount, c.currency
        from cohort as x
        join conversions as c
            on c.app_id = x.app_id and c.user_key = x.user_key and c.conversion_name = x.conversion_event
        where c.time >= x.first_at and c.time <= x.first_at + x.conversion_window
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
    'events.';


-- The definition over raw events, written independently of the one above (a probe per user and conversion
-- event, as 0012's control_arms did), so that the property tests compare two computations.
create function cardinal.campaign_conversions_reference(
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
                   at time zone coalesce(s.report_time_zone, a.report_time_zone) as lower_time
        from cardinal.apps as a
        join cardinal.events as e on e.app_id = a.app_id
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
        select app_id, app_name, campaign_id, variant_id, user_key, min(time) as first_at,
               min(time) >= min(lower_time) as first_in_range,
               count(distinct day) filter (
                   where day between campaign_conversions_reference.from_date and campaign_conversions_reference.to_date
               ) as days
        from receipts
        group by app_id, app_name, campaign_id, variant_id, user_key
    ),
    -- Each converter's conversions in its window, by currency (a conversion without a value adds none).
    outcomes as (
        select r.app_id, r.campaign_id, r.variant_id, g.ordinal, r.user_key, v.currency, v.amount
        from recipients as r
        join cardinal.campaign_conversion_goals as g on g.app_id = r.app_id and g.campaign_id = r.campaign_id
        cross join lateral (
            select coalesce(e.currency, 'XXX') as currency, sum(e.value) as amount
            from cardinal.events as e
            where e.type = 'conversion'
              and e.app_id = r.app_id
              and e.user_key = r.user_key
              and e.conversion_name = g.conversion_event
              and e.time between r.first_at and r.first_at + g.conversion_window
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

alter function cardinal.campaign_conversions_reference(text, date, date, text, boolean) owner to cardinal_owner;

grant execute on function cardinal.campaign_conversions_reference(text, date, date, text, boolean) to cardinal_reader;

comment on function cardinal.campaign_conversions_reference(text, date, date, text, boolean) is
    'Reference implementation of campaign_conversions over the raw events (0030): the same arguments and rows, '
    'computed without the report state. Slow on large apps; for checking numbers and tests.';


-- The control report of every conversion event: control_arms (or its reference) once per event, with the
-- event and the campaign's window as its arguments.
create function cardinal.control_arm_conversions(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    as_of        timestamptz default now(),
    include_test boolean     default false,
    reference    boolean     default false
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
        converters       bigint
    )
    language sql
    stable
as $function$
    select arm.app_name, arm.campaign_id, g.ordinal, arm.conversion_event, arm.window_length, arm.variant_id,
           arm.control, arm.users, arm.converters
    from cardinal.apps as a
    join cardinal.campaign_conversion_goals as g on g.app_id = a.app_id
    cross join lateral (
        select * from cardinal.control_arms(a.name, g.campaign_id, control_arm_conversions.from_date,
                                            control_arm_conversions.to_date, control_arm_conversions.as_of,
                                            g.conversion_event, g.conversion_window,
                                            control_arm_conversions.include_test)
        where not control_arm_conversions.reference
        union all
        select * from cardinal.control_arms_reference(a.name, g.campaign_id, control_arm_conversions.from_date,
                                                      control_arm_conversions.to_date, control_arm_conversions.as_of,
                                                      g.conversion_event, g.conversion_window,
                                                      control_arm_conversions.include_test)
        where control_arm_conversions.reference
    ) as arm
    where cardinal.check_report_range(control_arm_conversions.from_date, control_arm_conversions.to_date)
      and (control_arm_conversions.app is null or a.name = control_arm_conversions.app)
      and (control_arm_conversions.campaign is null or g.campaign_id = control_arm_conversions.campaign)
    order by arm.app_name, arm.campaign_id, g.ordinal, arm.control desc, arm.variant_id nulls first;
$function$;

alter function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean)
    owner to cardinal_owner;

grant execute on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean)
    to cardinal_reader;

comment on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean) is
    'The control report per conversion event: for each conversion event of each campaign (ordinal 1 = '
    'primary, campaign_conversion_goals), control_arms with that event and the campaign''s window: per arm '
    'the matured users and the converters. reference = true computes it with control_arms_reference over the '
    'raw events instead of the report state (for tests). app and campaign NULL = all.';


grant execute on function cardinal.report_unfolded_conversion_values() to cardinal_reader;

grant select on
    cardinal.campaign_conversion_events,
    cardinal.campaign_conversion_goals,
    cardinal.report_conversion_value_state,
    cardinal.report_pending_conversion_value_facts,
    cardinal.report_conversion_value_facts
    to cardinal_reader;
