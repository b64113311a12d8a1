-- 0073_counting_triggers_join_groups_first.sql — the counting triggers of 0071 and 0072 join each row of the
-- statement to its own report group before the touched users (issue 8).
--
-- Design notes (why, not what):
--
-- * A rebuild of the 10 M bench ran out of disk (59.9 GB of temporary files) in count_finding_day_users. An
--   auto_explain of a 1 M rebuild showed why: in `versions` the planner, which sees 15 rows where the statement's
--   transition table and touched users hold 437,457, joined touched to report_groups on the campaign first,
--   80,402,055 rows (every touched user with every group of the campaign), hashed in 2,048 batches: 7 GB of
--   temporary files for that one statement. A fold touches few users and never showed it; a rebuild touches all.
--   Joining each row to its own group first (a subquery kept from being pulled up by OFFSET 0) leaves the planner
--   no such order. count_session_units (0072) joins the same way and gets the same order.
--
-- * The functions are otherwise 0071's and 0072's.


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
            select r.after, r.app_id, t.campaign_key, t.canvas_key, r.campaign_id, r.canvas_step_id, r.finding_id,
                   r.variant_id, r.channel, r.test, r.user_key, r.impression_days, r.dismissal_days,
                   r.control_impression_days, r.send_days, r.control_send_days, r.first_impression_at,
                   r.first_control_impression_at, r.first_control_send_at, r.click_times, r.dismissal_times
            from (
                -- Each row with its own report group first (OFFSET 0 keeps the join order): joined to touched
                -- first, the planner, blind to the transition tables' sizes, paired every touched user with
                -- every report group of the campaign (0073).
                select r.*, g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.finding_id, g.variant_id,
                       g.channel, g.test
                from (%3$s
                ) as r
                join cardinal.report_groups as g on g.group_id = r.group_id
                offset 0
            ) as r
            join touched as t
                on t.app_id = r.app_id and t.campaign_key = coalesce(r.campaign_id, '')
               and t.canvas_key = coalesce(r.canvas_id, '') and t.user_key = r.user_key
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


create or replace function cardinal.count_session_units()
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
    -- The touched users' rows before and after the statement, from their rows now (current_rows) and the
    -- transition tables, as count_finding_day_users makes them (0069): an upsert's update firing leaves out
    -- the rows its insert half wrote, told apart by their xmin and cmin (one value for the statement).
    versions text;
begin
    versions := case tg_op
        when 'INSERT' then
            'select true as after, c.group_id, c.user_key, c.session_id, c.day, c.impressions, c.message_ids
             from current_rows as c
             union all
             select false, c.group_id, c.user_key, c.session_id, c.day, c.impressions, c.message_ids
             from current_rows as c
             where not exists (
                 select from added as n
                 where n.group_id = c.group_id and n.user_key = c.user_key and n.session_id = c.session_id
                   and n.day = c.day)'
        when 'DELETE' then
            'select true as after, c.group_id, c.user_key, c.session_id, c.day, c.impressions, c.message_ids
             from current_rows as c
             union all
             select false, c.group_id, c.user_key, c.session_id, c.day, c.impressions, c.message_ids
             from current_rows as c
             union all
             select false, o.group_id, o.user_key, o.session_id, o.day, o.impressions, o.message_ids
             from removed as o'
        else
            'select true as after, c.group_id, c.user_key, c.session_id, c.day, c.impressions, c.message_ids
             from current_rows as c
             where not c.written_by = any(array(
                       select distinct w.written_by from current_rows as w
                       join added as n
                           on n.group_id = w.group_id and n.user_key = w.user_key and n.session_id = w.session_id
                          and n.day = w.day))
                or exists (
                       select from added as n
                       where n.group_id = c.group_id and n.user_key = c.user_key and n.session_id = c.session_id
                         and n.day = c.day)
             union all
             select false, c.group_id, c.user_key, c.session_id, c.day, c.impressions, c.message_ids
             from current_rows as c
             where not c.written_by = any(array(
                       select distinct w.written_by from current_rows as w
                       join added as n
                           on n.group_id = w.group_id and n.user_key = w.user_key and n.session_id = w.session_id
                          and n.day = w.day))
             union all
             select false, o.group_id, o.user_key, o.session_id, o.day, o.impressions, o.message_ids
             from removed as o'
    end;
    execute format($statement$
        with changed as materialized (
            select n.group_id, n.user_key from %1$s as n
            union
            select o.group_id, o.user_key from %2$s as o
        ),
        -- The finding groups the counts keep, per touched user.
        touched as materialized (
            select distinct g.finding_id, c.user_key
            from changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where not g.test and g.channel <> 'push' and (g.campaign_id is not null or g.canvas_id is not null)
        ),
        -- The touched users' rows of those finding groups' non-test report groups now, with the transaction
        -- and command that wrote each: one probe of the primary key per user and report group (a lateral
        -- subquery, so a nested loop whatever the settings). Two array conditions, users and groups, would
        -- search every pair of the two: a requeue that deletes an app's 372,536 session rows at 1 M events
        -- ran over 15 minutes that way.
        current_rows as materialized (
            select s.group_id, s.user_key, s.session_id, s.day, s.impressions, s.message_ids,
                   s.xmin::text || ':' || s.cmin::text as written_by
            from touched as t
            join cardinal.report_groups as g on g.finding_id = t.finding_id and not g.test
            cross join lateral (
                select s.*, s.xmin, s.cmin
                from cardinal.report_session_state as s
                where s.group_id = g.group_id and s.user_key = t.user_key
                offset 0
            ) as s
        ),
        -- Their sessions before (after false) and after the statement.
        units as materialized (
            select u.*, bool_or(u.days > 1) over (partition by u.after, u.finding_id, u.user_key) as user_spans_days
            from (
                select r.after, r.finding_id, r.channel, r.user_key, r.session_id = '' as without_session,
                       min(r.day) as day, count(distinct r.day) as days, sum(r.impressions) as impressions,
                       cardinal.report_session_allowed(r.channel, cardinal.array_concat_agg(r.message_ids)) as allowed
                from (
                    -- Each row with its own report group first (OFFSET 0 keeps the join order, 0073).
                    select r.*, g.finding_id, g.channel, g.test
                    from (%3$s
                    ) as r
                    join cardinal.report_groups as g on g.group_id = r.group_id
                    offset 0
                ) as r
                join touched as t on t.finding_id = r.finding_id and t.user_key = r.user_key
                -- The transition tables hold the statement's test rows too, which share the finding group.
                where not r.test
                group by r.after, r.finding_id, r.channel, r.user_key, r.session_id,
                         case when r.session_id = '' then r.day end
            ) as u
        ),
        unit_counts as (
            insert into cardinal.report_session_units as c
            select u.finding_id, u.day, u.impressions, u.allowed, u.without_session,
                   sum(case when u.after then 1 else -1 end) as units
            from units as u
            where not u.user_spans_days
            group by 1, 2, 3, 4, 5
            having sum(case when u.after then 1 else -1 end) <> 0
            order by 1, 2, 3, 4, 5
            on conflict (finding_id, day, impressions, allowed, without_session) do update set
                units = c.units + excluded.units
        ),
        -- Each version's pairs, netted below: +1 after, -1 before.
        pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct u.after, u.finding_id, u.user_key, k.kind, u.day
                from units as u
                cross join lateral (
                    select 'session' as kind
                    union all
                    select 'repeated'
                    where cardinal.report_session_repeated(u.channel, u.impressions, u.allowed)
                ) as k
                where not u.user_spans_days
            ) as d
        ),
        -- The touched users with a session that spans days after the statement. Rows leave and join
        -- report_session_apart_users apart (a statement cannot delete and insert one key).
        apart as materialized (
            select distinct u.finding_id, u.user_key
            from units as u
            where u.after and u.user_spans_days
        ),
        left_apart as (
            delete from cardinal.report_session_apart_users as s
            using touched as t
            where s.finding_id = t.finding_id and s.user_key = t.user_key
              and not exists (select from apart as n where n.finding_id = s.finding_id and n.user_key = s.user_key)
        ),
        joined_apart as (
            insert into cardinal.report_session_apart_users
            select * from apart
            order by 1, 2
            on conflict on constraint report_session_apart_users_pkey do nothing
        )
        insert into cardinal.report_session_day_users as c
        select p.finding_id, p.kind, p.day, p.previous_day, sum(case when p.after then 1 else -1 end) as users
        from pairs as p
        group by 1, 2, 3, 4
        having sum(case when p.after then 1 else -1 end) <> 0
        -- One order for every writer, so that two never wait for each other's rows the other way round.
        order by 1, 2, 3, 4
        on conflict (finding_id, kind, day, previous_day) do update set
            users = c.users + excluded.users
    $statement$,
        case when tg_op = 'DELETE' then 'removed' else 'added' end,
        case when tg_op = 'INSERT' then 'added' else 'removed' end,
        versions);
    delete from cardinal.report_session_units where units = 0;
    delete from cardinal.report_session_day_users where users = 0;
    return null;
end
$function$;
