-- 0040_control_exposures.sql — control_arms reads one row per exposed user of the campaign it reports, kept by
-- the fold (issue 8).
--
-- Design notes (why, not what):
--
-- * control_arms (0034, 0039) derived each user's exposure from report_user_facts, every report group of every
--   campaign of the app (about one row per exposure), and their conversions from report_conversion_facts, the
--   whole app's conversion state: one campaign cost what the app's state costs (2.6 s at 10 M events). What a
--   user contributes to a campaign's report is a few values that do not depend on the report's arguments:
--   the time of the first exposure and its arm, the time a second distinct arm was first seen, and the first
--   conversion of the campaign's conversion event at or after the exposure. report_control_exposures keeps
--   them per app × campaign × user, indexed by exposure time, so that a report reads only the users its
--   campaign exposed in its range (an index range), and no conversion state at all.
--
-- * Why these values suffice, for any range, as-of time and window. The report takes each arm's first exposure
--   before the range's end and counts the user in the range when the earliest of them is in it: the earliest
--   arm's time is the user's exposure whatever the range, so the user is in [from, to] exactly when
--   exposed_at is. The user is in several arms exactly when the second arm's first time is before the range's
--   end. The user converted within w exactly when the first conversion at or after exposed_at is at most
--   exposed_at + w, so the window (and its override) is applied when the report runs, in the report's
--   session, as before. Report days are applied then too (the bounds are local midnights in the campaign's
--   zone), so a time zone change does not touch these rows.
--
-- * Two arms are kept, not one: a new event can only move an arm's first time earlier, so the first two arms
--   of old ∪ new are among the old first two and the new events' arms (a third old arm is no earlier than the
--   second). The row of a user is therefore the merge of its old row with the pending events, as the fold's
--   other steps merge, and the same merge (report_pending_control_exposures) is what a report puts in place of
--   the folded row of a user the pending events touch: reports stay exact and fresh (0015, 0021, 0025).
--
-- * The conversion is looked up again for every touched user (the folded conversion state by primary key,
--   plus the pending conversions), not merged: an earlier exposure can make an older conversion count.
--
-- * Deletions follow report_user_state (0025's rule): its rows are only ever deleted whole per user and
--   campaign (erasure, re-keying, requeue of a campaign or an app), together with the user's conversion state
--   whenever that goes too, and the events are queued again. A trigger deletes the same users' rows here;
--   the next fold merges them anew from the requeued events. So erasure, a time zone change, a rebuild, a
--   retention drop and an identity merge need no code of their own.
--
-- * The conversion event is the campaign's configured one (campaign_settings.conversion_event). When it
--   changes, a trigger recomputes the campaign's rows from the folded conversion state, under the state lock
--   (as the requeue of a time zone change takes it), so that the fold never interleaves.
--
-- * Scope: campaigns, non-test events, the configured conversion event (any window). A canvas (0034: its
--   events may carry a campaign_id too, which the source id then is), include_test (a user's test and
--   non-test exposures merged) and another conversion event keep 0039's body, renamed
--   control_arms_from_user_state; control_arms picks.
--
-- * No plan hinges on a row estimate: the touched users' folded rows are found through `= any(array(...))`
--   index conditions (one sorted array probe, whatever the pending events number), their conversions by one
--   primary-key probe each (a subquery per user, not a join the planner picks), and the fold step and the
--   report hash their joins (enable_nestloop and jit off, as 0039), the report its aggregates too.
--
-- * Measured in psql on 300 k events of scripts/bench/seed_reports.sql, folded and analyzed, load average
--   1.5–2.5: one campaign (the largest) 80–130 ms before, 14 ms after; all campaigns 1.8–2.5 s before,
--   0.23–0.30 s after; the fold of the 300 k events 44 s, of which this step 6 s. All campaigns still read
--   every exposed user of the range; counts per campaign, arm and exposure hour are the next step.


create table cardinal.report_control_exposures (
    app_id                bigint      not null,
    campaign_id           text        not null,
    user_key              text        not null,
    exposed_at            timestamptz not null,
    control               boolean     not null,
    variant_id            text,
    second_arm_at         timestamptz,
    second_arm_control    boolean,
    second_arm_variant_id text,
    conversion_event      text,
    converted_at          timestamptz,

    constraint report_control_exposures_pkey primary key (app_id, campaign_id, user_key),
    constraint report_control_exposures_arms_ordered check (second_arm_at >= exposed_at)
);

create index report_control_exposures_range_idx
    on cardinal.report_control_exposures (app_id, campaign_id, exposed_at);

create index report_control_exposures_user_idx on cardinal.report_control_exposures (app_id, user_key);

comment on index cardinal.report_control_exposures_range_idx is
    'A report''s users: one campaign''s (or the app''s) rows first exposed in the range.';
comment on index cardinal.report_control_exposures_user_idx is
    'The rows of the users that pending events touch, whatever their campaign (report_pending_control_exposures).';

alter table cardinal.report_control_exposures owner to cardinal_owner;

comment on table cardinal.report_control_exposures is
    'Report state of the control report (0040): per app, campaign and user exposed to it (non-test '
    'impressions; sends too for push), the first exposure and its arm, when a second arm was first seen, and '
    'the first conversion of the campaign''s conversion event at or after the exposure. Kept by the fold; '
    'control_arms reads it.';
comment on column cardinal.report_control_exposures.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_control_exposures.campaign_id is 'The campaign.';
comment on column cardinal.report_control_exposures.user_key is 'The user (resolved user key, 0032).';
comment on column cardinal.report_control_exposures.exposed_at is
    'Time of the user''s first exposure to the campaign in any arm.';
comment on column cardinal.report_control_exposures.control is 'Whether the first exposure was in the control arm.';
comment on column cardinal.report_control_exposures.variant_id is
    'Variant of the first exposure''s arm; NULL for the control arm.';
comment on column cardinal.report_control_exposures.second_arm_at is
    'Time of the first exposure to a second distinct arm; NULL when the user met one arm only.';
comment on column cardinal.report_control_exposures.second_arm_control is 'Whether the second arm is the control arm.';
comment on column cardinal.report_control_exposures.second_arm_variant_id is
    'Variant of the second arm; NULL for the control arm or when there is none.';
comment on column cardinal.report_control_exposures.conversion_event is
    'The campaign''s conversion event (campaign_settings) that converted_at is of; NULL when none is set.';
comment on column cardinal.report_control_exposures.converted_at is
    'Time of the user''s first non-test conversion of conversion_event at or after exposed_at; NULL when none.';


-- What folding the pending events makes of the rows they touch: the users with a pending exposure to a
-- campaign, and those with a pending conversion of the event their campaign counts.
create view cardinal.report_pending_control_exposures as
with pending as materialized (
    select e.app_id, e.campaign_id, e.user_key, e.type, e.control,
           case when e.control then null else e.variant_id end as variant_id, e.time, e.conversion_name
    from cardinal.report_unfolded_events() as e
    where not e.test
      and (e.type = 'conversion'
           or (e.campaign_id is not null
               and (e.type = 'impression' or (e.type = 'send' and e.channel = 'push'))))
),
-- The folded rows of the pending users, by index whatever their number.
folded as materialized (
    select r.*
    from cardinal.report_control_exposures as r
    where r.app_id = any(array(select distinct p.app_id from pending as p))
      and r.user_key = any(array(select distinct p.user_key from pending as p))
),
pending_conversions as (
    select app_id, user_key, conversion_name, array_agg(time) as times
    from pending
    where type = 'conversion'
    group by 1, 2, 3
),
-- Every arm's first time: the folded row's two arms and the pending exposures.
arms as (
    select app_id, campaign_id, user_key, control, variant_id, min(first_at) as first_at
    from (
        select app_id, campaign_id, user_key, control, variant_id, exposed_at as first_at
        from folded
        union all
        select app_id, campaign_id, user_key, second_arm_control, second_arm_variant_id, second_arm_at
        from folded
        where second_arm_at is not null
        union all
        select app_id, campaign_id, user_key, control, variant_id, time
        from pending
        where type <> 'conversion'
    ) as a
    group by 1, 2, 3, 4, 5
),
touched as (
    select app_id, campaign_id, user_key from pending where type <> 'conversion'
    union
    select f.app_id, f.campaign_id, f.user_key
    from folded as f
    join pending_conversions as c
        on c.app_id = f.app_id and c.user_key = f.user_key and c.conversion_name = f.conversion_event
),
ranked as (
    select a.*,
           row_number() over (partition by a.app_id, a.campaign_id, a.user_key
                              order by a.first_at, a.control, a.variant_id nulls first) as rank
    from arms as a
    join touched as t using (app_id, campaign_id, user_key)
),
exposures as (
    select app_id, campaign_id, user_key,
           min(first_at) filter (where rank = 1) as exposed_at,
           bool_or(control) filter (where rank = 1) as control,
           min(variant_id) filter (where rank = 1) as variant_id,
           min(first_at) filter (where rank = 2) as second_arm_at,
           bool_or(control) filter (where rank = 2) as second_arm_control,
           min(variant_id) filter (where rank = 2) as second_arm_variant_id
    from ranked
    where rank <= 2
    group by 1, 2, 3
)
select x.app_id, x.campaign_id, x.user_key, x.exposed_at, x.control, x.variant_id, x.second_arm_at,
       x.second_arm_control, x.second_arm_variant_id, s.conversion_event,
       least(
           -- The folded conversions: one primary-key probe per touched user.
           (select min(t.time)
            from cardinal.report_conversion_state as v
            cross join lateral unnest(v.times) as t (time)
            where v.app_id = x.app_id and v.user_key = x.user_key and v.conversion_name = s.conversion_event
              and not v.test and t.time >= x.exposed_at),
           (select min(t.time) from unnest(c.times) as t (time) where t.time >= x.exposed_at)
       ) as converted_at
from exposures as x
left join cardinal.campaign_settings as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
left join pending_conversions as c
    on c.app_id = x.app_id and c.user_key = x.user_key and c.conversion_name = s.conversion_event;

alter view cardinal.report_pending_control_exposures owner to cardinal_owner;

comment on view cardinal.report_pending_control_exposures is
    'The report_control_exposures rows that folding the unfolded events (report_unfolded_events) makes: for '
    'each user with a pending exposure to a campaign or a pending conversion of its conversion event, the '
    'folded row merged with the pending events. Reports put them in place of the folded rows.';


-- The columns of the view mean what the table's columns mean.
do $comments$
declare
    target record;
begin
    for target in
        select a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from pg_catalog.pg_attribute as a
        join pg_catalog.pg_attribute as t
            on t.attrelid = 'cardinal.report_control_exposures'::regclass and t.attname = a.attname
        where a.attrelid = 'cardinal.report_pending_control_exposures'::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.report_pending_control_exposures.%I is %L',
                       target.column_name, target.description);
    end loop;
end
$comments$;


-- The fold step: the pending events' rows replace the folded ones.
create function cardinal.fold_report_control_exposures()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- The pending events are never analyzed: on a one-row guess the planner looped over the pending
    -- conversions once per touched user (10 minutes for a fold of 300 k events). Hash joins whatever the
    -- estimates; the folded rows and conversions are index probes all the same (see the view).
    set enable_nestloop = off
    set jit = off
as $function$
begin
    insert into cardinal.report_control_exposures as r
    select * from cardinal.report_pending_control_exposures
    order by app_id, campaign_id, user_key
    on conflict (app_id, campaign_id, user_key) do update set
        exposed_at = excluded.exposed_at,
        control = excluded.control,
        variant_id = excluded.variant_id,
        second_arm_at = excluded.second_arm_at,
        second_arm_control = excluded.second_arm_control,
        second_arm_variant_id = excluded.second_arm_variant_id,
        conversion_event = excluded.conversion_event,
        converted_at = excluded.converted_at;
end
$function$;

alter function cardinal.fold_report_control_exposures() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_control_exposures() from public;

comment on function cardinal.fold_report_control_exposures() is
    'Folds the unfolded events into report_control_exposures (report_pending_control_exposures). Part of '
    'fold_report_state(), inside its snapshot of the pending events; not to be called alone.';


-- 0038's fold with the new step among the others (its work_mem and security kept).
create or replace function cardinal.fold_report_state()
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
    set work_mem = '64MB'
as $function$
declare
    folded bigint;
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
    -- The links first: they may queue re-keyed events, which the snapshot must hold.
    perform cardinal.fold_identity_links();
    perform cardinal.take_report_fold_snapshot();
    perform cardinal.fold_report_row_days();
    perform cardinal.fold_report_dismissals();
    perform cardinal.fold_report_push_sends();
    perform cardinal.fold_report_conversion_values();
    perform cardinal.fold_report_parts();
    -- Before the conversion state takes the pending conversions: the step adds them itself.
    perform cardinal.fold_report_control_exposures();
    folded := cardinal.fold_report_user_state();
    perform cardinal.drop_report_fold_snapshot();
    return folded;
end
$function$;

comment on function cardinal.fold_report_state() is
    'Folds every unfolded event (report_unfolded_events) into the report state, advances the watermark and '
    'returns how many, or NULL when another fold holds the state lock. Learns identity links first '
    '(fold_identity_links, 0032), then reads the pending events once (take_report_fold_snapshot, 0038) for '
    'every step, report_control_exposures (0040) among them. Must run in a REPEATABLE READ transaction.';


-- Deleting a user's state of a campaign (erasure, re-keying, requeue) deletes the user's row of the campaign.
create function cardinal.forget_report_control_exposures()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_control_exposures as r
    using (
        select distinct g.app_id, g.campaign_id, f.user_key
        from forgotten as f
        join cardinal.report_groups as g on g.group_id = f.group_id
        where g.campaign_id is not null and not g.test
    ) as x
    where r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key;
    return null;
end
$function$;

alter function cardinal.forget_report_control_exposures() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_control_exposures() from public;

comment on function cardinal.forget_report_control_exposures() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_control_exposures '
    'rows of the same campaigns (their events are queued again; the next fold makes the rows anew).';

create trigger report_user_state_forget_control_exposures
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_control_exposures();

comment on trigger report_user_state_forget_control_exposures on cardinal.report_user_state is
    'Keeps report_control_exposures equal to what report_user_state holds (0040).';


-- A campaign's conversion event that changes: its rows look their conversion up again.
create function cardinal.recompute_control_conversions()
    returns trigger
    language plpgsql
    security definer
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target_app      bigint;
    target_campaign text;
    new_event       text;
begin
    if tg_op = 'DELETE' then
        target_app := old.app_id;
        target_campaign := old.campaign_id;
    else
        target_app := new.app_id;
        target_campaign := new.campaign_id;
        new_event := new.conversion_event;
    end if;
    if tg_op = 'UPDATE' and new_event is not distinct from old.conversion_event then
        return null;
    end if;
    -- Waits for a running fold, so that the conversion state read below is the one its rows were made from.
    perform pg_advisory_xact_lock(cardinal.report_state_lock_key());
    update cardinal.report_control_exposures as r
    set conversion_event = new_event,
        converted_at = (
            select min(t.time)
            from cardinal.report_conversion_state as v
            cross join lateral unnest(v.times) as t (time)
            where v.app_id = r.app_id and v.user_key = r.user_key and v.conversion_name = new_event
              and not v.test and t.time >= r.exposed_at
        )
    where r.app_id = target_app and r.campaign_id = target_campaign;
    return null;
end
$function$;

alter function cardinal.recompute_control_conversions() owner to cardinal_owner;

revoke execute on function cardinal.recompute_control_conversions() from public;

comment on function cardinal.recompute_control_conversions() is
    'Trigger of campaign_settings: when a campaign''s conversion event is set, changed or removed, sets its '
    'report_control_exposures rows'' conversion_event and looks converted_at up again in the folded '
    'conversion state (pending conversions are the next fold''s), under the state lock.';

create trigger campaign_settings_recompute_control_conversions
    after insert or update of conversion_event or delete on cardinal.campaign_settings
    for each row
    execute function cardinal.recompute_control_conversions();

comment on trigger campaign_settings_recompute_control_conversions on cardinal.campaign_settings is
    'Keeps report_control_exposures.converted_at of the campaign''s conversion event (0040).';


-- 0039's control_arms keeps its body and settings under another name: the cases the rows above do not answer
-- (see the design notes) read the per-user state as before. The body names its arguments by the function's
-- name, so it is copied with the new name (as 0038 extended bodies in place), and the migration stops if it
-- does not read as expected.
do $from_user_state$
declare
    definition text;
begin
    definition := pg_catalog.pg_get_functiondef(
        'cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text)'::regprocedure
    );
    if regexp_count(definition, '\mFUNCTION cardinal\.control_arms\(') <> 1
       or regexp_count(definition, '\mcontrol_arms_from_user_state\M') <> 0 then
        raise exception '0040: control_arms does not read the way this migration expects';
    end if;
    definition := regexp_replace(definition, '\mFUNCTION cardinal\.control_arms\(',
                                 'FUNCTION cardinal.control_arms_from_user_state(');
    definition := regexp_replace(definition, '\mcontrol_arms\.', 'control_arms_from_user_state.', 'g');
    execute definition;
end
$from_user_state$;

drop function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text);

alter function cardinal.control_arms_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text)
    to cardinal_reader;

comment on function cardinal.control_arms_from_user_state(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'control_arms computed from the per-user report state (report_user_facts, report_conversion_facts; 0039''s '
    'body): any canvas, include_test and conversion event. control_arms calls it when '
    'report_control_exposures cannot answer (0040).';


-- The control report of campaigns from report_control_exposures: non-test events, the campaigns' conversion
-- events, any window.
create function cardinal.control_arms_from_exposures(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz,
    conversion_window interval
)
    returns table (
        app_name              text,
        campaign_id           text,
        conversion_event      text,
        window_length         interval,
        variant_id            text,
        control               boolean,
        users                 bigint,
        converters            bigint,
        exposed_users         bigint,
        users_in_several_arms bigint,
        canvas_id             text
    )
    language sql
    stable
    -- Hash joins whatever the row estimates (0039); the index range scans below take no join decision.
    set enable_nestloop = off
    set jit = off
    -- And hash aggregates: on a one-row guess the planner sorted every user of the range by five text columns
    -- to group them (half of the time of all campaigns on 300 k events). The sorts left are of a few hundred
    -- arms.
    set enable_sort = off
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where control_arms_from_exposures.app is null or a.name = control_arms_from_exposures.app
    ),
    -- The rows the pending events make, in place of the folded rows of the users they touch.
    pending as materialized (
        select p.*
        from cardinal.report_pending_control_exposures as p
        where p.app_id in (select t.app_id from target as t)
          and (control_arms_from_exposures.campaign is null or p.campaign_id = control_arms_from_exposures.campaign)
    ),
    -- The campaigns reported, with their settings and the range's bounds in their report time zone: those the
    -- fold has seen (report_groups, one row per group) and those only pending events have.
    sources as materialized (
        select t.app_id, t.app_name, c.campaign_id, s.conversion_event,
               coalesce(control_arms_from_exposures.conversion_window, s.conversion_window, interval '3 days')
                   as window_length,
               control_arms_from_exposures.from_date::timestamp at time zone zone.name as lower_time,
               (control_arms_from_exposures.to_date + 1)::timestamp at time zone zone.name as upper_time
        from target as t
        join (
            select g.app_id, g.campaign_id
            from cardinal.report_groups as g
            where g.campaign_id is not null
              and (control_arms_from_exposures.campaign is null
                   or g.campaign_id = control_arms_from_exposures.campaign)
            union
            select p.app_id, p.campaign_id from pending as p
        ) as c on c.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        cross join lateral (select coalesce(s.report_time_zone, t.report_time_zone) as name) as zone
    ),
    -- The folded rows of the range: one campaign's by an index range; every campaign's as the planner sees
    -- fit (a scan of the app's rows beat 50 index ranges). Two branches, because "campaign is null or …" is
    -- no index condition; the one whose argument test fails is never run.
    folded as (
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.converted_at
        from cardinal.report_control_exposures as r
        where control_arms_from_exposures.campaign is not null
          and r.app_id = any(array(select t.app_id from target as t))
          and r.campaign_id = control_arms_from_exposures.campaign
          and r.exposed_at >= (select min(s.lower_time) from sources as s)
          and r.exposed_at < (select max(s.upper_time) from sources as s)
        union all
        select r.app_id, r.campaign_id, r.user_key, r.exposed_at, r.control, r.variant_id, r.second_arm_at,
               r.converted_at
        from cardinal.report_control_exposures as r
        where control_arms_from_exposures.campaign is null
          and r.app_id = any(array(select t.app_id from target as t))
          and r.exposed_at >= (select min(s.lower_time) from sources as s)
          and r.exposed_at < (select max(s.upper_time) from sources as s)
    ),
    -- The folded rows but the touched ones, and the touched ones as the pending events make them.
    exposures as (
        select f.app_id, f.campaign_id, f.exposed_at, f.control, f.variant_id, f.second_arm_at, f.converted_at
        from folded as f
        where not exists (
            select from pending as p
            where p.app_id = f.app_id and p.campaign_id = f.campaign_id and p.user_key = f.user_key
        )
        union all
        select p.app_id, p.campaign_id, p.exposed_at, p.control, p.variant_id, p.second_arm_at, p.converted_at
        from pending as p
    ),
    -- A user counts in the range when the first exposure is in it, in several arms when the second arm's
    -- first exposure is before the range's end, and as a converter when the first conversion after the
    -- exposure is within the window (0040's notes). Users in several arms only count per campaign.
    cohort as (
        select s.app_name, s.campaign_id, s.conversion_event, s.window_length, several.arms,
               case when not several.arms then x.variant_id end as variant_id,
               case when not several.arms then x.control end as control,
               x.exposed_at + s.window_length <= control_arms_from_exposures.as_of as matured,
               coalesce(x.converted_at <= x.exposed_at + s.window_length, false) as converted
        from exposures as x
        join sources as s on s.app_id = x.app_id and s.campaign_id = x.campaign_id
        cross join lateral (select coalesce(x.second_arm_at < s.upper_time, false) as arms) as several
        where x.exposed_at >= s.lower_time and x.exposed_at < s.upper_time
    ),
    arm_groups as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, arms as several_arms,
               count(*) filter (where matured) as users,
               case when conversion_event is not null
                    then count(*) filter (where matured and converted) end as converters,
               count(*) as exposed_users
        from cohort
        group by app_name, campaign_id, conversion_event, window_length, variant_id, control, arms
    ),
    arms as (
        select app_name, campaign_id, conversion_event, window_length, variant_id, control, several_arms,
               users, converters, exposed_users,
               coalesce(sum(exposed_users) filter (where several_arms)
                            over (partition by app_name, campaign_id), 0)::bigint as users_in_several_arms
        from arm_groups
    )
    select app_name, campaign_id, conversion_event, window_length, variant_id, control,
           users, converters, exposed_users, users_in_several_arms, null::text
    from arms
    where not several_arms
    order by app_name, campaign_id, control desc, variant_id nulls first;
$function$;

alter function cardinal.control_arms_from_exposures(text, text, date, date, timestamptz, interval)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms_from_exposures(text, text, date, date, timestamptz, interval)
    to cardinal_reader;

comment on function cardinal.control_arms_from_exposures(text, text, date, date, timestamptz, interval) is
    'control_arms of campaigns (not a canvas), without test events, for each campaign''s conversion event and '
    'the given window (else the campaign''s), from report_control_exposures and the pending events'' change '
    'to it (report_pending_control_exposures), 0040. control_arms calls it when it can.';


-- The report keeps its name, arguments and rows; it picks the state that answers the question.
create function cardinal.control_arms(
    app               text,
    campaign          text,
    from_date         date,
    to_date           date,
    as_of             timestamptz default now(),
    conversion        text        default null,
    conversion_window interval    default null,
    include_test      boolean     default false,
    canvas            text        default null
)
    returns table (
        app_name              text,
        campaign_id           text,
        conversion_event      text,
        window_length         interval,
        variant_id            text,
        control               boolean,
        users                 bigint,
        converters            bigint,
        exposed_users         bigint,
        users_in_several_arms bigint,
        canvas_id             text
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_control_source(campaign, canvas);
    -- A conversion event given is the one the rows keep when it is every reported campaign's own.
    if canvas is null and not coalesce(include_test, false)
       and (conversion is null
            or (campaign is not null
                and not exists (
                    select
                    from cardinal.apps as a
                    left join cardinal.campaign_settings as s
                        on s.app_id = a.app_id and s.campaign_id = control_arms.campaign
                    where (control_arms.app is null or a.name = control_arms.app)
                      and s.conversion_event is distinct from control_arms.conversion
                ))) then
        return query select * from cardinal.control_arms_from_exposures(app, campaign, from_date, to_date, as_of,
                                                                        conversion_window);
    else
        return query select * from cardinal.control_arms_from_user_state(app, campaign, from_date, to_date, as_of,
                                                                         conversion, conversion_window,
                                                                         include_test, canvas);
    end if;
end
$function$;

alter function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text)
    owner to cardinal_owner;

grant execute on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text)
    to cardinal_reader;

comment on function cardinal.control_arms(text, text, date, date, timestamptz, text, interval, boolean, text) is
    'Counts of the control-group report, read from the report state: per app × campaign × arm '
    '(control, or variant_id), the users first exposed in the report days from_date..to_date (first '
    'impression; first control impression for the control arm; the send for push) whose window had elapsed '
    'by as_of (users), those of them who converted within the window (converters; NULL without a '
    'conversion event), every exposed user (exposed_users) and, per campaign, the users excluded for being '
    'in several arms. conversion and conversion_window override campaign_settings. app and campaign NULL = '
    'all. canvas (0034) reports that canvas instead of campaigns: exposures over all its steps, settings '
    'from the campaign_settings row keyed by the canvas id, report days in the app''s zone, campaign_id NULL '
    'and canvas_id set. Definitions in SQL/migrations/0012_control_arms.sql and 0034; '
    'control_arms_reference computes the same from raw events. Campaigns without test events and with their '
    'own conversion events are read from report_control_exposures (0040), the rest from the per-user state.';


grant select on cardinal.report_control_exposures, cardinal.report_pending_control_exposures to cardinal_reader;


-- The rows of the events folded so far: every app's state is made anew by the next fold (as 0027 and 0029 did).
select cardinal.requeue_report_state(a.app_id) from cardinal.apps as a order by a.app_id;
