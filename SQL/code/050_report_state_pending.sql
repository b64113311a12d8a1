-- The report state's intake: the watermark, the events not folded yet, requeueing.
--
-- An event is unfolded while it waits in report_fold_queue (re-queued) or was stored by a transaction the fold's
-- watermark (report_fold_watermark) has not passed. unfolded_stored_events reads the latter as stored;
-- report_unfolded_events_full reads both with user_key resolved through identity_links as the pending logins change
-- them (one part of a long queue, or inside a fold the fold's snapshot from take_report_fold_snapshot), and
-- report_unfolded_events and the views below narrow it for the report_pending_* views. requeue_report_state rebuilds an
-- app's state (`cardinal state rebuild`, a report time zone change, a retention drop); subtract_folded_daily_counts is
-- the first step of a re-key and of an erasure; check_report_fold_watermark and rebase_report_state_watermark handle a
-- database restored into another cluster. Each fold records its run (record_report_fold_run, into report_fold_runs),
-- from which report_fold_rate measures the fold's pace against the backlog.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- A rebuild queues the events still waiting for the fold by the watermark too, so that the fold takes them in
-- parts.
--
-- Design notes (why, not what):
--
-- * The fold's pending read takes every pending event (stored past the watermark) in one fold: only the queue
--   is folded in parts. A bulk load is one transaction (or a few) that no fold has seen, so after it all of
--   its events are pending; a rebuild that queued only the folded events left them to one fold of all of
--   them. The 50 M seed of the reports bench (one transaction): that first fold wrote 38 GB of temporary
--   files in 9 minutes, and was stopped with 17 GB of the disk left.
--
-- * So the rebuild moves each pending transaction that stored events of the app (of the campaign) into the
--   queue: all of the transaction's events, every app's, since one writer batch holds several apps' events
--   and the pending read takes a transaction whole or not at all. The transaction goes into
--   report_folded_xids, which the pending read and every "folded or not" test read: at or
--   above folded_below, an event of a transaction in report_folded_xids is not pending, and counts as
--   folded unless it is queued. So each moved event is unfolded once (queued, no longer pending) until the
--   part of the queue that holds it is folded, and a fold prunes the transaction as the watermark passes it,
--   as any other. The other apps' and campaigns' moved events were pending, so they were in no state and
--   nowhere in the queue: queued, they are folded in parts like the rest.
--
-- * Logins are learned from pending events only (pending_identity_links: a queued event has no user_id or
--   device_id), and a moved event is pending no more. So before moving anything the rebuild
--   runs the fold's identity step, fold_identity_links, on the pending events as they are (every app's,
--   the moved ones included): the links, and the re-keys they cause, that the next fold would have made.
--   That fold's own identity step finds them learned (learning a link again changes nothing). The
--   pending read looks only at the transactions in event_storing_xids, so the moved ones are recorded
--   there first: an insert that fired no trigger (the replica role, a restore with --disable-triggers)
--   recorded nothing. A time zone change and a retention drop call requeue_report_state too, and so learn
--   the pending logins as well.
--
-- * A fold reads everything from the snapshot its statement began with, then takes the state lock. A
--   rebuild that committed in between is invisible to it: it would fold a moved transaction from the
--   pending read while the queue holds it too. The rebuild therefore updates the watermark row (to the
--   same values), and the fold, once it holds the lock, locks that row: in REPEATABLE READ a row updated
--   after the snapshot cannot be locked, so the fold stops with a serialization failure before it folds
--   anything, and its caller folds again (cardinald's ReportStateFolder and `cardinal state` retry on one).
--   Without the lock the fold would fail later and by chance: on the watermark's update (40001), or, while an
--   older transaction kept the moved one above the fold's xmin, on report_folded_xids' key (23505), which
--   no caller retries.
--
-- * A transaction is moved only when its events are visible, that is committed: a committed transaction's
--   rows are all visible or none, so nothing of it stays behind. One still running is left to the pending
--   read. So is the rebuild's own transaction (a caller that stores events and rebuilds in one transaction
--   could store more after the rebuild): its transaction is recorded in event_storing_xids, for an insert
--   that fired no trigger.
create or replace function cardinal.requeue_report_state(app_id bigint, campaign text default null)
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := requeue_report_state.app_id;
    own_xid constant bigint := (pg_current_xact_id()::text)::bigint;
    horizon cardinal.report_fold_watermark;
    moved bigint[];
    queued bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    -- Written so that a fold whose snapshot predates this rebuild fails instead of committing (notes above).
    update cardinal.report_fold_watermark set next_xid = next_xid;
    select * into strict horizon from cardinal.report_fold_watermark;

    -- The committed transactions whose events of the app the pending read would take by the watermark
    -- (unfolded_stored_events' two conditions): below, the queue takes them over.
    select coalesce(array_agg(distinct e.stored_xid), '{}') into moved
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign)
      and e.stored_xid >= horizon.folded_below
      and (e.stored_xid >= horizon.next_xid or e.stored_xid = any(horizon.running_xids))
      and e.stored_xid <> own_xid
      and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    -- Their logins, while they are still pending: the fold learns links from pending events only, of the
    -- transactions recorded where the pending read looks (an insert that fired no trigger recorded none).
    if cardinality(moved) > 0 then
        insert into cardinal.event_storing_xids (xid)
        select unnest(moved)
        on conflict (xid) do nothing;
        perform cardinal.fold_identity_links();
    end if;

    delete from cardinal.report_user_state as u
    using cardinal.report_groups as g
    where g.group_id = u.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    delete from cardinal.report_session_state as v
    using cardinal.report_groups as g
    where g.group_id = v.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    delete from cardinal.report_daily_counts as c
    using cardinal.report_groups as g
    where g.group_id = c.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    if campaign is null then
        delete from cardinal.report_conversion_state as c where c.app_id = target_app;
    end if;

    -- From now on the queue holds the moved transactions' events, and the pending read skips them.
    insert into cardinal.report_folded_xids (xid)
    select unnest(moved);

    -- The rebuild's own events stay pending: recorded where the pending read looks, for an insert that fired
    -- no trigger, as the moved transactions are above.
    insert into cardinal.event_storing_xids (xid)
    select own_xid
    where exists (select from cardinal.events as e where e.stored_xid = own_xid)
    on conflict (xid) do nothing;

    with unqueued as (
        delete from cardinal.report_fold_queue as q
        where q.app_id = target_app
          and (campaign is null or q.campaign_id = campaign)
    )
    insert into cardinal.report_fold_queue
        (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
         control, platform, sdk_version, app_version, test, user_key, session_id, message_id, conversion_name,
         placement_id, button_id, value, currency)
    select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id, e.canvas_step_id,
           e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test, e.user_key, e.session_id,
           e.message_id, e.conversion_name, e.placement_id, e.button_id, e.value, e.currency
    from cardinal.events as e
    where e.app_id = target_app
      and (campaign is null or e.campaign_id = campaign)
      -- Every event but those the pending read takes: the moved transactions' are in report_folded_xids now.
      and (e.stored_xid is null
           or e.stored_xid < horizon.folded_below
           or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
           or (e.stored_xid < horizon.next_xid and e.stored_xid <> all(horizon.running_xids)));
    get diagnostics queued = row_count;

    -- The moved transactions' other events, pending until now and so in no state and not queued.
    if cardinality(moved) > 0 then
        insert into cardinal.report_fold_queue
            (app_id, id, time, received_at, type, channel, campaign_id, canvas_id, canvas_step_id, variant_id,
             control, platform, sdk_version, app_version, test, user_key, session_id, message_id,
             conversion_name, placement_id, button_id, value, currency)
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.session_id, e.message_id, e.conversion_name, e.placement_id, e.button_id, e.value,
               e.currency
        from cardinal.events as e
        where e.stored_xid = any(moved)
          and (e.app_id <> target_app or (campaign is not null and e.campaign_id is distinct from campaign));
    end if;

    select count(*) + queued into queued
    from cardinal.unfolded_stored_events() as u
    where u.app_id = target_app
      and (campaign is null or u.campaign_id = campaign);
    return queued;
end
$function$;
alter function cardinal.requeue_report_state(bigint, text) owner to cardinal_owner;
revoke all on function cardinal.requeue_report_state(bigint, text) from public;
comment on function cardinal.requeue_report_state(bigint, text) is
    'Drops the report state of one app (campaign NULL: every campaign, canvas step and conversion) or of '
    'one campaign, queues its stored events again, with every event of the committed transactions that '
    'stored some of them and that no fold has taken yet (after learning the pending logins with '
    'fold_identity_links; those transactions then recorded in report_folded_xids, so that the next folds '
    'take them from the queue, in parts), and returns how many events the next fold_report_state() calls '
    'will fold for it. Its own transaction''s events stay pending. Updates report_fold_watermark, so that a '
    'fold whose snapshot began before it commits fails with a serialization failure. Reports are '
    'exact meanwhile (they count the unfolded events). For members of cardinal_owner.';


-- A report day is a date in the report time zone, so the state of an app or campaign whose zone changes is
-- rebuilt; the interaction counts of its finding groups are cleared with it.
create or replace function cardinal.requeue_on_time_zone_change()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app      bigint;
    target_campaign text;
begin
    if tg_table_name = 'apps' then
        if new.report_time_zone is distinct from old.report_time_zone then
            target_app := new.app_id;
        end if;
    elsif tg_op = 'DELETE' then
        if old.report_time_zone is not null then
            target_app := old.app_id;
            target_campaign := old.campaign_id;
        end if;
    elsif tg_op = 'INSERT' then
        if new.report_time_zone is not null then
            target_app := new.app_id;
            target_campaign := new.campaign_id;
        end if;
    elsif new.report_time_zone is distinct from old.report_time_zone then
        target_app := new.app_id;
        target_campaign := new.campaign_id;
    end if;
    if target_app is null then
        return null;
    end if;
    perform cardinal.requeue_report_state(target_app, target_campaign);
    -- The requeue deleted every state row of the app (campaign), and the counting trigger took their clicks and
    -- dismissals off on the days of the new zone, not those it had added them on: the counts of its finding
    -- groups are zero now that their rows are gone, and the fold adds them again in the new zone.
    delete from cardinal.report_interaction_day_users as c
    using cardinal.report_findings as f
    where f.finding_id = c.finding_id
      and f.app_id = target_app
      and (target_campaign is null or f.campaign_id = target_campaign);
    delete from cardinal.report_interaction_day_events as c
    using cardinal.report_findings as f
    where f.finding_id = c.finding_id
      and f.app_id = target_app
      and (target_campaign is null or f.campaign_id = target_campaign);
    return null;
end
$function$;
alter function cardinal.requeue_on_time_zone_change() owner to cardinal_owner;
revoke all on function cardinal.requeue_on_time_zone_change() from public;
comment on function cardinal.requeue_on_time_zone_change() is
    'Trigger of apps and campaign_settings: requeues the events of the app or campaign whose report time '
    'zone changed, and clears the interaction counts of its finding groups, whose rows the requeue deleted.';


create or replace trigger apps_requeue_on_time_zone_change
    after update of report_time_zone on cardinal.apps
    for each row
    execute function cardinal.requeue_on_time_zone_change();
comment on trigger apps_requeue_on_time_zone_change on cardinal.apps is
    'Rebuilds the app''s report state when its report time zone changes.';


create or replace trigger campaign_settings_requeue_on_time_zone_change
    after insert or update or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.requeue_on_time_zone_change();
comment on trigger campaign_settings_requeue_on_time_zone_change on cardinal.campaign_settings is
    'Rebuilds a campaign''s report state when its own report time zone is set, changed or removed.';


-- The columns the pending views read, from the full function. SQL without SET clauses, so the planner inlines
-- it into the pending views and the reports; the planner settings of the read are the full function's.
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
    language sql
    stable
as $function$
    select f.app_id, f.id, f.time, f.received_at, f.type, f.channel, f.campaign_id, f.canvas_id, f.canvas_step_id,
           f.variant_id, f.control, f.platform, f.sdk_version, f.app_version, f.test, f.user_key, f.session_id,
           f.message_id, f.conversion_name, f.stored_xid
    from cardinal.report_unfolded_events_full() as f;
$function$;
alter function cardinal.report_unfolded_events() owner to cardinal_owner;
grant execute on function cardinal.report_unfolded_events() to cardinal_reader;
comment on function cardinal.report_unfolded_events() is
    'The stored events not yet folded into the report state: the re-queued ones (report_fold_queue, '
    'stored_xid NULL) and those stored since the last fold (events past report_fold_watermark), with '
    'user_key resolved through identity_links as the pending logins (pending_identity_links) change them: '
    'an anonymous event counts as the user its device''s link merges it into once the next fold has learned '
    'them. A session_start is returned as a conversion named session_start_state_name(). '
    'Inside a report-state fold, the fold''s snapshot of them. The report_pending_* views aggregate them.';


-- What is waiting for the fold, for cardinald's metrics and `cardinal state status`. cardinald asks before every
-- fold, so the events are counted as stored and queued: resolving their anonymous devices through the pending
-- logins, as report_unfolded_events() does, changes their keys, not their number, and cost two thirds of the
-- count (20,000 pending events: about 70 ms against 22 ms).
create or replace function cardinal.report_state_backlog(out events bigint, out oldest_received_at timestamptz)
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    select count(*), min(u.received_at)
    from (
        select q.received_at from cardinal.report_fold_queue as q
        union all
        select s.received_at from cardinal.unfolded_stored_events() as s
    ) as u;
$function$;
alter function cardinal.report_state_backlog() owner to cardinal_owner;
grant execute on function cardinal.report_state_backlog() to cardinal_reader;
comment on function cardinal.report_state_backlog() is
    'How many stored events the report state has not folded yet, and when the oldest of them was received.';


-- A fold's row in report_fold_runs, written last in its transaction: what it folded, how long it took, and
-- what of its snapshot it left for later. The rows of an hour ago go: at a fold every 5 s, about 720 rows.
create or replace function cardinal.record_report_fold_run(started_at timestamptz, events bigint)
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    -- After the watermark moved: the fold's snapshot holds no pending event then, only the rest of a long queue.
    left_unfolded constant bigint := (select b.events from cardinal.report_state_backlog() as b);
begin
    insert into cardinal.report_fold_runs (started_at, finished_at, events, backlog_after)
    values (record_report_fold_run.started_at, clock_timestamp(), record_report_fold_run.events, left_unfolded);
    delete from cardinal.report_fold_runs as r where r.finished_at < clock_timestamp() - interval '1 hour';
end
$function$;
alter function cardinal.record_report_fold_run(timestamptz, bigint) owner to cardinal_owner;
revoke all on function cardinal.record_report_fold_run(timestamptz, bigint) from public;
comment on function cardinal.record_report_fold_run(timestamptz, bigint) is
    'Adds a row to report_fold_runs for a fold that began at started_at and folded events: finished now, '
    'backlog_after the events report_state_backlog() still counts in the fold''s transaction; deletes the rows '
    'that finished more than an hour ago. Part of fold_report_state(), its last step; not to be called alone.';


-- How fast the fold goes against how fast events arrive for it, for cardinald's metrics and `cardinal state
-- status`. Every figure is measured from one reference fold's start to now, so that the backlog then (what that
-- fold saw unfolded), the events folded since and the backlog now add up: what arrived is what is unfolded now,
-- less what was then, plus what was folded in between. A fold that is still running counts with its events
-- still unfolded. The reference is the latest fold that began at least `period` ago, so the figures cover a
-- little more than `period` while folds run every few seconds, and the whole time since the last fold when
-- there was none (a quiet hour, a folder stopped); lacking one, the earliest fold kept (the table keeps an hour).
create or replace function cardinal.report_fold_rate(
    period                         interval default interval '5 minutes',
    out backlog_events             bigint,
    out oldest_received_at         timestamptz,
    out measured_seconds           double precision,
    out folds                      bigint,
    out folded_events              bigint,
    out folding_seconds            double precision,
    out fold_events_per_second     double precision,
    out capacity_events_per_second double precision,
    out arrival_events_per_second  double precision,
    out drain_seconds              double precision
)
    language sql
    stable
    -- cardinald's role calls it before each fold, and may read neither report_fold_runs nor the events.
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
    with backlog as (
        select b.events, b.oldest_received_at from cardinal.report_state_backlog() as b
    ),
    reference as (
        select r.started_at, r.events + r.backlog_after as backlog_then
        from cardinal.report_fold_runs as r
        -- Folds hold the state lock one after another, so no two began at the same time.
        where r.started_at = coalesce(
                  (select max(o.started_at)
                   from cardinal.report_fold_runs as o
                   where o.started_at <= statement_timestamp() - report_fold_rate.period),
                  (select min(o.started_at) from cardinal.report_fold_runs as o))
    ),
    measured as (
        select f.backlog_then,
               extract(epoch from statement_timestamp() - f.started_at)::double precision as seconds,
               count(*) as folds,
               sum(r.events)::bigint as events,
               sum(extract(epoch from r.finished_at - r.started_at))::double precision as folding_seconds
        from reference as f
        join cardinal.report_fold_runs as r on r.started_at >= f.started_at
        group by f.started_at, f.backlog_then
    ),
    rates as (
        select m.*,
               m.events / nullif(m.seconds, 0) as fold_rate,
               case when m.events > 0 then m.events / nullif(m.folding_seconds, 0) end as capacity,
               (b.events - m.backlog_then + m.events) / nullif(m.seconds, 0) as arrival
        from measured as m, backlog as b
    )
    select b.events, b.oldest_received_at, r.seconds, coalesce(r.folds, 0), coalesce(r.events, 0),
           coalesce(r.folding_seconds, 0), r.fold_rate, r.capacity, r.arrival,
           case when b.events = 0 then 0
                when r.capacity > r.arrival then b.events / (r.capacity - r.arrival)
                when r.capacity <= r.arrival then 'Infinity'::double precision
           end
    from backlog as b
    left join rates as r on true;
$function$;
alter function cardinal.report_fold_rate(interval) owner to cardinal_owner;
revoke all on function cardinal.report_fold_rate(interval) from public;
grant execute on function cardinal.report_fold_rate(interval) to cardinal_ingest;
grant execute on function cardinal.report_fold_rate(interval) to cardinal_reader;
comment on function cardinal.report_fold_rate(interval) is
    'The report-state backlog and the fold''s pace. backlog_events and oldest_received_at: report_state_backlog(). '
    'The rest is measured over the folds of report_fold_runs from a reference fold on: the latest that began '
    'at least period (5 minutes) ago, else the earliest kept; all NULL (counts 0) when there is none. '
    'measured_seconds: from the reference''s started_at to now (statement_timestamp()). folds, folded_events, '
    'folding_seconds: how many folds began since (the reference included), the events they folded and the time '
    'they spent (finished_at - started_at). fold_events_per_second = folded_events / measured_seconds. '
    'capacity_events_per_second = folded_events / folding_seconds, what the fold folds per second while it runs '
    '(NULL when they folded nothing). arrival_events_per_second = (backlog_events - backlog_then + '
    'folded_events) / measured_seconds, where backlog_then = events + backlog_after of the reference: events '
    'stored, re-queued (a rebuild) or re-keyed since, per second. drain_seconds: 0 when the backlog is empty, '
    'else backlog_events / (capacity - arrival) when the capacity is higher, Infinity when it is not (the '
    'backlog does not drain at these rates), NULL when no capacity was measured. A fold''s cost per event falls '
    'as it grows, so the capacity of small, frequent folds understates what a large backlog is folded at.';


-- The unfolded events the day pairs count, with their report day: the non-control, non-test sends,
-- impressions, clicks and dismissals of campaigns and canvas steps.
create or replace view cardinal.report_unfolded_row_events as
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
grant select on cardinal.report_unfolded_row_events to cardinal_reader;
comment on view cardinal.report_unfolded_row_events is
    'The unfolded events (report_unfolded_events) that report_row_day_users counts: non-control, non-test '
    'sends, impressions, clicks and dismissals of campaigns and canvas steps, with their report day.';
select cardinal.copy_column_comments('cardinal.report_unfolded_row_events', 'cardinal.report_fold_queue');
comment on column cardinal.report_unfolded_row_events.day is
    'The report day of the event: its local date in the campaign''s report time zone, else the app''s.';


-- The values come with the pending events, so no probe of cardinal.events is needed. A session start (a
-- conversion here) never has a value (a CHECK of events). A repeat of a stored order has none that counts
-- (repeated_order_conversions, looked up by its primary key, the event's).
create or replace function cardinal.report_unfolded_conversion_values()
    returns table (
        app_id          bigint,
        user_key        text,
        conversion_name text,
        test            boolean,
        "time"          timestamptz,
        id              uuid,
        value           numeric,
        currency        text
    )
    language sql
    stable
as $function$
    select u.app_id, u.user_key, u.conversion_name, u.test, u.time, u.id, u.value, coalesce(u.currency, 'XXX')
    from cardinal.report_unfolded_events_full() as u
    where u.type = 'conversion' and u.value is not null
      and not exists (
          select
          from cardinal.repeated_order_conversions as r
          where r.app_id = u.app_id and r.time = u.time and r.id = u.id
      );
$function$;
alter function cardinal.report_unfolded_conversion_values() owner to cardinal_owner;
grant execute on function cardinal.report_unfolded_conversion_values() to cardinal_reader;
comment on function cardinal.report_unfolded_conversion_values() is
    'The unfolded conversions (report_unfolded_events_full) that have a value, with the value and currency '
    '(''XXX'' when none), but for the repeats of an order (repeated_order_conversions). '
    'report_pending_conversion_value_facts aggregates them.';


-- Every part of the queue: the ranged function over the whole hash range, so that the body is written once.
create or replace function cardinal.report_unfolded_events_full()
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
        stored_xid      bigint,
        placement_id    text,
        button_id       text,
        value           numeric,
        currency        text
    )
    language sql
    stable
-- No SET clause, so that the callers' plans inline it and call the ranged function directly.
as $function$
    select * from cardinal.report_unfolded_events_full(0, 2147483648);
$function$;
alter function cardinal.report_unfolded_events_full() owner to cardinal_owner;
grant execute on function cardinal.report_unfolded_events_full() to cardinal_reader;
comment on function cardinal.report_unfolded_events_full() is
    'report_unfolded_events() with the pending events'' placement_id, button_id, value and currency. '
    'Inside a report-state fold, after take_report_fold_snapshot(), the fold''s snapshot of them '
    '(pg_temp.report_fold_events); otherwise the stored events not yet folded.';


-- The pending read: the queued events of one range of report_fold_user_hash (one part of a long queue) and the
-- events stored past the watermark, or inside a fold its snapshot. Sequential and plain index scans are off
-- so that the read of events takes the BRIN index on stored_xid: the watermark is a value the planner cannot
-- know when it plans, and its default guess for ">=" (a third of the table) would pick a sequential scan of
-- every partition, where a bitmap scan of the BRIN index reads only the page ranges whose ids reach it. These
-- SET clauses stop the function from being inlined: its callers read it as one function scan.
--
-- Design notes on the identity merge (issue 43, "Exact before the fold"):
--
-- * A report counts every stored event as the fold will, and the fold learns the pending logins first
--   (fold_identity_links): an anonymous event counts as the user its device's link names then. So outside a
--   fold an anonymous event resolves through identity_links as the pending logins change it, by
--   pending_identity_links' rules: the device's first pending login (by time, then id) when the device has no
--   link or a later one, merged when its user had no event before it; else the link, unmerged when its user
--   turns out to have a pending event before the login. Resolved through identity_links alone, 30 devices that
--   see a card anonymously, log in and click counted 60 unique impressions and 30 clicks without an
--   impression until the fold, 30 and none after it.
-- * A login changes the key of this read's events only on a device whose anonymous events it returns, so the
--   rules run for those devices alone: the stored events are read once (materialized), the logins and the
--   merged links' users are matched to those devices by hash, each device's link is one lookup (one per
--   anonymous event before), and only the anonymous events probe the devices' keys. pending_identity_links
--   itself would read the events again and look up the link of every device that sent a user's event.
--   The three extra passes over the materialized events are the cost: on 50,000 pending events of 6,000 users
--   (582 devices with anonymous ones) beside 50,000 folded ones, no login pending, the read took 87 → 117 ms
--   (best of 5), 93 → 140 ms with 1,000 of those devices logging in (each a probe of the user's events);
--   unique_impressions, which reads the pending events five times, 0.92 → 1.07 s, the other reports 3-9 %
--   longer. A larger work_mem, which keeps the materialized events off disk, saved 5 ms of the 30.
-- * Inside the fold's snapshot (take_report_fold_snapshot, which marks the read 'taking') the fold has just
--   learned the pending logins, so identity_links already holds what they make: the rules are skipped.
-- * What this read cannot do: a pending login also re-keys what the device's anonymous events (or the previous
--   user's) already folded, which stays under its old key in the state until the fold (docs/report-state.md).
create or replace function cardinal.report_unfolded_events_full(queue_hash_from bigint, queue_hash_below bigint)
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
        stored_xid      bigint,
        placement_id    text,
        button_id       text,
        value           numeric,
        currency        text
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
as $function$
declare
    -- Whether the pending logins are still to be applied: not in the fold's own read (notes above).
    pending_logins constant boolean := current_setting('cardinal.report_fold_snapshot', true)
                                       is distinct from 'taking';
begin
    if current_setting('cardinal.report_fold_snapshot', true) = 'taken' then
        return query select * from pg_temp.report_fold_events;
        return;
    elsif current_setting('cardinal.report_fold_snapshot', true) = 'none pending' then
        return;
    end if;
    return query
    with stored as materialized (
        select * from cardinal.unfolded_stored_events()
    ),
    -- The devices of the anonymous events read: of the stored ones, and (pending logins to apply) of the
    -- queued ones, whose raw key is 'device:' || device_id. In the fold's snapshot the queued events resolve
    -- through identity_links alone (the join below), as before the pending logins counted.
    devices as (
        select s.app_id, s.device_id
        from stored as s
        where s.user_id is null
        union
        select q.app_id, substr(q.user_key, 8)
        from cardinal.report_fold_queue as q
        where pending_logins
          and starts_with(q.user_key, 'device:')
          and cardinal.report_fold_user_hash(q.user_key) >= report_unfolded_events_full.queue_hash_from
          and cardinal.report_fold_user_hash(q.user_key) < report_unfolded_events_full.queue_hash_below
    ),
    -- Each device's link and first pending login.
    linked as (
        select d.app_id, d.device_id,
               (select l from cardinal.identity_links as l
                where l.app_id = d.app_id and l.device_id = d.device_id) as link,
               n.user_id as login_user_id, n.time as login_at, n.id as login_id
        from devices as d
        left join (
            select distinct on (s.app_id, s.device_id) s.app_id, s.device_id, s.user_id, s.time, s.id
            from stored as s
            join devices as d on d.app_id = s.app_id and d.device_id = s.device_id
            where pending_logins and s.user_id is not null
            order by s.app_id, s.device_id, s.time, s.id
        ) as n on n.app_id = d.app_id and n.device_id = d.device_id
    ),
    -- The first pending event of each user a merged link names: before the login, the user existed.
    users_first as (
        select s.app_id, s.user_id, min(s.time) as first_at
        from stored as s
        where pending_logins
          and (s.app_id, s.user_id) in (select k.app_id, (k.link).user_id from linked as k where (k.link).merged)
        group by s.app_id, s.user_id
    ),
    -- The user each device's anonymous events count as, NULL for the device itself.
    resolved as (
        select k.app_id, k.device_id,
               case
                   when k.login_user_id is not null
                        and (k.link is null or (k.login_at, k.login_id) < ((k.link).linked_at, (k.link).event_id))
                   then case
                            when not exists (select
                                             from cardinal.events as e
                                             where e.app_id = k.app_id and e.user_key = k.login_user_id
                                               and e.user_id = k.login_user_id and e.time < k.login_at)
                            then k.login_user_id
                        end
                   when (k.link).merged and not coalesce(f.first_at < (k.link).linked_at, false)
                   then (k.link).user_id
               end as user_id
        from linked as k
        left join users_first as f on f.app_id = k.app_id and f.user_id = (k.link).user_id
    )
    select u.app_id, u.id, u.time, u.received_at,
           case when u.type = 'session_start' then 'conversion' else u.type end,
           u.channel, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.control, u.platform,
           u.sdk_version, u.app_version, u.test, u.user_key, u.session_id, u.message_id,
           case when u.type = 'session_start' then cardinal.session_start_state_name() else u.conversion_name end,
           u.stored_xid, u.placement_id, u.button_id, u.value, u.currency
    from (
        -- A queued event carries only the raw key: an anonymous one is 'device:' || device_id.
        select q.app_id, q.id, q.time, q.received_at, q.type, q.channel, q.campaign_id, q.canvas_id,
               q.canvas_step_id, q.variant_id, q.control, q.platform, q.sdk_version, q.app_version, q.test,
               coalesce(case when r.app_id is not null then r.user_id else l.user_id end, q.user_key) as user_key,
               q.session_id, q.message_id, q.conversion_name, null::bigint as stored_xid, q.placement_id,
               q.button_id, q.value, q.currency
        from cardinal.report_fold_queue as q
        left join cardinal.identity_links as l
            on l.app_id = q.app_id and starts_with(q.user_key, 'device:') and l.device_id = substr(q.user_key, 8)
               and l.merged
        left join resolved as r
            on r.app_id = q.app_id and starts_with(q.user_key, 'device:') and r.device_id = substr(q.user_key, 8)
        -- The queued events of one part only, by the queue's index.
        where cardinal.report_fold_user_hash(q.user_key) >= report_unfolded_events_full.queue_hash_from
          and cardinal.report_fold_user_hash(q.user_key) < report_unfolded_events_full.queue_hash_below
        union all
        -- The anonymous events apart, so that only they probe the devices' keys.
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               coalesce(r.user_id, e.user_key), e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from stored as e
        left join resolved as r on r.app_id = e.app_id and r.device_id = e.device_id
        where e.user_id is null
        union all
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from stored as e
        where e.user_id is not null
    ) as u;
end
$function$;
alter function cardinal.report_unfolded_events_full(bigint, bigint) owner to cardinal_owner;
grant execute on function cardinal.report_unfolded_events_full(bigint, bigint) to cardinal_reader;
comment on function cardinal.report_unfolded_events_full(bigint, bigint) is
    'report_unfolded_events_full() with only the queued events whose report_fold_user_hash is in '
    '[queue_hash_from, queue_hash_below): the read of one part of a long queue. Anonymous events resolve '
    'through identity_links as the pending logins change them, except in the read of '
    'take_report_fold_snapshot, which follows fold_identity_links. Inside a report-state fold, after '
    'take_report_fold_snapshot(), the fold''s snapshot whatever the range; after a report''s '
    'take_report_pending_copy(), its copy, or no row when it found none pending.';


-- The copy of the pending events that the fold's steps and a report's queries read instead of the events:
-- report_unfolded_events_full returns pg_temp.report_fold_events once the transaction's flag says 'taken'.
-- ON COMMIT DROP and a transaction-local flag, so that the copy never outlives its transaction, even one that
-- fails. Shared by take_report_fold_snapshot and take_report_pending_copy, which decide when and what to copy.
create or replace function cardinal.copy_report_pending_events(queue_hash_from bigint, queue_hash_below bigint)
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    copied bigint;
begin
    create temporary table report_fold_events on commit drop as
    select * from cardinal.report_unfolded_events_full(copy_report_pending_events.queue_hash_from,
                                                       copy_report_pending_events.queue_hash_below);
    get diagnostics copied = row_count;
    perform set_config('cardinal.report_fold_snapshot', 'taken', true);
    return copied;
end
$function$;
alter function cardinal.copy_report_pending_events(bigint, bigint) owner to cardinal_owner;
revoke all on function cardinal.copy_report_pending_events(bigint, bigint) from public;
grant execute on function cardinal.copy_report_pending_events(bigint, bigint) to cardinal_reader;
comment on function cardinal.copy_report_pending_events(bigint, bigint) is
    'Copies report_unfolded_events_full(queue_hash_from, queue_hash_below) into the temporary table '
    'pg_temp.report_fold_events, dropped at commit, marks the transaction''s read of the pending events as '
    'taken (cardinal.report_fold_snapshot), so that report_unfolded_events_full() returns the copy from then '
    'on, and returns how many it copied. Called by take_report_fold_snapshot and take_report_pending_copy.';


-- The fold reads the pending events many times; it reads them once into a temporary table, so that every step
-- sees the same events and the pending read runs once. A queue longer than the budget is taken in parts, each
-- a range of report_fold_user_hash (each key's queued events in one part), kept for the fold's delete.
create or replace function cardinal.take_report_fold_snapshot()
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    budget constant bigint := coalesce(nullif(current_setting('cardinal.fold_queue_budget', true), ''),
                                       '1000000')::bigint;
    queued bigint;
    parts bigint := 1;
    part bigint := 0;
    hash_from bigint := 0;
    hash_below bigint := 2147483648;
begin
    if exists (select from cardinal.report_fold_queue) then
        select count(*) into queued from cardinal.report_fold_queue;
        parts := greatest(1, ceil(queued::numeric / greatest(budget, 1)))::bigint;
    end if;
    if parts > 1 then
        -- The part of the first queued event a scan finds, and its range: the hashes h with
        -- floor(h * parts / 2^31) = part, so that the event's own hash is in it.
        select cardinal.report_fold_user_hash(q.user_key) * parts / 2147483648 into strict part
        from cardinal.report_fold_queue as q
        limit 1;
        hash_from := (part * 2147483648 + parts - 1) / parts;
        hash_below := ((part + 1) * 2147483648 + parts - 1) / parts;
    end if;
    perform set_config('cardinal.report_fold_queue_part', format('%s %s', hash_from, hash_below), true);
    -- The read below comes after fold_identity_links: 'taking' tells it that the links hold the pending logins.
    perform set_config('cardinal.report_fold_snapshot', 'taking', true);
    -- A queued event has no stored_xid; a stored one always comes.
    return cardinal.copy_report_pending_events(hash_from, hash_below);
end
$function$;
alter function cardinal.take_report_fold_snapshot() owner to cardinal_owner;
revoke all on function cardinal.take_report_fold_snapshot() from public;
comment on function cardinal.take_report_fold_snapshot() is
    'Copies the pending events (report_unfolded_events_full) into the temporary table '
    'pg_temp.report_fold_events, which report_unfolded_events_full() and report_unfolded_events() return '
    'from then on in this transaction, and returns how many: every event stored past the watermark, and of a '
    'queue longer than cardinal.fold_queue_budget (1,000,000) the queued events of one range of their '
    'report_fold_user_hash, kept in cardinal.report_fold_queue_part for the fold''s delete. Part of '
    'fold_report_state(), after fold_identity_links(), whose links the read takes as they are (it applies '
    'no pending login); drop_report_fold_snapshot() ends it.';


create or replace function cardinal.drop_report_fold_snapshot()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform set_config('cardinal.report_fold_snapshot', '', true);
    drop table if exists pg_temp.report_fold_events;
end
$function$;
alter function cardinal.drop_report_fold_snapshot() owner to cardinal_owner;
revoke all on function cardinal.drop_report_fold_snapshot() from public;
comment on function cardinal.drop_report_fold_snapshot() is
    'Ends the fold''s snapshot of the pending events (take_report_fold_snapshot): report_unfolded_events() '
    'reads the stored events again. Part of fold_report_state(), after its last step.';


-- A report reads the pending events through several views, two to four reads a report, each resolving the
-- anonymous devices among them again: with 1 M events pending about 3 s a read. Like the fold, a report can
-- read them once: this copies them into the fold's temporary table, which report_unfolded_events_full() then
-- returns for the rest of the transaction. Measured on 1 M pending events (copy 2.9 s): unique_impressions
-- 23.6 → 13.4 s, control_arms 6.5 s instead of about 19 s, anomalies 44 → 29 s.
--
-- Only in a REPEATABLE READ (or SERIALIZABLE) transaction, where the state the report reads next and the copy
-- are of one snapshot: under READ COMMITTED a fold that commits in between would count its events twice. Not
-- on a hot standby or in a read-only transaction, which cannot create a table, not inside a fold (its own
-- snapshot is taken), and not for a role without the TEMPORARY privilege: then it returns NULL and the report
-- reads the events as before.
--
-- With nothing pending (the state has caught up: the usual case of a scheduled report) there is nothing to
-- copy, and no table is created: the transaction is marked 'none pending', and each read returns no row at
-- once instead of planning its read of the events. On a caught-up 10 M-event database each report's connection
-- saved about 20 ms of its first read.
create or replace function cardinal.take_report_pending_copy()
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if coalesce(current_setting('cardinal.report_fold_snapshot', true), '') <> ''
       or current_setting('transaction_isolation') not in ('repeatable read', 'serializable')
       or current_setting('transaction_read_only') = 'on'
       or pg_is_in_recovery()
       or not has_database_privilege(current_database(), 'temporary') then
        return null;
    end if;
    if not exists (select from cardinal.report_fold_queue)
       and not (select t.began_after or t.were_running
                from cardinal.report_fold_watermark as w
                cross join cardinal.unfolded_storing_transactions(w) as t) then
        perform set_config('cardinal.report_fold_snapshot', 'none pending', true);
        return 0;
    end if;
    return cardinal.copy_report_pending_events(0, 2147483648);
end
$function$;
alter function cardinal.take_report_pending_copy() owner to cardinal_owner;
grant execute on function cardinal.take_report_pending_copy() to cardinal_reader;
comment on function cardinal.take_report_pending_copy() is
    'Copies the pending events (report_unfolded_events_full(), the pending logins applied) into the temporary '
    'table pg_temp.report_fold_events, which report_unfolded_events_full() and report_unfolded_events() return '
    'for the rest of this transaction, and returns how many: a report''s one read of them. NULL, and nothing '
    'copied, outside a REPEATABLE READ or SERIALIZABLE transaction, in a read-only one, on a hot standby, '
    'inside a fold or after an earlier copy, and for a role without TEMPORARY on the database. 0, and no '
    'table, when no event is pending: the reads then return none for the rest of the transaction. cardinal''s '
    'report commands call it at the start of each report''s transaction.';


-- Whether the transactions a fold has not passed stored events, in the two groups unfolded_stored_events reads
-- apart: a test of the small table event_storing_xids, which take_report_pending_copy also asks before it copies.
create or replace function cardinal.unfolded_storing_transactions(
    horizon cardinal.report_fold_watermark,
    out began_after boolean,
    out were_running boolean
)
    language sql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
    select
        exists (
            select
            from cardinal.event_storing_xids as s
            where s.xid >= greatest(horizon.next_xid, horizon.folded_below)
              and not exists (select from cardinal.report_folded_xids as x where x.xid = s.xid)
        ),
        exists (
            select
            from cardinal.event_storing_xids as s
            where s.xid = any(horizon.running_xids)
              and s.xid >= horizon.folded_below
              and s.xid < horizon.next_xid
              and not exists (select from cardinal.report_folded_xids as x where x.xid = s.xid)
        );
$function$;
alter function cardinal.unfolded_storing_transactions(cardinal.report_fold_watermark) owner to cardinal_owner;
grant execute on function cardinal.unfolded_storing_transactions(cardinal.report_fold_watermark) to cardinal_reader;
comment on function cardinal.unfolded_storing_transactions(cardinal.report_fold_watermark) is
    'Whether a transaction past the watermark horizon stored events not yet folded: began_after, one at or above '
    'its next_xid; were_running, one of its running_xids. From event_storing_xids less report_folded_xids. '
    'unfolded_stored_events() reads the events of each group only when it is true.';


-- The events the watermark has not passed, each of its two reads behind a test of event_storing_xids: the
-- partitions are read only when a transaction that stored events is pending, which a fold with nothing to do
-- finds in a tiny table.
create or replace function cardinal.unfolded_stored_events()
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
        user_id         text,
        device_id       text,
        session_id      text,
        message_id      text,
        conversion_name text,
        stored_xid      bigint,
        placement_id    text,
        button_id       text,
        value           numeric,
        currency        text
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
    set enable_seqscan = off
    set enable_indexscan = off
    set enable_indexonlyscan = off
    set enable_nestloop = off
    set jit = off
    set max_parallel_workers_per_gather = 0
    set plan_cache_mode = force_generic_plan
as $function$
declare
    horizon cardinal.report_fold_watermark;
    storing record;
begin
    select * into strict horizon from cardinal.report_fold_watermark;
    select * into strict storing from cardinal.unfolded_storing_transactions(horizon);
    -- The transactions that began after the last fold: the tail of the table, if one of them stored events.
    if storing.began_after then
        return query
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.user_id, e.device_id, e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from cardinal.events as e
        where e.stored_xid >= greatest(horizon.next_xid, horizon.folded_below)
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    end if;
    -- Those that were running then, one lookup each, if one of them stored events: an old one's rows are
    -- wherever it wrote them.
    if storing.were_running then
        return query
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.user_id, e.device_id, e.session_id, e.message_id, e.conversion_name, e.stored_xid,
               e.placement_id, e.button_id, e.value, e.currency
        from unnest(horizon.running_xids) as running (xid)
        cross join lateral (
            select * from cardinal.events as s where s.stored_xid = running.xid
        ) as e
        where running.xid >= horizon.folded_below
          and running.xid < horizon.next_xid
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid);
    end if;
end
$function$;
alter function cardinal.unfolded_stored_events() owner to cardinal_owner;
grant execute on function cardinal.unfolded_stored_events() to cardinal_reader;
comment on function cardinal.unfolded_stored_events() is
    'The stored events not yet folded into the report state, as stored (user_key unresolved; the re-queued '
    'events are not here): those of the transactions at or above report_fold_watermark.next_xid, and of '
    'those in its running_xids, less report_folded_xids. The partitions are read only when '
    'event_storing_xids holds such a transaction. report_unfolded_events_full() and '
    'unfolded_identified_events() read them.';


-- Re-keying and erasure take the folded events' day counts out with one read of the queue, whatever the
-- planner believes the queue holds (issues 8 and 9).
--
-- Design notes (why, not what):
--
-- * requeue_identity_state (a fold's identity step) and erase_identity_events first subtract
--   what the affected keys' folded events added to report_daily_counts. "Folded" is "not in
--   report_fold_queue", a NOT EXISTS on (app_id, id, time). The queue has no index for it (it is written in
--   bulk and emptied by the fold), and it is usually empty, so the planner, estimating one event or one queued
--   row, made the anti join a nested loop that scans the whole queue once per event. With the queue empty
--   that costs nothing; with the queue holding rows, or only their dead pages, it is quadratic:
--     - fold_steps.sql's re-keyed fold (30,000 first logins of devices with 10 anonymous events each):
--       fold_identity_links took 11.3 s in a fresh copy of the database, and 175-222 s in the same copy
--       after one rolled-back fold had left 42 MB of dead queue rows (autovacuum not yet run): the
--       day-count statement alone passed 60 s, 250,000 seq scans of the queue.
--     - In production the queue holds rows exactly when it hurts most: during `cardinal state rebuild`
--       (millions queued, folded in parts), a first login re-keys a device and scans all of them for each
--       of the device's events; the rebuild also vacuums the emptied queue, so the next rebuild starts from
--       statistics that say the queue is empty.
--   Joining the events to report_groups with IS NOT DISTINCT FROM is no better: a hash join cannot use that
--   operator, so it hashed on (channel, test) and filtered the rest (3,500,000 rows removed by the join
--   filter for 250,000 events of 60 groups).
--
-- * subtract_folded_daily_counts is that statement once, for both callers, with the plan fixed: joins and
--   the anti join hashed (nested loops and merge joins off); the queue read once and hashed, restricted to
--   the affected keys (a queued row carries its event's user_key, a generated column of events, so an
--   event of the keys can only be queued under one of them); the groups joined on report_groups' coalesce
--   keys ('' stands for NULL: the CHECKs of events keep every key column non-empty); jit off (the 30,000-key statement
--   was compiled, 166 functions). It is a function of its own so that these settings do not reach the
--   callers' other statements, whose deletions fire triggers that rely on nested-loop index probes.
--
-- * requeue_identity_state runs with jit off: its re-queue of 300,000 events of 30,000 keys was estimated at
--   a cost of 2.2 M (the key array), above jit_optimize_above_cost, and compiling it took 3.5 of its 4.2 s.
--   JIT changes no plan, so the setting is safe for the triggers its deletions fire. On the copy with dead
--   queue pages the re-keyed fold's identity step took 7.6 s with this function alone and 3.6-4.6 s with
--   jit off too (against 175-222 s with the nested loops).
create or replace function cardinal.subtract_folded_daily_counts(
    app_id             bigint,
    user_keys          text[],
    folded_below       bigint,
    out touched_groups bigint[],
    out day_counts     bigint
)
    language sql
    volatile
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
    with queued as (
        select q.id, q.time
        from cardinal.report_fold_queue as q
        where q.app_id = subtract_folded_daily_counts.app_id
          and q.user_key = any(subtract_folded_daily_counts.user_keys)
    ),
    -- The keys' events that a fold has counted: not queued again, nor stored past the watermark.
    folded as (
        select e.*
        from cardinal.events as e
        where e.app_id = subtract_folded_daily_counts.app_id
          and e.user_key = any(subtract_folded_daily_counts.user_keys)
          and e.type <> 'conversion'
          and not exists (select from queued as q where q.id = e.id and q.time = e.time)
          and (e.stored_xid is null
               or e.stored_xid < subtract_folded_daily_counts.folded_below
               or exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid))
    ),
    counted as (
        select g.group_id, local.day,
               count(*) filter (where f.type = 'impression' and not f.control) as impressions,
               count(*) filter (where f.type = 'click') as clicks,
               count(*) filter (where f.type = 'dismissal') as dismissals,
               count(*) filter (where f.type = 'send' and not f.control) as sends,
               count(*) filter (where f.type = 'impression' and f.control) as control_impressions,
               count(*) filter (where f.type = 'send' and f.control) as control_sends,
               count(*) filter (where f.type = 'delivery') as deliveries
        from folded as f
        join cardinal.apps as a on a.app_id = f.app_id
        left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
        cross join lateral (
            select (f.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        join cardinal.report_groups as g
            on cardinal.report_group_is(g, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id,
                                        f.variant_id, f.channel, f.platform, f.sdk_version, f.app_version, f.test)
        group by g.group_id, local.day
    ),
    reduced as (
        update cardinal.report_daily_counts as c
        set impressions = c.impressions - x.impressions,
            clicks = c.clicks - x.clicks,
            dismissals = c.dismissals - x.dismissals,
            sends = c.sends - x.sends,
            control_impressions = c.control_impressions - x.control_impressions,
            control_sends = c.control_sends - x.control_sends,
            deliveries = c.deliveries - x.deliveries
        from counted as x
        where c.group_id = x.group_id and c.day = x.day
          -- The touched groups' rows by the primary key: the hashed join would otherwise read every app's
          -- day counts for each re-key and erasure.
          and c.group_id = any(array(select t.group_id from counted as t))
        returning c.group_id
    )
    select array_agg(distinct group_id), count(*)
    from reduced;
$function$;
alter function cardinal.subtract_folded_daily_counts(bigint, text[], bigint) owner to cardinal_owner;
revoke all on function cardinal.subtract_folded_daily_counts(bigint, text[], bigint) from public;
comment on function cardinal.subtract_folded_daily_counts(bigint, text[], bigint) is
    'Takes out of report_daily_counts what the folded events of some raw user keys (events.user_key) of one '
    'app added: every event of the keys but conversions, those queued in report_fold_queue and those stored '
    'past the watermark folded_below (report_fold_watermark) and not folded yet. Returns the groups whose '
    'day rows it changed and how many day rows. The first step of a re-key (requeue_identity_state) and of an '
    'erasure (erase_identity_events); reads the queue once, with every join hashed.';


-- Raises when the watermark counts in another cluster's transaction ids.
create or replace function cardinal.check_report_fold_watermark()
    returns void
    language plpgsql
    stable
    -- cardinald's role calls it before each fold's backlog read, and may not read the watermark itself.
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    watermark bigint;
    next_id   bigint := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
begin
    select w.folded_below into strict watermark from cardinal.report_fold_watermark as w;
    if watermark > next_id then
        raise exception 'the report-state watermark (transaction %) is ahead of this cluster''s next transaction id (%)',
                watermark, next_id
            using errcode = 'object_not_in_prerequisite_state',
                  detail = 'The database was most likely restored from a logical dump into another cluster: no '
                           'event stored since would ever be folded.',
                  hint = 'Stop cardinald, run select cardinal.rebase_report_state_watermark(); as the owner, then '
                         'cardinal state rebuild --app A for each app (README, Report state).';
    end if;
end
$function$;
alter function cardinal.check_report_fold_watermark() owner to cardinal_owner;
revoke all on function cardinal.check_report_fold_watermark() from public;
grant execute on function cardinal.check_report_fold_watermark() to cardinal_ingest;
grant execute on function cardinal.check_report_fold_watermark() to cardinal_reader;
comment on function cardinal.check_report_fold_watermark() is
    'Raises object_not_in_prerequisite_state when report_fold_watermark.folded_below is above the next '
    'transaction id, which one cluster never allows: the ids are another cluster''s (a logical dump '
    'restored here). fold_report_state() calls it first.';


create or replace function cardinal.rebase_report_state_watermark()
    returns bigint
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    watermark bigint;
    oldest    bigint := pg_snapshot_xmin(pg_current_snapshot())::text::bigint;
    next_id   bigint := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
    cleared   bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    select w.folded_below into strict watermark from cardinal.report_fold_watermark as w;
    if watermark <= next_id then
        raise exception 'the report-state watermark (transaction %) is not ahead of this cluster''s next transaction id (%)',
                watermark, next_id
            using errcode = 'object_not_in_prerequisite_state',
                  hint = 'Nothing to rebase: this function is for a database restored from a logical dump into '
                         'another cluster.';
    end if;
    update cardinal.events set stored_xid = null where stored_xid is not null;
    get diagnostics cleared = row_count;
    update cardinal.report_fold_watermark
    set folded_below = oldest,
        next_xid = pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        running_xids = '{}';
    truncate cardinal.report_folded_xids, cardinal.event_storing_xids;
    return cleared;
end
$function$;
alter function cardinal.rebase_report_state_watermark() owner to cardinal_owner;
revoke all on function cardinal.rebase_report_state_watermark() from public;
comment on function cardinal.rebase_report_state_watermark() is
    'After a logical dump was restored into another cluster (check_report_fold_watermark raises): marks every '
    'stored event as not pending by transaction (stored_xid NULL) and puts report_fold_watermark on this '
    'cluster''s ids; returns how many events it cleared. `cardinal state rebuild` of each app must follow, '
    'before cardinald runs again. Refuses when the watermark is not ahead.';
