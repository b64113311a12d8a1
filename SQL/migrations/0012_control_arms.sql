-- 0012_control_arms.sql — the counts of the control-group report, per campaign and arm:
--
--     select * from cardinal.control_arms('shop', 'spring_sale', '2026-11-01', '2026-11-30');
--
-- `cardinal report control` calls this function and computes the statistics (rates, Newcombe and Katz
-- intervals, z-test, Holm, confidence, chance to beat control, SRM) in Swift: PostgreSQL has no normal or
-- chi-square distribution functions, and one implementation with unit tests beats two.
--
-- Definitions (issue 4, DOMAIN.md):
--   * Arms: the control arm (control impressions, control = true) and one arm per variant_id (a NULL
--     variant_id is the arm of a campaign without variants).
--   * Exposure: a user's first impression of the campaign in a variant arm, or first control impression in
--     the control arm, over the campaign's whole history up to the end of to_date — a user first exposed
--     before from_date belongs to an earlier cohort and is not counted. For push, which has no
--     impressions, the send is the exposure (DOMAIN.md: "for push at the send").
--   * Users exposed to more than one arm are excluded from every arm; users_in_several_arms counts them.
--   * Matured: exposure + conversion window <= as_of. Only matured users count (users, converters);
--     exposed_users also counts the immature ones.
--   * Converter: a matured user with a conversion event named conversion_event (the argument, else
--     campaign_settings.conversion_event) whose time t satisfies exposure <= t <= exposure + window, once
--     per user. Conversions are looked up by user_key through events_conversion_idx, so a conversion on
--     another device of the same user counts.
--   * The window is the argument, else campaign_settings.conversion_window, else 3 days.
--   * Report days, the range, test events and user keys as in unique_impressions (0010).
-- A campaign appears when it has an exposure in the range, with or without a conversion event; without
-- one, converters is NULL (users are still counted, for the sample ratio check).

create function cardinal.control_arms(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    conversion        text        default null,
    conversion_window interval    default null,
    include_test      boolean     default false
)
    returns table (
        app_name             text,
        campaign_id          text,
        conversion_event     text,
        window_length        interval,
        variant_id           text,
        control              boolean,
        users                bigint,
        converters           bigint,
        exposed_users        bigint,
        users_in_several_arms bigint
    )
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(control_arms.from_date, control_arms.to_date)
          and (control_arms.app is null or a.name = control_arms.app)
    ),
    -- The campaigns with an exposure in the broad range (see 0010), with their settings and exact bounds.
    campaigns as (
        select c.app_id, c.app_name, c.campaign_id,
               coalesce(control_arms.conversion, s.conversion_event) as conversion_event,
               coalesce(control_arms.conversion_window, s.conversion_window, interval '3 days') as window_length,
               control_arms.from_date::timestamp at time zone coalesce(s.report_time_zone, c.report_time_zone)
                   as lower_time,
               (control_arms.to_date + 1)::timestamp at time zone coalesce(s.report_time_zone, c.report_time_zone)
                   as upper_time
        from (
            select distinct t.app_id, t.app_name, t.report_time_zone, e.campaign_id
            from target as t
            join cardinal.events as e on e.app_id = t.app_id
            where e.campaign_id is not null
              and (control_arms.campaign is null or e.campaign_id = control_arms.campaign)
              and e.type in ('impression', 'send')
              and (e.type = 'impression' or e.channel = 'push')
              and (control_arms.include_test or not e.test)
              and e.time >= (control_arms.from_date - 1)::timestamp at time zone 'UTC'
              and e.time < (control_arms.to_date + 2)::timestamp at time zone 'UTC'
        ) as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
    ),
    -- Each user's first exposure per arm, over the campaign's history up to the end of the range.
    arm_exposures as (
        select c.app_id, c.campaign_id, e.user_key, e.control,
               case when e.control then null else e.variant_id end as variant_id,
               min(e.time) as first_time
        from campaigns as c
        join cardinal.events as e on e.app_id = c.app_id and e.campaign_id = c.campaign_id
        where e.campaign_id is not null
          and e.type in ('impression', 'send')
          and (e.type = 'impression' or e.channel = 'push')
          and (control_arms.include_test or not e.test)
          and e.time < c.upper_time
        group by 1, 2, 3, 4, 5
    ),
    exposed as (
        select app_id, campaign_id, user_key,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, campaign_id, user_key
    ),
    cohort as (
        select c.app_name, c.campaign_id, c.conversion_event, c.window_length, x.variant_id, x.control,
               x.arms > 1 as several_arms,
               x.exposed_at + c.window_length <= control_arms.as_of as matured,
               x.arms = 1
                   and x.exposed_at + c.window_length <= control_arms.as_of
                   and c.conversion_event is not null
                   and exists (
                       select
                       from cardinal.events as v
                       where v.type = 'conversion'
                         and v.app_id = c.app_id
                         and v.user_key = x.user_key
                         and v.conversion_name = c.conversion_event
                         and v.time >= x.exposed_at
                         and v.time <= x.exposed_at + c.window_length
                         and (control_arms.include_test or not v.test)
                   ) as converted
        from exposed as x
        join campaigns as c on c.app_id = x.app_id and c.campaign_id = x.campaign_id
        where x.exposed_at >= c.lower_time
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control,
               count(*) filter (where matured) as users,
               case when conversion_event is not null then count(*) filter (where converted) end as converters,
               count(*) as exposed_users
        from cohort
        where not several_arms
        group by app_name, campaign_id, conversion_event, window_length, variant_id, control
    ),
    several as (
        select app_name, campaign_id, count(*) as users_in_several_arms
        from cohort
        where several_arms
        group by app_name, campaign_id
    )
    select a.app_name, a.campaign_id, a.conversion_event, a.window_length, a.variant_id, a.control,
           a.users, a.converters, a.exposed_users, coalesce(s.users_in_several_arms, 0)
    from arms as a
    left join several as s on s.app_name = a.app_name and s.campaign_id = a.campaign_id
    order by a.app_name, a.campaign_id, a.control desc, a.variant_id nulls first;
$function$;

alter function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean)
    to cardinal_reader;

comment on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean) is
    'Counts of the control-group report: per app × campaign × arm (control, or variant_id), the users first '
    'exposed in the report days from_date..to_date (first impression; first control impression for the '
    'control arm; the send for push) whose window had elapsed by as_of (users), those of them who converted '
    'within the window (converters; NULL without a conversion event), every exposed user '
    '(exposed_users) and, per campaign, the users excluded for being in several arms. conversion and '
    'conversion_window override campaign_settings. app and campaign NULL = all. Statistics: `cardinal '
    'report control`. Definitions in SQL/migrations/0012_control_arms.sql.';
