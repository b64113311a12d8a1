-- 0034_canvas_control_groups.sql — the control report of a canvas (issue 12):
--
--     select * from cardinal.control_arms('shop', null, '2026-11-01', '2026-11-30', canvas => 'onboarding');
--     select * from cardinal.control_arm_conversions('shop', null, '2026-11-01', '2026-11-30',
--                                                    canvas => 'onboarding');
--
-- In Braze the variants and the control group of a canvas belong to the canvas; its steps belong to the
-- variants. A canvas's events carry canvas_id and canvas_step_id and no campaign_id, so control_arms, which
-- groups by campaign_id, could not see them. control_arms, control_arms_reference and
-- control_arm_conversions take a canvas argument: given, they report that canvas instead of campaigns.
--
-- Definitions: those of 0012 with "campaign" read as "canvas":
--   * Arms: the canvas's control arm (control impressions, or control sends for push, in any of its steps)
--     and one arm per variant_id; a user's exposure to an arm is the first over all the canvas's steps and
--     channels, so a user who meets several steps of one variant is one user of that arm.
--   * Settings: the campaign_settings row whose campaign_id is the canvas id (`cardinal campaigns set
--     --campaign <canvas id>`) gives the conversion events, the window and the expected split. Braze's
--     campaign and canvas ids are distinct API identifiers, so one settings table keyed by the id serves
--     both, and the conversion events of 0030 (campaign_conversion_goals) apply to canvases unchanged.
--   * Report days: the app's time zone. The report state (0015) folds canvas events in the app's zone (its
--     report_time_zone lookup joins on campaign_id), so a canvas's report days are the app's everywhere;
--     a report_time_zone on the canvas's settings row is not used.
--   * Rows: campaign_id is NULL and canvas_id is the canvas (a new last column, NULL on campaign rows).
-- campaign and canvas together are refused (22023): a report covers campaigns or one canvas.
--
-- Design notes (why, not what):
--
-- * The state needs no change: report_groups already key users by canvas_id and canvas_step_id, and
--   report_user_state keeps each user's first exposure times per group, so the first exposure over a
--   canvas is the minimum over its groups, as the first over a campaign is the minimum over its channels
--   and versions. The functions carry a source id (the campaign id, or the canvas id in canvas mode)
--   where 0016 carried campaign_id.
-- * A new argument changes the signatures, so the functions are dropped and created anew; the argument
--   comes last with a default, so every call by position or name of 0016 and 0030 means what it meant.
--   control_arms_reference reads identified_events, as 0032 made every reference function do.
-- * control_arm_conversions gains conversion_window too: `cardinal report control --window` overrides the
--   window of every conversion event, not only the primary's.


-- The argument rule of the functions below.
create function cardinal.check_control_source(campaign text, canvas text)
    returns boolean
    language plpgsql
    immutable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if campaign is not null and canvas is not null then
        raise exception 'control report: campaign % and canvas % given together', campaign, canvas
            using errcode = 'invalid_parameter_value',
                  hint = 'A control report covers campaigns or one canvas; give one of them.';
    end if;
    return true;
end
$function$;

alter function cardinal.check_control_source(text, text) owner to cardinal_owner;

grant execute on function cardinal.check_control_source(text, text) to cardinal_reader;

comment on function cardinal.check_control_source(text, text) is
    'Argument check of control_arms, control_arms_reference and control_arm_conversions: true unless both a '
    'campaign and a canvas are given, which raises 22023.';


drop function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean);
drop function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean);
drop function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean);


create function cardinal.control_arms_reference(
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
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(control_arms_reference.from_date, control_arms_reference.to_date)
          and cardinal.check_control_source(control_arms_reference.campaign, control_arms_reference.canvas)
          and (control_arms_reference.app is null or a.name = control_arms_reference.app)
    ),
    -- The campaigns (or the canvas) with an exposure in the broad range (see 0010), with their settings and
    -- exact bounds. A few rows, materialized: the history scan below is then one index scan per campaign.
    sources as materialized (
        select c.app_id, c.app_name, c.source_id,
               coalesce(control_arms_reference.conversion, s.conversion_event) as conversion_event,
               coalesce(control_arms_reference.conversion_window, s.conversion_window, interval '3 days') as window_length,
               control_arms_reference.from_date::timestamp at time zone c.zone as lower_time,
               (control_arms_reference.to_date + 1)::timestamp at time zone c.zone as upper_time
        from (
            select distinct t.app_id, t.app_name, coalesce(e.campaign_id, e.canvas_id) as source_id,
                   coalesce(case when control_arms_reference.canvas is null then s.report_time_zone end,
                            t.report_time_zone) as zone
            from target as t
            join cardinal.identified_events as e on e.app_id = t.app_id
            left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
            where case when control_arms_reference.canvas is null
                       then e.campaign_id is not null
                            and (control_arms_reference.campaign is null
                                 or e.campaign_id = control_arms_reference.campaign)
                       else e.canvas_id = control_arms_reference.canvas end
              and e.type in ('impression', 'send')
              and (e.type = 'impression' or e.channel = 'push')
              and (control_arms_reference.include_test or not e.test)
              and e.time >= (control_arms_reference.from_date - 1)::timestamp at time zone 'UTC'
              and e.time < (control_arms_reference.to_date + 2)::timestamp at time zone 'UTC'
        ) as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.source_id
    ),
    -- Each user's first exposure per arm, over the source's history up to the end of the range. The
    -- settings ride along in the grouping (one value per source), so that no later step has to join the
    -- users back to their campaign.
    arm_exposures as (
        select c.app_id, c.source_id, e.user_key, e.control,
               case when e.control then null else e.variant_id end as variant_id,
               c.app_name, c.conversion_event, c.window_length, c.lower_time,
               min(e.time) as first_time
        from sources as c
        join cardinal.identified_events as e
            on e.app_id = c.app_id
           and coalesce(e.campaign_id, e.canvas_id) = c.source_id
        where case when control_arms_reference.canvas is null
                   then e.campaign_id is not null
                   else e.canvas_id is not null end
          and e.type in ('impression', 'send')
          and (e.type = 'impression' or e.channel = 'push')
          and (control_arms_reference.include_test or not e.test)
          and e.time < c.upper_time
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    exposed as (
        select app_id, source_id, user_key, app_name, conversion_event, window_length, lower_time,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, source_id, user_key, app_name, conversion_event, window_length, lower_time
    ),
    -- The conversion of each matured user is one probe of events_conversion_idx (a correlated EXISTS on the
    -- events, not on a CTE: its cost is per user, whatever the estimates).
    cohort as (
        select x.app_name, x.source_id, x.conversion_event, x.window_length, x.variant_id, x.control,
               x.arms > 1 as several_arms,
               x.exposed_at + x.window_length <= control_arms_reference.as_of as matured,
               x.arms = 1
                   and x.exposed_at + x.window_length <= control_arms_reference.as_of
                   and x.conversion_event is not null
                   and exists (
                       select
                       from cardinal.identified_events as v
                       where v.type = 'conversion'
                         and v.app_id = x.app_id
                         and v.user_key = x.user_key
                         and v.conversion_name = x.conversion_event
                         and v.time >= x.exposed_at
                         and v.time <= x.exposed_at + x.window_length
                         and (control_arms_reference.include_test or not v.test)
                   ) as converted
        from exposed as x
        where x.exposed_at >= x.lower_time
    ),
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
           case when control_arms_reference.canvas is null then source_id end,
           conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms,
           case when control_arms_reference.canvas is not null then source_id end
    from arms
    where not several_arms
    order by app_name, source_id, control desc, variant_id nulls first;
$function$;

alter function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean, text)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean, text)
    to cardinal_reader;

comment on function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'Reference implementation of control_arms over the raw events (0012, 0014, 0034), identities merged '
    '(identified_events, 0032): the same arguments and rows, computed without the report state. Slow on large '
    'apps; for checking numbers and tests.';


create function cardinal.control_arms(
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
    exposed as (
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

alter function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text)
    to cardinal_reader;

comment on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'Counts of the control-group report, read from the report state (report_*_facts, 0015): per app × campaign × arm '
    '(control, or variant_id), the users first exposed in the report days from_date..to_date (first '
    'impression; first control impression for the control arm; the send for push) whose window had elapsed '
    'by as_of (users), those of them who converted within the window (converters; NULL without a '
    'conversion event), every exposed user (exposed_users) and, per campaign, the users excluded for being '
    'in several arms. conversion and conversion_window override campaign_settings. app and campaign NULL = '
    'all. canvas (0034) reports that canvas instead of campaigns: exposures over all its steps, settings '
    'from the campaign_settings row keyed by the canvas id, report days in the app''s zone, campaign_id NULL '
    'and canvas_id set. Definitions in SQL/migrations/0012_control_arms.sql and 0034; '
    'control_arms_reference computes the same from raw events.';


-- The control report of every conversion event: control_arms (or its reference) once per event, with the
-- event and the window (the argument, else the campaign's or canvas's) as its arguments.
create function cardinal.control_arm_conversions(
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
                                                      control_arm_conversions.to_date, control_arm_conversions.as_of,
                                                      g.conversion_event, goal.length,
                                                      control_arm_conversions.include_test,
                                                      control_arm_conversions.canvas)
        where control_arm_conversions.reference
    ) as arm
    where cardinal.check_report_range(control_arm_conversions.from_date, control_arm_conversions.to_date)
      and cardinal.check_control_source(control_arm_conversions.campaign, control_arm_conversions.canvas)
      and (control_arm_conversions.app is null or a.name = control_arm_conversions.app)
      and (control_arm_conversions.campaign is null or g.campaign_id = control_arm_conversions.campaign)
      and (control_arm_conversions.canvas is null or g.campaign_id = control_arm_conversions.canvas)
    order by arm.app_name, coalesce(arm.campaign_id, arm.canvas_id), g.ordinal, arm.control desc,
             arm.variant_id nulls first;
$function$;

alter function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text)
    owner to cardinal_owner;

grant execute on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text)
    to cardinal_reader;

comment on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text) is
    'The control report per conversion event: for each conversion event of each campaign (ordinal 1 = '
    'primary, campaign_conversion_goals), control_arms with that event and the campaign''s window (or '
    'conversion_window, 0034): per arm the matured users and the converters. reference = true computes it '
    'with control_arms_reference over the raw events instead of the report state (for tests). app and '
    'campaign NULL = all; canvas (0034) reports that canvas, with the conversion events of its settings row '
    '(campaign_settings keyed by the canvas id).';
