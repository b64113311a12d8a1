-- 0053_send_arms_hashed.sql — send_arms counts each arm's users by hashing them once, not by sorting every
-- state row of the app per arm (issue 8).
--
-- Design notes (why, not what):
--
-- * The control report learns a campaign's expected split from send_arms (0027): per campaign × arm, the
--   distinct users with a send (or control send) on a report day of the range. 0027's body counted them with
--   count(distinct user_key) per group, which PostgreSQL computes by sorting each group's rows by user_key
--   under the column's collation: at 10 M events every one of the app's 4.1 M per-user state rows (a user has
--   a row per channel, platform, SDK and app version group) went through that sort, 21 s of the control
--   command's 26 s for all campaigns.
--
-- * The users are now made distinct per app × campaign × arm by a hash aggregate (hashing a text compares
--   bytes, no collation), and the arms' counts are a second, small aggregate over those distinct rows. Same
--   rows as before: the set of (app, campaign, arm, user) is the same, and each arm counts it once.
--
-- * The function runs with enable_sort off, so that the distinct step is hashed whatever the planner
--   estimates of the users (0036's rule: no plan hinges on a row estimate), and with enable_nestloop and jit
--   off as every report. Settings on a function keep the planner from inlining it, which a set-returning
--   function in FROM did not need: callers read it whole.
--
-- * The state is read as before, through report_user_facts_of (0042): one campaign's rows by its groups, all
--   rows with no campaign, and the pending events' rows in both cases, so the result stays exact while events
--   wait for the fold.
--
-- * Not done: the counts that would make send_arms a sum over a few hundred rows (0025's day pairs per
--   campaign × arm, kept from the per-user state by statement triggers). The pairs need each user's send days
--   per campaign and arm across the user's groups, i.e. one more per-user table under the counts; this step
--   only removes the sort.
--
-- * Measured in psql on 1 M events of scripts/bench/seed_reports.sql (see SQL/README.md for the figures).


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
