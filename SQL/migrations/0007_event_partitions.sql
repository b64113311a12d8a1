-- 0007_event_partitions.sql — creating and dropping the monthly partitions of cardinal.events, the
-- retention of rejected events, and the partitions for the first months.
--
-- Partitions are made ahead of time (at migration, for the retention window and two months ahead) and on
-- demand: cardinald calls ensure_event_partitions for a batch's time range whenever the batch reaches a month
-- its writer has not seen, in its own short transaction before the batch's. When nothing is missing it only
-- looks names up in the catalog and takes no lock.


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
create function cardinal.ensure_event_partitions(from_time timestamptz, to_time timestamptz)
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

alter function cardinal.ensure_event_partitions(timestamptz, timestamptz) owner to cardinal_owner;

revoke execute on function cardinal.ensure_event_partitions(timestamptz, timestamptz) from public;

comment on function cardinal.ensure_event_partitions(timestamptz, timestamptz) is
    'Creates every missing monthly partition (UTC months, named events_yYYYYmMM) of cardinal.events that '
    'covers [from_time, to_time], both ends included, and returns how many it created. Safe to call '
    'concurrently and often (no lock when nothing is missing). Refuses ranges older than the retention '
    'plus a month or more than a year ahead. SECURITY DEFINER (runs as cardinal_owner); executable by '
    'cardinal_ingest.';


-- The retention both clean-up functions below apply: the one passed, else settings.retention_days. One
-- function so that the two cannot come to disagree on what "expired" means.
create function cardinal.effective_retention(retention interval)
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

revoke execute on function cardinal.effective_retention(interval) from public;

comment on function cardinal.effective_retention(interval) is
    'The retention the clean-up functions apply: retention when given, else settings.retention_days; '
    'refuses a retention that is not positive.';


-- Dropping a partition needs ACCESS EXCLUSIVE on cardinal.events (measured: DROP and DETACH both take it;
-- DETACH ... CONCURRENTLY cannot run inside a transaction). While the drop waits for running reports,
-- every new insert would queue behind it, so the wait is bounded by lock_timeout: on a timeout the
-- function stops, warns, and returns what it dropped so far; the next run retries.
--
-- The bounds are read back from the catalog (pg_get_expr) rather than from partition names, so that a
-- partition attached by hand is judged by what it holds. TimeZone and DateStyle are pinned so that the
-- bound's text round-trips exactly.
--
-- SECURITY INVOKER: only members of cardinal_owner (and superusers) may drop partitions, and PUBLIC's
-- EXECUTE is revoked as well.
create function cardinal.drop_expired_event_partitions(retention interval default null)
    returns setof text
    language plpgsql
    set search_path = pg_catalog, pg_temp
    set timezone = 'UTC'
    set datestyle = 'ISO, YMD'
    set lock_timeout = '2s'
as $function$
declare
    effective interval;
    cutoff    timestamptz;
    expired   record;
begin
    effective := cardinal.effective_retention(retention);
    cutoff := now() - effective;

    for expired in
        select partition.relation, partition.upper_bound
        from (
            -- The name as text, taken before the drop: a dropped table's regclass prints as a number.
            select format('%I.%I', n.nspname, c.relname) as relation,
                   (regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                 $re$ TO \('([^']+)'\)$re$))[1]::timestamptz as upper_bound
            from pg_inherits as i
            join pg_class as c on c.oid = i.inhrelid
            join pg_namespace as n on n.oid = c.relnamespace
            where i.inhparent = 'cardinal.events'::regclass
        ) as partition
        -- The range is [lower, upper): it lies wholly before the cutoff when upper <= cutoff.
        where partition.upper_bound <= cutoff
        order by partition.upper_bound
    loop
        begin
            execute format('drop table %s', expired.relation);
        exception
            when lock_not_available then
                raise warning 'drop_expired_event_partitions: % is busy (lock_timeout %); retry later',
                    expired.relation, current_setting('lock_timeout');
                return;
        end;
        return next expired.relation;
    end loop;
end
$function$;

alter function cardinal.drop_expired_event_partitions(interval) owner to cardinal_owner;

revoke execute on function cardinal.drop_expired_event_partitions(interval) from public;

comment on function cardinal.drop_expired_event_partitions(interval) is
    'Drops every partition of cardinal.events whose whole range ends at or before now() - retention and '
    'returns their names (schema-qualified), oldest first. retention NULL (the default) means '
    'settings.retention_days. Waits at most 2 s for the lock on cardinal.events per partition; on a '
    'timeout it warns and returns what it dropped so far. For members of cardinal_owner.';


-- Rejected events are not partitioned (see 0006), so their retention is a DELETE by received_at, found
-- through the BRIN index rejected_events_received_brin.
create function cardinal.delete_expired_rejected_events(retention interval default null)
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    effective interval;
    deleted   bigint;
begin
    effective := cardinal.effective_retention(retention);

    delete from cardinal.rejected_events where received_at < now() - effective;
    get diagnostics deleted = row_count;
    return deleted;
end
$function$;

alter function cardinal.delete_expired_rejected_events(interval) owner to cardinal_owner;

revoke execute on function cardinal.delete_expired_rejected_events(interval) from public;

comment on function cardinal.delete_expired_rejected_events(interval) is
    'Deletes rejected events received before now() - retention and returns how many. retention NULL (the '
    'default) means settings.retention_days. For members of cardinal_owner.';


-- The partitions for the whole retention window and two months ahead, so that the daemon can accept
-- events from its first second.
do $precreate$
begin
    perform cardinal.ensure_event_partitions(
        now() - make_interval(days => (select retention_days from cardinal.settings)),
        now() + interval '2 months');
end
$precreate$;
