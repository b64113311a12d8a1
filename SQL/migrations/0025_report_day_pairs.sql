-- 0025_report_day_pairs.sql — unique counts kept at the grain of the report's rows, so that
-- unique_impressions sums a few hundred rows instead of unnesting every user's days (issue 8).
--
-- Design notes (why, not what):
--
-- * The per-user state of 0015 made the reports exact but not fast: in a workload where a user meets a
--   campaign about once, it has nearly a row per event, and a report read it all. A report row of
--   unique_impressions (app × campaign or canvas step × variant × channel, test events left out) needs only
--   counts of users, if the counts can answer "how many distinct users in this range of days".
--
-- * Day pairs answer it exactly. For each user, row and kind of event, sort the user's report days and pair
--   each with the one before it (-infinity for the first). A user has a day in [from, to] exactly when the
--   first of its days in the range has its previous day before `from`, and each user has one such first day.
--   So per row, kind, day and previous day, report_row_day_users counts users, and
--     unique users in [from, to]            = sum of users where day in [from, to] and previous_day < from
--     distinct (day, user) pairs in the range = sum of users where day in [from, to]
--   Both are sums over (days in range × distinct previous days) rows: hundreds, whatever the events.
--
-- * To keep the counts, each user's sorted days per row stay in report_row_user_days (the state of 0015
--   keeps them per report group, which splits a row by platform, SDK and app version). A new day changes
--   the pairs around it only: the change is pairs(old ∪ new) − pairs(old), netted per pair. The same
--   change, computed on the fly for the events not folded yet (report_pending_row_day_users), is what a
--   report adds to the folded counts, so reports stay exact and fresh as in 0015 and 0021.
--
-- * report_row_user_days follows report_user_state: a user's state is only ever deleted whole (erasure:
--   every row of the user; a requeue: every row of an app or campaign), and a trigger on report_user_state
--   deletes the same users' rows here and takes their pairs out of the counts. So erasure, a time zone
--   change, a rebuild and a retention drop keep these tables right without knowing of them.
--
-- * unique_impressions reads the pairs for the default report and for `by => 'day'`, without test events.
--   The breakdowns by platform, SDK or app version and include_test (distinct users across test and
--   non-test events) split or merge rows differently; they keep reading the per-user state
--   (unique_impressions_from_user_state, 0016's body), exact and slower.
--
-- * Identity merge (a later issue) re-keys a device's rows: delete its report_row_user_days rows (the
--   trigger subtracts their pairs) and fold the merged days into the user's, as the fold does.


-- A report row's columns as one text, so that finding a row is one equality that a hash or an index serves,
-- whatever the planner guesses about the events it comes from (a join on six nullable columns became a
-- nested loop comparing every pending user with every row). quote_nullable keeps it unambiguous: NULL, '' and
-- any text with commas or quotes each spell differently.
create function cardinal.report_row_key(
    app_id         bigint,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    variant_id     text,
    channel        text
)
    returns text
    language sql
    immutable
    parallel safe
as $function$
    select app_id::text || ',' || quote_nullable(campaign_id) || ',' || quote_nullable(canvas_id) || ','
           || quote_nullable(canvas_step_id) || ',' || quote_nullable(variant_id) || ',' || quote_nullable(channel);
$function$;

alter function cardinal.report_row_key(bigint, text, text, text, text, text) owner to cardinal_owner;

comment on function cardinal.report_row_key(bigint, text, text, text, text, text) is
    'A unique-impressions row''s columns as one text (report_rows.row_key): app_id and the quoted campaign, '
    'canvas, canvas step, variant and channel.';


create table cardinal.report_rows (
    row_id         bigint generated always as identity,
    app_id         bigint not null,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    variant_id     text,
    channel        text   not null,
    row_key        text   not null generated always as (
        cardinal.report_row_key(app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel)
    ) stored,

    constraint report_rows_pkey primary key (row_id),
    constraint report_rows_key unique (row_key)
);

alter table cardinal.report_rows owner to cardinal_owner;

comment on table cardinal.report_rows is
    'The rows of the unique-impressions report that events have had: app × campaign (or canvas step) × '
    'variant × channel. Made by the fold, never deleted, so a row_id stays valid.';
comment on column cardinal.report_rows.row_id is 'Identity of the row; report_row_user_days and report_row_day_users refer to it.';
comment on column cardinal.report_rows.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_rows.campaign_id is 'Campaign of the events; NULL for canvas steps.';
comment on column cardinal.report_rows.canvas_id is 'Canvas of the events; NULL for campaigns.';
comment on column cardinal.report_rows.canvas_step_id is 'Canvas step of the events; NULL for campaigns.';
comment on column cardinal.report_rows.variant_id is 'Variant of the events as sent.';
comment on column cardinal.report_rows.channel is 'Channel of the events.';
comment on column cardinal.report_rows.row_key is 'The other columns as one text (report_row_key), unique: how rows are found.';


create table cardinal.report_row_user_days (
    row_id         bigint not null,
    user_key       text   not null,
    impression_days date[] not null default '{}',
    click_days      date[] not null default '{}',
    dismissal_days  date[] not null default '{}',
    send_days       date[] not null default '{}',

    constraint report_row_user_days_pkey primary key (row_id, user_key)
);

alter table cardinal.report_row_user_days owner to cardinal_owner;

comment on table cardinal.report_row_user_days is
    'Report state: each user''s report days per unique-impressions row (report_rows), from the non-control, '
    'non-test events; sorted, without repeats. Kept so that the fold knows which day pairs a new day '
    'changes (report_row_day_users).';
comment on column cardinal.report_row_user_days.row_id is 'The report row (report_rows.row_id).';
comment on column cardinal.report_row_user_days.user_key is 'The user (events.user_key).';
comment on column cardinal.report_row_user_days.impression_days is 'Report days with impressions, sorted.';
comment on column cardinal.report_row_user_days.click_days is 'Report days with clicks, sorted.';
comment on column cardinal.report_row_user_days.dismissal_days is 'Report days with dismissals, sorted.';
comment on column cardinal.report_row_user_days.send_days is 'Report days with sends, sorted.';


create table cardinal.report_row_day_users (
    row_id       bigint not null,
    kind         text   not null,
    day          date   not null,
    previous_day date   not null,
    users        bigint not null,

    constraint report_row_day_users_pkey primary key (row_id, kind, day, previous_day),
    constraint report_row_day_users_kind check (kind in ('impression', 'click', 'dismissal', 'send')),
    constraint report_row_day_users_order check (previous_day < day)
    -- users >= 0 is asserted by add_report_row_day_users: a CHECK would refuse a negative change before
    -- ON CONFLICT could add it to the existing count.
);

alter table cardinal.report_row_day_users owner to cardinal_owner;

comment on table cardinal.report_row_day_users is
    'Report state: per unique-impressions row, kind of event and report day, how many users had that kind '
    'of event on that day, by the day they last had one before it. Unique users over days from..to are the '
    'sum where day is in the range and previous_day < from; (day, user) pairs the sum where day is in it.';
comment on column cardinal.report_row_day_users.row_id is 'The report row (report_rows.row_id).';
comment on column cardinal.report_row_day_users.kind is 'impression, click, dismissal or send (non-control, non-test).';
comment on column cardinal.report_row_day_users.day is 'The report day.';
comment on column cardinal.report_row_day_users.previous_day is
    'The user''s previous report day with this kind of event in this row; -infinity when there was none.';
comment on column cardinal.report_row_day_users.users is 'How many users; a row that reaches 0 is deleted in the same transaction.';


-- The days of a set, sorted and without repeats: what report_row_user_days keeps.
create function cardinal.report_day_set(days date[])
    returns date[]
    language sql
    immutable
    parallel safe
as $function$
    select coalesce(array_agg(distinct d order by d), '{}') from unnest(days) as d where d is not null;
$function$;

alter function cardinal.report_day_set(date[]) owner to cardinal_owner;

comment on function cardinal.report_day_set(date[]) is
    'The days of a set sorted and without repeats (empty for NULL).';


-- Each day of a set with the day before it in the set.
create function cardinal.report_day_pairs(days date[])
    returns table (day date, previous_day date)
    language sql
    immutable
    parallel safe
as $function$
    select d, coalesce(lag(d) over (order by d), '-infinity')
    from (select distinct d from unnest(days) as d where d is not null) as s;
$function$;

alter function cardinal.report_day_pairs(date[]) owner to cardinal_owner;

comment on function cardinal.report_day_pairs(date[]) is
    'Each distinct day of a set with the previous day of the set (-infinity for the first): the pairs '
    'report_row_day_users counts.';


-- A user's day pairs of every kind: what one report_row_user_days row adds to report_row_day_users.
create function cardinal.report_user_day_pairs(
    impression_days date[],
    click_days      date[],
    dismissal_days  date[],
    send_days       date[]
)
    returns table (kind text, day date, previous_day date)
    language sql
    immutable
    parallel safe
as $function$
    select k.kind, pair.day, pair.previous_day
    from (
        values ('impression', impression_days), ('click', click_days), ('dismissal', dismissal_days),
               ('send', send_days)
    ) as k (kind, days)
    cross join lateral cardinal.report_day_pairs(k.days) as pair;
$function$;

alter function cardinal.report_user_day_pairs(date[], date[], date[], date[]) owner to cardinal_owner;

comment on function cardinal.report_user_day_pairs(date[], date[], date[], date[]) is
    'The day pairs (report_day_pairs) of each kind of a user''s days in one report row: the pairs its '
    'report_row_user_days row counts in report_row_day_users.';


-- The unfolded events the day pairs count, with their report day: the non-control, non-test sends,
-- impressions, clicks and dismissals of campaigns and canvas steps.
create view cardinal.report_unfolded_row_events as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.user_key, q.type,
       (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
where q.type in ('impression', 'click', 'dismissal', 'send')
  and not q.control
  and not q.test
  and (q.campaign_id is not null or q.canvas_step_id is not null);

alter view cardinal.report_unfolded_row_events owner to cardinal_owner;

comment on view cardinal.report_unfolded_row_events is
    'The unfolded events (report_unfolded_events) that report_row_day_users counts: non-control, non-test '
    'sends, impressions, clicks and dismissals of campaigns and canvas steps, with their report day.';


-- The unfolded events as report_row_user_days rows, with the row's columns (and its row_id, once the row
-- exists). The days are sorted, as report_row_user_days keeps them.
create view cardinal.report_pending_row_days as
select r.row_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.user_key,
       p.impression_days, p.click_days, p.dismissal_days, p.send_days
from (
    select e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.channel, e.user_key,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'impression'), '{}')
               as impression_days,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'click'), '{}') as click_days,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'dismissal'), '{}')
               as dismissal_days,
           coalesce(array_agg(distinct e.day order by e.day) filter (where e.type = 'send'), '{}') as send_days
    from cardinal.report_unfolded_row_events as e
    group by 1, 2, 3, 4, 5, 6, 7
) as p
left join cardinal.report_rows as r
    on r.row_key = cardinal.report_row_key(p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id,
                                           p.channel);

alter view cardinal.report_pending_row_days owner to cardinal_owner;

comment on view cardinal.report_pending_row_days is
    'The unfolded events (report_unfolded_events) as report_row_user_days rows, with the row''s columns; '
    'row_id is NULL until the fold makes the row: the days the next fold adds.';


-- What folding the unfolded events would change in report_row_day_users: per pair, the users it gains or
-- loses. Reports add it to the folded counts. In each user's sorted days (old and new together), a new day
-- gains the pair with the day before it; an old day whose day before is now a new one moves its pair from the
-- old previous day to the new one; every other pair stays. One window over all the pending users' days finds
-- both previous days (a function call per user, pairing each set on its own, cost four times as much).
create view cardinal.report_pending_row_day_users as
with days as (
    -- A day the user had already is old, even when the unfolded events have it too.
    select p.row_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.user_key,
           kind.name as kind, day.day, bool_and(day.new) as new
    from cardinal.report_pending_row_days as p
    left join cardinal.report_row_user_days as old on old.row_id = p.row_id and old.user_key = p.user_key
    cross join lateral (
        values ('impression', old.impression_days, p.impression_days),
               ('click', old.click_days, p.click_days),
               ('dismissal', old.dismissal_days, p.dismissal_days),
               ('send', old.send_days, p.send_days)
    ) as kind (name, old_days, new_days)
    cross join lateral (
        select d, false from unnest(kind.old_days) as d
        union all
        select d, true from unnest(kind.new_days) as d
    ) as day (day, new)
    -- A kind whose days the user had already changes nothing.
    where not kind.new_days <@ coalesce(kind.old_days, '{}')
    group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
),
paired as (
    select row_id, app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, kind, day, new,
           coalesce(lag(day) over user_days, '-infinity') as previous_day,
           coalesce(max(day) filter (where not new) over (user_days rows between unbounded preceding and 1 preceding),
                    '-infinity') as previous_old_day
    from days
    window user_days as (partition by row_id, app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel,
                                      user_key, kind
                         order by day)
)
select p.row_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.kind, p.day,
       change.previous_day, sum(change.users)::bigint as users
from paired as p
cross join lateral (
    values (p.previous_day, 1), (p.previous_old_day, -1)
) as change (previous_day, users)
where case when p.new then change.users = 1
           else p.previous_day <> p.previous_old_day end
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
having sum(change.users) <> 0;

alter view cardinal.report_pending_row_day_users owner to cardinal_owner;

comment on view cardinal.report_pending_row_day_users is
    'What folding the unfolded events changes in report_row_day_users, with the row''s columns: users '
    'gained (positive) or lost (negative) per pair. Folded counts plus these are the counts of every '
    'stored event.';


-- The columns of the views mean what the same columns of the tables they mirror mean.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name, source.description
        from (
            values ('report_unfolded_row_events', 'cardinal.report_fold_queue'::regclass),
                   ('report_pending_row_days', 'cardinal.report_row_user_days'::regclass),
                   ('report_pending_row_day_users', 'cardinal.report_row_day_users')
        ) as v (view_name, state_table)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
        cross join lateral (
            select pg_catalog.col_description(t.relation, t.attnum) as description
            from (
                select c.attrelid as relation, c.attnum, c.attrelid = v.state_table as preferred
                from pg_catalog.pg_attribute as c
                where c.attrelid in (v.state_table, 'cardinal.report_rows'::regclass)
                  and c.attname = a.attname
            ) as t
            order by t.preferred desc
            limit 1
        ) as source
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;

comment on column cardinal.report_unfolded_row_events.day is
    'The report day of the event: its local date in the campaign''s report time zone, else the app''s.';
comment on column cardinal.report_pending_row_day_users.users is
    'Users the pair gains (positive) or loses (negative) when the unfolded events are folded.';


-- Adds report_day_pairs changes to the counts and deletes the pairs left with no user.
create function cardinal.add_report_row_day_users(changes cardinal.report_row_day_users[])
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    emptied   cardinal.report_row_day_users[];
    negatives bigint;
begin
    with added as (
        insert into cardinal.report_row_day_users as c (row_id, kind, day, previous_day, users)
        select x.row_id, x.kind, x.day, x.previous_day, x.users
        from unnest(changes) as x
        order by 1, 2, 3, 4
        on conflict (row_id, kind, day, previous_day) do update set users = c.users + excluded.users
        returning c as pair
    )
    select array_agg(added.pair) filter (where (added.pair).users = 0),
           count(*) filter (where (added.pair).users < 0)
    into emptied, negatives
    from added;
    -- A pair can only lose users it had: anything else is a fold that went wrong, and must not commit.
    if negatives > 0 then
        raise exception 'add_report_row_day_users: % day pairs would count fewer than 0 users', negatives
            using errcode = 'data_exception';
    end if;
    delete from cardinal.report_row_day_users as c
    using unnest(emptied) as x
    where c.row_id = x.row_id and c.kind = x.kind and c.day = x.day and c.previous_day = x.previous_day;
end
$function$;

alter function cardinal.add_report_row_day_users(cardinal.report_row_day_users[]) owner to cardinal_owner;

revoke execute on function cardinal.add_report_row_day_users(cardinal.report_row_day_users[]) from public;

comment on function cardinal.add_report_row_day_users(cardinal.report_row_day_users[]) is
    'Adds changes (users gained or lost per pair) to report_row_day_users and deletes the pairs that reach 0. '
    'For the fold and the trigger that follows deletions of report_user_state.';


-- The fold of these tables, from the snapshot of the fold of 0015 and 0021 and before it moves the
-- watermark: fold_report_state() calls it first (below).
create function cardinal.fold_report_row_days()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- The old days of each pending user are one probe of the primary key; the unfolded events are never
    -- analyzed, and a merge join would sort the whole table to meet a few of its rows.
    set enable_mergejoin = off
as $function$
declare
    changes cardinal.report_row_day_users[];
begin
    insert into cardinal.report_rows (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel)
    select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel
    from cardinal.report_unfolded_row_events
    order by 1, 2, 3, 4, 5, 6
    on conflict do nothing;

    -- The pairs first: they are the change from the days as they are now.
    select array_agg(row(f.row_id, f.kind, f.day, f.previous_day, f.users)::cardinal.report_row_day_users)
    into changes
    from cardinal.report_pending_row_day_users as f;
    perform cardinal.add_report_row_day_users(changes);

    insert into cardinal.report_row_user_days as u
    select f.row_id, f.user_key, f.impression_days, f.click_days, f.dismissal_days, f.send_days
    from cardinal.report_pending_row_days as f
    order by 1, 2
    on conflict (row_id, user_key) do update set
        impression_days = cardinal.report_day_set(u.impression_days || excluded.impression_days),
        click_days = cardinal.report_day_set(u.click_days || excluded.click_days),
        dismissal_days = cardinal.report_day_set(u.dismissal_days || excluded.dismissal_days),
        send_days = cardinal.report_day_set(u.send_days || excluded.send_days)
    where not (excluded.impression_days <@ u.impression_days and excluded.click_days <@ u.click_days
               and excluded.dismissal_days <@ u.dismissal_days and excluded.send_days <@ u.send_days);
end
$function$;

alter function cardinal.fold_report_row_days() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_row_days() from public;

comment on function cardinal.fold_report_row_days() is
    'Folds the unfolded events into report_rows, report_row_day_users and report_row_user_days. Part of '
    'fold_report_state(), which holds the state lock and moves the watermark; not to be called alone.';


-- The fold of 0021 keeps its body under another name; fold_report_state() runs both parts in one
-- snapshot, under one lock.
alter function cardinal.fold_report_state() rename to fold_report_user_state;

revoke execute on function cardinal.fold_report_user_state() from cardinal_ingest;

comment on function cardinal.fold_report_user_state() is
    'The fold of 0021 (report_user_state, report_daily_counts, report_session_state, '
    'report_conversion_state, the watermark). Part of fold_report_state(); not to be called alone.';

create function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    -- Both parts sort a second's events by user; at the default 4 MB the sorts spilled to disk and the fold
    -- of 500 k events took twice as long. One connection folds at a time, so this is one query's memory.
    set work_mem = '64MB'
as $function$
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- The same lock fold_report_user_state takes again (advisory locks nest within a transaction).
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;
    perform cardinal.fold_report_row_days();
    return cardinal.fold_report_user_state();
end
$function$;

alter function cardinal.fold_report_state() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_state() from public;

grant execute on function cardinal.fold_report_state() to cardinal_ingest;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many events it folded, or NULL when another fold or a requeue holds the state lock. Call it '
    'in a REPEATABLE READ transaction (it refuses any other); cardinald does every second. SQLSTATE 40001 '
    'means a requeue raced it: call again. For cardinal_owner and cardinal_ingest.';


-- Deleting a user's state (erasure, requeue) deletes its days per report row and takes its pairs out.
create function cardinal.forget_report_row_days()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    changes cardinal.report_row_day_users[];
begin
    with forgotten_users as (
        select distinct r.row_id, f.user_key
        from forgotten as f
        join cardinal.report_groups as g on g.group_id = f.group_id
        join cardinal.report_rows as r
            on r.row_key = cardinal.report_row_key(g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id,
                                                   g.variant_id, g.channel)
        where not g.test
    ),
    deleted as (
        delete from cardinal.report_row_user_days as u
        using forgotten_users as x
        where u.row_id = x.row_id and u.user_key = x.user_key
        returning u.*
    )
    select array_agg(row(c.row_id, c.kind, c.day, c.previous_day, -c.users)::cardinal.report_row_day_users)
    into changes
    from (
        select d.row_id, pair.kind, pair.day, pair.previous_day, count(*) as users
        from deleted as d
        cross join lateral cardinal.report_user_day_pairs(d.impression_days, d.click_days, d.dismissal_days,
                                                          d.send_days) as pair
        group by 1, 2, 3, 4
    ) as c;
    perform cardinal.add_report_row_day_users(changes);
    return null;
end
$function$;

alter function cardinal.forget_report_row_days() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_row_days() from public;

comment on function cardinal.forget_report_row_days() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_row_user_days rows '
    'in the same report rows and subtracts their pairs from report_row_day_users.';

create trigger report_user_state_forget_row_days
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_row_days();

comment on trigger report_user_state_forget_row_days on cardinal.report_user_state is
    'Keeps report_row_user_days and report_row_day_users equal to what report_user_state holds (0025).';


-- 0016's unique_impressions, unchanged but for its name: the breakdowns by platform, SDK and app version, and
-- include_test, read the per-user state (see the design notes).
create function cardinal.unique_impressions_from_user_state(
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
    -- Who did what on which day of the range. Distinct users and (day, user) pairs are counted by grouping
    -- (hash aggregates) rather than count(distinct …), which sorts every input row: the same user may have
    -- several state rows in one report row (another platform, SDK or app version, a test event).
    with user_days as (
        select a.name as app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel,
               case unique_impressions_from_user_state.by
                   when 'day' then to_char(d.day, 'YYYY-MM-DD')
                   when 'platform' then u.platform
                   when 'sdk_version' then u.sdk_version
                   when 'app_version' then u.app_version
               end as breakdown,
               d.kind, u.user_key, d.day
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
        where cardinal.check_report_range(unique_impressions_from_user_state.from_date, unique_impressions_from_user_state.to_date)
          and cardinal.check_report_dimension(unique_impressions_from_user_state.by)
          and (unique_impressions_from_user_state.app is null or a.name = unique_impressions_from_user_state.app)
          and (unique_impressions_from_user_state.campaign is null or u.campaign_id = unique_impressions_from_user_state.campaign)
          and (unique_impressions_from_user_state.include_test or not u.test)
          and d.day between unique_impressions_from_user_state.from_date and unique_impressions_from_user_state.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ),
    users as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown, kind, user_key,
               count(*) as days
        from user_days
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    uniques as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
               count(*) filter (where kind = 'impression') as unique_impressions,
               coalesce(sum(days) filter (where kind = 'impression'), 0) as unique_daily_impressions,
               coalesce(sum(days) filter (
                   where case when channel in ('content_card', 'in_app_message') then kind = 'impression'
                              else kind = 'send' end
               ), 0) as unique_recipients,
               count(*) filter (where kind = 'click') as unique_clicks,
               count(*) filter (where kind = 'dismissal') as unique_dismissals
        from users
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- How many events: the per-day counts of the range.
    totals as (
        select a.name as app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel,
               case unique_impressions_from_user_state.by
                   when 'day' then to_char(c.day, 'YYYY-MM-DD')
                   when 'platform' then c.platform
                   when 'sdk_version' then c.sdk_version
                   when 'app_version' then c.app_version
               end as breakdown,
               sum(c.impressions) as impressions, sum(c.clicks) as clicks, sum(c.dismissals) as dismissals
        from cardinal.apps as a
        join cardinal.report_daily_count_facts as c on c.app_id = a.app_id
        where (unique_impressions_from_user_state.app is null or a.name = unique_impressions_from_user_state.app)
          and (unique_impressions_from_user_state.campaign is null or c.campaign_id = unique_impressions_from_user_state.campaign)
          and (unique_impressions_from_user_state.include_test or not c.test)
          and c.day between unique_impressions_from_user_state.from_date and unique_impressions_from_user_state.to_date
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- A report row exists where the range has a non-control send, impression, click or dismissal: then
    -- both sides have it (the day sets and the counts come from the same events). Both sides are one row
    -- per report row, a few hundred at most.
    counted as (
        select u.app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel, u.breakdown,
               t.impressions::bigint as impressions, u.unique_impressions, u.unique_daily_impressions::bigint
                   as unique_daily_impressions,
               u.unique_recipients::bigint as unique_recipients, t.clicks::bigint as clicks, u.unique_clicks,
               t.dismissals::bigint as dismissals, u.unique_dismissals
        from uniques as u
        -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed.
        join totals as t
            on t.app_name = u.app_name
           and coalesce(t.campaign_id, '') = coalesce(u.campaign_id, '')
           and coalesce(t.canvas_id, '') = coalesce(u.canvas_id, '')
           and coalesce(t.canvas_step_id, '') = coalesce(u.canvas_step_id, '')
           and coalesce(t.variant_id, '') = coalesce(u.variant_id, '')
           and t.channel = u.channel
           and coalesce(t.breakdown, '') = coalesce(u.breakdown, '')
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

alter function cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text)
    owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text)
    to cardinal_reader;

comment on function cardinal.unique_impressions_from_user_state(text, date, date, boolean, text, text) is
    'unique_impressions computed from the per-user state (report_*_facts, 0015): any breakdown, test events '
    'included or not. unique_impressions calls it for the breakdowns by platform, sdk_version and '
    'app_version and for include_test.';


-- The unique-impressions report from the day pairs: without test events, with no breakdown or by day.
create function cardinal.unique_impressions_from_day_pairs(
    app       text,
    from_date date,
    to_date   date,
    campaign  text,
    by_day    boolean
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
    -- The pairs of the range: the folded counts and the change the unfolded events make to them.
    with pairs as (
        select a.name as app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel,
               p.kind, p.day, p.previous_day, p.users
        from cardinal.apps as a
        join cardinal.report_rows as r on r.app_id = a.app_id
        join cardinal.report_row_day_users as p on p.row_id = r.row_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or r.campaign_id = unique_impressions_from_day_pairs.campaign)
          and p.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
        union all
        select a.name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel,
               p.kind, p.day, p.previous_day, p.users
        from cardinal.apps as a
        join cardinal.report_pending_row_day_users as p on p.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or p.campaign_id = unique_impressions_from_day_pairs.campaign)
          and p.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
    ),
    -- A user counts once in the range at its first day there, the one whose previous day is before the
    -- range; by day, each day is a range of its own. Every pair of the range is a (day, user).
    uniques as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel,
               case when unique_impressions_from_day_pairs.by_day then to_char(day, 'YYYY-MM-DD') end as breakdown,
               coalesce(sum(users) filter (
                   where kind = 'impression'
                     and (unique_impressions_from_day_pairs.by_day
                          or previous_day < unique_impressions_from_day_pairs.from_date)
               ), 0)::bigint as unique_impressions,
               coalesce(sum(users) filter (where kind = 'impression'), 0)::bigint as unique_daily_impressions,
               coalesce(sum(users) filter (
                   where kind = case when channel in ('content_card', 'in_app_message') then 'impression'
                                     else 'send' end
               ), 0)::bigint as unique_recipients,
               coalesce(sum(users) filter (
                   where kind = 'click'
                     and (unique_impressions_from_day_pairs.by_day
                          or previous_day < unique_impressions_from_day_pairs.from_date)
               ), 0)::bigint as unique_clicks,
               coalesce(sum(users) filter (
                   where kind = 'dismissal'
                     and (unique_impressions_from_day_pairs.by_day
                          or previous_day < unique_impressions_from_day_pairs.from_date)
               ), 0)::bigint as unique_dismissals
        from pairs
        group by 1, 2, 3, 4, 5, 6, 7
        -- A report row exists where the range has a (day, user) of some kind.
        having sum(users) > 0
    ),
    totals as (
        select a.name as app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel,
               case when unique_impressions_from_day_pairs.by_day then to_char(c.day, 'YYYY-MM-DD') end as breakdown,
               sum(c.impressions) as impressions, sum(c.clicks) as clicks, sum(c.dismissals) as dismissals
        from cardinal.apps as a
        join cardinal.report_daily_count_facts as c on c.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or c.campaign_id = unique_impressions_from_day_pairs.campaign)
          and not c.test
          and c.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    counted as (
        select u.app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel, u.breakdown,
               coalesce(t.impressions, 0)::bigint as impressions, u.unique_impressions, u.unique_daily_impressions,
               u.unique_recipients, coalesce(t.clicks, 0)::bigint as clicks, u.unique_clicks,
               coalesce(t.dismissals, 0)::bigint as dismissals, u.unique_dismissals
        from uniques as u
        -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed.
        left join totals as t
            on t.app_name = u.app_name
           and coalesce(t.campaign_id, '') = coalesce(u.campaign_id, '')
           and coalesce(t.canvas_id, '') = coalesce(u.canvas_id, '')
           and coalesce(t.canvas_step_id, '') = coalesce(u.canvas_step_id, '')
           and coalesce(t.variant_id, '') = coalesce(u.variant_id, '')
           and t.channel = u.channel
           and coalesce(t.breakdown, '') = coalesce(u.breakdown, '')
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

alter function cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean)
    to cardinal_reader;

comment on function cardinal.unique_impressions_from_day_pairs(text, date, date, text, boolean) is
    'unique_impressions without test events, with no breakdown (by_day false) or by day, from the day pairs '
    '(report_row_day_users and the unfolded events'' change to them): sums over a few hundred rows per '
    'report row. unique_impressions calls it when it can.';


-- The report keeps its name, arguments and rows; it picks the state that answers the question fastest.
create or replace function cardinal.unique_impressions(
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
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_report_dimension(by);
    if not coalesce(include_test, false) and (by is null or by = 'day') then
        return query select * from cardinal.unique_impressions_from_day_pairs(app, from_date, to_date, campaign,
                                                                            by is not null);
    else
        return query select * from cardinal.unique_impressions_from_user_state(app, from_date, to_date,
                                                                             include_test, campaign, by);
    end if;
end
$function$;

comment on function cardinal.unique_impressions(text, date, date, boolean, text, text) is
    'Unique-impressions report: one row per app × campaign (or canvas step) × variant × channel (× the '
    'breakdown: by => day, platform, sdk_version or app_version) over the report days from_date..to_date '
    '(both included) in each campaign''s report time zone, read from the report state. app NULL = every '
    'app; campaign NULL = every campaign and canvas step. Users are user_key; control and (unless '
    'include_test) test events are left out. unique_impressions counts a user once in the range, '
    'unique_daily_impressions once per day; rates are NULL when their divisor is 0. Definitions in '
    'SQL/migrations/0010_unique_impressions.sql; unique_impressions_reference computes the same from raw '
    'events. Without test events and with no breakdown or by day it sums day pairs (0025), else it reads '
    'the per-user state.';


grant select on
    cardinal.report_rows,
    cardinal.report_row_user_days,
    cardinal.report_row_day_users,
    cardinal.report_unfolded_row_events,
    cardinal.report_pending_row_days,
    cardinal.report_pending_row_day_users
    to cardinal_reader;


-- The state of the events folded so far, from the per-user state; the unfolded ones are the next fold's.
insert into cardinal.report_rows (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel)
select distinct g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel
from cardinal.report_groups as g
where not g.test and (g.campaign_id is not null or g.canvas_step_id is not null)
order by 1, 2, 3, 4, 5, 6;

insert into cardinal.report_row_user_days
select r.row_id, u.user_key,
       coalesce(array_agg(distinct d.day order by d.day) filter (where d.kind = 'impression'), '{}'),
       coalesce(array_agg(distinct d.day order by d.day) filter (where d.kind = 'click'), '{}'),
       coalesce(array_agg(distinct d.day order by d.day) filter (where d.kind = 'dismissal'), '{}'),
       coalesce(array_agg(distinct d.day order by d.day) filter (where d.kind = 'send'), '{}')
from cardinal.report_user_state as u
join cardinal.report_groups as g on g.group_id = u.group_id and not g.test
join cardinal.report_rows as r
    on r.row_key = cardinal.report_row_key(g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id,
                                           g.channel)
cross join lateral (
    select 'impression', day from unnest(u.impression_days) as day
    union all
    select 'click', day from unnest(u.click_days) as day
    union all
    select 'dismissal', day from unnest(u.dismissal_days) as day
    union all
    select 'send', day from unnest(u.send_days) as day
) as d (kind, day)
group by r.row_id, u.user_key;

insert into cardinal.report_row_day_users
select d.row_id, pair.kind, pair.day, pair.previous_day, count(*)
from cardinal.report_row_user_days as d
cross join lateral cardinal.report_user_day_pairs(d.impression_days, d.click_days, d.dismissal_days, d.send_days)
    as pair
group by 1, 2, 3, 4;
