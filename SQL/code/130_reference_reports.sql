-- The reference reports over raw events that the property tests hold the state-backed reports to.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- unique_impressions from the raw events, for the property tests: the whole report or the breakdowns by day,
-- platform, SDK or app version from unique_impressions_reference_unsplit, the part breakdowns from
-- unique_impressions_by_part's raw-event side.
create or replace function cardinal.unique_impressions_reference(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns setof cardinal.unique_impressions_row
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_report_dimension(by);
    if cardinal.report_part_channels(by) is null then
        return query select * from cardinal.unique_impressions_reference_unsplit(app, from_date, to_date,
                                                                               include_test, campaign, by);
        return;
    end if;
    -- A push row's direct opens are its own clicks (its button's, split by button); its influenced and total
    -- opens and its deliveries are those of the whole report's row.
    return query
    select p.*, o.direct_opens, o.unique_direct_opens, o.influenced_opens, o.total_opens, o.direct_open_rate,
           o.total_open_rate, w.deliveries, w.delivery_rate
    from cardinal.unique_impressions_by_part(app, from_date, to_date, coalesce(include_test, false), campaign, by,
                                             false) as p
    left join cardinal.unique_impressions_reference_unsplit(app, from_date, to_date, include_test, campaign) as w
        on p.channel = 'push'
       and w.app_name = p.app_name
       and w.campaign_id is not distinct from p.campaign_id
       and w.canvas_id is not distinct from p.canvas_id
       and w.canvas_step_id is not distinct from p.canvas_step_id
       and w.variant_id is not distinct from p.variant_id
       and w.channel = p.channel
    cross join lateral cardinal.unique_impressions_open_columns(p.channel, p.clicks, p.unique_clicks,
                                                                p.unique_recipients, w.influenced_opens,
                                                                w.unique_direct_opens, null, null) as o
    order by p.app_name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.breakdown;
end
$function$;
alter function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) is
    'Reference implementation of unique_impressions over the raw events, the part breakdowns included: the '
    'same arguments and rows, computed without the report state. Slow on purpose; the property tests compare '
    'both.';


-- The reference of control_arms over the raw events (identities merged by identified_events): the raw-event
-- cohort, counted by the same control_arms_of_cohort as the per-user state's.
create or replace function cardinal.control_arms_reference(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    conversion        text        default null,
    conversion_window interval    default null,
    include_test      boolean     default false,
    canvas            text        default null
)
    returns setof cardinal.control_arms_row
    language sql
    stable
as $function$
    select *
    from cardinal.control_arms_of_cohort(control_arms_reference.app, control_arms_reference.campaign,
                                         control_arms_reference.from_date, control_arms_reference.to_date,
                                         control_arms_reference.as_of, control_arms_reference.conversion,
                                         control_arms_reference.conversion_window,
                                         control_arms_reference.include_test, control_arms_reference.canvas,
                                         true);
$function$;
alter function cardinal.control_arms_reference(text, text, date, date, timestamp with time zone, text, interval, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.control_arms_reference(text, text, date, date, timestamp with time zone, text, interval, boolean, text) to cardinal_reader;
comment on function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'Reference implementation of control_arms over the raw events, identities merged (identified_events): the '
    'same arguments and rows, computed without the report state: the users of control_cohort_reference, '
    'counted by control_arms_of_cohort; the window ends by report_window_end in the report days'' zone. Slow on '
    'large apps; for checking numbers and tests.';


-- The raw-event cohort of the control report: one row per user first exposed in the range and source, with
-- its arm, whether it is in several arms, has matured at as_of and converted within the window.
create or replace function cardinal.control_cohort_reference(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion        text,
    conversion_window interval,
    include_test      boolean,
    canvas            text
)
    returns setof cardinal.control_cohort_row
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(control_cohort_reference.from_date, control_cohort_reference.to_date)
          and cardinal.check_control_source(control_cohort_reference.campaign, control_cohort_reference.canvas)
          and (control_cohort_reference.app is null or a.name = control_cohort_reference.app)
    ),
    -- The campaigns (or the canvas) with an exposure in the broad range, with their settings and exact bounds.
    -- Each campaign has its own zone, so the exact range is only known per row: the scan takes every event
    -- from from_date - 1 day to to_date + 2 days in UTC (no zone is more than 14 hours from UTC), a constant
    -- range that prunes the monthly partitions. A few rows, materialized: the history scan below is then one
    -- index scan per campaign.
    sources as materialized (
        select c.app_id, c.app_name, c.source_id,
               coalesce(control_cohort_reference.conversion, s.conversion_event) as conversion_event,
               coalesce(control_cohort_reference.conversion_window, s.conversion_window, interval '3 days')
                   as window_length,
               c.zone as time_zone,
               control_cohort_reference.from_date::timestamp at time zone c.zone as lower_time,
               (control_cohort_reference.to_date + 1)::timestamp at time zone c.zone as upper_time
        from (
            select distinct t.app_id, t.app_name, coalesce(e.campaign_id, e.canvas_id) as source_id,
                   coalesce(case when control_cohort_reference.canvas is null then s.report_time_zone end,
                            t.report_time_zone) as zone
            from target as t
            join cardinal.identified_events as e on e.app_id = t.app_id
            left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
            where case when control_cohort_reference.canvas is null
                       then e.campaign_id is not null
                            and (control_cohort_reference.campaign is null
                                 or e.campaign_id = control_cohort_reference.campaign)
                       else e.canvas_id = control_cohort_reference.canvas end
              and e.type in ('impression', 'send')
              and (e.type = 'impression' or e.channel = 'push')
              and (control_cohort_reference.include_test or not e.test)
              and e.time >= (control_cohort_reference.from_date - 1)::timestamp at time zone 'UTC'
              and e.time < (control_cohort_reference.to_date + 2)::timestamp at time zone 'UTC'
        ) as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.source_id
    ),
    -- Each user's first exposure per arm, over the source's history up to the end of the range. The
    -- settings ride along in the grouping (one value per source), so that no later step has to join the
    -- users back to their campaign.
    arm_exposures as (
        select c.app_id, c.source_id, e.user_key, e.control,
               case when e.control then null else e.variant_id end as variant_id,
               c.app_name, c.conversion_event, c.window_length, c.time_zone, c.lower_time,
               min(e.time) as first_time
        from sources as c
        join cardinal.identified_events as e
            on e.app_id = c.app_id
           and coalesce(e.campaign_id, e.canvas_id) = c.source_id
        where case when control_cohort_reference.canvas is null
                   then e.campaign_id is not null
                   else e.canvas_id is not null end
          and e.type in ('impression', 'send')
          and (e.type = 'impression' or e.channel = 'push')
          and (control_cohort_reference.include_test or not e.test)
          and e.time < c.upper_time
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ),
    exposed as (
        select app_id, source_id, user_key, app_name, conversion_event, window_length, time_zone, lower_time,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, source_id, user_key, app_name, conversion_event, window_length, time_zone, lower_time
    )
    -- The conversion of each matured user is a probe of that user's events (identified_events_of_user: a
    -- correlated EXISTS on the events, not on a CTE, its cost per user whatever the estimates).
    select x.app_name, x.source_id, x.conversion_event, x.window_length, x.variant_id, x.control,
           x.arms > 1 as several_arms,
           window_end.time <= control_cohort_reference.as_of as matured,
           x.arms = 1
               and window_end.time <= control_cohort_reference.as_of
               and x.conversion_event is not null
               and exists (
                   select
                   from cardinal.identified_events_of_user(x.app_id, x.user_key) as v
                   where v.type = 'conversion'
                     and v.conversion_name = x.conversion_event
                     and v.time >= x.exposed_at
                     and v.time <= window_end.time
                     and (control_cohort_reference.include_test or not v.test)
               ) as converted,
           x.app_id, x.user_key, x.exposed_at
    from exposed as x
    cross join lateral (
        select cardinal.report_window_end(x.exposed_at, x.window_length, x.time_zone) as time
    ) as window_end
    where x.exposed_at >= x.lower_time;
$function$;
alter function cardinal.control_cohort_reference(text, text, date, date, timestamp with time zone, text, interval, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.control_cohort_reference(text, text, date, date, timestamp with time zone, text, interval, boolean, text) to cardinal_reader;
comment on function cardinal.control_cohort_reference(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'The users control_arms_reference counts, from the raw events (identified_events): per user first exposed '
    'in from_date..to_date of a campaign (or the canvas), its source, settings and arm, whether it is in '
    'several arms, its window has elapsed by as_of and it converted within the window (report_window_end in '
    'the report days'' zone), and the user (app_id, user_key) with its first exposure (exposed_at). The '
    'raw-event twin of control_cohort_from_user_state.';


-- The reference of control_arm_covariates over the raw events (identities merged by identified_events): the
-- raw-event cohort, measured and added up by the same control_arm_covariates_of_cohort as the report state's.
create or replace function cardinal.control_arm_covariates_reference(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    conversion        text        default null,
    conversion_window interval    default null,
    include_test      boolean     default false,
    canvas            text        default null,
    cuped_window      interval    default null
)
    returns setof cardinal.control_arm_covariates_row
    language sql
    stable
as $function$
    select *
    from cardinal.control_arm_covariates_of_cohort(control_arm_covariates_reference.app,
                                                   control_arm_covariates_reference.campaign,
                                                   control_arm_covariates_reference.from_date,
                                                   control_arm_covariates_reference.to_date,
                                                   control_arm_covariates_reference.as_of,
                                                   control_arm_covariates_reference.conversion,
                                                   control_arm_covariates_reference.conversion_window,
                                                   control_arm_covariates_reference.include_test,
                                                   control_arm_covariates_reference.canvas,
                                                   control_arm_covariates_reference.cuped_window, true);
$function$;
alter function cardinal.control_arm_covariates_reference(text, text, date, date, timestamp with time zone, text, interval, boolean, text, interval) owner to cardinal_owner;
grant execute on function cardinal.control_arm_covariates_reference(text, text, date, date, timestamp with time zone, text, interval, boolean, text, interval) to cardinal_reader;
comment on function cardinal.control_arm_covariates_reference(text, text, date, date, timestamptz, text, interval, boolean, text, interval) is
    'Reference implementation of control_arm_covariates over the raw events, identities merged '
    '(identified_events): the same arguments and rows, computed without the report state: the users of '
    'control_cohort_reference, each user''s pre-exposure conversions read from its events '
    '(identified_events_of_user), added up by control_arm_covariates_of_cohort. Slow on large apps; for '
    'checking numbers and tests.';


create or replace function cardinal.anomalies_reference(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns setof cardinal.anomalies_row
    language sql
    stable
as $function$
    select *
    from cardinal.anomalies_from_source(anomalies_reference.app, anomalies_reference.from_date,
                                        anomalies_reference.to_date, anomalies_reference.include_test,
                                        anomalies_reference.campaign, anomalies_reference.canvas, false);
$function$;
alter function cardinal.anomalies_reference(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.anomalies_reference(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.anomalies_reference(text, date, date, boolean, text, text) is
    'Reference implementation of anomalies over the raw events (anomalies_from_source from the raw events: '
    'exposure_anomalies_reference and logging_anomalies_from_source reading identified_events): the same '
    'arguments and rows, computed without the report state. Slow on large apps; for checking numbers and tests.';


-- push_counts from the raw events: the influenced opens (push sends followed by a session start within the
-- influenced-open window and no click of the same row), and the send and delivery events.
create or replace function cardinal.push_counts_reference(
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
    set enable_nestloop = off
as $function$
    with scoped as (
        select a.name as app_name, e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id,
               cardinal.report_breakdown(push_counts_reference.by, local.day, e.platform, e.sdk_version,
                                         e.app_version) as breakdown,
               e.type, e.user_key, e.time,
               cardinal.report_window_end(e.time, coalesce(s.influenced_open_window, interval '12 hours'),
                                          coalesce(s.report_time_zone, a.report_time_zone)) as window_end
        from cardinal.apps as a
        join cardinal.identified_events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(push_counts_reference.from_date, push_counts_reference.to_date)
          and cardinal.check_report_dimension(push_counts_reference.by)
          and (push_counts_reference.app is null or a.name = push_counts_reference.app)
          and (push_counts_reference.campaign is null or e.campaign_id = push_counts_reference.campaign)
          and e.channel = 'push'
          and e.type in ('send', 'click', 'delivery')
          and not e.control
          and (push_counts_reference.include_test or not e.test)
          and local.day between push_counts_reference.from_date and push_counts_reference.to_date
    )
    select c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.breakdown,
           sum(c.influenced_opens)::bigint, sum(c.sends)::bigint, sum(c.deliveries)::bigint
    from (
        -- The influenced users in a WHERE of their own, where the click check can be a hashed anti-join.
        select s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.variant_id, s.breakdown,
               count(distinct s.user_key) as influenced_opens, 0 as sends, 0 as deliveries
        from scoped as s
        where s.type = 'send'
          and exists (select from cardinal.identified_events_of_user(s.app_id, s.user_key) as o
                      where o.type = 'session_start'
                        and (push_counts_reference.include_test or not o.test)
                        and o.time between s.time and s.window_end)
          and not exists (select from scoped as d
                          where d.type = 'click'
                            and d.app_name = s.app_name
                            and d.campaign_id is not distinct from s.campaign_id
                            and d.canvas_id is not distinct from s.canvas_id
                            and d.canvas_step_id is not distinct from s.canvas_step_id
                            and d.variant_id is not distinct from s.variant_id
                            and d.breakdown is not distinct from s.breakdown
                            and d.user_key = s.user_key)
        group by 1, 2, 3, 4, 5, 6
        union all
        select s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.variant_id, s.breakdown, 0,
               count(*) filter (where s.type = 'send'), count(*) filter (where s.type = 'delivery')
        from scoped as s
        where s.type in ('send', 'delivery')
        group by 1, 2, 3, 4, 5, 6
    ) as c
    group by 1, 2, 3, 4, 5, 6;
$function$;
alter function cardinal.push_counts_reference(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.push_counts_reference(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.push_counts_reference(text, date, date, boolean, text, text) is
    'Reference implementation of push_counts over the raw events: the same arguments and rows, computed '
    'without the report state. Slow on large apps; for checking numbers and tests.';


-- The reference of campaign_conversions over the raw events (identities merged by identified_events): each
-- recipient's first receipt and receipt days from the events, and each converter's conversions in its window
-- (on the campaign's clock, as the report's) by a probe of that user's events.
create or replace function cardinal.campaign_conversions_reference(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text    default null,
    include_test boolean default false
)
    returns setof cardinal.campaign_conversions_row
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
          and e.type = cardinal.report_receipt_type(e.channel)
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
    -- Each converter's conversions in its window, by currency (a conversion without a value adds none, nor
    -- does a repeat of a stored order).
    outcomes as (
        select r.app_id, r.campaign_id, r.variant_id, g.ordinal, r.user_key, v.currency, v.amount
        from recipients as r
        join cardinal.campaign_conversion_goals as g on g.app_id = r.app_id and g.campaign_id = r.campaign_id
        cross join lateral (
            select coalesce(e.currency, 'XXX') as currency, sum(e.value) filter (where o.id is null) as amount
            from cardinal.identified_events_of_user(r.app_id, r.user_key) as e
            left join cardinal.repeated_order_conversions as o
              on o.app_id = e.app_id and o.time = e.time and o.id = e.id
            where e.type = 'conversion'
              and e.conversion_name = g.conversion_event
              -- The window on the campaign's clock (report_window_end), whatever the session's TimeZone.
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
alter function cardinal.campaign_conversions_reference(text, date, date, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.campaign_conversions_reference(text, date, date, text, boolean) to cardinal_reader;
comment on function cardinal.campaign_conversions_reference(text, date, date, text, boolean) is
    'Reference implementation of campaign_conversions over the raw events, identities merged '
    '(identified_events): the same arguments and rows, computed without the report state. Slow on large apps; '
    'for checking numbers and tests.';


-- exposure_anomalies from the raw events (identities merged: identified_events), for anomalies_reference: each
-- kind counted by its definition over the events of the range, the look-back to the first impression and
-- control exposure over each acting user's history; the counts become findings as in the state-backed bodies
-- (exposure_anomaly_finding, control_interaction_rejections).
create or replace function cardinal.exposure_anomalies_reference(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    canvas       text
)
    returns setof cardinal.anomalies_row
    language sql
    stable
    -- The SET clause keeps the function from being inlined into anomalies_from_source, whose state-backed
    -- calls then prune it without parsing its body: jit off as every report.
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(exposure_anomalies_reference.from_date, exposure_anomalies_reference.to_date)
          and (exposure_anomalies_reference.app is null or a.name = exposure_anomalies_reference.app)
    ),
    -- Every message event of the range, read once.
    in_range as materialized (
        select t.app_name, e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.channel, e.platform,
               e.sdk_version, e.app_version, e.type, e.control, e.user_key, e.variant_id, e.time
        from target as t
        join cardinal.identified_events as e on e.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        where (exposure_anomalies_reference.campaign is null or e.campaign_id = exposure_anomalies_reference.campaign)
          and (exposure_anomalies_reference.canvas is null or e.canvas_id = exposure_anomalies_reference.canvas)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and (exposure_anomalies_reference.include_test or not e.test)
          and e.time >= (exposure_anomalies_reference.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (exposure_anomalies_reference.to_date + 2)::timestamp at time zone 'UTC'
          and (e.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
              between exposure_anomalies_reference.from_date and exposure_anomalies_reference.to_date
    ),

    -- The campaigns and canvases with clicks or dismissals in the range: a few rows, materialized so that
    -- the look-back below reads only their events.
    interacting_sources as materialized (
        select distinct app_id, campaign_id, canvas_id from in_range where type in ('click', 'dismissal')
    ),
    -- Each click and dismissal of the range next to its user's first impression of the campaign (of the
    -- canvas step) and control exposure of the campaign (of the canvas, whose control group it is) over the
    -- history up to the end of the range. The look-back is aggregated per user and step and appended to the
    -- clicks and dismissals, and windows over each user's rows hand its figures to them: the clicks never
    -- meet the look-back in a join, so no plan can rerun the look-back once per click.
    interactions as materialized (
        select app_name, app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
               app_version, type, user_key,
               coalesce(has_control_exposure and first_impression is null, false) as control_user,
               first_impression is null or first_impression > time as without_impression
        from (
            select u.*,
                   min(u.user_first_impression) over per_source_user as first_impression,
                   bool_or(u.user_has_control_exposure) over per_arm_user as has_control_exposure
            from (
                select false as look_back, r.app_name, r.app_id, r.campaign_id, r.canvas_id, r.canvas_step_id,
                       r.channel, r.platform, r.sdk_version, r.app_version, r.type, r.user_key, r.time,
                       null::timestamptz as user_first_impression, null::boolean as user_has_control_exposure
                from in_range as r
                where r.type in ('click', 'dismissal')
                union all
                select true, null, e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, null, null, null, null,
                       null, e.user_key, null,
                       min(e.time) filter (where e.type = 'impression' and not e.control),
                       bool_or(e.control)
                from interacting_sources as c
                -- '' stands for NULL (no id is empty), so that the join stays an equality.
                join cardinal.identified_events as e
                    on e.app_id = c.app_id
                           and coalesce(e.campaign_id, '') = coalesce(c.campaign_id, '')
                           and coalesce(e.canvas_id, '') = coalesce(c.canvas_id, '')
                where e.type in ('impression', 'send')
                  and e.time < (exposure_anomalies_reference.to_date + 2)::timestamp at time zone 'UTC'
                group by e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.user_key
            ) as u
            window per_source_user as (partition by u.app_id, u.campaign_id, u.canvas_id, u.canvas_step_id,
                                                    u.user_key),
                   per_arm_user as (partition by u.app_id, u.campaign_id, u.canvas_id, u.user_key)
        ) as with_look_back
        where not look_back
    ),

    dismissals_exceed_impressions as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where type = 'impression') as unique_impressions,
               count(distinct user_key) filter (where type = 'dismissal') as unique_dismissals
        from in_range
        where channel in ('content_card', 'in_app_message', 'banner') and not control
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    without_impression as (
        select type, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where without_impression) as users_without_impression,
               count(distinct user_key) as users,
               count(*) filter (where without_impression) as events_without_impression,
               count(*) as events
        from interactions
        where channel in ('content_card', 'in_app_message', 'banner') and not control_user
        group by type, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                 app_version
    ),

    -- Control arm of each campaign (of each canvas, over all its steps) in the range, and the share of
    -- users it should have: the expected split's weight when set, else the share of control sends among the
    -- users sent to.
    campaign_arms as (
        select app_id, campaign_id, canvas_id,
               count(distinct user_key) filter (where type = 'send' and control) as control_send_users,
               count(distinct user_key) filter (where type = 'send') as send_users,
               count(distinct user_key) filter (where type = 'impression' and control)
                   as control_impression_users,
               count(distinct user_key) filter (where type = 'impression' and not control
                                                  and channel in ('content_card', 'in_app_message', 'feature_flag'))
                   as variant_impression_users
        from in_range
        group by app_id, campaign_id, canvas_id
    ),
    -- Materialized, as impression_groups: the join below then meets two small sets computed once.
    control_campaigns as materialized (
        select c.*, share.control_share, share.control_per_variant_user
        from campaign_arms as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        cross join lateral cardinal.expected_control_share(s.expected_split, c.control_send_users, c.send_users)
            as share
    ),
    impression_groups as materialized (
        select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
               app_version,
               count(distinct user_key) filter (where not control) as variant_users,
               count(distinct user_key) filter (where control) as control_users
        from in_range
        where type = 'impression' and channel in ('content_card', 'in_app_message', 'feature_flag')
        group by app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                 app_version
    ),
    control_impressions_missing as (
        select g.app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.channel, g.platform, g.sdk_version,
               g.app_version, g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        join control_campaigns as c
            on c.app_id = g.app_id
                   and coalesce(c.campaign_id, '') = coalesce(g.campaign_id, '')
                   and coalesce(c.canvas_id, '') = coalesce(g.canvas_id, '')
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                   count(*) as stored_events, count(distinct user_key) as stored_users, 0 as rejected_events
            from interactions
            where control_user
            group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                     app_version
            union all
            select r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.channel, r.platform, r.sdk_version,
                   r.app_version, 0, 0, r.rejected_events
            from cardinal.control_interaction_rejections(
                     exposure_anomalies_reference.app, exposure_anomalies_reference.from_date,
                     exposure_anomalies_reference.to_date, exposure_anomalies_reference.include_test,
                     exposure_anomalies_reference.campaign, exposure_anomalies_reference.canvas
                 ) as r
        ) as both_sources
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    -- A user is in several arms when the smallest and the largest arm of the user's exposures to the
    -- campaign (to the canvas, over all its steps) differ: a window over one sorted pass, instead of joining
    -- the exposures to their own aggregate.
    users_in_several_arms as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) filter (where in_several_arms) as users,
               count(distinct user_key) as exposed_users
        from (
            select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
                   user_key,
                   min(arm) over per_user <> max(arm) over per_user as in_several_arms
            from (
                select app_id, app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version,
                       app_version, user_key,
                       case when control then 'control' else 'variant:' || coalesce(variant_id, '') end as arm
                from in_range
                where type = 'impression' or (type = 'send' and channel = 'push')
            ) as exposures
            window per_user as (partition by app_id, campaign_id, canvas_id, user_key)
        ) as exposed
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    )

    -- Each kind's counts per finding group, made findings by exposure_anomaly_finding, which leaves out the
    -- counts that make none.
    select c.kind, f.severity, c.counts ->> 'app_name', c.counts ->> 'campaign_id', c.counts ->> 'canvas_id',
           c.counts ->> 'canvas_step_id', c.counts ->> 'channel', c.counts ->> 'platform',
           c.counts ->> 'sdk_version', c.counts ->> 'app_version', f.evidence, f.likely_cause
    from (
        select 'dismissals_exceed_impressions' as kind, to_jsonb(d) as counts
        from dismissals_exceed_impressions as d
        union all
        select w.type || '_without_impression', to_jsonb(w)
        from without_impression as w
        union all
        select 'control_impressions_missing', to_jsonb(m)
        from control_impressions_missing as m
        union all
        select 'control_interaction', to_jsonb(i)
        from control_interaction as i
        union all
        select 'users_in_several_arms', to_jsonb(a)
        from users_in_several_arms as a
    ) as c
    cross join lateral cardinal.exposure_anomaly_finding(c.kind, c.counts) as f;
$function$;
alter function cardinal.exposure_anomalies_reference(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.exposure_anomalies_reference(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.exposure_anomalies_reference(text, date, date, boolean, text, text) is
    'exposure_anomalies computed from the raw events (identified_events: identities merged) without the report '
    'state, for anomalies_reference. Same arguments and rows as exposure_anomalies_from_user_state.';


-- The raw message events of one app that logging_anomalies_from_source reads for its reference: from 7 report
-- days before the range to its end, with their report day in the campaign's time zone, or the app's.
create or replace function cardinal.anomaly_reference_events(
    app_id           bigint,
    app_name         text,
    report_time_zone text,
    from_date        date,
    to_date          date,
    include_test     boolean,
    campaign         text,
    canvas           text
)
    returns table (
        app_id         bigint,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        type           text,
        control        boolean,
        user_key       text,
        session_id     text,
        message_id     text,
        test           boolean,
        time_zone      text,
        day            date
    )
    language sql
    stable
    -- The SET clause keeps the function from being inlined into its caller, so that the state-backed path,
    -- which prunes the call, never plans its body: jit off as every report.
    set jit = off
as $function$
    select e.app_id, anomaly_reference_events.app_name, e.campaign_id, e.canvas_id, e.canvas_step_id, e.channel,
           e.platform, e.sdk_version, e.app_version, e.type, e.control, e.user_key, e.session_id, e.message_id,
           e.test, coalesce(s.report_time_zone, anomaly_reference_events.report_time_zone), local.day
    from cardinal.identified_events as e
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    cross join lateral (
        select (e.time at time zone coalesce(s.report_time_zone, anomaly_reference_events.report_time_zone))::date
                   as day
    ) as local
    where e.app_id = anomaly_reference_events.app_id
      and (anomaly_reference_events.campaign is null or e.campaign_id = anomaly_reference_events.campaign)
      and (anomaly_reference_events.canvas is null or e.canvas_id = anomaly_reference_events.canvas)
      and e.type in ('send', 'impression', 'click', 'dismissal')
      and (anomaly_reference_events.include_test or not e.test)
      and e.time >= (anomaly_reference_events.from_date - 8)::timestamp at time zone 'UTC'
      and e.time < (anomaly_reference_events.to_date + 2)::timestamp at time zone 'UTC'
      and local.day between anomaly_reference_events.from_date - 7 and anomaly_reference_events.to_date;
$function$;
alter function cardinal.anomaly_reference_events(bigint, text, text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.anomaly_reference_events(bigint, text, text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.anomaly_reference_events(bigint, text, text, date, date, boolean, text, text) is
    'The message events (sends, impressions, clicks, dismissals) of one app from 7 report days before the '
    'range to its end, with the day in the campaign''s report time zone or the app''s, narrowed to a campaign '
    'or canvas when given and without test events unless include_test: the raw source of '
    'logging_anomalies_from_source for anomalies_reference. Not inlined, so that the report state''s path does '
    'not plan it.';


-- The raw part rows of one app that unique_impressions_by_part reads for its reference: events per row, part,
-- user and report day of the split channel, not control, from the raw events.
create or replace function cardinal.unique_impressions_reference_part_days(
    app_id           bigint,
    app_name         text,
    report_time_zone text,
    split_channel    text,
    from_date        date,
    to_date          date,
    include_test     boolean,
    campaign         text
)
    returns table (
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        variant_id     text,
        channel        text,
        part           text,
        user_key       text,
        day            date,
        impressions    bigint,
        clicks         bigint,
        dismissals     bigint,
        sends          bigint
    )
    language sql
    stable
    -- The SET clause keeps the function from being inlined into its caller, so that the state-backed path,
    -- which prunes the call, never plans its body: jit off as every report.
    set jit = off
as $function$
    select unique_impressions_reference_part_days.app_name, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.channel,
           cardinal.report_message_part(e.channel, e.type, e.message_id, e.placement_id, e.button_id),
           e.user_key, local.day,
           count(*) filter (where e.type = 'impression'), count(*) filter (where e.type = 'click'),
           count(*) filter (where e.type = 'dismissal'), count(*) filter (where e.type = 'send')
    from cardinal.identified_events as e
    left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
    cross join lateral (
        select (e.time at time zone coalesce(s.report_time_zone,
                                             unique_impressions_reference_part_days.report_time_zone))::date
                   as day
    ) as local
    where e.app_id = unique_impressions_reference_part_days.app_id
      and e.channel = unique_impressions_reference_part_days.split_channel
      and (e.campaign_id is not null or e.canvas_step_id is not null)
      and (unique_impressions_reference_part_days.campaign is null
           or e.campaign_id = unique_impressions_reference_part_days.campaign)
      and e.type in ('send', 'impression', 'click', 'dismissal')
      and cardinal.report_message_part(e.channel, e.type, '', '', '') is not null
      and not e.control
      and (unique_impressions_reference_part_days.include_test or not e.test)
      and e.time >= (unique_impressions_reference_part_days.from_date - 1)::timestamp at time zone 'UTC'
      and e.time < (unique_impressions_reference_part_days.to_date + 2)::timestamp at time zone 'UTC'
      and local.day between unique_impressions_reference_part_days.from_date
                        and unique_impressions_reference_part_days.to_date
    group by 1, 2, 3, 4, 5, 6, 7, 8, 9;
$function$;
alter function cardinal.unique_impressions_reference_part_days(bigint, text, text, text, date, date, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_reference_part_days(bigint, text, text, text, date, date, boolean, text) to cardinal_reader;
comment on function cardinal.unique_impressions_reference_part_days(bigint, text, text, text, date, date, boolean,
                                                                   text) is
    'The raw source of unique_impressions_by_part for unique_impressions_reference: events (sends, '
    'impressions, clicks, dismissals, not control) per row, message part, user and report day of one app''s '
    'split channel, the day in the campaign''s report time zone or the app''s, narrowed to a campaign when '
    'given and without test events unless include_test. Not inlined, so that the report state''s path does '
    'not plan it.';


-- unique_impressions from the raw events without a part breakdown, push open columns included: counted by
-- count(distinct …) over the events of the range, the definition the state-backed bodies must match.
create or replace function cardinal.unique_impressions_reference_unsplit(
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
    set jit = off
as $function$
    with scoped as (
        select a.name as app_name, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.channel, e.type,
               e.user_key, local.day,
               cardinal.report_breakdown(unique_impressions_reference_unsplit.by, local.day, e.platform,
                                         e.sdk_version, e.app_version) as breakdown
        from cardinal.apps as a
        join cardinal.identified_events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(unique_impressions_reference_unsplit.from_date,
                                          unique_impressions_reference_unsplit.to_date)
          and cardinal.check_report_dimension(unique_impressions_reference_unsplit.by)
          and (unique_impressions_reference_unsplit.app is null or a.name = unique_impressions_reference_unsplit.app)
          and (e.campaign_id is not null or e.canvas_step_id is not null)
          and (unique_impressions_reference_unsplit.campaign is null
               or e.campaign_id = unique_impressions_reference_unsplit.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and not e.control
          and (unique_impressions_reference_unsplit.include_test or not e.test)
          and e.time >= (unique_impressions_reference_unsplit.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (unique_impressions_reference_unsplit.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between unique_impressions_reference_unsplit.from_date
                            and unique_impressions_reference_unsplit.to_date
    ),
    -- The counts of every report row.
    counted as (
        select c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.breakdown,
               count(*) filter (where c.type = 'impression') as impressions,
               count(distinct c.user_key) filter (where c.type = 'impression') as unique_impressions,
               count(distinct (c.day, c.user_key)) filter (where c.type = 'impression') as unique_daily_impressions,
               count(distinct (c.day, c.user_key)) filter (where c.type = cardinal.report_receipt_type(c.channel))
                   as unique_recipients,
               count(*) filter (where c.type = 'click') as clicks,
               count(distinct c.user_key) filter (where c.type = 'click') as unique_clicks,
               count(*) filter (where c.type = 'dismissal') as dismissals,
               count(distinct c.user_key) filter (where c.type = 'dismissal') as unique_dismissals
        from scoped as c
        group by 1, 2, 3, 4, 5, 6, 7
    )
    -- The rates, and the influenced opens, sends and deliveries of each push row, joined to the counted rows (a
    -- few hundred), not to every event.
    select c.*, r.*, o.*
    from counted as c
    left join cardinal.push_counts_reference(unique_impressions_reference_unsplit.app,
                                            unique_impressions_reference_unsplit.from_date,
                                            unique_impressions_reference_unsplit.to_date,
                                            unique_impressions_reference_unsplit.include_test,
                                            unique_impressions_reference_unsplit.campaign,
                                            unique_impressions_reference_unsplit.by) as p
        on c.channel = 'push'
       and p.app_name = c.app_name
       and p.campaign_id is not distinct from c.campaign_id
       and p.canvas_id is not distinct from c.canvas_id
       and p.canvas_step_id is not distinct from c.canvas_step_id
       and p.variant_id is not distinct from c.variant_id
       and p.breakdown is not distinct from c.breakdown
    cross join lateral cardinal.unique_impressions_rates(c.channel, c.impressions, c.unique_impressions,
                                                         c.clicks, c.unique_clicks, c.dismissals,
                                                         c.unique_dismissals, c.unique_recipients) as r
    cross join lateral cardinal.unique_impressions_open_columns(c.channel, c.clicks, c.unique_clicks,
                                                                c.unique_recipients, p.influenced_opens,
                                                                c.unique_clicks, p.sends, p.deliveries) as o
    order by c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.breakdown;
$function$;
alter function cardinal.unique_impressions_reference_unsplit(text, date, date, boolean, text, text) owner to cardinal_owner;
grant execute on function cardinal.unique_impressions_reference_unsplit(text, date, date, boolean, text, text) to cardinal_reader;
comment on function cardinal.unique_impressions_reference_unsplit(text, date, date, boolean, text, text) is
    'The reference unique-impressions report over raw events, push open columns included: no breakdown, or by '
    'day, platform, sdk_version or app_version. unique_impressions_reference calls it for those, and '
    'unique_impressions_by_part for the whole rows of its raw-event side.';
