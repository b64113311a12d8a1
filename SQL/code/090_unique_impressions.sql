-- The unique-impressions report: impressions, clicks and dismissals with their distinct users and rates per
-- campaign (or canvas step) × variant × channel, and for push the direct and influenced opens and deliveries.
--
-- Entry point: unique_impressions, which adds the push columns (from push_counts) to the 19 columns of
-- unique_impressions_without_push_opens. That one picks the state that answers fastest: the day pairs
-- (unique_impressions_from_day_pairs), the per-user state (unique_impressions_from_user_state), or the part
-- state for the breakdowns by button, placement or message (unique_impressions_by_part, which also serves the
-- raw-event reference). report_breakdown, unique_impressions_rates and unique_impressions_open_columns are the
-- breakdown value, the rates and the push columns, shared with the references
-- (SQL/code/130_reference_reports.sql). Definitions: SQL/docs/reports.md.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



create or replace function cardinal.unique_impressions(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns setof cardinal.unique_impressions_row
    language sql
    stable
as $function$
    select r.*, o.*
    from cardinal.unique_impressions_without_push_opens(app, from_date, to_date, include_test, campaign, by) as r
    -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed. A part
    -- breakdown leaves push_counts' breakdown NULL: its influenced opens, sends and deliveries are the
    -- message's, on every button.
    left join cardinal.push_counts(app, from_date, to_date, include_test, campaign, by) as p
        on r.channel = 'push'
       and p.app_name = r.app_name
       and coalesce(p.campaign_id, '') = coalesce(r.campaign_id, '')
       and coalesce(p.canvas_id, '') = coalesce(r.canvas_id, '')
       and coalesce(p.canvas_step_id, '') = coalesce(r.canvas_step_id, '')
       and coalesce(p.variant_id, '') = coalesce(r.variant_id, '')
       and coalesce(p.breakdown, '') = case when by = 'button_id' then '' else coalesce(r.breakdown, '') end
    -- Split by button, a push row's clicks are its button's: the message's own unique direct opens, for its
    -- total opens, come from the whole report's row (read only for this breakdown).
    left join (
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.unique_clicks
        from cardinal.unique_impressions_without_push_opens(app, from_date, to_date, include_test, campaign) as w
        where unique_impressions.by = 'button_id' and w.channel = 'push'
    ) as m
        on r.channel = 'push'
       and m.app_name = r.app_name
       and coalesce(m.campaign_id, '') = coalesce(r.campaign_id, '')
       and coalesce(m.canvas_id, '') = coalesce(r.canvas_id, '')
       and coalesce(m.canvas_step_id, '') = coalesce(r.canvas_step_id, '')
       and coalesce(m.variant_id, '') = coalesce(r.variant_id, '')
    cross join lateral cardinal.unique_impressions_open_columns(r.channel, r.clicks, r.unique_clicks,
                                                                r.unique_recipients, p.influenced_opens,
                                                                coalesce(m.unique_clicks, r.unique_clicks),
                                                                p.sends, p.deliveries) as o
    order by r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel, r.breakdown;
$function$;
alter function cardinal.unique_impressions(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.unique_impressions(text, date, date, boolean, text, text) is
    'Unique-impressions report: one row per app × campaign (or canvas step) × variant × channel (× the '
    'breakdown: by => day, platform, sdk_version, app_version, button_id, placement_id or message_id) over '
    'the report days from_date..to_date (both included) in each campaign''s report time zone, read from the '
    'report state. app NULL = every app; campaign NULL = every campaign and canvas step. Users are user_key; '
    'control and (unless include_test) test events are left out. unique_impressions counts a user once in the '
    'range, unique_daily_impressions once per day; rates are NULL when their divisor is 0. The part '
    'breakdowns: in-app message and push clicks by button (each row repeating the message''s impressions, '
    'recipients and dismissals), banners by placement, content cards by card. The six columns after the '
    'rates are '
    'for push and NULL on other channels: direct_opens and unique_direct_opens are the clicks, '
    'influenced_opens the users who opened the app within the influenced_open_window after a send without '
    'a direct open (push_counts), total_opens = the message''s unique_direct_opens + influenced_opens, '
    'and both open rates divide by unique_recipients; split by button, the direct opens are the button''s '
    'and influenced_opens, total_opens and total_open_rate the message''s. The last two, also push only: '
    'deliveries (delivery events, push_counts) and delivery_rate = deliveries / sends, the message''s on '
    'every button. Definitions in '
    'SQL/docs/reports.md; unique_impressions_reference computes the same from raw events.';


-- The value of the report's breakdown column for one row: its day (YYYY-MM-DD), platform, SDK or app version,
-- by the breakdown asked for (NULL for none, and for the part breakdowns, which unique_impressions_by_part
-- fills). Language sql, immutable and not strict, so that it is inlined into its callers as the CASE it is.
create or replace function cardinal.report_breakdown(
    by          text,
    day         date,
    platform    text,
    sdk_version text,
    app_version text
)
    returns text
    language sql
    immutable
as $function$
    select case report_breakdown.by
               when 'day' then to_char(report_breakdown.day, 'YYYY-MM-DD')
               when 'platform' then report_breakdown.platform
               when 'sdk_version' then report_breakdown.sdk_version
               when 'app_version' then report_breakdown.app_version
           end;
$function$;
alter function cardinal.report_breakdown(text, date, text, text, text) owner to cardinal_owner;
grant execute on function cardinal.report_breakdown(text, date, text, text, text) to cardinal_reader;
comment on function cardinal.report_breakdown(text, date, text, text, text) is
    'The breakdown column of unique_impressions and push_counts (and their references) for one row: the day as '
    'YYYY-MM-DD when by is day, else the platform, sdk_version or app_version the breakdown names; NULL '
    'without a breakdown and for the part breakdowns. Inlined into its callers.';


-- The four rates of unique_impressions from a row's counts, NULL when the divisor is 0. Shared by every body
-- that counts the report (from the day pairs, the per-user state, the part state and the raw events);
-- language sql, immutable and without FROM, so that it is inlined into the caller's query.
create or replace function cardinal.unique_impressions_rates(
    channel            text,
    impressions        bigint,
    unique_impressions bigint,
    clicks             bigint,
    unique_clicks      bigint,
    dismissals         bigint,
    unique_dismissals  bigint,
    unique_recipients  bigint
)
    returns table (
        click_rate            double precision,
        unique_click_rate     double precision,
        dismissal_rate        double precision,
        unique_dismissal_rate double precision
    )
    language sql
    immutable
as $function$
    -- A push has no impressions: its dismissals (a notification swiped away) are rated over the users it
    -- reached, as its opens are.
    select clicks::double precision / nullif(impressions, 0),
           unique_clicks::double precision / nullif(unique_impressions, 0),
           dismissals::double precision
               / nullif(case when channel = 'push' then unique_recipients else impressions end, 0),
           unique_dismissals::double precision
               / nullif(case when channel = 'push' then unique_recipients else unique_impressions end, 0);
$function$;
alter function cardinal.unique_impressions_rates(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_rates(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint) to cardinal_reader;
comment on function cardinal.unique_impressions_rates(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint) is
    'The rates of a unique_impressions row: click_rate = clicks / impressions, unique_click_rate = '
    'unique_clicks / unique_impressions, dismissal_rate = dismissals / impressions, unique_dismissal_rate = '
    'unique_dismissals / unique_impressions, and on push rows (no impressions) the dismissal rates over '
    'unique_recipients; each NULL when its divisor is 0. Shared by the bodies that count the report and by its '
    'reference; inlined into them.';


-- The eight push columns of unique_impressions from a row's counts and its influenced opens, sends and
-- deliveries (push_counts): NULL on other channels. Shared by unique_impressions and its references;
-- language sql, immutable and without FROM, so that it is inlined into the caller's join.
create or replace function cardinal.unique_impressions_open_columns(
    channel               text,
    clicks                bigint,
    unique_clicks         bigint,
    unique_recipients     bigint,
    opens                 bigint,
    message_unique_clicks bigint,
    sends                 bigint,
    deliveries            bigint
)
    returns table (
        direct_opens        bigint,
        unique_direct_opens bigint,
        influenced_opens    bigint,
        total_opens         bigint,
        direct_open_rate    double precision,
        total_open_rate     double precision,
        deliveries          bigint,
        delivery_rate       double precision
    )
    language sql
    immutable
as $function$
    select case when channel = 'push' then clicks end,
           case when channel = 'push' then unique_clicks end,
           case when channel = 'push' then coalesce(opens, 0) end,
           case when channel = 'push' then message_unique_clicks + coalesce(opens, 0) end,
           case when channel = 'push' then unique_clicks::double precision / nullif(unique_recipients, 0) end,
           case when channel = 'push'
                then (message_unique_clicks + coalesce(opens, 0))::double precision / nullif(unique_recipients, 0)
           end,
           case when channel = 'push' then coalesce(unique_impressions_open_columns.deliveries, 0) end,
           case when channel = 'push'
                then coalesce(unique_impressions_open_columns.deliveries, 0)::double precision / nullif(sends, 0)
           end;
$function$;
alter function cardinal.unique_impressions_open_columns(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_open_columns(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint) to cardinal_reader;
comment on function cardinal.unique_impressions_open_columns(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint) is
    'The last eight columns of unique_impressions for one row, NULL unless channel is push: direct_opens = '
    'clicks, unique_direct_opens = unique_clicks, influenced_opens = opens (the row''s push_counts, 0 when '
    'none), total_opens = message_unique_clicks + influenced_opens, direct_open_rate = unique_direct_opens / '
    'unique_recipients and total_open_rate = total_opens / unique_recipients, deliveries (0 when none) and '
    'delivery_rate = deliveries / sends (each rate NULL when its divisor is 0). message_unique_clicks is the '
    'row''s own unique_clicks but on a row split by button, where it is the whole message''s. Shared by '
    'unique_impressions and its references; inlined into them.';


-- The report from the per-user state: the breakdowns by platform, SDK and app version, and include_test, which
-- the day pairs cannot answer (they are kept per report row, without those columns and without test events).
create or replace function cardinal.unique_impressions_from_user_state(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns setof cardinal.unique_impressions_counts_row
    language sql
    stable
as $function$
    -- Who did what on which day of the range. Distinct users and (day, user) pairs are counted by grouping
    -- (hash aggregates) rather than count(distinct …), which sorts every input row: the same user may have
    -- several state rows in one report row (another platform, SDK or app version, a test event).
    with user_days as (
        select a.name as app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel,
               cardinal.report_breakdown(unique_impressions_from_user_state.by, d.day, u.platform, u.sdk_version,
                                         u.app_version) as breakdown,
               d.kind, u.user_key, d.day
        from cardinal.apps as a
        join cardinal.report_user_facts_of(unique_impressions_from_user_state.campaign, null) as u
            on u.app_id = a.app_id
        cross join lateral (
            select 'impression' as kind, day from unnest(u.impression_days) as day
            union all
            select 'click', day from unnest(u.click_days) as day
            union all
            select 'dismissal', day from unnest(u.dismissal_days) as day
            union all
            select 'send', day from unnest(u.send_days) as day
        ) as d
        where cardinal.check_report_range(unique_impressions_from_user_state.from_date,
                                          unique_impressions_from_user_state.to_date)
          and cardinal.check_report_dimension(unique_impressions_from_user_state.by)
          and (unique_impressions_from_user_state.app is null or a.name = unique_impressions_from_user_state.app)
          and (unique_impressions_from_user_state.campaign is null
               or u.campaign_id = unique_impressions_from_user_state.campaign)
          and (unique_impressions_from_user_state.include_test or not u.test)
          and d.day between unique_impressions_from_user_state.from_date and unique_impressions_from_user_state.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ),
    users as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown, kind, user_key,
               count(*) as days
        from user_days
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    uniques as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               count(*) filter (where kind = 'impression') as unique_impressions,
               coalesce(sum(days) filter (where kind = 'impression'), 0) as unique_daily_impressions,
               coalesce(sum(days) filter (where kind = cardinal.report_receipt_type(channel)), 0)
                   as unique_recipients,
               count(*) filter (where kind = 'click') as unique_clicks,
               count(*) filter (where kind = 'dismissal') as unique_dismissals
        from users
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- How many events: the per-day counts of the range.
    totals as (
        select a.name as app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel,
               cardinal.report_breakdown(unique_impressions_from_user_state.by, c.day, c.platform, c.sdk_version,
                                         c.app_version) as breakdown,
               sum(c.impressions) as impressions, sum(c.clicks) as clicks, sum(c.dismissals) as dismissals
        from cardinal.apps as a
        join cardinal.report_daily_count_facts as c on c.app_id = a.app_id
        where (unique_impressions_from_user_state.app is null or a.name = unique_impressions_from_user_state.app)
          and (unique_impressions_from_user_state.campaign is null
               or c.campaign_id = unique_impressions_from_user_state.campaign)
          and (unique_impressions_from_user_state.include_test or not c.test)
          and c.day between unique_impressions_from_user_state.from_date and unique_impressions_from_user_state.to_date
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- A report row exists where the range has a non-control send, impression, click or dismissal: then
    -- both sides have it (the day sets and the counts come from the same events). Both sides are one row
    -- per report row, a few hundred at most.
    counted as (
        select u.app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel, u.breakdown,
               t.impressions::bigint as impressions, u.unique_impressions, u.unique_daily_impressions::bigint
                   as unique_daily_impressions,
               u.unique_recipients::bigint as unique_recipients, t.clicks::bigint as clicks, u.unique_clicks,
               t.dismissals::bigint as dismissals, u.unique_dismissals
        from uniques as u
        -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed.
        join totals as t
            on t.app_name = u.app_name
           and coalesce(t.campaign_id, '') = coalesce(u.campaign_id, '')
           and coalesce(t.canvas_id, '') = coalesce(u.canvas_id, '')
           and coalesce(t.canvas_step_id, '') = coalesce(u.canvas_step_id, '')
           and coalesce(t.variant_id, '') = coalesce(u.variant_id, '')
           and t.channel = u.channel
           and coalesce(t.breakdown, '') = coalesce(u.breakdown, '')
    )
    select c.*, r.*
    from counted as c
    cross join lateral cardinal.unique_impressions_rates(c.channel, c.impressions, c.unique_impressions,
                                                         c.clicks, c.unique_clicks, c.dismissals,
                                                         c.unique_dismissals, c.unique_recipients) as r
    order by c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.breakdown;
$function$;
alter function cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text) is
    'unique_impressions computed from the per-user state (report_*_facts): any breakdown, test events '
    'included or not. unique_impressions calls it for the breakdowns by platform, sdk_version and '
    'app_version and for include_test.';


-- The report from the day pairs, without test events, whole or by day: the folded reads by key and the day
-- counts summed per group first.
create or replace function cardinal.unique_impressions_from_day_pairs(
    app       text,
    from_date date,
    to_date   date,
    campaign  text,
    by_day    boolean
)
    returns setof cardinal.unique_impressions_counts_row
    language sql
    stable
    set enable_sort = off
    set enable_incremental_sort = off
    set enable_nestloop = off
    set jit = off
as $function$
    -- The report rows and the groups the report reads (test groups are left out).
    with selected_rows as materialized (
        select r.row_id
        from cardinal.apps as a
        join cardinal.report_rows as r on r.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or r.campaign_id = unique_impressions_from_day_pairs.campaign)
    ),
    selected_groups as materialized (
        select g.group_id
        from cardinal.apps as a
        join cardinal.report_groups as g on g.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or g.campaign_id = unique_impressions_from_day_pairs.campaign)
          and not g.test
    ),
    -- The unfolded events' (row, user, kind, day)s in the range, once each. Hash aggregates over the
    -- pending events, as a plain GROUP BY would: array_agg(DISTINCT … ORDER BY …) per (row, user), as in
    -- report_pending_row_days, sorts every pending event, and ordering each (row, user, kind)'s days to find
    -- the first cost as much again (with 1 M events unfolded: 9.4 s of this function's 12.0).
    pending_pairs as (
        select e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.channel, e.user_key,
               e.type as kind, e.day
        from cardinal.apps as a
        join cardinal.report_unfolded_row_events as e on e.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or e.campaign_id = unique_impressions_from_day_pairs.campaign)
          and e.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    -- The pending pairs the folded days (report_row_user_days, one probe by primary key per pair) do not
    -- hold, counted per (row, user, kind), and day by day: how many, and whether a folded day of the kind is
    -- in the range already.
    new_user_days as (
        select p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.user_key,
               p.kind, case when unique_impressions_from_day_pairs.by_day then p.day end as day,
               count(*) as days,
               coalesce(bool_or(daterange(unique_impressions_from_day_pairs.from_date,
                                          unique_impressions_from_day_pairs.to_date, '[]') @> any(old.days)),
                        false) as folded_in_range
        from pending_pairs as p
        left join cardinal.report_rows as r
            on r.row_key = cardinal.report_row_key(p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id,
                                                   p.variant_id, p.channel)
        -- OFFSET 0 keeps the lookup a probe per pending pair: pulled up, it would be a hashed join reading
        -- all of report_row_user_days, for one campaign too.
        left join lateral (
            select case p.kind when 'impression' then o.impression_days
                               when 'click' then o.click_days
                               when 'dismissal' then o.dismissal_days
                               else o.send_days end as days
            from cardinal.report_row_user_days as o
            where o.row_id = r.row_id and o.user_key = p.user_key
            offset 0
        ) as old on true
        where not coalesce(p.day = any(old.days), false)
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    -- The pairs of the range: the folded counts and the change the unfolded events make to them. The folded
    -- counts are summed per report row id first (a hash on integers) down to what the sums below tell apart:
    -- the kind, the day (by day) and whether the previous day is before the range.
    pairs as (
        select a.name as app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel,
               p.kind, p.day, p.first_in_range, p.users
        from (
            select d.row_id, d.kind, case when unique_impressions_from_day_pairs.by_day then d.day end as day,
                   d.previous_day < unique_impressions_from_day_pairs.from_date as first_in_range,
                   sum(d.users) as users
            from cardinal.report_row_day_users as d
            where d.row_id = any(array(select row_id from selected_rows))
              and d.day between unique_impressions_from_day_pairs.from_date
                            and unique_impressions_from_day_pairs.to_date
            group by 1, 2, 3, 4
        ) as p
        join cardinal.report_rows as r on r.row_id = p.row_id
        join cardinal.apps as a on a.app_id = r.app_id
        union all
        -- The pairs the unfolded events add to the range, from the hash aggregates of new_user_days: per (row,
        -- kind), and day by day, the users whose first new day of the range it is (no folded day of the kind
        -- in the range: first_in_range) and the other new days.
        select a.name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.variant_id, n.channel, n.kind, n.day,
               f.first_in_range, f.users
        from (
            select app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, kind, day,
                   count(*) filter (where not folded_in_range) as first_users, sum(days) as days
            from new_user_days
            group by 1, 2, 3, 4, 5, 6, 7, 8
        ) as n
        join cardinal.apps as a on a.app_id = n.app_id
        cross join lateral (
            values (true, n.first_users), (false, n.days - n.first_users)
        ) as f (first_in_range, users)
        where f.users > 0
    ),
    -- A user counts once in the range at its first day there, the one whose previous day is before the
    -- range; by day, each day is a range of its own. Every pair of the range is a (day, user).
    uniques as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel,
               case when unique_impressions_from_day_pairs.by_day then to_char(day, 'YYYY-MM-DD') end as breakdown,
               coalesce(sum(users) filter (
                   where kind = 'impression'
                     and (unique_impressions_from_day_pairs.by_day
                          or first_in_range)
               ), 0)::bigint as unique_impressions,
               coalesce(sum(users) filter (where kind = 'impression'), 0)::bigint as unique_daily_impressions,
               coalesce(sum(users) filter (where kind = cardinal.report_receipt_type(channel)), 0)::bigint
                   as unique_recipients,
               coalesce(sum(users) filter (
                   where kind = 'click'
                     and (unique_impressions_from_day_pairs.by_day
                          or first_in_range)
               ), 0)::bigint as unique_clicks,
               coalesce(sum(users) filter (
                   where kind = 'dismissal'
                     and (unique_impressions_from_day_pairs.by_day
                          or first_in_range)
               ), 0)::bigint as unique_dismissals
        from pairs
        group by 1, 2, 3, 4, 5, 6, 7
        -- A report row exists where the range has a (day, user) of some kind.
        having sum(users) > 0
    ),
    -- The folded day counts summed per group (and day, by day) before they meet the groups' text columns.
    group_totals as (
        select c.group_id, case when unique_impressions_from_day_pairs.by_day then c.day end as day,
               sum(c.impressions) as impressions, sum(c.clicks) as clicks, sum(c.dismissals) as dismissals
        from cardinal.report_daily_counts as c
        where c.group_id = any(array(select group_id from selected_groups))
          and c.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
        group by 1, 2
    ),
    totals as (
        select o.app_name, o.campaign_id, o.canvas_id, o.canvas_step_id, o.variant_id, o.channel,
               case when unique_impressions_from_day_pairs.by_day then to_char(o.day, 'YYYY-MM-DD') end as breakdown,
               sum(o.impressions) as impressions, sum(o.clicks) as clicks, sum(o.dismissals) as dismissals
        from (
            select a.name as app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel,
                   t.day, t.impressions, t.clicks, t.dismissals
            from group_totals as t
            join cardinal.report_groups as g on g.group_id = t.group_id
            join cardinal.apps as a on a.app_id = g.app_id
            union all
            -- The unfolded events counted as report_pending_daily_counts does, but grouped only by what this
            -- report tells apart: that view's platform and versions made 158,853 groups of 957,055 unfolded
            -- events, 2.5 s, where the report's rows and days are a few thousand.
            select a.name, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, local.day,
                   count(*) filter (where q.type = 'impression' and not q.control),
                   count(*) filter (where q.type = 'click'),
                   count(*) filter (where q.type = 'dismissal')
            from cardinal.apps as a
            join cardinal.report_unfolded_events() as q on q.app_id = a.app_id
            left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
            cross join lateral (
                select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
            ) as local
            where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
              and (unique_impressions_from_day_pairs.campaign is null
                   or q.campaign_id = unique_impressions_from_day_pairs.campaign)
              and q.type in ('impression', 'click', 'dismissal')
              and not q.test
              and local.day between unique_impressions_from_day_pairs.from_date
                                and unique_impressions_from_day_pairs.to_date
            group by 1, 2, 3, 4, 5, 6, 7
        ) as o
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    counted as (
        select u.app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel, u.breakdown,
               coalesce(t.impressions, 0)::bigint as impressions, u.unique_impressions, u.unique_daily_impressions,
               u.unique_recipients, coalesce(t.clicks, 0)::bigint as clicks, u.unique_clicks,
               coalesce(t.dismissals, 0)::bigint as dismissals, u.unique_dismissals
        from uniques as u
        -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed.
        left join totals as t
            on t.app_name = u.app_name
           and coalesce(t.campaign_id, '') = coalesce(u.campaign_id, '')
           and coalesce(t.canvas_id, '') = coalesce(u.canvas_id, '')
           and coalesce(t.canvas_step_id, '') = coalesce(u.canvas_step_id, '')
           and coalesce(t.variant_id, '') = coalesce(u.variant_id, '')
           and t.channel = u.channel
           and coalesce(t.breakdown, '') = coalesce(u.breakdown, '')
    )
    select c.*, r.*
    from counted as c
    cross join lateral cardinal.unique_impressions_rates(c.channel, c.impressions, c.unique_impressions,
                                                         c.clicks, c.unique_clicks, c.dismissals,
                                                         c.unique_dismissals, c.unique_recipients) as r
    order by c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.breakdown;
$function$;
alter function cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean) to cardinal_reader;
comment on function cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean) is
    'unique_impressions without test events, with no breakdown (by_day false) or by day, from the day pairs '
    '(report_row_day_users and the unfolded events'' change to them): sums over a few hundred rows per '
    'report row. unique_impressions calls it when it can.';


-- The counts behind unique_impressions' push columns: influenced opens from the per-user state, sends and
-- deliveries from the day counts. It reads the pending session starts once, and its joins are hashed whatever
-- the row estimates.
--
-- Why (the influenced opens): inlined into unique_impressions, a body that probed report_conversion_facts once per push
-- send was planned badly. The pending half of that view calls report_unfolded_events(), which scans every event not yet
-- folded; the planner, estimating one send and one pending conversion, put it on the inner side of a nested loop. On a
-- fresh database of 50,000 unfolded events (2,609 push sends) unique_impressions took 42 s, 41.6 of them in 2,609 scans
-- of the same events. No report's cost may hinge on a row estimate: the app opens are a materialized CTE (read once),
-- and the function turns nested loops off so that sends meet opens, and influenced users meet direct openers, through
-- hash joins on (app, user), and JIT off (the disable cost the remaining lateral loops carry would pass every JIT
-- threshold: 20 s per call on a few thousand events). The SET clauses keep the planner from inlining the function, so
-- the settings apply to this query alone.
create or replace function cardinal.push_counts(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns setof cardinal.push_counts_row
    language sql
    stable
    -- The unnest of each send's and open's times stays a (lateral) nested loop: nothing else can do it.
    set enable_nestloop = off
    -- Those loops then carry the planner's disable cost, which would pass every JIT threshold and compile
    -- each call's plan (seconds, on a database of a few thousand events).
    set jit = off
as $function$
    with sends as materialized (
        select a.name as app_name, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id,
               cardinal.report_breakdown(push_counts.by, local.day, f.platform, f.sdk_version,
                                         f.app_version) as breakdown,
               f.user_key, sent.at,
               cardinal.report_window_end(sent.at, coalesce(s.influenced_open_window, interval '12 hours'),
                                          coalesce(s.report_time_zone, a.report_time_zone)) as window_end
        from cardinal.apps as a
        join cardinal.report_push_send_facts_of(push_counts.campaign) as f on f.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
        cross join lateral unnest(f.times) as sent (at)
        cross join lateral (
            select (sent.at at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(push_counts.from_date, push_counts.to_date)
          and cardinal.check_report_dimension(push_counts.by)
          and (push_counts.app is null or a.name = push_counts.app)
          and (push_counts.campaign is null or f.campaign_id = push_counts.campaign)
          and (push_counts.include_test or not f.test)
          and local.day between push_counts.from_date and push_counts.to_date
    ),
    direct_openers as materialized (
        select a.name as app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id,
               cardinal.report_breakdown(push_counts.by, d.day, u.platform, u.sdk_version,
                                         u.app_version) as breakdown,
               u.user_key
        from cardinal.apps as a
        join cardinal.report_user_facts_of(push_counts.campaign, null) as u on u.app_id = a.app_id
        cross join lateral unnest(u.click_days) as d (day)
        where u.channel = 'push'
          and (push_counts.app is null or a.name = push_counts.app)
          and (push_counts.campaign is null or u.campaign_id = push_counts.campaign)
          and (push_counts.include_test or not u.test)
          and d.day between push_counts.from_date and push_counts.to_date
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- Only the users with a send in the range: the app opens of everyone else are never needed.
    app_opens as materialized (
        select c.app_id, c.user_key, opened.at
        from cardinal.report_conversion_facts as c
        cross join lateral unnest(c.times) as opened (at)
        where c.conversion_name = cardinal.session_start_state_name()
          and (push_counts.include_test or not c.test)
          and (c.app_id, c.user_key) in (select s.app_id, s.user_key from sends as s)
    ),
    influenced as (
        select distinct s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.variant_id, s.breakdown,
               s.user_key
        from sends as s
        where exists (select from app_opens as o
                      where o.app_id = s.app_id and o.user_key = s.user_key
                        and o.at between s.at and s.window_end)
    ),
    -- The sends and deliveries are event counts, so the day counts answer and no user is read. As
    -- unique_impressions_from_day_pairs' totals: the folded counts of the push groups are summed per group (and
    -- day, by day) before they meet the groups' text columns, and the unfolded events are grouped only by what
    -- the report tells apart. Read through report_daily_count_facts, the same sums took 225 ms of backend CPU
    -- for every campaign of the 10 M-event bench, where these take 52.
    push_groups as materialized (
        select a.name as app_name, g.group_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id,
               g.platform, g.sdk_version, g.app_version
        from cardinal.apps as a
        join cardinal.report_groups as g on g.app_id = a.app_id
        where g.channel = 'push'
          and (push_counts.app is null or a.name = push_counts.app)
          and (push_counts.campaign is null or g.campaign_id = push_counts.campaign)
          and (push_counts.include_test or not g.test)
    ),
    group_totals as (
        select c.group_id, case when push_counts.by = 'day' then c.day end as day, sum(c.sends) as sends,
               sum(c.deliveries) as deliveries
        from cardinal.report_daily_counts as c
        where c.group_id = any(array(select group_id from push_groups))
          and c.day between push_counts.from_date and push_counts.to_date
        group by 1, 2
    )
    select o.app_name, o.campaign_id, o.canvas_id, o.canvas_step_id, o.variant_id, o.breakdown,
           sum(o.influenced_opens)::bigint, sum(o.sends)::bigint, sum(o.deliveries)::bigint
    from (
        select i.app_name, i.campaign_id, i.canvas_id, i.canvas_step_id, i.variant_id, i.breakdown,
               count(*) as influenced_opens, 0 as sends, 0 as deliveries
        from influenced as i
        where not exists (
            select from direct_openers as d
            where d.app_name = i.app_name
              and d.campaign_id is not distinct from i.campaign_id
              and d.canvas_id is not distinct from i.canvas_id
              and d.canvas_step_id is not distinct from i.canvas_step_id
              and d.variant_id is not distinct from i.variant_id
              and d.breakdown is not distinct from i.breakdown
              and d.user_key = i.user_key
        )
        group by 1, 2, 3, 4, 5, 6
        union all
        select g.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id,
               cardinal.report_breakdown(push_counts.by, t.day, g.platform, g.sdk_version, g.app_version),
               0, t.sends, t.deliveries
        from group_totals as t
        join push_groups as g on g.group_id = t.group_id
        union all
        select a.name, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id,
               cardinal.report_breakdown(push_counts.by, local.day, q.platform, q.sdk_version, q.app_version),
               0, count(*) filter (where q.type = 'send'), count(*) filter (where q.type = 'delivery')
        from cardinal.apps as a
        join cardinal.report_unfolded_events() as q on q.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
        cross join lateral (
            select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where (push_counts.app is null or a.name = push_counts.app)
          and (push_counts.campaign is null or q.campaign_id = push_counts.campaign)
          and q.channel = 'push'
          and q.type in ('send', 'delivery')
          and not q.control
          and (push_counts.include_test or not q.test)
          and local.day between push_counts.from_date and push_counts.to_date
        group by 1, 2, 3, 4, 5, 6
    ) as o
    group by 1, 2, 3, 4, 5, 6;
$function$;
alter function cardinal.push_counts(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.push_counts(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.push_counts(text, date, date, boolean, text, text) is
    'The counts behind the push columns of unique_impressions, per push row (same arguments and row keys), '
    'from the report state: influenced_opens, the users with a push send whose report day is in the range and '
    'an app open (session_start) within the campaign''s influenced_open_window (12 hours when not set) after '
    'it, and no direct open (push click) in the row in the range; sends and deliveries, the non-control push '
    'send and delivery events (the device reported the notification received) whose report day is in the '
    'range, from the day counts and the unfolded events.';


-- The report by a part of the message (button_id, placement_id or message_id), one body for both sources:
-- the report state (from_state) or the raw events (for unique_impressions_reference). The raw part rows are
-- read through unique_impressions_reference_part_days, a function the planner plans only when the reference
-- runs.
create or replace function cardinal.unique_impressions_by_part(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    by           text,
    from_state   boolean
)
    returns setof cardinal.unique_impressions_counts_row
    language sql
    stable
    -- Hash every aggregate and join whatever the estimates (no plan may hinge on a row estimate); jit off as
    -- every report.
    set enable_sort = off
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               cardinal.report_part_channels(unique_impressions_by_part.by) as split_channels
        from cardinal.apps as a
        where cardinal.check_report_range(unique_impressions_by_part.from_date, unique_impressions_by_part.to_date)
          and cardinal.report_part_channels(unique_impressions_by_part.by) is not null
          and (unique_impressions_by_part.app is null or a.name = unique_impressions_by_part.app)
    ),
    -- The report groups of the one campaign asked for (none when it is not), whose folded rows are read by
    -- report_part_state's key rather than by a scan of every part row of the app.
    campaign_groups as materialized (
        select array(
                   select g.group_id
                   from cardinal.report_groups as g
                   join target as t on t.app_id = g.app_id and g.channel = any(t.split_channels)
                   where unique_impressions_by_part.campaign is not null
                     and g.campaign_id = unique_impressions_by_part.campaign
                     and (unique_impressions_by_part.include_test or not g.test)
               ) as group_ids
    ),
    -- Events per row, part, user and day of the split channels: report_part_facts' two sides (the folded rows,
    -- of the app or of the campaign's groups, and the pending events'), or the raw events (the reference),
    -- read through a function that is planned only when the reference runs.
    part_days as (
        select t.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, p.part,
               p.user_key, p.day, p.impressions, p.clicks, p.dismissals, p.sends
        from target as t
        join cardinal.report_groups as g on g.app_id = t.app_id and g.channel = any(t.split_channels)
        join cardinal.report_part_state as p on p.group_id = g.group_id
        where unique_impressions_by_part.from_state and unique_impressions_by_part.campaign is null
          and (unique_impressions_by_part.include_test or not g.test)
          and p.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select t.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, p.part,
               p.user_key, p.day, p.impressions, p.clicks, p.dismissals, p.sends
        from target as t
        join cardinal.report_groups as g on g.app_id = t.app_id and g.channel = any(t.split_channels)
        join cardinal.report_part_state as p on p.group_id = g.group_id
        where unique_impressions_by_part.from_state
          and p.group_id = any((select c.group_ids from campaign_groups as c)::bigint[])
          and p.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select t.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id, f.channel, f.part,
               f.user_key, f.day, f.impressions, f.clicks, f.dismissals, f.sends
        from target as t
        join cardinal.report_pending_part_facts as f on f.app_id = t.app_id and f.channel = any(t.split_channels)
        where unique_impressions_by_part.from_state
          and (unique_impressions_by_part.include_test or not f.test)
          and (unique_impressions_by_part.campaign is null or f.campaign_id = unique_impressions_by_part.campaign)
          and f.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel, r.part,
               r.user_key, r.day, r.impressions, r.clicks, r.dismissals, r.sends
        from target as t
        cross join lateral unnest(t.split_channels) as split (channel)
        cross join lateral cardinal.unique_impressions_reference_part_days(
            t.app_id, t.app_name, t.report_time_zone, split.channel, unique_impressions_by_part.from_date,
            unique_impressions_by_part.to_date, unique_impressions_by_part.include_test,
            unique_impressions_by_part.campaign
        ) as r
        where not unique_impressions_by_part.from_state
    ),
    -- The same user and day can come from several groups (platforms, test or not) and from both the folded
    -- and the unfolded side: one (user, day) per part first.
    user_days as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, part, user_key, day,
               sum(impressions) as impressions, sum(clicks) as clicks, sum(dismissals) as dismissals,
               sum(sends) as sends
        from part_days
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    -- Then per user and part, so that the part's distinct users are rows to count and every aggregate hashes
    -- (a distinct aggregate sorts its input).
    part_users as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, nullif(part, '') as breakdown,
               user_key,
               sum(impressions) as impressions,
               count(*) filter (where impressions > 0) as impression_days,
               count(*) filter (
                   where case when cardinal.report_receipt_type(channel) = 'send' then sends > 0
                              else impressions > 0 end
               ) as recipient_days,
               sum(clicks) as clicks,
               sum(dismissals) as dismissals
        from user_days
        group by 1, 2, 3, 4, 5, 6, 7, 8
    ),
    parts as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               sum(impressions)::bigint as impressions,
               count(*) filter (where impression_days > 0) as unique_impressions,
               sum(impression_days)::bigint as unique_daily_impressions,
               sum(recipient_days)::bigint as unique_recipients,
               sum(clicks)::bigint as clicks,
               count(*) filter (where clicks > 0) as unique_clicks,
               sum(dismissals)::bigint as dismissals,
               count(*) filter (where dismissals > 0) as unique_dismissals
        from part_users
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- The whole rows: the report without a breakdown, from the same side (its first 19 columns).
    totals as (
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.channel, w.breakdown,
               w.impressions, w.unique_impressions, w.unique_daily_impressions, w.unique_recipients, w.clicks,
               w.unique_clicks, w.dismissals, w.unique_dismissals
        from cardinal.unique_impressions_without_push_opens(unique_impressions_by_part.app,
                                                            unique_impressions_by_part.from_date,
                                                            unique_impressions_by_part.to_date,
                                                            unique_impressions_by_part.include_test,
                                                            unique_impressions_by_part.campaign) as w
        where unique_impressions_by_part.from_state
        union all
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.channel, w.breakdown,
               w.impressions, w.unique_impressions, w.unique_daily_impressions, w.unique_recipients, w.clicks,
               w.unique_clicks, w.dismissals, w.unique_dismissals
        from cardinal.unique_impressions_reference_unsplit(
                 unique_impressions_by_part.app, unique_impressions_by_part.from_date,
                 unique_impressions_by_part.to_date, unique_impressions_by_part.include_test,
                 unique_impressions_by_part.campaign) as w
        where not unique_impressions_by_part.from_state
    ),
    counted as (
        -- Channels the breakdown does not split, whole.
        select t.app_name, t.campaign_id, t.canvas_id, t.canvas_step_id, t.variant_id, t.channel, t.breakdown,
               t.impressions, t.unique_impressions, t.unique_daily_impressions, t.unique_recipients,
               t.clicks, t.unique_clicks, t.dismissals, t.unique_dismissals
        from totals as t
        where t.channel <> all(cardinal.report_part_channels(unique_impressions_by_part.by))
        union all
        -- Cards and placements, every column per part.
        select p.app_name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.breakdown,
               p.impressions, p.unique_impressions, p.unique_daily_impressions, p.unique_recipients,
               p.clicks, p.unique_clicks, p.dismissals, p.unique_dismissals
        from parts as p
        where p.channel not in ('in_app_message', 'push')
        union all
        -- In-app messages and push: the message's figures, its clicks per button (a row with none when none).
        select t.app_name, t.campaign_id, t.canvas_id, t.canvas_step_id, t.variant_id, t.channel,
               b.breakdown, t.impressions, t.unique_impressions, t.unique_daily_impressions, t.unique_recipients,
               coalesce(b.clicks, 0), coalesce(b.unique_clicks, 0), t.dismissals, t.unique_dismissals
        from totals as t
        left join parts as b
            on b.app_name = t.app_name
           and coalesce(b.campaign_id, '') = coalesce(t.campaign_id, '')
           and coalesce(b.canvas_id, '') = coalesce(t.canvas_id, '')
           and coalesce(b.canvas_step_id, '') = coalesce(t.canvas_step_id, '')
           and coalesce(b.variant_id, '') = coalesce(t.variant_id, '')
           and b.channel = t.channel
        where t.channel in ('in_app_message', 'push') and unique_impressions_by_part.by = 'button_id'
    )
    select c.*, r.*
    from counted as c
    cross join lateral cardinal.unique_impressions_rates(c.channel, c.impressions, c.unique_impressions,
                                                         c.clicks, c.unique_clicks, c.dismissals,
                                                         c.unique_dismissals, c.unique_recipients) as r
    order by c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.breakdown;
$function$;
alter function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean) to cardinal_reader;
comment on function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean) is
    'unique_impressions by button_id, placement_id or message_id, from the report state (from_state, '
    'report_part_facts: one campaign''s folded rows by its report groups) or from the raw events (not '
    'from_state, for unique_impressions_reference, through unique_impressions_reference_part_days): the '
    'channels the breakdown splits get a row per part (in-app messages and push: per button clicked, each '
    'repeating the message''s impressions, recipients and dismissals), the other channels one row with '
    'breakdown NULL.';


-- The 19 columns of unique_impressions before the push columns, from the state that answers fastest. PL/pgSQL,
-- so that only the chosen body is planned, with the arguments as they are.
create or replace function cardinal.unique_impressions_without_push_opens(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns setof cardinal.unique_impressions_counts_row
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_report_dimension(by);
    if cardinal.report_part_channels(by) is not null then
        return query select * from cardinal.unique_impressions_by_part(app, from_date, to_date,
                                                                     coalesce(include_test, false), campaign, by,
                                                                     true);
    elsif not coalesce(include_test, false) and (by is null or by = 'day') then
        return query select * from cardinal.unique_impressions_from_day_pairs(app, from_date, to_date, campaign,
                                                                            by is not null);
    else
        return query select * from cardinal.unique_impressions_from_user_state(app, from_date, to_date,
                                                                             include_test, campaign, by);
    end if;
end
$function$;
alter function cardinal.unique_impressions_without_push_opens(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_without_push_opens(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.unique_impressions_without_push_opens(text, date, date, boolean, text, text) is
    'The 19 columns of unique_impressions before the push columns, which unique_impressions adds. It picks '
    'the state that answers fastest: the day pairs without test events and with no breakdown or by day, '
    'report_part_facts (unique_impressions_by_part) by button_id, placement_id or message_id, else the '
    'per-user state.';


-- The rows of report_push_send_facts of one campaign (every row when campaign is NULL).
create or replace function cardinal.report_push_send_facts_of(campaign text)
    returns setof cardinal.report_push_send_facts
    language sql
    stable
as $function$
    select f.*
    from cardinal.report_push_send_facts as f
    where report_push_send_facts_of.campaign is null
    union all
    -- The campaign's groups, then their rows by the primary key's first column.
    select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
           g.sdk_version, g.app_version, g.test, p.user_key, p.times
    from cardinal.report_push_send_state as p
    join cardinal.report_groups as g on g.group_id = p.group_id
    where report_push_send_facts_of.campaign is not null
      and p.group_id = any(array(
              select s.group_id
              from cardinal.report_groups as s
              where s.campaign_id = report_push_send_facts_of.campaign
          ))
    union all
    select p.*
    from cardinal.report_pending_push_send_facts as p
    where report_push_send_facts_of.campaign is not null
      and p.campaign_id = report_push_send_facts_of.campaign;
$function$;
alter function cardinal.report_push_send_facts_of(text) owner to cardinal_owner;
grant execute on function cardinal.report_push_send_facts_of(text) to cardinal_reader;
comment on function cardinal.report_push_send_facts_of(text) is
    'The rows of report_push_send_facts of one campaign (campaign_id = campaign), every row when it is NULL. '
    'The folded rows are found by the campaign''s groups (an index condition), so one campaign costs what its '
    'sends hold, whatever the planner estimates.';
