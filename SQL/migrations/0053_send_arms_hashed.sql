-- 0053_send_arms_hashed.sql — send_arms reads only the state columns it counts and makes each arm's users
-- distinct by hashing (issue 8).
--
-- Design notes (why, not what):
--
-- * The control report learns a campaign's expected split from send_arms (0027): per campaign × arm, the
--   distinct users with a send (or control send) on a report day of the range. 0027's body (through 0042's
--   report_user_facts_of) read every per-user state row of the app (a user has a row per channel, platform,
--   SDK and app version group: 4.1 M rows at 10 M events) and counted count(distinct user_key) per arm: 21 s
--   of the control command's 26 s for all campaigns.
--
-- * Profiled on 1 M events (437 k state rows, all campaigns, 30 days; EXPLAIN ANALYZE, 2.7 s with its
--   timing), the count(distinct) sorts were not most of it: reading report_user_facts projected every column
--   of every row through the view's union (the day sets, the click and dismissal times: about 0.6 s), the
--   lateral VALUES that made two arm rows per state row ran once per row (about 1.5 s), and
--   `send_days && <the range's days>` compared each day of the row with each of the range's 30.
--
-- * So send_arms reads report_user_state joined to report_groups itself, only the columns it counts (every
--   folded row, or one campaign's rows by its groups with 0042's `group_id = any(array(...))`), plus the
--   pending events' rows (report_pending_user_facts), as report_user_facts_of gave them: exact while events
--   wait for the fold. The range is a daterange and a row is in it when the range contains any of its days
--   (`@> any`): the same test as the overlap, a comparison per day of the row.
--
-- * Users are made distinct in one hash aggregate per app × campaign × variant × user, with whether any of
--   the user's rows has a send and whether any has a control send in the range; the variant arms count those
--   rows, the control arm (which has no variant) the distinct users of the campaign among them. Same rows as
--   0027's count(distinct) per arm: the same set of (app, campaign, arm, user), each counted once.
--
-- * The function runs with enable_sort off, so that the distinct steps are hashed whatever the planner
--   estimates of the users (0036's rule: no plan hinges on a row estimate), and with enable_nestloop and jit
--   off as every report; the users are a materialized CTE read by both arms. Settings on a function keep the
--   planner from inlining it, which a set-returning function in FROM did not need: callers read it whole.
--
-- * Not done: the counts that would make send_arms a sum over a few hundred rows (0025's day pairs per
--   campaign × arm, kept from the per-user state by statement triggers with transition tables, pending events
--   adjusted as report_pending_row_day_users does). The pairs need each user's send days per campaign and
--   arm across the user's groups (a per-user table under the counts, with a count of the groups holding each
--   day so that a deletion knows whether the day leaves the user). This step still reads every state row of
--   the app once for all campaigns, so it scales with the state, not with the campaigns.
--
-- * Measured in psql (jit off, work_mem 64MB) on 1 M events of scripts/bench/seed_reports.sql (437,624 state
--   rows; report days 2026-11-01..30), 0027's body as a temporary function run alternately with this one:
--   load average 1.2–1.4, all campaigns (234 rows) 1.53–2.10 s before, 1.35–1.87 s after; the largest
--   campaign, c38 (4 rows, 14,810 state rows), 67–68 ms before, 58–66 ms after. Load average 2.2–2.7: all
--   campaigns 2.94–3.21 s before, 2.33–2.87 s after. A gain of about a tenth, not the step the control
--   command needs: the hash aggregate of every state row by user is most of what is left, and only counts
--   (above) remove it. md5 of the ordered rows equal before and after for all campaigns, for c38, for
--   2026-11-10..16 and, with test events, for 2026-11-03..05.


create or replace function cardinal.send_arms(
    app          text,
    campaign     text,
    from_date    date,
    to_date      date,
    include_test boolean default false
)
    returns table (
        app_name    text,
        campaign_id text,
        variant_id  text,
        control     boolean,
        users       bigint
    )
    language sql
    stable
    -- Hash the users whatever the estimates: a sort of every state row by user is what this replaces.
    set enable_sort = off
    set enable_nestloop = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name,
               -- The report days of the range, for the containment tests on the state's day sets.
               daterange(send_arms.from_date, send_arms.to_date, '[]') as days
        from cardinal.apps as a
        where cardinal.check_report_range(send_arms.from_date, send_arms.to_date)
          and (send_arms.app is null or a.name = send_arms.app)
    ),
    -- report_user_facts' rows of campaigns, only the columns counted: every folded row, or one campaign's by
    -- its groups (0042's index condition), and the pending events' rows.
    facts as (
        select g.app_id, g.campaign_id, g.variant_id, u.user_key, u.send_days, u.control_send_days
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        where send_arms.campaign is null
          and g.campaign_id is not null
          and (send_arms.include_test or not g.test)
        union all
        select g.app_id, g.campaign_id, g.variant_id, u.user_key, u.send_days, u.control_send_days
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        where send_arms.campaign is not null
          and u.group_id = any(array(
                  select s.group_id from cardinal.report_groups as s where s.campaign_id = send_arms.campaign
              ))
          and g.campaign_id = send_arms.campaign
          and (send_arms.include_test or not g.test)
        union all
        select p.app_id, p.campaign_id, p.variant_id, p.user_key, p.send_days, p.control_send_days
        from cardinal.report_pending_user_facts as p
        where p.campaign_id is not null
          and (send_arms.campaign is null or p.campaign_id = send_arms.campaign)
          and (send_arms.include_test or not p.test)
    ),
    -- Each user once per app, campaign and variant, however many groups (channel, platform, versions) and
    -- pending rows hold its sends.
    users as materialized (
        select f.app_id, f.campaign_id, f.variant_id, f.user_key,
               coalesce(bool_or(t.days @> any(f.send_days)), false) as sent,
               coalesce(bool_or(t.days @> any(f.control_send_days)), false) as control_sent
        from facts as f
        join target as t on t.app_id = f.app_id
        group by f.app_id, f.campaign_id, f.variant_id, f.user_key
    ),
    arms as (
        select s.app_id, s.campaign_id, s.variant_id, false as control, count(*) as users
        from users as s
        where s.sent
        group by s.app_id, s.campaign_id, s.variant_id
        union all
        -- The control arm has no variant: a user with control sends under two variant ids counts once.
        select c.app_id, c.campaign_id, null, true, count(*)
        from (
            select distinct s.app_id, s.campaign_id, s.user_key
            from users as s
            where s.control_sent
        ) as c
        group by c.app_id, c.campaign_id
    )
    select t.app_name, r.campaign_id, r.variant_id, r.control, r.users
    from arms as r
    join target as t on t.app_id = r.app_id
    -- The few arm rows are sorted whatever enable_sort says: it only steers the plan away from a sort.
    order by t.app_name, r.campaign_id, r.control desc, r.variant_id nulls first;
$function$;

comment on function cardinal.send_arms(text, text, date, date, boolean) is
    'Assignment data of the sample ratio check, read from the report state (0015): per app × campaign × '
    'arm (control for control sends, else the send''s variant_id), the users with a send on a report day '
    'of from_date..to_date (each campaign''s report time zone). app and campaign NULL = all; test events '
    'only with include_test. A user sent to two arms counts in both. Users are made distinct by hashing '
    '(0053).';
