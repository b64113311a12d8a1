-- 0048_forget_triggers_probe_users.sql — the triggers that follow deletions of report_user_state find the
-- forgotten users' rows by index, whatever the transition table's estimate (issue 8).
--
-- Design notes (why, not what):
--
-- * forget_report_control_exposures (0040) and forget_report_campaign_receipts (0043) delete the rows of the
--   users whose per-user state was deleted (erasure, re-keying, requeue, retention). They joined the
--   transition table, which has no statistics, to the rows. 0043's table is keyed (app, campaign, variant,
--   user), so a nested loop over the forgotten users read the whole campaign's rows once per user: a requeue
--   of 300 k events' state ran for over ten minutes. 0046 turned nested loops off for 0040's twin, which
--   makes every such statement hash a sequential scan of the whole table instead (3.4 M rows at 10 M
--   events), once per deletion of per-user state — each fold that re-keys a device, each erasure.
--
-- * Both now look the rows up through their (app_id, user_key) index with `= any(array(...))` conditions on
--   the forgotten apps and users (one sorted probe per user, as 0040's pending view finds touched users), and
--   hash that handful of rows to the forgotten (app, campaign, user) triples. No plan hinges on an estimate:
--   nested loops off (with jit off), and the index conditions take no join decision.
--
-- * Measured in psql on the 10 M-event bench database (3.4 M receipt rows, 3.9 M exposure rows), deleting
--   2,000 users' state of the largest campaign in a rolled-back transaction, twice each, load average 1–2: the
--   whole statement with its six forget triggers 2.53–2.77 s with 0043's and 0046's bodies, 1.53–1.54 s with
--   these.


create or replace function cardinal.forget_report_control_exposures()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set jit = off
as $function$
begin
    delete from cardinal.report_control_exposures as r
    using (
        select distinct g.app_id, g.campaign_id, f.user_key
        from forgotten as f
        join cardinal.report_groups as g on g.group_id = f.group_id
        where g.campaign_id is not null and not g.test
    ) as x
    where r.app_id = any(array(select distinct g.app_id
                               from cardinal.report_groups as g
                               where g.group_id in (select f.group_id from forgotten as f)))
      and r.user_key = any(array(select distinct f.user_key from forgotten as f))
      and r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key;
    return null;
end
$function$;

comment on function cardinal.forget_report_control_exposures() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_control_exposures '
    'rows of the same campaigns (their events are queued again; the next fold makes the rows anew), found by '
    'the (app_id, user_key) index (0040, 0048).';


create or replace function cardinal.forget_report_campaign_receipts()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
    set enable_nestloop = off
    set jit = off
as $function$
begin
    delete from cardinal.report_campaign_receipts as r
    using (
        select distinct g.app_id, g.campaign_id, f.user_key
        from forgotten as f
        join cardinal.report_groups as g on g.group_id = f.group_id
        where g.campaign_id is not null and not g.test
    ) as x
    where r.app_id = any(array(select distinct g.app_id
                               from cardinal.report_groups as g
                               where g.group_id in (select f.group_id from forgotten as f)))
      and r.user_key = any(array(select distinct f.user_key from forgotten as f))
      and r.app_id = x.app_id and r.campaign_id = x.campaign_id and r.user_key = x.user_key;
    return null;
end
$function$;

comment on function cardinal.forget_report_campaign_receipts() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_campaign_receipts '
    'rows of the same campaigns, every variant (their events are queued again; the next fold makes the rows '
    'anew), found by the (app_id, user_key) index (0043, 0048).';
