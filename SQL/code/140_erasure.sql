-- Erasure: forgetting a user or a device.
--
-- erase_identity is the entry point (`cardinal erase`): under the report state's lock it takes the identity's
-- links out of the report state (requeue_identity_state), deletes the links, runs erase_identity_events for
-- the events, rejected events and state rows, re-links the devices the identity shared and writes the audit
-- row. erasure_identity_hash is what the audit keeps instead of the id; raw_event_names_identity finds the
-- identity in a rejected event's raw body.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



create or replace function cardinal.erasure_identity_hash(kind text, identity text)
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
revoke all on function cardinal.erasure_identity_hash(text, text) from public;
comment on function cardinal.erasure_identity_hash(text, text) is
    'The identity_hash an erasure of this identity records: sha256(salt || kind || '':'' || identity), kind '
    'user or device. To check a request: select * from cardinal.erasures where identity_hash = '
    'cardinal.erasure_identity_hash(''user'', ''…''). Needs the salt, so cardinal_owner only.';


create or replace function cardinal.raw_event_names_identity(raw text, kind text, identity text)
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
revoke all on function cardinal.raw_event_names_identity(text, text, text) from public;
comment on function cardinal.raw_event_names_identity(text, text, text) is
    'Whether a rejected event''s raw body belongs to the identity: its user_id (kind user) or device_id (kind '
    'device) field equals identity, or, when raw is not a JSON object, it contains identity as a JSON string.';


create or replace function cardinal.erase_identity(app_id bigint, kind text, identity text, dry_run boolean default false)
    returns cardinal.erasures
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := erase_identity.app_id;
    audit    cardinal.erasures;
    forgotten record;
    unlinked text[];
    users    text[];
    emptied_groups bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    begin
        -- Every resolved key whose state the identity's events or links fed, forgotten and queued again.
        if kind = 'device' then
            users := array(
                select e.user_id from cardinal.events as e
                where e.app_id = target_app and e.device_id = identity and e.user_id is not null
                union
                select l.user_id from cardinal.identity_links as l
                where l.app_id = target_app and l.device_id = identity);
        else
            users := array[identity];
        end if;
        -- The users, and every device linked to them, merged or not: a link that changes (relinked, or
        -- judged again below) may move a device's anonymous events either way.
        select * into forgotten
        from cardinal.requeue_identity_state(target_app, array(
            select u from unnest(users) as u
            union
            select 'device:' || identity where kind = 'device'
            union
            select 'device:' || l.device_id from cardinal.identity_links as l
            where l.app_id = target_app and l.user_id = any(users)));

        with deleted as (
            delete from cardinal.identity_links as l
            where l.app_id = target_app
              and ((kind = 'user' and l.user_id = identity) or (kind = 'device' and l.device_id = identity))
            returning l.device_id
        )
        select array_agg(device_id) into unlinked from deleted;

        audit := cardinal.erase_identity_events(target_app, kind, identity, false);
        audit.report_user_state := audit.report_user_state + forgotten.report_user_state;
        audit.report_session_state := audit.report_session_state + forgotten.report_session_state;
        audit.report_conversion_state := audit.report_conversion_state + forgotten.report_conversion_state;
        audit.report_daily_counts := audit.report_daily_counts + forgotten.report_daily_counts;

        -- Each device the erased user was linked to falls back to the next user who logged in on it; its
        -- anonymous events are queued already and fold under that link.
        insert into cardinal.identity_links (app_id, device_id, user_id, linked_at, event_id, merged)
        select f.*
        from unnest(coalesce(unlinked, '{}')) as d (device_id)
        cross join lateral cardinal.first_logins(target_app, d.device_id) as f;
        -- A device's users lost their events on it, which may make them new at their logins elsewhere.
        update cardinal.identity_links as l
        set merged = cardinal.identity_is_new(l.app_id, l.user_id, l.linked_at)
        where l.app_id = target_app and l.user_id = any(users);

        -- erase_identity_events deletes only the groups its own deletions emptied; the state of these went with
        -- requeue_identity_state above, so the groups it left empty are deleted here.
        delete from cardinal.report_groups as g
        where g.app_id = target_app
          and not exists (select from cardinal.report_user_state as u where u.group_id = g.group_id)
          and not exists (select from cardinal.report_daily_counts as c where c.group_id = g.group_id)
          and not exists (select from cardinal.report_session_state as v where v.group_id = g.group_id);
        get diagnostics emptied_groups = row_count;
        audit.report_groups := audit.report_groups + emptied_groups;

        update cardinal.erasures as x
        set report_user_state = audit.report_user_state,
            report_session_state = audit.report_session_state,
            report_conversion_state = audit.report_conversion_state,
            report_daily_counts = audit.report_daily_counts,
            report_groups = audit.report_groups
        where x.erasure_id = audit.erasure_id;

        if dry_run then
            raise exception 'erase_identity: dry run' using errcode = 'CDRYR';
        end if;
    exception
        when sqlstate 'CDRYR' then
            audit.erasure_id := null;
            audit.erased_at := null;
            return audit;
    end;
    return audit;
end
$function$;
alter function cardinal.erase_identity(bigint, text, text, boolean) owner to cardinal_owner;
revoke all on function cardinal.erase_identity(bigint, text, text, boolean) from public;
comment on function cardinal.erase_identity(bigint, text, text, boolean) is
    'Erases one identity of an app (kind user: every event with that user_id; kind device: every event with '
    'that device_id), its rejected events (matched in the raw body), its identity links and its part of the '
    'report state, so that the reports read as if it had never existed: a device an erased user was linked '
    'to falls back to the next user who logged in on it. Writes and returns the audit row (erasures). '
    'dry_run: returns the same counts and changes nothing (erasure_id NULL). Call it in a transaction of its '
    'own. SECURITY INVOKER: for members of cardinal_owner.';


create or replace function cardinal.erase_identity_events(
    app_id  bigint,
    kind    text,
    identity text,
    dry_run boolean default false
)
    returns cardinal.erasures
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := erase_identity_events.app_id;
    audit        cardinal.erasures;
    -- The report identities whose state the erased events fed: user keys (events.user_key).
    affected     text[];
    touched      bigint[];
    more_touched bigint[];
    watermark    bigint;
    -- The report identities of the repeats that became their order's first stored conversion.
    heirs        text[];
    heir_counts  record;
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
        select d.touched_groups, d.day_counts into touched, audit.report_daily_counts from cardinal.subtract_folded_daily_counts(target_app, affected, watermark) as d;
        -- Every non-conversion event counts in exactly one column, so all zeros means no event is left.
        delete from cardinal.report_daily_counts as c
        where c.group_id = any(touched)
          and c.impressions = 0 and c.clicks = 0 and c.dismissals = 0 and c.sends = 0
          and c.control_impressions = 0 and c.control_sends = 0 and c.deliveries = 0;

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

        -- The order records of the erased events go with them; an order whose first was erased passes to
        -- its next stored repeat, whose value then counts: the heirs' state is rebuilt after the affected
        -- users' below, under the key it is kept by (a device merged into a user is the user's).
        heirs := array(
            select distinct coalesce(l.user_id, h.key)
            from cardinal.forget_deleted_conversion_orders(target_app, affected) as h(key)
            left join cardinal.identity_links as l
              on l.app_id = target_app and h.key = 'device:' || l.device_id and l.merged
            except
            select unnest(affected)
        );

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
                 conversion_name, placement_id, button_id, value, currency)
            select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
                   e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
                   e.user_key, e.session_id, e.message_id, e.conversion_name, e.placement_id, e.button_id, e.value, e.currency
            from cardinal.events as e
            where e.app_id = target_app and e.user_key = any(affected)
              -- Not those past the watermark: the next fold takes them from events anyway.
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

        if heirs <> '{}' then
            select * into heir_counts from cardinal.requeue_identity_state(target_app, heirs);
            audit.report_user_state := audit.report_user_state + heir_counts.report_user_state;
            audit.report_session_state := audit.report_session_state + heir_counts.report_session_state;
            audit.report_conversion_state := audit.report_conversion_state + heir_counts.report_conversion_state;
            audit.report_daily_counts := audit.report_daily_counts + heir_counts.report_daily_counts;
            -- Queued again, and still unfolded since they were stored, as the count above has them.
            audit.requeued_events := audit.requeued_events + heir_counts.requeued_events
                + (select count(*)
                   from cardinal.events as e
                   where e.app_id = target_app
                     and e.user_key = any(heirs || array(
                         select 'device:' || l.device_id
                         from cardinal.identity_links as l
                         where l.app_id = target_app and l.user_id = any(heirs) and l.merged))
                     and e.stored_xid >= watermark
                     and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid));
        end if;

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
alter function cardinal.erase_identity_events(bigint, text, text, boolean) owner to cardinal_owner;
revoke all on function cardinal.erase_identity_events(bigint, text, text, boolean) from public;
comment on function cardinal.erase_identity_events(bigint, text, text, boolean) is
    'The events part of erase_identity: deletes the identity''s events (with their order records: an order '
    'whose first stored conversion goes passes to its next stored repeat, whose user''s state is rebuilt too, '
    'forget_deleted_conversion_orders), the rejected events naming it and its report state '
    'rows, queues the affected users'' remaining events again and writes the audit row (erasures); dry_run '
    'returns the counts and changes nothing. erase_identity runs it after taking the identity''s links out of '
    'the report state; alone it would leave those links in place.';
