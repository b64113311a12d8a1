-- 0031_message_part_breakdowns.sql — the unique-impressions report broken down by the part of a message
-- people ask about (issue 12, "Breakdowns people ask for"):
--
--     select * from cardinal.unique_impressions('shop', '2026-11-01', '2026-11-30', by => 'button_id');
--     select * from cardinal.unique_impressions('shop', '2026-11-01', '2026-11-30', by => 'placement_id');
--     select * from cardinal.unique_impressions('shop', '2026-11-01', '2026-11-30', by => 'message_id');
--
-- Design notes (why, not what):
--
-- * Each breakdown splits the one channel whose events carry that part, and leaves the others whole (one
--   row, breakdown NULL): button_id splits in-app messages, placement_id banners, message_id content cards
--   (a content-card campaign often holds several cards). That is how the SDKs log them: an in-app message
--   click carries the button pressed (none for the body), a banner every event its placement, a card every
--   event its card id.
--
-- * Buttons split clicks only. An in-app message is shown, and dismissed, as a whole; only a click is on one
--   button or the body. So under button_id an in-app message has one row per button clicked in the range
--   (breakdown NULL: clicks on the body, and the row of a message with no click) and every row repeats the
--   message's impressions, recipients and dismissals: click_rate is then the button's clicks over the
--   message's impressions, the button click-through rate Braze shows. Placements and cards split every
--   column, and the same user counts once in each placement or card she met.
--
-- * State like 0027's report_dismissal_state: per report group, user, part and report day, the events of
--   each kind (report_part_state). The group holds the test flag and the versions; a user's rows go when the
--   user's report_user_state row of the group goes (a trigger, as for 0025 and 0027), so erasure, a requeue,
--   a time zone change and a retention drop keep it right without knowing of it. A breakdown reads the rows
--   of the range, per user and day: exact, fresh (the unfolded events are added on the fly) and as slow as
--   the other breakdowns of the per-user state, not the day pairs' sums.
--
-- * The unfolded events (report_unfolded_events, 0021) carry message_id but not placement_id or button_id:
--   the fold and the pending view look those up in events by primary key, for the banner and in-app click
--   events only, rather than widen the fold queue and the function that every state view reads.
--
-- * A missing part (a card event without message_id, a banner event without placement_id, a body click) is
--   kept as '' and reported as NULL: no key column can hold an empty string (0005's CHECKs).


-- Which part of its message an event is on, for the breakdown that splits its channel; NULL when no
-- breakdown splits it. '' for a missing part.
create function cardinal.report_message_part(
    channel      text,
    type         text,
    message_id   text,
    placement_id text,
    button_id    text
)
    returns text
    language sql
    immutable
    parallel safe
as $function$
    select case
               when channel = 'content_card' then coalesce(message_id, '')
               when channel = 'banner' then coalesce(placement_id, '')
               when channel = 'in_app_message' and type = 'click' then coalesce(button_id, '')
           end;
$function$;

alter function cardinal.report_message_part(text, text, text, text, text) owner to cardinal_owner;

comment on function cardinal.report_message_part(text, text, text, text, text) is
    'The part of its message an event is on (0031): message_id for content cards, placement_id for banners, '
    'button_id for in-app message clicks; '''' when the event lacks it (a body click), NULL for every other '
    'event.';


-- The breakdown argument of unique_impressions, and the channel each part breakdown splits.
create or replace function cardinal.check_report_dimension(dimension text)
    returns boolean
    language plpgsql
    immutable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if dimension is not null and dimension not in ('day', 'platform', 'sdk_version', 'app_version', 'button_id',
                                                   'placement_id', 'message_id') then
        raise exception 'unique_impressions: unknown breakdown "%"', dimension
            using errcode = 'invalid_parameter_value',
                  hint = 'by must be NULL (no breakdown), day, platform, sdk_version, app_version, button_id, '
                         'placement_id or message_id.';
    end if;
    return true;
end
$function$;

comment on function cardinal.check_report_dimension(text) is
    'Argument check of unique_impressions: true for a NULL breakdown or one of day, platform, sdk_version, '
    'app_version, button_id, placement_id, message_id, else raises 22023.';

create function cardinal.report_part_channel(dimension text)
    returns text
    language sql
    immutable
    parallel safe
as $function$
    select case dimension
               when 'button_id' then 'in_app_message'
               when 'placement_id' then 'banner'
               when 'message_id' then 'content_card'
           end;
$function$;

alter function cardinal.report_part_channel(text) owner to cardinal_owner;

comment on function cardinal.report_part_channel(text) is
    'The channel a part breakdown of unique_impressions splits (button_id: in_app_message, placement_id: '
    'banner, message_id: content_card); NULL for the other breakdowns.';


create table cardinal.report_part_state (
    group_id    bigint  not null,
    user_key    text    not null,
    part        text    not null,
    day         date    not null,
    impressions integer not null,
    clicks      integer not null,
    dismissals  integer not null,
    sends       integer not null,

    constraint report_part_state_pkey primary key (group_id, user_key, part, day)
);

alter table cardinal.report_part_state owner to cardinal_owner;

comment on table cardinal.report_part_state is
    'Report state of message parts (0031): per report group, user, part (report_message_part) and report '
    'day, the user''s non-control events of each kind on that part, for the unique-impressions breakdowns by '
    'button_id, placement_id and message_id. Rows go when the user''s report_user_state row of the group goes.';
comment on column cardinal.report_part_state.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_part_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_part_state.part is
    'The card (message_id), banner placement (placement_id) or in-app message button (button_id, clicks '
    'only) of the events; '''' when they have none.';
comment on column cardinal.report_part_state.day is 'The report day of the events.';
comment on column cardinal.report_part_state.impressions is 'Impressions on that part by the user that day.';
comment on column cardinal.report_part_state.clicks is 'Clicks on that part by the user that day.';
comment on column cardinal.report_part_state.dismissals is 'Dismissals of that part by the user that day.';
comment on column cardinal.report_part_state.sends is 'Sends of that part to the user that day.';


-- The unfolded events with a part, counted per group, user, part and day. The lookup of the event's row is
-- one primary-key probe per banner or in-app click event (a card has its part in message_id): a subquery, so
-- that it stays a probe when the fold turns nested-loop joins off for its joins with the groups.
create view cardinal.report_pending_part_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, part.part, local.day,
       count(*) filter (where q.type = 'impression')::integer as impressions,
       count(*) filter (where q.type = 'click')::integer as clicks,
       count(*) filter (where q.type = 'dismissal')::integer as dismissals,
       count(*) filter (where q.type = 'send')::integer as sends
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select case
               when q.channel = 'content_card' then coalesce(q.message_id, '')
               else coalesce((select cardinal.report_message_part(e.channel, e.type, e.message_id, e.placement_id,
                                                                  e.button_id)
                              from cardinal.events as e
                              where e.app_id = q.app_id and e.time = q.time and e.id = q.id), '')
           end as part
) as part
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type in ('impression', 'click', 'dismissal', 'send')
  and not q.control
  and (q.campaign_id is not null or q.canvas_step_id is not null)
  and cardinal.report_message_part(q.channel, q.type, '', '', '') is not null
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

alter view cardinal.report_pending_part_facts owner to cardinal_owner;

comment on view cardinal.report_pending_part_facts is
    'The unfolded events (report_unfolded_events) as report_part_state rows, with the group''s columns: what '
    'the next fold adds.';

create view cardinal.report_part_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, p.user_key, p.part, p.day, p.impressions, p.clicks, p.dismissals,
       p.sends
from cardinal.report_part_state as p
join cardinal.report_groups as g on g.group_id = p.group_id
union all
select * from cardinal.report_pending_part_facts;

alter view cardinal.report_part_facts owner to cardinal_owner;

comment on view cardinal.report_part_facts is
    'Events per user, message part and report day in each report group: report_part_state and the unfolded '
    'events; sum over both.';

-- The views' columns mean what the state's (or the group's) columns of the same name mean.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name,
               coalesce(pg_catalog.col_description('cardinal.report_part_state'::regclass,
                                                   (select c.attnum from pg_catalog.pg_attribute as c
                                                    where c.attrelid = 'cardinal.report_part_state'::regclass
                                                      and c.attname = a.attname)),
                        pg_catalog.col_description('cardinal.report_groups'::regclass,
                                                   (select c.attnum from pg_catalog.pg_attribute as c
                                                    where c.attrelid = 'cardinal.report_groups'::regclass
                                                      and c.attname = a.attname))) as description
        from unnest(array['report_pending_part_facts', 'report_part_facts']) as v (view_name)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;

grant select on cardinal.report_part_state, cardinal.report_pending_part_facts, cardinal.report_part_facts
    to cardinal_reader;


-- Part of the fold, like fold_report_dismissals (0027): before fold_report_user_state moves the watermark.
create function cardinal.fold_report_parts()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- As in fold_report_state (0015): the unfolded events are never analyzed; hash joins are right. (The
    -- lookup of each event's own row is a subquery, a primary-key probe whatever these say.)
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
begin
    insert into cardinal.report_groups
        (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version,
         test)
    select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
           app_version, test
    from cardinal.report_pending_part_facts
    order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict do nothing;

    insert into cardinal.report_part_state as p
    select g.group_id, f.user_key, f.part, f.day, f.impressions, f.clicks, f.dismissals, f.sends
    from cardinal.report_pending_part_facts as f
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
    order by 1, 2, 3, 4
    on conflict (group_id, user_key, part, day) do update set
        impressions = p.impressions + excluded.impressions,
        clicks = p.clicks + excluded.clicks,
        dismissals = p.dismissals + excluded.dismissals,
        sends = p.sends + excluded.sends;
end
$function$;

alter function cardinal.fold_report_parts() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_parts() from public;

comment on function cardinal.fold_report_parts() is
    'Folds the unfolded events with a message part into report_part_state. Part of fold_report_state(), '
    'which holds the state lock and moves the watermark; not to be called alone.';


-- 0030's fold_report_state with the parts step added (and 0025's work_mem, which CREATE OR REPLACE would
-- otherwise drop).
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
    perform cardinal.fold_report_conversion_values();
    perform cardinal.fold_report_parts();
    return cardinal.fold_report_user_state();
end
$function$;


-- Deleting a user's state (erasure, requeue) deletes its parts in the same groups.
create function cardinal.forget_report_parts()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_part_state as p
    using (select distinct group_id, user_key from forgotten) as f
    where p.group_id = f.group_id and p.user_key = f.user_key;
    return null;
end
$function$;

alter function cardinal.forget_report_parts() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_parts() from public;

comment on function cardinal.forget_report_parts() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_part_state rows in '
    'the same report groups.';

create trigger report_user_state_forget_parts
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_parts();

comment on trigger report_user_state_forget_parts on cardinal.report_user_state is
    'Keeps report_part_state equal to what report_user_state holds (0031).';


-- The folded events' parts. Every event with a part also made its user's report_user_state row of its group,
-- so the users are those of report_user_state, and their events are the stored ones outside the queue and
-- past the watermark (the next fold's).
insert into cardinal.report_part_state
select g.group_id, e.user_key, part.part, local.day,
       count(*) filter (where e.type = 'impression'), count(*) filter (where e.type = 'click'),
       count(*) filter (where e.type = 'dismissal'), count(*) filter (where e.type = 'send')
from cardinal.events as e
join cardinal.apps as a on a.app_id = e.app_id
left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
cross join lateral (
    select cardinal.report_message_part(e.channel, e.type, e.message_id, e.placement_id, e.button_id) as part
) as part
cross join lateral (
    select (e.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
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
where e.type in ('impression', 'click', 'dismissal', 'send')
  and not e.control
  and (e.campaign_id is not null or e.canvas_step_id is not null)
  and part.part is not null
  and not exists (select from cardinal.report_unfolded_events() as u
                  where u.app_id = e.app_id and u.time = e.time and u.id = e.id)
group by 1, 2, 3, 4;


-- The reference of 0029 keeps its body for the breakdowns it had, under another name, and the part
-- breakdowns are computed from raw events by unique_impressions_by_part. The body names its arguments by the
-- function's name, so the copy spells them by the new one (a plain RENAME would leave it naming a function
-- that no longer has them).
do $rename$
declare
    reference constant regprocedure :=
        'cardinal.unique_impressions_reference(text, date, date, boolean, text, text)'::regprocedure;
begin
    execute (
        select format('create function cardinal.unique_impressions_reference_of_0029(%s) returns %s '
                      'language sql stable as %L',
                      pg_catalog.pg_get_function_arguments(p.oid), pg_catalog.pg_get_function_result(p.oid),
                      replace(p.prosrc, 'unique_impressions_reference.', 'unique_impressions_reference_of_0029.'))
        from pg_catalog.pg_proc as p
        where p.oid = reference
    );
    execute format('drop function %s', reference);
end
$rename$;

alter function cardinal.unique_impressions_reference_of_0029(text, date, date, boolean, text, text)
    owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_reference_of_0029(text, date, date, boolean, text, text)
    to cardinal_reader;

comment on function cardinal.unique_impressions_reference_of_0029(text, date, date, boolean, text, text) is
    'The reference unique-impressions report of 0029 over raw events: no breakdown, or by day, platform, '
    'sdk_version or app_version. unique_impressions_reference calls it for those.';

-- The breakdowns by part, from the state (from_state) or from the raw events (for the reference). See the
-- design notes for what each row holds.
create function cardinal.unique_impressions_by_part(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    by           text,
    from_state   boolean
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
        unique_dismissal_rate    double precision
    )
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               cardinal.report_part_channel(unique_impressions_by_part.by) as split_channel
        from cardinal.apps as a
        where cardinal.check_report_range(unique_impressions_by_part.from_date, unique_impressions_by_part.to_date)
          and cardinal.report_part_channel(unique_impressions_by_part.by) is not null
          and (unique_impressions_by_part.app is null or a.name = unique_impressions_by_part.app)
    ),
    -- Events per row, part, user and day of the split channel, from the state or the raw events.
    part_days as (
        select t.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.variant_id, f.channel, f.part,
               f.user_key, f.day, f.impressions, f.clicks, f.dismissals, f.sends
        from target as t
        join cardinal.report_part_facts as f on f.app_id = t.app_id and f.channel = t.split_channel
        where unique_impressions_by_part.from_state
          and (unique_impressions_by_part.include_test or not f.test)
          and (unique_impressions_by_part.campaign is null or f.campaign_id = unique_impressions_by_part.campaign)
          and f.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        union all
        select t.app_name, e.campaign_id, e.canvas_id, e.canvas_step_id, e.variant_id, e.channel,
               cardinal.report_message_part(e.channel, e.type, e.message_id, e.placement_id, e.button_id),
               e.user_key, local.day,
               count(*) filter (where e.type = 'impression'), count(*) filter (where e.type = 'click'),
               count(*) filter (where e.type = 'dismissal'), count(*) filter (where e.type = 'send')
        from target as t
        join cardinal.events as e on e.app_id = t.app_id and e.channel = t.split_channel
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date as day
        ) as local
        where not unique_impressions_by_part.from_state
          and (e.campaign_id is not null or e.canvas_step_id is not null)
          and (unique_impressions_by_part.campaign is null or e.campaign_id = unique_impressions_by_part.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and cardinal.report_message_part(e.channel, e.type, '', '', '') is not null
          and not e.control
          and (unique_impressions_by_part.include_test or not e.test)
          and e.time >= (unique_impressions_by_part.from_date - 1)::timestamp at time zone 'UTC'
          and e.time < (unique_impressions_by_part.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between unique_impressions_by_part.from_date and unique_impressions_by_part.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    -- The same user and day can come from several groups (platforms, test or not) and from both the folded
    -- and the unfolded side: one (user, day) per part first.
    user_days as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, part, user_key, day,
               sum(impressions) as impressions, sum(clicks) as clicks, sum(dismissals) as dismissals,
               sum(sends) as sends
        from part_days
        group by 1, 2, 3, 4, 5, 6, 7, 8, 9
    ),
    parts as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, nullif(part, '') as breakdown,
               sum(impressions)::bigint as impressions,
               count(distinct user_key) filter (where impressions > 0) as unique_impressions,
               count(*) filter (where impressions > 0) as unique_daily_impressions,
               count(*) filter (
                   where case when channel in ('content_card', 'in_app_message') then impressions > 0
                              else sends > 0 end
               ) as unique_recipients,
               sum(clicks)::bigint as clicks,
               count(distinct user_key) filter (where clicks > 0) as unique_clicks,
               sum(dismissals)::bigint as dismissals,
               count(distinct user_key) filter (where dismissals > 0) as unique_dismissals
        from user_days
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    -- The whole rows: the report without a breakdown, from the same side (its first 19 columns).
    totals as (
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.channel, w.breakdown,
               w.impressions, w.unique_impressions, w.unique_daily_impressions, w.unique_recipients, w.clicks,
               w.unique_clicks, w.dismissals, w.unique_dismissals
        from cardinal.unique_impressions_of_0025(unique_impressions_by_part.app, unique_impressions_by_part.from_date,
                                                 unique_impressions_by_part.to_date,
                                                 unique_impressions_by_part.include_test,
                                                 unique_impressions_by_part.campaign) as w
        where unique_impressions_by_part.from_state
        union all
        select w.app_name, w.campaign_id, w.canvas_id, w.canvas_step_id, w.variant_id, w.channel, w.breakdown,
               w.impressions, w.unique_impressions, w.unique_daily_impressions, w.unique_recipients, w.clicks,
               w.unique_clicks, w.dismissals, w.unique_dismissals
        from cardinal.unique_impressions_reference_of_0029(
                 unique_impressions_by_part.app, unique_impressions_by_part.from_date,
                 unique_impressions_by_part.to_date, unique_impressions_by_part.include_test,
                 unique_impressions_by_part.campaign) as w
        where not unique_impressions_by_part.from_state
    ),
    counted as (
        -- Channels the breakdown does not split, whole.
        select t.app_name, t.campaign_id, t.canvas_id, t.canvas_step_id, t.variant_id, t.channel, t.breakdown,
               t.impressions, t.unique_impressions, t.unique_daily_impressions, t.unique_recipients,
               t.clicks, t.unique_clicks, t.dismissals, t.unique_dismissals
        from totals as t
        where t.channel <> cardinal.report_part_channel(unique_impressions_by_part.by)
        union all
        -- Cards and placements, every column per part.
        select p.app_name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.breakdown,
               p.impressions, p.unique_impressions, p.unique_daily_impressions, p.unique_recipients,
               p.clicks, p.unique_clicks, p.dismissals, p.unique_dismissals
        from parts as p
        where p.channel <> 'in_app_message'
        union all
        -- In-app messages: the message's figures, its clicks per button (a row with none when none).
        select t.app_name, t.campaign_id, t.canvas_id, t.canvas_step_id, t.variant_id, t.channel,
               b.breakdown, t.impressions, t.unique_impressions, t.unique_daily_impressions, t.unique_recipients,
               coalesce(b.clicks, 0), coalesce(b.unique_clicks, 0), t.dismissals, t.unique_dismissals
        from totals as t
        left join parts as b
            on b.app_name = t.app_name
           and coalesce(b.campaign_id, '') = coalesce(t.campaign_id, '')
           and coalesce(b.canvas_id, '') = coalesce(t.canvas_id, '')
           and coalesce(b.canvas_step_id, '') = coalesce(t.canvas_step_id, '')
           and coalesce(b.variant_id, '') = coalesce(t.variant_id, '')
           and b.channel = t.channel
        where t.channel = 'in_app_message' and unique_impressions_by_part.by = 'button_id'
    )
    select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
           impressions, unique_impressions, unique_daily_impressions, unique_recipients,
           clicks, unique_clicks, dismissals, unique_dismissals,
           clicks::double precision / nullif(impressions, 0),
           unique_clicks::double precision / nullif(unique_impressions, 0),
           dismissals::double precision / nullif(impressions, 0),
           unique_dismissals::double precision / nullif(unique_impressions, 0)
    from counted
    order by app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown;
$function$;

alter function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean)
    owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean)
    to cardinal_reader;

comment on function cardinal.unique_impressions_by_part(text, date, date, boolean, text, text, boolean) is
    'unique_impressions by button_id, placement_id or message_id (0031), from the report state (from_state, '
    'report_part_facts) or from the raw events (not from_state, for unique_impressions_reference): the '
    'channel the breakdown splits gets a row per part (in-app messages: per button clicked, each repeating '
    'the message''s impressions and dismissals), the other channels one row with breakdown NULL.';


-- 0025's unique_impressions (0029 named it unique_impressions_of_0025 and adds the push columns to what it
-- returns), which now also sends the part breakdowns to unique_impressions_by_part.
create or replace function cardinal.unique_impressions_of_0025(
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
        unique_dismissal_rate    double precision
    )
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_report_dimension(by);
    if cardinal.report_part_channel(by) is not null then
        return query select * from cardinal.unique_impressions_by_part(app, from_date, to_date,
                                                                     coalesce(include_test, false), campaign, by,
                                                                     true);
    elsif not coalesce(include_test, false) and (by is null or by = 'day') then
        return query select * from cardinal.unique_impressions_from_day_pairs(app, from_date, to_date, campaign,
                                                                            by is not null);
    else
        return query select * from cardinal.unique_impressions_from_user_state(app, from_date, to_date,
                                                                             include_test, campaign, by);
    end if;
end
$function$;

comment on function cardinal.unique_impressions_of_0025(text, date, date, boolean, text, text) is
    'The 19 columns of unique_impressions before the push columns (0025); unique_impressions (0029) adds '
    'them. It picks the state that answers fastest: the day pairs without test events and with no breakdown '
    'or by day, report_part_facts (unique_impressions_by_part) by button_id, placement_id or message_id '
    '(0031), else the per-user state.';

comment on function cardinal.unique_impressions(text, date, date, boolean, text, text) is
    'Unique-impressions report: one row per app × campaign (or canvas step) × variant × channel (× the '
    'breakdown: by => day, platform, sdk_version, app_version, button_id, placement_id or message_id) over '
    'the report days from_date..to_date (both included) in each campaign''s report time zone, read from the '
    'report state. app NULL = every app; campaign NULL = every campaign and canvas step. Users are user_key; '
    'control and (unless include_test) test events are left out. unique_impressions counts a user once in the '
    'range, unique_daily_impressions once per day; rates are NULL when their divisor is 0. The part '
    'breakdowns (0031) split one channel each: in-app message clicks by button (each row repeating the '
    'message''s impressions), banners by placement, content cards by card. The last six columns (0029) are '
    'for push and NULL on other channels: direct_opens and unique_direct_opens are the clicks, '
    'influenced_opens the users who opened the app within the influenced_open_window after a send without '
    'a direct open (push_opens), total_opens = unique_direct_opens + influenced_opens, and both open rates '
    'divide by unique_recipients. Definitions in SQL/migrations/0010_unique_impressions.sql, 0029 and 0031; '
    'unique_impressions_reference computes the same from raw events.';


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
    language plpgsql
    stable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    perform cardinal.check_report_range(from_date, to_date), cardinal.check_report_dimension(by);
    if cardinal.report_part_channel(by) is null then
        return query select * from cardinal.unique_impressions_reference_of_0029(app, from_date, to_date,
                                                                               include_test, campaign, by);
        return;
    end if;
    -- No part breakdown splits push: its rows, and their open columns, are those of the whole report.
    return query
    select p.*, w.direct_opens, w.unique_direct_opens, w.influenced_opens, w.total_opens, w.direct_open_rate,
           w.total_open_rate
    from cardinal.unique_impressions_by_part(app, from_date, to_date, coalesce(include_test, false), campaign, by,
                                             false) as p
    left join cardinal.unique_impressions_reference_of_0029(app, from_date, to_date, include_test, campaign) as w
        on p.channel = 'push'
       and w.app_name = p.app_name
       and w.campaign_id is not distinct from p.campaign_id
       and w.canvas_id is not distinct from p.canvas_id
       and w.canvas_step_id is not distinct from p.canvas_step_id
       and w.variant_id is not distinct from p.variant_id
       and w.channel = p.channel
    order by p.app_name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel, p.breakdown;
end
$function$;

alter function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) owner to cardinal_owner;

grant execute on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text)
    to cardinal_reader;

comment on function cardinal.unique_impressions_reference(text, date, date, boolean, text, text) is
    'Reference implementation of unique_impressions over the raw events (0016''s and 0029''s, and 0031''s part '
    'breakdowns): the same arguments and rows, computed without the report state. Slow on purpose; the '
    'property tests compare both.';
