-- 0032_identity_merge.sql — identity merge (issue 12): a device's anonymous events count as the user who
-- logged in on it, in every report, retroactively.
--
-- Design notes (why, not what):
--
-- * The rule is the seeds' (Braze Web SDK docs, "Cómo funciona changeUser()"): "Cuando un usuario anónimo
--   llama a changeUser() con un ID de usuario nuevo (que aún no existe en Braze), los datos del perfil
--   anónimo se fusionan con el nuevo perfil identificado. Cuando un usuario anónimo llama a changeUser() con
--   un ID de usuario existente, los datos del perfil anónimo no se fusionan con el perfil identificado."
--   After changeUser the SDKs send user_id and device_id together, so an event carrying both links the
--   device to the user. Cardinal keeps one link per app and device (identity_links): the FIRST user seen
--   with the device, by event time (then event id, so ties are deterministic). When that user is new (no
--   event of theirs before the login, by event time) the link is merged: every anonymous event of the device
--   (device_id without user_id), before and after the login, counts as the user. When the user already
--   existed, nothing merges and the anonymous events keep counting as the device, as in Braze.
--
-- * Shared tablets: a second user logging in on the same device later gets none of the anonymous history
--   (in Braze the anonymous profile is gone after the first changeUser); their own events (user_id set) stay
--   theirs, as everyone's do. History goes to one user at most, never to two, so uniques never count an
--   anonymous impression twice.
--
-- * A late event can change the answer: an event carrying both ids timed before the link moves the history
--   to its user (or back to the device, if that user existed); an event of the linked user timed before the
--   login makes them an existing user and the history goes back to the device. As if the events had arrived
--   in time order.
--
-- * The report state is keyed by the resolved user key: coalesce(user_id, user of the device's merged link,
--   'device:' || device_id). events.user_key stays the raw key (0005), so the state's events are found as
--   before; report_unfolded_events() resolves through identity_links, so the fold and the reports' unfolded
--   tail resolve the same way.
--
-- * Links are learned by the fold, from the events it folds (fold_identity_links, the fold's first step):
--   for every device whose anonymous events change owner, the state of its old key (the device's, or the
--   previous user's) is forgotten and that key's events queued again (requeue_identity_state), only those: a
--   re-key of one device, not a rebuild. The next steps of the same fold fold them under the new link, in
--   the same transaction, so no report ever sees half a merge. Doing it in the writer's transaction instead
--   would make ingest take the state lock, which the writers never wait for (0015). The cost: a login takes
--   effect in the reports at the next fold (cardinald folds every second); until then the device's earlier
--   anonymous events count under the device. pending_identity_links() lists what the next fold will change.
--
-- * The reference functions resolve identities from the raw events (identified_events), not from
--   identity_links, so the property tests compare the fold's links with an independent computation.
--
-- * Erasure keeps its promise, "the reports read as if the identity had never existed": erasing a user
--   removes its events and links, and each device it was linked to falls back to the next user who logged
--   in on it (merged if that user is new then), or to the device; the device's anonymous events stay (erase
--   the device to remove them). Erasing a device removes its events and its link, and its users' events on
--   it, which can make one of them new at a login elsewhere: their links are judged again.
--
-- * Retention: links outlive the events that made them (a link is not an event). When the month holding a
--   device's first login, or a user's events before it, expires, the link stays as it was judged, where the
--   reference (raw events only) would judge again from what is left: the next user who logged in, or the
--   user as new. The state then keeps the history where it was, which is what the events said.


create table cardinal.identity_links (
    app_id    bigint      not null,
    device_id text        not null,
    user_id   text        not null,
    linked_at timestamptz not null,
    event_id  uuid        not null,
    merged    boolean     not null,

    constraint identity_links_pkey primary key (app_id, device_id)
);

alter table cardinal.identity_links owner to cardinal_owner;

create index identity_links_user_idx on cardinal.identity_links (app_id, user_id);

comment on table cardinal.identity_links is
    'Identity merge (0032): the first user (by event time, then event id) of an event carrying both '
    'device_id and user_id, one per app and device, and whether the device''s anonymous events count as that '
    'user (merged). Kept by the report-state fold (fold_identity_links) and by erasure.';
comment on column cardinal.identity_links.app_id is 'The app (apps.app_id).';
comment on column cardinal.identity_links.device_id is 'The device (events.device_id).';
comment on column cardinal.identity_links.user_id is
    'The first user seen with the device: owns every event of the device that has no user_id when merged.';
comment on column cardinal.identity_links.linked_at is 'Event time of the first event carrying both ids.';
comment on column cardinal.identity_links.event_id is 'Id of that event: breaks ties between events of the same time.';
comment on column cardinal.identity_links.merged is
    'True when the user had no event before linked_at (a new user: the anonymous profile merges into it); '
    'false for a user who existed already, whose profile stays apart from the device''s anonymous events.';
comment on index cardinal.identity_links_user_idx is
    'The devices linked to one user (re-keying, erasure).';

grant select on cardinal.identity_links to cardinal_reader;


-- Whether a user logging in at a time is new then: the seeds merge the anonymous profile into new users only.
create function cardinal.identity_is_new(of_app bigint, of_user text, logged_in_at timestamptz)
    returns boolean
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    -- Through user_key so that events_user_key_idx (0022) serves it.
    select not exists (select from cardinal.events as e
                       where e.app_id = of_app and e.user_key = of_user and e.user_id = of_user
                         and e.time < logged_in_at);
$function$;

alter function cardinal.identity_is_new(bigint, text, timestamptz) owner to cardinal_owner;

comment on function cardinal.identity_is_new(bigint, text, timestamptz) is
    'True when the app has no event of the user before logged_in_at: a login then merges the device''s '
    'anonymous profile into the user (identity_links.merged).';


-- The first login of each device in a set of events with both ids: one definition for the backfill below
-- and erasure.
create function cardinal.first_logins(of_app bigint default null, of_device text default null)
    returns table (app_id bigint, device_id text, user_id text, linked_at timestamptz, event_id uuid,
                   merged boolean)
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    select f.*, cardinal.identity_is_new(f.app_id, f.user_id, f.time)
    from (
        select distinct on (e.app_id, e.device_id) e.app_id, e.device_id, e.user_id, e.time, e.id
        from cardinal.events as e
        where e.user_id is not null and e.device_id is not null
          and (first_logins.of_app is null or e.app_id = first_logins.of_app)
          and (first_logins.of_device is null or e.device_id = first_logins.of_device)
        order by e.app_id, e.device_id, e.time, e.id
    ) as f;
$function$;

alter function cardinal.first_logins(bigint, text) owner to cardinal_owner;

comment on function cardinal.first_logins(bigint, text) is
    'Per app and device, the first stored event carrying both device_id and user_id (by time, then id) and '
    'whether its user was new then: what identity_links holds for it. of_app and of_device NULL = all.';

insert into cardinal.identity_links (app_id, device_id, user_id, linked_at, event_id, merged)
select * from cardinal.first_logins();


-- The identified events stored since the last fold: the logins the next fold learns, and the users who turn
-- out to have existed before a login.
create function cardinal.unfolded_identified_events()
    returns table (app_id bigint, device_id text, user_id text, "time" timestamptz, id uuid)
    -- PL/pgSQL with report_unfolded_events()'s settings: the same BRIN bitmap scan finds the new events.
    language plpgsql
    stable
    rows 100
    set search_path = pg_catalog, pg_temp
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
as $function$
begin
    return query
    select e.app_id, e.device_id, e.user_id, e.time, e.id
    from cardinal.events as e
    where e.stored_xid >= (select w.folded_below from cardinal.report_fold_watermark as w)
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
      and e.user_id is not null;
end
$function$;

alter function cardinal.unfolded_identified_events() owner to cardinal_owner;

comment on function cardinal.unfolded_identified_events() is
    'The events with a user_id stored since the last report-state fold (report_unfolded_events'' second '
    'half): what pending_identity_links() learns from.';


create function cardinal.pending_identity_links()
    returns table (
        app_id       bigint,
        device_id    text,
        user_id      text,
        linked_at    timestamptz,
        event_id     uuid,
        merged       boolean,
        previous_key text
    )
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    with seen as materialized (
        select * from cardinal.unfolded_identified_events()
    ),
    logins as (
        select distinct on (s.app_id, s.device_id) s.app_id, s.device_id, s.user_id, s.time, s.id
        from seen as s
        where s.device_id is not null
        order by s.app_id, s.device_id, s.time, s.id
    ),
    -- A device linked for the first time, or by an earlier login.
    relinked as (
        select n.app_id, n.device_id, n.user_id, n.time as linked_at, n.id as event_id,
               cardinal.identity_is_new(n.app_id, n.user_id, n.time) as merged,
               case when l.merged then l.user_id else 'device:' || n.device_id end as previous_key
        from logins as n
        left join cardinal.identity_links as l on l.app_id = n.app_id and l.device_id = n.device_id
        where l.app_id is null or (n.time, n.id) < (l.linked_at, l.event_id)
    ),
    -- A merged link whose user has an event before the login: the user existed, nothing merges.
    existed as (
        select distinct l.app_id, l.device_id, l.user_id, l.linked_at, l.event_id, false, l.user_id
        from seen as s
        join cardinal.identity_links as l on l.app_id = s.app_id and l.user_id = s.user_id
        where l.merged and s.time < l.linked_at
          and not exists (select from relinked as r where r.app_id = l.app_id and r.device_id = l.device_id)
    )
    select * from relinked
    union all
    select * from existed;
$function$;

alter function cardinal.pending_identity_links() owner to cardinal_owner;

grant execute on function cardinal.pending_identity_links() to cardinal_reader;

comment on function cardinal.pending_identity_links() is
    'Identity links the next report-state fold makes or changes: per app and device, the first unfolded event '
    'carrying both ids when the device has no link or an older-timed one, or a merged link whose user has an '
    'unfolded event before the login (then merged turns false). previous_key: what the device''s anonymous '
    'events count as until that fold (the merged user, else device: || device_id).';


-- Forgets the state of some resolved user keys and queues their events again: the re-key of 0015's notes.
create function cardinal.requeue_identity_state(
    app_id                  bigint,
    user_keys               text[],
    out report_user_state   bigint,
    out report_session_state bigint,
    out report_conversion_state bigint,
    out report_daily_counts bigint,
    out requeued_events     bigint
)
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := requeue_identity_state.app_id;
    watermark  bigint;
    -- The raw keys (events.user_key) of the events the keys' state was folded from: the keys themselves
    -- and the anonymous keys of the devices linked to them.
    raw_keys   text[];
    touched    bigint[];
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    select w.folded_below into watermark from cardinal.report_fold_watermark as w;
    raw_keys := array(
        select k from unnest(user_keys) as k
        union
        select 'device:' || l.device_id
        from cardinal.identity_links as l
        where l.app_id = target_app and l.user_id = any(user_keys) and l.merged
    );

    -- The day counts mix every user, so they lose exactly what the queued-again events added (as 0022's
    -- erasure does): the fold adds it back.
    with folded as (
        select e.*
        from cardinal.events as e
        where e.app_id = target_app
          and e.user_key = any(raw_keys)
          and e.type <> 'conversion'
          and not exists (select from cardinal.report_fold_queue as q
                          where q.app_id = e.app_id and q.id = e.id and q.time = e.time)
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
    select array_agg(distinct group_id), count(*) into touched, report_daily_counts from reduced;
    -- A day left with no event goes, as a fresh fold would never have made it; the fold makes it again for
    -- the events queued below.
    delete from cardinal.report_daily_counts as c
    where c.group_id = any(touched)
      and c.impressions = 0 and c.clicks = 0 and c.dismissals = 0 and c.sends = 0
      and c.control_impressions = 0 and c.control_sends = 0;

    -- Triggers take the same users' day pairs (0025) and dismissals (0027) out.
    delete from cardinal.report_user_state as u
    using cardinal.report_groups as g
    where g.group_id = u.group_id and g.app_id = target_app and u.user_key = any(user_keys);
    get diagnostics report_user_state = row_count;

    delete from cardinal.report_session_state as v
    using cardinal.report_groups as g
    where g.group_id = v.group_id and g.app_id = target_app and v.user_key = any(user_keys);
    get diagnostics report_session_state = row_count;

    delete from cardinal.report_conversion_state as c
    where c.app_id = target_app and c.user_key = any(user_keys);
    get diagnostics report_conversion_state = row_count;

    with unqueued as (
        delete from cardinal.report_fold_queue as q
        where q.app_id = target_app and q.user_key = any(raw_keys)
    )
    insert into cardinal.report_fold_queue
        (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name)
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test, e.user_key, e.session_id,
           e.message_id, e.conversion_name
    from cardinal.events as e
    where e.app_id = target_app
      and e.user_key = any(raw_keys)
      -- Not those past the watermark: the next fold takes them from events anyway.
      and (e.stored_xid is null
           or e.stored_xid < watermark
           or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid));
    get diagnostics requeued_events = row_count;
end
$function$;

alter function cardinal.requeue_identity_state(bigint, text[]) owner to cardinal_owner;

revoke execute on function cardinal.requeue_identity_state(bigint, text[]) from public;

comment on function cardinal.requeue_identity_state(bigint, text[]) is
    'Re-keying (0032): deletes the report state of the given resolved user keys of one app (report_user_state '
    'with its day pairs and dismissals, report_session_state, report_conversion_state), subtracts their '
    'folded events from report_daily_counts and queues those events again (events.user_key among the keys or '
    'the anonymous keys of the devices merged into them), so that the next fold makes their state anew under '
    'identity_links as they are then. Takes the state lock; returns what it touched.';


-- The fold's first step: the link changes, each re-keying its device's old key.
create function cardinal.fold_identity_links()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    -- The old keys' state first, while the links are as they were: requeue_identity_state finds the devices
    -- linked to a previous user through them. (Re-queued events are not past the watermark, so the second
    -- call below finds the same changes.)
    perform cardinal.requeue_identity_state(c.app_id, c.old_keys)
    from (
        select p.app_id, array_agg(distinct p.previous_key) as old_keys
        from cardinal.pending_identity_links() as p
        where p.previous_key <> case when p.merged then p.user_id else 'device:' || p.device_id end
        group by p.app_id
        order by p.app_id
    ) as c;

    insert into cardinal.identity_links as l (app_id, device_id, user_id, linked_at, event_id, merged)
    select p.app_id, p.device_id, p.user_id, p.linked_at, p.event_id, p.merged
    from cardinal.pending_identity_links() as p
    order by p.app_id, p.device_id
    on conflict (app_id, device_id) do update set
        user_id = excluded.user_id, linked_at = excluded.linked_at, event_id = excluded.event_id,
        merged = excluded.merged;
end
$function$;

alter function cardinal.fold_identity_links() owner to cardinal_owner;

revoke execute on function cardinal.fold_identity_links() from public;

comment on function cardinal.fold_identity_links() is
    'Part of fold_report_state() (0032), its first step: applies pending_identity_links(), re-keying the old '
    'key of every device whose anonymous events change owner (requeue_identity_state), so that the rest of the fold '
    'folds their events under the new links. Not to be called alone.';


-- 0031's fold_report_state with the identity links first (its work_mem and other steps kept).
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
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
    perform cardinal.fold_identity_links();
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    perform cardinal.fold_report_conversion_values();
    perform cardinal.fold_report_parts();
    return cardinal.fold_report_user_state();
end
$function$;


-- 0029's report_unfolded_events (a session start handed to the fold as the conversion the state keeps it as)
-- with user_key resolved through identity_links: every pending view, and so the fold and the reports'
-- unfolded tail, see the resolved key.
create or replace function cardinal.report_unfolded_events()
    returns table (
        app_id          bigint,
        id              uuid,
        "time"          timestamptz,
        received_at     timestamptz,
        type            text,
        channel         text,
        campaign_id     text,
        canvas_id       text,
        canvas_step_id  text,
        variant_id      text,
        control         boolean,
        platform        text,
        sdk_version     text,
        app_version     text,
        test            boolean,
        user_key        text,
        session_id      text,
        message_id      text,
        conversion_name text,
        stored_xid      bigint
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
    -- The settings of 0021: only the BRIN bitmap scan is left to the planner.
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
as $function$
begin
    return query
    select u.app_id, u.id, u.time, u.received_at,
           case when u.type = 'session_start' then 'conversion' else u.type end,
           u.channel, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.control, u.platform,
           u.sdk_version, u.app_version, u.test, u.user_key, u.session_id, u.message_id,
           case when u.type = 'session_start' then cardinal.session_start_state_name() else u.conversion_name end,
           u.stored_xid
    from (
        -- A queued event carries only the raw key: an anonymous one is 'device:' || device_id.
        select q.app_id, q.id, q.time, q.received_at, q.type, q.channel, q.campaign_id, q.canvas_id,
               q.canvas_step_id, q.variant_id, q.control, q.platform, q.sdk_version, q.app_version, q.test,
               coalesce(l.user_id, q.user_key) as user_key, q.session_id, q.message_id, q.conversion_name,
               null::bigint as stored_xid
        from cardinal.report_fold_queue as q
        left join cardinal.identity_links as l
            on l.app_id = q.app_id and 'device:' || l.device_id = q.user_key and l.merged
        union all
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               coalesce(l.user_id, e.user_key), e.session_id, e.message_id, e.conversion_name, e.stored_xid
        from cardinal.events as e
        left join cardinal.identity_links as l
            on l.app_id = e.app_id and l.device_id = e.device_id and e.user_id is null and l.merged
        where e.stored_xid >= (select w.folded_below from cardinal.report_fold_watermark as w)
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
    ) as u;
end
$function$;

comment on function cardinal.report_unfolded_events() is
    'The stored events not yet folded into the report state: the re-queued ones (report_fold_queue, '
    'stored_xid NULL) and those stored since the last fold (events past report_fold_watermark), with '
    'user_key resolved through identity_links (0032): an anonymous event of a device with a merged link '
    'counts as its user. A session_start is returned as a conversion named session_start_state_name() '
    '(0029). The report_pending_* views aggregate them.';


-- The raw events with the identity rule applied from the raw events alone, for the reference functions.
create view cardinal.identified_events as
select e.app_id, e.id, e.type, e.channel, e.time, e.received_at, e.user_id, e.device_id, e.session_id,
       e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.control, e.message_id, e.placement_id,
       e.button_id, e.url, e.platform, e.sdk_version, e.app_version, e.os_version, e.test, e.conversion_name,
       e.value, e.currency, e.properties,
       coalesce(e.user_id, first.user_id, e.user_key) as user_key,
       e.stored_xid
from cardinal.events as e
left join (
    select f.app_id, f.device_id, f.user_id
    from (
        select distinct on (b.app_id, b.device_id) b.app_id, b.device_id, b.user_id, b.time
        from cardinal.events as b
        where b.user_id is not null and b.device_id is not null
        order by b.app_id, b.device_id, b.time, b.id
    ) as f
    -- Only a user new at the login: no event of theirs before it.
    where not exists (select from cardinal.events as u
                      where u.app_id = f.app_id and u.user_id = f.user_id and u.time < f.time)
) as first on first.app_id = e.app_id and first.device_id = e.device_id and e.user_id is null;

alter view cardinal.identified_events owner to cardinal_owner;

grant select on cardinal.identified_events to cardinal_reader;

comment on view cardinal.identified_events is
    'cardinal.events with user_key resolved by the identity-merge rule (0032) computed from the raw events '
    'alone, without identity_links: an anonymous event counts as the first user (by time, then id) of an '
    'event carrying its device_id and a user_id, when that user had no event before it. What the reference '
    'functions read.';

do $comments$
declare
    target record;
begin
    for target in
        select a.attname as column_name,
               pg_catalog.col_description('cardinal.events'::regclass,
                                          (select c.attnum from pg_catalog.pg_attribute as c
                                           where c.attrelid = 'cardinal.events'::regclass
                                             and c.attname = a.attname)) as description
        from pg_catalog.pg_attribute as a
        where a.attrelid = 'cardinal.identified_events'::regclass and a.attnum > 0 and a.attname <> 'user_key'
    loop
        execute format('comment on column cardinal.identified_events.%I is %L', target.column_name,
                       target.description);
    end loop;
end
$comments$;

comment on column cardinal.identified_events.user_key is
    'The resolved user: user_id, else the first user seen with the device when new then, else '
    '''device:'' || device_id.';


-- The reference functions read identified_events instead of events: the same bodies, the identity merged.
do $requalify$
declare
    reference regproc;
begin
    -- Each name has one overload.
    foreach reference in array array[
        'cardinal.unique_impressions_reference_of_0029'::regproc,
        'cardinal.unique_impressions_by_part'::regproc,
        'cardinal.push_opens_reference'::regproc,
        'cardinal.campaign_conversions_reference'::regproc,
        'cardinal.control_arms_reference'::regproc,
        'cardinal.anomalies_reference_of_0017'::regproc,
        'cardinal.anomalies_since_0027'::regproc
    ]
    loop
        execute regexp_replace(pg_catalog.pg_get_functiondef(reference), '\mcardinal\.events\M',
                               'cardinal.identified_events', 'g');
    end loop;
end
$requalify$;


-- Erasure (0022) with the links: 0022's body under a new name, run between forgetting the state the
-- identity's links merged and relinking the devices it was linked to.
alter function cardinal.erase_identity(bigint, text, text, boolean) rename to erase_identity_of_0022;

-- Its body names its arguments after the function (erase_identity.app_id), which a rename does not follow
-- (as in 0027).
do $requalify$
begin
    execute regexp_replace(
        pg_catalog.pg_get_functiondef('cardinal.erase_identity_of_0022(bigint, text, text, boolean)'::regprocedure),
        '\merase_identity\.', 'erase_identity_of_0022.', 'g');
end
$requalify$;

comment on function cardinal.erase_identity_of_0022(bigint, text, text, boolean) is
    '0022''s erase_identity under its new name: erase_identity (0032) runs it after taking the identity''s '
    'links out of the report state.';

create function cardinal.erase_identity(app_id bigint, kind text, identity text, dry_run boolean default false)
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

        audit := cardinal.erase_identity_of_0022(target_app, kind, identity, false);
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

        -- 0022 deletes the groups it emptied; the state it would have emptied them of went above.
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

revoke execute on function cardinal.erase_identity(bigint, text, text, boolean) from public;

comment on function cardinal.erase_identity(bigint, text, text, boolean) is
    'Erases one identity of an app (kind user: every event with that user_id; kind device: every event with '
    'that device_id), its rejected events (matched in the raw body), its identity links and its part of the '
    'report state, so that the reports read as if it had never existed: a device an erased user was linked '
    'to falls back to the next user who logged in on it (0032). Writes and returns the audit row (erasures). '
    'dry_run: returns the same counts and changes nothing (erasure_id NULL). Call it in a transaction of its '
    'own. SECURITY INVOKER: for members of cardinal_owner.';


-- The links of the events stored so far are in identity_links (above); fold every app with a link again
-- under them (requeue_report_state, as 0015 and 0027 did).
select cardinal.requeue_report_state(a.app_id)
from cardinal.apps as a
where exists (select from cardinal.identity_links as l where l.app_id = a.app_id)
order by a.app_id;
