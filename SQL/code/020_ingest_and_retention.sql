-- Ingest and retention: monthly event partitions, what expires and when, the transactions that stored events.
--
-- cardinald calls ensure_event_partitions before a batch reaches a month it has not seen; the statement at the
-- end of this file makes the months of the retention window. drop_expired_event_partitions and
-- delete_expired_rejected_events (run by `cardinal retention apply`) remove what expired_event_partitions and
-- expired_rejected_events list, both judged by effective_retention. Two triggers keep event_storing_xids, the
-- transactions that stored events the fold has not passed yet, which the pending reads of the report state use.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- Creates each missing month as a plain table and then ATTACHes it, instead of CREATE TABLE ... PARTITION
-- OF: measured on PostgreSQL 15, PARTITION OF takes an ACCESS EXCLUSIVE lock on cardinal.events (queueing
-- every insert and report behind it), while ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE, which inserts
-- and selects do not conflict with. The new table is empty, so ATTACH's validation scan is free.
-- LIKE ... INCLUDING ALL copies columns, defaults, the generated column, CHECK constraints, indexes and
-- column comments; ATTACH then adopts the copied indexes as partitions of the parent's indexes.
--
-- SECURITY DEFINER so that cardinal_ingest can create partitions without owning events; search_path is
-- pinned and every name qualified, so a caller cannot substitute objects. Two callers that both miss the
-- same month serialize on a transaction-level advisory lock (held until the winner commits); the loser's
-- CREATE TABLE then fails with duplicate_table, which is caught and skipped, as is a table made by hand.
-- The accepted range is bounded (see the errors below) so that a bad clock or a bug cannot fill the
-- catalog with partitions.
create or replace function cardinal.ensure_event_partitions(from_time timestamptz, to_time timestamptz)
    returns integer
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    kept_days      integer;
    earliest       timestamptz;
    latest         timestamptz;
    month_start    timestamptz;
    month_end      timestamptz;
    partition_name text;
    created        integer := 0;
begin
    if from_time is null or to_time is null then
        raise exception 'ensure_event_partitions: from_time and to_time must not be null'
            using errcode = 'null_value_not_allowed';
    end if;
    if from_time > to_time then
        raise exception 'ensure_event_partitions: from_time % is after to_time %', from_time, to_time
            using errcode = 'invalid_parameter_value';
    end if;

    -- Events older than the retention are rejected at ingest and would be dropped by the next retention
    -- run, and events more than 24 hours ahead are rejected too; a month of slack on each side.
    select s.retention_days into kept_days from cardinal.settings as s;
    earliest := now() - make_interval(days => coalesce(kept_days, 400)) - interval '31 days';
    latest := now() + interval '1 year';
    if from_time < earliest or to_time > latest then
        raise exception 'ensure_event_partitions: [%, %] is outside the allowed range [%, %]',
                from_time, to_time, earliest, latest
            using errcode = 'invalid_parameter_value',
                  hint = 'The range must lie within the retention (settings.retention_days) plus a month '
                         'and at most one year ahead; raise retention_days to load older events.';
    end if;

    month_start := date_trunc('month', from_time, 'UTC');
    while month_start <= to_time loop
        month_end := ((month_start at time zone 'UTC') + interval '1 month') at time zone 'UTC';
        partition_name := 'events_' || to_char(month_start at time zone 'UTC', '"y"YYYY"m"MM');

        if to_regclass(format('cardinal.%I', partition_name)) is null then
            perform pg_advisory_xact_lock('pg_class'::regclass::oid::integer,
                                          'cardinal.events'::regclass::oid::integer);
            begin
                execute format('create table cardinal.%I (like cardinal.events including all)', partition_name);
                -- Bounds spelled out in UTC so that they do not depend on the session's TimeZone/DateStyle.
                execute format('alter table cardinal.events attach partition cardinal.%I '
                               'for values from (%L) to (%L)',
                               partition_name,
                               to_char(month_start at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS"+00"'),
                               to_char(month_end at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS"+00"'));
                execute format('comment on table cardinal.%I is %L',
                               partition_name,
                               format('Events whose time is in [%s, %s) UTC: the monthly partition of '
                                      'cardinal.events, made by ensure_event_partitions and dropped by '
                                      'drop_expired_event_partitions. Query cardinal.events instead.',
                                      to_char(month_start at time zone 'UTC', 'YYYY-MM-DD'),
                                      to_char(month_end at time zone 'UTC', 'YYYY-MM-DD')));
                created := created + 1;
            exception
                when duplicate_table or unique_violation then
                    -- Made meanwhile by the caller we waited for on the lock, or by hand.
                    null;
            end;
        end if;

        month_start := month_end;
    end loop;

    return created;
end
$function$;
alter function cardinal.ensure_event_partitions(timestamp with time zone, timestamp with time zone) owner to cardinal_owner;
revoke all on function cardinal.ensure_event_partitions(timestamp with time zone, timestamp with time zone) from public;
grant execute on function cardinal.ensure_event_partitions(timestamp with time zone, timestamp with time zone) to cardinal_ingest;
comment on function cardinal.ensure_event_partitions(timestamptz, timestamptz) is
    'Creates every missing monthly partition (UTC months, named events_yYYYYmMM) of cardinal.events that '
    'covers [from_time, to_time], both ends included, and returns how many it created. Safe to call '
    'concurrently and often (no lock when nothing is missing). Refuses ranges older than the retention '
    'plus a month or more than a year ahead. SECURITY DEFINER (runs as cardinal_owner); executable by '
    'cardinal_ingest.';


-- The retention both clean-up functions below apply: the one passed, else settings.retention_days. One
-- function so that the two cannot come to disagree on what "expired" means.
create or replace function cardinal.effective_retention(retention interval)
    returns interval
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
declare
    effective interval;
begin
    effective := coalesce(retention,
                          (select make_interval(days => s.retention_days) from cardinal.settings as s),
                          interval '400 days');
    if effective <= interval '0' then
        raise exception 'retention must be positive, not %', effective
            using errcode = 'invalid_parameter_value';
    end if;
    return effective;
end
$function$;
alter function cardinal.effective_retention(interval) owner to cardinal_owner;
revoke all on function cardinal.effective_retention(interval) from public;
comment on function cardinal.effective_retention(interval) is
    'The retention the clean-up functions apply: retention when given, else settings.retention_days; '
    'refuses a retention that is not positive.';


-- Drops the partitions expired_event_partitions lists, oldest first. Each drop takes ACCESS EXCLUSIVE on
-- cardinal.events, so lock_timeout bounds the wait (inserts and reports queue behind a waiting drop); a busy
-- table stops the run with a warning instead of blocking ingest. The report state of the apps whose events
-- went is rebuilt from what is left, since it still counts them.
create or replace function cardinal.drop_expired_event_partitions(retention interval default null)
    returns setof text
    language plpgsql
    set search_path = pg_catalog, pg_temp
    set lock_timeout = '2s'
as $function$
declare
    expired       record;
    expired_apps   bigint[];
    affected_apps  bigint[] := '{}';
    dropped_before timestamptz;
begin
    for expired in select * from cardinal.expired_event_partitions(retention) loop
        -- The apps whose events this partition holds: their report state is rebuilt from what is left.
        execute format('select array(select distinct app_id from %s)', expired.relation) into expired_apps;
        begin
            execute format('drop table %s', expired.relation);
        exception
            when lock_not_available then
                raise warning 'drop_expired_event_partitions: % is busy (lock_timeout %); retry later',
                    expired.relation, current_setting('lock_timeout');
                exit;
        end;
        affected_apps := affected_apps || expired_apps;
        dropped_before := greatest(dropped_before, expired.to_time);
        return next expired.relation;
    end loop;
    -- The order records of the dropped events go with them, before the rebuild, which then counts the heirs.
    perform cardinal.forget_deleted_conversion_orders(affected.app_id, null, dropped_before)
    from (select distinct unnest(affected_apps) as app_id order by 1) as affected;
    perform cardinal.requeue_report_state(app_id)
    from (select distinct unnest(affected_apps) as app_id order by 1) as affected;
end
$function$;
alter function cardinal.drop_expired_event_partitions(interval) owner to cardinal_owner;
revoke all on function cardinal.drop_expired_event_partitions(interval) from public;
comment on function cardinal.drop_expired_event_partitions(interval) is
    'Drops every partition of cardinal.events whose whole range ends at or before now() - retention and '
    'returns their names (schema-qualified), oldest first; then forgets their events'' order records '
    '(forget_deleted_conversion_orders) and rebuilds the report state of the apps that had events in them '
    '(requeue_report_state). retention NULL (the default) means '
    'settings.retention_days. Waits at most 2 s for the lock on cardinal.events per partition; on a '
    'timeout it warns and stops with what it dropped so far. For members of cardinal_owner.';


create or replace function cardinal.delete_expired_rejected_events(retention interval default null, app_id bigint default null)
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    deleted bigint;
begin
    delete from cardinal.rejected_events as r
    where r.received_at < now() - cardinal.effective_retention(retention)
      and (delete_expired_rejected_events.app_id is null or r.app_id = delete_expired_rejected_events.app_id);
    get diagnostics deleted = row_count;
    return deleted;
end
$function$;
alter function cardinal.delete_expired_rejected_events(interval, bigint) owner to cardinal_owner;
revoke all on function cardinal.delete_expired_rejected_events(interval, bigint) from public;
comment on function cardinal.delete_expired_rejected_events(interval, bigint) is
    'Deletes rejected events received before now() - retention (NULL: settings.retention_days), of one app or '
    '(app_id NULL) of every app, and returns how many. For members of cardinal_owner.';


-- What `cardinal retention apply --dry-run` lists, and what drop_expired_event_partitions drops: one
-- definition of an expired partition, so that the two cannot disagree.
create or replace function cardinal.expired_event_partitions(retention interval default null)
    returns table (relation text, from_time timestamptz, to_time timestamptz, estimated_events bigint)
    language sql
    stable
    set search_path = pg_catalog, pg_temp
    set timezone = 'UTC'
    set datestyle = 'ISO, YMD'
as $function$
    select partition.relation, partition.lower_bound, partition.upper_bound, partition.estimated_events
    from (
        -- The name as text, taken before a drop: a dropped table's regclass prints as a number. The bounds
        -- are read back from the catalog, so that a partition attached by hand is judged by what it holds.
        select format('%I.%I', n.nspname, c.relname) as relation,
               (regexp_match(pg_get_expr(c.relpartbound, c.oid), $re$FROM \('([^']+)'\)$re$))[1]::timestamptz
                   as lower_bound,
               (regexp_match(pg_get_expr(c.relpartbound, c.oid), $re$ TO \('([^']+)'\)$re$))[1]::timestamptz
                   as upper_bound,
               greatest(c.reltuples, 0)::bigint as estimated_events
        from pg_inherits as i
        join pg_class as c on c.oid = i.inhrelid
        join pg_namespace as n on n.oid = c.relnamespace
        where i.inhparent = 'cardinal.events'::regclass
    ) as partition
    -- The range is [lower, upper): it lies wholly before the cutoff when upper <= cutoff.
    where partition.upper_bound <= now() - cardinal.effective_retention(expired_event_partitions.retention)
    order by partition.upper_bound;
$function$;
alter function cardinal.expired_event_partitions(interval) owner to cardinal_owner;
revoke all on function cardinal.expired_event_partitions(interval) from public;
comment on function cardinal.expired_event_partitions(interval) is
    'The partitions of cardinal.events that drop_expired_event_partitions would drop now: those whose whole '
    'range [from_time, to_time) ends at or before now() - retention (NULL: settings.retention_days), oldest '
    'first, with the planner''s estimate of their rows (pg_class.reltuples; 0 before the first ANALYZE). '
    'For members of cardinal_owner.';


create or replace function cardinal.expired_rejected_events(retention interval default null, app_id bigint default null)
    returns table (app_id bigint, rejected_events bigint, oldest timestamptz, newest timestamptz)
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    select r.app_id, count(*), min(r.received_at), max(r.received_at)
    from cardinal.rejected_events as r
    where r.received_at < now() - cardinal.effective_retention(expired_rejected_events.retention)
      and (expired_rejected_events.app_id is null or r.app_id = expired_rejected_events.app_id)
    group by r.app_id
    order by r.app_id;
$function$;
alter function cardinal.expired_rejected_events(interval, bigint) owner to cardinal_owner;
revoke all on function cardinal.expired_rejected_events(interval, bigint) from public;
comment on function cardinal.expired_rejected_events(interval, bigint) is
    'What delete_expired_rejected_events would delete now, per app: how many rejected events and the '
    'oldest and newest received_at among them. For members of cardinal_owner.';


-- Records the storing transaction; the owner's rights, so that the ingest role needs none on the table.
create or replace function cardinal.record_event_storing_xid()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.event_storing_xids (xid)
    values ((pg_current_xact_id()::text)::bigint)
    on conflict (xid) do nothing;
    return null;
end
$function$;
alter function cardinal.record_event_storing_xid() owner to cardinal_owner;
revoke all on function cardinal.record_event_storing_xid() from public;
comment on function cardinal.record_event_storing_xid() is
    'Statement trigger of cardinal.events: records the storing transaction in event_storing_xids, the same id '
    'events.stored_xid defaults to.';


create or replace trigger events_record_storing_xid
    after insert on cardinal.events
    for each statement
    execute function cardinal.record_event_storing_xid();
comment on trigger events_record_storing_xid on cardinal.events is
    'Records each storing transaction in event_storing_xids, so that a pending read knows whether to read '
    'the partitions.';


-- Records which stored conversion of an order came first (conversion_orders) and which repeat it
-- (repeated_order_conversions), in the storing transaction. A row trigger whose WHEN leaves out every event
-- without an order, so that other events pay only that test; an AFTER trigger, so that an event skipped as a
-- duplicate of a stored one (ON CONFLICT DO NOTHING) records nothing. Two batches storing the same order at
-- once: the second waits on the first's conversion_orders key, and is the repeat if the first commits. Two
-- batches that share two orders logged in opposite time orders can deadlock on those keys (events go in by
-- time): one is chosen as the victim, and the daemon's batch sink retries it. The owner's rights, so that the
-- ingest role needs none on the tables.
create or replace function cardinal.record_conversion_order()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.conversion_orders (app_id, conversion_name, order_id, product_id, time, id, user_key,
                                            platform, sdk_version, app_version, test)
    values (new.app_id, new.conversion_name, new.order_id, coalesce(new.product_id, ''), new.time, new.id,
            new.user_key, new.platform, new.sdk_version, new.app_version, new.test)
    on conflict (app_id, conversion_name, order_id, product_id, test) do nothing;
    if not found then
        insert into cardinal.repeated_order_conversions (app_id, time, id, conversion_name, order_id, product_id,
                                                         user_key, platform, sdk_version, app_version, test)
        values (new.app_id, new.time, new.id, new.conversion_name, new.order_id, coalesce(new.product_id, ''),
                new.user_key, new.platform, new.sdk_version, new.app_version, new.test);
    end if;
    return null;
end
$function$;
alter function cardinal.record_conversion_order() owner to cardinal_owner;
revoke all on function cardinal.record_conversion_order() from public;
comment on function cardinal.record_conversion_order() is
    'Row trigger of cardinal.events for conversions with an order_id: the first stored conversion of an order '
    '(app, conversion name, order_id, product_id, test) goes into conversion_orders, a later one into '
    'repeated_order_conversions.';


create or replace trigger events_record_conversion_order
    after insert on cardinal.events
    for each row
    when (new.order_id is not null)
    execute function cardinal.record_conversion_order();
comment on trigger events_record_conversion_order on cardinal.events is
    'Records each stored conversion with an order as its order''s first or as a repeat, so that revenue '
    'counts an order once.';


-- The order records of events deleted since (erasure, retention): a record whose event is gone goes, and an
-- order whose first stored conversion went passes to its earliest remaining repeat, as if the deleted one had
-- never been stored. "Earliest" is by storing transaction, then time and id: the order in which a batch
-- stores, and for batches that do not overlap the order in which they were stored.
create or replace function cardinal.forget_deleted_conversion_orders(
    app_id     bigint,
    user_keys  text[]      default null,
    older_than timestamptz default null
)
    returns setof text
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := forget_deleted_conversion_orders.app_id;
    -- The keys of the orders whose first went, column by column.
    names    text[];
    orders   text[];
    products text[];
    tests    boolean[];
begin
    delete from cardinal.repeated_order_conversions as r
    where r.app_id = target_app
      and (user_keys is null or r.user_key = any(user_keys))
      and (older_than is null or r.time < older_than)
      and not exists (select from cardinal.events as e
                      where e.app_id = r.app_id and e.time = r.time and e.id = r.id);
    with orphaned as (
        delete from cardinal.conversion_orders as o
        where o.app_id = target_app
          and (user_keys is null or o.user_key = any(user_keys))
          and (older_than is null or o.time < older_than)
          and not exists (select from cardinal.events as e
                          where e.app_id = o.app_id and e.time = o.time and e.id = o.id)
        returning o.conversion_name, o.order_id, o.product_id, o.test
    )
    select array_agg(conversion_name), array_agg(order_id), array_agg(product_id), array_agg(test)
    into names, orders, products, tests
    from orphaned;

    -- A statement of its own: the heirs take the keys the one above deleted.
    return query
    with heirs as (
        select distinct on (r.conversion_name, r.order_id, r.product_id, r.test) r.time, r.id
        from unnest(names, orders, products, tests) as k(conversion_name, order_id, product_id, test)
        join cardinal.repeated_order_conversions as r
          on r.app_id = target_app and r.conversion_name = k.conversion_name and r.order_id = k.order_id
         and r.product_id = k.product_id and r.test = k.test
        join cardinal.events as e on e.app_id = r.app_id and e.time = r.time and e.id = r.id
        order by r.conversion_name, r.order_id, r.product_id, r.test, e.stored_xid nulls first, r.time, r.id
    ),
    promoted as (
        delete from cardinal.repeated_order_conversions as r
        using heirs as h
        where r.app_id = target_app and r.time = h.time and r.id = h.id
        returning r.*
    )
    insert into cardinal.conversion_orders
        (app_id, conversion_name, order_id, product_id, test, time, id, user_key, platform, sdk_version,
         app_version)
    select p.app_id, p.conversion_name, p.order_id, p.product_id, p.test, p.time, p.id, p.user_key, p.platform,
           p.sdk_version, p.app_version
    from promoted as p
    returning conversion_orders.user_key;
end
$function$;
alter function cardinal.forget_deleted_conversion_orders(bigint, text[], timestamptz) owner to cardinal_owner;
revoke all on function cardinal.forget_deleted_conversion_orders(bigint, text[], timestamptz) from public;
comment on function cardinal.forget_deleted_conversion_orders(bigint, text[], timestamptz) is
    'Deletes the conversion_orders and repeated_order_conversions rows of one app whose event is gone (of the '
    'given user keys, older than the given time; NULL: any), and makes the earliest stored remaining repeat of each '
    'order whose first went its first. Returns the user keys (events.user_key) of those heirs, whose value now '
    'counts: their report state must be rebuilt. For erasure and retention.';


-- Forgets the transactions a fold's watermark has passed.
create or replace function cardinal.prune_event_storing_xids()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.event_storing_xids as s where s.xid < new.folded_below;
    return null;
end
$function$;
alter function cardinal.prune_event_storing_xids() owner to cardinal_owner;
revoke all on function cardinal.prune_event_storing_xids() from public;
comment on function cardinal.prune_event_storing_xids() is
    'Row trigger of report_fold_watermark: deletes the rows of event_storing_xids below the new folded_below, '
    'whose events are folded.';


create or replace trigger report_fold_watermark_prunes_storing_xids
    after update of folded_below on cardinal.report_fold_watermark
    for each row
    when (new.folded_below > old.folded_below)
    execute function cardinal.prune_event_storing_xids();
comment on trigger report_fold_watermark_prunes_storing_xids on cardinal.report_fold_watermark is
    'Prunes event_storing_xids as a fold advances the watermark.';


-- The partitions for the whole retention window and two months ahead, so that a new install accepts events
-- from its first second and events loaded with psql or COPY find their month. Only the missing months are
-- made, so applying this again changes nothing.
select cardinal.ensure_event_partitions(
    now() - make_interval(days => (select retention_days from cardinal.settings)),
    now() + interval '2 months');
