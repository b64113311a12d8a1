-- 0046_control_exposure_days.sql — the control report of campaigns reads counts per exposure day, and per-user
-- rows only for the days the as-of time cuts; every control report ends its window on the campaign's clock
-- (issue 8).
--
-- Design notes (why, not what):
--
-- * 0040 made a report read one row per exposed user of its range (report_control_exposures): 0.9 s for one
--   campaign and 26 s for all campaigns at 10 M events, growing with the events. What a range asks of a day
--   whose every exposure has matured at as_of does not depend on as_of: how many users were first exposed
--   that day per arm, and how many of them converted within the window. report_control_exposure_days keeps
--   those counts per campaign, local exposure day, arm and local day of the second arm, so that a report reads
--   counts for those days and per-user rows only for the last window's worth before as_of.
--
-- * Counting ahead needs "converted within the window" to be a fact of the rows and the campaign's settings:
--   0044's report_window_end adds the window on the campaign's report time zone's calendar, whatever the
--   session's TimeZone. Every control report (this one, the per-user state's, the reference) now ends the
--   window with it, with the zone the report's days are in (the campaign's, else the app's; the app's for a
--   canvas), so that the three agree under any session.
--
-- * The second arm's local day is in the key ('infinity' when there is none, so that it can be): a user is
--   in several arms for a range ending on `to` exactly when the second arm came before the range's end, i.e.
--   second_arm_day <= to (0040's rule on local days). Such users leave their arm and count per campaign.
--
-- * The counts equal an aggregate of report_control_exposures by construction: statement triggers with
--   transition tables on its inserts, updates and deletes add the new rows' contribution and subtract the old
--   rows' (an INSERT … ON CONFLICT DO UPDATE fires both the insert and the update statement triggers, each
--   with its own rows). So the fold step, 0040's deletion trigger (erasure, requeue, time zone change,
--   retention, re-keying, rebuild) and 0040's conversion-event recompute keep the counts without code of
--   their own. A row's converters count uses converted_at, which is always of the campaign's configured
--   event (0040 keeps it so; NULL without one), so the conversion event is not part of the counting.
--
-- * The counting reads the campaign's window and zone when a row changes; a change of either changes no row,
--   so it recounts the campaign's counts from its rows (an app's zone: the app's campaigns), in a statement
--   trigger of campaign_settings or apps that runs after their row triggers (0015's requeue of a zone change,
--   0040's recompute), under the state lock as 0040's recompute takes it, so that no fold interleaves. That
--   also mends whatever the row triggers subtracted under the new settings.
--
-- * Rows that reach zero users are deleted at once (a partial index finds them), so that the table is the
--   aggregate exactly (no zero rows), and the backfill equals what the triggers build.
--
-- * A day is read from counts when the window is the configured one (no override, or an override with the
--   same months, days and time — compared as text, since '1 day' = '24 hours' for the = operator but not for
--   report_window_end) and every exposure of it has matured at as_of. The latest window end of a local day d:
--   its exposures' local times plus the window's months and days fill the local interval [A, A + 1 day) with
--   A = d + those months and days, and the hours are added after. A local time maps to UTC monotonically
--   except in a skipped hour, where the mapping overshoots by at most the hour skipped; the interval's
--   length in UTC falls short of 24 hours by exactly that much (one transition per day). So the bound is
--   (A + 1 day) in the zone + hours + that shortfall. The days read from counts are those before the range's
--   first day that fails the bound, so the count days are a prefix of the range whatever the zone does.
--
-- * The pending events (0015, 0021, 0025): the rows report_pending_control_exposures gives replace the
--   folded rows of the users they touch. In the row days the folded rows are skipped as in 0040; in the count
--   days the replaced folded rows (found by primary key) are subtracted one by one, and every pending row of
--   the range is added one by one, each with its own maturity, window end and arm.
--
-- * exposed_users counts every exposed user of the range, matured or not: from counts for the count days,
--   from the per-user rows (which the report reads anyway) for the others.
--
-- * No plan hinges on a row estimate: the counts and the replaced rows are index conditions on arrays
--   (`= any(array(...))`), the row days an index range per campaign in a lateral loop (each campaign its own
--   days: a window of 1 day reads 1 day, not the longest window's 7), every other join and aggregate is hashed
--   (enable_nestloop, enable_sort and jit off), the CTEs read more than once are materialized.
--
-- * report_window_end (0044) is rewritten with the same instants: its body added the hours to a timestamptz,
--   which is a stable operator, and PostgreSQL inlines an immutable SQL function only when its body is
--   immutable, so each call was a function call (two per user read: most of a report's time).
--
-- * Not done: when as_of falls inside the range, the days none of whose exposures have matured are read as
--   per-user rows too, though they only add exposed users (which the counts hold).
--
-- * Measured in psql on 300 k events of scripts/bench/seed_reports.sql, folded and analyzed, as of the day after
--   the range, load average 1.3–9: one campaign (the largest) 33–90 ms before, 17–46 ms after; all campaigns
--   394–504 ms before, 104–138 ms after. The triggers on the 112 k rows: +1.2 s to delete them all, +1–2 s to
--   insert them all, under +1 s to update them all; a rebuild of the 300 k events 50–56 s with them, 58 s
--   without (load 1.2–1.6; noise larger than the difference). The backfill took about 1 s.
--
-- * The migration fills the counts from report_control_exposures (no requeue): the rows hold every folded
--   event's contribution, the counts are defined as their aggregate, and the triggers keep them from here on.


-- 0044's window end, the same instants, in a body the planner can inline: 0044's added the hours to a
-- timestamptz, an operator that is only stable (it adds days in the session's zone), and PostgreSQL does not
-- inline an immutable function whose body is not, so every row called it as a function (two calls per user
-- read: all campaigns of 300 k events took 365–460 ms with the calls, 189–202 ms inlined). The hours are added
-- to the UTC wall time instead, which is elapsed time there.
create or replace function cardinal.report_window_end(started_at timestamptz, window_length interval, time_zone text)
    returns timestamptz
    language sql
    immutable
    parallel safe
as $function$
    select ((((report_window_end.started_at at time zone report_window_end.time_zone)
              + date_trunc('day', report_window_end.window_length)) at time zone report_window_end.time_zone
             at time zone 'UTC')
            + (report_window_end.window_length - date_trunc('day', report_window_end.window_length)))
           at time zone 'UTC'
$function$;

comment on function cardinal.report_window_end(timestamptz, interval, text) is
    'The end of a conversion window of window_length that starts at started_at: its months and days added on '
    'the calendar of time_zone (the campaign''s report time zone), its hours as elapsed time, as a session in '
    'that zone adds them, so that it is the same whatever the session''s TimeZone (0044); inlined by the '
    'planner (0046).';


create table cardinal.report_control_exposure_days (
    app_id         bigint not null,
    campaign_id    text   not null,
    exposed_day    date   not null,
    control        boolean not null,
    variant_key    text   not null,
    second_arm_day date   not null,
    users          bigint not null,
    converters     bigint not null,

    constraint report_control_exposure_days_pkey
        primary key (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_control_exposure_days_emptied_idx
    on cardinal.report_control_exposure_days (app_id)
    where users = 0;

alter table cardinal.report_control_exposure_days owner to cardinal_owner;

comment on index cardinal.report_control_exposure_days_emptied_idx is
    'The rows the last change brought to zero users, which the counting trigger deletes (0046).';

comment on table cardinal.report_control_exposure_days is
    'Report state of the control report (0046): per app, campaign, local exposure day, arm and local day of '
    'the second arm, the report_control_exposures rows and those of them converted within the campaign''s '
    'window (report_window_end, in the campaign''s report time zone). An aggregate of '
    'report_control_exposures kept by triggers; control_arms reads it for the days matured at as_of.';
comment on column cardinal.report_control_exposure_days.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_control_exposure_days.campaign_id is 'The campaign.';
comment on column cardinal.report_control_exposure_days.exposed_day is
    'Local day of exposed_at in the campaign''s report time zone (else the app''s).';
comment on column cardinal.report_control_exposure_days.control is 'Whether the first exposure was in the control arm.';
comment on column cardinal.report_control_exposure_days.variant_key is
    'Variant of the first exposure''s arm; '''' when it has none (the control arm; variant ids are never empty).';
comment on column cardinal.report_control_exposure_days.second_arm_day is
    'Local day of second_arm_at in the same zone; ''infinity'' when the users met one arm only.';
comment on column cardinal.report_control_exposure_days.users is 'How many users (report_control_exposures rows).';
comment on column cardinal.report_control_exposure_days.converters is
    'How many of them converted within the campaign''s configured window: converted_at <= '
    'report_window_end(exposed_at, window, zone).';


-- The counts the rows make: the backfill, a recount and the tests read it.
create view cardinal.report_control_exposure_days_of_rows as
select r.app_id, r.campaign_id,
       (r.exposed_at at time zone clock.time_zone)::date as exposed_day,
       r.control,
       coalesce(r.variant_id, '') as variant_key,
       coalesce((r.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
       count(*) as users,
       count(*) filter (
           where r.converted_at <= cardinal.report_window_end(r.exposed_at, clock.window_length, clock.time_zone)
       ) as converters
from cardinal.report_control_exposures as r
join cardinal.apps as a on a.app_id = r.app_id
left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
cross join lateral (
    select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
           coalesce(s.conversion_window, interval '3 days') as window_length
) as clock
group by 1, 2, 3, 4, 5, 6;

alter view cardinal.report_control_exposure_days_of_rows owner to cardinal_owner;

comment on view cardinal.report_control_exposure_days_of_rows is
    'report_control_exposure_days computed from report_control_exposures and the current settings: what the '
    'triggers keep the table equal to (0046).';

do $comments$
declare
    target record;
begin
    for target in
        select a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from pg_catalog.pg_attribute as a
        join pg_catalog.pg_attribute as t
            on t.attrelid = 'cardinal.report_control_exposure_days'::regclass and t.attname = a.attname
        where a.attrelid = 'cardinal.report_control_exposure_days_of_rows'::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.report_control_exposure_days_of_rows.%I is %L',
                       target.column_name, target.description);
    end loop;
end
$comments$;


-- The statement triggers of report_control_exposures: the changed rows' contribution, added or subtracted.
create function cardinal.count_control_exposure_days()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins, and a hash aggregate of the changed rows before the
    -- one sort of the few counts they touch (sorting every changed row by the six keys took twice as long).
    set enable_nestloop = off
    set enable_sort = off
    set jit = off
as $function$
declare
    changes text;
begin
    -- Each trigger declares only the transition tables of its event; the one statement below reads them
    -- through EXECUTE, so that it is written once.
    changes := case tg_op
        when 'INSERT' then 'select 1 as sign, n.* from added as n'
        when 'DELETE' then 'select -1 as sign, o.* from removed as o'
        else 'select 1 as sign, n.* from added as n union all select -1 as sign, o.* from removed as o'
    end;
    execute format($statement$
        with delta as materialized (
            select c.app_id, c.campaign_id,
                   (c.exposed_at at time zone clock.time_zone)::date as exposed_day,
                   c.control,
                   coalesce(c.variant_id, '') as variant_key,
                   coalesce((c.second_arm_at at time zone clock.time_zone)::date, 'infinity') as second_arm_day,
                   sum(c.sign) as users,
                   coalesce(sum(c.sign) filter (
                       where c.converted_at
                             <= cardinal.report_window_end(c.exposed_at, clock.window_length, clock.time_zone)
                   ), 0) as converters
            from (%s) as c
            join cardinal.apps as a on a.app_id = c.app_id
            left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
            cross join lateral (
                select coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
                       coalesce(s.conversion_window, interval '3 days') as window_length
            ) as clock
            group by 1, 2, 3, 4, 5, 6
        )
        insert into cardinal.report_control_exposure_days as d
        select *
        from delta
        -- An update that leaves a row where it was (most of a fold's) changes nothing.
        where users <> 0 or converters <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day
        on conflict (app_id, campaign_id, exposed_day, control, variant_key, second_arm_day) do update set
            users = d.users + excluded.users,
            converters = d.converters + excluded.converters
    $statement$, changes);
    if tg_op <> 'INSERT' then
        delete from cardinal.report_control_exposure_days where users = 0;
    end if;
    return null;
end
$function$;

alter function cardinal.count_control_exposure_days() owner to cardinal_owner;

revoke execute on function cardinal.count_control_exposure_days() from public;

comment on function cardinal.count_control_exposure_days() is
    'Statement trigger of report_control_exposures (0046): adds the inserted and new rows to '
    'report_control_exposure_days and subtracts the deleted and old ones, with the campaign''s current window '
    'and zone; deletes the counts that reach zero.';

create trigger report_control_exposures_count_inserted
    after insert on cardinal.report_control_exposures
    referencing new table as added
    for each statement
    execute function cardinal.count_control_exposure_days();

create trigger report_control_exposures_count_updated
    after update on cardinal.report_control_exposures
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_control_exposure_days();

create trigger report_control_exposures_count_deleted
    after delete on cardinal.report_control_exposures
    referencing old table as removed
    for each statement
    execute function cardinal.count_control_exposure_days();

comment on trigger report_control_exposures_count_inserted on cardinal.report_control_exposures is
    'Keeps report_control_exposure_days the aggregate of the rows (0046).';
comment on trigger report_control_exposures_count_updated on cardinal.report_control_exposures is
    'Keeps report_control_exposure_days the aggregate of the rows (0046).';
comment on trigger report_control_exposures_count_deleted on cardinal.report_control_exposures is
    'Keeps report_control_exposure_days the aggregate of the rows (0046).';


-- 0040's trigger that deletes the rows of forgotten users joins a transition table, which has no statistics,
-- to the rows: on a small estimate the planner may loop over the rows once per forgotten user (0043's twin of
-- it ran for over ten minutes in a requeue of 300 k events' state while measuring this migration). Hashed
-- whatever the estimate, as the reports are; the deletes it makes then count themselves here.
alter function cardinal.forget_report_control_exposures() set enable_nestloop = off;
alter function cardinal.forget_report_control_exposures() set jit = off;


-- A recount of one campaign's counts, or of an app's (campaign NULL), from the rows.
create function cardinal.recount_control_exposure_days(app_id bigint, campaign_id text)
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if recount_control_exposure_days.campaign_id is null then
        delete from cardinal.report_control_exposure_days as d
        where d.app_id = recount_control_exposure_days.app_id;
        insert into cardinal.report_control_exposure_days
        select * from cardinal.report_control_exposure_days_of_rows as r
        where r.app_id = recount_control_exposure_days.app_id;
    else
        delete from cardinal.report_control_exposure_days as d
        where d.app_id = recount_control_exposure_days.app_id
          and d.campaign_id = recount_control_exposure_days.campaign_id;
        insert into cardinal.report_control_exposure_days
        select * from cardinal.report_control_exposure_days_of_rows as r
        where r.app_id = recount_control_exposure_days.app_id
          and r.campaign_id = recount_control_exposure_days.campaign_id;
    end if;
end
$function$;

alter function cardinal.recount_control_exposure_days(bigint, text) owner to cardinal_owner;

revoke execute on function cardinal.recount_control_exposure_days(bigint, text) from public;

comment on function cardinal.recount_control_exposure_days(bigint, text) is
    'Makes report_control_exposure_days of a campaign (of every campaign of the app when campaign_id is NULL) '
    'anew from report_control_exposures and the current settings (0046). The caller holds the state lock.';


-- Settings that change the counting: a campaign's window or zone, an app's zone.
create function cardinal.recount_control_exposure_days_of_settings()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target record;
begin
    for target in execute case tg_table_name
        when 'apps' then
            'select n.app_id, null::text as campaign_id
             from added as n join removed as o using (app_id)
             where n.report_time_zone is distinct from o.report_time_zone'
        else case tg_op
            when 'INSERT' then 'select app_id, campaign_id from added'
            when 'DELETE' then 'select app_id, campaign_id from removed'
            -- As text: '1 day' and '24 hours' are equal intervals but end a window differently across a
            -- daylight-saving change. A new conversion event changes the rows, which count themselves.
            else 'select n.app_id, n.campaign_id
                  from added as n join removed as o using (app_id, campaign_id)
                  where (n.conversion_window::text, n.report_time_zone)
                        is distinct from (o.conversion_window::text, o.report_time_zone)'
            end
        end
    loop
        -- Waits for a running fold, as 0040's recompute does: the rows read are the ones it left.
        perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
        perform cardinal.recount_control_exposure_days(target.app_id, target.campaign_id);
    end loop;
    return null;
end
$function$;

alter function cardinal.recount_control_exposure_days_of_settings() owner to cardinal_owner;

revoke execute on function cardinal.recount_control_exposure_days_of_settings() from public;

comment on function cardinal.recount_control_exposure_days_of_settings() is
    'Statement trigger of campaign_settings and apps (0046): recounts report_control_exposure_days of the '
    'campaigns whose window or zone changed (of the app whose zone changed), after their row triggers, under '
    'the state lock.';

create trigger campaign_settings_recount_control_exposure_days_inserted
    after insert on cardinal.campaign_settings
    referencing new table as added
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();

create trigger campaign_settings_recount_control_exposure_days_updated
    after update on cardinal.campaign_settings
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();

create trigger campaign_settings_recount_control_exposure_days_deleted
    after delete on cardinal.campaign_settings
    referencing old table as removed
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();

create trigger apps_recount_control_exposure_days
    after update on cardinal.apps
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.recount_control_exposure_days_of_settings();

comment on trigger campaign_settings_recount_control_exposure_days_inserted on cardinal.campaign_settings is
    'A campaign''s window or zone set: its control counts anew (0046).';
comment on trigger campaign_settings_recount_control_exposure_days_updated on cardinal.campaign_settings is
    'A campaign''s window or zone changed: its control counts anew (0046).';
comment on trigger campaign_settings_recount_control_exposure_days_deleted on cardinal.campaign_settings is
    'A campaign''s settings removed: its control counts anew with the defaults (0046).';
comment on trigger apps_recount_control_exposure_days on cardinal.apps is
    'An app''s report time zone changed: its control counts anew (0046).';


-- The control report of campaigns from the counts and, for the days the as-of time cuts, the rows.
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
    -- The campaigns reported (0040), with their settings, the range's bounds in their zone and the first day
    -- of the range that the counts do not answer (see the notes): the range's end + 1 when they answer all.
    sources as materialized (
        select t.app_id, t.app_name, c.campaign_id, s.conversion_event, clock.window_length, zone.name as time_zone,
               control_arms_from_exposures.from_date::timestamp at time zone zone.name as lower_time,
               (control_arms_from_exposures.to_date + 1)::timestamp at time zone zone.name as upper_time,
               split.day as split_day,
               split.day::timestamp at time zone zone.name as split_time
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
    ),
    -- The counts of the count days.
    counted as (
        select s.app_name, s.campaign_id, s.conversion_event, s.window_length,
               several.arms as several_arms,
               case when not several.arms then nullif(d.variant_key, '') end as variant_id,
               case when not several.arms then d.control end as control,
               d.users as exposed, d.users, d.converters
        from cardinal.report_control_exposure_days as d
        join sources as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        cross join lateral (select d.second_arm_day <= control_arms_from_exposures.to_date as arms) as several
        where d.app_id = any(array(select t.app_id from target as t))
          and d.campaign_id = any(array(select s.campaign_id from sources as s))
          and d.exposed_day >= control_arms_from_exposures.from_date
          and d.exposed_day < (select max(s.split_day) from sources as s)
          and d.exposed_day < s.split_day
    ),
    -- The folded rows of the other days: an index range per campaign, each its own days, in a loop over the
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
              and r.exposed_at < s.upper_time
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
          and (x.in_row_days is null or x.in_row_days = (x.exposed_at >= s.split_time))
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
    'as_of with the configured window (0046), else from report_control_exposures, with the pending events'' '
    'change (report_pending_control_exposures); the window ends on the campaign''s clock (0044). control_arms '
    'calls it when it can.';


-- The per-user state's control report (0039's body, 0040's name, 0042's report_user_facts_of) with the window
-- on the campaign's clock (the canvas's: the app's zone, its report days' zone).
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
        where cardinal.check_report_range(control_arms_from_user_state.from_date, control_arms_from_user_state.to_date)
          and cardinal.check_control_source(control_arms_from_user_state.campaign, control_arms_from_user_state.canvas)
          and (control_arms_from_user_state.app is null or a.name = control_arms_from_user_state.app)
    ),
    -- Each user's first exposure per arm and report group, before the end of the range: the first
    -- impression (the first send too for push) in the variant arm, the first control impression (control
    -- send for push) in the control arm. The source's settings ride along, so that no later step joins the
    -- users back to their campaign (a join of per-user sets is what a wrong row estimate turns quadratic;
    -- see 0014). A canvas event has no campaign_id, so coalesce(campaign_id, canvas_id) is the source of
    -- either mode.
    group_exposures as (
        select t.app_id, t.app_name, coalesce(u.campaign_id, u.canvas_id) as source_id, u.user_key, x.control,
               x.variant_id, x.first_time, source.conversion_event, source.window_length, day.zone as time_zone,
               source.lower_time
        from target as t
        join cardinal.report_user_facts_of(control_arms_from_user_state.campaign,
                                           control_arms_from_user_state.canvas) as u
            on u.app_id = t.app_id
        left join cardinal.campaign_settings as s
            on s.app_id = u.app_id and s.campaign_id = coalesce(u.campaign_id, u.canvas_id)
        cross join lateral (
            select coalesce(case when control_arms_from_user_state.canvas is null then s.report_time_zone end,
                            t.report_time_zone) as zone
        ) as day
        cross join lateral (
            select coalesce(control_arms_from_user_state.conversion, s.conversion_event) as conversion_event,
                   coalesce(control_arms_from_user_state.conversion_window, s.conversion_window, interval '3 days')
                       as window_length,
                   control_arms_from_user_state.from_date::timestamp at time zone day.zone as lower_time,
                   (control_arms_from_user_state.to_date + 1)::timestamp at time zone day.zone as upper_time
        ) as source
        cross join lateral (
            values (false, u.variant_id,
                    least(u.first_impression_at, case when u.channel = 'push' then u.first_send_at end)),
                   (true, null::text,
                    least(u.first_control_impression_at,
                          case when u.channel = 'push' then u.first_control_send_at end))
        ) as x (control, variant_id, first_time)
        where case when control_arms_from_user_state.canvas is null
                   then u.campaign_id is not null
                        and (control_arms_from_user_state.campaign is null
                             or u.campaign_id = control_arms_from_user_state.campaign)
                   else u.canvas_id = control_arms_from_user_state.canvas end
          and (control_arms_from_user_state.include_test or not u.test)
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
          and (control_arms_from_user_state.include_test or not v.test)
          -- Only a conversion that can decide whether an exposed user converted: the user's, of the event
          -- their campaign counts. Without this, a report of one campaign sorted every conversion of the app.
          and (v.app_id, v.user_key, v.conversion_name) in (
              select x.app_id, x.user_key, x.conversion_event from exposed as x
          )
    ),
    cohort as (
        select app_name, source_id, conversion_event, window_length, variant_id, control,
               arms > 1 as several_arms,
               window_end <= control_arms_from_user_state.as_of as matured,
               arms = 1
                   and window_end <= control_arms_from_user_state.as_of
                   and coalesce(next_conversion <= window_end, false) as converted
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
               cardinal.report_window_end(exposed_at, window_length, time_zone) <= control_arms_from_user_state.as_of,
               false
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
           case when control_arms_from_user_state.canvas is null then source_id end,
           conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms,
           case when control_arms_from_user_state.canvas is not null then source_id end
    from arms
    where not several_arms
    order by app_name, source_id, control desc, variant_id nulls first;
$function$;

comment on function cardinal.control_arms_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'control_arms computed from the per-user report state (report_user_facts_of, report_conversion_facts; '
    '0039''s body): any canvas, include_test and conversion event. control_arms calls it when the control '
    'exposures cannot answer (0040). The window ends by report_window_end in the report days'' zone (0046).';


-- The reference over raw events (0034's body, identified_events since 0032), the window likewise.
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
               coalesce(control_arms_reference.conversion_window, s.conversion_window, interval '3 days')
                   as window_length,
               c.zone as time_zone,
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
               c.app_name, c.conversion_event, c.window_length, c.time_zone, c.lower_time,
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
    ),
    -- The conversion of each matured user is one probe of events_conversion_idx (a correlated EXISTS on the
    -- events, not on a CTE: its cost is per user, whatever the estimates).
    cohort as (
        select x.app_name, x.source_id, x.conversion_event, x.window_length, x.variant_id, x.control,
               x.arms > 1 as several_arms,
               window_end.time <= control_arms_reference.as_of as matured,
               x.arms = 1
                   and window_end.time <= control_arms_reference.as_of
                   and x.conversion_event is not null
                   and exists (
                       select
                       from cardinal.identified_events as v
                       where v.type = 'conversion'
                         and v.app_id = x.app_id
                         and v.user_key = x.user_key
                         and v.conversion_name = x.conversion_event
                         and v.time >= x.exposed_at
                         and v.time <= window_end.time
                         and (control_arms_reference.include_test or not v.test)
                   ) as converted
        from exposed as x
        cross join lateral (
            select cardinal.report_window_end(x.exposed_at, x.window_length, x.time_zone) as time
        ) as window_end
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

comment on function cardinal.control_arms_reference(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'Reference implementation of control_arms over the raw events (0012, 0014, 0034), identities merged '
    '(identified_events, 0032): the same arguments and rows, computed without the report state; the window '
    'ends by report_window_end in the report days'' zone (0046). Slow on large apps; for checking numbers and '
    'tests.';


grant select on cardinal.report_control_exposure_days, cardinal.report_control_exposure_days_of_rows
    to cardinal_reader;


-- The counts of the rows folded so far (see the notes: exact without a requeue).
insert into cardinal.report_control_exposure_days
select * from cardinal.report_control_exposure_days_of_rows
order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day;
