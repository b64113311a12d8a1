-- Identity merge: which user a device belongs to, learned from logins.
--
-- A device's anonymous events count as the first user who logs in on it, when that user is new then
-- (identity_is_new). The report state keeps what it learned in identity_links: pending_identity_links lists
-- what the next fold changes, fold_identity_links applies it (the fold's first step), and
-- requeue_identity_state forgets and re-queues the state of the keys whose events change owner. The raw-event
-- side is identified_events, the same rule computed from events alone, and identified_events_of_user, its rows
-- of one user by index: what the *_reference functions read. first_logins serves the backfill and erasure.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- Whether a user logging in at a time is new then: the seeds merge the anonymous profile into new users only.
create or replace function cardinal.identity_is_new(of_app bigint, of_user text, logged_in_at timestamptz)
    returns boolean
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    -- Through user_key so that events_user_key_idx serves it.
    select not exists (select from cardinal.events as e
                       where e.app_id = of_app and e.user_key = of_user and e.user_id = of_user
                         and e.time < logged_in_at);
$function$;
alter function cardinal.identity_is_new(bigint, text, timestamp with time zone) owner to cardinal_owner;
comment on function cardinal.identity_is_new(bigint, text, timestamptz) is
    'True when the app has no event of the user before logged_in_at: a login then merges the device''s '
    'anonymous profile into the user (identity_links.merged).';


-- The first login of each device in a set of events with both ids: one definition for the backfill below
-- and erasure.
create or replace function cardinal.first_logins(of_app bigint default null, of_device text default null)
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


-- The unfolded events that can teach a link: those with a user_id.
create or replace function cardinal.unfolded_identified_events()
    returns table (app_id bigint, device_id text, user_id text, "time" timestamptz, id uuid)
    language sql
    stable
    rows 100
as $function$
    select e.app_id, e.device_id, e.user_id, e.time, e.id
    from cardinal.unfolded_stored_events() as e
    where e.user_id is not null;
$function$;
alter function cardinal.unfolded_identified_events() owner to cardinal_owner;
comment on function cardinal.unfolded_identified_events() is
    'The events with a user_id stored since the last report-state fold (report_unfolded_events'' second '
    'half): what pending_identity_links() learns from.';


-- identity_is_new's probe is written into the query rather than called: a SQL function with its own
-- search_path is never inlined, so each call set up its executor state again (56 µs a call; a fold of 53,400
-- first logins spent 3.0 s in the calls, 1.1 s with the probe inline, for the same rows).
create or replace function cardinal.pending_identity_links()
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
    -- A device linked for the first time, or by an earlier login. Merged: the user has no event before the
    -- login (identity_is_new's rule, through user_key so that events_user_key_idx serves it).
    relinked as (
        select n.app_id, n.device_id, n.user_id, n.time as linked_at, n.id as event_id,
               not exists (select
                           from cardinal.events as e
                           where e.app_id = n.app_id and e.user_key = n.user_id and e.user_id = n.user_id
                             and e.time < n.time) as merged,
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
    'unfolded event before the login (then merged turns false). previous_key: what the device''s folded '
    'anonymous events count as until that fold (the merged user, else device: || device_id); its unfolded '
    'ones count as the new link already (report_unfolded_events).';


-- Forgets the state of some resolved user keys and queues their events again (re-keying). The state is kept
-- per resolved user, so when a link changes which user a device's anonymous events count as, the state
-- folded under the old key is wrong: it is deleted, and the next fold makes it again from the events.
create or replace function cardinal.requeue_identity_state(
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
    set jit = off
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

    -- The day counts mix every user, so they lose exactly what the queued-again events added (as erasure
    -- does): the fold adds it back.
    select d.touched_groups, d.day_counts into touched, report_daily_counts from cardinal.subtract_folded_daily_counts(target_app, raw_keys, watermark) as d;
    -- A day left with no event goes, as a fresh fold would never have made it; the fold makes it again for
    -- the events queued below.
    delete from cardinal.report_daily_counts as c
    where c.group_id = any(touched)
      and c.impressions = 0 and c.clicks = 0 and c.dismissals = 0 and c.sends = 0
      and c.control_impressions = 0 and c.control_sends = 0 and c.deliveries = 0;

    -- Triggers take the same users' day pairs and dismissals out.
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
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name, placement_id, button_id, value, currency)
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test, e.user_key, e.session_id,
           e.message_id, e.conversion_name, e.placement_id, e.button_id, e.value, e.currency
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
revoke all on function cardinal.requeue_identity_state(bigint, text[]) from public;
comment on function cardinal.requeue_identity_state(bigint, text[]) is
    'Re-keying: deletes the report state of the given resolved user keys of one app (report_user_state '
    'with its day pairs and dismissals, report_session_state, report_conversion_state), subtracts their '
    'folded events from report_daily_counts and queues those events again (events.user_key among the keys or '
    'the anonymous keys of the devices merged into them), so that the next fold makes their state anew under '
    'identity_links as they are then. Takes the state lock; returns what it touched.';


-- Applies the pending links, re-keying only the old keys that can have state.
create or replace function cardinal.fold_identity_links()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    create temporary table report_fold_identity_links as
    select * from cardinal.pending_identity_links();
    -- The old keys' state first, while the links are as they were: requeue_identity_state finds the devices
    -- linked to a previous user through them. A device's own key has state only when the app holds an
    -- anonymous event of the device: state under that key is folded from those events alone, and every event
    -- stays in events as long as state counts it (erasure and retention delete both). Most first logins come
    -- from devices that never sent an anonymous event, and re-keying each of them cost two index probes per
    -- partition for nothing (6.6 s of an 11 s identity step on 53,400 first logins), so they are skipped after
    -- one probe. The key of a previously linked user is always re-keyed.
    perform cardinal.requeue_identity_state(c.app_id, c.old_keys)
    from (
        select p.app_id, array_agg(distinct p.previous_key) as old_keys
        from pg_temp.report_fold_identity_links as p
        where p.previous_key <> case when p.merged then p.user_id else 'device:' || p.device_id end
          and (p.previous_key <> 'device:' || p.device_id
               or exists (select
                          from cardinal.events as e
                          where e.app_id = p.app_id and e.user_key = p.previous_key))
        group by p.app_id
        order by p.app_id
    ) as c;

    insert into cardinal.identity_links as l (app_id, device_id, user_id, linked_at, event_id, merged)
    select p.app_id, p.device_id, p.user_id, p.linked_at, p.event_id, p.merged
    from pg_temp.report_fold_identity_links as p
    order by p.app_id, p.device_id
    on conflict (app_id, device_id) do update set
        user_id = excluded.user_id, linked_at = excluded.linked_at, event_id = excluded.event_id,
        merged = excluded.merged;
    drop table pg_temp.report_fold_identity_links;
end
$function$;
alter function cardinal.fold_identity_links() owner to cardinal_owner;
revoke all on function cardinal.fold_identity_links() from public;
comment on function cardinal.fold_identity_links() is
    'Part of fold_report_state(), its first step: applies pending_identity_links(), re-keying the old '
    'key of every device whose anonymous events change owner (requeue_identity_state), so that the rest of the fold '
    'folds their events under the new links. Not to be called alone.';


-- identified_events finds a device's first login by the device's index and checks that its user is new by the
-- user's, whichever plan the planner picks, so that no reference function is quadratic on a fresh load of
-- devices that log in.
--
-- Why (each measured on a bulk load of 30,000 devices that log in; the figures are in git history):
--
-- * The first login is an aggregate over the device's events that carry a user, not `order by time, id
--   limit 1`: the primary key yields that order, and the planner read the app's events by it once per
--   anonymous event. An aggregate reads all of its input, so the (app_id, device_id) index reads the fewest
--   rows under any estimate.
-- * The new-user check is a NOT EXISTS in the select list, a subplan per anonymous event on the (app_id,
--   user_key) index that no join setting affects; in the WHERE it became an anti-join, hashed from the app's
--   events once per anonymous event where nested loops are off.
-- * It takes the app from the lookup rather than from the event: a reference outside the lateral is not a
--   key of the Memoize node the planner may put over it, which then empties its cache on every row.
create or replace view cardinal.identified_events as
select e.app_id, e.id, e.type, e.channel, e.time, e.received_at, e.user_id, e.device_id, e.session_id,
       e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.control, e.message_id, e.placement_id,
       e.button_id, e.url, e.platform, e.sdk_version, e.app_version, e.os_version, e.test, e.conversion_name,
       e.value, e.currency, e.properties,
       coalesce(e.user_id, merged.user_id, e.user_key) as user_key,
       e.stored_xid
from cardinal.events as e
left join lateral (
    -- Only a user new at the login. An identified event's user_key is its user_id, which lets the
    -- (app_id, user_key) index answer.
    select case
               when first_login.user_id is not null
                    and not exists (select from cardinal.events as u
                                    where u.app_id = first_login.app_id
                                      and u.user_key = first_login.user_id
                                      and u.user_id = first_login.user_id
                                      and u.time < first_login.time)
               then first_login.user_id
           end as user_id
    from (
        -- The device's first login, looked up only for an anonymous event: NULLs when it has none. Its app is
        -- the event's, taken from here so that the check above refers to nothing outside this lookup: a
        -- Memoize node caching the lookup per device would otherwise be emptied on every event.
        select (array_agg(b.user_id order by b.time, b.id))[1] as user_id, min(b.time) as time,
               min(b.app_id) as app_id
        from cardinal.events as b
        where e.user_id is null
          and b.app_id = e.app_id
          and b.device_id = e.device_id
          and b.user_id is not null
    ) as first_login
) as merged on true;
alter view cardinal.identified_events owner to cardinal_owner;
grant select on cardinal.identified_events to cardinal_reader;
comment on view cardinal.identified_events is
    'cardinal.events with user_key resolved by the identity-merge rule computed from the raw events '
    'alone, without identity_links: an anonymous event counts as the first user (by time, then id) of an '
    'event carrying its device_id and a user_id, when that user had no event before it. Looked up per '
    'anonymous event on the (app_id, device_id) and (app_id, user_key) indexes whatever the plan, so its '
    'cost never depends on a row estimate. What the reference functions read.';
select cardinal.copy_column_comments('cardinal.identified_events', 'cardinal.events');
comment on column cardinal.identified_events.user_key is
    'The resolved user: user_id, else the first user seen with the device when new then, else '
    '''device:'' || device_id.';
comment on column cardinal.identified_events.stored_xid is
    'Id (64-bit, with epoch) of the transaction that stored the event; NULL for events stored before '
    'Cardinal recorded it (they count as folded). The report-state fold finds new events by it '
    '(report_fold_watermark).';


-- The reference functions look up one user's events by index.
--
-- Why (figures from FreshWorkload and PlannerProofReportsTests, in git history):
--
-- * identified_events computes user_key (the identity merge), so no index answers `user_key = x` on it: a
--   reference that looked up each recipient's conversions or opens there read every event of its type per
--   user. identified_events_of_user(app_id, user_key) returns what the view gives one user from indexes
--   alone: its identified events on (app_id, user_key), then the anonymous events of each device that could
--   be merged into it on (app_id, device_id), kept when identified_events gives them this user.
--   campaign_conversions_reference, control_arms_reference and push_counts_reference call it; the property
--   tests hold each to the report state.
-- * Its lookup of a device's events is fenced (OFFSET 0): flattened into the caller, the planner read the
--   app's conversions of the window for every user before matching them to devices.
create or replace function cardinal.identified_events_of_user(app_id bigint, user_key text)
    returns setof cardinal.identified_events
    language sql
    stable
as $function$
    -- Its identified events: an identified event's user_key is its user_id, on the (app_id, user_key)
    -- index.
    select e.app_id, e.id, e.type, e.channel, e.time, e.received_at, e.user_id, e.device_id, e.session_id,
           e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.control, e.message_id, e.placement_id,
           e.button_id, e.url, e.platform, e.sdk_version, e.app_version, e.os_version, e.test, e.conversion_name,
           e.value, e.currency, e.properties, e.user_id, e.stored_xid
    from cardinal.events as e
    where e.app_id = identified_events_of_user.app_id
      and e.user_key = identified_events_of_user.user_key
      and e.user_id = identified_events_of_user.user_key
    union all
    -- The anonymous events identified_events gives it: of a device it logged in on (its events name the
    -- device), or of the device whose key it is; each device's on the (app_id, device_id) index.
    select a.*
    from (
        select l.device_id
        from cardinal.events as l
        where l.app_id = identified_events_of_user.app_id
          and l.user_key = identified_events_of_user.user_key
          and l.user_id = identified_events_of_user.user_key
          and l.device_id is not null
        union
        select substr(identified_events_of_user.user_key, 8)
        where starts_with(identified_events_of_user.user_key, 'device:')
    ) as d
    cross join lateral (
        select v.*
        from cardinal.identified_events as v
        where v.app_id = identified_events_of_user.app_id
          and v.device_id = d.device_id
          and v.user_id is null
          and v.user_key = identified_events_of_user.user_key
        -- A fence: without it the planner may flatten this lookup into the caller's query and read the app's
        -- events by the caller's conditions (a conversion name, a time range) for every user, then join them
        -- to the devices.
        offset 0
    ) as a
$function$;
alter function cardinal.identified_events_of_user(bigint, text) owner to cardinal_owner;
grant execute on function cardinal.identified_events_of_user(bigint, text) to cardinal_reader;
comment on function cardinal.identified_events_of_user(bigint, text) is
    'The rows of identified_events of one app whose user_key is the given one, looked up by index: '
    'the user''s identified events on (app_id, user_key), and the anonymous events of each device that could '
    'be merged into it (one its events name, or the device whose key it is) on (app_id, device_id). What the '
    'reference functions read a user''s conversions and app opens from. Lists the view''s columns: a change '
    'to the view''s columns changes this function with it.';
