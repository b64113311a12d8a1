-- 0058_control_unmatured_days_from_counts.sql — the control report reads the days none of whose exposures has
-- matured from the counts, not from the per-user rows (issue 8).
--
-- Design notes (why, not what):
--
-- * 0046 splits a campaign's range into count days (every exposure matured at as_of under the configured
--   window: report_control_exposure_days answers users and converters) and row days (report_control_exposures,
--   one row per user), the latter everything from the first day that is not wholly matured to the range's end.
--   With as_of just after the range, as a nightly report runs, that is the last window's worth of days: 428 k
--   per-user rows for all campaigns at 10 M events (7 days for a 7-day window). 0046's "Not done" note: most
--   of those days have no matured exposure at all, and a user who has not matured only counts as exposed,
--   which the counts hold.
--
-- * A report day d none of whose exposures has matured: a user exposed at local time w of d has the window
--   end f(w) = ((w + the window's months and days) at time zone z) + its hours (0044's report_window_end), and
--   f does not decrease with w (a wall time maps to UTC monotonically but for a skipped hour, whose times
--   PostgreSQL resolves with the offset before the change, landing on the instants after it). So the day's
--   earliest end is f(d 00:00), and the day is unmatured when f(d 00:00) > as_of. f grows with d, so those days
--   are a suffix of the range; unmatured_day is its first day (the range's end + 1 when there is none), never
--   before 0046's split day, since an unmatured day is not wholly matured.
--
-- * From unmatured_day on the counts give the exposed users (and users in several arms) and nothing matured:
--   no users, no converters, for any window, so an override window that makes 0046 read every day as rows
--   reads these from counts too. The per-user rows are read only between the two days: one day for most
--   campaigns (the day as_of cuts). Pending rows and the folded rows they replace are items as in 0046 (a
--   replaced row of a count day is subtracted, and its maturity, computed from its times, is false there).
--
-- * control_arms_from_exposures (0046's body) and control_arm_conversions_from_exposures (0054's) change the
--   same way: the counts' index range is the range's days (0046 bounded it by the latest split day), the
--   per-user rows' index range ends at unmatured_time instead of the range's end. Signatures and rows are the
--   same; the property tests compare them with the reference for random as_of times inside and after ranges.

-- 0046's body with the unmatured days read from the counts: the control report of campaigns from the counts
-- and, for the days the as-of time cuts, the rows.
create or replace function cardinal.control_arms_from_exposures(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion_window interval
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
    -- Hash joins and aggregates whatever the row estimates (0040); jit off with them.
    set enable_nestloop = off
    set jit = off
    set enable_sort = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where control_arms_from_exposures.app is null or a.name = control_arms_from_exposures.app
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.*
        from cardinal.report_pending_control_exposures as p
        where p.app_id in (select t.app_id from target as t)
          and (control_arms_from_exposures.campaign is null or p.campaign_id = control_arms_from_exposures.campaign)
    ),
    -- The campaigns reported (0040), with their settings, the range's bounds in their zone, the first day of
    -- the range that the counts do not answer (0046's notes: the range's end + 1 when they answer all) and the
    -- first from which they answer again (none of its exposures has matured).
    sources as materialized (
        select t.app_id, t.app_name, c.campaign_id, s.conversion_event, clock.window_length, zone.name as time_zone,
               control_arms_from_exposures.from_date::timestamp at time zone zone.name as lower_time,
               (control_arms_from_exposures.to_date + 1)::timestamp at time zone zone.name as upper_time,
               split.day as split_day,
               split.day::timestamp at time zone zone.name as split_time,
               unmatured.day as unmatured_day,
               unmatured.day::timestamp at time zone zone.name as unmatured_time
        from target as t
        join (
            select g.app_id, g.campaign_id
            from cardinal.report_groups as g
            where g.campaign_id is not null
              and (control_arms_from_exposures.campaign is null
                   or g.campaign_id = control_arms_from_exposures.campaign)
            union
            select p.app_id, p.campaign_id from pending as p
        ) as c on c.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        cross join lateral (select coalesce(s.report_time_zone, t.report_time_zone) as name) as zone
        cross join lateral (
            select coalesce(s.conversion_window, interval '3 days') as configured,
                   coalesce(control_arms_from_exposures.conversion_window, s.conversion_window, interval '3 days')
                       as window_length
        ) as clock
        cross join lateral (
            select coalesce(min(d.day)::date, control_arms_from_exposures.to_date + 1) as day
            from generate_series(control_arms_from_exposures.from_date::timestamp,
                                 control_arms_from_exposures.to_date::timestamp, interval '1 day') as d (day)
            cross join lateral (select d.day + date_trunc('day', clock.window_length) as local_start) as image
            cross join lateral (
                select (image.local_start + interval '1 day') at time zone zone.name as utc_end,
                       image.local_start at time zone zone.name as utc_start
            ) as utc
            where clock.window_length::text <> clock.configured::text
               or utc.utc_end + (clock.window_length - date_trunc('day', clock.window_length))
                  + greatest(interval '0', interval '1 day' - (utc.utc_end - utc.utc_start))
                  > control_arms_from_exposures.as_of
        ) as split
        -- The first day of the range none of whose exposures has matured at as_of (see the notes): the
        -- window end of the day's first local instant, the earliest of the day's, is after as_of.
        cross join lateral (
            select coalesce(min(d.day)::date, control_arms_from_exposures.to_date + 1) as day
            from generate_series(split.day::timestamp, control_arms_from_exposures.to_date::timestamp,
                                 interval '1 day') as d (day)
            where (d.day + date_trunc('day', clock.window_length)) at time zone zone.name
                  + (clock.window_length - date_trunc('day', clock.window_length))
                  > control_arms_from_exposures.as_of
        ) as unmatured
    ),
    -- The counts of the count days: all their users matured before the split, none from the unmatured day on.
    counted as (
        select s.app_name, s.campaign_id, s.conversion_event, s.window_length,
               several.arms as several_arms,
               case when not several.arms then nullif(d.variant_key, '') end as variant_id,
               case when not several.arms then d.control end as control,
               d.users as exposed,
               case when d.exposed_day < s.split_day then d.users else 0 end as users,
               case when d.exposed_day < s.split_day then d.converters else 0 end as converters
        from cardinal.report_control_exposure_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        cross join lateral (select d.second_arm_day <= control_arms_from_exposures.to_date as arms) as several
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arms_from_exposures.from_date
          and d.exposed_day <= control_arms_from_exposures.to_date
          and (d.exposed_day < s.split_day or d.exposed_day >= s.unmatured_day)
    ),
    -- The folded rows of the days between: an index range per campaign, each its own days, in a loop over the
    -- campaigns (a lateral subquery that `offset 0` keeps from being flattened into a hash join, which read the
    -- whole table).
    folded as (
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.converted_at
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
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at
        from cardinal.report_control_exposures as r
        join pending as p on p.app_id = r.app_id and p.campaign_id = r.campaign_id and p.user_key = r.user_key
        where r.app_id = any(array(select distinct p.app_id from pending as p))
          and r.user_key = any(array(select distinct p.user_key from pending as p))
    ),
    -- One by one: the folded rows of the row days but the replaced ones, every pending row, and the replaced
    -- rows of the count days taken out of the counts.
    items as (
        select f.app_id, f.campaign_id, f.exposed_at, f.control, f.variant_id, f.second_arm_at, f.converted_at,
               1 as sign, true as in_row_days
        from folded as f
        where not exists (
            select from pending as p
            where p.app_id = f.app_id and p.campaign_id = f.campaign_id and p.user_key = f.user_key
        )
        union all
        select p.app_id, p.campaign_id, p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at,
               1, null
        from pending as p
        union all
        select r.app_id, r.campaign_id, r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.converted_at,
               -1, false
        from replaced as r
    ),
    -- A user counts in the range when the first exposure is in it, in several arms when the second arm's
    -- first exposure is before the range's end, and as a converter when the first conversion after the
    -- exposure is within the window, which ends on the campaign's clock (0040, 0044).
    cohort as (
        select s.app_name, s.campaign_id, s.conversion_event, s.window_length, several.arms as several_arms,
               case when not several.arms then x.variant_id end as variant_id,
               case when not several.arms then x.control end as control,
               x.sign as exposed,
               case when window_end.time <= control_arms_from_exposures.as_of then x.sign else 0 end as users,
               case when window_end.time <= control_arms_from_exposures.as_of
                         and x.converted_at <= window_end.time then x.sign else 0 end as converters
        from items as x
        join sources as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
        cross join lateral (select coalesce(x.second_arm_at < s.upper_time, false) as arms) as several
        cross join lateral (
            select cardinal.report_window_end(x.exposed_at, s.window_length, s.time_zone) as time
        ) as window_end
        where x.exposed_at >= s.lower_time and x.exposed_at < s.upper_time
          and (x.in_row_days is null
               or x.in_row_days = (x.exposed_at >= s.split_time and x.exposed_at < s.unmatured_time))
    ),
    arm_groups as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               sum(users)::bigint as users,
               case when conversion_event is not null then sum(converters)::bigint end as converters,
               sum(exposed)::bigint as exposed_users
        from (
            select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
                   exposed, users, converters
            from counted
            union all
            select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
                   exposed, users, converters
            from cohort
        ) as parts
        group by app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms
        -- An arm whose only users the pending events moved elsewhere.
        having sum(exposed) <> 0
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               users, converters, exposed_users,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, campaign_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name, campaign_id, conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms, null::text
    from arms
    where not several_arms
    order by app_name, campaign_id, control desc, variant_id nulls first;
$function$;

comment on function cardinal.control_arms_from_exposures(text, text, date, date, timestamptz, interval) is
    'control_arms of campaigns (not a canvas), without test events, for each campaign''s conversion event and '
    'the given window (else the campaign''s): from report_control_exposure_days for the days wholly matured at '
    'as_of with the configured window (0046) and the days none of whose exposures has (0058), else from '
    'report_control_exposures, with the pending events'' '
    'change (report_pending_control_exposures); the window ends on the campaign''s clock (0044). control_arms '
    'calls it when it can.';


-- 0054's body with the unmatured days read from the counts: the control report of the conversion goals from
-- first_ordinal on, from the counts and, for the days the as-of time cuts, the rows, in one pass over the goals.
create or replace function cardinal.control_arm_conversions_from_exposures(
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
    -- The campaigns with goals, their window, the range's bounds in their zone, the first day of the range
    -- that the counts do not answer (0046's split, the same expressions) and the first from which they answer
    -- again (control_arms_from_exposures's, the same expression).
    sources as materialized (
        select t.app_id, t.app_name, s.campaign_id, clock.window_length, zone.name as time_zone,
               control_arm_conversions_from_exposures.from_date::timestamp at time zone zone.name as lower_time,
               (control_arm_conversions_from_exposures.to_date + 1)::timestamp at time zone zone.name as upper_time,
               split.day as split_day,
               split.day::timestamp at time zone zone.name as split_time,
               unmatured.day as unmatured_day,
               unmatured.day::timestamp at time zone zone.name as unmatured_time
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
        -- The first day of the range none of whose exposures has matured at as_of (see the notes): the
        -- window end of the day's first local instant, the earliest of the day's, is after as_of.
        cross join lateral (
            select coalesce(min(d.day)::date, control_arm_conversions_from_exposures.to_date + 1) as day
            from generate_series(split.day::timestamp, control_arm_conversions_from_exposures.to_date::timestamp,
                                 interval '1 day') as d (day)
            where (d.day + date_trunc('day', clock.window_length)) at time zone zone.name
                  + (clock.window_length - date_trunc('day', clock.window_length))
                  > control_arm_conversions_from_exposures.as_of
        ) as unmatured
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
    -- The folded rows of the days between: an index range per campaign in a loop over the campaigns (0046).
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

comment on function cardinal.control_arm_conversions_from_exposures(text, text, date, date, timestamptz, interval, integer) is
    'control_arm_conversions of campaigns (not a canvas), without test events, for the conversion goals from '
    'first_ordinal on (1 = every goal, 2 = the further ones) and the given window (else the campaign''s): '
    'from report_control_exposure_days and report_control_goal_days for the days wholly matured at as_of with '
    'the configured window, from report_control_exposure_days (exposed users only) for the days none of whose '
    'exposures has (0058), else from report_control_exposures, with the pending events'' change '
    '(report_pending_control_exposures); 0046''s split, 0049, first_ordinal 0054. control_arm_conversions '
    'calls it when it can.';
