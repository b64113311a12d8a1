-- Campaign conversions: per campaign × variant and conversion goal, the unique recipients of the report days,
-- the converters among the users first reached in the range, the conversion rate and the revenue.
--
-- Entry point: campaign_conversions. Without test events it reads campaign_conversions_from_receipts (the
-- per-day counts of report_campaign_receipts, plus the change the pending events make); with them
-- campaign_conversions_from_user_state (the per-user state). campaign_conversions_reference, over the raw
-- events, is the definition both are tested against.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- The conversions report. PL/pgSQL, so that each call plans only the source that answers it: the counts keep
-- non-test receipts only, so include_test reads the per-user state.
create or replace function cardinal.campaign_conversions(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text    default null,
    include_test boolean default false
)
    returns setof cardinal.campaign_conversions_row
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
    'revenue_per_recipient. app and campaign NULL = all. SQL/docs/reports.md defines the columns; '
    'campaign_conversions_reference computes the same from raw events. Without test events it reads the '
    'counts of report_campaign_receipts (campaign_conversions_from_receipts), with them the per-user state '
    '(campaign_conversions_from_user_state).';


-- The conversions report of campaigns from the counts, without test events. What a range asks of the
-- recipients is a sum over report days: unique_recipients sums the recipients of each day (a row's days are
-- distinct), and the cohort is the rows whose first receipt's day is in the range, so converters and revenue
-- sum over first days. The counts answer any range at the cost of its days and campaigns, not its recipients.
-- To them it adds the pending adjustment: the rows of pending_campaign_receipts (of the campaign) replace the folded
-- rows of the same key, so their contribution is added and the replaced rows' subtracted.
create or replace function cardinal.campaign_conversions_from_receipts(
    app       text,
    from_date date,
    to_date   date,
    campaign  text
)
    returns setof cardinal.campaign_conversions_row
    language sql
    stable
    set search_path = pg_catalog, pg_temp
    -- No plan hinges on a row estimate: joins and aggregates hashed (jit off with them), the count tables and
    -- the replaced rows read by index conditions on arrays.
    set enable_nestloop = off
    set enable_mergejoin = off
    set enable_sort = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name
        from cardinal.apps as a
        where campaign_conversions_from_receipts.app is null or a.name = campaign_conversions_from_receipts.app
    ),
    -- The campaigns reported: only one with conversion goals has rows (the report joins its totals to the
    -- goals), and goals need settings.
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
        from cardinal.pending_campaign_receipts(campaign_conversions_from_receipts.campaign) as p
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
alter function cardinal.campaign_conversions_from_receipts(text, date, date, text) owner to cardinal_owner;
grant execute on function cardinal.campaign_conversions_from_receipts(text, date, date, text) to cardinal_reader;
comment on function cardinal.campaign_conversions_from_receipts(text, date, date, text) is
    'campaign_conversions without test events: the counts of the range''s days (report_campaign_receipt_days, '
    'report_campaign_cohort_days, report_campaign_cohort_revenue) plus the change the pending events make '
    '(pending_campaign_receipts in place of the folded rows they replace). campaign_conversions calls '
    'it when include_test is false.';


-- The conversions report from the per-user state: what campaign_conversions runs with include_test, since the
-- counts keep non-test receipts only (test and non-test receipts of a user merge into one first receipt). It
-- joins the cohort to the conversions by equality on (app, user, conversion name).
create or replace function cardinal.campaign_conversions_from_user_state(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text    default null,
    include_test boolean default false
)
    returns setof cardinal.campaign_conversions_row
    language sql
    stable
    set search_path = pg_catalog, pg_temp
    -- Hash joins and aggregates whatever the row estimates (the cohort is joined to every conversion of the
    -- app, whose count no estimate gets right); jit off with them.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(campaign_conversions_from_user_state.from_date,
                                          campaign_conversions_from_user_state.to_date)
          and (campaign_conversions_from_user_state.app is null
               or a.name = campaign_conversions_from_user_state.app)
    ),
    -- Per user and report group of a campaign, the receipt days and the first receipt (report_receipt_type: a
    -- push send, an impression on every other channel; never a control one).
    receipts as (
        select t.app_id, t.app_name, u.campaign_id, u.variant_id, u.user_key,
               campaign_conversions_from_user_state.from_date::timestamp
                   at time zone coalesce(s.report_time_zone, t.report_time_zone) as lower_time,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone,
               case when cardinal.report_receipt_type(u.channel) = 'send' then u.first_send_at
                    else u.first_impression_at end as first_at,
               unnest(case when cardinal.report_receipt_type(u.channel) = 'send' then u.send_days
                           else u.impression_days end) as day
        from target as t
        join cardinal.report_user_facts as u on u.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = u.app_id and s.campaign_id = u.campaign_id
        where u.campaign_id is not null
          and (campaign_conversions_from_user_state.campaign is null
               or u.campaign_id = campaign_conversions_from_user_state.campaign)
          and (campaign_conversions_from_user_state.include_test or not u.test)
    ),
    recipients as (
        select app_id, app_name, campaign_id, variant_id, user_key, lower_time, time_zone,
               min(first_at) as first_at,
               count(distinct day) filter (
                   where day between campaign_conversions_from_user_state.from_date
                                 and campaign_conversions_from_user_state.to_date
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
        -- The window on the campaign's clock (report_window_end), whatever the session's TimeZone.
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
alter function cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean) to cardinal_reader;
comment on function cardinal.campaign_conversions_from_user_state(text, date, date, text, boolean) is
    'campaign_conversions computed from the per-user report state (report_user_facts, report_conversion_facts, '
    'report_conversion_value_facts), with or without test events. campaign_conversions calls it for '
    'include_test, which the counts of campaign_conversions_from_receipts do not hold.';
