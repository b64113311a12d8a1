-- 0036_push_opens_planner_proof.sql — push_opens (0029) reads the pending session starts once, and its joins
-- are hashed whatever the row estimates.
--
-- Why: 0029 inlined push_opens into unique_impressions and probed report_conversion_facts once per push send.
-- The pending half of that view calls report_unfolded_events(), which scans every event not yet folded; the
-- planner, estimating one send and one pending conversion, put it on the inner side of a nested loop. On a
-- fresh database of 50,000 unfolded events (2,609 push sends) unique_impressions took 42 s, 41.6 of them in
-- 2,609 scans of the same events. No report's cost may hinge on a row estimate (issue 8): the app opens are
-- now a materialized CTE (read once), and the function turns nested loops off so that sends meet opens, and
-- influenced users meet direct openers, through hash joins on (app, user), and JIT off (the disable cost the
-- remaining lateral loops carry would pass every JIT threshold: 20 s per call on a few thousand events). The
-- SET clauses keep the planner from inlining the function, so the settings apply to this query alone. Rows
-- and arguments are 0029's.

create or replace function cardinal.push_opens(
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
    -- The unnest of each send's and open's times stays a (lateral) nested loop: nothing else can do it.
    set enable_nestloop = off
    -- Those loops then carry the planner's disable cost, which would pass every JIT threshold and compile
    -- each call's plan (seconds, on a database of a few thousand events).
    set jit = off
as $function$
    with sends as materialized (
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
    direct_openers as materialized (
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
    -- Only the users with a send in the range: the app opens of everyone else are never needed.
    app_opens as materialized (
        select c.app_id, c.user_key, opened.at
        from cardinal.report_conversion_facts as c
        cross join lateral unnest(c.times) as opened (at)
        where c.conversion_name = cardinal.session_start_state_name()
          and (push_opens.include_test or not c.test)
          and (c.app_id, c.user_key) in (select s.app_id, s.user_key from sends as s)
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
