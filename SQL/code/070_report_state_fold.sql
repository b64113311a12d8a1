-- The fold: pending events into the report state tables, and forgetting a user's rows.
--
-- fold_report_state is the entry point (cardinald calls it periodically, as does `cardinal state fold`): in one
-- REPEATABLE READ transaction under the state lock it learns identity links, takes one snapshot of the pending
-- events, runs each fold_report_* step over the report_pending_* views and finally fold_report_user_state,
-- which moves the watermark. Each state table derived from report_user_state or report_conversion_state has a
-- forget_* statement trigger that deletes the same users' rows when their state is deleted (erasure, re-keying,
-- requeue, retention), so that the next fold makes them anew. report_user_facts_of reads one source's per-user
-- state by index for the reports.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- The steps run in the order their reads need: the links before the snapshot (they may queue re-keyed events),
-- the steps that read the pending conversions before the conversion and value state take them, and
-- fold_report_user_state, which moves the watermark, last. SECURITY DEFINER so that cardinal_ingest can fold;
-- work_mem for the hashes of a large batch.
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set work_mem = '64MB'
as $function$
declare
    folded bigint;
    started constant timestamptz := clock_timestamp();
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
    -- Another cluster's watermark would fold nothing, silently.
    perform cardinal.check_report_fold_watermark();
    -- A rebuild that committed after this fold's snapshot updated this row: locking it raises a serialization
    -- failure now, before anything is folded (requeue_report_state explains why).
    perform from cardinal.report_fold_watermark for no key update;
    -- The links first: they may queue re-keyed events, which the snapshot must hold.
    perform cardinal.fold_identity_links();
    perform cardinal.take_report_fold_snapshot();
    perform cardinal.add_report_groups();
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_group_rows();
    -- Before the conversion and value state take the pending conversions: these steps add them themselves.
    perform cardinal.fold_report_control_exposures();
    perform cardinal.fold_report_campaign_receipts();
    perform cardinal.fold_report_conversion_values();
    folded := cardinal.fold_report_user_state();
    perform cardinal.drop_report_fold_snapshot();
    -- What this fold could not see: the transactions that began after its snapshot, and those running
    -- then. A REPEATABLE READ transaction keeps one snapshot, so this is the one every step read.
    update cardinal.report_fold_watermark
    set next_xid = pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        running_xids = array(select x::text::bigint from pg_snapshot_xip(pg_current_snapshot()) as x order by 1);
    -- For report_fold_rate: when, how many, and what of the snapshot is left (the rest of a long queue).
    perform cardinal.record_report_fold_run(started, folded);
    return folded;
end
$function$;
alter function cardinal.fold_report_state() owner to cardinal_owner;
revoke all on function cardinal.fold_report_state() from public;
grant execute on function cardinal.fold_report_state() to cardinal_ingest;
comment on function cardinal.fold_report_state() is
    'Folds the unfolded events (report_unfolded_events) into the report state: every event stored past the '
    'watermark, and of the re-queued events (report_fold_queue) all of them or, when there are more than '
    'cardinal.fold_queue_budget, one part of the users; advances the watermark and returns how many, '
    'or NULL when another fold holds the state lock. Learns identity links first (fold_identity_links), '
    'then reads the pending events once (take_report_fold_snapshot) for every step and makes their new '
    'report groups (add_report_groups), '
    'report_control_exposures and report_campaign_receipts among them, before the conversions '
    'reach report_conversion_value_state and report_conversion_state, and records its snapshot''s '
    'horizon (next_xid, running_xids) and the run (report_fold_runs, for report_fold_rate). Must run in a '
    'REPEATABLE READ transaction; fails with a '
    'serialization failure (40001: fold again) when a rebuild (requeue_report_state) committed after the '
    'transaction''s snapshot was taken.';


-- Whether g is the report group of a row's keys, for the joins of the fold's steps to report_groups. '' stands
-- for NULL: no key column can hold an empty string (the CHECKs of events), and equality on it can be hashed
-- where IS NOT DISTINCT FROM cannot. Language sql, immutable and without FROM, so that it is inlined into the
-- caller's join as the ten equalities it is, each a hash key.
create or replace function cardinal.report_group_is(
    g              cardinal.report_groups,
    app_id         bigint,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    variant_id     text,
    channel        text,
    platform       text,
    sdk_version    text,
    app_version    text,
    test           boolean
)
    returns boolean
    language sql
    immutable
    parallel safe
as $function$
    select g.app_id = report_group_is.app_id
       and coalesce(g.campaign_id, '') = coalesce(report_group_is.campaign_id, '')
       and coalesce(g.canvas_id, '') = coalesce(report_group_is.canvas_id, '')
       and coalesce(g.canvas_step_id, '') = coalesce(report_group_is.canvas_step_id, '')
       and coalesce(g.variant_id, '') = coalesce(report_group_is.variant_id, '')
       and g.channel = report_group_is.channel
       and coalesce(g.platform, '') = coalesce(report_group_is.platform, '')
       and coalesce(g.sdk_version, '') = coalesce(report_group_is.sdk_version, '')
       and coalesce(g.app_version, '') = coalesce(report_group_is.app_version, '')
       and g.test = report_group_is.test;
$function$;
alter function cardinal.report_group_is(cardinal.report_groups, bigint, text, text, text, text, text, text, text, text, boolean) owner to cardinal_owner;
comment on function cardinal.report_group_is(cardinal.report_groups, bigint, text, text, text, text, text, text, text, text, boolean) is
    'Whether the report group g has the given keys (app, campaign, canvas, step, variant, channel, platform, '
    'versions, test), NULL matching NULL. Inlined into the joins of the fold''s steps as hashable equalities.';


-- The fold's first step after its snapshot: every report group of the pending events, for all the steps. Only
-- the groups that do not exist yet reach the INSERT, since a BEFORE INSERT row trigger (assign_report_finding)
-- fires for every row offered, conflicting or not: offering each fold's distinct groups again, as each step once
-- did, cost 14,500 trigger calls and 3.6 s of a 19 s fold of 43,000 events of existing users.
create or replace function cardinal.add_report_groups()
    returns void
    language sql
    set search_path = pg_catalog, pg_temp
    -- The unfolded events are never analyzed, so no estimate of them can be trusted; hash joins are right.
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
    with pending as materialized (
        select distinct q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform,
               q.sdk_version, q.app_version, q.test
        from cardinal.report_unfolded_events() as q
        where q.type <> 'conversion'
    )
    insert into cardinal.report_groups
        (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version,
         test)
    select p.*
    from pending as p
    where not exists (
        select
        from cardinal.report_groups as g
        where cardinal.report_group_is(g, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id,
                                       p.variant_id, p.channel, p.platform, p.sdk_version, p.app_version, p.test))
    order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    -- A group made since this fold's snapshot (by a rebuild's requeue) is left as it is.
    on conflict do nothing;
$function$;
alter function cardinal.add_report_groups() owner to cardinal_owner;
revoke all on function cardinal.add_report_groups() from public;
comment on function cardinal.add_report_groups() is
    'Part of fold_report_state(), after its snapshot: makes the report groups (report_groups) of the pending '
    'non-conversion events that do not exist yet, for every later step of the fold. Not to be called alone.';


-- Adds report_day_pairs changes to the counts and deletes the pairs left with no user.
create or replace function cardinal.add_report_row_day_users(changes cardinal.report_row_day_users[])
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
revoke all on function cardinal.add_report_row_day_users(cardinal.report_row_day_users[]) from public;
comment on function cardinal.add_report_row_day_users(cardinal.report_row_day_users[]) is
    'Adds changes (users gained or lost per pair) to report_row_day_users and deletes the pairs that reach 0. '
    'For the fold and the trigger that follows deletions of report_user_state.';


-- The fold of these tables, from the fold's snapshot and before fold_report_user_state moves the watermark:
-- fold_report_state() calls it first among the steps.
create or replace function cardinal.fold_report_row_days()
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

    -- One statement reads the pending days once: its sub-statements share one snapshot, so the pairs are the
    -- change from the days as they were before the upsert in the same statement writes the new ones.
    with pending as materialized (
        select f.row_id, f.user_key, f.impression_days, f.click_days, f.dismissal_days, f.send_days
        from cardinal.report_pending_row_days as f
    ),
    -- Each pending user's days per kind, old and new; a day the user had already is old, even when the
    -- unfolded events have it too.
    days as (
        select p.user_key, p.row_id, kind.name as kind, day.day, bool_and(day.new) as new
        from pending as p
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
        group by 1, 2, 3, 4
    ),
    -- Each day with the user's previous day, and the previous day among the old ones: a new day adds a pair,
    -- and an old day whose previous day changed moves its user from the old pair to the new one.
    paired as (
        select row_id, kind, day, new,
               coalesce(lag(day) over user_days, '-infinity') as previous_day,
               coalesce(max(day) filter (where not new) over (user_days rows between unbounded preceding
                                                                          and 1 preceding),
                        '-infinity') as previous_old_day
        from days
        -- The days' grouping order, so that one sort serves both.
        window user_days as (partition by user_key, row_id, kind order by day)
    ),
    changed as (
        select p.row_id, p.kind, p.day, change.previous_day, sum(change.users)::bigint as users
        from paired as p
        cross join lateral (
            values (p.previous_day, 1), (p.previous_old_day, -1)
        ) as change (previous_day, users)
        where case when p.new then change.users = 1
                   else p.previous_day <> p.previous_old_day end
        group by 1, 2, 3, 4
        having sum(change.users) <> 0
    ),
    merged as (
        insert into cardinal.report_row_user_days as u
        select p.row_id, p.user_key, p.impression_days, p.click_days, p.dismissal_days, p.send_days
        from pending as p
        order by 1, 2
        on conflict (row_id, user_key) do update set
            impression_days = cardinal.report_day_set(u.impression_days || excluded.impression_days),
            click_days = cardinal.report_day_set(u.click_days || excluded.click_days),
            dismissal_days = cardinal.report_day_set(u.dismissal_days || excluded.dismissal_days),
            send_days = cardinal.report_day_set(u.send_days || excluded.send_days)
        where not (excluded.impression_days <@ u.impression_days and excluded.click_days <@ u.click_days
                   and excluded.dismissal_days <@ u.dismissal_days and excluded.send_days <@ u.send_days)
    )
    select array_agg(row(c.row_id, c.kind, c.day, c.previous_day, c.users)::cardinal.report_row_day_users)
    into changes
    from changed as c;
    perform cardinal.add_report_row_day_users(changes);
end
$function$;
alter function cardinal.fold_report_row_days() owner to cardinal_owner;
revoke all on function cardinal.fold_report_row_days() from public;
comment on function cardinal.fold_report_row_days() is
    'Folds the unfolded events into report_rows, report_row_day_users and report_row_user_days. Part of '
    'fold_report_state(), which holds the state lock and moves the watermark; not to be called alone.';


-- Deleting a user's state (erasure, requeue) deletes its days per report row and takes its pairs out.
create or replace function cardinal.forget_report_row_days()
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
revoke all on function cardinal.forget_report_row_days() from public;
comment on function cardinal.forget_report_row_days() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_row_user_days rows '
    'in the same report rows and subtracts their pairs from report_row_day_users.';


create or replace trigger report_user_state_forget_row_days
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_row_days();
comment on trigger report_user_state_forget_row_days on cardinal.report_user_state is
    'Keeps report_row_user_days and report_row_day_users equal to what report_user_state holds.';


-- Part of the fold: runs before fold_report_user_state, which moves the watermark, so that both read the
-- same unfolded events. One step for the three per-group tables, as forget_report_group_rows is one trigger
-- for them.
create or replace function cardinal.fold_report_group_rows()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- The unfolded events are never analyzed, so no estimate of them can be trusted; hash joins are right.
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
begin
    insert into cardinal.report_dismissal_state as d
    select g.group_id, f.user_key, f.message_id, f.day, f.dismissals
    from cardinal.report_pending_dismissal_facts as f
    join cardinal.report_groups as g
        on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                    f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
    order by 1, 2, 3, 4
    on conflict (group_id, user_key, message_id, day) do update set
        dismissals = d.dismissals + excluded.dismissals;

    insert into cardinal.report_push_send_state as p
    select g.group_id, f.user_key, f.times
    from cardinal.report_pending_push_send_facts as f
    join cardinal.report_groups as g
        on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                    f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
    order by 1, 2
    on conflict (group_id, user_key) do update set
        times = p.times || excluded.times;

    insert into cardinal.report_part_state as p
    select g.group_id, f.user_key, f.part, f.day, f.impressions, f.clicks, f.dismissals, f.sends
    from cardinal.report_pending_part_facts as f
    join cardinal.report_groups as g
        on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                    f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
    order by 1, 2, 3, 4
    on conflict (group_id, user_key, part, day) do update set
        impressions = p.impressions + excluded.impressions,
        clicks = p.clicks + excluded.clicks,
        dismissals = p.dismissals + excluded.dismissals,
        sends = p.sends + excluded.sends;
end
$function$;
alter function cardinal.fold_report_group_rows() owner to cardinal_owner;
revoke all on function cardinal.fold_report_group_rows() from public;
comment on function cardinal.fold_report_group_rows() is
    'Folds the unfolded events into the per-group tables: the dismissals with a message id into '
    'report_dismissal_state, the non-control push sends into report_push_send_state and the events with a '
    'message part into report_part_state. Part of fold_report_state(), which holds the state lock and moves '
    'the watermark; not to be called alone.';


-- Part of the fold: runs before fold_report_user_state, which moves the watermark, so that both read the
-- same unfolded events.
create or replace function cardinal.fold_report_conversion_values()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.report_conversion_value_state as c
    select app_id, user_key, conversion_name, test, times, amounts, currencies
    from cardinal.report_pending_conversion_value_facts
    order by 1, 2, 3, 4
    on conflict (app_id, user_key, conversion_name, test) do update set
        times = c.times || excluded.times,
        amounts = c.amounts || excluded.amounts,
        currencies = c.currencies || excluded.currencies;
end
$function$;
alter function cardinal.fold_report_conversion_values() owner to cardinal_owner;
revoke all on function cardinal.fold_report_conversion_values() from public;
comment on function cardinal.fold_report_conversion_values() is
    'Folds the unfolded conversions with a value into report_conversion_value_state. Part of '
    'fold_report_state(), which holds the state lock and moves the watermark; not to be called alone.';


-- Deleting a user's conversion state (erasure, requeue) deletes its values of the same names.
create or replace function cardinal.forget_report_conversion_values()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_conversion_value_state as v
    using forgotten as f
    where v.app_id = f.app_id and v.user_key = f.user_key and v.conversion_name = f.conversion_name
      and v.test = f.test;
    return null;
end
$function$;
alter function cardinal.forget_report_conversion_values() owner to cardinal_owner;
revoke all on function cardinal.forget_report_conversion_values() from public;
comment on function cardinal.forget_report_conversion_values() is
    'Statement trigger of report_conversion_state deletions: deletes the same users'' '
    'report_conversion_value_state rows of the same conversion names.';


create or replace trigger report_conversion_state_forget_values
    after delete on cardinal.report_conversion_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_conversion_values();
comment on trigger report_conversion_state_forget_values on cardinal.report_conversion_state is
    'Keeps report_conversion_value_state equal to what report_conversion_state holds.';


-- Deleting a user's state (erasure, requeue) deletes its dismissals, push sends and message parts in the same
-- groups: the per-group tables the fold keeps beside report_user_state.
create or replace function cardinal.forget_report_group_rows()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    with forgotten_rows as materialized (
        select distinct f.group_id, f.user_key from forgotten as f
    ),
    dismissals as (
        delete from cardinal.report_dismissal_state as d
        using forgotten_rows as f
        where d.group_id = f.group_id and d.user_key = f.user_key
    ),
    push_sends as (
        delete from cardinal.report_push_send_state as p
        using forgotten_rows as f
        where p.group_id = f.group_id and p.user_key = f.user_key
    )
    delete from cardinal.report_part_state as p
    using forgotten_rows as f
    where p.group_id = f.group_id and p.user_key = f.user_key;
    return null;
end
$function$;
alter function cardinal.forget_report_group_rows() owner to cardinal_owner;
revoke all on function cardinal.forget_report_group_rows() from public;
comment on function cardinal.forget_report_group_rows() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_dismissal_state, '
    'report_push_send_state and report_part_state rows in the same report groups.';


create or replace trigger report_user_state_forget_group_rows
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_group_rows();
comment on trigger report_user_state_forget_group_rows on cardinal.report_user_state is
    'Keeps report_dismissal_state, report_push_send_state and report_part_state equal to what '
    'report_user_state holds.';


-- Upserts the merged rows of report_pending_control_exposures; a row that would not change is left alone, so
-- that it costs no new row version.
create or replace function cardinal.fold_report_control_exposures()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- Hash joins whatever the estimates of the never-analyzed pending events.
    set enable_nestloop = off
    set jit = off
as $function$
begin
    insert into cardinal.report_control_exposures as r
    select * from cardinal.report_pending_control_exposures
    order by app_id, campaign_id, user_key
    on conflict (app_id, campaign_id, user_key) do update set
        exposed_at = excluded.exposed_at,
        control = excluded.control,
        variant_id = excluded.variant_id,
        second_arm_at = excluded.second_arm_at,
        second_arm_control = excluded.second_arm_control,
        second_arm_variant_id = excluded.second_arm_variant_id,
        conversion_event = excluded.conversion_event,
        converted_at = excluded.converted_at,
        further_converted_at = excluded.further_converted_at,
        pre_exposure_conversions = excluded.pre_exposure_conversions
    where (r.exposed_at, r.control, r.variant_id, r.second_arm_at, r.second_arm_control, r.second_arm_variant_id,
           r.conversion_event, r.converted_at, r.further_converted_at, r.pre_exposure_conversions)
          is distinct from
          (excluded.exposed_at, excluded.control, excluded.variant_id, excluded.second_arm_at,
           excluded.second_arm_control, excluded.second_arm_variant_id, excluded.conversion_event,
           excluded.converted_at, excluded.further_converted_at, excluded.pre_exposure_conversions);
end
$function$;
alter function cardinal.fold_report_control_exposures() owner to cardinal_owner;
revoke all on function cardinal.fold_report_control_exposures() from public;
comment on function cardinal.fold_report_control_exposures() is
    'Folds the unfolded events into report_control_exposures (report_pending_control_exposures). Part of '
    'fold_report_state(), inside its snapshot of the pending events; not to be called alone.';


-- The triggers that follow deletions of report_user_state find the forgotten users' rows by index, whatever
-- the transition table's estimate.
--
-- Design notes (why, not what):
--
-- * forget_report_campaign_rows deletes the report_control_exposures and report_campaign_receipts rows of the
--   users whose per-user state was deleted (erasure, re-keying, requeue, retention). Joining the transition table, which
--   has no statistics, to the rows goes wrong either way: report_campaign_receipts is keyed (app, campaign,
--   variant, user), so a nested loop over the forgotten users read the whole campaign's rows once per user (a
--   requeue of 300 k events' state ran for over ten minutes); with nested loops off, every such statement
--   hashed a sequential scan of the whole table instead (3.4 M rows at 10 M events), once per deletion of
--   per-user state — each fold that re-keys a device, each erasure.
--
-- * It looks the rows of both up through their (app_id, user_key) index with `= any(array(...))` conditions on the
--   forgotten apps and users (one sorted probe per user, as the pending views find touched users), and hash
--   that handful of rows to the forgotten (app, campaign, user) triples. No plan hinges on an estimate:
--   nested loops off (with jit off), and the index conditions take no join decision.
create or replace function cardinal.forget_report_campaign_rows()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set jit = off
as $function$
begin
    with forgotten_users as materialized (
        select distinct g.app_id, g.campaign_id, f.user_key
        from forgotten as f
        join cardinal.report_groups as g on g.group_id = f.group_id
        where g.campaign_id is not null and not g.test
    ),
    exposures as (
        delete from cardinal.report_control_exposures as r
        using forgotten_users as x
        where r.app_id = any(array(select distinct x.app_id from forgotten_users as x))
          and r.user_key = any(array(select distinct x.user_key from forgotten_users as x))
          and r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key
    )
    -- Every variant of the campaign: the receipts are keyed by variant too.
    delete from cardinal.report_campaign_receipts as r
    using forgotten_users as x
    where r.app_id = any(array(select distinct x.app_id from forgotten_users as x))
      and r.user_key = any(array(select distinct x.user_key from forgotten_users as x))
      and r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key;
    return null;
end
$function$;
alter function cardinal.forget_report_campaign_rows() owner to cardinal_owner;
revoke all on function cardinal.forget_report_campaign_rows() from public;
comment on function cardinal.forget_report_campaign_rows() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_control_exposures and '
    'report_campaign_receipts rows (every variant) of the same campaigns, found by their (app_id, user_key) '
    'indexes (the events are queued again; the next fold makes the rows anew).';


create or replace trigger report_user_state_forget_campaign_rows
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_campaign_rows();
comment on trigger report_user_state_forget_campaign_rows on cardinal.report_user_state is
    'Keeps report_control_exposures and report_campaign_receipts equal to what report_user_state holds.';


-- A report of one campaign or canvas reads that source's per-user state by index, not the whole table.
--
-- Design notes (why, not what):
--
-- * Six report functions read the per-user state filtered by campaign or canvas, most with nested loops off
--   (no plan may hinge on a row estimate), so a join to the source's groups became a hash join over every
--   state row: 0.6–1.2 s for one campaign at 10 M events.
--
-- * report_user_facts_of(campaign, canvas) returns the rows of report_user_facts of one source. Its folded
--   part finds the source's groups first and then their rows with `group_id = any(array(...))`: an index
--   condition on report_user_state's primary key (group_id, user_key), whatever the estimates, and no join
--   decision. With neither argument it is report_user_facts itself (the sequential scan is the right plan
--   for every source). It is a plain SQL function so that the planner inlines it into the caller's query:
--   the branch whose argument test fails is dropped at run time (a one-time filter), and the caller's other
--   conditions still reach the view's scans.
--
-- * Each caller passes only the arguments it filters every read of the state by, so no caller loses a row
--   it used: logging_anomalies_from_source joins the users of the campaigns a canvas touches without the
--   canvas condition, so it passes the campaign alone; control_arms_from_user_state and
--   exposure_anomalies_from_user_state filter by both. Callers without a canvas argument pass NULL.
--
-- * campaign_conversions does not read report_user_facts: it has state of its own (report_campaign_receipts).
create or replace function cardinal.report_user_facts_of(campaign text, canvas text)
    returns setof cardinal.report_user_facts
    language sql
    stable
as $function$
    select f.*
    from cardinal.report_user_facts as f
    where report_user_facts_of.campaign is null and report_user_facts_of.canvas is null
    union all
    -- The source's groups, then their rows by the primary key's first column.
    select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
           g.sdk_version, g.app_version, g.test, u.user_key, u.impression_days, u.click_days, u.dismissal_days,
           u.send_days, u.control_impression_days, u.control_send_days, u.first_impression_at, u.first_send_at,
           u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    where (report_user_facts_of.campaign is not null or report_user_facts_of.canvas is not null)
      and u.group_id = any(array(
              select s.group_id
              from cardinal.report_groups as s
              where (report_user_facts_of.campaign is null or s.campaign_id = report_user_facts_of.campaign)
                and (report_user_facts_of.canvas is null or s.canvas_id = report_user_facts_of.canvas)
          ))
      and (report_user_facts_of.campaign is null or g.campaign_id = report_user_facts_of.campaign)
      and (report_user_facts_of.canvas is null or g.canvas_id = report_user_facts_of.canvas)
    union all
    select p.*
    from cardinal.report_pending_user_facts as p
    where (report_user_facts_of.campaign is not null or report_user_facts_of.canvas is not null)
      and (report_user_facts_of.campaign is null or p.campaign_id = report_user_facts_of.campaign)
      and (report_user_facts_of.canvas is null or p.canvas_id = report_user_facts_of.canvas);
$function$;
alter function cardinal.report_user_facts_of(text, text) owner to cardinal_owner;
grant execute on function cardinal.report_user_facts_of(text, text) to cardinal_reader;
comment on function cardinal.report_user_facts_of(text, text) is
    'The rows of report_user_facts of one campaign (campaign_id = campaign) or canvas (canvas_id = canvas), '
    'or of both conditions; every row when both are NULL. The folded rows are found by the source''s groups '
    '(an index condition), so one source costs what its state holds, whatever the planner estimates.';


-- Upserts the merged rows of report_pending_campaign_receipts; a row that would not change is left alone, so
-- that it costs no new row version.
create or replace function cardinal.fold_report_campaign_receipts()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- Hash joins whatever the estimates of the never-analyzed pending events.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
begin
    insert into cardinal.report_campaign_receipts as r
    select * from cardinal.report_pending_campaign_receipts
    order by app_id, campaign_id, variant_key, user_key
    on conflict (app_id, campaign_id, variant_key, user_key) do update set
        first_received_at = excluded.first_received_at,
        received_days = excluded.received_days,
        converted_at = excluded.converted_at,
        window_revenue = excluded.window_revenue
    where (r.first_received_at, r.received_days, r.converted_at, r.window_revenue)
          is distinct from
          (excluded.first_received_at, excluded.received_days, excluded.converted_at, excluded.window_revenue);
end
$function$;
alter function cardinal.fold_report_campaign_receipts() owner to cardinal_owner;
revoke all on function cardinal.fold_report_campaign_receipts() from public;
comment on function cardinal.fold_report_campaign_receipts() is
    'Folds the unfolded events into report_campaign_receipts (report_pending_campaign_receipts). Part of '
    'fold_report_state(), inside its snapshot of the pending events; not to be called alone.';


-- The counting trigger's query of the statement's changed rows, for the columns it counts.
create or replace function cardinal.report_user_state_changes(operation text, counted_columns text[])
    returns text
    language sql
    immutable
as $function$
    select case report_user_state_changes.operation
        when 'INSERT' then format(
            'select n.group_id, n.user_key from added as n where %s',
            (select string_agg(format('n.%I is not null', c), ' or ')
             from unnest(report_user_state_changes.counted_columns) as c))
        when 'DELETE' then format(
            'select o.group_id, o.user_key from removed as o where %s',
            (select string_agg(format('o.%I is not null', c), ' or ')
             from unnest(report_user_state_changes.counted_columns) as c))
        else format(
            'select n.group_id, n.user_key from added as n
             where not exists (select from removed as o
                               where o.group_id = n.group_id and o.user_key = n.user_key and %1$s)
             union all
             select o.group_id, o.user_key from removed as o
             where not exists (select from added as n
                               where n.group_id = o.group_id and n.user_key = o.user_key and %1$s)',
            (select string_agg(format('o.%1$I is not distinct from n.%1$I', c), ' and ')
             from unnest(report_user_state_changes.counted_columns) as c))
    end
$function$;
alter function cardinal.report_user_state_changes(text, text[]) owner to cardinal_owner;
comment on function cardinal.report_user_state_changes(text, text[]) is
    'The query, for count_finding_day_users, of the statement''s report_user_state rows (group_id, user_key) in '
    'which counted_columns may have changed: inserted (added) or deleted (removed) rows with any of them '
    'set, and for an update (operation UPDATE) the rows on either side whose row on the other side differs '
    'in one of them, or is missing.';


create or replace function cardinal.fold_report_user_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
declare
    -- The new watermark. Transaction ids are handed out in one order but commit in another, so "every id
    -- above the last one folded" would skip a transaction still running at the fold that commits after it.
    -- Every transaction below the snapshot's xmin has ended, so what it stored is visible here, and one that
    -- ends later has an id at or above it. Transactions at or above it that had committed are folded too,
    -- and listed in report_folded_xids so that no later fold or report counts them again.
    snapshot_xmin constant bigint := (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint;
    folded bigint;
begin
    if current_setting('transaction_isolation') <> 'repeatable read' then
        raise exception 'fold_report_state must run in a REPEATABLE READ transaction'
            using errcode = 'invalid_transaction_state',
                  hint = 'begin isolation level repeatable read; select cardinal.fold_report_state(); commit;';
    end if;
    -- Not waiting: the snapshot was taken before the lock, so a fold that waited would work from a state
    -- that the holder has since changed. (Even so a fold or requeue committed between the snapshot and the
    -- lock only makes this one fail with 40001 when it writes the rows the other wrote, never fold twice.)
    if not pg_try_advisory_xact_lock(cardinal.report_state_lock_key()) then
        return null;
    end if;

    select count(*) into folded from cardinal.report_unfolded_events();
    if folded = 0 then
        return 0;
    end if;

    -- The merge uses plain operators only: a day set gains the new days by concatenation when it lacks any of
    -- them (so it may hold a day twice, never a day it should not), times are appended, counts added. Every
    -- reader counts distinct days and users, so repeats change nothing; a merge function per column and row
    -- cost more than the rest of the fold together (2.3 of 3.9 s for 100 k events).
    insert into cardinal.report_user_state as u
    select g.group_id, f.user_key,
           f.impression_days, f.click_days, f.dismissal_days, f.send_days, f.control_impression_days,
           f.control_send_days, f.first_impression_at, f.first_send_at, f.first_control_impression_at,
           f.first_control_send_at, f.click_times, f.dismissal_times
    from cardinal.report_pending_user_facts as f
    join cardinal.report_groups as g
        on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                    f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
    order by g.group_id, f.user_key
    on conflict (group_id, user_key) do update set
        impression_days = case when excluded.impression_days <@ u.impression_days then u.impression_days
                               else u.impression_days || excluded.impression_days end,
        click_days = case when excluded.click_days <@ u.click_days then u.click_days
                          else u.click_days || excluded.click_days end,
        dismissal_days = case when excluded.dismissal_days <@ u.dismissal_days then u.dismissal_days
                              else u.dismissal_days || excluded.dismissal_days end,
        send_days = case when excluded.send_days <@ u.send_days then u.send_days
                         else u.send_days || excluded.send_days end,
        control_impression_days = case when excluded.control_impression_days <@ u.control_impression_days
                                       then u.control_impression_days
                                       else u.control_impression_days || excluded.control_impression_days end,
        control_send_days = case when excluded.control_send_days <@ u.control_send_days then u.control_send_days
                                 else u.control_send_days || excluded.control_send_days end,
        first_impression_at = least(u.first_impression_at, excluded.first_impression_at),
        first_send_at = least(u.first_send_at, excluded.first_send_at),
        first_control_impression_at = least(u.first_control_impression_at, excluded.first_control_impression_at),
        first_control_send_at = least(u.first_control_send_at, excluded.first_control_send_at),
        click_times = u.click_times || excluded.click_times,
        dismissal_times = u.dismissal_times || excluded.dismissal_times
    -- Only when the events change the row: an unchanged row then costs no new row version.
    where not (coalesce(excluded.impression_days <@ u.impression_days, excluded.impression_days is null)
               and coalesce(excluded.click_days <@ u.click_days, excluded.click_days is null)
               and coalesce(excluded.dismissal_days <@ u.dismissal_days, excluded.dismissal_days is null)
               and coalesce(excluded.send_days <@ u.send_days, excluded.send_days is null)
               and coalesce(excluded.control_impression_days <@ u.control_impression_days,
                            excluded.control_impression_days is null)
               and coalesce(excluded.control_send_days <@ u.control_send_days, excluded.control_send_days is null)
               and coalesce(excluded.first_impression_at >= u.first_impression_at,
                            excluded.first_impression_at is null)
               and coalesce(excluded.first_send_at >= u.first_send_at, excluded.first_send_at is null)
               and coalesce(excluded.first_control_impression_at >= u.first_control_impression_at,
                            excluded.first_control_impression_at is null)
               and coalesce(excluded.first_control_send_at >= u.first_control_send_at,
                            excluded.first_control_send_at is null)
               and excluded.click_times is null
               and excluded.dismissal_times is null);

    insert into cardinal.report_daily_counts as c
    select g.group_id, f.day, f.impressions, f.clicks, f.dismissals, f.sends, f.control_impressions,
           f.control_sends, f.deliveries
    from cardinal.report_pending_daily_counts as f
    join cardinal.report_groups as g
        on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                    f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
    order by g.group_id, f.day
    on conflict (group_id, day) do update set
        impressions = c.impressions + excluded.impressions,
        clicks = c.clicks + excluded.clicks,
        dismissals = c.dismissals + excluded.dismissals,
        sends = c.sends + excluded.sends,
        control_impressions = c.control_impressions + excluded.control_impressions,
        control_sends = c.control_sends + excluded.control_sends,
        deliveries = c.deliveries + excluded.deliveries;

    insert into cardinal.report_session_state as v
    select g.group_id, f.user_key, f.session_id, f.day, f.impressions, f.message_ids
    from cardinal.report_pending_session_facts as f
    join cardinal.report_groups as g
        on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                    f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
    order by 1, 2, 3, 4
    on conflict (group_id, user_key, session_id, day) do update set
        impressions = v.impressions + excluded.impressions,
        message_ids = case when excluded.message_ids <@ v.message_ids then v.message_ids
                           else v.message_ids || excluded.message_ids end;

    insert into cardinal.report_conversion_state as c
    select app_id, user_key, conversion_name, test, times
    from cardinal.report_pending_conversion_facts
    order by 1, 2, 3, 4
    on conflict (app_id, user_key, conversion_name, test) do update set
        times = c.times || excluded.times;

    -- Last, while the unfolded events are still unfolded: the transactions at or above the new watermark
    -- whose events were just folded.
    insert into cardinal.report_folded_xids
    select distinct u.stored_xid
    from cardinal.report_unfolded_events() as u
    where u.stored_xid >= snapshot_xmin;
    delete from cardinal.report_folded_xids where xid < snapshot_xmin;
    update cardinal.report_fold_watermark set folded_below = greatest(folded_below, snapshot_xmin);
    -- Only the queued events of the fold's snapshot: a long queue is folded in parts.
    delete from cardinal.report_fold_queue as q
    using pg_temp.report_fold_events as f
    where f.stored_xid is null
      and q.app_id = f.app_id
      and q.id = f.id
      and q.time = f.time
      -- The part's range (take_report_fold_snapshot), by the queue's index.
      and cardinal.report_fold_user_hash(q.user_key)
          >= split_part(current_setting('cardinal.report_fold_queue_part'), ' ', 1)::bigint
      and cardinal.report_fold_user_hash(q.user_key)
          < split_part(current_setting('cardinal.report_fold_queue_part'), ' ', 2)::bigint;
    return folded;
end
$function$;
alter function cardinal.fold_report_user_state() owner to cardinal_owner;
revoke all on function cardinal.fold_report_user_state() from public;
comment on function cardinal.fold_report_user_state() is
    'The fold''s last step: folds the pending events into report_user_state, report_daily_counts, '
    'report_session_state and report_conversion_state, then advances the watermark, records the folded '
    'transactions above it and deletes the folded part of the queue; returns how many events it folded. '
    'Part of fold_report_state(); not to be called alone.';
