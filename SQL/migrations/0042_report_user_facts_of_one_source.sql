-- 0042_report_user_facts_of_one_source.sql — a report of one campaign or canvas reads that source's per-user
-- state by index, not the whole table (issue 8).
--
-- Design notes (why, not what):
--
-- * Six report functions still read the per-user state (report_user_facts: report_user_state joined to
--   report_groups, plus the pending events): both anomalies parts, control_arms_from_user_state, send_arms,
--   push_opens and unique_impressions_from_user_state. They filter it by campaign or canvas, but most of them
--   run with enable_nestloop off (no plan may hinge on a row estimate, 0021, 0036), so the state was joined
--   to the source's groups by a hash join over a sequential scan of every state row: 4.1 M rows and 0.6–1.2 s
--   at 10 M events for a campaign with 137 k of them (auto_explain of anomalies and campaign_conversions).
--
-- * report_user_facts_of(campaign, canvas) returns the rows of report_user_facts of one source. Its folded
--   part finds the source's groups first and then their rows with `group_id = any(array(...))`: an index
--   condition on report_user_state's primary key (group_id, user_key), whatever the estimates, and no join
--   decision. With neither argument it is report_user_facts itself (the sequential scan is the right plan
--   for every source). It is a plain SQL function so that the planner inlines it into the caller's query:
--   the branch whose argument test fails is dropped at run time (a one-time filter), and the caller's other
--   conditions still reach the view's scans.
--
-- * Each caller passes only the arguments it filters every read of the state by, so no caller loses a row
--   it used: anomalies_since_0027 joins the users of the campaigns a canvas touches without the canvas
--   condition, so it passes the campaign alone; control_arms_from_user_state and anomalies_of_0017 filter by
--   both. Callers without a canvas argument pass NULL.
--
-- * campaign_conversions reads report_user_facts too; 0043 replaces that read with state of its own.
--
-- * The functions keep their bodies: each is rewritten in place (as 0032 and 0040 did), and the migration
--   stops if a body does not read the way it expects.


create function cardinal.report_user_facts_of(campaign text, canvas text)
    returns setof cardinal.report_user_facts
    language sql
    stable
as $function$
    select f.*
    from cardinal.report_user_facts as f
    where report_user_facts_of.campaign is null and report_user_facts_of.canvas is null
    union all
    -- The source's groups, then their rows by the primary key's first column.
    select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
           g.sdk_version, g.app_version, g.test, u.user_key, u.impression_days, u.click_days, u.dismissal_days,
           u.send_days, u.control_impression_days, u.control_send_days, u.first_impression_at, u.first_send_at,
           u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
    from cardinal.report_user_state as u
    join cardinal.report_groups as g on g.group_id = u.group_id
    where (report_user_facts_of.campaign is not null or report_user_facts_of.canvas is not null)
      and u.group_id = any(array(
              select s.group_id
              from cardinal.report_groups as s
              where (report_user_facts_of.campaign is null or s.campaign_id = report_user_facts_of.campaign)
                and (report_user_facts_of.canvas is null or s.canvas_id = report_user_facts_of.canvas)
          ))
      and (report_user_facts_of.campaign is null or g.campaign_id = report_user_facts_of.campaign)
      and (report_user_facts_of.canvas is null or g.canvas_id = report_user_facts_of.canvas)
    union all
    select p.*
    from cardinal.report_pending_user_facts as p
    where (report_user_facts_of.campaign is not null or report_user_facts_of.canvas is not null)
      and (report_user_facts_of.campaign is null or p.campaign_id = report_user_facts_of.campaign)
      and (report_user_facts_of.canvas is null or p.canvas_id = report_user_facts_of.canvas);
$function$;

alter function cardinal.report_user_facts_of(text, text) owner to cardinal_owner;

grant execute on function cardinal.report_user_facts_of(text, text) to cardinal_reader;

comment on function cardinal.report_user_facts_of(text, text) is
    'The rows of report_user_facts of one campaign (campaign_id = campaign) or canvas (canvas_id = canvas), '
    'or of both conditions; every row when both are NULL. The folded rows are found by the source''s groups '
    '(an index condition), so one source costs what its state holds, whatever the planner estimates (0042).';


-- Each caller's one read of report_user_facts becomes a read of its source's rows.
do $scoped$
declare
    caller record;
    definition text;
begin
    for caller in
        select *
        from (values
            ('cardinal.anomalies_of_0017'::regproc, 'f', 'anomalies_of_0017.campaign', 'anomalies_of_0017.canvas'),
            ('cardinal.anomalies_since_0027'::regproc, 'f', 'anomalies_since_0027.campaign', 'null'),
            ('cardinal.control_arms_from_user_state'::regproc, 'u', 'control_arms_from_user_state.campaign',
             'control_arms_from_user_state.canvas'),
            ('cardinal.send_arms'::regproc, 'f', 'send_arms.campaign', 'null'),
            ('cardinal.push_opens'::regproc, 'u', 'push_opens.campaign', 'null'),
            ('cardinal.unique_impressions_from_user_state'::regproc, 'u',
             'unique_impressions_from_user_state.campaign', 'null')
        ) as c (function, alias, campaign, canvas)
    loop
        definition := pg_catalog.pg_get_functiondef(caller.function);
        if regexp_count(definition, '\mcardinal\.report_user_facts\M') <> 1
           or regexp_count(definition, '\mcardinal\.report_user_facts as ' || caller.alias || ' on ') <> 1 then
            raise exception '0042: % does not read report_user_facts the way this migration expects',
                caller.function;
        end if;
        execute regexp_replace(
            definition, '\mcardinal\.report_user_facts as ' || caller.alias || ' on ',
            format('cardinal.report_user_facts_of(%s, %s) as %s on ', caller.campaign, caller.canvas, caller.alias)
        );
    end loop;
end
$scoped$;
