-- 0018_retention_keeps_report_state.sql — dropping expired partitions keeps the report state (0015) equal to
-- the events that are left.
--
-- drop_expired_event_partitions (0007) gains one step: the apps that had events in a dropped partition
-- get their report state rebuilt (requeue_report_state: state dropped, remaining events queued, the next
-- fold makes it again). Rebuilding costs a pass over the app's events (the fold's throughput is in the
-- README's Performance table); retention drops a month at a time, so it runs once a month. Taking the
-- dropped events out of the state directly would be cheaper but cannot be exact: a user's first impression
-- that is dropped leaves no trace of the next one in the state.

create or replace function cardinal.drop_expired_event_partitions(retention interval default null)
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
    expired_apps  bigint[];
    affected_apps bigint[] := '{}';
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
        return next expired.relation;
    end loop;
    perform cardinal.requeue_report_state(app_id)
    from (select distinct unnest(affected_apps) as app_id order by 1) as affected;
end
$function$;
comment on function cardinal.drop_expired_event_partitions(interval) is
    'Drops every partition of cardinal.events whose whole range ends at or before now() - retention and '
    'returns their names (schema-qualified), oldest first; then rebuilds the report state of the apps that '
    'had events in them (requeue_report_state). retention NULL (the default) means '
    'settings.retention_days. Waits at most 2 s for the lock on cardinal.events per partition; on a '
    'timeout it warns and stops with what it dropped so far. For members of cardinal_owner.';
