-- 0039_control_arms_reads_exposed_conversions.sql — control_arms (0034) reads only the conversions of the users
-- it counts, and hashes its joins whatever the row estimates.
--
-- Why: the report's timeline merged each exposed user's exposure with every conversion of the app, of every
-- user and every conversion name, and sorted them all by user and time, so a report of one campaign paid for
-- the whole app's conversions (issue 8 wants < 100 ms for one campaign; the 10 M-event bench measured 2.6 s).
-- Only a conversion of an exposed user, named as the event their campaign (or canvas) counts, can decide a
-- conversion, so the conversions are semi-joined to the exposed users first (a materialized CTE read once).
-- The join must be hashed: turning nested loops off for the function (it is not inlined then; every caller
-- calls it as a table function) keeps a one-row estimate from re-scanning the exposed users per conversion,
-- and JIT goes off with it. Measured in psql on the planner-proof workload (50,000 events, 5 campaigns) plus
-- 200,000 conversions of 66,000 users exposed to nothing, folded and analyzed, under a load average of 6:
-- one campaign 280 → 200 ms. The conversion state is still read whole; per-user index probes, or
-- per-arm counts kept by the fold, are what would reach the goal. Arguments, rows and definitions are 0034's.

create or replace function cardinal.control_arms(
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
    returns table (
        app_name              text,
        campaign_id           text,
        conversion_event      text,
        window_length         interval,
        variant_id            text,
        control               boolean,
        users                 bigint,
        converters            bigint,
        exposed_users         bigint,
        users_in_several_arms bigint,
        canvas_id             text
    )
    language sql
    stable
    -- Hash joins whatever the row estimates; the per-row unnest and VALUES stay (lateral) nested loops.
    set enable_nestloop = off
    -- Those loops then carry the planner's disable cost, which would pass every JIT threshold.
    set jit = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(control_arms.from_date, control_arms.to_date)
          and cardinal.check_control_source(control_arms.campaign, control_arms.canvas)
          and (control_arms.app is null or a.name = control_arms.app)
    ),
    -- Each user's first exposure per arm and report group, before the end of the range: the first
    -- impression (the first send too for push) in the variant arm, the first control impression (control
    -- send for push) in the control arm. The source's settings ride along, so that no later step joins the
    -- users back to their campaign (a join of per-user sets is what a wrong row estimate turns quadratic;
    -- see 0014). A canvas event has no campaign_id, so coalesce(campaign_id, canvas_id) is the source of
    -- either mode.
    group_exposures as (
        select t.app_id, t.app_name, coalesce(u.campaign_id, u.canvas_id) as source_id, u.user_key, x.control,
               x.variant_id, x.first_time, source.conversion_event, source.window_length, source.lower_time
        from target as t
        join cardinal.report_user_facts as u on u.app_id = t.app_id
        left join cardinal.campaign_settings as s
            on s.app_id = u.app_id and s.campaign_id = coalesce(u.campaign_id, u.canvas_id)
        cross join lateral (
            select coalesce(case when control_arms.canvas is null then s.report_time_zone end,
                            t.report_time_zone) as zone
        ) as day
        cross join lateral (
            select coalesce(control_arms.conversion, s.conversion_event) as conversion_event,
                   coalesce(control_arms.conversion_window, s.conversion_window, interval '3 days') as window_length,
                   control_arms.from_date::timestamp at time zone day.zone as lower_time,
                   (control_arms.to_date + 1)::timestamp at time zone day.zone as upper_time
        ) as source
        cross join lateral (
            values (false, u.variant_id,
                    least(u.first_impression_at, case when u.channel = 'push' then u.first_send_at end)),
                   (true, null::text,
                    least(u.first_control_impression_at,
                          case when u.channel = 'push' then u.first_control_send_at end))
        ) as x (control, variant_id, first_time)
        where case when control_arms.canvas is null
                   then u.campaign_id is not null
                        and (control_arms.campaign is null or u.campaign_id = control_arms.campaign)
                   else u.canvas_id = control_arms.canvas end
          and (control_arms.include_test or not u.test)
          and x.first_time < source.upper_time
    ),
    arm_exposures as (
        select app_id, app_name, source_id, user_key, control, variant_id, conversion_event, window_length,
               lower_time, min(first_time) as first_time
        from group_exposures
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    exposed as materialized (
        select app_id, app_name, source_id, user_key, conversion_event, window_length,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, app_name, source_id, user_key, conversion_event, window_length, lower_time
        having min(first_time) >= lower_time
    ),
    -- Whether a user converted: the user's exposures and conversions in one stream, sorted by time within
    -- each user and conversion name, newest first; the smallest conversion time from the top down to an
    -- exposure is the first conversion at or after it (a conversion at the very same instant sorts first).
    timeline as (
        select x.app_id, x.user_key, x.conversion_event as name, x.exposed_at as time, false as is_conversion,
               x.app_name, x.source_id, x.conversion_event, x.window_length, x.variant_id, x.control, x.arms,
               x.exposed_at
        from exposed as x
        where x.conversion_event is not null
        union all
        select v.app_id, v.user_key, v.conversion_name, conversion.time, true,
               null, null, null, null, null, null, null, null
        from cardinal.report_conversion_facts as v
        cross join lateral unnest(v.times) as conversion (time)
        where v.app_id in (select app_id from target)
          and (control_arms.include_test or not v.test)
          -- Only a conversion that can decide whether an exposed user converted: the user's, of the event
          -- their campaign counts. Without this, a report of one campaign sorted every conversion of the app.
          and (v.app_id, v.user_key, v.conversion_name) in (
              select x.app_id, x.user_key, x.conversion_event from exposed as x
          )
    ),
    cohort as (
        select app_name, source_id, conversion_event, window_length, variant_id, control,
               arms > 1 as several_arms,
               exposed_at + window_length <= control_arms.as_of as matured,
               arms = 1
                   and exposed_at + window_length <= control_arms.as_of
                   and coalesce(next_conversion <= exposed_at + window_length, false) as converted
        from (
            select *,
                   min(time) filter (where is_conversion) over (
                       partition by app_id, user_key, name
                       order by time desc, is_conversion desc
                       rows between unbounded preceding and current row
                   ) as next_conversion
            from timeline
        ) as ordered
        where not is_conversion
        union all
        select app_name, source_id, conversion_event, window_length, variant_id, control, arms > 1,
               exposed_at + window_length <= control_arms.as_of, false
        from exposed
        where conversion_event is null
    ),
    -- One row per arm, and one per source and arm of the users in several arms; a window over the source
    -- adds the latter up (0014's shape).
    arm_groups as (
        select app_name, source_id, conversion_event, window_length, variant_id, control, several_arms,
               count(*) filter (where matured) as users,
               case when conversion_event is not null then count(*) filter (where converted) end as converters,
               count(*) as exposed_users
        from cohort
        group by app_name, source_id, conversion_event, window_length, variant_id, control, several_arms
    ),
    arms as (
        select app_name, source_id, conversion_event, window_length, variant_id, control, several_arms,
               users, converters, exposed_users,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, source_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name,
           case when control_arms.canvas is null then source_id end,
           conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms,
           case when control_arms.canvas is not null then source_id end
    from arms
    where not several_arms
    order by app_name, source_id, control desc, variant_id nulls first;
$function$;
