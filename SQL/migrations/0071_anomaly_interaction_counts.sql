-- 0071_anomaly_interaction_counts.sql — the clicks and dismissals of the anomalies (click_without_impression,
-- dismissal_without_impression, control_interaction) are counted per finding group and day by the counting
-- trigger of 0069, instead of read from every acting user's rows (issue 8).
--
-- Design notes (why, not what):
--
-- * After 0069 the clicks and dismissals were most of anomalies_of_0017_from_counts: at 1 M events (the bench
--   seed, 1,800 finding groups, 76,078 acting users of 437,624 state rows; quiet machine, auto_explain) 0.85 of
--   its 1.06 s went to interaction_times, acting_users and step_exposures, which read every state row of the
--   acting users to find each step's first impression and each campaign's control exposure.
--
-- * Whether a click (dismissal) came without an impression does not depend on the report range: the reports
--   compare its time with the step's first impression before the end of the broad range (to + 2 days, UTC),
--   and a click of the range is always before that end (report days are local days, zones at most 12 hours
--   behind UTC), so a first impression after the end is after the click too. For a user never exposed to the
--   control arm of the campaign (canvas) no click is a control user's either. So for those users the trigger
--   keeps, per finding group of the three dismissible channels, 0025's day pairs of each user's click,
--   click_without_impression, dismissal and dismissal_without_impression days (report_interaction_day_users)
--   and the interactions per day (report_interaction_day_events).
--
-- * A user exposed to control in a campaign is a control user of a step only in ranges that end after the
--   control exposure and before the step's first impression: that depends on the range. Those users, when they
--   click or dismiss at all, are read apart: report_control_acting_users keeps them (none on the bench, where
--   control users never interact; a few where an integration shows control messages), the counts leave them
--   out, and the report judges them from their rows as 0057 did. control_interaction is counted from them
--   alone: only they can be control users.
--
-- * Pending (unfolded) events can move a step's first impression earlier (re-judging folded clicks) or expose a
--   user to control, so the users with pending events in a selected campaign are read apart too: their folded
--   contribution, made from their folded rows the way the trigger makes it, is taken off the counts, and their
--   interactions from their folded and pending rows are judged as for the control users.
--
-- * The report days of a click are its time's local days in the campaign's zone as the trigger finds it, not
--   stored in the row. When a zone changes, requeue_report_state deletes every state row of the app or campaign
--   and the trigger takes their clicks off in the new zone, which is not what it added: the zone trigger
--   (requeue_on_time_zone_change, replaced here) then clears the interaction counts of the app's or campaign's
--   finding groups, which are zero once their rows are gone, and the fold adds them again in the new zone.
--
-- * The trigger reads the touched users' rows once for both: the day pairs of 0069 (only for rows whose day
--   sets changed, as before) and the interactions (rows whose click or dismissal times, first impression or
--   first control exposures changed). A click changes no day set, so more of a fold's updates reach the
--   trigger than before.
--
-- * Measured in psql on the 1 M-event bench seed (anom1m: 0069 applied; quiet machine, jit off), against a copy
--   with this migration: anomalies_of_0017_from_counts for the app, 2026-11-04..12-03, 1,002 -> 144-171 ms
--   (147 rows, the same md5); 2026-11-10..16 520 -> 128 ms (53 rows, same md5); c17 51 -> 27-36 ms.
--   cardinal.anomalies for the app 2.57-2.62 -> 1.24-1.85 s with the rows' md5 computed, 0.95 s counted
--   (anomalies_since_0027 is 0.84 s of it now); c17 108-179 ms both. The migration took 3.6 s there: 28,983
--   pairs (3.2 MB), 28,755 day counts (3.1 MB), no control user who acts.
--
-- * The fold (scripts/bench/fold_steps.sql, freshly migrated databases, quiet machine): the user-state step
--   0.99 -> 1.06-1.08 s of a fresh fold of 50,000 events (total 4.65 -> 4.47-4.54 s), 7.70 -> 7.57-8.29 s of
--   the re-keyed one (34.8 -> 35.6-37.0 s). A first version took 1.69 and 10.8 s: 0069's upsert filter
--   compared every touched row with an array of one value per statement row (see the trigger).
--
-- * Rows, arguments and return types are 0033's.


-- A state row's clicks and dismissals as the interaction counts see them: one definition for the trigger, the
-- views that check it and the report's pending users.
create function cardinal.report_row_interactions(
    click_times              timestamp with time zone[],
    dismissal_times          timestamp with time zone[],
    time_zone                text,
    step_first_impression_at timestamp with time zone
)
    returns table (type text, day date, without_impression boolean)
    language sql
    immutable
as $function$
    select x.type, (x.time at time zone report_row_interactions.time_zone)::date,
           coalesce(report_row_interactions.step_first_impression_at > x.time, true)
    from (
        select 'click' as type, t as time from unnest(report_row_interactions.click_times) as t
        union all
        select 'dismissal', t from unnest(report_row_interactions.dismissal_times) as t
    ) as x
$function$;

alter function cardinal.report_row_interactions(timestamp with time zone[], timestamp with time zone[], text,
                                               timestamp with time zone)
    owner to cardinal_owner;

comment on function cardinal.report_row_interactions(timestamp with time zone[], timestamp with time zone[], text,
                                                    timestamp with time zone) is
    'The clicks and dismissals of a report_user_state row (0071): type (click or dismissal), report day (the '
    'local day in time_zone, the campaign''s or else the app''s) and whether it came without an impression '
    '(step_first_impression_at, the first impression of the user''s rows of the step, NULL or later).';


create table cardinal.report_interaction_day_users (
    finding_id   bigint not null,
    kind         text   not null,
    day          date   not null,
    previous_day date   not null,
    users        bigint not null,

    constraint report_interaction_day_users_pkey primary key (finding_id, kind, day, previous_day),
    constraint report_interaction_day_users_kind_known
        check (kind in ('click', 'click_without_impression', 'dismissal', 'dismissal_without_impression')),
    constraint report_interaction_day_users_order check (previous_day < day)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_interaction_day_users_emptied_idx
    on cardinal.report_interaction_day_users (finding_id)
    where users = 0;

alter table cardinal.report_interaction_day_users owner to cardinal_owner;

comment on table cardinal.report_interaction_day_users is
    'Report state of the anomalies report (0071): 0025''s day pairs per finding group (content cards, in-app '
    'messages and banners) of each user''s click, click_without_impression, dismissal and '
    'dismissal_without_impression days over the non-test report groups (report_row_interactions), for the users '
    'never exposed to the campaign''s (canvas''s) control arm. Distinct users of from..to = sum of users with day '
    'in from..to and previous_day < from. Kept by triggers on report_user_state.';
comment on column cardinal.report_interaction_day_users.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_interaction_day_users.kind is
    'click, click_without_impression, dismissal or dismissal_without_impression (before the step''s first '
    'impression, or in a step without one).';
comment on column cardinal.report_interaction_day_users.day is 'A report day with an interaction of the kind.';
comment on column cardinal.report_interaction_day_users.previous_day is
    'The user''s previous day of the kind in the finding group, -infinity for the first.';
comment on column cardinal.report_interaction_day_users.users is
    'How many users; a row that reaches 0 is deleted in the same statement.';
comment on index cardinal.report_interaction_day_users_emptied_idx is
    'The rows the last change brought to zero users, which the counting trigger deletes (0071).';


create table cardinal.report_interaction_day_events (
    finding_id                bigint not null,
    type                      text   not null,
    day                       date   not null,
    events                    bigint not null,
    events_without_impression bigint not null,

    constraint report_interaction_day_events_pkey primary key (finding_id, type, day),
    constraint report_interaction_day_events_type_known check (type in ('click', 'dismissal'))
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_interaction_day_events_emptied_idx
    on cardinal.report_interaction_day_events (finding_id)
    where events = 0;

alter table cardinal.report_interaction_day_events owner to cardinal_owner;

comment on table cardinal.report_interaction_day_events is
    'Report state of the anomalies report (0071): the clicks and dismissals per finding group (content cards, '
    'in-app messages and banners) and report day over the non-test report groups, of the users never exposed to '
    'the campaign''s (canvas''s) control arm, and how many came without an impression. Kept by triggers on '
    'report_user_state.';
comment on column cardinal.report_interaction_day_events.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_interaction_day_events.type is 'click or dismissal.';
comment on column cardinal.report_interaction_day_events.day is 'The report day.';
comment on column cardinal.report_interaction_day_events.events is
    'How many; a row that reaches 0 is deleted in the same statement.';
comment on column cardinal.report_interaction_day_events.events_without_impression is
    'How many of them came before the step''s first impression, or in a step without one.';
comment on index cardinal.report_interaction_day_events_emptied_idx is
    'The rows the last change brought to zero events, which the counting trigger deletes (0071).';


create table cardinal.report_control_acting_users (
    app_id      bigint not null,
    campaign_id text   not null,
    canvas_id   text   not null,
    user_key    text   not null,

    constraint report_control_acting_users_pkey primary key (app_id, campaign_id, canvas_id, user_key)
);

alter table cardinal.report_control_acting_users owner to cardinal_owner;

comment on table cardinal.report_control_acting_users is
    'Report state of the anomalies report (0071): the users of a campaign or canvas with a control impression or '
    'control send in any of its report groups (test ones too) and a click or dismissal in a non-test one. The '
    'interaction counts leave them out; the report judges their clicks and dismissals from their rows, for the '
    'range. Kept by triggers on report_user_state.';
comment on column cardinal.report_control_acting_users.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_control_acting_users.campaign_id is 'The campaign; '''' for a canvas.';
comment on column cardinal.report_control_acting_users.canvas_id is 'The canvas; '''' for a campaign.';
comment on column cardinal.report_control_acting_users.user_key is 'The user (events.user_key).';


-- What the state makes: the backfill and the tests read these; the trigger keeps the tables equal to them.
-- Each state row of a campaign or canvas with the user's first impression of its step and whether the user was
-- ever exposed to its control arm, over all the user's rows of the campaign (test ones too).
create view cardinal.report_interaction_rows as
select g.finding_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key, coalesce(g.canvas_id, '') as canvas_key,
       g.channel, g.test, u.user_key, u.click_times, u.dismissal_times,
       coalesce(s.report_time_zone, a.report_time_zone) as time_zone,
       min(u.first_impression_at) over (
           partition by g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, u.user_key
       ) as step_first_impression_at,
       bool_or(u.first_control_impression_at is not null or u.first_control_send_at is not null) over (
           partition by g.app_id, g.campaign_id, g.canvas_id, u.user_key
       ) as control_exposed
from cardinal.report_user_state as u
join cardinal.report_groups as g on g.group_id = u.group_id
join cardinal.apps as a on a.app_id = g.app_id
left join cardinal.campaign_settings as s on s.app_id = g.app_id and s.campaign_id = g.campaign_id
where g.campaign_id is not null or g.canvas_id is not null;

alter view cardinal.report_interaction_rows owner to cardinal_owner;

comment on view cardinal.report_interaction_rows is
    'The report_user_state rows of campaigns and canvases as the interaction counts read them (0071): with the '
    'report time zone of their clicks, the user''s first impression of the step and whether the user was ever '
    'exposed to control in the campaign (canvas), over all the user''s rows of it, test ones too.';
comment on column cardinal.report_interaction_rows.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_interaction_rows.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_interaction_rows.campaign_key is 'The campaign; '''' for a canvas.';
comment on column cardinal.report_interaction_rows.canvas_key is 'The canvas; '''' for a campaign.';
comment on column cardinal.report_interaction_rows.channel is 'The channel (events.channel).';
comment on column cardinal.report_interaction_rows.test is 'Whether the row counts test events.';
comment on column cardinal.report_interaction_rows.user_key is 'The user (events.user_key).';
comment on column cardinal.report_interaction_rows.click_times is 'report_user_state.click_times.';
comment on column cardinal.report_interaction_rows.dismissal_times is 'report_user_state.dismissal_times.';
comment on column cardinal.report_interaction_rows.time_zone is
    'The report time zone of the campaign, else of the app.';
comment on column cardinal.report_interaction_rows.step_first_impression_at is
    'The first impression of the user''s rows of the campaign or canvas step.';
comment on column cardinal.report_interaction_rows.control_exposed is
    'Whether any of the user''s rows of the campaign or canvas has a control impression or control send.';

create view cardinal.report_interaction_day_users_of_rows as
select p.finding_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.finding_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.finding_id, d.user_key, d.kind order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct r.finding_id, r.user_key, k.kind, x.day
        from cardinal.report_interaction_rows as r
        cross join cardinal.report_row_interactions(r.click_times, r.dismissal_times, r.time_zone,
                                                    r.step_first_impression_at) as x
        cross join lateral (
            select x.type as kind
            union all
            select x.type || '_without_impression'
            where x.without_impression
        ) as k
        where not r.test and not r.control_exposed and r.channel in ('content_card', 'in_app_message', 'banner')
    ) as d
) as p
group by 1, 2, 3, 4;

alter view cardinal.report_interaction_day_users_of_rows owner to cardinal_owner;

comment on view cardinal.report_interaction_day_users_of_rows is
    'report_interaction_day_users computed from report_user_state: what the trigger keeps the table equal to '
    '(0071).';

create view cardinal.report_interaction_day_events_of_rows as
select r.finding_id, x.type, x.day, count(*) as events,
       count(*) filter (where x.without_impression) as events_without_impression
from cardinal.report_interaction_rows as r
cross join cardinal.report_row_interactions(r.click_times, r.dismissal_times, r.time_zone,
                                            r.step_first_impression_at) as x
where not r.test and not r.control_exposed and r.channel in ('content_card', 'in_app_message', 'banner')
group by 1, 2, 3;

alter view cardinal.report_interaction_day_events_of_rows owner to cardinal_owner;

comment on view cardinal.report_interaction_day_events_of_rows is
    'report_interaction_day_events computed from report_user_state: what the trigger keeps the table equal to '
    '(0071).';

create view cardinal.report_control_acting_users_of_rows as
select distinct r.app_id, r.campaign_key as campaign_id, r.canvas_key as canvas_id, r.user_key
from cardinal.report_interaction_rows as r
where r.control_exposed and not r.test and (r.click_times is not null or r.dismissal_times is not null);

alter view cardinal.report_control_acting_users_of_rows owner to cardinal_owner;

comment on view cardinal.report_control_acting_users_of_rows is
    'report_control_acting_users computed from report_user_state: what the trigger keeps the table equal to '
    '(0071).';

-- The views' columns mean what the tables' do.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from (
            values ('report_interaction_day_users_of_rows', 'cardinal.report_interaction_day_users'::regclass),
                   ('report_interaction_day_events_of_rows', 'cardinal.report_interaction_day_events'::regclass),
                   ('report_control_acting_users_of_rows', 'cardinal.report_control_acting_users'::regclass)
        ) as v (view_name, state_table)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
        join pg_catalog.pg_attribute as t on t.attrelid = v.state_table and t.attname = a.attname
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- The counts are report state: the reader role reads them, as it reads every other (0008).
grant select on cardinal.report_interaction_day_users, cardinal.report_interaction_day_events,
                cardinal.report_control_acting_users, cardinal.report_interaction_rows,
                cardinal.report_interaction_day_users_of_rows, cardinal.report_interaction_day_events_of_rows,
                cardinal.report_control_acting_users_of_rows
    to cardinal_reader;


-- The counting trigger's query of the statement's changed rows, for the columns it counts.
create function cardinal.report_user_state_changes(operation text, counted_columns text[])
    returns text
    language sql
    immutable
as $function$
    select case report_user_state_changes.operation
        when 'INSERT' then format(
            'select n.group_id, n.user_key from added as n where %s',
            (select string_agg(format('n.%I is not null', c), ' or ')
             from unnest(report_user_state_changes.counted_columns) as c))
        when 'DELETE' then format(
            'select o.group_id, o.user_key from removed as o where %s',
            (select string_agg(format('o.%I is not null', c), ' or ')
             from unnest(report_user_state_changes.counted_columns) as c))
        else format(
            'select n.group_id, n.user_key from added as n
             where not exists (select from removed as o
                               where o.group_id = n.group_id and o.user_key = n.user_key and %1$s)
             union all
             select o.group_id, o.user_key from removed as o
             where not exists (select from added as n
                               where n.group_id = o.group_id and n.user_key = o.user_key and %1$s)',
            (select string_agg(format('o.%1$I is not distinct from n.%1$I', c), ' and ')
             from unnest(report_user_state_changes.counted_columns) as c))
    end
$function$;

alter function cardinal.report_user_state_changes(text, text[]) owner to cardinal_owner;

comment on function cardinal.report_user_state_changes(text, text[]) is
    'The query, for count_finding_day_users, of the statement''s report_user_state rows (group_id, user_key) in '
    'which counted_columns may have changed (0071): inserted (added) or deleted (removed) rows with any of them '
    'set, and for an update (operation UPDATE) the rows on either side whose row on the other side differs '
    'in one of them, or is missing.';


-- 0069's counting trigger, which now also keeps the interaction counts and the control users who act. The day
-- pairs of 0069 are made as before, for the rows whose day sets changed; the interactions for the users whose
-- rows' clicks, dismissals, first impressions or first control exposures changed, over all their rows of the
-- campaign (canvas).
create or replace function cardinal.count_finding_day_users()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- A transition table has no statistics: hash joins and aggregates whatever the estimates; the users' rows
    -- are found by index conditions on arrays, which take no join decision.
    set enable_nestloop = off
    set enable_mergejoin = off
    set jit = off
as $function$
declare
    -- The columns the counts read, as current_rows and the transition tables name them.
    counted constant text := 'group_id, user_key, impression_days, dismissal_days, control_impression_days, '
                             'send_days, control_send_days, first_impression_at, first_control_impression_at, '
                             'first_control_send_at, click_times, dismissal_times';
    -- The statement's rows whose counted days may have changed, on both sides of an update (one that moves a
    -- row to another user or group changes two users' or groups' days): an update that keeps a row's
    -- impression, dismissal, control impression, send and control send days is left out.
    day_changes text;
    -- The same for the interactions: the rows whose clicks, dismissals, first impression or first control
    -- exposures may have changed.
    interaction_changes text;
    -- The touched users' rows before and after the statement, from their rows now (current_rows) and the
    -- transition tables: see the note on upserts below.
    versions text;
begin
    -- An INSERT ... ON CONFLICT DO UPDATE (the fold's upserts) fires this trigger twice, once with the rows it
    -- inserted (I) and once with those it updated (old O, new N), each seeing the table after the whole
    -- statement (P - O + N + I, P the table before). Netted pairs add up, so the two firings are counted as
    -- the statement's two halves in a row, whichever fires first: the update from P to P - O + N, the insert
    -- from P - O + N to the end. The update's firing therefore leaves out I, which it cannot see: the rows of
    -- the touched users that the statement wrote (the same xmin and cmin as its own new rows, N) but that are
    -- not among its own. A plain UPDATE writes no such rows. The statement's rows share one xmin and cmin, so
    -- the array to compare with holds one value (0069's held one per row: searched once per touched row, it
    -- was a third of the trigger's time once clicks touched more users).
    versions := case tg_op
        when 'INSERT' then format(
            'select true as after, %1$s
             from current_rows as c
             union all
             select false, %1$s
             from current_rows as c
             where not exists (select from added as n where n.group_id = c.group_id and n.user_key = c.user_key)',
            counted)
        when 'DELETE' then format(
            'select true as after, %1$s
             from current_rows as c
             union all
             select false, %1$s
             from current_rows as c
             union all
             select false, %1$s
             from removed as o',
            counted)
        else format(
            'select true as after, %1$s
             from current_rows as c
             where not c.written_by = any(array(
                       select distinct w.written_by from current_rows as w
                       join added as n on n.group_id = w.group_id and n.user_key = w.user_key))
                or exists (select from added as n where n.group_id = c.group_id and n.user_key = c.user_key)
             union all
             select false, %1$s
             from current_rows as c
             where not c.written_by = any(array(
                       select distinct w.written_by from current_rows as w
                       join added as n on n.group_id = w.group_id and n.user_key = w.user_key))
             union all
             select false, %1$s
             from removed as o',
            counted)
    end;
    day_changes := cardinal.report_user_state_changes(
        tg_op,
        array['impression_days', 'dismissal_days', 'control_impression_days', 'send_days', 'control_send_days']);
    interaction_changes := cardinal.report_user_state_changes(
        tg_op,
        array['click_times', 'dismissal_times', 'first_impression_at', 'first_control_impression_at',
              'first_control_send_at']);
    execute format($statement$
        with day_changed as materialized (%1$s),
        interaction_changed as materialized (%2$s),
        -- The finding groups and campaigns (canvases) of the rows whose days changed, per user: the user's
        -- other rows of a campaign change only its campaign's counts and arms.
        touched_findings as materialized (
            select distinct g.finding_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key,
                   coalesce(g.canvas_id, '') as canvas_key, c.user_key
            from day_changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where not g.test and (g.campaign_id is not null or g.canvas_id is not null)
        ),
        -- The (app, campaign or canvas, user) whose day sets may have changed.
        touched_days as materialized (
            select distinct t.app_id, t.campaign_key, t.canvas_key, t.user_key
            from touched_findings as t
        ),
        -- The (app, campaign or canvas, user) whose interactions may have changed: a test row's first
        -- impression or control exposure judges the user's other rows of the campaign too.
        touched_interactions as materialized (
            select distinct g.app_id, coalesce(g.campaign_id, '') as campaign_key,
                   coalesce(g.canvas_id, '') as canvas_key, c.user_key
            from interaction_changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where g.campaign_id is not null or g.canvas_id is not null
        ),
        touched as materialized (
            select * from touched_days
            union
            select * from touched_interactions
        ),
        -- The touched users' rows now, with the transaction and command that wrote each.
        current_rows as materialized (
            select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.control_impression_days,
                   u.send_days, u.control_send_days, u.first_impression_at, u.first_control_impression_at,
                   u.first_control_send_at, u.click_times, u.dismissal_times,
                   u.xmin::text || ':' || u.cmin::text as written_by
            from cardinal.report_user_state as u
            where u.user_key = any(array(select distinct t.user_key from touched as t))
        ),
        -- Their rows of the touched sources before (after false) and after the statement.
        versions as materialized (
            select r.after, g.app_id, t.campaign_key, t.canvas_key, g.campaign_id, g.canvas_step_id, g.finding_id,
                   g.variant_id, g.channel, g.test, r.user_key, r.impression_days, r.dismissal_days,
                   r.control_impression_days, r.send_days, r.control_send_days, r.first_impression_at,
                   r.first_control_impression_at, r.first_control_send_at, r.click_times, r.dismissal_times
            from (%3$s
            ) as r
            join cardinal.report_groups as g on g.group_id = r.group_id
            join touched as t
                on t.app_id = g.app_id and t.campaign_key = coalesce(g.campaign_id, '')
               and t.canvas_key = coalesce(g.canvas_id, '') and t.user_key = r.user_key
        ),
        -- The versions of the non-test rows whose sources' days may have changed.
        day_versions as materialized (
            select v.*
            from versions as v
            join touched_days as t
                on t.app_id = v.app_id and t.campaign_key = v.campaign_key and t.canvas_key = v.canvas_key
               and t.user_key = v.user_key
            where not v.test
        ),
        -- Each version's pairs, netted below: +1 after, -1 before.
        pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct v.after, v.finding_id, v.user_key, k.kind, k.day
                from day_versions as v
                join touched_findings as t on t.finding_id = v.finding_id and t.user_key = v.user_key
                cross join cardinal.report_finding_kind_days(v.channel, v.impression_days, v.dismissal_days,
                                                             v.control_impression_days, v.send_days,
                                                             v.control_send_days) as k
                where k.day is not null
            ) as d
        ),
        source_pairs as (
            select d.after, d.app_id, d.campaign_key, d.canvas_key, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.app_id, d.campaign_key, d.canvas_key, d.user_key,
                                                          d.kind
                                             order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct v.after, v.app_id, v.campaign_key, v.canvas_key, v.user_key, k.kind, k.day
                from day_versions as v
                cross join cardinal.report_source_kind_days(v.channel, v.impression_days, v.control_impression_days,
                                                            v.send_days, v.control_send_days) as k
                where k.day is not null
            ) as d
        ),
        source_counts as (
            insert into cardinal.report_source_day_users as c
            select p.app_id, p.campaign_key, p.canvas_key, p.kind, p.day, p.previous_day,
                   sum(case when p.after then 1 else -1 end) as users
            from source_pairs as p
            group by 1, 2, 3, 4, 5, 6
            having sum(case when p.after then 1 else -1 end) <> 0
            order by 1, 2, 3, 4, 5, 6
            on conflict (app_id, campaign_id, canvas_id, kind, day, previous_day) do update set
                users = c.users + excluded.users
        ),
        -- The touched users and sources that have two arms or more after the statement.
        several as materialized (
            select v.app_id, v.campaign_key, v.canvas_key, v.user_key
            from day_versions as v
            cross join cardinal.report_row_arms(v.variant_id, v.channel, v.impression_days,
                                                v.control_impression_days, v.send_days, v.control_send_days) as a
            where v.after
            group by 1, 2, 3, 4
            having count(distinct a.arm) > 1
        ),
        -- Rows leave and join report_several_arm_users apart (a statement cannot delete and insert one key).
        left_several as (
            -- A hash join with the touched keys: the table holds a few users per campaign, and an index
            -- condition on an array of every touched user would be searched once per row.
            delete from cardinal.report_several_arm_users as s
            using touched_days as t
            where s.app_id = t.app_id and s.campaign_id = t.campaign_key and s.canvas_id = t.canvas_key
              and s.user_key = t.user_key
              and not exists (
                  select from several as n
                  where n.app_id = s.app_id and n.campaign_key = s.campaign_id and n.canvas_key = s.canvas_id
                    and n.user_key = s.user_key)
        ),
        joined_several as (
            insert into cardinal.report_several_arm_users
            select * from several
            order by 1, 2, 3, 4
            on conflict on constraint report_several_arm_users_pkey do nothing
        ),
        -- The versions of the rows whose sources' interactions may have changed, each with its user's first
        -- impression of the step and whether the user was exposed to control in the source, in that version.
        interaction_versions as materialized (
            select v.after, v.app_id, v.campaign_key, v.canvas_key, v.campaign_id, v.finding_id, v.channel, v.test,
                   v.user_key, v.click_times, v.dismissal_times,
                   min(v.first_impression_at) over (
                       partition by v.after, v.app_id, v.campaign_key, v.canvas_key, v.canvas_step_id, v.user_key
                   ) as step_first_impression_at,
                   bool_or(v.first_control_impression_at is not null or v.first_control_send_at is not null) over (
                       partition by v.after, v.app_id, v.campaign_key, v.canvas_key, v.user_key
                   ) as control_exposed
            from versions as v
            join touched_interactions as t
                on t.app_id = v.app_id and t.campaign_key = v.campaign_key and t.canvas_key = v.canvas_key
               and t.user_key = v.user_key
        ),
        -- The interactions the counts take: non-test rows of the dismissible channels, of users never exposed
        -- to control, on report days of the campaign's zone (the app's for a canvas).
        interactions as materialized (
            select v.after, v.finding_id, v.user_key, x.type, x.day, x.without_impression
            from interaction_versions as v
            join cardinal.apps as a on a.app_id = v.app_id
            left join cardinal.campaign_settings as s on s.app_id = v.app_id and s.campaign_id = v.campaign_id
            cross join cardinal.report_row_interactions(v.click_times, v.dismissal_times,
                                                        coalesce(s.report_time_zone, a.report_time_zone),
                                                        v.step_first_impression_at) as x
            where not v.test and not v.control_exposed
              and v.channel in ('content_card', 'in_app_message', 'banner')
        ),
        interaction_events as (
            insert into cardinal.report_interaction_day_events as c
            select i.finding_id, i.type, i.day, sum(case when i.after then 1 else -1 end) as events,
                   coalesce(sum(case when i.after then 1 else -1 end) filter (where i.without_impression), 0)
            from interactions as i
            group by 1, 2, 3
            having sum(case when i.after then 1 else -1 end) <> 0
                or sum(case when i.after then 1 else -1 end) filter (where i.without_impression) <> 0
            order by 1, 2, 3
            on conflict (finding_id, type, day) do update set
                events = c.events + excluded.events,
                events_without_impression = c.events_without_impression + excluded.events_without_impression
        ),
        interaction_pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct i.after, i.finding_id, i.user_key, k.kind, i.day
                from interactions as i
                cross join lateral (
                    select i.type as kind
                    union all
                    select i.type || '_without_impression'
                    where i.without_impression
                ) as k
            ) as d
        ),
        interaction_users as (
            insert into cardinal.report_interaction_day_users as c
            select p.finding_id, p.kind, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
            from interaction_pairs as p
            group by 1, 2, 3, 4
            having sum(case when p.after then 1 else -1 end) <> 0
            order by 1, 2, 3, 4
            on conflict (finding_id, kind, day, previous_day) do update set
                users = c.users + excluded.users
        ),
        -- The touched users and sources exposed to control, with a click or dismissal, after the statement.
        control_acting as materialized (
            select distinct v.app_id, v.campaign_key, v.canvas_key, v.user_key
            from interaction_versions as v
            where v.after and v.control_exposed and not v.test
              and (v.click_times is not null or v.dismissal_times is not null)
        ),
        left_control_acting as (
            delete from cardinal.report_control_acting_users as s
            using touched_interactions as t
            where s.app_id = t.app_id and s.campaign_id = t.campaign_key and s.canvas_id = t.canvas_key
              and s.user_key = t.user_key
              and not exists (
                  select from control_acting as n
                  where n.app_id = s.app_id and n.campaign_key = s.campaign_id and n.canvas_key = s.canvas_id
                    and n.user_key = s.user_key)
        ),
        joined_control_acting as (
            insert into cardinal.report_control_acting_users
            select * from control_acting
            order by 1, 2, 3, 4
            on conflict on constraint report_control_acting_users_pkey do nothing
        )
        insert into cardinal.report_finding_day_users as c
        select p.finding_id, p.kind, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
        from pairs as p
        group by 1, 2, 3, 4
        having sum(case when p.after then 1 else -1 end) <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by 1, 2, 3, 4
        on conflict (finding_id, kind, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$, day_changes, interaction_changes, versions);
    delete from cardinal.report_finding_day_users where users = 0;
    delete from cardinal.report_source_day_users where users = 0;
    delete from cardinal.report_interaction_day_users where users = 0;
    delete from cardinal.report_interaction_day_events where events = 0;
    return null;
end
$function$;

comment on function cardinal.count_finding_day_users() is
    'Statement trigger of report_user_state (0069, 0071): for the users whose counted days changed, makes their '
    'day sets per finding group and kind before and after the statement from their rows (report_user_state''s '
    'user_key index) and the transition tables, nets the pairs into report_finding_day_users (deleting counts '
    'that reach zero), and sets their report_several_arm_users rows of the touched campaigns and canvases; for '
    'the users whose clicks, dismissals, first impressions or first control exposures changed, the same for '
    'report_interaction_day_users and report_interaction_day_events, and their report_control_acting_users '
    'rows.';


-- 0015's zone trigger, which now also clears the interaction counts of what it requeues.
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
    -- groups are zero now that their rows are gone, and the fold adds them again in the new zone (0071).
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

comment on function cardinal.requeue_on_time_zone_change() is
    'Trigger of apps and campaign_settings: requeues the events of the app or campaign whose report time '
    'zone changed, and clears the interaction counts of its finding groups, whose rows the requeue deleted '
    '(0071).';


-- The backfill, from the folded state; no fold writes the state meanwhile.
lock table cardinal.report_user_state in share mode;

insert into cardinal.report_interaction_day_users
select * from cardinal.report_interaction_day_users_of_rows
order by 1, 2, 3, 4;

insert into cardinal.report_interaction_day_events
select * from cardinal.report_interaction_day_events_of_rows
order by 1, 2, 3;

insert into cardinal.report_control_acting_users
select * from cardinal.report_control_acting_users_of_rows
order by 1, 2, 3, 4;

analyze cardinal.report_interaction_day_users, cardinal.report_interaction_day_events,
        cardinal.report_control_acting_users;


-- 0069's report, which reads the clicks and dismissals from the counts.
create or replace function cardinal.anomalies_of_0017_from_counts(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text,
    canvas       text
)
    returns table (
        kind           text,
        severity       text,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        evidence       jsonb,
        likely_cause   text
    )
    language sql
    stable
    -- Hash joins whatever the row estimates (0040, 0046, 0050): a merge join chosen on a 1-row estimate may
    -- merge on one key and filter the rest (quadratic). jit off.
    set enable_nestloop = off
    set enable_mergejoin = off
    -- Users are made distinct by hashing whatever their estimated number (0053): a sort of every state row
    -- by user is what the integer keys make cheaper to hash.
    set enable_sort = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_of_0017_from_counts.from_date, anomalies_of_0017_from_counts.to_date)
          and (anomalies_of_0017_from_counts.app is null or a.name = anomalies_of_0017_from_counts.app)
    ),
    -- The events not folded yet, as state rows of the selected sources (report_user_facts_of's pending part),
    -- each under a negative stand-in for a group id: its group may not exist in report_groups yet.
    pending as materialized (
        select -dense_rank() over (
                   order by p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel,
                            p.platform, p.sdk_version, p.app_version, p.test
               ) as group_id,
               p.*
        from cardinal.report_pending_user_facts as p
        join target as t on t.app_id = p.app_id
        where (p.campaign_id is not null or p.canvas_id is not null)
          and (anomalies_of_0017_from_counts.campaign is null or p.campaign_id = anomalies_of_0017_from_counts.campaign)
          and (anomalies_of_0017_from_counts.canvas is null or p.canvas_id = anomalies_of_0017_from_counts.canvas)
    ),
    -- The selected sources' report groups, folded and pending, each with small integer keys: its finding
    -- group (the report group without variant and test flag), its source (campaign or canvas), its step
    -- (campaign or canvas step) and its variant arm (control is 0). Users are made distinct per these keys,
    -- so that each hashed user row carries a few integers and the user key, not eight texts; the keys are
    groups as materialized (
        select k.group_id, k.app_id, t.app_name, t.report_time_zone as app_time_zone, k.campaign_id,
               k.canvas_id, k.canvas_step_id, k.channel, k.platform, k.sdk_version, k.app_version, k.test,
               k.channel in ('content_card', 'in_app_message', 'banner') as dismissible,
               k.channel in ('content_card', 'in_app_message', 'feature_flag') as impression_channel,
               k.channel = 'push' as push,
               dense_rank() over (
                   order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id, k.channel, k.platform,
                            k.sdk_version, k.app_version
               )::integer as finding_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id)::integer as source_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id)::integer
                   as step_id,
               dense_rank() over (order by k.variant_id)::integer as variant_arm,
               k.finding_key
        from (
            select g.group_id, g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel,
                   g.platform, g.sdk_version, g.app_version, g.test, g.finding_id as finding_key
            from cardinal.report_groups as g
            where (g.campaign_id is not null or g.canvas_id is not null)
              and (anomalies_of_0017_from_counts.campaign is null or g.campaign_id = anomalies_of_0017_from_counts.campaign)
              and (anomalies_of_0017_from_counts.canvas is null or g.canvas_id = anomalies_of_0017_from_counts.canvas)
            union all
            select distinct p.group_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id,
                   p.channel, p.platform, p.sdk_version, p.app_version, p.test, f.finding_id
            from pending as p
            -- A pending group's finding group is in report_findings when a folded group shares it ('' for NULL:
            -- 0005's CHECKs keep every key column non-empty, so the join is an equality and hashed).
            left join cardinal.report_findings as f
                on f.app_id = p.app_id and coalesce(f.campaign_id, '') = coalesce(p.campaign_id, '')
               and coalesce(f.canvas_id, '') = coalesce(p.canvas_id, '')
               and coalesce(f.canvas_step_id, '') = coalesce(p.canvas_step_id, '') and f.channel = p.channel
               and coalesce(f.platform, '') = coalesce(p.platform, '')
               and coalesce(f.sdk_version, '') = coalesce(p.sdk_version, '')
               and coalesce(f.app_version, '') = coalesce(p.app_version, '')
        ) as k
        join target as t on t.app_id = k.app_id
    ),
    -- The finding groups' columns, for the findings' rows.
    findings as materialized (
        select distinct finding_id, source_id, finding_key, app_id, app_name, campaign_id, canvas_id,
               canvas_step_id, channel, platform, sdk_version, app_version, dismissible, impression_channel
        from groups
    ),
    -- The campaigns and canvases, by the keys of report_source_day_users and report_several_arm_users.
    sources as materialized (
        select distinct g.source_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key,
               coalesce(g.canvas_id, '') as canvas_key
        from groups as g
    ),
    -- The users whose clicks and dismissals are judged from their rows for the range (0071): those exposed to
    -- control who act (report_control_acting_users; the counts leave them out), and those with pending events
    -- in a selected source, which may re-judge their folded interactions or expose them to control.
    apart_users as materialized (
        select o.source_id, s.user_key
        from cardinal.report_control_acting_users as s
        join sources as o
            on o.app_id = s.app_id and o.campaign_key = s.campaign_id and o.canvas_key = s.canvas_id
        where s.app_id = any(array(select t.app_id from target as t))
          and (anomalies_of_0017_from_counts.campaign is null or s.campaign_id = anomalies_of_0017_from_counts.campaign)
          and (anomalies_of_0017_from_counts.canvas is null or s.canvas_id = anomalies_of_0017_from_counts.canvas)
        union
        select g.source_id, p.user_key
        from pending as p
        join groups as g on g.group_id = p.group_id
    ),
    -- Their rows of those sources (test rows too): folded ones by the user_key index, and pending ones.
    apart_rows as materialized (
        select true as folded, g.finding_id, g.source_id, g.step_id, g.app_id, g.campaign_id, g.app_time_zone,
               g.channel, g.test, u.user_key, u.first_impression_at, u.first_control_impression_at,
               u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        join apart_users as a on a.source_id = g.source_id and a.user_key = u.user_key
        where u.user_key = any(array(select distinct a.user_key from apart_users as a))
          and g.group_id > 0
        union all
        select false, g.finding_id, g.source_id, g.step_id, g.app_id, g.campaign_id, g.app_time_zone, g.channel,
               g.test, p.user_key, p.first_impression_at, p.first_control_impression_at, p.first_control_send_at,
               p.click_times, p.dismissal_times
        from pending as p
        join groups as g on g.group_id = p.group_id
    ),

    -- Their clicks and dismissals of the range, on the report days of the campaign's time zone (the app's for
    -- a canvas).
    interaction_times as materialized (
        select r.finding_id, r.source_id, r.step_id, r.channel, r.user_key, x.type, x.time
        from apart_rows as r
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join lateral (
            select 'click' as type, t as time from unnest(r.click_times) as t
            union all
            select 'dismissal', t from unnest(r.dismissal_times) as t
        ) as x
        where (r.click_times is not null or r.dismissal_times is not null)
          and not r.test
          and (x.time at time zone coalesce(s.report_time_zone, r.app_time_zone))::date
              between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    -- Per user and step, over all the user's rows of the source (test rows too): the first impression before
    -- the end of the broad range, and whether a control exposure came by then.
    step_exposures as materialized (
        select r.source_id, r.user_key, r.step_id,
               min(r.first_impression_at) filter (
                   where r.first_impression_at < (anomalies_of_0017_from_counts.to_date + 2)::timestamp at time zone 'UTC'
               ) as first_impression,
               bool_or(least(r.first_control_impression_at, r.first_control_send_at)
                       < (anomalies_of_0017_from_counts.to_date + 2)::timestamp at time zone 'UTC') as control_exposure
        from apart_rows as r
        group by r.source_id, r.user_key, r.step_id
    ),
    -- The control exposure over all the user's steps: a canvas's control group is the canvas's.
    user_control_exposures as (
        select source_id, user_key, coalesce(bool_or(control_exposure), false) as has_control_exposure
        from step_exposures
        group by source_id, user_key
    ),
    -- The users read apart are the only ones who can be control users: the others were never exposed.
    interactions as (
        select i.finding_id, i.channel, i.user_key, i.type,
               u.has_control_exposure and e.first_impression is null as control_user,
               e.first_impression is null or e.first_impression > i.time as without_impression
        from interaction_times as i
        join step_exposures as e
            on e.source_id = i.source_id and e.user_key = i.user_key and e.step_id = i.step_id
        join user_control_exposures as u on u.source_id = i.source_id and u.user_key = i.user_key
    ),
    -- What the counts hold of the users read apart: their folded rows' interactions of the range, judged as the
    -- counting trigger judges them (report_interaction_rows).
    apart_counted as materialized (
        select r.finding_id, r.user_key, x.type, x.without_impression
        from (
            select r.*,
                   min(r.first_impression_at) over (partition by r.source_id, r.step_id, r.user_key)
                       as step_first_impression_at,
                   bool_or(r.first_control_impression_at is not null or r.first_control_send_at is not null)
                       over (partition by r.source_id, r.user_key) as control_exposed
            from apart_rows as r
            where r.folded
        ) as r
        left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = r.campaign_id
        cross join cardinal.report_row_interactions(r.click_times, r.dismissal_times,
                                                    coalesce(s.report_time_zone, r.app_time_zone),
                                                    r.step_first_impression_at) as x
        where not r.test and not r.control_exposed and r.channel in ('content_card', 'in_app_message', 'banner')
          and x.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    -- The counted users per finding group and kind in the range (0025's day pairs), and the counted events.
    counted_interaction_users as materialized (
        select c.finding_id as finding_key, c.kind, sum(c.users) as users
        from cardinal.report_interaction_day_users as c
        where c.finding_id = any(array(
                  select f.finding_key from findings as f where f.finding_key is not null and f.dismissible))
          and c.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
          and c.previous_day < anomalies_of_0017_from_counts.from_date
        group by 1, 2
    ),
    counted_interaction_events as materialized (
        select c.finding_id as finding_key, c.type, sum(c.events) as events,
               sum(c.events_without_impression) as events_without_impression
        from cardinal.report_interaction_day_events as c
        where c.finding_id = any(array(
                  select f.finding_key from findings as f where f.finding_key is not null and f.dismissible))
          and c.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
        group by 1, 2
    ),


    -- The distinct users per finding group and kind of day in the range (report_finding_kind_days), of the
    -- non-test groups: the folded state's day pairs (0025) plus the pending users who have the kind in the range
    -- and no folded day of it there.
    folded_counts as materialized (
        select c.finding_id as finding_key, c.kind, sum(c.users) as users
        from cardinal.report_finding_day_users as c
        where c.finding_id = any(array(select f.finding_key from findings as f where f.finding_key is not null))
          and c.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
          and c.previous_day < anomalies_of_0017_from_counts.from_date
        group by 1, 2
    ),
    pending_kind_users as materialized (
        select distinct g.finding_id, g.finding_key, p.user_key, k.kind
        from pending as p
        join groups as g on g.group_id = p.group_id
        cross join cardinal.report_finding_kind_days(p.channel, p.impression_days, p.dismissal_days,
                                                     p.control_impression_days, p.send_days,
                                                     p.control_send_days) as k
        where not p.test
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    -- Those users' folded days of the kinds in the range, by report_user_state's user_key index.
    folded_kind_users as materialized (
        select distinct g.finding_key, u.user_key, k.kind
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        cross join cardinal.report_finding_kind_days(g.channel, u.impression_days, u.dismissal_days,
                                                     u.control_impression_days, u.send_days,
                                                     u.control_send_days) as k
        where u.user_key = any(array(select distinct p.user_key from pending_kind_users as p))
          and not g.test
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    finding_counts as materialized (
        select x.finding_id,
               coalesce(sum(x.users) filter (where x.kind = 'impression'), 0) as impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'dismissal'), 0) as dismissal_users,
               coalesce(sum(x.users) filter (where x.kind = 'control_impression'), 0) as control_impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'exposure'), 0) as exposed_users
        from (
            select f.finding_id, c.kind, c.users
            from folded_counts as c
            join findings as f on f.finding_key = c.finding_key
            union all
            select p.finding_id, p.kind, count(*)
            from pending_kind_users as p
            where not exists (
                select from folded_kind_users as k
                where k.finding_key = p.finding_key and k.user_key = p.user_key and k.kind = p.kind)
            group by 1, 2
        ) as x
        group by x.finding_id
    ),

    dismissals_exceed_impressions as (
        select c.finding_id, c.impression_users as unique_impressions, c.dismissal_users as unique_dismissals
        from finding_counts as c
        join findings as f on f.finding_id = c.finding_id
        where f.dismissible
    ),

    -- The counts, without what they hold of the users read apart, plus those users judged for the range.
    without_impression as (
        select x.type, x.finding_id,
               sum(x.users_without_impression) as users_without_impression, sum(x.users) as users,
               sum(x.events_without_impression) as events_without_impression, sum(x.events) as events
        from (
            select f.finding_id, k.type,
                   case when k.without_impression then c.users else 0 end as users_without_impression,
                   case when k.without_impression then 0 else c.users end as users,
                   0 as events_without_impression, 0 as events
            from counted_interaction_users as c
            join findings as f on f.finding_key = c.finding_key
            cross join lateral (
                select split_part(c.kind, '_', 1) as type, c.kind like '%_without_impression' as without_impression
            ) as k
            union all
            select f.finding_id, c.type, 0, 0, c.events_without_impression, c.events
            from counted_interaction_events as c
            join findings as f on f.finding_key = c.finding_key
            union all
            select finding_id, type,
                   -count(distinct user_key) filter (where without_impression), -count(distinct user_key),
                   -count(*) filter (where without_impression), -count(*)
            from apart_counted
            group by finding_id, type
            union all
            select finding_id, type,
                   count(distinct user_key) filter (where without_impression), count(distinct user_key),
                   count(*) filter (where without_impression), count(*)
            from interactions
            where channel in ('content_card', 'in_app_message', 'banner') and not control_user
            group by finding_id, type
        ) as x
        group by x.type, x.finding_id
    ),


    impression_groups as materialized (
        select c.finding_id, f.source_id, c.impression_users as variant_users,
               c.control_impression_users as control_users
        from finding_counts as c
        join findings as f on f.finding_id = c.finding_id
        where f.impression_channel and (c.impression_users > 0 or c.control_impression_users > 0)
    ),
    -- control_impressions_missing's campaign arms, for the campaigns (canvases) it may name (a group of
    -- impressions without a control impression): the distinct users per source and kind of day in the range
    -- (report_source_kind_days) of the non-test groups, from the folded state's day pairs plus the pending users
    -- without a folded day of the kind in the range.
    candidate_sources as materialized (
        select distinct s.source_id, s.app_id, s.campaign_key, s.canvas_key
        from impression_groups as i
        join sources as s on s.source_id = i.source_id
        where i.control_users = 0 and i.variant_users > 0
    ),
    pending_source_kind_users as materialized (
        select distinct g.source_id, p.user_key, k.kind
        from pending as p
        join groups as g on g.group_id = p.group_id
        cross join cardinal.report_source_kind_days(p.channel, p.impression_days, p.control_impression_days,
                                                    p.send_days, p.control_send_days) as k
        where not p.test
          and g.source_id = any(array(select c.source_id from candidate_sources as c))
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    folded_source_kind_users as materialized (
        select distinct g.source_id, u.user_key, k.kind
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        cross join cardinal.report_source_kind_days(g.channel, u.impression_days, u.control_impression_days,
                                                    u.send_days, u.control_send_days) as k
        where u.user_key = any(array(select distinct p.user_key from pending_source_kind_users as p))
          and not g.test
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    campaign_arms as (
        select c.source_id,
               coalesce(sum(x.users) filter (where x.kind = 'control_send'), 0) as control_send_users,
               coalesce(sum(x.users) filter (where x.kind = 'send'), 0) as send_users,
               coalesce(sum(x.users) filter (where x.kind = 'control_impression'), 0) as control_impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'variant_impression'), 0) as variant_impression_users
        from candidate_sources as c
        left join (
            select o.source_id, d.kind, d.users
            from cardinal.report_source_day_users as d
            join candidate_sources as o
                on o.app_id = d.app_id and o.campaign_key = d.campaign_id and o.canvas_key = d.canvas_id
            where d.app_id = any(array(select o.app_id from candidate_sources as o))
              and d.campaign_id = any(array(select o.campaign_key from candidate_sources as o))
              and d.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
              and d.previous_day < anomalies_of_0017_from_counts.from_date
            union all
            select p.source_id, p.kind, 1
            from pending_source_kind_users as p
            where not exists (
                select from folded_source_kind_users as f
                where f.source_id = p.source_id and f.user_key = p.user_key and f.kind = p.kind)
        ) as x on x.source_id = c.source_id
        group by c.source_id
    ),
    control_campaigns as (
        select c.*, share.control_share,
               case when share.control_share < 1
                    then share.control_share / (1 - share.control_share) end as control_per_variant_user
        from campaign_arms as c
        join (select distinct source_id, app_id, campaign_id from groups) as source
            on source.source_id = c.source_id
        left join cardinal.campaign_settings as s
            on s.app_id = source.app_id and s.campaign_id = source.campaign_id
        cross join lateral (
            select case
                       when s.expected_split ? 'control'
                           then (s.expected_split ->> 'control')::double precision
                                / (select sum(w.value::double precision) from jsonb_each_text(s.expected_split) as w)
                       when c.send_users > 0
                           then c.control_send_users::double precision / c.send_users
                   end as control_share
        ) as share
        where c.control_send_users > 0 or coalesce(s.expected_split ? 'control', false)
    ),
    control_impressions_missing as (
        select g.finding_id, g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        join control_campaigns as c on c.source_id = g.source_id
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                   n.sdk_version, n.app_version, i.stored_events, i.stored_users, 0 as rejected_events
            from (
                select finding_id, count(*) as stored_events, count(distinct user_key) as stored_users
                from interactions
                where control_user
                group by finding_id
            ) as i
            join findings as n on n.finding_id = i.finding_id
            union all
            select t.app_name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
                   raw.sdk_version, raw.app_version, 0, 0, count(*)
            from target as t
            join cardinal.rejected_events as r on r.app_id = t.app_id
            cross join lateral (
                select j ->> 'campaign_id' as campaign_id, j ->> 'canvas_id' as canvas_id,
                       j ->> 'canvas_step_id' as canvas_step_id, j ->> 'channel' as channel,
                       j ->> 'platform' as platform, j ->> 'sdk_version' as sdk_version,
                       j ->> 'app_version' as app_version, coalesce(j ->> 'test', 'false') = 'true' as test
                from (select cardinal.try_jsonb(r.raw) as j) as parsed
            ) as raw
            left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = raw.campaign_id
            where r.code = 'control_interaction'
              and r.received_at >= (anomalies_of_0017_from_counts.from_date - 1)::timestamp at time zone 'UTC'
              and r.received_at < (anomalies_of_0017_from_counts.to_date + 2)::timestamp at time zone 'UTC'
              and (r.received_at at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
                  between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
              and (anomalies_of_0017_from_counts.campaign is null or raw.campaign_id = anomalies_of_0017_from_counts.campaign)
              and (anomalies_of_0017_from_counts.canvas is null or raw.canvas_id = anomalies_of_0017_from_counts.canvas)
              and not raw.test
            group by t.app_name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
                     raw.sdk_version, raw.app_version
        ) as both_sources
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    -- The users who met several arms in the range over the whole campaign or canvas: a few hundred, which

    -- The users who may have met several arms in the range: those whose folded rows of the source ever did
    -- (report_several_arm_users) and the pending events' exposed users. Their non-test rows of the source give
    -- the arms of the range (control 0); a user is counted in each finding group where it was exposed.
    several_arm_candidates as materialized (
        select o.source_id, s.user_key
        from cardinal.report_several_arm_users as s
        join sources as o
            on o.app_id = s.app_id and o.campaign_key = s.campaign_id and o.canvas_key = s.canvas_id
        where s.app_id = any(array(select t.app_id from target as t))
          and (anomalies_of_0017_from_counts.campaign is null or s.campaign_id = anomalies_of_0017_from_counts.campaign)
          and (anomalies_of_0017_from_counts.canvas is null or s.canvas_id = anomalies_of_0017_from_counts.canvas)
        union
        select g.source_id, p.user_key
        from pending as p
        join groups as g on g.group_id = p.group_id
        where not p.test
          and (p.impression_days is not null or p.control_impression_days is not null
               or (g.push and (p.send_days is not null or p.control_send_days is not null)))
    ),
    several_arm_exposures as materialized (
        select e.finding_id, e.source_id, e.user_key, a.arm
        from (
            select g.finding_id, g.source_id, g.variant_arm, g.push, u.user_key, u.impression_days, u.send_days,
                   u.control_impression_days, u.control_send_days
            from cardinal.report_user_state as u
            join groups as g on g.group_id = u.group_id
            where u.user_key = any(array(select distinct c.user_key from several_arm_candidates as c))
              and g.group_id > 0 and not g.test
            union all
            select g.finding_id, g.source_id, g.variant_arm, g.push, p.user_key, p.impression_days, p.send_days,
                   p.control_impression_days, p.control_send_days
            from pending as p
            join groups as g on g.group_id = p.group_id
            where not p.test
              and p.user_key = any(array(select distinct c.user_key from several_arm_candidates as c))
        ) as e
        join several_arm_candidates as c on c.source_id = e.source_id and c.user_key = e.user_key
        cross join lateral (
            select daterange(anomalies_of_0017_from_counts.from_date, anomalies_of_0017_from_counts.to_date, '[]')
                       as days
        ) as range
        cross join lateral (
            select e.variant_arm as arm
            where range.days @> any(e.impression_days) or (e.push and range.days @> any(e.send_days))
            union all
            select 0
            where range.days @> any(e.control_impression_days)
               or (e.push and range.days @> any(e.control_send_days))
        ) as a
    ),
    several_arm_users as materialized (
        select source_id, user_key
        from several_arm_exposures
        group by source_id, user_key
        having min(arm) <> max(arm)
    ),
    users_in_several_arms as (
        select x.finding_id, x.users, c.exposed_users
        from (
            select e.finding_id, count(distinct e.user_key) as users
            from several_arm_exposures as e
            join several_arm_users as s on s.source_id = e.source_id and s.user_key = e.user_key
            group by e.finding_id
        ) as x
        join finding_counts as c on c.finding_id = x.finding_id
    )


    select 'dismissals_exceed_impressions', 'critical',
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('unique_impressions', d.unique_impressions,
                              'unique_dismissals', d.unique_dismissals),
           'A custom UI logs dismissals but not the impressions of the same messages (the default UI logs both).'
    from dismissals_exceed_impressions as d
    join findings as n on n.finding_id = d.finding_id
    where d.unique_dismissals > d.unique_impressions

    union all
    select case w.type when 'click' then 'click_without_impression' else 'dismissal_without_impression' end,
           cardinal.anomaly_severity(w.users_without_impression::double precision / w.users),
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('users_without_impression', w.users_without_impression,
                              'users', w.users,
                              'share', w.users_without_impression::double precision / w.users,
                              'events_without_impression', w.events_without_impression,
                              'events', w.events),
           case w.type
               when 'click' then 'A custom UI logs clicks without logging the message''s impression first '
                                 '(or logs it only after the click).'
               else 'A custom UI logs dismissals of messages whose impression it never logged (or logs it only '
                    'after the dismissal).'
           end
    from without_impression as w
    join findings as n on n.finding_id = w.finding_id
    where w.users_without_impression > 0

    union all
    select 'control_impressions_missing',
           case when m.control_impression_users = 0 then 'critical' else 'warning' end,
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('variant_impression_users', m.variant_users,
                              'control_impression_users', 0,
                              'expected_control_impression_users', m.expected_group,
                              'campaign_control_impression_users', m.control_impression_users,
                              'campaign_control_send_users', m.control_send_users,
                              'expected_control_share', m.control_share),
           'The custom UI filters control messages out instead of logging a control impression when the user '
           'would have seen the message.'
    from control_impressions_missing as m
    join findings as n on n.finding_id = m.finding_id
    where (m.control_impression_users = 0 and coalesce(m.expected_campaign >= 8, true))
       or coalesce(m.expected_group >= 8, true)

    union all
    select 'control_interaction',
           case when stored_events > 0 then 'critical' else 'warning' end,
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('stored_events', stored_events,
                              'stored_users', stored_users,
                              'rejected_events', rejected_events),
           'The app shows the message to control-group users, or logs clicks or dismissals for control messages '
           'it should only have counted as control impressions.'
    from control_interaction

    union all
    select 'users_in_several_arms',
           cardinal.anomaly_severity(a.users::double precision / a.exposed_users),
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('users', a.users,
                              'exposed_users', a.exposed_users,
                              'share', a.users::double precision / a.exposed_users),
           'Users are assigned to more than one arm: the variant changes between sends or devices, or the UI '
           'logs another variant (or control) than the one it shows.'
    from users_in_several_arms as a
    join findings as n on n.finding_id = a.finding_id
    where a.users > 0;
$function$;

comment on function cardinal.anomalies_of_0017_from_counts(text, date, date, text, text) is
    'The kinds of 0011 and 0017 without test events, by campaign or canvas step (0033): the distinct users of '
    'each finding group from report_finding_day_users'' day pairs, the users of several arms from '
    'report_several_arm_users'' users'' rows, the campaign arms of control_impressions_missing from the rows '
    'of the campaigns it may name (0069), clicks and dismissals from report_interaction_day_users and '
    'report_interaction_day_events, with the users exposed to control who act and the pending events'' users '
    'judged from their rows (0071), plus the pending events. Rows as anomalies_of_0017''s.';
