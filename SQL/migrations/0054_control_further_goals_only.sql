-- 0054_control_further_goals_only.sql — the control report's further goals are computed without the primary
-- goal (issue 8).
--
-- Design notes (why, not what):
--
-- * The CLI takes the primary goal from control_arms (with its exposures, conversion values and pending
--   adjustment) and asks control_arm_conversions for the further goals only (`where ordinal > 1`). Since 0049
--   the counts' branch, control_arm_conversions_from_exposures, answers every goal of a campaign in one pass,
--   the primary one included, and that branch is a function with settings the planner cannot inline: the
--   filter came after the work. A campaign without further goals (most of them) was computed whole and then
--   dropped: at 10 M events 275–440 ms for c17, where 0034's body, which ran control_arms per goal, had
--   nothing to run (31 ms); 2.5 s for all campaigns.
--
-- * So both functions take first_ordinal (default 1, every goal: psql users and the tests see 0049's rows)
--   and the goals are filtered before anything is read: a campaign enters the counts' branch only with a goal
--   from first_ordinal on, and the reference branch runs control_arms only for those goals. The CLI passes 2.
--   Adding an argument changes the signature, so the functions are dropped and created again with their
--   owner, grants and comments; no view or function body refers to them by signature.

drop function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text);
drop function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval);


-- 0049's body: the control report of the conversion goals from first_ordinal on, from the counts and, for the
-- days the as-of time cuts, the rows (0046's split), in one pass over those goals.
create function cardinal.control_arm_conversions_from_exposures(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion_window interval,
    first_ordinal     integer
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
    -- Hash joins and aggregates whatever the row estimates (0040, 0046); jit off with them.
    set enable_nestloop = off
    set jit = off
    set enable_sort = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where control_arm_conversions_from_exposures.app is null
           or a.name = control_arm_conversions_from_exposures.app
    ),
    goals as materialized (
        select g.app_id, g.campaign_id, g.ordinal, g.conversion_event
        from cardinal.campaign_conversion_goals as g
        where g.app_id in (select t.app_id from target as t)
          and (control_arm_conversions_from_exposures.campaign is null
               or g.campaign_id = control_arm_conversions_from_exposures.campaign)
          and g.ordinal >= control_arm_conversions_from_exposures.first_ordinal
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.*
        from cardinal.report_pending_control_exposures as p
        where p.app_id in (select t.app_id from target as t)
          and (control_arm_conversions_from_exposures.campaign is null
               or p.campaign_id = control_arm_conversions_from_exposures.campaign)
    ),
    -- The campaigns with goals, their window, the range's bounds in their zone and the first day of the range
    -- that the counts do not answer (0046's split, the same expressions).
    sources as materialized (
        select t.app_id, t.app_name, s.campaign_id, clock.window_length, zone.name as time_zone,
               control_arm_conversions_from_exposures.from_date::timestamp at time zone zone.name as lower_time,
               (control_arm_conversions_from_exposures.to_date + 1)::timestamp at time zone zone.name as upper_time,
               split.day as split_day,
               split.day::timestamp at time zone zone.name as split_time
        from target as t
        join cardinal.campaign_settings as s on s.app_id = t.app_id
        cross join lateral (select coalesce(s.report_time_zone, t.report_time_zone) as name) as zone
        cross join lateral (
            select coalesce(s.conversion_window, interval '3 days') as configured,
                   coalesce(control_arm_conversions_from_exposures.conversion_window, s.conversion_window,
                            interval '3 days') as window_length
        ) as clock
        cross join lateral (
            select coalesce(min(d.day)::date, control_arm_conversions_from_exposures.to_date + 1) as day
            from generate_series(control_arm_conversions_from_exposures.from_date::timestamp,
                                 control_arm_conversions_from_exposures.to_date::timestamp,
                                 interval '1 day') as d (day)
            cross join lateral (select d.day + date_trunc('day', clock.window_length) as local_start) as image
            cross join lateral (
                select (image.local_start + interval '1 day') at time zone zone.name as utc_end,
                       image.local_start at time zone zone.name as utc_start
            ) as utc
            where clock.window_length::text <> clock.configured::text
               or utc.utc_end + (clock.window_length - date_trunc('day', clock.window_length))
                  + greatest(interval '0', interval '1 day' - (utc.utc_end - utc.utc_start))
                  > control_arm_conversions_from_exposures.as_of
        ) as split
        where (control_arm_conversions_from_exposures.campaign is null
               or s.campaign_id = control_arm_conversions_from_exposures.campaign)
          and exists (select from goals as g where g.app_id = s.app_id and g.campaign_id = s.campaign_id)
    ),
    -- The users and primary converters of the count days, of one arm each (users in several arms before the
    -- range's end are not reported).
    counted as materialized (
        select d.app_id, d.campaign_id, d.control, d.variant_key, d.users, d.converters
        from cardinal.report_control_exposure_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arm_conversions_from_exposures.from_date
          and d.exposed_day < (select max(s.split_day) from sources as s)
          and d.exposed_day < s.split_day
          and d.second_arm_day > control_arm_conversions_from_exposures.to_date
    ),
    -- The further goals' converters of the same days and arms.
    counted_goals as (
        select d.app_id, d.campaign_id, d.control, d.variant_key, d.ordinal, d.converters
        from cardinal.report_control_goal_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arm_conversions_from_exposures.from_date
          and d.exposed_day < (select max(s.split_day) from sources as s)
          and d.exposed_day < s.split_day
          and d.second_arm_day > control_arm_conversions_from_exposures.to_date
    ),
    -- The folded rows of the other days: an index range per campaign in a loop over the campaigns (0046).
    folded as (
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.converted_at, r.further_converted_at
        from sources as s
        cross join lateral (
            select *
            from cardinal.report_control_exposures as r
            where r.app_id = s.app_id
              and r.campaign_id = s.campaign_id
              and r.exposed_at >= s.split_time
              and r.exposed_at < s.upper_time
            offset 0
        ) as r
    ),
    -- The folded rows that the pending rows replace, by primary key.
    replaced as (
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               r.further_converted_at
        from cardinal.report_control_exposures as r
        join pending as p on p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.user_key = r.user_key
        where r.app_id = any(array(select distinct p.app_id from pending as p))
          and r.user_key = any(array(select distinct p.user_key from pending as p))
    ),
    -- One by one: the folded rows of the row days but the replaced ones, every pending row, and the replaced
    -- rows of the count days taken out of the counts (0046).
    items as (
        select f.app_id, f.campaign_id, f.exposed_at, f.control, f.variant_id, f.second_arm_at, f.converted_at,
               f.further_converted_at, 1 as sign, true as in_row_days
        from folded as f
        where not exists (
            select from pending as p
            where p.app_id = f.app_id and p.campaign_id = f.campaign_id and p.user_key = f.user_key
        )
        union all
        select p.app_id, p.campaign_id, p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at,
               p.further_converted_at, 1, null
        from pending as p
        union all
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               r.further_converted_at, -1, false
        from replaced as r
    ),
    -- The items of the range in one arm, with their window's end on the campaign's clock (0044).
    cohort as materialized (
        select x.app_id, x.campaign_id, x.control, coalesce(x.variant_id, '') as variant_key, x.sign,
               window_end.time <= control_arm_conversions_from_exposures.as_of as matured,
               x.converted_at, x.further_converted_at, window_end.time as window_end
        from items as x
        join sources as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
        cross join lateral (
            select cardinal.report_window_end(x.exposed_at, s.window_length, s.time_zone) as time
        ) as window_end
        where x.exposed_at >= s.lower_time and x.exposed_at < s.upper_time
          and (x.in_row_days is null or x.in_row_days = (x.exposed_at >= s.split_time))
          and not coalesce(x.second_arm_at < s.upper_time, false)
    ),
    -- Per arm: the exposed and matured users (ordinal NULL), and per goal the converters.
    parts as (
        select app_id, campaign_id, control, variant_key, null::smallint as ordinal,
               users as exposed, users, 0::bigint as converters
        from counted
        union all
        select app_id, campaign_id, control, variant_key, 1::smallint, 0, 0, converters
        from counted
        where converters <> 0
        union all
        select app_id, campaign_id, control, variant_key, ordinal, 0, 0, converters
        from counted_goals
        union all
        select app_id, campaign_id, control, variant_key, null, sign, case when matured then sign else 0 end, 0
        from cohort
        union all
        select c.app_id, c.campaign_id, c.control, c.variant_key, goal.ordinal, 0, 0, c.sign
        from cohort as c
        cross join lateral (
            select 1::smallint as ordinal
            where c.converted_at <= c.window_end
            union all
            select f.ordinal::smallint
            from unnest(c.further_converted_at) with ordinality as f (converted_at, ordinal)
            where f.converted_at <= c.window_end
        ) as goal
        where c.matured and (c.converted_at <= c.window_end or c.further_converted_at is not null)
    ),
    arm_groups as (
        select app_id, campaign_id, control, variant_key, coalesce(ordinal, 0) as ordinal,
               sum(exposed) as exposed, sum(users)::bigint as users, sum(converters)::bigint as converters
        from parts
        group by app_id, campaign_id, control, variant_key, coalesce(ordinal, 0)
    ),
    -- The arms reported: those with an exposed user (the pending events may have moved all of one's away).
    arms as (
        select app_id, campaign_id, control, variant_key, users
        from arm_groups
        where ordinal = 0 and exposed <> 0
    )
    select s.app_name, a.campaign_id, g.ordinal, g.conversion_event, s.window_length,
           nullif(a.variant_key, ''), a.control, a.users, coalesce(c.converters, 0), null::text
    from arms as a
    join sources as s on s.app_id = a.app_id and s.campaign_id = a.campaign_id
    join goals as g on g.app_id = a.app_id and g.campaign_id = a.campaign_id
    left join arm_groups as c
        on c.app_id = a.app_id and c.campaign_id = a.campaign_id and c.control = a.control
       and c.variant_key = a.variant_key and c.ordinal = g.ordinal
    order by s.app_name, a.campaign_id, g.ordinal, a.control desc, nullif(a.variant_key, '') nulls first;
$function$;

alter function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval, integer)
    owner to cardinal_owner;

grant execute on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval, integer)
    to cardinal_reader;

comment on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval, integer) is
    'control_arm_conversions of campaigns (not a canvas), without test events, for the conversion goals from '
    'first_ordinal on (1 = every goal, 2 = the further ones) and the given window (else the campaign''s): '
    'from report_control_exposure_days and report_control_goal_days for the days wholly matured at as_of with '
    'the configured window, else from report_control_exposures, with the pending events'' change '
    '(report_pending_control_exposures); 0046''s split, 0049, first_ordinal 0054. control_arm_conversions '
    'calls it when it can.';


-- 0049's control_arm_conversions with first_ordinal passed to both branches.
create function cardinal.control_arm_conversions(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    include_test      boolean     default false,
    reference         boolean     default false,
    conversion_window interval    default null,
    canvas            text        default null,
    first_ordinal     integer     default 1
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
    select arm.*
    from cardinal.control_arm_conversions_from_exposures(control_arm_conversions.app,
                                                         control_arm_conversions.campaign,
                                                         control_arm_conversions.from_date,
                                                         control_arm_conversions.to_date,
                                                         control_arm_conversions.as_of,
                                                         control_arm_conversions.conversion_window,
                                                         control_arm_conversions.first_ordinal) as arm
    where cardinal.check_report_range(control_arm_conversions.from_date, control_arm_conversions.to_date)
      and not control_arm_conversions.reference
      and control_arm_conversions.canvas is null
      and not control_arm_conversions.include_test
    union all
    (
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
                                                          control_arm_conversions.to_date,
                                                          control_arm_conversions.as_of, g.conversion_event,
                                                          goal.length, control_arm_conversions.include_test,
                                                          control_arm_conversions.canvas)
            where control_arm_conversions.reference
        ) as arm
        where (control_arm_conversions.reference
               or control_arm_conversions.canvas is not null
               or control_arm_conversions.include_test)
          and cardinal.check_report_range(control_arm_conversions.from_date, control_arm_conversions.to_date)
          and cardinal.check_control_source(control_arm_conversions.campaign, control_arm_conversions.canvas)
          and (control_arm_conversions.app is null or a.name = control_arm_conversions.app)
          and (control_arm_conversions.campaign is null or g.campaign_id = control_arm_conversions.campaign)
          and (control_arm_conversions.canvas is null or g.campaign_id = control_arm_conversions.canvas)
          and g.ordinal >= control_arm_conversions.first_ordinal
        order by arm.app_name, coalesce(arm.campaign_id, arm.canvas_id), g.ordinal, arm.control desc,
                 arm.variant_id nulls first
    );
$function$;

alter function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text, integer)
    owner to cardinal_owner;

grant execute on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text, integer)
    to cardinal_reader;

comment on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text, integer) is
    'The control report per conversion event: for each conversion event of each campaign (ordinal 1 = '
    'primary, campaign_conversion_goals), control_arms with that event and the campaign''s window (or '
    'conversion_window, 0034): per arm the matured users and the converters. reference = true computes it '
    'with control_arms_reference over the raw events instead of the report state (for tests). app and '
    'campaign NULL = all; canvas (0034) reports that canvas, with the conversion events of its settings row '
    '(campaign_settings keyed by the canvas id). Campaigns without test events read the control counts and '
    'rows of every goal in one pass (control_arm_conversions_from_exposures, 0049); canvases and include_test '
    'run control_arms per goal. first_ordinal (0054): only the goals from that ordinal on (2 = the further '
    'goals, which the CLI asks for beside control_arms'' primary goal).';
