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


-- Anomaly kinds that catch what Braze warns about (issue 12).
--
-- Design notes (why, not what):
--
-- * 0017's anomalies and anomalies_reference keep their bodies under new names (anomalies_of_0017,
--   anomalies_reference_of_0017); anomalies and anomalies_reference are now their findings, but for
--   repeated_impressions, plus those of anomalies_since_0027, which computes the new kinds and the new
--   repeated_impressions once, from either source: the report state (anomalies) or the raw events
--   (anomalies_reference). Each kind is written once; what the property tests compare is the facts the two
--   sources give it, which is where a fold could go wrong.
--
-- * repeated_impressions now looks at every user's sessions, not only at the group's average: a session
--   repeats when it has at least 2× its allowed impressions (3× for content cards, whose feeds re-render),
--   so an in-app message displayed twice (Braze warns that calling showInAppMessage without removing
--   automaticallyShowInAppMessages shows messages twice) counts; the finding gives the largest count in a
--   session and the share of users with a repeating session. Impressions without a session_id are taken
--   per user and report day. The report state kept only impressions with a session; it now keeps the
--   others under session_id '' (no SDK session id is empty: 0005's CHECKs), so the fold and the erasure,
--   which already handle report_session_state, handle them too.
--
-- * control_impressions_missing also fires, as info, for a campaign that shows variants to at least 200
--   users of a channel that logs control impressions (content cards, in-app messages, feature flags) and
--   has no control exposure at all, no control send and no expected split: Braze's own sample code filters
--   control cards out (filter { !it.isControl }), so a control group can vanish without a trace. 200
--   because a control group of 5 % would then be expected to hold 200 × 5/95 = 10.5 users, above the 8 the
--   other checks ask for, and the chance of none at all is below 1e-4. Info, not warning: many campaigns
--   have no control group, which Cardinal cannot tell from the events; a split without control
--   (campaigns set --split v1=1) says so and silences it.
--
-- * push_opens_missing: a campaign's push sends on a platform, at least 1000 in the range, with no open
--   (opens are stored as clicks) at all. With an open rate of 1 %, 1000 sends without an open happen with
--   probability 0.99^1000 = 4e-5, so the finding is critical: the app does not hand push payloads to the
--   SDK on that platform.
--
-- * repeated_dismissals: users who dismissed the same content card (message_id) more than once in the
--   range; by share of the users who dismissed cards with a message id, info below 1 %, else warning. Needs
--   the dismissals per message id, which the state did not keep: report_dismissal_state below.
--
-- * logging_stopped: a campaign × channel × platform whose events logged by the SDK (impressions, control
--   impressions, clicks, dismissals) fell on a complete report day of the range to under 10 % of its mean
--   over the 7 days before, that mean being at least 20 a day (so 0 or 1 event against 20 is not chance:
--   P(Poisson(20) <= 1) = 4e-8), while another platform of the same campaign and channel kept at least half
--   of its own mean that day. The other platform tells an SDK or release problem from the campaign's end,
--   which stops every platform at once; a campaign on one platform is therefore never judged. A warning:
--   a platform-specific schedule can still look like it.

alter function cardinal.anomalies(text, date, date, boolean, text) rename to anomalies_of_0017;
alter function cardinal.anomalies_reference(text, date, date, boolean, text) rename to anomalies_reference_of_0017;

-- The bodies name their arguments after the function (anomalies.from_date), which a rename does not
-- follow: write each body again with the new name as the qualifier, rather than copy 670 lines of 0017.
do $requalify$
declare
    renamed record;
begin
    for renamed in
        select * from (values ('anomalies_of_0017', 'anomalies'),
                              ('anomalies_reference_of_0017', 'anomalies_reference')) as r (new_name, old_name)
    loop
        execute regexp_replace(
            pg_catalog.pg_get_functiondef(format('cardinal.%I(text, date, date, boolean, text)',
                                                 renamed.new_name)::regprocedure),
            '\m' || renamed.old_name || '\.', renamed.new_name || '.', 'g');
    end loop;
end
$requalify$;

comment on function cardinal.anomalies_of_0017(text, date, date, boolean, text) is
    '0017''s anomalies from the report state, under its new name: anomalies returns its findings except '
    'repeated_impressions, which anomalies_since_0027 computes instead.';
comment on function cardinal.anomalies_reference_of_0017(text, date, date, boolean, text) is
    '0017''s anomalies_reference over raw events, under its new name: anomalies_reference returns its '
    'findings except repeated_impressions, which anomalies_since_0027 computes instead.';


-- Impressions without a session, kept per user and report day under session_id ''.
create or replace view cardinal.report_pending_session_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, coalesce(q.session_id, '') as session_id, local.day,
       count(*)::integer as impressions,
       array_agg(distinct q.message_id) filter (where q.message_id is not null) as message_ids
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type = 'impression'
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

comment on table cardinal.report_session_state is
    'Report state of sessions: impressions (control ones included) per user, session and report day in each '
    'report group, and the distinct message ids shown, for the repeated_impressions anomaly. Impressions '
    'without a session_id are kept under session_id '''' (since 0027), one row per user and report day.';
comment on column cardinal.report_session_state.session_id is
    'The SDK session (events.session_id); '''' for the impressions without one (since 0027).';
comment on column cardinal.report_pending_session_facts.session_id is
    'The SDK session (events.session_id); '''' for the impressions without one (since 0027).';
comment on column cardinal.report_session_facts.session_id is
    'The SDK session (events.session_id); '''' for the impressions without one (since 0027).';


-- Dismissals per user, message id and report day, for repeated_dismissals: "if a card is already marked as
-- dismissed, it cannot be marked as dismissed again" (Android base card model), so a card dismissed twice by
-- one user was logged twice by a custom UI. The state had dismissal times per user and group, without the
-- message id.
--
-- It follows report_user_state as 0025's report_row_user_days does: every dismissal also makes the user's
-- report_user_state row of its group, a trigger deletes a user's rows here when that row is deleted
-- (erasure, requeue, a time zone change, a retention drop), and the fold adds the unfolded dismissals in the
-- same snapshot as the rest. So no path that keeps report_user_state right needs to know of this table.

create table cardinal.report_dismissal_state (
    group_id   bigint  not null,
    user_key   text    not null,
    message_id text    not null,
    day        date    not null,
    dismissals integer not null,

    constraint report_dismissal_state_pkey primary key (group_id, user_key, message_id, day)
);

alter table cardinal.report_dismissal_state owner to cardinal_owner;

comment on table cardinal.report_dismissal_state is
    'Report state of dismissals: per report group, user, message id and report day, how many dismissals '
    'carried that message id (0027), for the repeated_dismissals anomaly. Dismissals without a message_id '
    'are not kept. Rows go when the user''s report_user_state row of the group goes.';
comment on column cardinal.report_dismissal_state.group_id is 'The report group (report_groups.group_id).';
comment on column cardinal.report_dismissal_state.user_key is 'The user (events.user_key).';
comment on column cardinal.report_dismissal_state.message_id is 'The message (card) dismissed (events.message_id).';
comment on column cardinal.report_dismissal_state.day is 'The report day of the dismissals.';
comment on column cardinal.report_dismissal_state.dismissals is 'Dismissals of that message by the user on that day.';


create view cardinal.report_pending_dismissal_facts as
select q.app_id, q.campaign_id, q.canvas_id, q.canvas_step_id, q.variant_id, q.channel, q.platform, q.sdk_version,
       q.app_version, q.test, q.user_key, q.message_id, local.day, count(*)::integer as dismissals
from cardinal.report_unfolded_events() as q
join cardinal.apps as a on a.app_id = q.app_id
left join cardinal.campaign_settings as s on s.app_id = q.app_id and s.campaign_id = q.campaign_id
cross join lateral (
    select (q.time at time zone coalesce(s.report_time_zone, a.report_time_zone))::date as day
) as local
where q.type = 'dismissal' and q.message_id is not null
group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

alter view cardinal.report_pending_dismissal_facts owner to cardinal_owner;

comment on view cardinal.report_pending_dismissal_facts is
    'The unfolded dismissals with a message id as report_dismissal_state rows, with the group''s columns '
    'instead of group_id.';


create view cardinal.report_dismissal_facts as
select g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
       g.sdk_version, g.app_version, g.test, d.user_key, d.message_id, d.day, d.dismissals
from cardinal.report_dismissal_state as d
join cardinal.report_groups as g on g.group_id = d.group_id
union all
select * from cardinal.report_pending_dismissal_facts;

alter view cardinal.report_dismissal_facts owner to cardinal_owner;

comment on view cardinal.report_dismissal_facts is
    'Dismissals per user, message id and report day in each report group: report_dismissal_state and the '
    'unfolded events; sum over both.';

-- The views' columns mean what the state's (or the group's) columns of the same name mean.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name,
               coalesce(pg_catalog.col_description('cardinal.report_dismissal_state'::regclass,
                                                   (select c.attnum from pg_catalog.pg_attribute as c
                                                    where c.attrelid = 'cardinal.report_dismissal_state'::regclass
                                                      and c.attname = a.attname)),
                        pg_catalog.col_description('cardinal.report_groups'::regclass,
                                                   (select c.attnum from pg_catalog.pg_attribute as c
                                                    where c.attrelid = 'cardinal.report_groups'::regclass
                                                      and c.attname = a.attname))) as description
        from unnest(array['report_pending_dismissal_facts', 'report_dismissal_facts']) as v (view_name)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- Part of the fold: runs before fold_report_user_state, which moves the watermark, so that both read the
-- same unfolded events; it makes the groups it needs itself, as that fold would a moment later.
create function cardinal.fold_report_dismissals()
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
    -- As in fold_report_state (0015): the unfolded events are never analyzed; hash joins are right.
    set enable_mergejoin = off
    set enable_nestloop = off
as $function$
begin
    insert into cardinal.report_groups
        (app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version, app_version,
         test)
    select distinct app_id, campaign_id, canvas_id, canvas_step_id, variant_id, channel, platform, sdk_version,
           app_version, test
    from cardinal.report_pending_dismissal_facts
    order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict do nothing;

    insert into cardinal.report_dismissal_state as d
    select g.group_id, f.user_key, f.message_id, f.day, f.dismissals
    from cardinal.report_pending_dismissal_facts as f
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
    on conflict (group_id, user_key, message_id, day) do update set
        dismissals = d.dismissals + excluded.dismissals;
end
$function$;

alter function cardinal.fold_report_dismissals() owner to cardinal_owner;

revoke execute on function cardinal.fold_report_dismissals() from public;

comment on function cardinal.fold_report_dismissals() is
    'Folds the unfolded dismissals with a message id into report_dismissal_state. Part of '
    'fold_report_state(), which holds the state lock and moves the watermark; not to be called alone.';


-- 0025's fold_report_state with the dismissals step added (and 0025's work_mem, which CREATE OR REPLACE
-- would otherwise drop).
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
    return cardinal.fold_report_user_state();
end
$function$;


-- Deleting a user's state (erasure, requeue) deletes its dismissals in the same groups.
create function cardinal.forget_report_dismissals()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    delete from cardinal.report_dismissal_state as d
    using (select distinct group_id, user_key from forgotten) as f
    where d.group_id = f.group_id and d.user_key = f.user_key;
    return null;
end
$function$;

alter function cardinal.forget_report_dismissals() owner to cardinal_owner;

revoke execute on function cardinal.forget_report_dismissals() from public;

comment on function cardinal.forget_report_dismissals() is
    'Statement trigger of report_user_state deletions: deletes the same users'' report_dismissal_state rows '
    'in the same report groups.';

create trigger report_user_state_forget_dismissals
    after delete on cardinal.report_user_state
    referencing old table as forgotten
    for each statement
    execute function cardinal.forget_report_dismissals();

comment on trigger report_user_state_forget_dismissals on cardinal.report_user_state is
    'Keeps report_dismissal_state equal to what report_user_state holds (0027).';

grant select on cardinal.report_dismissal_state, cardinal.report_pending_dismissal_facts,
    cardinal.report_dismissal_facts to cardinal_reader;


create function cardinal.anomalies_since_0027(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean,
    campaign     text,
    from_state   boolean
)
    returns table (
        kind         text,
        severity     text,
        app_name     text,
        campaign_id  text,
        channel      text,
        platform     text,
        sdk_version  text,
        app_version  text,
        evidence     jsonb,
        likely_cause text
    )
    language sql
    stable
as $function$
    with target as (
        select a.app_id, a.name as app_name, a.report_time_zone,
               array(select d::date
                     from generate_series(anomalies_since_0027.from_date, anomalies_since_0027.to_date,
                                          interval '1 day') as d) as days
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_since_0027.from_date, anomalies_since_0027.to_date)
          and (anomalies_since_0027.app is null or a.name = anomalies_since_0027.app)
    ),
    -- The raw events of the campaigns from 7 report days before the range to its end (reference only).
    raw_events as materialized (
        select t.app_id, t.app_name, e.campaign_id, e.channel, e.platform, e.sdk_version, e.app_version, e.type,
               e.control, e.user_key, e.session_id, e.message_id, e.test,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone, local.day
        from target as t
        join cardinal.events as e on e.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = e.app_id and s.campaign_id = e.campaign_id
        cross join lateral (
            select (e.time at time zone coalesce(s.report_time_zone, t.report_time_zone))::date as day
        ) as local
        where not anomalies_since_0027.from_state
          and e.campaign_id is not null
          and (anomalies_since_0027.campaign is null or e.campaign_id = anomalies_since_0027.campaign)
          and e.type in ('send', 'impression', 'click', 'dismissal')
          and (anomalies_since_0027.include_test or not e.test)
          and e.time >= (anomalies_since_0027.from_date - 8)::timestamp at time zone 'UTC'
          and e.time < (anomalies_since_0027.to_date + 2)::timestamp at time zone 'UTC'
          and local.day between anomalies_since_0027.from_date - 7 and anomalies_since_0027.to_date
    ),

    -- Events per campaign × channel × platform and report day, from 7 days before the range: logged by the
    -- SDK (impressions, control impressions, clicks, dismissals), sends (not control), clicks, impressions
    -- (not control) and control exposures (control impressions and sends).
    daily as (
        select t.app_id, t.app_name, c.campaign_id, c.channel, c.platform, c.day,
               coalesce(s.report_time_zone, t.report_time_zone) as time_zone,
               sum(c.impressions + c.control_impressions + c.clicks + c.dismissals) as logged,
               sum(c.sends) as sends, sum(c.clicks) as clicks, sum(c.impressions) as impressions,
               sum(c.control_impressions + c.control_sends) as control_events
        from target as t
        join cardinal.report_daily_count_facts as c on c.app_id = t.app_id
        left join cardinal.campaign_settings as s on s.app_id = c.app_id and s.campaign_id = c.campaign_id
        where anomalies_since_0027.from_state
          and c.campaign_id is not null
          and (anomalies_since_0027.campaign is null or c.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.include_test or not c.test)
          and c.day between anomalies_since_0027.from_date - 7 and anomalies_since_0027.to_date
        group by 1, 2, 3, 4, 5, 6, 7
        union all
        select app_id, app_name, campaign_id, channel, platform, day, time_zone,
               count(*) filter (where type in ('impression', 'click', 'dismissal')),
               count(*) filter (where type = 'send' and not control),
               count(*) filter (where type = 'click'),
               count(*) filter (where type = 'impression' and not control),
               count(*) filter (where control)
        from raw_events
        group by 1, 2, 3, 4, 5, 6, 7
    ),

    -- Impressions per user and session (per user and report day without a session) in the range, with the
    -- message ids shown.
    session_units as (
        select t.app_name, v.campaign_id, v.channel, v.platform, v.sdk_version, v.app_version, v.user_key,
               v.session_id = '' as without_session,
               sum(v.impressions) as impressions,
               cardinal.array_concat_agg(v.message_ids) as message_ids
        from target as t
        join cardinal.report_session_facts as v on v.app_id = t.app_id
        where anomalies_since_0027.from_state
          and v.campaign_id is not null
          and (anomalies_since_0027.campaign is null or v.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.include_test or not v.test)
          and v.channel <> 'push'
          and v.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
        group by t.app_name, v.campaign_id, v.channel, v.platform, v.sdk_version, v.app_version, v.user_key,
                 v.session_id, case when v.session_id = '' then v.day end
        union all
        select app_name, campaign_id, channel, platform, sdk_version, app_version, user_key,
               session_id is null,
               count(*),
               array_agg(distinct message_id) filter (where message_id is not null)
        from raw_events
        where type = 'impression' and channel <> 'push' and day >= anomalies_since_0027.from_date
        group by app_name, campaign_id, channel, platform, sdk_version, app_version, user_key, session_id,
                 case when session_id is null then day end
    ),

    -- The campaigns that could lack a control arm: no expected split, no control exposure in the range (a
    -- control impression or send on one of its days is one in the daily counts), and at least 200
    -- impressions in a channel that logs control impressions (200 users need as many). Few, and materialized:
    -- only their users are counted below.
    control_candidates as materialized (
        select d.app_id, d.campaign_id
        from daily as d
        left join cardinal.campaign_settings as s on s.app_id = d.app_id and s.campaign_id = d.campaign_id
        where d.day >= anomalies_since_0027.from_date and s.expected_split is null
        group by d.app_id, d.campaign_id
        having sum(d.control_events) = 0
           and coalesce(sum(d.impressions) filter (
                   where d.channel in ('content_card', 'in_app_message', 'feature_flag')), 0) >= 200
    ),
    -- The users of those campaigns with a variant impression in the range, per channel.
    campaign_users as (
        select t.app_name, f.campaign_id, f.channel, f.user_key
        from target as t
        join cardinal.report_user_facts as f on f.app_id = t.app_id
        join control_candidates as c on c.app_id = f.app_id and c.campaign_id = f.campaign_id
        where anomalies_since_0027.from_state
          and (anomalies_since_0027.include_test or not f.test)
          and f.impression_days && t.days
        union all
        select r.app_name, r.campaign_id, r.channel, r.user_key
        from raw_events as r
        join control_candidates as c on c.app_id = r.app_id and c.campaign_id = r.campaign_id
        where r.type = 'impression' and not r.control and r.day >= anomalies_since_0027.from_date
    ),

    -- Dismissals per user and content card in the range.
    card_dismissals as (
        select t.app_name, d.campaign_id, d.channel, d.platform, d.sdk_version, d.app_version, d.user_key,
               d.message_id, sum(d.dismissals) as dismissals
        from target as t
        join cardinal.report_dismissal_facts as d on d.app_id = t.app_id
        where anomalies_since_0027.from_state
          and d.campaign_id is not null
          and (anomalies_since_0027.campaign is null or d.campaign_id = anomalies_since_0027.campaign)
          and (anomalies_since_0027.include_test or not d.test)
          and d.channel = 'content_card'
          and d.day between anomalies_since_0027.from_date and anomalies_since_0027.to_date
        group by 1, 2, 3, 4, 5, 6, 7, 8
        union all
        select app_name, campaign_id, channel, platform, sdk_version, app_version, user_key, message_id, count(*)
        from raw_events
        where type = 'dismissal' and channel = 'content_card' and message_id is not null
          and day >= anomalies_since_0027.from_date
        group by 1, 2, 3, 4, 5, 6, 7, 8
    ),
    repeated_dismissals as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(distinct user_key) as users,
               count(distinct user_key) filter (where dismissals > 1) as affected_users,
               count(*) filter (where dismissals > 1) as repeated_cards,
               sum(dismissals) as dismissals,
               max(dismissals) as max_per_card
        from card_dismissals
        group by 1, 2, 3, 4, 5, 6
    ),

    repeated_impressions as (
        select app_name, campaign_id, channel, platform, sdk_version, app_version,
               count(*) as units,
               count(*) filter (where without_session) as user_days_without_session,
               count(*) filter (where repeated) as repeated_units,
               count(distinct user_key) as users,
               count(distinct user_key) filter (where repeated) as affected_users,
               sum(impressions) as impressions,
               sum(allowed) as allowed,
               max(impressions) as max_in_a_session,
               min(factor) as factor
        from (
            select u.*, rule.allowed, rule.factor, u.impressions >= rule.factor * rule.allowed as repeated
            from session_units as u
            cross join lateral (
                select case when u.channel in ('banner', 'feature_flag') then 1
                            else greatest(1, (select count(distinct m) from unnest(u.message_ids) as m)) end
                           as allowed,
                       case when u.channel = 'content_card' then 3 else 2 end as factor
            ) as rule
        ) as judged
        group by app_name, campaign_id, channel, platform, sdk_version, app_version
    ),

    control_absent as (
        select app_name, campaign_id, channel, count(distinct user_key) as variant_users
        from campaign_users
        where channel in ('content_card', 'in_app_message', 'feature_flag')
        group by app_name, campaign_id, channel
    ),

    push_opens_missing as (
        select app_name, campaign_id, platform, sum(sends) as sends, sum(clicks) as clicks
        from daily
        where channel = 'push' and day >= anomalies_since_0027.from_date
        group by app_name, campaign_id, platform
    ),

    -- Every day of the range and the 7 before it for each campaign × channel × platform that logged, with
    -- 0 on days without events (a row of 0 added to every day, rather than a join, which the planner,
    -- misled by the CTE's estimate, ran as a merge join on the app alone: 20 M rows filtered), and the mean
    -- of the 7 days before each.
    volumes as (
        select app_id, app_name, campaign_id, channel, platform, time_zone, day, logged,
               avg(logged) over (
                   partition by app_id, campaign_id, channel, platform
                   order by day rows between 7 preceding and 1 preceding
               ) as trailing_mean
        from (
            select app_id, app_name, campaign_id, channel, platform, time_zone, day, sum(logged) as logged
            from (
                select app_id, app_name, campaign_id, channel, platform, time_zone, day, logged
                from daily
                union all
                select g.app_id, g.app_name, g.campaign_id, g.channel, g.platform, g.time_zone, x::date, 0
                from (select distinct app_id, app_name, campaign_id, channel, platform, time_zone from daily) as g
                cross join generate_series(anomalies_since_0027.from_date - 7, anomalies_since_0027.to_date,
                                           interval '1 day') as x
            ) as with_zeros
            group by app_id, app_name, campaign_id, channel, platform, time_zone, day
        ) as dense
    ),
    judged_days as (
        select v.*,
               v.day >= anomalies_since_0027.from_date
                   and (v.day + 1)::timestamp at time zone v.time_zone <= now()
                   and v.trailing_mean >= 20 and v.logged < 0.1 * v.trailing_mean as fell,
               v.trailing_mean >= 20 and v.logged >= 0.5 * v.trailing_mean as kept
        from volumes as v
    ),
    logging_stopped as (
        select f.app_name, f.campaign_id, f.channel, f.platform,
               count(*) as days,
               to_char(min(f.day), 'YYYYMMDD')::integer as first_day,
               (array_agg(f.logged order by f.day))[1] as events,
               (array_agg(f.trailing_mean order by f.day))[1] as trailing_mean
        from judged_days as f
        where f.fell
          and exists (select from judged_days as o
                      where o.app_id = f.app_id and o.campaign_id = f.campaign_id and o.channel = f.channel
                        and o.platform is distinct from f.platform and o.day = f.day and o.kept)
        group by f.app_name, f.campaign_id, f.channel, f.platform
    )

    select 'repeated_impressions',
           case when affected_users::double precision / users >= 0.01
                     or impressions::double precision / allowed >= factor then 'warning' else 'info' end,
           app_name, campaign_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('sessions', units,
                              'repeated_sessions', repeated_units,
                              'user_days_without_session', user_days_without_session,
                              'users', users,
                              'affected_users', affected_users,
                              'share', affected_users::double precision / users,
                              'impressions', impressions,
                              'allowed_impressions', allowed,
                              'impressions_per_allowed', impressions::double precision / allowed,
                              'max_in_a_session', max_in_a_session),
           'The UI logs an impression on every render instead of once per session (banners, feature flags) '
           'or once per message view, or shows an in-app message twice (showInAppMessage called while '
           'automaticallyShowInAppMessages is still on).'
    from repeated_impressions
    where affected_users > 0

    union all
    select 'repeated_dismissals',
           case when affected_users::double precision / users >= 0.01 then 'warning' else 'info' end,
           app_name, campaign_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('users', users,
                              'affected_users', affected_users,
                              'share', affected_users::double precision / users,
                              'repeated_cards', repeated_cards,
                              'dismissals', dismissals,
                              'max_per_card', max_per_card),
           'A custom UI logs a dismissal again for a card already dismissed (a card dismissed once cannot be '
           'dismissed again), on every swipe or re-render.'
    from repeated_dismissals
    where affected_users > 0

    union all
    select 'control_impressions_missing', 'info',
           app_name, campaign_id, channel, null, null, null,
           jsonb_build_object('variant_impression_users', variant_users,
                              'control_impression_users', 0,
                              'campaign_control_send_users', 0,
                              'minimum_variant_impression_users', 200),
           'No control exposure at all: if the campaign has a control group, the custom UI filters control '
           'messages out (as Braze''s sample code does, filter { !it.isControl }) instead of logging a '
           'control impression. A campaign without a control group can say so with campaigns set --split.'
    from control_absent
    where variant_users >= 200

    union all
    select 'push_opens_missing', 'critical',
           app_name, campaign_id, 'push', platform, null, null,
           jsonb_build_object('sends', sends, 'opens', clicks, 'minimum_sends', 1000),
           'Push opens are not logged on this platform: the app does not hand the push payload to the SDK '
           '(a custom messaging service or notification delegate that does not pass it on).'
    from push_opens_missing
    where sends >= 1000 and clicks = 0

    union all
    select 'logging_stopped', 'warning',
           app_name, campaign_id, channel, platform, null, null,
           jsonb_build_object('first_day', first_day,
                              'events', events,
                              'trailing_daily_events', trailing_mean,
                              'days', days),
           'The SDK stopped logging on this platform while others went on: the SDK is not initialised, or a '
           'release dropped the logging calls.'
    from logging_stopped;
$function$;

alter function cardinal.anomalies_since_0027(text, date, date, boolean, text, boolean) owner to cardinal_owner;

grant execute on function cardinal.anomalies_since_0027(text, date, date, boolean, text, boolean) to cardinal_reader;

comment on function cardinal.anomalies_since_0027(text, date, date, boolean, text, boolean) is
    'The anomaly kinds of 0027 (repeated_impressions per session and user-day, repeated_dismissals, '
    'control_impressions_missing for a campaign with no control exposure at all, push_opens_missing, '
    'logging_stopped; definitions in '
    'the migration''s notes), from the report state (from_state) or from the raw events (not from_state, '
    'for anomalies_reference). Same arguments and rows as anomalies.';


create function cardinal.anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null
)
    returns table (
        kind         text,
        severity     text,
        app_name     text,
        campaign_id  text,
        channel      text,
        platform     text,
        sdk_version  text,
        app_version  text,
        evidence     jsonb,
        likely_cause text
    )
    language sql
    stable
as $function$
    select f.*
    from (
        select * from cardinal.anomalies_of_0017(anomalies.app, anomalies.from_date, anomalies.to_date,
                                                 anomalies.include_test, anomalies.campaign) as old
        where old.kind <> 'repeated_impressions'
        union all
        select * from cardinal.anomalies_since_0027(anomalies.app, anomalies.from_date, anomalies.to_date,
                                                    anomalies.include_test, anomalies.campaign, true)
    ) as f
    order by case f.severity when 'critical' then 0 when 'warning' then 1 else 2 end,
             f.kind, f.app_name, f.campaign_id, f.channel, f.platform, f.sdk_version, f.app_version;
$function$;

alter function cardinal.anomalies(text, date, date, boolean, text) owner to cardinal_owner;

grant execute on function cardinal.anomalies(text, date, date, boolean, text) to cardinal_reader;

comment on function cardinal.anomalies(text, date, date, boolean, text) is
    'Integration-health findings over the report days from_date..to_date (both included, each campaign''s '
    'report time zone), read from the report state (report_*_facts, 0015): dismissals_exceed_impressions, '
    'dismissal_without_impression, click_without_impression, control_impressions_missing, '
    'control_interaction, users_in_several_arms (anomalies_of_0017), repeated_impressions, '
    'repeated_dismissals, push_opens_missing, logging_stopped and control_impressions_missing for a '
    'campaign with no control exposure at all (anomalies_since_0027); one row per kind × app × campaign × '
    'channel × platform × sdk_version × app_version with severity (info, warning, critical), numeric evidence and a likely '
    'cause. app NULL = every app; campaign NULL = every campaign. sample_ratio_mismatch is added by '
    '`cardinal report anomalies` (it needs the chi-square test). Definitions in SQL/docs/reports.md; '
    'anomalies_reference computes the same from raw events.';


create function cardinal.anomalies_reference(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null
)
    returns table (
        kind         text,
        severity     text,
        app_name     text,
        campaign_id  text,
        channel      text,
        platform     text,
        sdk_version  text,
        app_version  text,
        evidence     jsonb,
        likely_cause text
    )
    language sql
    stable
as $function$
    select f.*
    from (
        select * from cardinal.anomalies_reference_of_0017(
            anomalies_reference.app, anomalies_reference.from_date, anomalies_reference.to_date,
            anomalies_reference.include_test, anomalies_reference.campaign) as old
        where old.kind <> 'repeated_impressions'
        union all
        select * from cardinal.anomalies_since_0027(
            anomalies_reference.app, anomalies_reference.from_date, anomalies_reference.to_date,
            anomalies_reference.include_test, anomalies_reference.campaign, false)
    ) as f
    order by case f.severity when 'critical' then 0 when 'warning' then 1 else 2 end,
             f.kind, f.app_name, f.campaign_id, f.channel, f.platform, f.sdk_version, f.app_version;
$function$;

alter function cardinal.anomalies_reference(text, date, date, boolean, text) owner to cardinal_owner;

grant execute on function cardinal.anomalies_reference(text, date, date, boolean, text) to cardinal_reader;

comment on function cardinal.anomalies_reference(text, date, date, boolean, text) is
    'Reference implementation of anomalies over the raw events (anomalies_reference_of_0017 and '
    'anomalies_since_0027 reading events): the same arguments and rows, computed without the report '
    'state. Slow on large apps; for checking numbers and tests.';


-- Existing impressions without a session are not in report_session_state yet: rebuild every app's state
-- from its events (requeue_report_state, as 0015 did; the next fold makes it, and reports count the queue
-- meanwhile).
select cardinal.requeue_report_state(a.app_id) from cardinal.apps as a order by a.app_id;
