-- 0027_known_splits_and_anomaly_kinds.sql — no false alarms (issue 12): the sample ratio check runs only
-- against a known expected split, and the stored run says where the split came from.
--
-- Design notes (why, not what):
--
-- * Until now a campaign without `campaigns set --split` was checked against equal arms, so an ordinary
--   90/10 control split raised a critical sample_ratio_mismatch. The expected split is now the configured
--   one, else the split the campaign's sends carry (assignment data: a send names its variant, or carries
--   `control: true`), else unknown, and then the check is skipped and says so. The sends are read here
--   (send_arms); the choice and the test stay in CardinalReports, which owns the statistics.
--
-- * Sends are assignment data only when the SDKs or the backend log them: no SDK logs sends for content
--   cards, in-app messages or feature flags, so for those the split is usually unknown unless configured.
--   For push the send is the exposure, so a split learned from sends fits the exposures by construction:
--   push needs a configured split to be checked at all.


-- Users per arm of each campaign's sends over the report days of a range.
create function cardinal.send_arms(
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
as $function$
    with target as (
        select a.app_id, a.name as app_name,
               -- The report days of the range, for the overlap tests on the state's day sets.
               array(select d::date
                     from generate_series(send_arms.from_date, send_arms.to_date, interval '1 day') as d) as days
        from cardinal.apps as a
        where cardinal.check_report_range(send_arms.from_date, send_arms.to_date)
          and (send_arms.app is null or a.name = send_arms.app)
    )
    select t.app_name, f.campaign_id, x.variant_id, x.control, count(distinct f.user_key)
    from target as t
    join cardinal.report_user_facts as f on f.app_id = t.app_id
    cross join lateral (
        values (f.variant_id, false, f.send_days && t.days),
               (null::text, true, f.control_send_days && t.days)
    ) as x (variant_id, control, sent)
    where f.campaign_id is not null
      and (send_arms.campaign is null or f.campaign_id = send_arms.campaign)
      and (send_arms.include_test or not f.test)
      and x.sent
    group by t.app_name, f.campaign_id, x.variant_id, x.control
    order by t.app_name, f.campaign_id, x.control desc, x.variant_id nulls first;
$function$;

alter function cardinal.send_arms(text, text, date, date, boolean) owner to cardinal_owner;

grant execute on function cardinal.send_arms(text, text, date, date, boolean) to cardinal_reader;

comment on function cardinal.send_arms(text, text, date, date, boolean) is
    'Assignment data of the sample ratio check, read from the report state (0015): per app × campaign × '
    'arm (control for control sends, else the send''s variant_id), the users with a send on a report day '
    'of from_date..to_date (each campaign''s report time zone). app and campaign NULL = all; test events '
    'only with include_test. A user sent to two arms counts in both.';


-- Where each stored sample ratio check's expected split came from.
alter table cardinal.report_control
    add column srm_split_source text,
    add constraint report_control_srm_split_source_check
        check (srm_split_source in ('configured', 'learned_from_sends', 'unknown'));

comment on column cardinal.report_control.srm_split_source is
    'Where the expected split of the sample ratio check came from: configured (campaigns set --split), '
    'learned_from_sends (users per arm of the campaign''s sends), or unknown (then the check was skipped); '
    'NULL in runs stored before 0027.';

-- The view's * was expanded when 0013 made it: make it again to show the new column.
create or replace view cardinal.latest_control as
    select r.*
    from cardinal.report_control as r
    where r.run_id = (select run_id from cardinal.latest_report_run)
    order by r.position;

comment on column cardinal.latest_control.srm_split_source is
    'Where the expected split of the sample ratio check came from: configured (campaigns set --split), '
    'learned_from_sends (users per arm of the campaign''s sends), or unknown (then the check was skipped); '
    'NULL in runs stored before 0027.';
