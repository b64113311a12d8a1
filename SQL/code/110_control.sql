-- The control report: per campaign (or canvas) and arm, the users first exposed in the report days, those of
-- them who converted within the window, and the users sent to each arm for the sample ratio check.
--
-- Entry points: control_arms (one conversion event), control_arm_conversions (every conversion goal),
-- control_arm_covariates (CUPED's sums over the users control_arms counts), send_arms, and control_arm_days
-- (one campaign's control report day by day, for the campaign page). Each picks the state that answers:
-- campaigns without test events read the control counts
-- (control_arm_sums_from_exposures, control_arm_conversions_from_exposures: report_control_exposure_days for the
-- days wholly matured or wholly unmatured at as_of, the per-user report_control_exposures for the days
-- between, with the pending events' change; control_exposure_bounds finds those days;
-- control_arm_days_from_exposures reads them for every day at once); canvases, test events and other
-- conversion events read the per-user state (control_arms_from_user_state: the users of
-- control_cohort_from_user_state, counted per arm by control_arms_of_cohort, which counts the raw-event
-- cohort of control_arms_reference the same way).
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- Whether the control counts answer a report of these arguments: campaigns, not a canvas, without test
-- events, each on its own conversion event (a conversion event given must be the one campaign's).
create or replace function cardinal.control_counts_answer(
    app          text,
    campaign     text,
    conversion   text,
    include_test boolean,
    canvas       text
)
    returns boolean
    language sql
    stable
as $function$
    select control_counts_answer.canvas is null and not coalesce(control_counts_answer.include_test, false)
           and (control_counts_answer.conversion is null
                or (control_counts_answer.campaign is not null
                    and not exists (
                        select
                        from cardinal.apps as a
                        left join cardinal.campaign_settings as s
                            on s.app_id = a.app_id and s.campaign_id = control_counts_answer.campaign
                        where (control_counts_answer.app is null or a.name = control_counts_answer.app)
                          and s.conversion_event is distinct from control_counts_answer.conversion
                    )));
$function$;
alter function cardinal.control_counts_answer(text, text, text, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.control_counts_answer(text, text, text, boolean, text) to cardinal_reader;
comment on function cardinal.control_counts_answer(text, text, text, boolean, text) is
    'Whether control_arm_sums_from_exposures answers a control report of these arguments: no canvas, no test '
    'events, and no conversion event but each campaign''s own (given, it must be the one campaign''s). '
    'control_arms and control_arm_covariates ask it.';


-- The control report of one conversion event per campaign. PL/pgSQL, so that each call plans only the source
-- that answers it: the control counts, or the per-user state for what they do not hold.
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
    returns setof cardinal.control_arms_row
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_control_source(campaign, canvas);
    if cardinal.control_counts_answer(app, campaign, conversion, include_test, canvas) then
        return query
        select c.app_name, c.campaign_id, c.conversion_event, c.window_length, c.variant_id, c.control, c.users,
               c.converters, c.exposed_users, c.users_in_several_arms, null::text
        from cardinal.control_arm_sums_from_exposures(app, campaign, from_date, to_date, as_of, conversion_window)
            as c;
    else
        return query select * from cardinal.control_arms_from_user_state(app, campaign, from_date, to_date, as_of,
                                                                         conversion, conversion_window,
                                                                         include_test, canvas);
    end if;
end
$function$;
alter function cardinal.control_arms(text, text, date, date, timestamp with time zone, text, interval, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.control_arms(text, text, date, date, timestamp with time zone, text, interval, boolean, text) to cardinal_reader;
comment on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'Counts of the control-group report, read from the report state: per app × campaign × arm '
    '(control, or variant_id), the users first exposed in the report days from_date..to_date (first '
    'impression; first control impression for the control arm; the send for push) whose window had elapsed '
    'by as_of (users), those of them who converted within the window (converters; NULL without a '
    'conversion event), every exposed user (exposed_users) and, per campaign, the users excluded for being '
    'in several arms. conversion and conversion_window override campaign_settings. app and campaign NULL = '
    'all. canvas reports that canvas instead of campaigns: exposures over all its steps, settings from the '
    'campaign_settings row keyed by the canvas id, report days in the app''s zone, campaign_id NULL and '
    'canvas_id set. SQL/docs/reports.md defines the columns; control_arms_reference computes the same from '
    'raw events. Campaigns without test events and with their own conversion events are read from the '
    'control counts and report_control_exposures (control_arm_sums_from_exposures), the rest from the per-user '
    'state (control_arms_from_user_state).';


-- The users sent to each arm: the folded day pairs plus the pending users that add to an arm. The day pairs
-- leave test groups out, so with test events it reads the per-user state (send_arms_from_user_state).
create or replace function cardinal.send_arms(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    include_test boolean default false
)
    returns setof cardinal.send_arms_row
    language plpgsql
    stable
    -- Hashed, whatever the row estimates: sorting the pending users' keys, as a GROUP BY estimated at one row
    -- was planned, took 1.75 s of 5.0 with 1 M events unfolded.
    set enable_nestloop = off
    set enable_sort = off
    set jit = off
as $function$
begin
    if send_arms.include_test then
        return query
        select *
        from cardinal.send_arms_from_user_state(send_arms.app, send_arms.campaign, send_arms.from_date,
                                                send_arms.to_date, true);
        return;
    end if;
    return query
    with target as materialized (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(send_arms.from_date, send_arms.to_date)
          and (send_arms.app is null or a.name = send_arms.app)
    ),
    -- A user's first send day of the arm in the range is the one whose previous day is before it.
    folded as (
        select c.app_id, c.campaign_id, c.control, c.variant_key, sum(c.users) as users
        from cardinal.report_arm_day_users as c
        where c.app_id = any(array(select t.app_id from target as t))
          and (send_arms.campaign is null or c.campaign_id = send_arms.campaign)
          and c.day between send_arms.from_date and send_arms.to_date
          and c.previous_day < send_arms.from_date
        group by 1, 2, 3, 4
    ),
    -- The unfolded events' users of each arm with a send day in the range, one hash aggregate over the sends.
    -- report_pending_user_facts has them too, but its days are array_agg(DISTINCT …) per user and group,
    -- which PostgreSQL sorts: with 1 M events unfolded 5.5 s of this function's 6.4.
    pending as materialized (
        select q.app_id, q.campaign_id, q.control,
               case when q.control then '' else coalesce(q.variant_id, '') end as variant_key, q.user_key
        from cardinal.report_unfolded_events() as q
        join target as t on t.app_id = q.app_id
        left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
        where q.type = 'send'
          and q.campaign_id is not null
          and not q.test
          and (send_arms.campaign is null or q.campaign_id = send_arms.campaign)
          and (q.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
              between send_arms.from_date and send_arms.to_date
        group by 1, 2, 3, 4, 5
    ),
    -- Their folded arms in the range, found by user key.
    counted as materialized (
        select distinct k.app_id, k.campaign_id, k.control, k.variant_key, k.user_key
        from cardinal.report_arm_user_days as k
        where k.user_key = any(array(select distinct p.user_key from pending as p))
          and k.day between send_arms.from_date and send_arms.to_date
    ),
    -- Pending events only add days: a pending user adds to an arm the pairs do not count it in.
    added as (
        select p.app_id, p.campaign_id, p.control, p.variant_key, count(*) as users
        from pending as p
        left join counted as k using (app_id, campaign_id, control, variant_key, user_key)
        where k.user_key is null
        group by 1, 2, 3, 4
    ),
    arms as (
        select r.app_id, r.campaign_id, r.control, r.variant_key, sum(r.users)::bigint as users
        from (
            select * from folded
            union all
            select * from added
        ) as r
        group by 1, 2, 3, 4
    )
    select t.app_name, r.campaign_id, nullif(r.variant_key, ''), r.control, r.users
    from arms as r
    join target as t on t.app_id = r.app_id
    order by t.app_name, r.campaign_id, r.control desc, nullif(r.variant_key, '') nulls first;
end
$function$;
alter function cardinal.send_arms(text, text, date, date, boolean) owner to cardinal_owner;
grant execute on function cardinal.send_arms(text, text, date, date, boolean) to cardinal_reader;
comment on function cardinal.send_arms(text, text, date, date, boolean) is
    'Assignment data of the sample ratio check, read from the report state: per app × campaign × arm '
    '(control for control sends, else the send''s variant_id), the users with a send on a report day of '
    'from_date..to_date (each campaign''s report time zone). app and campaign NULL = all; test events only '
    'with include_test. A user sent to two arms counts in both. Without test events the sum of the day '
    'pairs of report_arm_day_users and the pending users they lack; with them the per-user state '
    '(send_arms_from_user_state).';


-- The control report per conversion goal. Campaigns without test events read the counts of every goal in one
-- pass (control_arm_conversions_from_exposures); canvases, include_test and reference run control_arms (or
-- control_arms_reference) once per goal, with the goal's event and window, so that the control report's
-- definitions hold for every event unchanged. The arguments gate the two branches of one query.
create or replace function cardinal.control_arm_conversions(
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
    returns setof cardinal.control_arm_conversions_row
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
alter function cardinal.control_arm_conversions(text, text, date, date, timestamp with time zone, boolean, boolean, interval, text, integer) owner to cardinal_owner;
grant execute on function cardinal.control_arm_conversions(text, text, date, date, timestamp with time zone, boolean, boolean, interval, text, integer) to cardinal_reader;
comment on function cardinal.control_arm_conversions(text, text, date, date, timestamptz, boolean, boolean, interval, text, integer) is
    'The control report per conversion event: for each conversion event of each campaign (ordinal 1 = '
    'primary, campaign_conversion_goals), control_arms with that event and the campaign''s window (or '
    'conversion_window): per arm the matured users and the converters. reference = true computes it with '
    'control_arms_reference over the raw events instead of the report state (for tests). app and campaign '
    'NULL = all; canvas reports that canvas, with the conversion events of its settings row '
    '(campaign_settings keyed by the canvas id). Campaigns without test events read the control counts and '
    'rows of every goal in one pass (control_arm_conversions_from_exposures); canvases and include_test run '
    'control_arms per goal. first_ordinal: only the goals from that ordinal on (2 = the further goals, which '
    'the CLI asks for beside control_arms'' primary goal).';


-- Where the control counts answer a campaign's range. A day is read from report_control_exposure_days when the
-- window is the configured one and every exposure of the day has matured at as_of. The latest window end of
-- a local day d: its exposures' local times plus the window's months and days fill the local interval
-- [A, A + 1 day) with A = d + those months and days, and the hours are added after. A local time maps to UTC
-- monotonically except in a skipped hour, where the mapping overshoots by at most the hour skipped; the
-- interval's length in UTC falls short of 24 hours by exactly that much (one transition per day). So the bound
-- is (A + 1 day) in the zone + hours + that shortfall, and the count days are the days before the range's
-- first day that fails it (split_day): a prefix of the range whatever the zone does. A day none of whose
-- exposures has matured (its earliest window end, that of its first local instant, is after as_of) only adds
-- exposed users, which the counts hold too; those days are a suffix of the range from unmatured_day, never
-- before split_day. Only the days between need the per-user rows: for most campaigns the one day as_of cuts.
create or replace function cardinal.control_exposure_bounds(
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    report_time_zone  text,
    configured_window interval,
    conversion_window interval
)
    returns table (
        time_zone      text,
        window_length  interval,
        lower_time     timestamptz,
        upper_time     timestamptz,
        split_day      date,
        split_time     timestamptz,
        unmatured_day  date,
        unmatured_time timestamptz
    )
    language sql
    stable
as $function$
    select clock.zone, clock.window_length,
           control_exposure_bounds.from_date::timestamp at time zone clock.zone,
           (control_exposure_bounds.to_date + 1)::timestamp at time zone clock.zone,
           split.day,
           split.day::timestamp at time zone clock.zone,
           unmatured.day,
           unmatured.day::timestamp at time zone clock.zone
    from (
        select control_exposure_bounds.report_time_zone as zone,
               coalesce(control_exposure_bounds.configured_window, interval '3 days') as configured,
               coalesce(control_exposure_bounds.conversion_window, control_exposure_bounds.configured_window,
                        interval '3 days') as window_length
    ) as clock
    cross join lateral (
        select coalesce(min(d.day)::date, control_exposure_bounds.to_date + 1) as day
        from generate_series(control_exposure_bounds.from_date::timestamp,
                             control_exposure_bounds.to_date::timestamp, interval '1 day') as d (day)
        cross join lateral (select d.day + date_trunc('day', clock.window_length) as local_start) as image
        cross join lateral (
            select (image.local_start + interval '1 day') at time zone clock.zone as utc_end,
                   image.local_start at time zone clock.zone as utc_start
        ) as utc
        -- An override window compares as text: '1 day' = '24 hours' for =, not for report_window_end.
        where clock.window_length::text <> clock.configured::text
           or utc.utc_end + (clock.window_length - date_trunc('day', clock.window_length))
              + greatest(interval '0', interval '1 day' - (utc.utc_end - utc.utc_start))
              > control_exposure_bounds.as_of
    ) as split
    cross join lateral (
        select coalesce(min(d.day)::date, control_exposure_bounds.to_date + 1) as day
        from generate_series(split.day::timestamp, control_exposure_bounds.to_date::timestamp,
                             interval '1 day') as d (day)
        where (d.day + date_trunc('day', clock.window_length)) at time zone clock.zone
              + (clock.window_length - date_trunc('day', clock.window_length))
              > control_exposure_bounds.as_of
    ) as unmatured;
$function$;
alter function cardinal.control_exposure_bounds(date, date, timestamp with time zone, text, interval, interval) owner to cardinal_owner;
grant execute on function cardinal.control_exposure_bounds(date, date, timestamp with time zone, text, interval, interval) to cardinal_reader;
comment on function cardinal.control_exposure_bounds(date, date, timestamptz, text, interval, interval) is
    'How the control counts answer one campaign''s range from_date..to_date at as_of, in its report_time_zone: '
    'the window (conversion_window, else configured_window, else 3 days), the range''s bounds, split_day (the '
    'first day not wholly matured under the configured window; to_date + 1 when every day is) and '
    'unmatured_day (the first day none of whose exposures has matured), each with its first instant. The days '
    'before split_day and from unmatured_day on are read from report_control_exposure_days, those between '
    'from report_control_exposures. An inlinable SQL function, called once per campaign by '
    'control_arm_sums_from_exposures and control_arm_conversions_from_exposures.';


-- The control report of campaigns from the control counts: report_control_exposure_days for the days wholly
-- matured at as_of (users, converters) or wholly unmatured (exposed users only), report_control_exposures, one
-- row per user, for the days between, and the pending events' rows in place of the folded rows they replace.
-- Reading counts keeps a report's cost from growing with the events: one row per exposed user of the range
-- took 0.9 s for one campaign and 26 s for all campaigns at 10 M events. CUPED's sums (x: the user's
-- pre-exposure conversions) come from the same counts and rows, so that control_arm_covariates costs what
-- control_arms does.
create or replace function cardinal.control_arm_sums_from_exposures(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion_window interval
)
    returns setof cardinal.control_arm_sums_row
    language sql
    stable
    -- No plan hinges on a row estimate: joins and aggregates hashed, jit off with them (the disabled paths'
    -- costs would pass every JIT threshold).
    set enable_nestloop = off
    set jit = off
    set enable_sort = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where control_arm_sums_from_exposures.app is null or a.name = control_arm_sums_from_exposures.app
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.*
        from cardinal.pending_control_exposures(control_arm_sums_from_exposures.campaign) as p
        where p.app_id in (select t.app_id from target as t)
    ),
    -- The campaigns reported (every one with folded or pending exposures), with their settings, the range's
    -- bounds in their zone and the days the counts answer (control_exposure_bounds). A few rows, materialized.
    sources as materialized (
        select t.app_id, t.app_name, c.campaign_id, s.conversion_event,
               coalesce(s.cuped_window, interval '14 days') as pre_exposure_window, bounds.*
        from target as t
        join (
            select g.app_id, g.campaign_id
            from cardinal.report_groups as g
            where g.campaign_id is not null
              and (control_arm_sums_from_exposures.campaign is null
                   or g.campaign_id = control_arm_sums_from_exposures.campaign)
            union
            select p.app_id, p.campaign_id from pending as p
        ) as c on c.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        cross join lateral cardinal.control_exposure_bounds(
            control_arm_sums_from_exposures.from_date, control_arm_sums_from_exposures.to_date,
            control_arm_sums_from_exposures.as_of, coalesce(s.report_time_zone, t.report_time_zone),
            s.conversion_window, control_arm_sums_from_exposures.conversion_window
        ) as bounds
    ),
    -- The counts of the count days: all their users matured before the split, none from the unmatured day on.
    counted as (
        select s.app_name, s.campaign_id, s.conversion_event, s.window_length, s.pre_exposure_window,
               several.arms as several_arms,
               case when not several.arms then nullif(d.variant_key, '') end as variant_id,
               case when not several.arms then d.control end as control,
               d.users as exposed,
               case when matured.days then d.users else 0 end as users,
               case when matured.days then d.converters else 0 end as converters,
               case when matured.days then d.sum_x else 0 end as sum_x,
               case when matured.days then d.sum_x_squares else 0 end as sum_x_squares,
               case when matured.days then d.sum_xy else 0 end as sum_xy
        from cardinal.report_control_exposure_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        cross join lateral (select d.second_arm_day <= control_arm_sums_from_exposures.to_date as arms) as several
        cross join lateral (select d.exposed_day < s.split_day as days) as matured
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arm_sums_from_exposures.from_date
          and d.exposed_day <= control_arm_sums_from_exposures.to_date
          and (d.exposed_day < s.split_day or d.exposed_day >= s.unmatured_day)
    ),
    -- The folded rows of the days between: an index range per campaign, each its own days, in a loop over the
    -- campaigns (a lateral subquery that `offset 0` keeps from being flattened into a hash join, which read the
    -- whole table).
    folded as (
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.converted_at, r.pre_exposure_conversions
        from sources as s
        cross join lateral (
            select *
            from cardinal.report_control_exposures as r
            where r.app_id = s.app_id
              and r.campaign_id = s.campaign_id
              and r.exposed_at >= s.split_time
              and r.exposed_at < s.unmatured_time
            offset 0
        ) as r
    ),
    -- The folded rows that the pending rows replace, by primary key.
    replaced as (
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               r.pre_exposure_conversions
        from cardinal.report_control_exposures as r
        join pending as p on p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.user_key = r.user_key
        where r.app_id = any(array(select distinct p.app_id from pending as p))
          and r.user_key = any(array(select distinct p.user_key from pending as p))
    ),
    -- One by one: the folded rows of the row days but the replaced ones, every pending row, and the replaced
    -- rows of the count days taken out of the counts.
    items as (
        select f.app_id, f.campaign_id, f.exposed_at, f.control, f.variant_id, f.second_arm_at, f.converted_at,
               f.pre_exposure_conversions as x, 1 as sign, true as in_row_days
        from folded as f
        where not exists (
            select from pending as p
            where p.app_id = f.app_id and p.campaign_id = f.campaign_id and p.user_key = f.user_key
        )
        union all
        select p.app_id, p.campaign_id, p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at,
               p.pre_exposure_conversions, 1, null
        from pending as p
        union all
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               r.pre_exposure_conversions, -1, false
        from replaced as r
    ),
    -- A user counts in the range when the first exposure is in it, in several arms when the second arm's
    -- first exposure is before the range's end, and as a converter when the first conversion after the
    -- exposure is within the window, which ends on the campaign's clock (report_window_end).
    cohort as (
        select s.app_name, s.campaign_id, s.conversion_event, s.window_length, s.pre_exposure_window,
               several.arms as several_arms,
               case when not several.arms then x.variant_id end as variant_id,
               case when not several.arms then x.control end as control,
               x.sign as exposed,
               case when matured.user then x.sign else 0 end as users,
               case when matured.user and converted.user then x.sign else 0 end as converters,
               case when matured.user then x.sign * x.x else 0 end as sum_x,
               case when matured.user then x.sign * x.x * x.x else 0 end as sum_x_squares,
               case when matured.user and converted.user then x.sign * x.x else 0 end as sum_xy
        from items as x
        join sources as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
        cross join lateral (select coalesce(x.second_arm_at < s.upper_time, false) as arms) as several
        cross join lateral (
            select cardinal.report_window_end(x.exposed_at, s.window_length, s.time_zone) as time
        ) as window_end
        cross join lateral (select window_end.time <= control_arm_sums_from_exposures.as_of as user) as matured
        cross join lateral (select coalesce(x.converted_at <= window_end.time, false) as user) as converted
        where x.exposed_at >= s.lower_time and x.exposed_at < s.upper_time
          and (x.in_row_days is null
               or x.in_row_days = (x.exposed_at >= s.split_time and x.exposed_at < s.unmatured_time))
    ),
    arm_groups as (
        select app_name, campaign_id, conversion_event, window_length, pre_exposure_window, variant_id, control,
               several_arms,
               sum(users)::bigint as users,
               case when conversion_event is not null then sum(converters)::bigint end as converters,
               sum(exposed)::bigint as exposed_users,
               sum(sum_x)::bigint as sum_x, sum(sum_x_squares)::bigint as sum_x_squares,
               sum(sum_xy)::bigint as sum_xy
        from (
            select app_name, campaign_id, conversion_event, window_length, pre_exposure_window, variant_id,
                   control, several_arms, exposed, users, converters, sum_x, sum_x_squares, sum_xy
            from counted
            union all
            select app_name, campaign_id, conversion_event, window_length, pre_exposure_window, variant_id,
                   control, several_arms, exposed, users, converters, sum_x, sum_x_squares, sum_xy
            from cohort
        ) as parts
        group by app_name, campaign_id, conversion_event, window_length, pre_exposure_window, variant_id, control,
                 several_arms
        -- An arm whose only users the pending events moved elsewhere.
        having sum(exposed) <> 0
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, pre_exposure_window, variant_id, control,
               several_arms, users, converters, exposed_users, sum_x, sum_x_squares, sum_xy,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, campaign_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name, campaign_id, conversion_event, window_length, pre_exposure_window, variant_id, control,
           users, converters, exposed_users, users_in_several_arms, sum_x, sum_x_squares, sum_xy
    from arms
    where not several_arms
    order by app_name, campaign_id, control desc, variant_id nulls first;
$function$;
alter function cardinal.control_arm_sums_from_exposures(text, text, date, date, timestamp with time zone, interval) owner to cardinal_owner;
grant execute on function cardinal.control_arm_sums_from_exposures(text, text, date, date, timestamp with time zone, interval) to cardinal_reader;
comment on function cardinal.control_arm_sums_from_exposures(text, text, date, date, timestamptz, interval) is
    'control_arms of campaigns (not a canvas), without test events, for each campaign''s conversion event and '
    'the given window (else the campaign''s), with CUPED''s sums over each arm''s users (pre_exposure_window: '
    'the campaign''s cuped_window, else 14 days; sum_x, sum_x_squares, sum_xy as control_arm_covariates): from '
    'report_control_exposure_days for the days wholly matured at as_of with the configured window and the '
    'days none of whose exposures has (control_exposure_bounds), else from report_control_exposures, with the '
    'pending events'' change (pending_control_exposures); the window ends on the campaign''s clock '
    '(report_window_end). control_arms and control_arm_covariates call it when they can.';


-- The per-user state's control report: any canvas, test events and conversion event. Its users are those of
-- control_cohort_from_user_state, counted per arm by control_arms_of_cohort. The settings below are this
-- function's because both inner functions are inlined into its query: they steer the plan of the whole.
create or replace function cardinal.control_arms_from_user_state(
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
    -- Hash joins whatever the row estimates; the per-row unnest and VALUES stay (lateral) nested loops.
    set enable_nestloop = off
    -- Those loops then carry the planner's disable cost, which would pass every JIT threshold.
    set jit = off
as $function$
    select *
    from cardinal.control_arms_of_cohort(control_arms_from_user_state.app, control_arms_from_user_state.campaign,
                                         control_arms_from_user_state.from_date,
                                         control_arms_from_user_state.to_date, control_arms_from_user_state.as_of,
                                         control_arms_from_user_state.conversion,
                                         control_arms_from_user_state.conversion_window,
                                         control_arms_from_user_state.include_test,
                                         control_arms_from_user_state.canvas, false);
$function$;
alter function cardinal.control_arms_from_user_state(text, text, date, date, timestamp with time zone, text, interval, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.control_arms_from_user_state(text, text, date, date, timestamp with time zone, text, interval, boolean, text) to cardinal_reader;
comment on function cardinal.control_arms_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'control_arms computed from the per-user report state (report_user_facts_of, report_conversion_facts): any '
    'canvas, include_test and conversion event. control_arms calls it when the control counts cannot answer. '
    'The users of control_cohort_from_user_state counted by control_arms_of_cohort; the window ends by '
    'report_window_end in the report days'' zone.';


-- The control report's counts of a cohort: one body for the per-user state's cohort and the reference's
-- raw-event cohort, so that both count users, converters and users in several arms alike. reference picks
-- the cohort; a constant in both callers, so once inlined the planner drops the other branch.
create or replace function cardinal.control_arms_of_cohort(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion        text,
    conversion_window interval,
    include_test      boolean,
    canvas            text,
    reference         boolean
)
    returns setof cardinal.control_arms_row
    language sql
    stable
as $function$
    with cohort as (
        select *
        from cardinal.control_cohort_from_user_state(control_arms_of_cohort.app, control_arms_of_cohort.campaign,
                                                     control_arms_of_cohort.from_date, control_arms_of_cohort.to_date,
                                                     control_arms_of_cohort.as_of, control_arms_of_cohort.conversion,
                                                     control_arms_of_cohort.conversion_window,
                                                     control_arms_of_cohort.include_test,
                                                     control_arms_of_cohort.canvas)
        where not control_arms_of_cohort.reference
        union all
        select *
        from cardinal.control_cohort_reference(control_arms_of_cohort.app, control_arms_of_cohort.campaign,
                                               control_arms_of_cohort.from_date, control_arms_of_cohort.to_date,
                                               control_arms_of_cohort.as_of, control_arms_of_cohort.conversion,
                                               control_arms_of_cohort.conversion_window,
                                               control_arms_of_cohort.include_test, control_arms_of_cohort.canvas)
        where control_arms_of_cohort.reference
    ),
    -- One row per arm, and one per source and arm of the users in several arms; a window over the source
    -- adds the latter up.
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
           case when control_arms_of_cohort.canvas is null then source_id end,
           conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms,
           case when control_arms_of_cohort.canvas is not null then source_id end
    from arms
    where not several_arms
    order by app_name, source_id, control desc, variant_id nulls first;
$function$;
alter function cardinal.control_arms_of_cohort(text, text, date, date, timestamp with time zone, text, interval, boolean, text, boolean) owner to cardinal_owner;
grant execute on function cardinal.control_arms_of_cohort(text, text, date, date, timestamp with time zone, text, interval, boolean, text, boolean) to cardinal_reader;
comment on function cardinal.control_arms_of_cohort(text, text, date, date, timestamptz, text, interval, boolean, text, boolean) is
    'The rows of control_arms counted from a cohort of exposed users: per source and arm the matured users, '
    'the converters (NULL without a conversion event) and every exposed user, and per source the users in '
    'several arms, who leave their arm. The cohort is control_cohort_from_user_state, or with reference '
    'control_cohort_reference (raw events). control_arms_from_user_state and control_arms_reference call it; '
    'an inlinable SQL function, so that the branch not taken is planned away.';


-- The per-user state's cohort of the control report: one row per user first exposed in the range and source
-- (campaign, or the canvas), with its arm, whether it is in several arms, has matured at as_of and converted
-- within the window, which ends on the campaign's clock (the canvas's: the app's zone, its report days' zone).
create or replace function cardinal.control_cohort_from_user_state(
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
        where cardinal.check_report_range(control_cohort_from_user_state.from_date,
                                          control_cohort_from_user_state.to_date)
          and cardinal.check_control_source(control_cohort_from_user_state.campaign,
                                            control_cohort_from_user_state.canvas)
          and (control_cohort_from_user_state.app is null or a.name = control_cohort_from_user_state.app)
    ),
    -- Each user's first exposure per arm and report group, before the end of the range: the first
    -- impression (the first send too for push) in the variant arm, the first control impression (control
    -- send for push) in the control arm. The source's settings ride along, so that no later step joins the
    -- users back to their campaign (a join of per-user sets is what a wrong row estimate turns quadratic).
    -- A canvas event has no campaign_id, so coalesce(campaign_id, canvas_id) is the source of either mode.
    group_exposures as (
        select t.app_id, t.app_name, coalesce(u.campaign_id, u.canvas_id) as source_id, u.user_key, x.control,
               x.variant_id, x.first_time, source.conversion_event, source.window_length, day.zone as time_zone,
               source.lower_time
        from target as t
        join cardinal.report_user_facts_of(control_cohort_from_user_state.campaign,
                                           control_cohort_from_user_state.canvas) as u
            on u.app_id = t.app_id
        left join cardinal.campaign_settings as s
            on s.app_id = u.app_id and s.campaign_id = coalesce(u.campaign_id, u.canvas_id)
        cross join lateral (
            select coalesce(case when control_cohort_from_user_state.canvas is null then s.report_time_zone end,
                            t.report_time_zone) as zone
        ) as day
        cross join lateral (
            select coalesce(control_cohort_from_user_state.conversion, s.conversion_event) as conversion_event,
                   coalesce(control_cohort_from_user_state.conversion_window, s.conversion_window, interval '3 days')
                       as window_length,
                   control_cohort_from_user_state.from_date::timestamp at time zone day.zone as lower_time,
                   (control_cohort_from_user_state.to_date + 1)::timestamp at time zone day.zone as upper_time
        ) as source
        cross join lateral (
            values (false, u.variant_id,
                    least(u.first_impression_at, case when u.channel = 'push' then u.first_send_at end)),
                   (true, null::text,
                    least(u.first_control_impression_at,
                          case when u.channel = 'push' then u.first_control_send_at end))
        ) as x (control, variant_id, first_time)
        where case when control_cohort_from_user_state.canvas is null
                   then u.campaign_id is not null
                        and (control_cohort_from_user_state.campaign is null
                             or u.campaign_id = control_cohort_from_user_state.campaign)
                   else u.canvas_id = control_cohort_from_user_state.canvas end
          and (control_cohort_from_user_state.include_test or not u.test)
          and x.first_time < source.upper_time
    ),
    arm_exposures as (
        select app_id, app_name, source_id, user_key, control, variant_id, conversion_event, window_length,
               time_zone, lower_time, min(first_time) as first_time
        from group_exposures
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ),
    exposed as materialized (
        select app_id, app_name, source_id, user_key, conversion_event, window_length, time_zone,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, app_name, source_id, user_key, conversion_event, window_length, time_zone, lower_time
        having min(first_time) >= lower_time
    ),
    -- Whether a user converted: the user's exposures and conversions in one stream, sorted by time within
    -- each user and conversion name, newest first; the smallest conversion time from the top down to an
    -- exposure is the first conversion at or after it (a conversion at the very same instant sorts first).
    timeline as (
        select x.app_id, x.user_key, x.conversion_event as name, x.exposed_at as time, false as is_conversion,
               x.app_name, x.source_id, x.conversion_event, x.window_length, x.variant_id, x.control, x.arms,
               x.exposed_at, cardinal.report_window_end(x.exposed_at, x.window_length, x.time_zone) as window_end
        from exposed as x
        where x.conversion_event is not null
        union all
        select v.app_id, v.user_key, v.conversion_name, conversion.time, true,
               null, null, null, null, null, null, null, null, null
        from cardinal.report_conversion_facts as v
        cross join lateral unnest(v.times) as conversion (time)
        where v.app_id in (select app_id from target)
          and (control_cohort_from_user_state.include_test or not v.test)
          -- Only a conversion that can decide whether an exposed user converted: the user's, of the event
          -- their campaign counts. Without this, a report of one campaign sorted every conversion of the app.
          and (v.app_id, v.user_key, v.conversion_name) in (
              select x.app_id, x.user_key, x.conversion_event from exposed as x
          )
    )
    select app_name, source_id, conversion_event, window_length, variant_id, control,
           arms > 1 as several_arms,
           window_end <= control_cohort_from_user_state.as_of as matured,
           arms = 1
               and window_end <= control_cohort_from_user_state.as_of
               and coalesce(next_conversion <= window_end, false) as converted,
           app_id, user_key, exposed_at
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
           cardinal.report_window_end(exposed_at, window_length, time_zone) <= control_cohort_from_user_state.as_of,
           false, app_id, user_key, exposed_at
    from exposed
    where conversion_event is null;
$function$;
alter function cardinal.control_cohort_from_user_state(text, text, date, date, timestamp with time zone, text, interval, boolean, text) owner to cardinal_owner;
grant execute on function cardinal.control_cohort_from_user_state(text, text, date, date, timestamp with time zone, text, interval, boolean, text) to cardinal_reader;
comment on function cardinal.control_cohort_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'The users control_arms_from_user_state counts, from the per-user report state (report_user_facts_of, '
    'report_conversion_facts): per user first exposed in from_date..to_date of a campaign (or the canvas), '
    'its source, settings and arm, whether it is in several arms, its window has elapsed by as_of and it '
    'converted within the window (report_window_end in the report days'' zone), and the user (app_id, '
    'user_key) with its first exposure (exposed_at), for control_arm_covariates. An inlinable SQL function: '
    'the plan settings are its caller''s.';


-- CUPED's covariate (issue 47; docs/experiment-statistics.md): per arm of control_arms, sums over its matured
-- users in one arm only of x, the user's conversions of the campaign's conversion event in the pre-exposure
-- window [exposed_at - window, exposed_at), and y, whether the user converted as control_arms counts it. Sums,
-- not users: the estimator needs no more (CovariateSums), and a report never carries a row per user.
create or replace function cardinal.control_arm_covariates(
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
    -- PL/pgSQL, as control_arms, so that the query is planned with the arguments' values: the sources they rule
    -- out are planned away instead of costing every call the planning of all three (a SQL function's body is
    -- planned without them).
    language plpgsql
    stable
    -- Hash joins whatever the row estimates (as control_arms_from_user_state); the per-user lookups are
    -- subqueries and lateral scans, which stay nested loops.
    set enable_nestloop = off
    -- Those loops then carry the planner's disable cost, which would pass every JIT threshold.
    set jit = off
    -- Hashed aggregates too: a sort of the cohort's users took a third of the time.
    set enable_sort = off
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_control_source(campaign, canvas);
    -- The control counts hold x for each campaign's own CUPED window: without one of the call's own, they answer
    -- what they answer for control_arms.
    if cuped_window is null and cardinal.control_counts_answer(app, campaign, conversion, include_test, canvas) then
        return query
        select c.app_name, c.campaign_id, c.conversion_event, c.pre_exposure_window, c.variant_id, c.control,
               c.users, c.converters, c.sum_x, c.sum_x_squares, c.sum_xy, null::text
        from cardinal.control_arm_sums_from_exposures(app, campaign, from_date, to_date, as_of, conversion_window)
            as c
        where c.conversion_event is not null and c.users > 0
        order by c.app_name, c.campaign_id, c.control desc, c.variant_id nulls first;
        return;
    end if;
    return query
    select *
    from cardinal.control_arm_covariates_of_cohort(control_arm_covariates.app, control_arm_covariates.campaign,
                                                   control_arm_covariates.from_date, control_arm_covariates.to_date,
                                                   control_arm_covariates.as_of, control_arm_covariates.conversion,
                                                   control_arm_covariates.conversion_window,
                                                   control_arm_covariates.include_test, control_arm_covariates.canvas,
                                                   control_arm_covariates.cuped_window, false);
end
$function$;
alter function cardinal.control_arm_covariates(text, text, date, date, timestamp with time zone, text, interval, boolean, text, interval) owner to cardinal_owner;
grant execute on function cardinal.control_arm_covariates(text, text, date, date, timestamp with time zone, text, interval, boolean, text, interval) to cardinal_reader;
comment on function cardinal.control_arm_covariates(text, text, date, date, timestamptz, text, interval, boolean, text, interval) is
    'CUPED''s sufficient statistics per arm of control_arms (the same arguments, and cuped_window), read from '
    'the report state: over the arm''s matured users that are in one arm only (users, as control_arms counts '
    'them), y = 1 for a converter (converters = Σy = Σy²) and x = the user''s conversions of the campaign''s '
    'conversion event in [exposed_at - pre_exposure_window, exposed_at) before the first exposure, the window '
    'in elapsed time (cuped_window, else campaign_settings.cuped_window, else 14 days): sum_x = Σx, '
    'sum_x_squares = Σx², sum_xy = Σxy. Only campaigns with a conversion event, and arms with matured users. '
    'What control_arms reads from the control counts, without a cuped_window of the call''s own, reads their '
    'sums of x (report_control_exposure_days, report_control_exposures.pre_exposure_conversions: '
    'control_arm_sums_from_exposures); the rest each user''s conversions (control_arm_covariates_of_cohort). '
    'control_arm_covariates_reference computes the same from raw events; SQL/docs/reports.md defines the '
    'columns.';


-- The covariate sums of a cohort: one body for the report state and the raw events (reference), so that both
-- pick, measure and add up users alike. The cohort is the control counts' per-user rows
-- (report_control_exposures with the pending events' change) for the campaigns control_arms reads them for,
-- control_cohort_from_user_state for the others, or control_cohort_reference. The arguments gate the sources:
-- constants in both callers, so the branches not taken are planned away (or skipped by one-time filters).
create or replace function cardinal.control_arm_covariates_of_cohort(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion        text,
    conversion_window interval,
    include_test      boolean,
    canvas            text,
    cuped_window      interval,
    reference         boolean
)
    returns setof cardinal.control_arm_covariates_row
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(control_arm_covariates_of_cohort.from_date,
                                          control_arm_covariates_of_cohort.to_date)
          and cardinal.check_control_source(control_arm_covariates_of_cohort.campaign,
                                            control_arm_covariates_of_cohort.canvas)
          and (control_arm_covariates_of_cohort.app is null or a.name = control_arm_covariates_of_cohort.app)
    ),
    -- The campaigns whose users report_control_exposures holds with the conversion counted (no canvas, no test
    -- events, the campaign's own conversion event), with their clock and the range's bounds. A few rows.
    counted_sources as materialized (
        select t.app_id, t.app_name, s.campaign_id, s.conversion_event,
               coalesce(control_arm_covariates_of_cohort.conversion_window, s.conversion_window) as window_length,
               zone.name as time_zone,
               control_arm_covariates_of_cohort.from_date::timestamp at time zone zone.name as lower_time,
               (control_arm_covariates_of_cohort.to_date + 1)::timestamp at time zone zone.name as upper_time
        from target as t
        join cardinal.campaign_settings as s on s.app_id = t.app_id
        cross join lateral (select coalesce(s.report_time_zone, t.report_time_zone) as name) as zone
        where not control_arm_covariates_of_cohort.reference
          and control_arm_covariates_of_cohort.canvas is null
          and not control_arm_covariates_of_cohort.include_test
          and s.conversion_event is not null
          and (control_arm_covariates_of_cohort.conversion is null
               or s.conversion_event = control_arm_covariates_of_cohort.conversion)
          and (control_arm_covariates_of_cohort.campaign is null
               or s.campaign_id = control_arm_covariates_of_cohort.campaign)
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.app_id, p.campaign_id, p.user_key, p.exposed_at, p.control, p.variant_id, p.second_arm_at,
               p.converted_at
        from cardinal.pending_control_exposures(control_arm_covariates_of_cohort.campaign) as p
        where not control_arm_covariates_of_cohort.reference
          and control_arm_covariates_of_cohort.canvas is null
          and not control_arm_covariates_of_cohort.include_test
          and p.app_id in (select s.app_id from counted_sources as s)
    ),
    -- The folded rows of each campaign's range, an index range per campaign (a lateral subquery that
    -- `offset 0` keeps from being flattened into a hash join, which would read the whole table), and the
    -- pending rows.
    counted_rows as (
        select s.*, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at
        from counted_sources as s
        cross join lateral (
            select *
            from cardinal.report_control_exposures as r
            where r.app_id = s.app_id
              and r.campaign_id = s.campaign_id
              and r.exposed_at >= s.lower_time
              and r.exposed_at < s.upper_time
            offset 0
        ) as r
        where not exists (
            select from pending as p
            where p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.user_key = r.user_key
        )
        union all
        select s.*, p.user_key, p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at
        from counted_sources as s
        join pending as p on p.app_id = s.app_id and p.campaign_id = s.campaign_id
        where p.exposed_at >= s.lower_time and p.exposed_at < s.upper_time
    ),
    -- The matured users in one arm only, with whether they converted within the window, from each source.
    cohort as (
        select r.app_id, r.app_name, r.campaign_id as source_id, r.conversion_event, r.variant_id, r.control,
               r.user_key, r.exposed_at, coalesce(r.converted_at <= window_end.time, false) as converted
        from counted_rows as r
        cross join lateral (
            select cardinal.report_window_end(r.exposed_at, r.window_length, r.time_zone) as time
        ) as window_end
        where window_end.time <= control_arm_covariates_of_cohort.as_of
          and not coalesce(r.second_arm_at < r.upper_time, false)
        union all
        select c.app_id, c.app_name, c.source_id, c.conversion_event, c.variant_id, c.control, c.user_key,
               c.exposed_at, c.converted
        from cardinal.control_cohort_from_user_state(control_arm_covariates_of_cohort.app,
                                                     control_arm_covariates_of_cohort.campaign,
                                                     control_arm_covariates_of_cohort.from_date,
                                                     control_arm_covariates_of_cohort.to_date,
                                                     control_arm_covariates_of_cohort.as_of,
                                                     control_arm_covariates_of_cohort.conversion,
                                                     control_arm_covariates_of_cohort.conversion_window,
                                                     control_arm_covariates_of_cohort.include_test,
                                                     control_arm_covariates_of_cohort.canvas) as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.source_id
        where not control_arm_covariates_of_cohort.reference
          -- Only what the control counts do not answer (counted_sources).
          and (control_arm_covariates_of_cohort.canvas is not null
               or control_arm_covariates_of_cohort.include_test
               or control_arm_covariates_of_cohort.conversion is not null)
          and (control_arm_covariates_of_cohort.canvas is not null
               or control_arm_covariates_of_cohort.include_test
               or s.conversion_event is distinct from control_arm_covariates_of_cohort.conversion)
          and c.matured and not c.several_arms and c.conversion_event is not null
        union all
        select c.app_id, c.app_name, c.source_id, c.conversion_event, c.variant_id, c.control, c.user_key,
               c.exposed_at, c.converted
        from cardinal.control_cohort_reference(control_arm_covariates_of_cohort.app,
                                               control_arm_covariates_of_cohort.campaign,
                                               control_arm_covariates_of_cohort.from_date,
                                               control_arm_covariates_of_cohort.to_date,
                                               control_arm_covariates_of_cohort.as_of,
                                               control_arm_covariates_of_cohort.conversion,
                                               control_arm_covariates_of_cohort.conversion_window,
                                               control_arm_covariates_of_cohort.include_test,
                                               control_arm_covariates_of_cohort.canvas) as c
        where control_arm_covariates_of_cohort.reference
          and c.matured and not c.several_arms and c.conversion_event is not null
    ),
    -- Each user's pre-exposure window, in elapsed time (the CHECK allows no months, so its epoch is exact):
    -- the same instants whatever the session's TimeZone.
    measured_users as materialized (
        select c.*, window_length.pre_exposure_window,
               c.exposed_at - make_interval(secs => extract(epoch from window_length.pre_exposure_window))
                   as window_start
        from cohort as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.source_id
        cross join lateral (
            select coalesce(control_arm_covariates_of_cohort.cuped_window, s.cuped_window, interval '14 days')
                       as pre_exposure_window
        ) as window_length
    ),
    -- The report state's conversions of the cohort's users, folded and unfolded: the folded rows in one index
    -- scan of report_conversion_state's primary key for all the users' keys at once (a probe per key, not a
    -- scan of the table), the unfolded ones as the few pending rows.
    conversions as (
        select v.app_id, v.user_key, v.conversion_name, v.test, v.times
        from cardinal.report_conversion_state as v
        where not control_arm_covariates_of_cohort.reference
          and v.app_id = any(array(select distinct u.app_id from measured_users as u))
          and v.user_key = any(array(select distinct u.user_key from measured_users as u))
          and v.conversion_name = any(array(select distinct u.conversion_event from measured_users as u))
        union all
        select v.app_id, v.user_key, v.conversion_name, v.test, v.times
        from cardinal.report_pending_conversion_facts as v
        where not control_arm_covariates_of_cohort.reference
          and v.app_id in (select t.app_id from target as t)
    ),
    -- Each user's conversions in its window: the users and their conversion rows hashed together.
    state_covariates as (
        select u.app_id, u.source_id, u.user_key, count(*) as conversions
        from measured_users as u
        join conversions as v
            on v.app_id = u.app_id and v.user_key = u.user_key and v.conversion_name = u.conversion_event
        cross join lateral unnest(v.times) as conversion (time)
        where (control_arm_covariates_of_cohort.include_test or not v.test)
          and conversion.time >= u.window_start and conversion.time < u.exposed_at
        group by u.app_id, u.source_id, u.user_key
    ),
    -- x per user: from the report state, or for the reference from its raw events (identified_events_of_user,
    -- by index).
    covariates as (
        select u.app_name, u.source_id, u.conversion_event, u.pre_exposure_window, u.variant_id, u.control,
               u.converted,
               case when control_arm_covariates_of_cohort.reference then (
                   select count(*)
                   from cardinal.identified_events_of_user(u.app_id, u.user_key) as v
                   where v.type = 'conversion'
                     and v.conversion_name = u.conversion_event
                     and v.time >= u.window_start
                     and v.time < u.exposed_at
                     and (control_arm_covariates_of_cohort.include_test or not v.test)
               ) else coalesce(c.conversions, 0) end as x
        from measured_users as u
        left join state_covariates as c
            on c.app_id = u.app_id and c.source_id = u.source_id and c.user_key = u.user_key
    )
    select app_name,
           case when control_arm_covariates_of_cohort.canvas is null then source_id end,
           conversion_event, pre_exposure_window, variant_id, control,
           count(*),
           count(*) filter (where converted),
           sum(x)::bigint,
           sum(x * x)::bigint,
           coalesce(sum(x) filter (where converted), 0)::bigint,
           case when control_arm_covariates_of_cohort.canvas is not null then source_id end
    from covariates
    group by app_name, source_id, conversion_event, pre_exposure_window, variant_id, control
    order by app_name, source_id, control desc, variant_id nulls first;
$function$;
alter function cardinal.control_arm_covariates_of_cohort(text, text, date, date, timestamp with time zone, text, interval, boolean, text, interval, boolean) owner to cardinal_owner;
grant execute on function cardinal.control_arm_covariates_of_cohort(text, text, date, date, timestamp with time zone, text, interval, boolean, text, interval, boolean) to cardinal_reader;
comment on function cardinal.control_arm_covariates_of_cohort(text, text, date, date, timestamptz, text, interval, boolean, text, interval, boolean) is
    'The rows of control_arm_covariates from a cohort: report_control_exposures (with the pending events'' '
    'change) for campaigns without test events on their own conversion event, else '
    'control_cohort_from_user_state; with reference, control_cohort_reference and each user''s raw events '
    '(identified_events_of_user). control_arm_covariates and control_arm_covariates_reference call it; an '
    'inlinable SQL function, so that the branches not taken are planned away.';


-- The control report of the conversion goals from first_ordinal on, for campaigns without test events, in one
-- pass over the goals: the counts of the primary goal (report_control_exposure_days) and of the further ones
-- (report_control_goal_days) for the days control_exposure_bounds gives, report_control_exposures for the
-- days between, with the pending events' change, as control_arm_sums_from_exposures reads them.
create or replace function cardinal.control_arm_conversions_from_exposures(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion_window interval,
    first_ordinal     integer
)
    returns setof cardinal.control_arm_conversions_row
    language sql
    stable
    -- No plan hinges on a row estimate: joins and aggregates hashed, jit off with them (the disabled paths'
    -- costs would pass every JIT threshold).
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
        -- Every column but CUPED's x, which these counts do not read.
        select p.app_id, p.campaign_id, p.user_key, p.exposed_at, p.control, p.variant_id, p.second_arm_at,
               p.second_arm_control, p.second_arm_variant_id, p.conversion_event, p.converted_at,
               p.further_converted_at
        from cardinal.pending_control_exposures(control_arm_conversions_from_exposures.campaign) as p
        where p.app_id in (select t.app_id from target as t)
    ),
    -- The campaigns with goals, their window, the range's bounds in their zone and the days the counts answer
    -- (control_arm_sums_from_exposures', by the same control_exposure_bounds).
    sources as materialized (
        select t.app_id, t.app_name, s.campaign_id, bounds.*
        from target as t
        join cardinal.campaign_settings as s on s.app_id = t.app_id
        cross join lateral cardinal.control_exposure_bounds(
            control_arm_conversions_from_exposures.from_date, control_arm_conversions_from_exposures.to_date,
            control_arm_conversions_from_exposures.as_of, coalesce(s.report_time_zone, t.report_time_zone),
            s.conversion_window, control_arm_conversions_from_exposures.conversion_window
        ) as bounds
        where (control_arm_conversions_from_exposures.campaign is null
               or s.campaign_id = control_arm_conversions_from_exposures.campaign)
          and exists (select from goals as g where g.app_id = s.app_id and g.campaign_id = s.campaign_id)
    ),
    -- The users and primary converters of the count days, of one arm each (users in several arms before the
    -- range's end are not reported); those from the unmatured day on are exposed, not matured.
    counted as materialized (
        select d.app_id, d.campaign_id, d.control, d.variant_key, d.users, d.converters,
               d.exposed_day < s.split_day as matured
        from cardinal.report_control_exposure_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arm_conversions_from_exposures.from_date
          and d.exposed_day <= control_arm_conversions_from_exposures.to_date
          and (d.exposed_day < s.split_day or d.exposed_day >= s.unmatured_day)
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
    -- The folded rows of the days between: an index range per campaign, each its own days, in a loop over the
    -- campaigns (`offset 0` keeps the lateral subquery from being flattened into a hash join of the table).
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
              and r.exposed_at < s.unmatured_time
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
    -- rows of the count days taken out of the counts.
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
    -- The items of the range in one arm, with their window's end on the campaign's clock (report_window_end).
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
          and (x.in_row_days is null
               or x.in_row_days = (x.exposed_at >= s.split_time and x.exposed_at < s.unmatured_time))
          and not coalesce(x.second_arm_at < s.upper_time, false)
    ),
    -- Per arm: the exposed and matured users (ordinal NULL), and per goal the converters.
    parts as (
        select app_id, campaign_id, control, variant_key, null::smallint as ordinal,
               users as exposed, case when matured then users else 0 end as users, 0::bigint as converters
        from counted
        union all
        select app_id, campaign_id, control, variant_key, 1::smallint, 0, 0, converters
        from counted
        where converters <> 0 and matured
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
alter function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamp with time zone, interval, integer) owner to cardinal_owner;
grant execute on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamp with time zone, interval, integer) to cardinal_reader;
comment on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval, integer) is
    'control_arm_conversions of campaigns (not a canvas), without test events, for the conversion goals from '
    'first_ordinal on (1 = every goal, 2 = the further ones) and the given window (else the campaign''s): '
    'from report_control_exposure_days and report_control_goal_days for the days wholly matured at as_of with '
    'the configured window, from report_control_exposure_days (exposed users only) for the days none of whose '
    'exposures has (control_exposure_bounds), else from report_control_exposures, with the pending events'' '
    'change (pending_control_exposures). control_arm_conversions calls it when it can.';


-- send_arms from the per-user state, which keeps test groups: what send_arms runs with include_test (the day
-- pairs leave test groups out).
create or replace function cardinal.send_arms_from_user_state(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    include_test boolean default false
)
    returns setof cardinal.send_arms_row
    language sql
    stable
    -- Hash the users whatever the estimates: a sort of every state row by user is what this replaces.
    set enable_sort = off
    set enable_nestloop = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name,
               -- The report days of the range, for the containment tests on the state's day sets.
               daterange(send_arms_from_user_state.from_date, send_arms_from_user_state.to_date, '[]') as days
        from cardinal.apps as a
        where cardinal.check_report_range(send_arms_from_user_state.from_date, send_arms_from_user_state.to_date)
          and (send_arms_from_user_state.app is null or a.name = send_arms_from_user_state.app)
    ),
    -- report_user_facts' rows of campaigns, only the columns counted: every folded row, or one campaign's by
    -- its groups (an index condition on report_user_state.group_id), and the pending events' rows.
    facts as (
        select g.app_id, g.campaign_id, g.variant_id, u.user_key, u.send_days, u.control_send_days
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        where send_arms_from_user_state.campaign is null
          and g.campaign_id is not null
          and (send_arms_from_user_state.include_test or not g.test)
        union all
        select g.app_id, g.campaign_id, g.variant_id, u.user_key, u.send_days, u.control_send_days
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        where send_arms_from_user_state.campaign is not null
          and u.group_id = any(array(
                  select s.group_id
                  from cardinal.report_groups as s
                  where s.campaign_id = send_arms_from_user_state.campaign
              ))
          and g.campaign_id = send_arms_from_user_state.campaign
          and (send_arms_from_user_state.include_test or not g.test)
        union all
        select p.app_id, p.campaign_id, p.variant_id, p.user_key, p.send_days, p.control_send_days
        from cardinal.report_pending_user_facts as p
        where p.campaign_id is not null
          and (send_arms_from_user_state.campaign is null or p.campaign_id = send_arms_from_user_state.campaign)
          and (send_arms_from_user_state.include_test or not p.test)
    ),
    -- Each user once per app, campaign and variant, however many groups (channel, platform, versions) and
    -- pending rows hold its sends.
    users as materialized (
        select f.app_id, f.campaign_id, f.variant_id, f.user_key,
               coalesce(bool_or(t.days @> any(f.send_days)), false) as sent,
               coalesce(bool_or(t.days @> any(f.control_send_days)), false) as control_sent
        from facts as f
        join target as t on t.app_id = f.app_id
        group by f.app_id, f.campaign_id, f.variant_id, f.user_key
    ),
    arms as (
        select s.app_id, s.campaign_id, s.variant_id, false as control, count(*) as users
        from users as s
        where s.sent
        group by s.app_id, s.campaign_id, s.variant_id
        union all
        -- The control arm has no variant: a user with control sends under two variant ids counts once.
        select c.app_id, c.campaign_id, null, true, count(*)
        from (
            select distinct s.app_id, s.campaign_id, s.user_key
            from users as s
            where s.control_sent
        ) as c
        group by c.app_id, c.campaign_id
    )
    select t.app_name, r.campaign_id, r.variant_id, r.control, r.users
    from arms as r
    join target as t on t.app_id = r.app_id
    -- The few arm rows are sorted whatever enable_sort says: it only steers the plan away from a sort.
    order by t.app_name, r.campaign_id, r.control desc, r.variant_id nulls first;
$function$;
alter function cardinal.send_arms_from_user_state(text, text, date, date, boolean) owner to cardinal_owner;
grant execute on function cardinal.send_arms_from_user_state(text, text, date, date, boolean) to cardinal_reader;
comment on function cardinal.send_arms_from_user_state(text, text, date, date, boolean) is
    'send_arms read from the per-user state: per app × campaign × arm, the users with a send on a report day '
    'of from_date..to_date, test events only with include_test; what send_arms runs with include_test, since '
    'the day pairs of report_arm_day_users leave test groups out.';


-- The control report of one campaign day by day, for the campaign page's cumulative lift chart: the rows of
-- control_arms(from_date, d, least(as_of, end of d)) for each report day d, as a team reading the report at
-- the end of every day would have seen them. Without test events one pass over the campaign's per-user rows
-- (control_arm_days_from_exposures); with them, and for reference, control_arms (or control_arms_reference)
-- once per day, so that the definitions hold unchanged.
create or replace function cardinal.control_arm_days(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    as_of        timestamptz default now(),
    include_test boolean     default false,
    reference    boolean     default false
)
    returns setof cardinal.control_arm_days_row
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date);
    if app is null or campaign is null then
        raise exception 'control_arm_days: app and campaign are required (one campaign at a time)'
            using errcode = 'invalid_parameter_value';
    end if;
    if not reference and not coalesce(include_test, false) then
        return query select * from cardinal.control_arm_days_from_exposures(app, campaign, from_date, to_date, as_of);
        return;
    end if;
    return query
    select d.day::date, arm.variant_id, arm.control, arm.users, arm.converters
    from cardinal.apps as a
    left join cardinal.campaign_settings as s on s.app_id = a.app_id and s.campaign_id = control_arm_days.campaign
    cross join lateral (select coalesce(s.report_time_zone, a.report_time_zone) as zone) as clock
    cross join lateral generate_series(
        control_arm_days.from_date::timestamp,
        least(control_arm_days.to_date, (control_arm_days.as_of at time zone clock.zone)::date)::timestamp,
        interval '1 day'
    ) as d (day)
    cross join lateral (select least(control_arm_days.as_of, (d.day + interval '1 day') at time zone clock.zone)
                            as as_of) as cut
    cross join lateral (
        select r.variant_id, r.control, r.users, r.converters
        from cardinal.control_arms(a.name, control_arm_days.campaign, control_arm_days.from_date, d.day::date,
                                   cut.as_of, null, null, control_arm_days.include_test) as r
        where not control_arm_days.reference
        union all
        select r.variant_id, r.control, r.users, r.converters
        from cardinal.control_arms_reference(a.name, control_arm_days.campaign, control_arm_days.from_date,
                                             d.day::date, cut.as_of, null, null, control_arm_days.include_test) as r
        where control_arm_days.reference
    ) as arm
    where a.name = control_arm_days.app
    order by 1, arm.control desc, arm.variant_id nulls first;
end
$function$;
alter function cardinal.control_arm_days(text, text, date, date, timestamp with time zone, boolean, boolean) owner to cardinal_owner;
grant execute on function cardinal.control_arm_days(text, text, date, date, timestamp with time zone, boolean, boolean) to cardinal_reader;
comment on function cardinal.control_arm_days(text, text, date, date, timestamptz, boolean, boolean) is
    'The control report of one campaign of app day by day: for each report day d from from_date to the '
    'earlier of to_date and as_of''s day (the campaign''s report time zone), the arms of control_arms(app, '
    'campaign, from_date, d, as_of => the earlier of as_of and the end of d), with its users and converters '
    '(NULL without a conversion event): the cumulative counts the campaign page''s lift chart is drawn from. '
    'The campaign''s own conversion event and window. Without test events read in one pass from the report '
    'state (control_arm_days_from_exposures); with include_test from control_arms once per day; reference = '
    'true computes it with control_arms_reference over the raw events (for tests).';


-- control_arm_days from the control counts: each user of the range enters the counts on the day its window
-- ends (the first day d with window end <= the end of d and <= as_of), converted or not, and leaves every
-- count on the day a second arm is first seen (control_arms leaves out users in several arms as of the
-- range's end); the exposed users, which decide whether an arm is listed, from the exposure day. A running
-- sum over the days of these entries and exits gives every day's counts in one pass, instead of a control
-- report per day. Every user of an exposure day whose window ends on the same day as the last one's (with a
-- whole-day window, all but those exposed in its first second) is read from report_control_exposure_days,
-- as if it ended on that day; the users read one by one (report_control_exposures: that first second, and
-- the whole of a day the rule does not fit, such as the day as_of cuts) replace that assumption by their own
-- days, as do the pending events' rows. A user's own days are found among the report days' first instants
-- (width_bucket), the bounds control_arms compares with, rather than by a time zone conversion per user.
create or replace function cardinal.control_arm_days_from_exposures(
    app       text,
    campaign  text,
    from_date date,
    to_date   date,
    as_of     timestamptz
)
    returns setof cardinal.control_arm_days_row
    language sql
    stable
    -- Joins and aggregates hashed whatever the row estimates (the sort of the running sum stays: it has no
    -- other plan); jit off with them, as in control_arm_sums_from_exposures.
    set enable_nestloop = off
    set enable_sort = off
    set jit = off
as $function$
    with source as materialized (
        select a.app_id, s.conversion_event, clock.zone,
               coalesce(s.conversion_window, interval '3 days') as window_length,
               last.day as last_day,
               -- The first instants of the report days from from_date to the day after the last one: day
               -- from_date + k - 1 runs from element k to element k + 1.
               array(
                   select (control_arm_days_from_exposures.from_date + i)::timestamp at time zone clock.zone
                   from generate_series(0, last.day - control_arm_days_from_exposures.from_date + 1) as i
               ) as day_starts
        from cardinal.apps as a
        left join cardinal.campaign_settings as s on s.app_id = a.app_id and s.campaign_id = control_arm_days_from_exposures.campaign
        cross join lateral (select coalesce(s.report_time_zone, a.report_time_zone) as zone) as clock
        cross join lateral (
            select least(control_arm_days_from_exposures.to_date, (control_arm_days_from_exposures.as_of at time zone clock.zone)::date) as day
        ) as last
        where a.name = control_arm_days_from_exposures.app
          and last.day >= control_arm_days_from_exposures.from_date
    ),
    -- Per exposure day: the day the window of its last instant ends on (counted_day; the day after the last
    -- when later), and the instant from which every exposure's window ends on that day too (split_time): a
    -- second into the day when the window of that second already ends after counted_day began (window ends
    -- grow with the exposure), and, if counted_day is the last day, the last day has ended by as_of; else the
    -- day's end, and the whole day is read one by one.
    days as materialized (
        select control_arm_days_from_exposures.from_date + k - 1 as exposed_day, s.day_starts[k] as start_time, latest.day as counted_day,
               case when cardinal.report_window_end(s.day_starts[k] + interval '1 second', s.window_length, s.zone)
                             > s.day_starts[latest.day - control_arm_days_from_exposures.from_date + 1]
                         and (latest.day <> s.last_day or s.day_starts[cardinality(s.day_starts)] <= control_arm_days_from_exposures.as_of)
                    then s.day_starts[k] + interval '1 second'
                    else s.day_starts[k + 1]
               end as split_time
        from source as s
        cross join generate_series(1, cardinality(s.day_starts) - 1) as k
        cross join lateral (
            select control_arm_days_from_exposures.from_date - 1
                   + width_bucket(cardinal.report_window_end(s.day_starts[k + 1] - interval '1 microsecond',
                                                             s.window_length, s.zone) - interval '1 microsecond',
                                  s.day_starts) as day
        ) as latest
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        -- Every column but CUPED's x, which these counts do not read.
        select p.app_id, p.campaign_id, p.user_key, p.exposed_at, p.control, p.variant_id, p.second_arm_at,
               p.second_arm_control, p.second_arm_variant_id, p.conversion_event, p.converted_at,
               p.further_converted_at
        from cardinal.pending_control_exposures(control_arm_days_from_exposures.campaign) as p
        where p.app_id in (select s.app_id from source as s)
          and p.exposed_at >= (select s.day_starts[1] from source as s)
          and p.exposed_at < (select s.day_starts[cardinality(s.day_starts)] from source as s)
    ),
    -- The folded rows of the users the pending rows replace, in the range.
    replaced as (
        select r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at
        from cardinal.report_control_exposures as r
        join pending as p on p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.user_key = r.user_key
        cross join source as s
        where r.app_id = any(array(select distinct p.app_id from pending as p))
          and r.user_key = any(array(select distinct p.user_key from pending as p))
          and r.exposed_at >= s.day_starts[1]
          and r.exposed_at < s.day_starts[cardinality(s.day_starts)]
    ),
    -- The rows read one by one, with how they count: exact (their own days: +1 for the folded rows read and the
    -- pending rows) and as the counts hold them (-1: the folded rows read, and the replaced ones, are taken
    -- out of the counts). An index range per day, which `offset 0` keeps from being flattened into a hash
    -- join of the whole table.
    items as (
        select r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at, 1 as exact, -1 as counted
        from source as s
        cross join days as d
        cross join lateral (
            select *
            from cardinal.report_control_exposures as r
            where r.app_id = s.app_id
              and r.campaign_id = control_arm_days_from_exposures.campaign
              and r.exposed_at >= d.start_time
              and r.exposed_at < d.split_time
            offset 0
        ) as r
        where not exists (select from pending as p where p.user_key = r.user_key)
        union all
        select x.exposed_at, x.control, x.variant_id, x.second_arm_at, x.converted_at, 0, -1
        from replaced as x
        union all
        select p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at, 1, 0
        from pending as p
    ),
    -- Each item's window end and whether it converted within it, once (`offset 0`: inlined, each expression
    -- naming them computed them again).
    windows as (
        select x.*, coalesce(x.converted_at <= window_end.time, false)::integer as converted, window_end.time
        from items as x
        cross join source as s
        cross join lateral (
            select cardinal.report_window_end(x.exposed_at, s.window_length, s.zone) as time
            offset 0
        ) as window_end
    ),
    -- Groups of users with their exposure day, the day they leave (the second arm's; 'infinity' or after the
    -- last day without one), the day they mature (NULL: not by as_of) and their weight and converters: the
    -- counts of the exposure days, each item as the counts hold it, and each item as it is.
    spans as (
        select c.exposed_day, c.second_arm_day as leaves, d.counted_day as matures, c.control, c.variant_key,
               c.users as weight, c.converters
        from source as s
        join cardinal.report_control_exposure_days as c on c.app_id = s.app_id
        join days as d on d.exposed_day = c.exposed_day
        where c.campaign_id = control_arm_days_from_exposures.campaign
          and c.exposed_day >= control_arm_days_from_exposures.from_date
          and c.exposed_day <= s.last_day
        union all
        select held.exposed_day, held.leaves, d.counted_day, x.control, coalesce(x.variant_id, ''), x.counted,
               x.counted * x.converted
        from windows as x
        cross join source as s
        -- The local days, as report_control_exposure_days_of_rows computes them.
        cross join lateral (
            select (x.exposed_at at time zone s.zone)::date as exposed_day,
                   coalesce((x.second_arm_at at time zone s.zone)::date, 'infinity') as leaves
        ) as held
        join days as d on d.exposed_day = held.exposed_day
        where x.counted <> 0
        union all
        select own.*, x.control, coalesce(x.variant_id, ''), x.exact, x.exact * x.converted
        from windows as x
        cross join source as s
        cross join lateral (
            select control_arm_days_from_exposures.from_date - 1 + width_bucket(x.exposed_at, s.day_starts) as exposed_day,
                   control_arm_days_from_exposures.from_date - 1
                       + coalesce(width_bucket(x.second_arm_at, s.day_starts), cardinality(s.day_starts))
                       as leaves,
                   case when x.time <= control_arm_days_from_exposures.as_of
                        then control_arm_days_from_exposures.from_date - 1 + width_bucket(x.time - interval '1 microsecond', s.day_starts)
                   end as matures
            offset 0
        ) as own
        where x.exact <> 0
    ),
    -- What each group adds on the day it is exposed or matures and takes away on the day it leaves (within
    -- the series' days); a user who leaves before maturing never counts as matured.
    changes as (
        select exposed_day as day, control, variant_key, weight as exposed, 0 as users, 0 as converters
        from spans
        where exposed_day < leaves
        union all
        select leaves, control, variant_key, -weight, 0, 0
        from spans
        where exposed_day < leaves and leaves <= (select s.last_day from source as s)
        union all
        select matures, control, variant_key, 0, weight, converters
        from spans
        where matures < leaves and matures <= (select s.last_day from source as s)
        union all
        select leaves, control, variant_key, 0, -weight, -converters
        from spans
        where matures < leaves and leaves <= (select s.last_day from source as s)
    ),
    totals as (
        select c.day, c.control, c.variant_key, sum(c.exposed) as exposed, sum(c.users) as users,
               sum(c.converters) as converters
        from changes as c
        group by c.day, c.control, c.variant_key
    ),
    -- Every day of the range for every arm seen, so that the running sum carries a day without changes.
    series as (
        select d.day::date as day, arm.control, arm.variant_key,
               sum(coalesce(t.exposed, 0)) over running as exposed,
               sum(coalesce(t.users, 0)) over running as users,
               sum(coalesce(t.converters, 0)) over running as converters
        from source as s
        cross join generate_series(control_arm_days_from_exposures.from_date::timestamp, s.last_day::timestamp, interval '1 day') as d (day)
        cross join (select distinct t.control, t.variant_key from totals as t) as arm
        left join totals as t on t.day = d.day::date and t.control = arm.control and t.variant_key = arm.variant_key
        window running as (partition by arm.control, arm.variant_key order by d.day)
    )
    -- The arms control_arms lists that day: those with an exposed user in one arm only.
    select r.day, nullif(r.variant_key, ''), r.control, r.users::bigint,
           case when s.conversion_event is not null then r.converters::bigint end
    from series as r
    cross join source as s
    where r.exposed <> 0
    order by r.day, r.control desc, nullif(r.variant_key, '') nulls first;
$function$;
alter function cardinal.control_arm_days_from_exposures(text, text, date, date, timestamp with time zone) owner to cardinal_owner;
grant execute on function cardinal.control_arm_days_from_exposures(text, text, date, date, timestamp with time zone) to cardinal_reader;
comment on function cardinal.control_arm_days_from_exposures(text, text, date, date, timestamptz) is
    'control_arm_days of a campaign without test events, in one pass: per user the day it is exposed, the day '
    'its window ends (report_window_end; counted when by as_of) and the day a second arm is first seen, added '
    'up over the report days; read from report_control_exposure_days for the users whose window ends on the '
    'same day as the last exposure''s of their day, else from report_control_exposures, with the pending '
    'events'' change (pending_control_exposures). control_arm_days calls it when it can.';
