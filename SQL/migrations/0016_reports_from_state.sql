-- 0016_reports_from_state.sql — unique_impressions and control_arms read the report state (0015).
--
-- The raw-event functions (0010; control_arms as 0014 rewrote it) stay as *_reference, with the same
-- bodies: a LANGUAGE sql function names its arguments by the function's name, so they are created anew
-- rather than renamed. They are the definition the state-backed functions are tested against
-- (ReportStatePropertyTests), and a psql user can still call them to check a number. The new functions
-- keep the names, arguments and result columns, so `cardinal report` and every psql query work as before;
-- the definitions in the header comments of 0010 and 0012 hold unchanged.
--
-- Both read the state through the report_*_facts views (0015), which add the events still queued for the
-- fold, so they count every stored event exactly once.
--
-- Why the results are equal: the state holds, per user and report group, the report days of each kind
-- of event and the first time of each exposure, and per group and day the number of events of each kind.
-- unique_impressions unnests the days in the range and counts distinct users and (day, user) pairs, the
-- same sets the reference counts over events, and sums the day counts where the reference counts events.
-- control_arms takes each user's first exposure per arm from the first-exposure times (the minimum over
-- the whole history, so "first exposure before the end of the range" is that minimum when it lies before
-- the end) and finds each one's first conversion in report_conversion_facts with a window over the user's
-- timeline.
--
-- Planner-proof like 0014: no join between two per-user sets (only lookups of apps and campaign
-- settings), so a wrong row estimate, which the queued part always has, cannot make a plan quadratic.

drop function cardinal.unique_impressions(text, date, date, boolean, text, text);

create function cardinal.unique_impressions_reference(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns table (
        app_name                 text,
        campaign_id              text,
        canvas_id                text,
        canvas_step_id           text,
        variant_id               text,
        channel                  text,
        breakdown                text,
        impressions              bigint,
        unique_impressions       bigint,
        unique_daily_impressions bigint,
        unique_recipients        bigint,
        clicks                   bigint,
        unique_clicks            bigint,
        dismissals               bigint,
        unique_dismissals        bigint,
        click_rate               double precision,
        unique_click_rate        double precision,
        dismissal_rate           double precision,
        unique_dismissal_rate    double precision
    )
    language sql
    stable
as $function$
    with scoped as (
        select a.name as app_name,
               e.campaign_id,
               e.canvas_id,
               e.canvas_step_id,
               e.variant_id,
               e.channel,
               e.type,
               e.user_key,
               local.day,
               case unique_impressions_reference.by
                   when 'day' then to_char(local.day, 'YYYY-MM-DD')
                   when 'platform' then e.platform
                   when 'sdk_version' then e.sdk_version
                   when 'app_version' then e.app_version
               end as breakdown
        from cardinal.apps as a
        join cardinal.events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(unique_impressions_reference.from_date, unique_impressions_reference.to_date)
          and cardinal.check_report_dimension(unique_impressions_reference.by)
          and (unique_impressions_reference.app is null or a.name = unique_impressions_reference.app)
          and (e.campaign_id is not null or e.canvas_step_id is not null)
          and (unique_impressions_reference.campaign is null or e.campaign_id = unique_impressions_reference.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and not e.control
          and (unique_impressions_reference.include_test or not e.test)
          and e.time >= (unique_impressions_reference.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (unique_impressions_reference.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between unique_impressions_reference.from_date and unique_impressions_reference.to_date
    ),
    counted as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               count(*) filter (where type = 'impression') as impressions,
               count(distinct user_key) filter (where type = 'impression') as unique_impressions,
               -- (day, user) pairs: the sum over days of each day's distinct users.
               count(distinct (day, user_key)) filter (where type = 'impression') as unique_daily_impressions,
               count(distinct (day, user_key)) filter (
                   where case when channel in ('content_card', 'in_app_message') then type = 'impression'
                              else type = 'send' end
               ) as unique_recipients,
               count(*) filter (where type = 'click') as clicks,
               count(distinct user_key) filter (where type = 'click') as unique_clicks,
               count(*) filter (where type = 'dismissal') as dismissals,
               count(distinct user_key) filter (where type = 'dismissal') as unique_dismissals
        from scoped
        group by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown
    )
    select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
           impressions, unique_impressions, unique_daily_impressions, unique_recipients,
           clicks, unique_clicks, dismissals, unique_dismissals,
           clicks::double precision / nullif(impressions, 0),
           unique_clicks::double precision / nullif(unique_impressions, 0),
           dismissals::double precision / nullif(impressions, 0),
           unique_dismissals::double precision / nullif(unique_impressions, 0)
    from counted
    order by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown;
$function$;

alter function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text)
    to cardinal_reader;

comment on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) is
    'Reference implementation of unique_impressions over the raw events (0010): the same arguments and '
    'rows, computed without the report state. Slow on large apps; for checking numbers and tests.';

drop function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean);

create function cardinal.control_arms_reference(
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
        where cardinal.check_report_range(control_arms_reference.from_date, control_arms_reference.to_date)
          and (control_arms_reference.app is null or a.name = control_arms_reference.app)
    ),
    -- The campaigns with an exposure in the broad range (see 0010), with their settings and exact bounds.
    -- A few rows, materialized: the history scan below is then one index scan per campaign, or one scan of
    -- the partitions beside them, and never reruns this scan of the range.
    campaigns as materialized (
        select c.app_id, c.app_name, c.campaign_id,
               coalesce(control_arms_reference.conversion, s.conversion_event) as conversion_event,
               coalesce(control_arms_reference.conversion_window, s.conversion_window, interval '3 days') as window_length,
               control_arms_reference.from_date::timestamp at time zone coalesce(s.report_time_zone, c.report_time_zone)
                   as lower_time,
               (control_arms_reference.to_date + 1)::timestamp at time zone coalesce(s.report_time_zone, c.report_time_zone)
                   as upper_time
        from (
            select distinct t.app_id, t.app_name, t.report_time_zone, e.campaign_id
            from target as t
            join cardinal.events as e on e.app_id = t.app_id
            where e.campaign_id is not null
              and (control_arms_reference.campaign is null or e.campaign_id = control_arms_reference.campaign)
              and e.type in ('impression', 'send')
              and (e.type = 'impression' or e.channel = 'push')
              and (control_arms_reference.include_test or not e.test)
              and e.time >= (control_arms_reference.from_date - 1)::timestamp at time zone 'UTC'
              and e.time < (control_arms_reference.to_date + 2)::timestamp at time zone 'UTC'
        ) as c
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
    ),
    -- Each user's first exposure per arm, over the campaign's history up to the end of the range. The
    -- campaign's settings ride along in the grouping (one value per campaign), so that no later step has
    -- to join the users back to their campaign.
    arm_exposures as (
        select c.app_id, c.campaign_id, e.user_key, e.control,
               case when e.control then null else e.variant_id end as variant_id,
               c.app_name, c.conversion_event, c.window_length, c.lower_time,
               min(e.time) as first_time
        from campaigns as c
        join cardinal.events as e on e.app_id = c.app_id and e.campaign_id = c.campaign_id
        where e.campaign_id is not null
          and e.type in ('impression', 'send')
          and (e.type = 'impression' or e.channel = 'push')
          and (control_arms_reference.include_test or not e.test)
          and e.time < c.upper_time
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    exposed as (
        select app_id, campaign_id, user_key, app_name, conversion_event, window_length, lower_time,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, campaign_id, user_key, app_name, conversion_event, window_length, lower_time
    ),
    -- The conversion of each matured user is one probe of events_conversion_idx (a correlated EXISTS on the
    -- events table, not on a CTE: its cost is per user, whatever the estimates).
    cohort as (
        select x.app_name, x.campaign_id, x.conversion_event, x.window_length, x.variant_id, x.control,
               x.arms > 1 as several_arms,
               x.exposed_at + x.window_length <= control_arms_reference.as_of as matured,
               x.arms = 1
                   and x.exposed_at + x.window_length <= control_arms_reference.as_of
                   and x.conversion_event is not null
                   and exists (
                       select
                       from cardinal.events as v
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
    -- One row per arm, and one per campaign and arm of the users in several arms; a window over the
    -- campaign adds the latter up, instead of a join of the arms to a second aggregate.
    arm_groups as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               count(*) filter (where matured) as users,
               case when conversion_event is not null then count(*) filter (where converted) end as converters,
               count(*) as exposed_users
        from cohort
        group by app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               users, converters, exposed_users,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, campaign_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name, campaign_id, conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms
    from arms
    where not several_arms
    order by app_name, campaign_id, control desc, variant_id nulls first;
$function$;

alter function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean)
    to cardinal_reader;

comment on function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean) is
    'Reference implementation of control_arms over the raw events (0012, 0014): the same arguments and rows, '
    'computed without the report state. Slow on large apps; for checking numbers and tests.';


create function cardinal.unique_impressions(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns table (
        app_name                 text,
        campaign_id              text,
        canvas_id                text,
        canvas_step_id           text,
        variant_id               text,
        channel                  text,
        breakdown                text,
        impressions              bigint,
        unique_impressions       bigint,
        unique_daily_impressions bigint,
        unique_recipients        bigint,
        clicks                   bigint,
        unique_clicks            bigint,
        dismissals               bigint,
        unique_dismissals        bigint,
        click_rate               double precision,
        unique_click_rate        double precision,
        dismissal_rate           double precision,
        unique_dismissal_rate    double precision
    )
    language sql
    stable
as $function$
    -- Who did what on which day of the range (user rows, n = 0), and how many events there were (count
    -- rows, no user): the report's distinct counts come from the first, its totals from the second.
    with scoped as (
        select a.name as app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel,
               u.platform, u.sdk_version, u.app_version, u.user_key, d.kind, d.day, 0::bigint as n
        from cardinal.apps as a
        join cardinal.report_user_facts as u on u.app_id = a.app_id
        cross join lateral (
            select 'impression' as kind, day from unnest(u.impression_days) as day
            union all
            select 'click', day from unnest(u.click_days) as day
            union all
            select 'dismissal', day from unnest(u.dismissal_days) as day
            union all
            select 'send', day from unnest(u.send_days) as day
        ) as d
        where cardinal.check_report_range(unique_impressions.from_date, unique_impressions.to_date)
          and cardinal.check_report_dimension(unique_impressions.by)
          and (unique_impressions.app is null or a.name = unique_impressions.app)
          and (unique_impressions.campaign is null or u.campaign_id = unique_impressions.campaign)
          and (unique_impressions.include_test or not u.test)
          and d.day between unique_impressions.from_date and unique_impressions.to_date
        union all
        select a.name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.platform,
               c.sdk_version, c.app_version, null, k.kind, c.day, k.n
        from cardinal.apps as a
        join cardinal.report_daily_count_facts as c on c.app_id = a.app_id
        cross join lateral (
            values ('impression', c.impressions), ('click', c.clicks), ('dismissal', c.dismissals), ('send', c.sends)
        ) as k (kind, n)
        where (unique_impressions.app is null or a.name = unique_impressions.app)
          and (unique_impressions.campaign is null or c.campaign_id = unique_impressions.campaign)
          and (unique_impressions.include_test or not c.test)
          and c.day between unique_impressions.from_date and unique_impressions.to_date
          and k.n > 0
    ),
    labelled as (
        select *,
               case unique_impressions.by
                   when 'day' then to_char(day, 'YYYY-MM-DD')
                   when 'platform' then platform
                   when 'sdk_version' then sdk_version
                   when 'app_version' then app_version
               end as breakdown
        from scoped
    ),
    counted as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               coalesce(sum(n) filter (where kind = 'impression'), 0) as impressions,
               count(distinct user_key) filter (where kind = 'impression') as unique_impressions,
               count(distinct (day, user_key)) filter (where kind = 'impression' and user_key is not null)
                   as unique_daily_impressions,
               count(distinct (day, user_key)) filter (
                   where user_key is not null
                     and case when channel in ('content_card', 'in_app_message') then kind = 'impression'
                              else kind = 'send' end
               ) as unique_recipients,
               coalesce(sum(n) filter (where kind = 'click'), 0) as clicks,
               count(distinct user_key) filter (where kind = 'click') as unique_clicks,
               coalesce(sum(n) filter (where kind = 'dismissal'), 0) as dismissals,
               count(distinct user_key) filter (where kind = 'dismissal') as unique_dismissals
        from labelled
        group by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown
    )
    select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
           impressions, unique_impressions, unique_daily_impressions, unique_recipients,
           clicks, unique_clicks, dismissals, unique_dismissals,
           clicks::double precision / nullif(impressions, 0),
           unique_clicks::double precision / nullif(unique_impressions, 0),
           dismissals::double precision / nullif(impressions, 0),
           unique_dismissals::double precision / nullif(unique_impressions, 0)
    from counted
    order by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown;
$function$;

alter function cardinal.unique_impressions(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions(text, date, date, boolean, text, text) to cardinal_reader;

comment on function cardinal.unique_impressions(text, date, date, boolean, text, text) is
    'Unique-impressions report: one row per app × campaign (or canvas step) × variant × channel (× the '
    'breakdown: by => day, platform, sdk_version or app_version) over the report days from_date..to_date '
    '(both included) in each campaign''s report time zone, read from the report state (report_*_facts, 0015). app NULL = '
    'every app; campaign NULL = every campaign and canvas step. Users are user_key; control and (unless '
    'include_test) test events are left out. unique_impressions counts a user once in the range, '
    'unique_daily_impressions once per day; rates are NULL when their divisor is 0. Definitions in '
    'SQL/migrations/0010_unique_impressions.sql; unique_impressions_reference computes the same from raw '
    'events.';


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
        app_name              text,
        campaign_id           text,
        conversion_event      text,
        window_length         interval,
        variant_id            text,
        control               boolean,
        users                 bigint,
        converters            bigint,
        exposed_users         bigint,
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
    -- Each user's first exposure per arm and report group, before the end of the range: the first
    -- impression (the first send too for push) in the variant arm, the first control impression (control
    -- send for push) in the control arm. The campaign's settings ride along, so that no later step joins
    -- the users back to their campaign (a join of per-user sets is what a wrong row estimate turns
    -- quadratic; see 0014).
    group_exposures as (
        select t.app_id, t.app_name, u.campaign_id, u.user_key, x.control, x.variant_id, x.first_time,
               campaign.conversion_event, campaign.window_length, campaign.lower_time
        from target as t
        join cardinal.report_user_facts as u on u.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = u.app_id and s.campaign_id = u.campaign_id
        cross join lateral (
            select coalesce(control_arms.conversion, s.conversion_event) as conversion_event,
                   coalesce(control_arms.conversion_window, s.conversion_window, interval '3 days') as window_length,
                   control_arms.from_date::timestamp at time zone coalesce(s.report_time_zone, t.report_time_zone)
                       as lower_time,
                   (control_arms.to_date + 1)::timestamp at time zone coalesce(s.report_time_zone, t.report_time_zone)
                       as upper_time
        ) as campaign
        cross join lateral (
            values (false, u.variant_id,
                    least(u.first_impression_at, case when u.channel = 'push' then u.first_send_at end)),
                   (true, null::text,
                    least(u.first_control_impression_at,
                          case when u.channel = 'push' then u.first_control_send_at end))
        ) as x (control, variant_id, first_time)
        where u.campaign_id is not null
          and (control_arms.campaign is null or u.campaign_id = control_arms.campaign)
          and (control_arms.include_test or not u.test)
          and x.first_time < campaign.upper_time
    ),
    arm_exposures as (
        select app_id, app_name, campaign_id, user_key, control, variant_id, conversion_event, window_length,
               lower_time, min(first_time) as first_time
        from group_exposures
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    exposed as (
        select app_id, app_name, campaign_id, user_key, conversion_event, window_length,
               count(*) as arms,
               min(first_time) as exposed_at,
               bool_and(control) as control,
               min(variant_id) as variant_id
        from arm_exposures
        group by app_id, app_name, campaign_id, user_key, conversion_event, window_length, lower_time
        having min(first_time) >= lower_time
    ),
    -- Whether a user converted: the user's exposures and conversions in one stream, sorted by time within
    -- each user and conversion name, newest first; the smallest conversion time from the top down to an
    -- exposure is the first conversion at or after it (a conversion at the very same instant sorts first).
    timeline as (
        select x.app_id, x.user_key, x.conversion_event as name, x.exposed_at as time, false as is_conversion,
               x.app_name, x.campaign_id, x.conversion_event, x.window_length, x.variant_id, x.control, x.arms,
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
        select app_name, campaign_id, conversion_event, window_length, variant_id, control,
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
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, arms > 1,
               exposed_at + window_length <= control_arms.as_of, false
        from exposed
        where conversion_event is null
    ),
    -- One row per arm, and one per campaign and arm of the users in several arms; a window over the
    -- campaign adds the latter up (0014's shape).
    arm_groups as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               count(*) filter (where matured) as users,
               case when conversion_event is not null then count(*) filter (where converted) end as converters,
               count(*) as exposed_users
        from cohort
        group by app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               users, converters, exposed_users,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, campaign_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name, campaign_id, conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms
    from arms
    where not several_arms
    order by app_name, campaign_id, control desc, variant_id nulls first;
$function$;

alter function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean)
    to cardinal_reader;

comment on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean) is
    'Counts of the control-group report, read from the report state (report_*_facts, 0015): per app × campaign × arm '
    '(control, or variant_id), the users first exposed in the report days from_date..to_date (first '
    'impression; first control impression for the control arm; the send for push) whose window had elapsed '
    'by as_of (users), those of them who converted within the window (converters; NULL without a '
    'conversion event), every exposed user (exposed_users) and, per campaign, the users excluded for being '
    'in several arms. conversion and conversion_window override campaign_settings. app and campaign NULL = '
    'all. Definitions in SQL/migrations/0012_control_arms.sql; control_arms_reference computes the same '
    'from raw events.';
