-- 0022_erasure_and_retention.sql — erasing one identity (a user or a device) of an app everywhere Cardinal
-- keeps it, with an audit trail that keeps no identity; and what `cardinal retention apply` lists and does
-- (issue 10, "Erasure and retention").
--
-- Design notes (why, not what):
--
-- * Finding one identity's events without scanning every partition. events is partitioned by time and an
--   erasure request has no time, so every partition is visited; the two indexes below make each visit one
--   index probe instead of a scan of the month. events_user_key_idx finds a user's events (user_key =
--   user_id when known) and a device's anonymous events (user_key = 'device:' || device_id); it is also how
--   the erasure finds every event that fed one user's report state. events_device_idx finds a device's
--   identified events too (a user who logged in on it). Their cost to ingest is measured in the README
--   (Performance). Built here as plain CREATE INDEX: migrations run in a transaction, which CREATE INDEX
--   CONCURRENTLY cannot; on a large installation this migration holds a SHARE lock on events (inserts wait)
--   while each partition's index is built.
--
-- * Report state is corrected by exact subtraction, per affected user, not by rebuilding the app. The
--   affected users are the erased user, or for a device its anonymous key and every user who used it.
--   Their own rows (report_user_state, report_session_state, report_conversion_state) are deleted; the
--   per-day counts of report_daily_counts, which mix every user, lose exactly what the affected users'
--   folded events added; then the affected users' remaining events (none for an erased user; a device's
--   other users keep their other devices) are queued again, so the next fold makes their rows anew from
--   what is left. Every stored event is on exactly one side (state or unfolded: in the queue, or stored
--   since the last fold, 0015 and 0021), so the events of an affected user that are not unfolded are
--   exactly those the state holds. Rebuilding the whole app instead
--   (requeue_report_state) would be as exact but cost a pass over all of its events per erased user.
--
-- * report_groups whose every state row went with the erasure are deleted: a group may have been made by
--   the erased user's events alone (an app version only that user ran). A group still named by a queued
--   event is recreated by the next fold (it inserts the groups of the queue first), so deleting it is safe.
--
-- * Rejected events are matched in their raw body: the user_id or device_id field of the JSON object, or,
--   when the body is not a JSON object (a malformed NDJSON line), the identity as a JSON string anywhere in
--   it. They are found through the app's rows (rejected_events_app_received_idx); rejections are few and
--   expire with the retention.
--
-- * One transaction per identity, the report-state lock held (fold_report_state and requeue_report_state
--   wait or skip meanwhile), so a fold never sees half an erasure. Events the daemon stores for the identity
--   after the erasure committed are new data: the app must stop sending them.
--
-- * The audit row keeps when, which app, what kind of identity, how many rows of each table went, and a
--   salted SHA-256 of the identity: enough to answer "was this identity erased, and when" for someone who
--   is given the identity and holds the salt, and nothing that names anyone to whoever reads the table. The
--   salt is one per installation (erasure_salt), random, readable only by cardinal_owner; without it the
--   hashes cannot be tested against a list of likely ids.


create index events_user_key_idx
    on cardinal.events (app_id, user_key);

comment on index cardinal.events_user_key_idx is
    'Erasure: one user''s events of an app (user_key = user_id, or device: || device_id when anonymous), '
    'one index probe per partition (0022).';

create index events_device_idx
    on cardinal.events (app_id, device_id)
    where device_id is not null;

comment on index cardinal.events_device_idx is
    'Erasure: one device''s events of an app, anonymous or not, one index probe per partition (0022).';

-- The partitions' own indexes need their comment too (new partitions copy it with LIKE … INCLUDING ALL).
do $partition_index_comments$
declare
    child record;
begin
    for child in
        select c.relname as index_name, p.relname as parent_name
        from pg_catalog.pg_inherits as i
        join pg_catalog.pg_class as c on c.oid = i.inhrelid
        join pg_catalog.pg_class as p on p.oid = i.inhparent
        where p.relname in ('events_user_key_idx', 'events_device_idx')
          and p.relnamespace = 'cardinal'::regnamespace
    loop
        execute format('comment on index cardinal.%I is %L', child.index_name,
                       pg_catalog.obj_description(format('cardinal.%I', child.parent_name)::regclass, 'pg_class'));
    end loop;
end
$partition_index_comments$;


create table cardinal.erasure_salt (
    singleton boolean not null default true,
    salt      bytea   not null,

    constraint erasure_salt_pkey primary key (singleton),
    constraint erasure_salt_singleton_is_true check (singleton),
    constraint erasure_salt_length check (octet_length(salt) >= 16)
);

alter table cardinal.erasure_salt owner to cardinal_owner;

-- 32 bytes from two random (version 4) UUIDs: gen_random_uuid is PostgreSQL's own strong random source,
-- and pgcrypto is not needed for it.
insert into cardinal.erasure_salt (salt)
values (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));

comment on table cardinal.erasure_salt is
    'The installation''s salt of erasures.identity_hash: exactly one row, made at migration, never changed '
    '(a new salt would make old audit rows unverifiable). Readable by cardinal_owner only, not by '
    'cardinal_reader: with it, a hash can be tested against guessed ids.';
comment on column cardinal.erasure_salt.singleton is
    'Always true; as the primary key it limits the table to one row.';
comment on column cardinal.erasure_salt.salt is
    '32 random bytes prefixed to the identity before hashing (erasure_identity_hash).';

-- Also when the migration runs as a member of cardinal_owner, whose default privileges grant SELECT on new
-- tables to cardinal_reader (0002).
revoke all on cardinal.erasure_salt from cardinal_reader, cardinal_ingest;


create table cardinal.erasures (
    erasure_id              bigint      generated always as identity,
    erased_at               timestamptz not null default now(),
    erased_by               text        not null default current_user,
    app_id                  bigint      not null,
    identity_kind           text        not null,
    identity_hash           bytea       not null,
    events                  bigint      not null,
    rejected_events         bigint      not null,
    report_user_state       bigint      not null,
    report_session_state    bigint      not null,
    report_conversion_state bigint      not null,
    report_daily_counts     bigint      not null,
    report_fold_queue       bigint      not null,
    report_groups           bigint      not null,
    requeued_events         bigint      not null,

    constraint erasures_pkey primary key (erasure_id),
    constraint erasures_identity_kind_known check (identity_kind in ('user', 'device')),
    constraint erasures_identity_hash_is_sha256 check (octet_length(identity_hash) = 32)
);

alter table cardinal.erasures owner to cardinal_owner;

comment on table cardinal.erasures is
    'Audit trail of erasures (cardinal users erase, erase_identity): one row per erased identity, written in '
    'the erasing transaction. Holds no identity: only a salted hash of it (erasure_identity_hash), so that '
    'whoever is given an identity can tell whether and when it was erased. Never deleted by Cardinal.';
comment on column cardinal.erasures.erasure_id is 'Identifier of the erasure, in the order they committed.';
comment on column cardinal.erasures.erased_at is 'When the erasing transaction started.';
comment on column cardinal.erasures.erased_by is 'The database role that ran it (an operator''s login, not the data subject).';
comment on column cardinal.erasures.app_id is 'The app whose data was erased (apps.app_id).';
comment on column cardinal.erasures.identity_kind is 'user (a user_id) or device (a device_id).';
comment on column cardinal.erasures.identity_hash is
    'SHA-256 of the installation''s salt (erasure_salt) and kind:identity; see erasure_identity_hash.';
comment on column cardinal.erasures.events is 'Events deleted.';
comment on column cardinal.erasures.rejected_events is 'Rejected events deleted (matched in their raw body).';
comment on column cardinal.erasures.report_user_state is 'report_user_state rows deleted (the affected users'').';
comment on column cardinal.erasures.report_session_state is 'report_session_state rows deleted.';
comment on column cardinal.erasures.report_conversion_state is 'report_conversion_state rows deleted.';
comment on column cardinal.erasures.report_daily_counts is
    'report_daily_counts rows reduced by the affected users'' events (deleted when nothing was left).';
comment on column cardinal.erasures.report_fold_queue is 'Queued rows of the affected users removed from report_fold_queue.';
comment on column cardinal.erasures.report_groups is 'report_groups left without state and deleted.';
comment on column cardinal.erasures.requeued_events is
    'Remaining events of other users who shared the erased device, which the next fold folds again to '
    'rebuild their state (queued again, or still unfolded since they were stored).';

grant select on cardinal.erasures to cardinal_reader;


comment on table cardinal.report_groups is
    'Report groups of the report state: each distinct app × message source × variant × channel × platform × '
    'SDK version × app version × test flag that stored events have had. Made by the fold; deleted only by an '
    'erasure that leaves a group without state (the fold makes it again, with a new group_id, if events of it '
    'are queued).';


create function cardinal.erasure_identity_hash(kind text, identity text)
    returns bytea
    language sql
    stable
    strict
    set search_path = pg_catalog, pg_temp
as $function$
    select sha256(s.salt || convert_to(erasure_identity_hash.kind || ':' || erasure_identity_hash.identity, 'UTF8'))
    from cardinal.erasure_salt as s;
$function$;

alter function cardinal.erasure_identity_hash(text, text) owner to cardinal_owner;

revoke execute on function cardinal.erasure_identity_hash(text, text) from public;

comment on function cardinal.erasure_identity_hash(text, text) is
    'The identity_hash an erasure of this identity records: sha256(salt || kind || '':'' || identity), kind '
    'user or device. To check a request: select * from cardinal.erasures where identity_hash = '
    'cardinal.erasure_identity_hash(''user'', ''…''). Needs the salt, so cardinal_owner only.';


create function cardinal.raw_event_names_identity(raw text, kind text, identity text)
    returns boolean
    language sql
    immutable
    strict
    set search_path = pg_catalog, pg_temp
as $function$
    select case
               when jsonb_typeof(parsed.body) = 'object'
                   then parsed.body ->> (raw_event_names_identity.kind || '_id') = raw_event_names_identity.identity
               -- Not a JSON object (a malformed NDJSON line, say): the identity as a JSON string anywhere.
               else strpos(raw_event_names_identity.raw, to_json(raw_event_names_identity.identity)::text) > 0
           end
    from (select cardinal.try_jsonb(raw_event_names_identity.raw) as body) as parsed;
$function$;

alter function cardinal.raw_event_names_identity(text, text, text) owner to cardinal_owner;

revoke execute on function cardinal.raw_event_names_identity(text, text, text) from public;

comment on function cardinal.raw_event_names_identity(text, text, text) is
    'Whether a rejected event''s raw body belongs to the identity: its user_id (kind user) or device_id (kind '
    'device) field equals identity, or, when raw is not a JSON object, it contains identity as a JSON string.';


-- The erasure itself; see the design notes above. dry_run does the same work in a subtransaction that it
-- then rolls back, so that the counts it returns are exactly what a real run would remove.
create function cardinal.erase_identity(app_id bigint, kind text, identity text, dry_run boolean default false)
    returns cardinal.erasures
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := erase_identity.app_id;
    audit        cardinal.erasures;
    -- The report identities whose state the erased events fed: user keys (events.user_key).
    affected     text[];
    touched      bigint[];
    more_touched bigint[];
    watermark    bigint;
begin
    if kind is null or kind not in ('user', 'device') then
        raise exception 'erase_identity: kind must be user or device, not %', coalesce(kind, 'NULL')
            using errcode = 'invalid_parameter_value';
    end if;
    if identity is null or identity = '' then
        raise exception 'erase_identity: the % id must not be empty', kind
            using errcode = 'invalid_parameter_value';
    end if;
    if not exists (select from cardinal.apps as a where a.app_id = target_app) then
        raise exception 'erase_identity: no app with app_id %', target_app
            using errcode = 'invalid_parameter_value';
    end if;

    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    -- Fixed while the lock is held: only the fold moves it.
    select w.folded_below into watermark from cardinal.report_fold_watermark as w;

    audit.app_id := target_app;
    audit.identity_kind := kind;
    audit.identity_hash := cardinal.erasure_identity_hash(kind, identity);

    begin
        if kind = 'user' then
            affected := array[identity];
        else
            affected := array(
                select 'device:' || identity
                union
                select e.user_id
                from cardinal.events as e
                where e.app_id = target_app and e.device_id = identity and e.user_id is not null
            );
        end if;

        -- What the affected users' folded events added to the day counts, taken out again.
        with folded as (
            select e.*
            from cardinal.events as e
            where e.app_id = target_app
              and e.user_key = any(affected)
              and e.type <> 'conversion'
              and not exists (select from cardinal.report_fold_queue as q
                              where q.app_id = e.app_id and q.id = e.id and q.time = e.time)
              -- Nor stored since the last fold (0021): those are still past the watermark.
              and (e.stored_xid is null
                   or e.stored_xid < watermark
                   or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid))
        ),
        counted as (
            select g.group_id, local.day,
                   count(*) filter (where f.type = 'impression' and not f.control) as impressions,
                   count(*) filter (where f.type = 'click') as clicks,
                   count(*) filter (where f.type = 'dismissal') as dismissals,
                   count(*) filter (where f.type = 'send' and not f.control) as sends,
                   count(*) filter (where f.type = 'impression' and f.control) as control_impressions,
                   count(*) filter (where f.type = 'send' and f.control) as control_sends
            from folded as f
            join cardinal.apps as a on a.app_id = f.app_id
            left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
            cross join lateral (
                select (f.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
            ) as local
            join cardinal.report_groups as g
                on g.app_id = f.app_id
                       and g.campaign_id is not distinct from f.campaign_id
                       and g.canvas_id is not distinct from f.canvas_id
                       and g.canvas_step_id is not distinct from f.canvas_step_id
                       and g.variant_id is not distinct from f.variant_id
                       and g.channel = f.channel
                       and g.platform is not distinct from f.platform
                       and g.sdk_version is not distinct from f.sdk_version
                       and g.app_version is not distinct from f.app_version
                       and g.test = f.test
            group by g.group_id, local.day
        ),
        reduced as (
            update cardinal.report_daily_counts as c
            set impressions = c.impressions - x.impressions,
                clicks = c.clicks - x.clicks,
                dismissals = c.dismissals - x.dismissals,
                sends = c.sends - x.sends,
                control_impressions = c.control_impressions - x.control_impressions,
                control_sends = c.control_sends - x.control_sends
            from counted as x
            where c.group_id = x.group_id and c.day = x.day
            returning c.group_id
        )
        select array_agg(group_id), count(*) into touched, audit.report_daily_counts from reduced;
        -- Every non-conversion event counts in exactly one column, so all zeros means no event is left.
        delete from cardinal.report_daily_counts as c
        where c.group_id = any(touched)
          and c.impressions = 0 and c.clicks = 0 and c.dismissals = 0 and c.sends = 0
          and c.control_impressions = 0 and c.control_sends = 0;

        with deleted as (
            delete from cardinal.report_user_state as u
            using cardinal.report_groups as g
            where g.group_id = u.group_id and g.app_id = target_app and u.user_key = any(affected)
            returning u.group_id
        )
        select array_agg(group_id), count(*) into more_touched, audit.report_user_state from deleted;
        touched := coalesce(touched, '{}') || coalesce(more_touched, '{}');

        with deleted as (
            delete from cardinal.report_session_state as v
            using cardinal.report_groups as g
            where g.group_id = v.group_id and g.app_id = target_app and v.user_key = any(affected)
            returning v.group_id
        )
        select array_agg(group_id), count(*) into more_touched, audit.report_session_state from deleted;
        touched := touched || coalesce(more_touched, '{}');

        delete from cardinal.report_conversion_state as c
        where c.app_id = target_app and c.user_key = any(affected);
        get diagnostics audit.report_conversion_state = row_count;

        if kind = 'user' then
            -- user_id = identity, said through user_key so that events_user_key_idx serves it.
            delete from cardinal.events as e
            where e.app_id = target_app and e.user_key = identity and e.user_id = identity;
        else
            -- Only the affected users' events: a user who logs in on the device while this runs is not in
            -- affected, and deleting its events would leave their queued rows to be folded.
            delete from cardinal.events as e
            where e.app_id = target_app and e.device_id = identity and e.user_key = any(affected);
        end if;
        get diagnostics audit.events = row_count;

        delete from cardinal.rejected_events as r
        where r.app_id = target_app and cardinal.raw_event_names_identity(r.raw, kind, identity);
        get diagnostics audit.rejected_events = row_count;

        -- The affected users' queued rows replaced by their remaining events, from one snapshot (as
        -- requeue_report_state does), so that an event stored meanwhile is queued exactly once.
        with unqueued as (
            delete from cardinal.report_fold_queue as q
            where q.app_id = target_app and q.user_key = any(affected)
            returning 1
        ),
        requeued as (
            insert into cardinal.report_fold_queue
                (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
                 control, platform, sdk_version, app_version, test, user_key, session_id, message_id,
                 conversion_name)
            select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
                   e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
                   e.user_key, e.session_id, e.message_id, e.conversion_name
            from cardinal.events as e
            where e.app_id = target_app and e.user_key = any(affected)
              -- Not those past the watermark (0021): the next fold takes them from events anyway.
              and (e.stored_xid is null
                   or e.stored_xid < watermark
                   or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid))
            returning 1
        )
        select (select count(*) from unqueued),
               (select count(*) from requeued)
               + (select count(*)
                  from cardinal.events as e
                  where e.app_id = target_app and e.user_key = any(affected)
                    and e.stored_xid >= watermark
                    and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid))
        into audit.report_fold_queue, audit.requeued_events;

        delete from cardinal.report_groups as g
        where g.group_id = any(touched)
          and not exists (select from cardinal.report_user_state as u where u.group_id = g.group_id)
          and not exists (select from cardinal.report_daily_counts as c where c.group_id = g.group_id)
          and not exists (select from cardinal.report_session_state as v where v.group_id = g.group_id);
        get diagnostics audit.report_groups = row_count;

        if dry_run then
            raise exception 'erase_identity: dry run' using errcode = 'CDRYR';
        end if;
    exception
        when sqlstate 'CDRYR' then
            -- The subtransaction is rolled back; the counts in audit survive it (PL/pgSQL variables are
            -- not transactional).
            return audit;
    end;

    insert into cardinal.erasures
        (app_id, identity_kind, identity_hash, events, rejected_events, report_user_state, report_session_state,
         report_conversion_state, report_daily_counts, report_fold_queue, report_groups, requeued_events)
    values (audit.app_id, audit.identity_kind, audit.identity_hash, audit.events, audit.rejected_events,
            audit.report_user_state, audit.report_session_state, audit.report_conversion_state,
            audit.report_daily_counts, audit.report_fold_queue, audit.report_groups, audit.requeued_events)
    returning * into audit;
    return audit;
end
$function$;

alter function cardinal.erase_identity(bigint, text, text, boolean) owner to cardinal_owner;

revoke execute on function cardinal.erase_identity(bigint, text, text, boolean) from public;

comment on function cardinal.erase_identity(bigint, text, text, boolean) is
    'Erases one identity of an app (kind user: every event with that user_id; kind device: every event with '
    'that device_id), its rejected events (matched in the raw body), and its part of the report state, so that '
    'the reports read as if it had never existed; writes and returns the audit row (erasures). dry_run: '
    'returns the same counts and changes nothing (erasure_id NULL). Call it in a transaction of its own. '
    'SECURITY INVOKER: for members of cardinal_owner.';


-- What `cardinal retention apply --dry-run` lists, and what drop_expired_event_partitions drops: one
-- definition of an expired partition, so that the two cannot disagree.
create function cardinal.expired_event_partitions(retention interval default null)
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

revoke execute on function cardinal.expired_event_partitions(interval) from public;

comment on function cardinal.expired_event_partitions(interval) is
    'The partitions of cardinal.events that drop_expired_event_partitions would drop now: those whose whole '
    'range [from_time, to_time) ends at or before now() - retention (NULL: settings.retention_days), oldest '
    'first, with the planner''s estimate of their rows (pg_class.reltuples; 0 before the first ANALYZE). '
    'For members of cardinal_owner.';


-- 0018's function, reading its partitions from expired_event_partitions; otherwise unchanged.
create or replace function cardinal.drop_expired_event_partitions(retention interval default null)
    returns setof text
    language plpgsql
    set search_path = pg_catalog, pg_temp
    set lock_timeout = '2s'
as $function$
declare
    expired       record;
    expired_apps  bigint[];
    affected_apps bigint[] := '{}';
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
        return next expired.relation;
    end loop;
    perform cardinal.requeue_report_state(app_id)
    from (select distinct unnest(affected_apps) as app_id order by 1) as affected;
end
$function$;


-- delete_expired_rejected_events (0007) gains an app: `cardinal retention apply --app A`.
drop function cardinal.delete_expired_rejected_events(interval);

create function cardinal.delete_expired_rejected_events(retention interval default null, app_id bigint default null)
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

revoke execute on function cardinal.delete_expired_rejected_events(interval, bigint) from public;

comment on function cardinal.delete_expired_rejected_events(interval, bigint) is
    'Deletes rejected events received before now() - retention (NULL: settings.retention_days), of one app or '
    '(app_id NULL) of every app, and returns how many. For members of cardinal_owner.';


create function cardinal.expired_rejected_events(retention interval default null, app_id bigint default null)
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

revoke execute on function cardinal.expired_rejected_events(interval, bigint) from public;

comment on function cardinal.expired_rejected_events(interval, bigint) is
    'What delete_expired_rejected_events would delete now, per app: how many rejected events and the '
    'oldest and newest received_at among them. For members of cardinal_owner.';
