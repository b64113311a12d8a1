-- 0015_report_state.sql — report state: per-user facts folded from every stored event, which the reports
-- read instead of scanning raw events (issue 8).
--
-- Design notes (why, not what):
--
-- * One row per user and report group. A report group (report_groups) is everything a report groups or
--   filters events by except the user and the day: app, campaign or canvas step, variant, channel,
--   platform, SDK and app version, and the test flag. Groups are few (thousands); keying the per-user rows
--   by a small group_id keeps their index narrow. Every report grouping (campaign × variant × channel,
--   by platform, by version, the anomaly groups) is a roll-up of groups, so one shape serves them all.
--
-- * Per user and group, each kind of event keeps the sorted report days it happened on and how many
--   events fell on each day (two parallel arrays). Unique and unique-daily counts over any range of report
--   days are then exact (a user counts when one of its days is in the range; a (user, day) pair once),
--   totals are sums, and the rows are far fewer than the events: repeated impressions, sessions and
--   duplicate kinds collapse. The first time of each kind of exposure is kept for the control report.
--
-- * Report days are local days in the campaign's report time zone (campaign_settings, else the app's).
--   When a zone changes, the triggers at the end re-fold the affected state from the raw events, so the
--   state always equals a fresh computation. The other settings (conversion event and window, expected
--   split) are applied when a report runs: the state does not depend on them.
--
-- * Folded in the writer's transaction by a statement trigger on cardinal.events whose transition table
--   holds exactly the rows that INSERT … ON CONFLICT DO NOTHING stored: duplicates and retries never count
--   twice, a report sees every acknowledged event, and every way of storing events (the daemon, the
--   bench seed, psql) keeps the state. Rows are upserted in key order so concurrent writers wait for each
--   other instead of deadlocking.
--
-- * The user key is the state's only identity column, so a later identity merge can re-key one device's
--   rows (merge its arrays into the user's) without a rebuild.
--
-- * Rebuilds (refold_report_state) and the fold exclude each other per app with an advisory lock: the fold
--   takes it shared, a rebuild exclusive, so a rebuild never misses or double-counts a concurrent batch.


create table cardinal.report_groups (
    group_id       bigint generated always as identity,
    app_id         bigint  not null,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    variant_id     text,
    channel        text    not null,
    platform       text,
    sdk_version    text,
    app_version    text,
    test           boolean not null,

    constraint report_groups_pkey primary key (group_id),
    constraint report_groups_key unique nulls not distinct (
        app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
        app_version, test
    )
);

alter table cardinal.report_groups owner to cardinal_owner;

comment on table cardinal.report_groups is
    'Report groups of the report state: each distinct app × message source × variant × channel × platform × '
    'SDK version × app version × test flag that stored events have had. Made by the fold; never deleted, so '
    'a group_id stays valid.';
comment on column cardinal.report_groups.group_id is 'Identity of the group; report_user_state refers to it.';
comment on column cardinal.report_groups.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_groups.campaign_id is 'Campaign of the events; NULL for canvas steps.';
comment on column cardinal.report_groups.canvas_id is 'Canvas of the events; NULL for campaigns.';
comment on column cardinal.report_groups.canvas_step_id is 'Canvas step of the events; NULL for campaigns.';
comment on column cardinal.report_groups.variant_id is 'Variant of the events as sent (control events included).';
comment on column cardinal.report_groups.channel is 'Channel of the events.';
comment on column cardinal.report_groups.platform is 'Platform of the events, NULL when not sent.';
comment on column cardinal.report_groups.sdk_version is 'SDK version of the events, NULL when not sent.';
comment on column cardinal.report_groups.app_version is 'App version of the events, NULL when not sent.';
comment on column cardinal.report_groups.test is 'Whether the events are test events.';


create table cardinal.report_user_state (
    group_id                    bigint not null,
    user_key                    text   not null,
    impression_days             date[],
    impression_counts           integer[],
    click_days                  date[],
    click_counts                integer[],
    dismissal_days              date[],
    dismissal_counts            integer[],
    send_days                   date[],
    send_counts                 integer[],
    control_impression_days     date[],
    control_impression_counts   integer[],
    control_send_days           date[],
    control_send_counts         integer[],
    first_impression_at         timestamptz,
    first_send_at               timestamptz,
    first_control_impression_at timestamptz,
    first_control_send_at       timestamptz,

    constraint report_user_state_pkey primary key (group_id, user_key)
);

alter table cardinal.report_user_state owner to cardinal_owner;

comment on table cardinal.report_user_state is
    'Report state: what each user did in each report group, folded from the stored events (0015). The '
    'unique-impressions and control reports read it instead of the raw events. *_days are the sorted '
    'report days (campaign''s report time zone) with at least one such event, *_counts the number of events '
    'on each of those days, in the same order; NULL when there was none.';
comment on column cardinal.report_user_state.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_user_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_user_state.impression_days is 'Report days with impressions (not control).';
comment on column cardinal.report_user_state.impression_counts is 'Impressions on each of impression_days.';
comment on column cardinal.report_user_state.click_days is 'Report days with clicks.';
comment on column cardinal.report_user_state.click_counts is 'Clicks on each of click_days.';
comment on column cardinal.report_user_state.dismissal_days is 'Report days with dismissals.';
comment on column cardinal.report_user_state.dismissal_counts is 'Dismissals on each of dismissal_days.';
comment on column cardinal.report_user_state.send_days is 'Report days with sends (not control).';
comment on column cardinal.report_user_state.send_counts is 'Sends on each of send_days.';
comment on column cardinal.report_user_state.control_impression_days is 'Report days with control impressions.';
comment on column cardinal.report_user_state.control_impression_counts is
    'Control impressions on each of control_impression_days.';
comment on column cardinal.report_user_state.control_send_days is 'Report days with control sends.';
comment on column cardinal.report_user_state.control_send_counts is 'Control sends on each of control_send_days.';
comment on column cardinal.report_user_state.first_impression_at is 'Time of the first impression (not control).';
comment on column cardinal.report_user_state.first_send_at is 'Time of the first send (not control).';
comment on column cardinal.report_user_state.first_control_impression_at is 'Time of the first control impression.';
comment on column cardinal.report_user_state.first_control_send_at is 'Time of the first control send.';


create table cardinal.report_conversion_state (
    app_id          bigint        not null,
    user_key        text          not null,
    conversion_name text          not null,
    test            boolean       not null,
    times           timestamptz[] not null,

    constraint report_conversion_state_pkey primary key (app_id, user_key, conversion_name, test)
);

alter table cardinal.report_conversion_state owner to cardinal_owner;

comment on table cardinal.report_conversion_state is
    'Report state of conversions: the sorted times of each user''s conversions of each name, folded from '
    'the stored events (0015). The control report looks converters up here.';
comment on column cardinal.report_conversion_state.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_conversion_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_conversion_state.conversion_name is 'Name of the conversion event.';
comment on column cardinal.report_conversion_state.test is 'Whether these are test events.';
comment on column cardinal.report_conversion_state.times is 'Event times of the conversions, ascending.';


-- Merging two day sets keeps the days sorted and adds the counts of a day present in both.
create function cardinal.merge_day_counts(
    days        date[],
    counts      integer[],
    more_days   date[],
    more_counts integer[],
    out merged_days   date[],
    out merged_counts integer[]
)
    language sql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
    select array_agg(day order by day), array_agg(n order by day)
    from (
        select day, sum(n)::integer as n
        from (
            select * from unnest(days, counts)
            union all
            select * from unnest(more_days, more_counts)
        ) as both_sets (day, n)
        where day is not null
        group by day
    ) as merged;
$function$;

alter function cardinal.merge_day_counts(date[], integer[], date[], integer[]) owner to cardinal_owner;

comment on function cardinal.merge_day_counts(date[], integer[], date[], integer[]) is
    'Union of two (sorted days, counts per day) pairs of report_user_state: sorted days, counts added for a '
    'day in both. NULLs when both are empty.';


create function cardinal.merge_times(times timestamptz[], more_times timestamptz[])
    returns timestamptz[]
    language sql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
    select array_agg(t order by t) from unnest(times || more_times) as t;
$function$;

alter function cardinal.merge_times(timestamptz[], timestamptz[]) owner to cardinal_owner;

comment on function cardinal.merge_times(timestamptz[], timestamptz[]) is
    'Both arrays of times as one ascending array (report_conversion_state.times).';


-- The advisory lock key that serialises rebuilds of an app's state against the fold.
create function cardinal.report_state_lock_key(app_id bigint)
    returns bigint
    language sql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
    select hashtextextended('cardinal.report_state', app_id);
$function$;

alter function cardinal.report_state_lock_key(bigint) owner to cardinal_owner;

comment on function cardinal.report_state_lock_key(bigint) is
    'Advisory lock key of an app''s report state: the fold takes it shared, refold_report_state exclusive.';


-- The fold, as three statements over a relation of events (the trigger's transition table, or a query
-- over cardinal.events for a rebuild). It is text run with EXECUTE because a transition table is only
-- visible to the trigger function's own statements: both callers run exactly the same SQL.
create function cardinal.report_state_fold_statements(source text)
    returns text[]
    language sql
    immutable
    set search_path = pg_catalog, pg_temp
as $function$
    select array[
        -- 1. The groups not seen before, in key order (concurrent batches wait instead of deadlocking).
        format($sql$
            insert into cardinal.report_groups
                (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
                 app_version, test)
            select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform,
                   sdk_version, app_version, test
            from %s as e
            where e.type <> 'conversion'
            order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
            on conflict do nothing
        $sql$, source),
        -- 2. Per user and group: days and counts of each kind, first exposure times; merged into the rows
        --    already there.
        format($sql$
            with per_day as (
                select g.group_id, e.user_key, e.type, e.control,
                       (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day,
                       count(*)::integer as n,
                       min(e.time) as first_time
                from %s as e
                join cardinal.apps as a on a.app_id = e.app_id
                left join cardinal.campaign_settings as s
                    on s.app_id = e.app_id and s.campaign_id = e.campaign_id
                -- '' stands for NULL: no key column can hold an empty string (0005's CHECKs), and
                -- equality on it can be hashed where IS NOT DISTINCT FROM cannot.
                join cardinal.report_groups as g
                    on g.app_id = e.app_id
                   and coalesce(g.campaign_id, '') = coalesce(e.campaign_id, '')
                   and coalesce(g.canvas_id, '') = coalesce(e.canvas_id, '')
                   and coalesce(g.canvas_step_id, '') = coalesce(e.canvas_step_id, '')
                   and coalesce(g.variant_id, '') = coalesce(e.variant_id, '')
                   and g.channel = e.channel
                   and coalesce(g.platform, '') = coalesce(e.platform, '')
                   and coalesce(g.sdk_version, '') = coalesce(e.sdk_version, '')
                   and coalesce(g.app_version, '') = coalesce(e.app_version, '')
                   and g.test = e.test
                where e.type <> 'conversion'
                group by 1, 2, 3, 4, 5
            )
            insert into cardinal.report_user_state as u
            select group_id, user_key,
                   array_agg(day order by day) filter (where type = 'impression' and not control),
                   array_agg(n order by day) filter (where type = 'impression' and not control),
                   array_agg(day order by day) filter (where type = 'click'),
                   array_agg(n order by day) filter (where type = 'click'),
                   array_agg(day order by day) filter (where type = 'dismissal'),
                   array_agg(n order by day) filter (where type = 'dismissal'),
                   array_agg(day order by day) filter (where type = 'send' and not control),
                   array_agg(n order by day) filter (where type = 'send' and not control),
                   array_agg(day order by day) filter (where type = 'impression' and control),
                   array_agg(n order by day) filter (where type = 'impression' and control),
                   array_agg(day order by day) filter (where type = 'send' and control),
                   array_agg(n order by day) filter (where type = 'send' and control),
                   min(first_time) filter (where type = 'impression' and not control),
                   min(first_time) filter (where type = 'send' and not control),
                   min(first_time) filter (where type = 'impression' and control),
                   min(first_time) filter (where type = 'send' and control)
            from per_day
            group by group_id, user_key
            order by group_id, user_key
            on conflict (group_id, user_key) do update set
                (impression_days, impression_counts) = (
                    select * from cardinal.merge_day_counts(u.impression_days, u.impression_counts,
                                                            excluded.impression_days, excluded.impression_counts)),
                (click_days, click_counts) = (
                    select * from cardinal.merge_day_counts(u.click_days, u.click_counts,
                                                            excluded.click_days, excluded.click_counts)),
                (dismissal_days, dismissal_counts) = (
                    select * from cardinal.merge_day_counts(u.dismissal_days, u.dismissal_counts,
                                                            excluded.dismissal_days, excluded.dismissal_counts)),
                (send_days, send_counts) = (
                    select * from cardinal.merge_day_counts(u.send_days, u.send_counts,
                                                            excluded.send_days, excluded.send_counts)),
                (control_impression_days, control_impression_counts) = (
                    select * from cardinal.merge_day_counts(u.control_impression_days, u.control_impression_counts,
                                                            excluded.control_impression_days,
                                                            excluded.control_impression_counts)),
                (control_send_days, control_send_counts) = (
                    select * from cardinal.merge_day_counts(u.control_send_days, u.control_send_counts,
                                                            excluded.control_send_days, excluded.control_send_counts)),
                first_impression_at = least(u.first_impression_at, excluded.first_impression_at),
                first_send_at = least(u.first_send_at, excluded.first_send_at),
                first_control_impression_at = least(u.first_control_impression_at,
                                                    excluded.first_control_impression_at),
                first_control_send_at = least(u.first_control_send_at, excluded.first_control_send_at)
        $sql$, source),
        -- 3. Conversions, per user and name.
        format($sql$
            insert into cardinal.report_conversion_state as c (app_id, user_key, conversion_name, test, times)
            select app_id, user_key, conversion_name, test, array_agg(time order by time)
            from %s as e
            where e.type = 'conversion'
            group by 1, 2, 3, 4
            order by 1, 2, 3, 4
            on conflict (app_id, user_key, conversion_name, test) do update set
                times = cardinal.merge_times(c.times, excluded.times)
        $sql$, source)
    ];
$function$;

alter function cardinal.report_state_fold_statements(text) owner to cardinal_owner;

revoke execute on function cardinal.report_state_fold_statements(text) from public;

comment on function cardinal.report_state_fold_statements(text) is
    'The three statements that fold a relation of events (source: a relation name or a parenthesised query '
    'with the columns of cardinal.events) into report_groups, report_user_state and '
    'report_conversion_state. Run by the fold trigger and by refold_report_state.';


-- SECURITY DEFINER: the ingest role inserts events but has no privilege on the state tables; the fold
-- runs as their owner. It reads nothing but the transition table and the settings.
create function cardinal.fold_report_state()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    statement text;
begin
    perform pg_advisory_xact_lock_shared(cardinal.report_state_lock_key(app_id))
    from (select distinct app_id from stored order by app_id) as apps;
    foreach statement in array cardinal.report_state_fold_statements('stored') loop
        execute statement;
    end loop;
    return null;
end
$function$;

alter function cardinal.fold_report_state() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_state() from public;

comment on function cardinal.fold_report_state() is
    'Statement trigger of cardinal.events: folds the rows just stored (the transition table "stored") into '
    'the report state.';

create trigger events_fold_report_state
    after insert on cardinal.events
    referencing new table as stored
    for each statement
    execute function cardinal.fold_report_state();

comment on trigger events_fold_report_state on cardinal.events is
    'Keeps the report state (0015) equal to the stored events: folds every inserted row, in the same '
    'transaction.';


-- Rebuild from the raw events: after restoring a backup, after a fix to the fold, after a time zone change
-- or a retention drop. One campaign (or, campaign NULL, the whole app with its canvas steps and
-- conversions) at a time, under the app's exclusive lock, so batches of that app wait for it rather than
-- fold into state that is being replaced.
create function cardinal.refold_report_state(app_id bigint, campaign text default null)
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app constant bigint := refold_report_state.app_id;
    source text;
    statement text;
    folded bigint;
begin
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key(target_app));
    delete from cardinal.report_user_state as u
    using cardinal.report_groups as g
    where g.group_id = u.group_id
      and g.app_id = target_app
      and (campaign is null or g.campaign_id = campaign);
    if campaign is null then
        delete from cardinal.report_conversion_state as c where c.app_id = target_app;
        source := format('(select * from cardinal.events where app_id = %s)', target_app);
    else
        source := format('(select * from cardinal.events where app_id = %s and campaign_id = %L)',
                         target_app, campaign);
    end if;
    foreach statement in array cardinal.report_state_fold_statements(source) loop
        execute statement;
    end loop;
    execute format('select count(*) from %s as e', source) into folded;
    return folded;
end
$function$;

alter function cardinal.refold_report_state(bigint, text) owner to cardinal_owner;

revoke execute on function cardinal.refold_report_state(bigint, text) from public;

comment on function cardinal.refold_report_state(bigint, text) is
    'Rebuilds the report state of one app (campaign NULL: every campaign, canvas step and conversion) or of '
    'one campaign from the raw events, and returns how many events it folded. Takes the app''s state lock '
    'exclusively: that app''s ingest batches wait until it commits. For members of cardinal_owner.';


-- A report time zone that changes moves events to other report days: re-fold what it affects.
create function cardinal.refold_on_time_zone_change()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if tg_table_name = 'apps' then
        if new.report_time_zone is distinct from old.report_time_zone then
            perform cardinal.refold_report_state(new.app_id);
        end if;
    elsif tg_op = 'DELETE' then
        if old.report_time_zone is not null then
            perform cardinal.refold_report_state(old.app_id, old.campaign_id);
        end if;
    elsif tg_op = 'INSERT' then
        if new.report_time_zone is not null then
            perform cardinal.refold_report_state(new.app_id, new.campaign_id);
        end if;
    elsif new.report_time_zone is distinct from old.report_time_zone then
        perform cardinal.refold_report_state(new.app_id, new.campaign_id);
    end if;
    return null;
end
$function$;

alter function cardinal.refold_on_time_zone_change() owner to cardinal_owner;

revoke execute on function cardinal.refold_on_time_zone_change() from public;

comment on function cardinal.refold_on_time_zone_change() is
    'Trigger of apps and campaign_settings: re-folds the report state of the app or campaign whose report '
    'time zone changed.';

create trigger apps_refold_on_time_zone_change
    after update of report_time_zone on cardinal.apps
    for each row
    execute function cardinal.refold_on_time_zone_change();

comment on trigger apps_refold_on_time_zone_change on cardinal.apps is
    'Re-folds the app''s report state when its report time zone changes.';

create trigger campaign_settings_refold_on_time_zone_change
    after insert or update or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.refold_on_time_zone_change();

comment on trigger campaign_settings_refold_on_time_zone_change on cardinal.campaign_settings is
    'Re-folds a campaign''s report state when its own report time zone is set, changed or removed.';


grant select on cardinal.report_groups, cardinal.report_user_state, cardinal.report_conversion_state
    to cardinal_reader;

grant execute on function
    cardinal.merge_day_counts(date[], integer[], date[], integer[]),
    cardinal.merge_times(timestamptz[], timestamptz[])
    to cardinal_reader;


-- Existing events: fold them once.
select cardinal.refold_report_state(a.app_id) from cardinal.apps as a order by a.app_id;
