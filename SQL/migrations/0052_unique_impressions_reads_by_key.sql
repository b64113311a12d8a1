-- 0052_unique_impressions_reads_by_key.sql — unique_impressions reads one campaign's state by key and sums the
-- day counts per group before it groups by text (issue 8).
--
-- Design notes (why, not what):
--
-- * Profiled at 10 M events (auto_explain, load average 8): unique_impressions for the largest campaign took
--   0.3–0.7 s, of which push_opens took two thirds for a campaign that sends no push: its sends come from
--   report_push_send_facts, which joins the whole report_push_send_state (819 k rows) to the groups before the
--   campaign's filter can apply. push_opens now reads report_push_send_facts_of(campaign), which finds the
--   campaign's groups first and their rows by report_push_send_state's primary key (group_id, user_key), as
--   report_user_facts_of (0042) does for the per-user state. The function is rewritten in place (as 0042).
--
-- * For all campaigns (1.0–2.4 s) most of the time went to two aggregates grouped by text columns. The totals
--   joined the 247 k day counts of the range to their groups and grouped them by five text columns, sorted
--   (the planner guessed 1 k rows): 0.9 s of sort alone. The uniques grouped the 143 k day pairs of the range
--   by the same text columns. unique_impressions_from_day_pairs now sums the day counts per group id (and day,
--   by day) and the day pairs per report row id, kind, day (by day) and whether the previous day is before the
--   range, hashes on integers, and groups the few thousand sums by text after. Both folded reads take their
--   keys from an array of the selected groups or report rows: an index condition for one campaign, the same
--   work as a scan for all, whatever the estimates; the function runs with sorts, nested loops and JIT off so
--   that no aggregate or join is planned on a guess.
--
-- * Measured in psql at 10 M events, load average 7–8 (two other workers), same rows before and after (md5
--   of all campaigns and of one, with and without `by => 'day'`): unique_impressions for all campaigns
--   1.05–1.72 → 0.60–0.82 s, for the largest campaign 0.34–0.42 → 0.11–0.20 s.
--
-- * Every pending read calls unfolded_stored_events(), whose query over every partition's stored_xid index
--   took 10–15 ms to plan, each time (a custom plan per call: its bounds are PL/pgSQL variables), and a report
--   calls it several times. It now keeps one generic plan per session: 12–16 → 3–7 ms a call after the first.


-- The rows of report_push_send_facts of one campaign (every row when campaign is NULL).
create function cardinal.report_push_send_facts_of(campaign text)
    returns setof cardinal.report_push_send_facts
    language sql
    stable
as $function$
    select f.*
    from cardinal.report_push_send_facts as f
    where report_push_send_facts_of.campaign is null
    union all
    -- The campaign's groups, then their rows by the primary key's first column.
    select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
           g.sdk_version, g.app_version, g.test, p.user_key, p.times
    from cardinal.report_push_send_state as p
    join cardinal.report_groups as g on g.group_id = p.group_id
    where report_push_send_facts_of.campaign is not null
      and p.group_id = any(array(
              select s.group_id
              from cardinal.report_groups as s
              where s.campaign_id = report_push_send_facts_of.campaign
          ))
    union all
    select p.*
    from cardinal.report_pending_push_send_facts as p
    where report_push_send_facts_of.campaign is not null
      and p.campaign_id = report_push_send_facts_of.campaign;
$function$;

alter function cardinal.report_push_send_facts_of(text) owner to cardinal_owner;

grant execute on function cardinal.report_push_send_facts_of(text) to cardinal_reader;

comment on function cardinal.report_push_send_facts_of(text) is
    'The rows of report_push_send_facts of one campaign (campaign_id = campaign), every row when it is NULL. '
    'The folded rows are found by the campaign''s groups (an index condition), so one campaign costs what its '
    'sends hold, whatever the planner estimates (0052).';


do $push_sends_of_one_campaign$
declare
    definition text := pg_catalog.pg_get_functiondef('cardinal.push_opens'::regproc);
begin
    if regexp_count(definition, '\mcardinal\.report_push_send_facts\M') <> 1
       or regexp_count(definition, '\mcardinal\.report_push_send_facts as f on ') <> 1 then
        raise exception '0052: push_opens does not read report_push_send_facts the way this migration expects';
    end if;
    execute regexp_replace(definition, '\mcardinal\.report_push_send_facts as f on ',
                           'cardinal.report_push_send_facts_of(push_opens.campaign) as f on ');
end
$push_sends_of_one_campaign$;


-- 0025's report with the folded reads by key and the day counts summed per group first.
create or replace function cardinal.unique_impressions_from_day_pairs(
    app       text,
    from_date date,
    to_date   date,
    campaign  text,
    by_day    boolean
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
    set enable_sort = off
    set enable_incremental_sort = off
    set enable_nestloop = off
    set jit = off
as $function$
    -- The report rows and the groups the report reads (test groups are left out).
    with selected_rows as materialized (
        select r.row_id
        from cardinal.apps as a
        join cardinal.report_rows as r on r.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or r.campaign_id = unique_impressions_from_day_pairs.campaign)
    ),
    selected_groups as materialized (
        select g.group_id
        from cardinal.apps as a
        join cardinal.report_groups as g on g.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or g.campaign_id = unique_impressions_from_day_pairs.campaign)
          and not g.test
    ),
    -- The pairs of the range: the folded counts and the change the unfolded events make to them. The folded
    -- counts are summed per report row id first (a hash on integers) down to what the sums below tell apart:
    -- the kind, the day (by day) and whether the previous day is before the range.
    pairs as (
        select a.name as app_name, r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id, r.channel,
               p.kind, p.day, p.first_in_range, p.users
        from (
            select d.row_id, d.kind, case when unique_impressions_from_day_pairs.by_day then d.day end as day,
                   d.previous_day < unique_impressions_from_day_pairs.from_date as first_in_range,
                   sum(d.users) as users
            from cardinal.report_row_day_users as d
            where d.row_id = any(array(select row_id from selected_rows))
              and d.day between unique_impressions_from_day_pairs.from_date
                            and unique_impressions_from_day_pairs.to_date
            group by 1, 2, 3, 4
        ) as p
        join cardinal.report_rows as r on r.row_id = p.row_id
        join cardinal.apps as a on a.app_id = r.app_id
        union all
        select a.name, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel,
               p.kind, p.day, p.previous_day < unique_impressions_from_day_pairs.from_date, p.users
        from cardinal.apps as a
        join cardinal.report_pending_row_day_users as p on p.app_id = a.app_id
        where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
          and (unique_impressions_from_day_pairs.campaign is null
               or p.campaign_id = unique_impressions_from_day_pairs.campaign)
          and p.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
    ),
    -- A user counts once in the range at its first day there, the one whose previous day is before the
    -- range; by day, each day is a range of its own. Every pair of the range is a (day, user).
    uniques as (
        select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel,
               case when unique_impressions_from_day_pairs.by_day then to_char(day, 'YYYY-MM-DD') end as breakdown,
               coalesce(sum(users) filter (
                   where kind = 'impression'
                     and (unique_impressions_from_day_pairs.by_day
                          or first_in_range)
               ), 0)::bigint as unique_impressions,
               coalesce(sum(users) filter (where kind = 'impression'), 0)::bigint as unique_daily_impressions,
               coalesce(sum(users) filter (
                   where kind = case when channel in ('content_card', 'in_app_message') then 'impression'
                                     else 'send' end
               ), 0)::bigint as unique_recipients,
               coalesce(sum(users) filter (
                   where kind = 'click'
                     and (unique_impressions_from_day_pairs.by_day
                          or first_in_range)
               ), 0)::bigint as unique_clicks,
               coalesce(sum(users) filter (
                   where kind = 'dismissal'
                     and (unique_impressions_from_day_pairs.by_day
                          or first_in_range)
               ), 0)::bigint as unique_dismissals
        from pairs
        group by 1, 2, 3, 4, 5, 6, 7
        -- A report row exists where the range has a (day, user) of some kind.
        having sum(users) > 0
    ),
    -- The folded day counts summed per group (and day, by day) before they meet the groups' text columns.
    group_totals as (
        select c.group_id, case when unique_impressions_from_day_pairs.by_day then c.day end as day,
               sum(c.impressions) as impressions, sum(c.clicks) as clicks, sum(c.dismissals) as dismissals
        from cardinal.report_daily_counts as c
        where c.group_id = any(array(select group_id from selected_groups))
          and c.day between unique_impressions_from_day_pairs.from_date and unique_impressions_from_day_pairs.to_date
        group by 1, 2
    ),
    totals as (
        select o.app_name, o.campaign_id, o.canvas_id, o.canvas_step_id, o.variant_id, o.channel,
               case when unique_impressions_from_day_pairs.by_day then to_char(o.day, 'YYYY-MM-DD') end as breakdown,
               sum(o.impressions) as impressions, sum(o.clicks) as clicks, sum(o.dismissals) as dismissals
        from (
            select a.name as app_name, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel,
                   t.day, t.impressions, t.clicks, t.dismissals
            from group_totals as t
            join cardinal.report_groups as g on g.group_id = t.group_id
            join cardinal.apps as a on a.app_id = g.app_id
            union all
            select a.name, c.campaign_id, c.canvas_id, c.canvas_step_id, c.variant_id, c.channel,
                   c.day, c.impressions, c.clicks, c.dismissals
            from cardinal.apps as a
            join cardinal.report_pending_daily_counts as c on c.app_id = a.app_id
            where (unique_impressions_from_day_pairs.app is null or a.name = unique_impressions_from_day_pairs.app)
              and (unique_impressions_from_day_pairs.campaign is null
                   or c.campaign_id = unique_impressions_from_day_pairs.campaign)
              and not c.test
              and c.day between unique_impressions_from_day_pairs.from_date
                            and unique_impressions_from_day_pairs.to_date
        ) as o
        group by 1, 2, 3, 4, 5, 6, 7
    ),
    counted as (
        select u.app_name, u.campaign_id, u.canvas_id, u.canvas_step_id, u.variant_id, u.channel, u.breakdown,
               coalesce(t.impressions, 0)::bigint as impressions, u.unique_impressions, u.unique_daily_impressions,
               u.unique_recipients, coalesce(t.clicks, 0)::bigint as clicks, u.unique_clicks,
               coalesce(t.dismissals, 0)::bigint as dismissals, u.unique_dismissals
        from uniques as u
        -- '' stands for NULL (no key or breakdown value can be empty), so that the join can be hashed.
        left join totals as t
            on t.app_name = u.app_name
           and coalesce(t.campaign_id, '') = coalesce(u.campaign_id, '')
           and coalesce(t.canvas_id, '') = coalesce(u.canvas_id, '')
           and coalesce(t.canvas_step_id, '') = coalesce(u.canvas_step_id, '')
           and coalesce(t.variant_id, '') = coalesce(u.variant_id, '')
           and t.channel = u.channel
           and coalesce(t.breakdown, '') = coalesce(u.breakdown, '')
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


alter function cardinal.unfolded_stored_events() set plan_cache_mode = force_generic_plan;
