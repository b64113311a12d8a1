-- 0055_send_arm_day_pairs.sql — send_arms without test events sums day pairs per campaign × arm, kept from the
-- per-user state by statement triggers (issue 8).
--
-- Design notes (why, not what):
--
-- * send_arms (0027, 0053) counts per campaign × arm (the send's variant, or control for control sends) the
--   distinct users with a send on a report day of the range, each user once across its groups (channel,
--   platform, SDK and app version). 0053 still read every state row of the app and hashed them by user: 21 s of
--   the control command's 38 s for all campaigns at 10 M events. 0025's day pairs answer "distinct users over
--   any range of days" from counts: per arm, day and previous day of each user's sorted day set, the users;
--     distinct users in [from, to] = sum of users where day in [from, to] and previous_day < from.
--   report_arm_day_users keeps those counts, so send_arms reads a few hundred rows per campaign.
--
-- * The pairs are of each user's days per arm across the user's groups, so report_arm_user_days keeps them per
--   user, arm and day, with how many of the user's groups (state rows) hold the day: a state row that loses a
--   day (a deletion: erasure, requeue, retention, rebuild, re-keying) takes the day out of the user's set only
--   when no other group holds it. Test groups are left out (send_arms with include_test reads the per-user
--   state as 0053 did, 0053's body kept as send_arms_from_user_state), and so are canvases (send_arms knows
--   campaigns only). The control arm has no variant (variant_key ''; variant ids are never empty): a user with
--   control sends under two variant ids counts once, as in 0027.
--
-- * Statement triggers with transition tables on report_user_state's inserts, updates and deletes (as 0045,
--   0046 and 0049 keep theirs; fold_report_state is not touched) net the changed rows' days per user, arm and
--   day (a row's days are a set: the fold's `||` can repeat a day within a row, which counts once), apply the
--   net to report_arm_user_days, and move the pairs of the arms whose day set changed: a day gaining its first
--   group or losing its last. Those arms' pairs before (from the user's kept days) are subtracted and after
--   (kept days plus the net) added, in one statement, netted per pair. Most of a fold's updates change no send
--   day and net to nothing. Counts and days that reach zero are deleted at once (partial indexes find them), so
--   that the tables are exactly what the state makes (report_arm_user_days_of_rows, report_arm_day_users_of_rows).
--
-- * report_arm_user_days leads with user_key: the triggers and the pending part find the users' rows with
--   `user_key = any(array(...))`, an index condition whatever the estimates (a hash join of a transition table,
--   which has no statistics, with every user's days would read the whole table on each fold).
--
-- * Pending (unfolded) events only add days (report_pending_user_facts is folded in by union), so a pending
--   user adds to an arm exactly when it has a pending day in the range and no folded day of that arm in it:
--   send_arms counts those users (their folded days by user key) on top of the folded pairs. Exact while
--   events wait for the fold, as 0025's report_pending_row_day_users keeps unique_impressions.
--
-- * No plan hinges on a row estimate: the counts are read by (app_id, campaign_id) index conditions on arrays,
--   every join and aggregate is hashed (enable_nestloop and jit off), the CTEs read more than once are
--   materialized.
--
-- * The migration fills both tables from the folded state under a share lock on report_user_state (no fold
--   interleaves) and then creates the triggers.
--
-- * Measured in psql (jit off, work_mem 64MB) on the 10 M-event bench (scripts/bench/seed_reports.sql, 4.1 M state
--   rows, report days 2026-11-01..30), on a machine shared with other sessions' test runs: before (0053), load
--   average 7–12, all campaigns (234 rows) 65.3 / 91.7 / 79.4 s, c17 0.90–2.72 s, c38 1.72–2.23 s; after, load
--   average 10.3–10.4, all campaigns 0.29 / 0.30 / 0.37 s, c17 21–25 ms, c38 28–52 ms; at load average 2.5, all
--   campaigns 46–61 ms (about 30 ms of it the look for unfolded events), c17 7–8 ms, c38 7–10 ms. md5 of the
--   ordered rows equal before and after for all campaigns, c17, c38, 2026-11-10..16 and, with test events,
--   2026-11-03..05.
--   `cardinal report control --app bench` for November (as of 2026-12-05, JSON, 16 campaigns' splits learned
--   from sends) then took 3.36–3.51 s at load average 4–6.6, against 38 s before under CI load.
--   The migration took 3 min 39 s there (load average 10–11): 4,387,428 rows in report_arm_user_days (474 MB with
--   its index), 83,431 in report_arm_day_users (9 MB).
--
-- * What the triggers cost, on the 274,884 state rows of c17 and c38 in a transaction rolled back (load average
--   10–11, a property test running): an update that gives every row a send day none of the user's groups had (a
--   fold's worst case: every arm's pairs move) 145 s against 12 s with the trigger disabled; an update that
--   changes no send day (most of a fold's) 25.6 s against 12.1 s; deleting the rows (a requeue) 251 s against
--   104 s with the other deletion triggers alone.
--
-- * The triggers leave out, before unnesting or joining anything, the rows without a send day and the updated
--   rows whose send days did not change (an anti-join of the transition tables on the primary key): most of a
--   fold's updates are impressions and clicks. The figures above were taken before that filter.
--
-- * Not done: a requeue or rebuild still pays for every pair it takes out, and the index on
--   report_arm_user_days is probed per user. Not measured on a whole rebuild.


create table cardinal.report_arm_user_days (
    user_key    text    not null,
    app_id      bigint  not null,
    campaign_id text    not null,
    control     boolean not null,
    variant_key text    not null,
    day         date    not null,
    groups      integer not null,

    constraint report_arm_user_days_pkey primary key (user_key, app_id, campaign_id, control, variant_key, day)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_arm_user_days_emptied_idx
    on cardinal.report_arm_user_days (user_key)
    where groups = 0;

alter table cardinal.report_arm_user_days owner to cardinal_owner;

comment on table cardinal.report_arm_user_days is
    'Report state of send_arms (0055): per user, app, campaign, arm and report day with a send of that arm, '
    'how many of the user''s non-test state rows (report_user_state groups) hold the day. Kept by triggers on '
    'report_user_state; the days under report_arm_day_users.';
comment on column cardinal.report_arm_user_days.user_key is 'The user (events.user_key).';
comment on column cardinal.report_arm_user_days.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_arm_user_days.campaign_id is 'The campaign.';
comment on column cardinal.report_arm_user_days.control is 'Whether the arm is control (control sends).';
comment on column cardinal.report_arm_user_days.variant_key is
    'The sends'' variant_id; '''' when it has none and for the control arm (variant ids are never empty).';
comment on column cardinal.report_arm_user_days.day is 'A report day with a send of the arm.';
comment on column cardinal.report_arm_user_days.groups is
    'How many of the user''s report_user_state rows (non-test groups of the campaign) hold the day; a row '
    'that reaches 0 is deleted in the same statement.';
comment on index cardinal.report_arm_user_days_emptied_idx is
    'The rows the last change brought to zero groups, which the counting trigger deletes (0055).';


create table cardinal.report_arm_day_users (
    app_id       bigint  not null,
    campaign_id  text    not null,
    control      boolean not null,
    variant_key  text    not null,
    day          date    not null,
    previous_day date    not null,
    users        bigint  not null,

    constraint report_arm_day_users_pkey primary key (app_id, campaign_id, control, variant_key, day, previous_day),
    constraint report_arm_day_users_order check (previous_day < day)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_arm_day_users_emptied_idx
    on cardinal.report_arm_day_users (app_id)
    where users = 0;

alter table cardinal.report_arm_day_users owner to cardinal_owner;

comment on table cardinal.report_arm_day_users is
    'Report state of send_arms (0055): 0025''s day pairs per app, campaign and arm: the users whose sorted '
    'send days of the arm (report_arm_user_days) hold day with previous_day the one before it. Distinct users '
    'of from..to = sum of users with day in from..to and previous_day < from.';
comment on column cardinal.report_arm_day_users.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_arm_day_users.campaign_id is 'The campaign.';
comment on column cardinal.report_arm_day_users.control is 'Whether the arm is control (control sends).';
comment on column cardinal.report_arm_day_users.variant_key is
    'The sends'' variant_id; '''' when it has none and for the control arm.';
comment on column cardinal.report_arm_day_users.day is 'A report day with a send of the arm.';
comment on column cardinal.report_arm_day_users.previous_day is
    'The user''s previous send day of the arm, -infinity for the first.';
comment on column cardinal.report_arm_day_users.users is
    'How many users; a row that reaches 0 is deleted in the same statement.';
comment on index cardinal.report_arm_day_users_emptied_idx is
    'The rows the last change brought to zero users, which the counting trigger deletes (0055).';


-- What the state makes: the backfill and the tests read these; the triggers keep the tables equal to them.
create view cardinal.report_arm_user_days_of_rows as
select s.user_key, s.app_id, s.campaign_id, s.control, s.variant_key, s.day, count(*)::integer as groups
from (
    -- Distinct per state row: the fold's `||` can repeat a day within a row.
    select distinct u.group_id, u.user_key, g.app_id, g.campaign_id, false as control,
           coalesce(g.variant_id, '') as variant_key, d.day
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    cross join unnest(u.send_days) as d (day)
    where g.campaign_id is not null and not g.test and d.day is not null
    union all
    select distinct u.group_id, u.user_key, g.app_id, g.campaign_id, true, '', d.day
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    cross join unnest(u.control_send_days) as d (day)
    where g.campaign_id is not null and not g.test and d.day is not null
) as s
group by 1, 2, 3, 4, 5, 6;

alter view cardinal.report_arm_user_days_of_rows owner to cardinal_owner;

comment on view cardinal.report_arm_user_days_of_rows is
    'report_arm_user_days computed from report_user_state: what the triggers keep the table equal to (0055).';

create view cardinal.report_arm_day_users_of_rows as
select p.app_id, p.campaign_id, p.control, p.variant_key, p.day, p.previous_day, count(*) as users
from (
    select r.app_id, r.campaign_id, r.control, r.variant_key, r.day,
           coalesce(lag(r.day) over (partition by r.user_key, r.app_id, r.campaign_id, r.control, r.variant_key
                                     order by r.day),
                    '-infinity') as previous_day
    from cardinal.report_arm_user_days_of_rows as r
) as p
group by 1, 2, 3, 4, 5, 6;

alter view cardinal.report_arm_day_users_of_rows owner to cardinal_owner;

comment on view cardinal.report_arm_day_users_of_rows is
    'report_arm_day_users computed from report_user_state (the pairs of report_arm_user_days_of_rows): what '
    'the triggers keep the table equal to (0055).';

-- The views' columns mean what the tables' do.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from (
            values ('report_arm_user_days_of_rows', 'cardinal.report_arm_user_days'::regclass),
                   ('report_arm_day_users_of_rows', 'cardinal.report_arm_day_users'::regclass)
        ) as v (view_name, state_table)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
        join pg_catalog.pg_attribute as t on t.attrelid = v.state_table and t.attname = a.attname
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- The statement triggers of report_user_state: the changed rows' send days, netted and applied, and the pairs
-- of the arms whose day set changed moved.
create function cardinal.count_arm_day_users()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates.
    set enable_nestloop = off
    set jit = off
as $function$
declare
    changes text;
begin
    -- Each trigger declares only the transition tables of its event; the one statement below reads them
    -- through EXECUTE, so that it is written once. Rows without a send day add nothing, and an update that
    -- keeps a row's send days (most of a fold's: impressions, clicks) would net to nothing: both are left out
    -- before anything is unnested or joined.
    changes := case tg_op
        when 'INSERT' then
            'select 1 as sign, n.group_id, n.user_key, n.send_days, n.control_send_days from added as n
             where n.send_days is not null or n.control_send_days is not null'
        when 'DELETE' then
            'select -1 as sign, o.group_id, o.user_key, o.send_days, o.control_send_days from removed as o
             where o.send_days is not null or o.control_send_days is not null'
        else 'select 1 as sign, n.group_id, n.user_key, n.send_days, n.control_send_days from added as n
              where (n.send_days is not null or n.control_send_days is not null)
                and not exists (
                    select from removed as o
                    where o.group_id = n.group_id and o.user_key = n.user_key
                      and o.send_days is not distinct from n.send_days
                      and o.control_send_days is not distinct from n.control_send_days)
              union all
              select -1 as sign, o.group_id, o.user_key, o.send_days, o.control_send_days from removed as o
              where (o.send_days is not null or o.control_send_days is not null)
                and not exists (
                    select from added as n
                    where n.group_id = o.group_id and n.user_key = o.user_key
                      and n.send_days is not distinct from o.send_days
                      and n.control_send_days is not distinct from o.control_send_days)'
    end;
    execute format($statement$
        with changed as materialized (%s),
        -- Per user, arm and day, the groups gained or lost; an update that keeps a row's days nets to nothing.
        delta as materialized (
            select s.user_key, s.app_id, s.campaign_id, s.control, s.variant_key, s.day,
                   sum(s.sign)::integer as groups
            from (
                select distinct c.sign, c.group_id, c.user_key, g.app_id, g.campaign_id, false as control,
                       coalesce(g.variant_id, '') as variant_key, d.day
                from changed as c
                join cardinal.report_groups as g on g.group_id = c.group_id
                cross join unnest(c.send_days) as d (day)
                where g.campaign_id is not null and not g.test and d.day is not null
                union all
                select distinct c.sign, c.group_id, c.user_key, g.app_id, g.campaign_id, true, '', d.day
                from changed as c
                join cardinal.report_groups as g on g.group_id = c.group_id
                cross join unnest(c.control_send_days) as d (day)
                where g.campaign_id is not null and not g.test and d.day is not null
            ) as s
            group by 1, 2, 3, 4, 5, 6
            having sum(s.sign) <> 0
        ),
        kept as materialized (
            select k.user_key, k.app_id, k.campaign_id, k.control, k.variant_key, k.day, k.groups
            from cardinal.report_arm_user_days as k
            where k.user_key = any(array(select distinct d.user_key from delta as d))
        ),
        -- The arms whose day set changes: a day that gains its first group or loses its last.
        moved as materialized (
            select distinct d.user_key, d.app_id, d.campaign_id, d.control, d.variant_key
            from delta as d
            left join kept as k using (user_key, app_id, campaign_id, control, variant_key, day)
            where coalesce(k.groups, 0) = 0 or coalesce(k.groups, 0) + d.groups = 0
        ),
        days as (
            select -1 as sign, k.user_key, k.app_id, k.campaign_id, k.control, k.variant_key, k.day
            from kept as k
            join moved as m using (user_key, app_id, campaign_id, control, variant_key)
            union all
            select 1, x.user_key, x.app_id, x.campaign_id, x.control, x.variant_key, x.day
            from (
                select user_key, app_id, campaign_id, control, variant_key, day,
                       coalesce(k.groups, 0) + coalesce(d.groups, 0) as groups
                from (
                    select k.user_key, k.app_id, k.campaign_id, k.control, k.variant_key, k.day, k.groups
                    from kept as k
                    join moved as m using (user_key, app_id, campaign_id, control, variant_key)
                ) as k
                full join (
                    select d.user_key, d.app_id, d.campaign_id, d.control, d.variant_key, d.day, d.groups
                    from delta as d
                    join moved as m using (user_key, app_id, campaign_id, control, variant_key)
                ) as d using (user_key, app_id, campaign_id, control, variant_key, day)
            ) as x
            where x.groups > 0
        ),
        pairs as (
            select y.sign, y.app_id, y.campaign_id, y.control, y.variant_key, y.day,
                   coalesce(lag(y.day) over (partition by y.sign, y.user_key, y.app_id, y.campaign_id, y.control,
                                                          y.variant_key
                                             order by y.day),
                            '-infinity') as previous_day
            from days as y
        ),
        stored as (
            insert into cardinal.report_arm_user_days as u
            select *
            from delta
            -- One order for every writer, so that two never wait for each other's rows the other way round.
            order by user_key, app_id, campaign_id, control, variant_key, day
            on conflict (user_key, app_id, campaign_id, control, variant_key, day) do update set
                groups = u.groups + excluded.groups
        )
        insert into cardinal.report_arm_day_users as c
        select p.app_id, p.campaign_id, p.control, p.variant_key, p.day, p.previous_day, sum(p.sign) as users
        from pairs as p
        group by 1, 2, 3, 4, 5, 6
        having sum(p.sign) <> 0
        order by 1, 2, 3, 4, 5, 6
        on conflict (app_id, campaign_id, control, variant_key, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$, changes);
    -- Only a deletion or an update takes a group from a day, but any new day can move a pair to zero (the pair
    -- it splits).
    if tg_op <> 'INSERT' then
        delete from cardinal.report_arm_user_days where groups = 0;
    end if;
    delete from cardinal.report_arm_day_users where users = 0;
    return null;
end
$function$;

alter function cardinal.count_arm_day_users() owner to cardinal_owner;

revoke execute on function cardinal.count_arm_day_users() from public;

comment on function cardinal.count_arm_day_users() is
    'Statement trigger of report_user_state (0055): nets the changed rows'' send and control send days per '
    'user, arm and day into report_arm_user_days and moves the day pairs of the arms whose day set changed in '
    'report_arm_day_users; deletes the days and counts that reach zero.';


-- The backfill, from the folded state; no fold writes the state meanwhile.
lock table cardinal.report_user_state in share mode;

insert into cardinal.report_arm_user_days
select * from cardinal.report_arm_user_days_of_rows
order by user_key, app_id, campaign_id, control, variant_key, day;

insert into cardinal.report_arm_day_users
select p.app_id, p.campaign_id, p.control, p.variant_key, p.day, p.previous_day, count(*)
from (
    select r.app_id, r.campaign_id, r.control, r.variant_key, r.day,
           coalesce(lag(r.day) over (partition by r.user_key, r.app_id, r.campaign_id, r.control, r.variant_key
                                     order by r.day),
                    '-infinity') as previous_day
    from cardinal.report_arm_user_days as r
) as p
group by 1, 2, 3, 4, 5, 6;

analyze cardinal.report_arm_user_days, cardinal.report_arm_day_users;


create trigger report_user_state_count_arm_days_inserted
    after insert on cardinal.report_user_state
    referencing new table as added
    for each statement
    execute function cardinal.count_arm_day_users();

create trigger report_user_state_count_arm_days_updated
    after update on cardinal.report_user_state
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_arm_day_users();

create trigger report_user_state_count_arm_days_deleted
    after delete on cardinal.report_user_state
    referencing old table as removed
    for each statement
    execute function cardinal.count_arm_day_users();

comment on trigger report_user_state_count_arm_days_inserted on cardinal.report_user_state is
    'Keeps report_arm_user_days and report_arm_day_users what the state makes (0055).';
comment on trigger report_user_state_count_arm_days_updated on cardinal.report_user_state is
    'Keeps report_arm_user_days and report_arm_day_users what the state makes (0055).';
comment on trigger report_user_state_count_arm_days_deleted on cardinal.report_user_state is
    'Keeps report_arm_user_days and report_arm_day_users what the state makes (0055).';


-- 0053's send_arms, unchanged but for its name: send_arms with include_test reads the per-user state (the counts
-- leave test groups out).
create function cardinal.send_arms_from_user_state(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    include_test boolean default false
)
    returns table (
        app_name    text,
        campaign_id text,
        variant_id  text,
        control     boolean,
        users       bigint
    )
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
    -- its groups (0042's index condition), and the pending events' rows.
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
                  select s.group_id from cardinal.report_groups as s where s.campaign_id = send_arms_from_user_state.campaign
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
    'send_arms read from the per-user state (0053''s body): per app × campaign × arm, the users with a send '
    'on a report day of from_date..to_date, test events only with include_test; what send_arms runs with '
    'include_test (0055).';


-- send_arms: the folded day pairs plus the pending users that add to an arm; with test events, 0053's body.
create or replace function cardinal.send_arms(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    include_test boolean default false
)
    returns table (
        app_name    text,
        campaign_id text,
        variant_id  text,
        control     boolean,
        users       bigint
    )
    language plpgsql
    stable
    set enable_nestloop = off
    set jit = off
as $function$
#variable_conflict use_column
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
        select a.app_id, a.name as app_name
        from cardinal.apps as a
        where cardinal.check_report_range(send_arms.from_date, send_arms.to_date)
          and (send_arms.app is null or a.name = send_arms.app)
    ),
    -- A user's first send day of the arm in the range is the one whose previous day is before it (0025).
    folded as (
        select c.app_id, c.campaign_id, c.control, c.variant_key, sum(c.users) as users
        from cardinal.report_arm_day_users as c
        where c.app_id = any(array(select t.app_id from target as t))
          and (send_arms.campaign is null or c.campaign_id = send_arms.campaign)
          and c.day between send_arms.from_date and send_arms.to_date
          and c.previous_day < send_arms.from_date
        group by 1, 2, 3, 4
    ),
    -- The unfolded events' users of each arm with a send day in the range.
    pending as materialized (
        select distinct p.app_id, p.campaign_id, arm.control, arm.variant_key, p.user_key
        from cardinal.report_pending_user_facts as p
        cross join lateral (
            values (false, coalesce(p.variant_id, ''), p.send_days), (true, '', p.control_send_days)
        ) as arm (control, variant_key, days)
        where p.campaign_id is not null
          and not p.test
          and p.app_id = any(array(select t.app_id from target as t))
          and (send_arms.campaign is null or p.campaign_id = send_arms.campaign)
          and daterange(send_arms.from_date, send_arms.to_date, '[]') @> any(arm.days)
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

comment on function cardinal.send_arms(text, text, date, date, boolean) is
    'Assignment data of the sample ratio check, read from the report state (0015): per app × campaign × '
    'arm (control for control sends, else the send''s variant_id), the users with a send on a report day '
    'of from_date..to_date (each campaign''s report time zone). app and campaign NULL = all; test events '
    'only with include_test. A user sent to two arms counts in both. Without test events the sum of the day '
    'pairs of report_arm_day_users and the pending users they lack (0055); with them the per-user state '
    '(send_arms_from_user_state).';


-- Readers call send_arms with their own rights, and psql users read the counts as they read 0025's.
grant select on cardinal.report_arm_user_days, cardinal.report_arm_day_users, cardinal.report_arm_user_days_of_rows,
                cardinal.report_arm_day_users_of_rows
    to cardinal_reader;
