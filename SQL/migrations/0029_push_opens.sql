-- 0029_push_opens.sql — push metrics the way Braze users read them (issue 12): direct opens, influenced
-- opens and open rates over sends in the unique-impressions report.
--
-- Design notes (why, not what):
--
-- * A direct open stays a `click` on channel `push`: the SDKs log a push open when the user taps the
--   notification (Braze's "Direct Opens"), which is exactly a click on the message, and every report, the
--   anomalies (push_opens_missing) and the stored runs already count it. The report names it for push
--   readers instead: direct_opens and unique_direct_opens are the row's clicks and unique clicks.
--
-- * An influenced open is an app open that the push did not cause by a tap: the user opened the app within
--   a window after a push send, without a direct open. The SDKs start a session when the app comes to the
--   foreground, so the app open is a new event type, `session_start`: app-level like a conversion (no
--   channel, no campaign, no variant), logged by the app when the SDK opens a session.
--
-- * Session starts are kept in the report state with the conversions, in report_conversion_state under the
--   reserved name '$session_start' (0005's CHECK keeps every conversion name from starting with '$', and
--   so does campaign_settings': no conversion and no setting can meet it). report_unfolded_events() presents
--   a stored session_start as that conversion, so the fold, the requeue, erasure, retention and the identity
--   merge, which already keep report_conversion_state right, keep the session starts right too, and no view
--   that reads "everything but conversions" sees an event without a channel.
--
-- * Push sends need their times, not only their days: a window of hours cannot be read from days.
--   report_push_send_state keeps, per report group and user, the time of every non-control push send. It
--   follows report_user_state the way 0027's report_dismissal_state does (a push send always makes the
--   user's report_user_state row of its group; a trigger deletes its rows with that row; the fold adds the
--   unfolded sends in the same snapshot), so no path that keeps report_user_state right needs to know of it.
--
-- * The window is a campaign setting (campaign_settings.influenced_open_window), 12 hours when not set, and
--   is applied when a report runs, like the conversion window: the state does not depend on it. The seeds
--   name Influenced Opens but not their window (docs/DOMAIN.md); 12 hours is Cardinal's assumption.
--
-- * unique_impressions keeps its 19 columns in order and gains six at the end (NULL on rows of other
--   channels): 0025's function keeps its body under the name unique_impressions_of_0025 and the new one adds
--   the push columns from push_opens (state); unique_impressions_reference is made again with 0016's body and
--   the same columns from push_opens_reference (raw events), so the property tests compare the two sources.


-- Session starts: a new event type, app-level like a conversion.
alter table cardinal.events
    drop constraint events_type_known,
    add constraint events_type_known check (
        type in ('send', 'impression', 'click', 'dismissal', 'conversion', 'session_start')
    ),
    drop constraint events_channel_absent_only_on_conversion,
    add constraint events_channel_absent_only_on_conversion check (
        (channel is null) = (type in ('conversion', 'session_start'))
    ),
    drop constraint events_message_source_present,
    add constraint events_message_source_present check (
        type in ('conversion', 'session_start')
        or campaign_id is not null
        or (canvas_id is not null and canvas_step_id is not null)
    ),
    -- A session start belongs to no message, so it names no variant either.
    add constraint events_session_start_without_message check (
        type <> 'session_start' or (variant_id is null and message_id is null and button_id is null)
    );

comment on column cardinal.events.type is
    'What happened: send, impression, click, dismissal, conversion or session_start (the app came to the '
    'foreground and the SDK opened a session). A push open is a click (Braze''s direct open).';
comment on column cardinal.events.channel is
    'Where the message was shown: content_card, in_app_message, banner, push or feature_flag. NULL exactly '
    'for conversions and session starts, which belong to no message.';


-- The window of influenced opens, per campaign.
alter table cardinal.campaign_settings
    add column influenced_open_window interval,
    add constraint campaign_settings_influenced_open_window_range check (
        influenced_open_window between interval '1 minute' and interval '7 days'
        and extract(year from influenced_open_window) = 0
        and extract(month from influenced_open_window) = 0
    );

comment on column cardinal.campaign_settings.influenced_open_window is
    'How long after a push send an app open (session_start) without a direct open counts as an influenced '
    'open of the push; NULL means 12 hours. 1 minute to 7 days, no months.';


-- The name the report state keeps session starts under.
create function cardinal.session_start_state_name()
    returns text
    language sql
    immutable
    parallel safe
as $function$
    select '$session_start'::text;
$function$;

alter function cardinal.session_start_state_name() owner to cardinal_owner;

comment on function cardinal.session_start_state_name() is
    'The conversion name under which the report state (report_conversion_state) keeps session starts: '
    '''$session_start'', which no conversion can have (0005).';


-- 0021's report_unfolded_events, presenting a session start as the conversion the state keeps it as.
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
        select q.app_id, q.id, q.time, q.received_at, q.type, q.channel, q.campaign_id, q.canvas_id,
               q.canvas_step_id, q.variant_id, q.control, q.platform, q.sdk_version, q.app_version, q.test,
               q.user_key, q.session_id, q.message_id, q.conversion_name, null::bigint as stored_xid
        from cardinal.report_fold_queue as q
        union all
        select e.app_id, e.id, e.time, e.received_at, e.type, e.channel, e.campaign_id, e.canvas_id,
               e.canvas_step_id, e.variant_id, e.control, e.platform, e.sdk_version, e.app_version, e.test,
               e.user_key, e.session_id, e.message_id, e.conversion_name, e.stored_xid
        from cardinal.events as e
        where e.stored_xid >= (select w.folded_below from cardinal.report_fold_watermark as w)
          and not exists (select from cardinal.report_folded_xids as x where x.xid = e.stored_xid)
    ) as u;
end
$function$;

comment on function cardinal.report_unfolded_events() is
    'The stored events not yet folded into the report state: the re-queued ones (report_fold_queue, '
    'stored_xid NULL) and those stored since the last fold (events past report_fold_watermark). A '
    'session_start is returned as a conversion named session_start_state_name() (0029). The '
    'report_pending_* views aggregate them.';


-- Push send times per report group and user.
create table cardinal.report_push_send_state (
    group_id bigint        not null,
    user_key text          not null,
    times    timestamptz[] not null,

    constraint report_push_send_state_pkey primary key (group_id, user_key)
);

alter table cardinal.report_push_send_state owner to cardinal_owner;

comment on table cardinal.report_push_send_state is
    'Report state of push sends (0029): per report group and user, the time of every non-control push send, '
    'for influenced opens. Rows go when the user''s report_user_state row of the group goes.';
comment on column cardinal.report_push_send_state.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_push_send_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_push_send_state.times is 'Event times of the push sends, unordered.';


create view cardinal.report_pending_push_send_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, array_agg(q.time) as times
from cardinal.report_unfolded_events() as q
where q.type = 'send' and q.channel = 'push' and not q.control
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

alter view cardinal.report_pending_push_send_facts owner to cardinal_owner;

comment on view cardinal.report_pending_push_send_facts is
    'The unfolded non-control push sends as report_push_send_state rows, with the group''s columns instead '
    'of group_id.';


create view cardinal.report_push_send_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, p.user_key, p.times
from cardinal.report_push_send_state as p
join cardinal.report_groups as g on g.group_id = p.group_id
union all
select * from cardinal.report_pending_push_send_facts;

alter view cardinal.report_push_send_facts owner to cardinal_owner;

comment on view cardinal.report_push_send_facts is
    'Push send times per user in each report group: report_push_send_state and the unfolded events; a user '
    'may have a row on each side.';

-- The views' columns mean what the state's (or the group's) columns of the same name mean.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name,
               coalesce(pg_catalog.col_description('cardinal.report_push_send_state'::regclass,
                                                   (select c.attnum from pg_catalog.pg_attribute as c
                                                    where c.attrelid = 'cardinal.report_push_send_state'::regclass
                                                      and c.attname = a.attname)),
                        pg_catalog.col_description('cardinal.report_groups'::regclass,
                                                   (select c.attnum from pg_catalog.pg_attribute as c
                                                    where c.attrelid = 'cardinal.report_groups'::regclass
                                                      and c.attname = a.attname))) as description
        from unnest(array['report_pending_push_send_facts', 'report_push_send_facts']) as v (view_name)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- Part of the fold, as 0027's fold_report_dismissals: before fold_report_user_state moves the watermark.
create function cardinal.fold_report_push_sends()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- As in fold_report_state (0015): the unfolded events are never analyzed; hash joins are right.
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
begin
    insert into cardinal.report_groups
        (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version,
         test)
    select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
           app_version, test
    from cardinal.report_pending_push_send_facts
    order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict do nothing;

    insert into cardinal.report_push_send_state as p
    select g.group_id, f.user_key, f.times
    from cardinal.report_pending_push_send_facts as f
    -- '' stands for NULL, as in the fold of 0015.
    join cardinal.report_groups as g
        on g.app_id = f.app_id
               and coalesce(g.campaign_id, '') = coalesce(f.campaign_id, '')
               and coalesce(g.canvas_id, '') = coalesce(f.canvas_id, '')
               and coalesce(g.canvas_step_id, '') = coalesce(f.canvas_step_id, '')
               and coalesce(g.variant_id, '') = coalesce(f.variant_id, '')
               and g.channel = f.channel
               and coalesce(g.platform, '') = coalesce(f.platform, '')
               and coalesce(g.sdk_version, '') = coalesce(f.sdk_version, '')
               and coalesce(g.app_version, '') = coalesce(f.app_version, '')
               and g.test = f.test
    order by 1, 2
    on conflict (group_id, user_key) do update set
        times = p.times || excluded.times;
end
$function$;

alter function cardinal.fold_report_push_sends() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_push_sends() from public;

comment on function cardinal.fold_report_push_sends() is
    'Folds the unfolded non-control push sends into report_push_send_state. Part of fold_report_state(), '
    'which holds the state lock and moves the watermark; not to be called alone.';


-- 0027's fold_report_state (0025's work_mem, the dismissals step) with the push sends step added.
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
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    return cardinal.fold_report_user_state();
end
$function$;


-- Deleting a user's state (erasure, requeue) deletes its push sends in the same groups.
create function cardinal.forget_report_push_sends()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_push_send_state as p
    using (select distinct group_id, user_key from forgotten) as f
    where p.group_id = f.group_id and p.user_key = f.user_key;
    return null;
end
$function$;

alter function cardinal.forget_report_push_sends() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_push_sends() from public;

comment on function cardinal.forget_report_push_sends() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_push_send_state rows '
    'in the same report groups.';

create trigger report_user_state_forget_push_sends
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_push_sends();

comment on trigger report_user_state_forget_push_sends on cardinal.report_user_state is
    'Keeps report_push_send_state equal to what report_user_state holds (0029).';


-- Influenced opens per push row of the unique-impressions report, from the report state. A user counts in a
-- row (and breakdown value) when one of its push sends there has a report day in the range and a session
-- start of the same app in [send, send + window], and it has no direct open (push click) there in the range.
create function cardinal.push_opens(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns table (
        app_name         text,
        campaign_id      text,
        canvas_id        text,
        canvas_step_id   text,
        variant_id       text,
        breakdown        text,
        influenced_opens bigint
    )
    language sql
    stable
as $function$
    with sends as (
        select a.name as app_name, f.app_id, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id,
               case push_opens.by
                   when 'day' then to_char(local.day, 'YYYY-MM-DD')
                   when 'platform' then f.platform
                   when 'sdk_version' then f.sdk_version
                   when 'app_version' then f.app_version
               end as breakdown,
               f.user_key, sent.at,
               coalesce(s.influenced_open_window, interval '12 hours') as window_length
        from cardinal.apps as a
        join cardinal.report_push_send_facts as f on f.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = f.app_id and s.campaign_id = f.campaign_id
        cross join lateral unnest(f.times) as sent (at)
        cross join lateral (
            select (sent.at at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(push_opens.from_date, push_opens.to_date)
          and cardinal.check_report_dimension(push_opens.by)
          and (push_opens.app is null or a.name = push_opens.app)
          and (push_opens.campaign is null or f.campaign_id = push_opens.campaign)
          and (push_opens.include_test or not f.test)
          and local.day between push_opens.from_date and push_opens.to_date
    ),
    direct_openers as (
        select a.name as app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id,
               case push_opens.by
                   when 'day' then to_char(d.day, 'YYYY-MM-DD')
                   when 'platform' then u.platform
                   when 'sdk_version' then u.sdk_version
                   when 'app_version' then u.app_version
               end as breakdown,
               u.user_key
        from cardinal.apps as a
        join cardinal.report_user_facts as u on u.app_id = a.app_id
        cross join lateral unnest(u.click_days) as d (day)
        where u.channel = 'push'
          and (push_opens.app is null or a.name = push_opens.app)
          and (push_opens.campaign is null or u.campaign_id = push_opens.campaign)
          and (push_opens.include_test or not u.test)
          and d.day between push_opens.from_date and push_opens.to_date
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    app_opens as (
        select c.app_id, c.user_key, opened.at
        from cardinal.report_conversion_facts as c
        cross join lateral unnest(c.times) as opened (at)
        where c.conversion_name = cardinal.session_start_state_name()
          and (push_opens.include_test or not c.test)
    ),
    influenced as (
        select distinct s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.variant_id, s.breakdown,
               s.user_key
        from sends as s
        where exists (select from app_opens as o
                      where o.app_id = s.app_id and o.user_key = s.user_key
                        and o.at between s.at and s.at + s.window_length)
    )
    select i.app_name, i.campaign_id, i.canvas_id, i.canvas_step_id, i.variant_id, i.breakdown, count(*)
    from influenced as i
    where not exists (
        select from direct_openers as d
        where d.app_name = i.app_name
          and d.campaign_id is not distinct from i.campaign_id
          and d.canvas_id is not distinct from i.canvas_id
          and d.canvas_step_id is not distinct from i.canvas_step_id
          and d.variant_id is not distinct from i.variant_id
          and d.breakdown is not distinct from i.breakdown
          and d.user_key = i.user_key
    )
    group by 1, 2, 3, 4, 5, 6;
$function$;

alter function cardinal.push_opens(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.push_opens(text, date, date, boolean, text, text) to cardinal_reader;

comment on function cardinal.push_opens(text, date, date, boolean, text, text) is
    'Influenced opens of each push row of unique_impressions (same arguments and row keys; channel is push), '
    'from the report state: users with a push send whose report day is in the range and an app open '
    '(session_start) within the campaign''s influenced_open_window (12 hours when not set) after it, and no '
    'direct open (push click) in the row in the range. Rows without one are left out.';


-- The same from the raw events.
create function cardinal.push_opens_reference(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    by           text    default null
)
    returns table (
        app_name         text,
        campaign_id      text,
        canvas_id        text,
        canvas_step_id   text,
        variant_id       text,
        breakdown        text,
        influenced_opens bigint
    )
    language sql
    stable
as $function$
    with scoped as (
        select a.name as app_name, e.app_id, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id,
               case push_opens_reference.by
                   when 'day' then to_char(local.day, 'YYYY-MM-DD')
                   when 'platform' then e.platform
                   when 'sdk_version' then e.sdk_version
                   when 'app_version' then e.app_version
               end as breakdown,
               e.type, e.user_key, e.time,
               coalesce(s.influenced_open_window, interval '12 hours') as window_length
        from cardinal.apps as a
        join cardinal.events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(push_opens_reference.from_date, push_opens_reference.to_date)
          and cardinal.check_report_dimension(push_opens_reference.by)
          and (push_opens_reference.app is null or a.name = push_opens_reference.app)
          and (push_opens_reference.campaign is null or e.campaign_id = push_opens_reference.campaign)
          and e.channel = 'push'
          and e.type in ('send', 'click')
          and not e.control
          and (push_opens_reference.include_test or not e.test)
          and local.day between push_opens_reference.from_date and push_opens_reference.to_date
    )
    select s.app_name, s.campaign_id, s.canvas_id, s.canvas_step_id, s.variant_id, s.breakdown,
           count(distinct s.user_key)
    from scoped as s
    where s.type = 'send'
      and exists (select from cardinal.events as o
                  where o.app_id = s.app_id and o.user_key = s.user_key and o.type = 'session_start'
                    and (push_opens_reference.include_test or not o.test)
                    and o.time between s.time and s.time + s.window_length)
      and not exists (select from scoped as d
                      where d.type = 'click'
                        and d.app_name = s.app_name
                        and d.campaign_id is not distinct from s.campaign_id
                        and d.canvas_id is not distinct from s.canvas_id
                        and d.canvas_step_id is not distinct from s.canvas_step_id
                        and d.variant_id is not distinct from s.variant_id
                        and d.breakdown is not distinct from s.breakdown
                        and d.user_key = s.user_key)
    group by 1, 2, 3, 4, 5, 6;
$function$;

alter function cardinal.push_opens_reference(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.push_opens_reference(text, date, date, boolean, text, text)
    to cardinal_reader;

comment on function cardinal.push_opens_reference(text, date, date, boolean, text, text) is
    'Reference implementation of push_opens over the raw events: the same arguments and rows, computed '
    'without the report state. Slow on large apps; for checking numbers and tests.';


-- The report gains the push columns at the end; 0025's body keeps another name. (The reference cannot be
-- renamed the same way: its SQL body names its arguments by the function's name, so it is made again.)
alter function cardinal.unique_impressions(text, date, date, boolean, text, text)
    rename to unique_impressions_of_0025;

comment on function cardinal.unique_impressions_of_0025(text, date, date, boolean, text, text) is
    'The 19 columns of unique_impressions before the push columns (0025). unique_impressions adds them.';

create function cardinal.unique_impressions(
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
        unique_dismissal_rate    double precision,
        direct_opens             bigint,
        unique_direct_opens      bigint,
        influenced_opens         bigint,
        total_opens              bigint,
        direct_open_rate         double precision,
        total_open_rate          double precision
    )
    language sql
    stable
as $function$
    select r.*,
           case when r.channel = 'push' then r.clicks end,
           case when r.channel = 'push' then r.unique_clicks end,
           case when r.channel = 'push' then coalesce(p.influenced_opens, 0) end,
           case when r.channel = 'push' then r.unique_clicks + coalesce(p.influenced_opens, 0) end,
           case when r.channel = 'push' then r.unique_clicks::double precision / nullif(r.unique_recipients, 0) end,
           case when r.channel = 'push'
                then (r.unique_clicks + coalesce(p.influenced_opens, 0))::double precision
                     / nullif(r.unique_recipients, 0)
           end
    from cardinal.unique_impressions_of_0025(app, from_date, to_date, include_test, campaign, by) as r
    -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed.
    left join cardinal.push_opens(app, from_date, to_date, include_test, campaign, by) as p
        on r.channel = 'push'
       and p.app_name = r.app_name
       and coalesce(p.campaign_id, '') = coalesce(r.campaign_id, '')
       and coalesce(p.canvas_id, '') = coalesce(r.canvas_id, '')
       and coalesce(p.canvas_step_id, '') = coalesce(r.canvas_step_id, '')
       and coalesce(p.variant_id, '') = coalesce(r.variant_id, '')
       and coalesce(p.breakdown, '') = coalesce(r.breakdown, '')
    order by r.app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel, r.breakdown;
$function$;

alter function cardinal.unique_impressions(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions(text, date, date, boolean, text, text) to cardinal_reader;

comment on function cardinal.unique_impressions(text, date, date, boolean, text, text) is
    'Unique-impressions report: one row per app × campaign (or canvas step) × variant × channel (× the '
    'breakdown: by => day, platform, sdk_version or app_version) over the report days from_date..to_date '
    '(both included) in each campaign''s report time zone, read from the report state. app NULL = every '
    'app; campaign NULL = every campaign and canvas step. Users are user_key; control and (unless '
    'include_test) test events are left out. unique_impressions counts a user once in the range, '
    'unique_daily_impressions once per day; rates are NULL when their divisor is 0. The last six columns '
    '(0029) are for push and NULL on other channels: direct_opens and unique_direct_opens are the clicks, '
    'influenced_opens the users who opened the app within the influenced_open_window after a send without '
    'a direct open (push_opens), total_opens = unique_direct_opens + influenced_opens, and both open rates '
    'divide by unique_recipients. Definitions in SQL/migrations/0010_unique_impressions.sql and 0029; '
    'unique_impressions_reference computes the same from raw events.';

drop function cardinal.unique_impressions_reference(text, date, date, boolean, text, text);

create function cardinal.unique_impressions_reference(
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
        unique_dismissal_rate    double precision,
        direct_opens             bigint,
        unique_direct_opens      bigint,
        influenced_opens         bigint,
        total_opens              bigint,
        direct_open_rate         double precision,
        total_open_rate          double precision
    )
    language sql
    stable
as $function$
    with scoped as (
        select a.name as app_name, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.channel, e.type,
               e.user_key, local.day,
               case unique_impressions_reference.by
                   when 'day' then to_char(local.day, 'YYYY-MM-DD')
                   when 'platform' then e.platform
                   when 'sdk_version' then e.sdk_version
                   when 'app_version' then e.app_version
               end as breakdown
        from cardinal.apps as a
        join cardinal.events as e on e.app_id = a.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
        ) as local
        where cardinal.check_report_range(unique_impressions_reference.from_date, unique_impressions_reference.to_date)
          and cardinal.check_report_dimension(unique_impressions_reference.by)
          and (unique_impressions_reference.app is null or a.name = unique_impressions_reference.app)
          and (e.campaign_id is not null or e.canvas_step_id is not null)
          and (unique_impressions_reference.campaign is null or e.campaign_id = unique_impressions_reference.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and not e.control
          and (unique_impressions_reference.include_test or not e.test)
          and e.time >= (unique_impressions_reference.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (unique_impressions_reference.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between unique_impressions_reference.from_date and unique_impressions_reference.to_date
    ),
    -- 0016's counts, with the influenced opens of push rows beside them.
    counted as (
        select c.app_name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel, c.breakdown,
               count(*) filter (where c.type = 'impression') as impressions,
               count(distinct c.user_key) filter (where c.type = 'impression') as unique_impressions,
               count(distinct (c.day, c.user_key)) filter (where c.type = 'impression') as unique_daily_impressions,
               count(distinct (c.day, c.user_key)) filter (
                   where case when c.channel in ('content_card', 'in_app_message') then c.type = 'impression'
                              else c.type = 'send' end
               ) as unique_recipients,
               count(*) filter (where c.type = 'click') as clicks,
               count(distinct c.user_key) filter (where c.type = 'click') as unique_clicks,
               count(*) filter (where c.type = 'dismissal') as dismissals,
               count(distinct c.user_key) filter (where c.type = 'dismissal') as unique_dismissals,
               min(p.influenced_opens) filter (where c.channel = 'push') as influenced_opens
        from scoped as c
        left join cardinal.push_opens_reference(unique_impressions_reference.app, unique_impressions_reference.from_date,
                                                unique_impressions_reference.to_date,
                                                unique_impressions_reference.include_test,
                                                unique_impressions_reference.campaign,
                                                unique_impressions_reference.by) as p
            on c.channel = 'push'
           and p.app_name = c.app_name
           and p.campaign_id is not distinct from c.campaign_id
           and p.canvas_id is not distinct from c.canvas_id
           and p.canvas_step_id is not distinct from c.canvas_step_id
           and p.variant_id is not distinct from c.variant_id
           and p.breakdown is not distinct from c.breakdown
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    opened as (
        select c.*, case when c.channel = 'push' then coalesce(c.influenced_opens, 0) end as influenced
        from counted as c
    )
    select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
           impressions, unique_impressions, unique_daily_impressions, unique_recipients,
           clicks, unique_clicks, dismissals, unique_dismissals,
           clicks::double precision / nullif(impressions, 0),
           unique_clicks::double precision / nullif(unique_impressions, 0),
           dismissals::double precision / nullif(impressions, 0),
           unique_dismissals::double precision / nullif(unique_impressions, 0),
           case when channel = 'push' then clicks end,
           case when channel = 'push' then unique_clicks end,
           influenced,
           unique_clicks + influenced,
           case when channel = 'push' then unique_clicks::double precision / nullif(unique_recipients, 0) end,
           (unique_clicks + influenced)::double precision / nullif(unique_recipients, 0)
    from opened
    order by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown;
$function$;

alter function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text)
    to cardinal_reader;

comment on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) is
    'Reference implementation of unique_impressions over the raw events (0010, 0029): the same arguments '
    'and rows, computed without the report state. Slow on large apps; for checking numbers and tests.';


-- Stored runs keep the push columns too; rows of runs before 0029 and of other channels have NULL.
alter table cardinal.report_unique_impressions
    add column direct_opens        bigint,
    add column unique_direct_opens bigint,
    add column influenced_opens    bigint,
    add column total_opens         bigint,
    add column direct_open_rate    double precision,
    add column total_open_rate     double precision;

comment on column cardinal.report_unique_impressions.direct_opens is
    'Push only: direct opens (push clicks); NULL on other channels and in runs stored before 0029.';
comment on column cardinal.report_unique_impressions.unique_direct_opens is
    'Push only: users with a direct open; NULL on other channels and in runs stored before 0029.';
comment on column cardinal.report_unique_impressions.influenced_opens is
    'Push only: users who opened the app within the influenced-open window after a send without a direct '
    'open; NULL on other channels and in runs stored before 0029.';
comment on column cardinal.report_unique_impressions.total_opens is
    'Push only: unique_direct_opens + influenced_opens; NULL on other channels and in runs stored before 0029.';
comment on column cardinal.report_unique_impressions.direct_open_rate is
    'Push only: unique_direct_opens / unique_recipients; NULL without recipients, on other channels and in '
    'runs stored before 0029.';
comment on column cardinal.report_unique_impressions.total_open_rate is
    'Push only: total_opens / unique_recipients; NULL without recipients, on other channels and in runs '
    'stored before 0029.';

-- r.* was expanded when 0013 made the view: make it again to show the new columns.
create or replace view cardinal.latest_unique_impressions as
    select r.*
    from cardinal.report_unique_impressions as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;

do $comments$
declare
    col record;
begin
    for col in
        select a.attname, pg_catalog.col_description(a.attrelid, a.attnum) as description
        from pg_catalog.pg_attribute as a
        where a.attrelid = 'cardinal.report_unique_impressions'::regclass
          and a.attname in ('direct_opens', 'unique_direct_opens', 'influenced_opens', 'total_opens',
                            'direct_open_rate', 'total_open_rate')
    loop
        execute format('comment on column cardinal.latest_unique_impressions.%I is %L', col.attname,
                       col.description);
    end loop;
end
$comments$;


grant select on cardinal.report_push_send_state, cardinal.report_pending_push_send_facts,
    cardinal.report_push_send_facts to cardinal_reader;


-- Push sends folded before this migration have no times yet: the state of every app is made again (the
-- reports stay exact meanwhile: they count the queue).
select cardinal.requeue_report_state(a.app_id) from cardinal.apps as a order by a.app_id;
