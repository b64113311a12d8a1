-- 0069_anomaly_finding_counts.sql — the anomalies of 0017 count a finding group's users from day pairs kept by
-- statement triggers, and look at the users of several arms only, instead of hashing every state row by user
-- (issue 8).
--
-- Design notes (why, not what):
--
-- * anomalies_of_0017 (0057) made one row per user and finding group of every state row with a day in the
--   range (source_users) and then one per user and source (arm_users), to count distinct users: at 1 M events
--   437,624 rows hashed twice, most of the 3.8 s the whole app took; at 10 M, 4.1 M rows spilled to disk,
--   about 60 s. Four of its counts are distinct users of a finding group (the report group without variant
--   and test flag) with a kind of day in the range:
--     impression          unique_impressions of dismissals_exceed_impressions, variant_users of
--                         control_impressions_missing;
--     dismissal           unique_dismissals of dismissals_exceed_impressions;
--     control_impression  control_users of control_impressions_missing (whether a group has any);
--     exposure            exposed_users of users_in_several_arms (an impression or a control impression, and
--                         for push a send or a control send: what gives the user an arm).
--   0025's day pairs answer each from counts (distinct users of from..to = the users with a day in from..to
--   whose previous day is before from), so report_finding_day_users keeps them per finding group and kind.
--
-- * The pairs are of each user's days across the finding group's non-test report groups (its variants). No
--   per-user table keeps those day sets (0055's report_arm_user_days would be four times its size here): the
--   trigger reads the touched users' state rows themselves, through a new index on report_user_state's
--   user_key (a user has 1.3 rows on the 1 M bench), and makes their day sets before and after the statement
--   (after: the rows now; before: the same rows with the statement's transition tables undone). The pairs of
--   both are netted: a user whose day sets did not change nets to nothing. Rows whose counted days did not
--   change (most of a fold's updates add a click, or an impression on a day the row already has) are left
--   out before anything is read.
--
-- * users_in_several_arms needs the users who met two arms of the campaign or canvas in the range: not a sum
--   of per-user counts. They are few (434 of 4.1 M at 10 M events), so report_several_arm_users keeps the
--   users whose non-test exposures of a source ever met two arms (the same trigger, from the same rows), and
--   the report reads those users' rows and the pending events' users to decide on the range.
--
-- * Finding groups get a key of their own (report_findings, report_groups.finding_id, set when the fold makes
--   a group): the counts are read by `finding_id = any(...)`, an index condition whatever the estimates.
--
-- * Test events: only the non-test counts are kept. anomalies_of_0017 with include_test reads the per-user
--   state as 0057 did (that body is kept as anomalies_of_0017_from_user_state), as send_arms does since 0055.
--
-- * control_impressions_missing's campaign arms (campaign_arms) are counted only for the campaigns that have
--   a finding group with variant impressions and no control impression; those campaigns' rows are still read
--   and made distinct per user (their users are not counted anywhere else).
--
-- * Pending (unfolded) events only add days, so a pending user adds to a finding group's count exactly when it
--   has a pending day of the kind in the range and no folded one there: the report reads those users' folded
--   rows by user key (as send_arms does since 0055).
--
-- * An upsert (INSERT ... ON CONFLICT DO UPDATE, as the fold writes the state) fires the insert trigger with the
--   rows it inserted and the update trigger with the rows it updated, each seeing the table after the whole
--   statement. The firings are counted as the statement's two halves in a row (the update, then the insert),
--   whatever their order: the update's firing leaves out the rows the statement inserted, which it tells from
--   the rest by their system columns (the same xmin and cmin as its own new rows). Without that, a user with an
--   inserted and an updated row of one finding group was counted twice over: the property tests' table checks
--   failed on 2 of their workloads before this was handled.
--
-- * The pairs are made only for the finding groups of the changed rows (the user's other rows of the campaign
--   count for its campaign pairs and arms only). What the trigger costs, in psql with track_functions on the
--   fold_steps.sql data, a fold of 50,000 events of 10,000 existing users each on a new day (every touched row
--   gains a day: the worst case; later events of a day change no day set and are left out): 0.86-0.89 s of
--   10-14 s folds, 0055's trigger 0.12-0.15 s of the same (load average 5-6, test suites running beside). The
--   whole fold_steps.sql, three alternating runs each with the triggers enabled and disabled: fresh fold 6.8-11.0
--   against 9.2-12.9 s (noise larger than the difference), re-keyed fold 41.0-52.2 against 36.8-47.3 s (the
--   identity step's deletions fire it too).
--
-- * Measured in psql on the 1 M-event bench (scripts/bench/seed_reports.sql, 437,624 state rows, 1,800 finding
--   groups), report days 2026-11-01..30, against the same database before the migration, alternately, on a
--   machine loaded by test suites (load average 5-7): anomalies_of_0017 for the whole app 4.9-6.3 s before,
--   1.7-2.9 s after; c38 134-261 ms before, 64-118 ms after; c17 205-225 ms before, 65-232 ms after (its time
--   is the clicks and dismissals, below). cardinal.anomalies (with anomalies_since_0027) for the app,
--   2026-11-04..12-03, three runs each: 9.2-10.5 s before, 4.0-4.8 s after; c17 256-395 ms before, 193-300 ms
--   after. The same rows (md5) before and after for the app, c17, c38 and 2026-11-10..16. The migration took
--   14 s there: 206,913 finding-group pairs (24 MB), 10,659 campaign pairs, 4 users of several arms, the
--   user_key index 9.6 MB.
--
-- * Not done: the clicks and dismissals (click_without_impression, dismissal_without_impression,
--   control_interaction) still read the acting users' rows and their first impressions per step: most of what
--   is left (an auto_explain profile of the app at 1 M under load: 1.35 s in step_exposures and 0.45 s in
--   interaction_times of a 3.3 s run).
--   Their counts per finding group and day would be exact for users never exposed to control (whether a click
--   came before the step's first impression does not depend on the range), with the users exposed to control
--   read apart, and pending events re-judging their users' folded clicks.
--
-- * Rows, arguments and return types are 0033's.


-- The kinds of days a state row gives its finding group, as report_finding_day_users counts them: one
-- definition for the trigger, the backfill and the views that check them.
create function cardinal.report_finding_kind_days(
    channel                 text,
    impression_days         date[],
    dismissal_days          date[],
    control_impression_days date[],
    send_days               date[],
    control_send_days       date[]
)
    returns table (kind text, day date)
    language sql
    immutable
as $function$
    select 'impression', d
    from unnest(report_finding_kind_days.impression_days) as d
    where report_finding_kind_days.channel in ('content_card', 'in_app_message', 'banner', 'feature_flag')
    union all
    select 'dismissal', d
    from unnest(report_finding_kind_days.dismissal_days) as d
    where report_finding_kind_days.channel in ('content_card', 'in_app_message', 'banner')
    union all
    select 'control_impression', d
    from unnest(report_finding_kind_days.control_impression_days) as d
    where report_finding_kind_days.channel in ('content_card', 'in_app_message', 'feature_flag')
    union all
    select 'exposure', d
    from unnest(report_finding_kind_days.impression_days || report_finding_kind_days.control_impression_days
                || case when report_finding_kind_days.channel = 'push'
                        then report_finding_kind_days.send_days || report_finding_kind_days.control_send_days
                   end) as d
$function$;

alter function cardinal.report_finding_kind_days(text, date[], date[], date[], date[], date[])
    owner to cardinal_owner;

comment on function cardinal.report_finding_kind_days(text, date[], date[], date[], date[], date[]) is
    'The days of a report_user_state row (of a group of channel) by the kinds report_finding_day_users counts '
    '(0069): impression (content cards, in-app messages, banners, feature flags), dismissal (the first three), '
    'control_impression (content cards, in-app messages, feature flags), exposure (impressions and control '
    'impressions, and for push sends and control sends too). Days may repeat and be NULL.';


-- The kinds of days a state row gives its campaign or canvas, as report_source_day_users counts them.
create function cardinal.report_source_kind_days(
    channel                 text,
    impression_days         date[],
    control_impression_days date[],
    send_days               date[],
    control_send_days       date[]
)
    returns table (kind text, day date)
    language sql
    immutable
as $function$
    select 'send', d
    from unnest(report_source_kind_days.send_days || report_source_kind_days.control_send_days) as d
    union all
    select 'control_send', d
    from unnest(report_source_kind_days.control_send_days) as d
    union all
    select 'control_impression', d
    from unnest(report_source_kind_days.control_impression_days) as d
    union all
    select 'variant_impression', d
    from unnest(report_source_kind_days.impression_days) as d
    where report_source_kind_days.channel in ('content_card', 'in_app_message', 'feature_flag')
$function$;

alter function cardinal.report_source_kind_days(text, date[], date[], date[], date[]) owner to cardinal_owner;

comment on function cardinal.report_source_kind_days(text, date[], date[], date[], date[]) is
    'The days of a report_user_state row (of a group of channel) by the kinds report_source_day_users counts '
    '(0069): send (sends and control sends), control_send, control_impression, variant_impression '
    '(impressions of content cards, in-app messages and feature flags). Days may repeat and be NULL.';


-- The arms a report_user_state row exposed its user to, over all its days: a variant's (the group's variant_id,
-- NULL being an arm of its own) and control. 'c' for control, 'v' || variant for a variant, as
-- report_several_arm_users compares them.
create function cardinal.report_row_arms(
    variant_id              text,
    channel                 text,
    impression_days         date[],
    control_impression_days date[],
    send_days               date[],
    control_send_days       date[]
)
    returns table (arm text)
    language sql
    immutable
as $function$
    select 'v' || coalesce(report_row_arms.variant_id, '')
    where report_row_arms.impression_days is not null
       or (report_row_arms.channel = 'push' and report_row_arms.send_days is not null)
    union all
    select 'c'
    where report_row_arms.control_impression_days is not null
       or (report_row_arms.channel = 'push' and report_row_arms.control_send_days is not null)
$function$;

alter function cardinal.report_row_arms(text, text, date[], date[], date[], date[]) owner to cardinal_owner;

comment on function cardinal.report_row_arms(text, text, date[], date[], date[], date[]) is
    'The arms a report_user_state row (of a group of variant_id and channel) exposed its user to (0069): '
    '''v'' || variant (NULL variant as ''v'') for impressions, and for push sends; ''c'' for control '
    'impressions, and for push control sends. Variant ids are never empty, so the keys compare as the arms.';


create table cardinal.report_findings (
    finding_id     bigint generated always as identity,
    app_id         bigint not null,
    campaign_id    text,
    canvas_id      text,
    canvas_step_id text,
    channel        text   not null,
    platform       text,
    sdk_version    text,
    app_version    text,

    constraint report_findings_pkey primary key (finding_id),
    constraint report_findings_key unique nulls not distinct (
        app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    )
);

alter table cardinal.report_findings owner to cardinal_owner;

comment on table cardinal.report_findings is
    'Finding groups of the anomalies report (0069): each distinct app × campaign or canvas step × channel × '
    'platform × SDK version × app version of report_groups (a report group without variant and test flag). '
    'Made with the report group; never deleted, so a finding_id stays valid.';
comment on column cardinal.report_findings.finding_id is 'Key of the finding group.';
comment on column cardinal.report_findings.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_findings.campaign_id is 'The campaign, NULL for a canvas step.';
comment on column cardinal.report_findings.canvas_id is 'The canvas, NULL for a campaign.';
comment on column cardinal.report_findings.canvas_step_id is 'The canvas step.';
comment on column cardinal.report_findings.channel is 'The channel (events.channel).';
comment on column cardinal.report_findings.platform is 'The platform.';
comment on column cardinal.report_findings.sdk_version is 'The SDK version.';
comment on column cardinal.report_findings.app_version is 'The app version.';


alter table cardinal.report_groups add column finding_id bigint references cardinal.report_findings;

comment on column cardinal.report_groups.finding_id is
    'The group''s finding group (report_findings), set when the group is made (0069).';

create index report_groups_finding_idx on cardinal.report_groups (finding_id);

comment on index cardinal.report_groups_finding_idx is 'The report groups of a finding group (0069).';

create function cardinal.assign_report_finding()
    returns trigger
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
begin
    insert into cardinal.report_findings
        (app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version)
    values (new.app_id, new.campaign_id, new.canvas_id, new.canvas_step_id, new.channel, new.platform,
            new.sdk_version, new.app_version)
    on conflict on constraint report_findings_key do nothing;
    select f.finding_id into strict new.finding_id
    from cardinal.report_findings as f
    where f.app_id = new.app_id
      and f.campaign_id is not distinct from new.campaign_id
      and f.canvas_id is not distinct from new.canvas_id
      and f.canvas_step_id is not distinct from new.canvas_step_id
      and f.channel = new.channel
      and f.platform is not distinct from new.platform
      and f.sdk_version is not distinct from new.sdk_version
      and f.app_version is not distinct from new.app_version;
    return new;
end
$function$;

alter function cardinal.assign_report_finding() owner to cardinal_owner;

revoke execute on function cardinal.assign_report_finding() from public;

comment on function cardinal.assign_report_finding() is
    'Row trigger of report_groups inserts: sets finding_id, making the finding group when it is new (0069). '
    'Groups are made a few at a time (thousands in all), so a row trigger costs nothing that counts.';

insert into cardinal.report_findings
    (app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version)
select distinct app_id, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
from cardinal.report_groups
order by 1, 2, 3, 4, 5, 6, 7, 8;

update cardinal.report_groups as g
set finding_id = f.finding_id
from cardinal.report_findings as f
where f.app_id = g.app_id
  and f.campaign_id is not distinct from g.campaign_id
  and f.canvas_id is not distinct from g.canvas_id
  and f.canvas_step_id is not distinct from g.canvas_step_id
  and f.channel = g.channel
  and f.platform is not distinct from g.platform
  and f.sdk_version is not distinct from g.sdk_version
  and f.app_version is not distinct from g.app_version;

alter table cardinal.report_groups alter column finding_id set not null;

create trigger report_groups_assign_finding
    before insert on cardinal.report_groups
    for each row
    execute function cardinal.assign_report_finding();

comment on trigger report_groups_assign_finding on cardinal.report_groups is
    'Sets the new group''s finding_id (0069).';


-- The trigger's way to a user's rows, whatever the estimates (`user_key = any(...)`, as 0048's probes).
create index report_user_state_user_key_idx on cardinal.report_user_state (user_key);

comment on index cardinal.report_user_state_user_key_idx is
    'A user''s state rows of every group, for the finding-group counts'' trigger and the users of several arms '
    '(0069).';


create table cardinal.report_finding_day_users (
    finding_id   bigint not null,
    kind         text   not null,
    day          date   not null,
    previous_day date   not null,
    users        bigint not null,

    constraint report_finding_day_users_pkey primary key (finding_id, kind, day, previous_day),
    constraint report_finding_day_users_kind_known
        check (kind in ('impression', 'dismissal', 'control_impression', 'exposure')),
    constraint report_finding_day_users_order check (previous_day < day)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_finding_day_users_emptied_idx
    on cardinal.report_finding_day_users (finding_id)
    where users = 0;

alter table cardinal.report_finding_day_users owner to cardinal_owner;

comment on table cardinal.report_finding_day_users is
    'Report state of the anomalies report (0069): 0025''s day pairs per finding group and kind of day '
    '(report_finding_kind_days) over the non-test report groups: the users whose sorted days of the kind in '
    'the finding group hold day with previous_day the one before it. Distinct users of from..to = sum of '
    'users with day in from..to and previous_day < from. Kept by triggers on report_user_state.';
comment on column cardinal.report_finding_day_users.finding_id is 'The finding group (report_findings).';
comment on column cardinal.report_finding_day_users.kind is
    'impression, dismissal, control_impression or exposure (report_finding_kind_days).';
comment on column cardinal.report_finding_day_users.day is 'A report day with a day of the kind.';
comment on column cardinal.report_finding_day_users.previous_day is
    'The user''s previous day of the kind in the finding group, -infinity for the first.';
comment on column cardinal.report_finding_day_users.users is
    'How many users; a row that reaches 0 is deleted in the same statement.';
comment on index cardinal.report_finding_day_users_emptied_idx is
    'The rows the last change brought to zero users, which the counting trigger deletes (0069).';


create table cardinal.report_source_day_users (
    app_id       bigint not null,
    campaign_id  text   not null,
    canvas_id    text   not null,
    kind         text   not null,
    day          date   not null,
    previous_day date   not null,
    users        bigint not null,

    constraint report_source_day_users_pkey primary key (app_id, campaign_id, canvas_id, kind, day, previous_day),
    constraint report_source_day_users_kind_known
        check (kind in ('send', 'control_send', 'control_impression', 'variant_impression')),
    constraint report_source_day_users_order check (previous_day < day)
);

-- Tiny: rows are deleted as soon as they reach zero.
create index report_source_day_users_emptied_idx
    on cardinal.report_source_day_users (app_id)
    where users = 0;

alter table cardinal.report_source_day_users owner to cardinal_owner;

comment on table cardinal.report_source_day_users is
    'Report state of the anomalies report (0069): 0025''s day pairs per campaign or canvas and kind of day '
    '(report_source_kind_days) over its non-test report groups, for control_impressions_missing''s campaign '
    'arms. Distinct users of from..to = sum of users with day in from..to and previous_day < from. Kept by '
    'triggers on report_user_state.';
comment on column cardinal.report_source_day_users.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_source_day_users.campaign_id is 'The campaign; '''' for a canvas.';
comment on column cardinal.report_source_day_users.canvas_id is 'The canvas; '''' for a campaign.';
comment on column cardinal.report_source_day_users.kind is
    'send, control_send, control_impression or variant_impression (report_source_kind_days).';
comment on column cardinal.report_source_day_users.day is 'A report day with a day of the kind.';
comment on column cardinal.report_source_day_users.previous_day is
    'The user''s previous day of the kind in the campaign or canvas, -infinity for the first.';
comment on column cardinal.report_source_day_users.users is
    'How many users; a row that reaches 0 is deleted in the same statement.';
comment on index cardinal.report_source_day_users_emptied_idx is
    'The rows the last change brought to zero users, which the counting trigger deletes (0069).';


create table cardinal.report_several_arm_users (
    app_id      bigint not null,
    campaign_id text   not null,
    canvas_id   text   not null,
    user_key    text   not null,

    constraint report_several_arm_users_pkey primary key (app_id, campaign_id, canvas_id, user_key)
);

alter table cardinal.report_several_arm_users owner to cardinal_owner;

comment on table cardinal.report_several_arm_users is
    'Report state of the anomalies report (0069): the users whose non-test report_user_state rows of a '
    'campaign or canvas exposed them to two arms or more (report_row_arms) over all their days. '
    'users_in_several_arms reads these users'' rows to decide on a range. Kept by triggers on report_user_state.';
comment on column cardinal.report_several_arm_users.app_id is 'The app (apps.app_id).';
comment on column cardinal.report_several_arm_users.campaign_id is 'The campaign; '''' for a canvas.';
comment on column cardinal.report_several_arm_users.canvas_id is 'The canvas; '''' for a campaign.';
comment on column cardinal.report_several_arm_users.user_key is 'The user (events.user_key).';


-- What the state makes: the backfill and the tests read these; the triggers keep the tables equal to them.
create view cardinal.report_finding_day_users_of_rows as
select p.finding_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.finding_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.finding_id, d.user_key, d.kind order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct g.finding_id, u.user_key, k.kind, k.day
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        cross join cardinal.report_finding_kind_days(g.channel, u.impression_days, u.dismissal_days,
                                                     u.control_impression_days, u.send_days,
                                                     u.control_send_days) as k
        where not g.test and (g.campaign_id is not null or g.canvas_id is not null) and k.day is not null
    ) as d
) as p
group by 1, 2, 3, 4;

alter view cardinal.report_finding_day_users_of_rows owner to cardinal_owner;

comment on view cardinal.report_finding_day_users_of_rows is
    'report_finding_day_users computed from report_user_state: what the triggers keep the table equal to (0069).';

create view cardinal.report_source_day_users_of_rows as
select p.app_id, p.campaign_id, p.canvas_id, p.kind, p.day, p.previous_day, count(*) as users
from (
    select d.app_id, d.campaign_id, d.canvas_id, d.kind, d.day,
           coalesce(lag(d.day) over (partition by d.app_id, d.campaign_id, d.canvas_id, d.user_key, d.kind
                                     order by d.day),
                    '-infinity') as previous_day
    from (
        select distinct g.app_id, coalesce(g.campaign_id, '') as campaign_id, coalesce(g.canvas_id, '') as canvas_id,
               u.user_key, k.kind, k.day
        from cardinal.report_user_state as u
        join cardinal.report_groups as g on g.group_id = u.group_id
        cross join cardinal.report_source_kind_days(g.channel, u.impression_days, u.control_impression_days,
                                                    u.send_days, u.control_send_days) as k
        where not g.test and (g.campaign_id is not null or g.canvas_id is not null) and k.day is not null
    ) as d
) as p
group by 1, 2, 3, 4, 5, 6;

alter view cardinal.report_source_day_users_of_rows owner to cardinal_owner;

comment on view cardinal.report_source_day_users_of_rows is
    'report_source_day_users computed from report_user_state: what the triggers keep the table equal to (0069).';

create view cardinal.report_several_arm_users_of_rows as
select g.app_id, coalesce(g.campaign_id, '') as campaign_id, coalesce(g.canvas_id, '') as canvas_id, u.user_key
from cardinal.report_user_state as u
join cardinal.report_groups as g on g.group_id = u.group_id
cross join cardinal.report_row_arms(g.variant_id, g.channel, u.impression_days, u.control_impression_days,
                                    u.send_days, u.control_send_days) as a
where not g.test and (g.campaign_id is not null or g.canvas_id is not null)
group by 1, 2, 3, 4
having count(distinct a.arm) > 1;

alter view cardinal.report_several_arm_users_of_rows owner to cardinal_owner;

comment on view cardinal.report_several_arm_users_of_rows is
    'report_several_arm_users computed from report_user_state: what the triggers keep the table equal to (0069).';

-- The views' columns mean what the tables' do.
do $comments$
declare
    target record;
begin
    for target in
        select v.view_name, a.attname as column_name, pg_catalog.col_description(t.attrelid, t.attnum) as description
        from (
            values ('report_finding_day_users_of_rows', 'cardinal.report_finding_day_users'::regclass),
                   ('report_source_day_users_of_rows', 'cardinal.report_source_day_users'::regclass),
                   ('report_several_arm_users_of_rows', 'cardinal.report_several_arm_users'::regclass)
        ) as v (view_name, state_table)
        join pg_catalog.pg_attribute as a
            on a.attrelid = format('cardinal.%I', v.view_name)::regclass and a.attnum > 0
        join pg_catalog.pg_attribute as t on t.attrelid = v.state_table and t.attname = a.attname
    loop
        execute format('comment on column cardinal.%I.%I is %L', target.view_name, target.column_name,
                       target.description);
    end loop;
end
$comments$;


-- The counts are report state: the reader role reads them, as it reads every other (0008).
grant select on cardinal.report_findings, cardinal.report_finding_day_users, cardinal.report_source_day_users,
                cardinal.report_several_arm_users, cardinal.report_finding_day_users_of_rows,
                cardinal.report_source_day_users_of_rows, cardinal.report_several_arm_users_of_rows
    to cardinal_reader;


-- The statement triggers of report_user_state: the touched users' day sets of the touched sources before and
-- after the statement, their pairs netted into report_finding_day_users, their arms into
-- report_several_arm_users.
create function cardinal.count_finding_day_users()
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
    -- The statement's rows whose counted days may have changed, on both sides of an update (one that moves a
    -- row to another user or group changes two users' or groups' days): an update that keeps a row's
    -- impression, dismissal, control impression, send and control send days (most of a fold's) is left out.
    changes text;
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
    -- not among its own. A plain UPDATE writes no such rows.
    versions := case tg_op
        when 'INSERT' then
            'select true as after, c.group_id, c.user_key, c.impression_days, c.dismissal_days,
                    c.control_impression_days, c.send_days, c.control_send_days
             from current_rows as c
             union all
             select false, c.group_id, c.user_key, c.impression_days, c.dismissal_days, c.control_impression_days,
                    c.send_days, c.control_send_days
             from current_rows as c
             where not exists (select from added as n where n.group_id = c.group_id and n.user_key = c.user_key)'
        when 'DELETE' then
            'select true as after, c.group_id, c.user_key, c.impression_days, c.dismissal_days,
                    c.control_impression_days, c.send_days, c.control_send_days
             from current_rows as c
             union all
             select false, c.group_id, c.user_key, c.impression_days, c.dismissal_days, c.control_impression_days,
                    c.send_days, c.control_send_days
             from current_rows as c
             union all
             select false, o.group_id, o.user_key, o.impression_days, o.dismissal_days, o.control_impression_days,
                    o.send_days, o.control_send_days
             from removed as o'
        else
            'select true as after, c.group_id, c.user_key, c.impression_days, c.dismissal_days,
                    c.control_impression_days, c.send_days, c.control_send_days
             from current_rows as c
             where not c.written_by = any(array(
                       select w.written_by from current_rows as w
                       join added as n on n.group_id = w.group_id and n.user_key = w.user_key))
                or exists (select from added as n where n.group_id = c.group_id and n.user_key = c.user_key)
             union all
             select false, c.group_id, c.user_key, c.impression_days, c.dismissal_days, c.control_impression_days,
                    c.send_days, c.control_send_days
             from current_rows as c
             where not c.written_by = any(array(
                       select w.written_by from current_rows as w
                       join added as n on n.group_id = w.group_id and n.user_key = w.user_key))
             union all
             select false, o.group_id, o.user_key, o.impression_days, o.dismissal_days, o.control_impression_days,
                    o.send_days, o.control_send_days
             from removed as o'
    end;
    changes := case tg_op
        when 'INSERT' then
            'select n.group_id, n.user_key from added as n
             where n.impression_days is not null or n.dismissal_days is not null
                or n.control_impression_days is not null or n.send_days is not null
                or n.control_send_days is not null'
        when 'DELETE' then
            'select o.group_id, o.user_key from removed as o
             where o.impression_days is not null or o.dismissal_days is not null
                or o.control_impression_days is not null or o.send_days is not null
                or o.control_send_days is not null'
        else
            'select n.group_id, n.user_key from added as n
             where not exists (
                 select from removed as o
                 where o.group_id = n.group_id and o.user_key = n.user_key
                   and o.impression_days is not distinct from n.impression_days
                   and o.dismissal_days is not distinct from n.dismissal_days
                   and o.control_impression_days is not distinct from n.control_impression_days
                   and o.send_days is not distinct from n.send_days
                   and o.control_send_days is not distinct from n.control_send_days)
             union all
             select o.group_id, o.user_key from removed as o
             where not exists (
                 select from added as n
                 where n.group_id = o.group_id and n.user_key = o.user_key
                   and n.impression_days is not distinct from o.impression_days
                   and n.dismissal_days is not distinct from o.dismissal_days
                   and n.control_impression_days is not distinct from o.control_impression_days
                   and n.send_days is not distinct from o.send_days
                   and n.control_send_days is not distinct from o.control_send_days)'
    end;
    execute format($statement$
        with changed as materialized (%1$s),
        -- The (app, campaign or canvas, user) whose day sets may have changed.
        -- The finding groups and campaigns (canvases) of the changed rows, per user: the user's other rows of a
        -- campaign change only its campaign's counts and arms.
        touched_findings as materialized (
            select distinct g.finding_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key,
                   coalesce(g.canvas_id, '') as canvas_key, c.user_key
            from changed as c
            join cardinal.report_groups as g on g.group_id = c.group_id
            where not g.test and (g.campaign_id is not null or g.canvas_id is not null)
        ),
        -- The (app, campaign or canvas, user) whose day sets may have changed.
        touched as materialized (
            select distinct t.app_id, t.campaign_key, t.canvas_key, t.user_key
            from touched_findings as t
        ),
        -- The touched users' rows now, with the transaction and command that wrote each.
        current_rows as materialized (
            select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.control_impression_days,
                   u.send_days, u.control_send_days, u.xmin::text || ':' || u.cmin::text as written_by
            from cardinal.report_user_state as u
            where u.user_key = any(array(select distinct t.user_key from touched as t))
        ),
        -- Their rows of the touched sources' non-test groups before (after false) and after the statement.
        versions as materialized (
            select r.after, g.app_id, t.campaign_key, t.canvas_key, g.finding_id, g.variant_id, g.channel,
                   r.user_key, r.impression_days, r.dismissal_days, r.control_impression_days, r.send_days,
                   r.control_send_days
            from (%2$s
            ) as r
            join cardinal.report_groups as g on g.group_id = r.group_id
            join touched as t
                on t.app_id = g.app_id and t.campaign_key = coalesce(g.campaign_id, '')
               and t.canvas_key = coalesce(g.canvas_id, '') and t.user_key = r.user_key
            where not g.test
        ),
        -- Each version's pairs, netted below: +1 after, -1 before.
        pairs as (
            select d.after, d.finding_id, d.kind, d.day,
                   coalesce(lag(d.day) over (partition by d.after, d.finding_id, d.user_key, d.kind order by d.day),
                            '-infinity') as previous_day
            from (
                select distinct v.after, v.finding_id, v.user_key, k.kind, k.day
                from versions as v
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
                from versions as v
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
            from versions as v
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
            using touched as t
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
    $statement$, changes, versions);
    delete from cardinal.report_finding_day_users where users = 0;
    delete from cardinal.report_source_day_users where users = 0;
    return null;
end
$function$;

alter function cardinal.count_finding_day_users() owner to cardinal_owner;

revoke execute on function cardinal.count_finding_day_users() from public;

comment on function cardinal.count_finding_day_users() is
    'Statement trigger of report_user_state (0069): for the users whose counted days changed, makes their day '
    'sets per finding group and kind before and after the statement from their rows (report_user_state''s '
    'user_key index) and the transition tables, nets the pairs into report_finding_day_users (deleting counts '
    'that reach zero), and sets their report_several_arm_users rows of the touched campaigns and canvases.';


-- The backfill, from the folded state; no fold writes the state meanwhile.
lock table cardinal.report_user_state in share mode;

insert into cardinal.report_finding_day_users
select * from cardinal.report_finding_day_users_of_rows
order by 1, 2, 3, 4;

insert into cardinal.report_source_day_users
select * from cardinal.report_source_day_users_of_rows
order by 1, 2, 3, 4, 5, 6;

insert into cardinal.report_several_arm_users
select * from cardinal.report_several_arm_users_of_rows
order by 1, 2, 3, 4;

analyze cardinal.report_findings, cardinal.report_finding_day_users, cardinal.report_source_day_users,
        cardinal.report_several_arm_users;

create trigger report_user_state_count_finding_days_inserted
    after insert on cardinal.report_user_state
    referencing new table as added
    for each statement
    execute function cardinal.count_finding_day_users();

create trigger report_user_state_count_finding_days_updated
    after update on cardinal.report_user_state
    referencing old table as removed new table as added
    for each statement
    execute function cardinal.count_finding_day_users();

create trigger report_user_state_count_finding_days_deleted
    after delete on cardinal.report_user_state
    referencing old table as removed
    for each statement
    execute function cardinal.count_finding_day_users();

comment on trigger report_user_state_count_finding_days_inserted on cardinal.report_user_state is
    'Keeps report_finding_day_users and report_several_arm_users what the state makes (0069).';
comment on trigger report_user_state_count_finding_days_updated on cardinal.report_user_state is
    'Keeps report_finding_day_users and report_several_arm_users what the state makes (0069).';
comment on trigger report_user_state_count_finding_days_deleted on cardinal.report_user_state is
    'Keeps report_finding_day_users and report_several_arm_users what the state makes (0069).';


comment on function cardinal.anomalies_of_0017(text, date, date, boolean, text, text) is
    'The kinds of 0011 and 0017 from the per-user report state, by campaign or canvas step (0033, 0057''s body): '
    'what anomalies runs with test events, whose users report_finding_day_users does not count; without them '
    'anomalies_of_0017_from_counts (0069). Same arguments and rows as anomalies_of_0017_from_counts, '
    'include_test added.';


create function cardinal.anomalies_of_0017_from_counts(
    app          text,
    from_date    date,
    to_date      date,
    campaign     text,
    canvas       text
)
    returns table (
        kind           text,
        severity       text,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        evidence       jsonb,
        likely_cause   text
    )
    language sql
    stable
    -- Hash joins whatever the row estimates (0040, 0046, 0050): a merge join chosen on a 1-row estimate may
    -- merge on one key and filter the rest (quadratic). jit off.
    set enable_nestloop = off
    set enable_mergejoin = off
    -- Users are made distinct by hashing whatever their estimated number (0053): a sort of every state row
    -- by user is what the integer keys make cheaper to hash.
    set enable_sort = off
    set jit = off
as $function$
    with target as materialized (
        select a.app_id, a.name as app_name, a.report_time_zone
        from cardinal.apps as a
        where cardinal.check_report_range(anomalies_of_0017_from_counts.from_date, anomalies_of_0017_from_counts.to_date)
          and (anomalies_of_0017_from_counts.app is null or a.name = anomalies_of_0017_from_counts.app)
    ),
    -- The events not folded yet, as state rows of the selected sources (report_user_facts_of's pending part),
    -- each under a negative stand-in for a group id: its group may not exist in report_groups yet.
    pending as materialized (
        select -dense_rank() over (
                   order by p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id, p.channel,
                            p.platform, p.sdk_version, p.app_version, p.test
               ) as group_id,
               p.*
        from cardinal.report_pending_user_facts as p
        join target as t on t.app_id = p.app_id
        where (p.campaign_id is not null or p.canvas_id is not null)
          and (anomalies_of_0017_from_counts.campaign is null or p.campaign_id = anomalies_of_0017_from_counts.campaign)
          and (anomalies_of_0017_from_counts.canvas is null or p.canvas_id = anomalies_of_0017_from_counts.canvas)
    ),
    -- The selected sources' report groups, folded and pending, each with small integer keys: its finding
    -- group (the report group without variant and test flag), its source (campaign or canvas), its step
    -- (campaign or canvas step) and its variant arm (control is 0). Users are made distinct per these keys,
    -- so that each hashed user row carries a few integers and the user key, not eight texts; the keys are
    groups as materialized (
        select k.group_id, k.app_id, t.app_name, t.report_time_zone as app_time_zone, k.campaign_id,
               k.canvas_id, k.canvas_step_id, k.channel, k.platform, k.sdk_version, k.app_version, k.test,
               k.channel in ('content_card', 'in_app_message', 'banner') as dismissible,
               k.channel in ('content_card', 'in_app_message', 'feature_flag') as impression_channel,
               k.channel = 'push' as push,
               dense_rank() over (
                   order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id, k.channel, k.platform,
                            k.sdk_version, k.app_version
               )::integer as finding_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id)::integer as source_id,
               dense_rank() over (order by k.app_id, k.campaign_id, k.canvas_id, k.canvas_step_id)::integer
                   as step_id,
               dense_rank() over (order by k.variant_id)::integer as variant_arm,
               k.finding_key
        from (
            select g.group_id, g.app_id, g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel,
                   g.platform, g.sdk_version, g.app_version, g.test, g.finding_id as finding_key
            from cardinal.report_groups as g
            where (g.campaign_id is not null or g.canvas_id is not null)
              and (anomalies_of_0017_from_counts.campaign is null or g.campaign_id = anomalies_of_0017_from_counts.campaign)
              and (anomalies_of_0017_from_counts.canvas is null or g.canvas_id = anomalies_of_0017_from_counts.canvas)
            union all
            select distinct p.group_id, p.app_id, p.campaign_id, p.canvas_id, p.canvas_step_id, p.variant_id,
                   p.channel, p.platform, p.sdk_version, p.app_version, p.test, f.finding_id
            from pending as p
            -- A pending group's finding group is in report_findings when a folded group shares it ('' for NULL:
            -- 0005's CHECKs keep every key column non-empty, so the join is an equality and hashed).
            left join cardinal.report_findings as f
                on f.app_id = p.app_id and coalesce(f.campaign_id, '') = coalesce(p.campaign_id, '')
               and coalesce(f.canvas_id, '') = coalesce(p.canvas_id, '')
               and coalesce(f.canvas_step_id, '') = coalesce(p.canvas_step_id, '') and f.channel = p.channel
               and coalesce(f.platform, '') = coalesce(p.platform, '')
               and coalesce(f.sdk_version, '') = coalesce(p.sdk_version, '')
               and coalesce(f.app_version, '') = coalesce(p.app_version, '')
        ) as k
        join target as t on t.app_id = k.app_id
    ),
    -- The finding groups' columns, for the findings' rows.
    findings as materialized (
        select distinct finding_id, source_id, finding_key, app_id, app_name, campaign_id, canvas_id,
               canvas_step_id, channel, platform, sdk_version, app_version, dismissible, impression_channel
        from groups
    ),
    -- The campaigns and canvases, by the keys of report_source_day_users and report_several_arm_users.
    sources as materialized (
        select distinct g.source_id, g.app_id, coalesce(g.campaign_id, '') as campaign_key,
               coalesce(g.canvas_id, '') as canvas_key
        from groups as g
    ),
    -- report_user_facts' rows of the selected sources, by group id: every folded row (a sequential scan), or
    -- one source's by its groups (0042's index condition), and the pending rows. Not materialized: each
    -- reader below takes the columns it needs (the day sets, or the times of a few users).
    facts as not materialized (
        select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.send_days,
               u.control_impression_days, u.control_send_days, u.first_impression_at,
               u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        where anomalies_of_0017_from_counts.campaign is null and anomalies_of_0017_from_counts.canvas is null
        union all
        select u.group_id, u.user_key, u.impression_days, u.dismissal_days, u.send_days,
               u.control_impression_days, u.control_send_days, u.first_impression_at,
               u.first_control_impression_at, u.first_control_send_at, u.click_times, u.dismissal_times
        from cardinal.report_user_state as u
        where (anomalies_of_0017_from_counts.campaign is not null or anomalies_of_0017_from_counts.canvas is not null)
          and u.group_id = any(array(select g.group_id from groups as g where g.group_id > 0))
        union all
        select p.group_id, p.user_key, p.impression_days, p.dismissal_days, p.send_days,
               p.control_impression_days, p.control_send_days, p.first_impression_at,
               p.first_control_impression_at, p.first_control_send_at, p.click_times, p.dismissal_times
        from pending as p
    ),

    -- Every click and dismissal of the range, on the report days of the campaign's time zone (the app's for
    -- a canvas). Rows without interaction times are skipped before the settings are joined.
    interaction_times as materialized (
        select g.finding_id, g.source_id, g.step_id, g.channel, f.user_key, x.type, x.time
        from facts as f
        join groups as g on g.group_id = f.group_id
        left join cardinal.campaign_settings as s on s.app_id = g.app_id and s.campaign_id = g.campaign_id
        cross join lateral (
            select 'click' as type, t as time from unnest(f.click_times) as t
            union all
            select 'dismissal', t from unnest(f.dismissal_times) as t
        ) as x
        where (f.click_times is not null or f.dismissal_times is not null)
          and not g.test
          and (x.time at time zone coalesce(s.report_time_zone, g.app_time_zone))::date
              between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    -- The sources' users who clicked or dismissed in the range.
    acting_users as materialized (
        select distinct source_id, user_key
        from interaction_times
    ),
    -- Per acting user and step, over all the user's rows of the source (test rows too): the first
    -- impression before the end of the broad range, and whether a control exposure came by then.
    step_exposures as materialized (
        select g.source_id, f.user_key, g.step_id,
               min(f.first_impression_at) filter (
                   where f.first_impression_at < (anomalies_of_0017_from_counts.to_date + 2)::timestamp at time zone 'UTC'
               ) as first_impression,
               bool_or(least(f.first_control_impression_at, f.first_control_send_at)
                       < (anomalies_of_0017_from_counts.to_date + 2)::timestamp at time zone 'UTC') as control_exposure
        from facts as f
        join groups as g on g.group_id = f.group_id
        join acting_users as a on a.source_id = g.source_id and a.user_key = f.user_key
        group by g.source_id, f.user_key, g.step_id
    ),
    -- The control exposure over all the user's steps: a canvas's control group is the canvas's.
    user_control_exposures as (
        select source_id, user_key, coalesce(bool_or(control_exposure), false) as has_control_exposure
        from step_exposures
        group by source_id, user_key
    ),
    interactions as (
        select i.finding_id, i.channel, i.user_key, i.type,
               u.has_control_exposure and e.first_impression is null as control_user,
               e.first_impression is null or e.first_impression > i.time as without_impression
        from interaction_times as i
        join step_exposures as e
            on e.source_id = i.source_id and e.user_key = i.user_key and e.step_id = i.step_id
        join user_control_exposures as u on u.source_id = i.source_id and u.user_key = i.user_key
    ),


    -- The distinct users per finding group and kind of day in the range (report_finding_kind_days), of the
    -- non-test groups: the folded state's day pairs (0025) plus the pending users who have the kind in the range
    -- and no folded day of it there.
    folded_counts as materialized (
        select c.finding_id as finding_key, c.kind, sum(c.users) as users
        from cardinal.report_finding_day_users as c
        where c.finding_id = any(array(select f.finding_key from findings as f where f.finding_key is not null))
          and c.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
          and c.previous_day < anomalies_of_0017_from_counts.from_date
        group by 1, 2
    ),
    pending_kind_users as materialized (
        select distinct g.finding_id, g.finding_key, p.user_key, k.kind
        from pending as p
        join groups as g on g.group_id = p.group_id
        cross join cardinal.report_finding_kind_days(p.channel, p.impression_days, p.dismissal_days,
                                                     p.control_impression_days, p.send_days,
                                                     p.control_send_days) as k
        where not p.test
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    -- Those users' folded days of the kinds in the range, by report_user_state's user_key index.
    folded_kind_users as materialized (
        select distinct g.finding_key, u.user_key, k.kind
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        cross join cardinal.report_finding_kind_days(g.channel, u.impression_days, u.dismissal_days,
                                                     u.control_impression_days, u.send_days,
                                                     u.control_send_days) as k
        where u.user_key = any(array(select distinct p.user_key from pending_kind_users as p))
          and not g.test
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    finding_counts as materialized (
        select x.finding_id,
               coalesce(sum(x.users) filter (where x.kind = 'impression'), 0) as impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'dismissal'), 0) as dismissal_users,
               coalesce(sum(x.users) filter (where x.kind = 'control_impression'), 0) as control_impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'exposure'), 0) as exposed_users
        from (
            select f.finding_id, c.kind, c.users
            from folded_counts as c
            join findings as f on f.finding_key = c.finding_key
            union all
            select p.finding_id, p.kind, count(*)
            from pending_kind_users as p
            where not exists (
                select from folded_kind_users as k
                where k.finding_key = p.finding_key and k.user_key = p.user_key and k.kind = p.kind)
            group by 1, 2
        ) as x
        group by x.finding_id
    ),

    dismissals_exceed_impressions as (
        select c.finding_id, c.impression_users as unique_impressions, c.dismissal_users as unique_dismissals
        from finding_counts as c
        join findings as f on f.finding_id = c.finding_id
        where f.dismissible
    ),

    without_impression as (
        select type, finding_id,
               count(distinct user_key) filter (where without_impression) as users_without_impression,
               count(distinct user_key) as users,
               count(*) filter (where without_impression) as events_without_impression,
               count(*) as events
        from interactions
        where channel in ('content_card', 'in_app_message', 'banner') and not control_user
        group by type, finding_id
    ),


    impression_groups as materialized (
        select c.finding_id, f.source_id, c.impression_users as variant_users,
               c.control_impression_users as control_users
        from finding_counts as c
        join findings as f on f.finding_id = c.finding_id
        where f.impression_channel and (c.impression_users > 0 or c.control_impression_users > 0)
    ),
    -- control_impressions_missing's campaign arms, for the campaigns (canvases) it may name (a group of
    -- impressions without a control impression): the distinct users per source and kind of day in the range
    -- (report_source_kind_days) of the non-test groups, from the folded state's day pairs plus the pending users
    -- without a folded day of the kind in the range.
    candidate_sources as materialized (
        select distinct s.source_id, s.app_id, s.campaign_key, s.canvas_key
        from impression_groups as i
        join sources as s on s.source_id = i.source_id
        where i.control_users = 0 and i.variant_users > 0
    ),
    pending_source_kind_users as materialized (
        select distinct g.source_id, p.user_key, k.kind
        from pending as p
        join groups as g on g.group_id = p.group_id
        cross join cardinal.report_source_kind_days(p.channel, p.impression_days, p.control_impression_days,
                                                    p.send_days, p.control_send_days) as k
        where not p.test
          and g.source_id = any(array(select c.source_id from candidate_sources as c))
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    folded_source_kind_users as materialized (
        select distinct g.source_id, u.user_key, k.kind
        from cardinal.report_user_state as u
        join groups as g on g.group_id = u.group_id
        cross join cardinal.report_source_kind_days(g.channel, u.impression_days, u.control_impression_days,
                                                    u.send_days, u.control_send_days) as k
        where u.user_key = any(array(select distinct p.user_key from pending_source_kind_users as p))
          and not g.test
          and k.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
    ),
    campaign_arms as (
        select c.source_id,
               coalesce(sum(x.users) filter (where x.kind = 'control_send'), 0) as control_send_users,
               coalesce(sum(x.users) filter (where x.kind = 'send'), 0) as send_users,
               coalesce(sum(x.users) filter (where x.kind = 'control_impression'), 0) as control_impression_users,
               coalesce(sum(x.users) filter (where x.kind = 'variant_impression'), 0) as variant_impression_users
        from candidate_sources as c
        left join (
            select o.source_id, d.kind, d.users
            from cardinal.report_source_day_users as d
            join candidate_sources as o
                on o.app_id = d.app_id and o.campaign_key = d.campaign_id and o.canvas_key = d.canvas_id
            where d.app_id = any(array(select o.app_id from candidate_sources as o))
              and d.campaign_id = any(array(select o.campaign_key from candidate_sources as o))
              and d.day between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
              and d.previous_day < anomalies_of_0017_from_counts.from_date
            union all
            select p.source_id, p.kind, 1
            from pending_source_kind_users as p
            where not exists (
                select from folded_source_kind_users as f
                where f.source_id = p.source_id and f.user_key = p.user_key and f.kind = p.kind)
        ) as x on x.source_id = c.source_id
        group by c.source_id
    ),
    control_campaigns as (
        select c.*, share.control_share,
               case when share.control_share < 1
                    then share.control_share / (1 - share.control_share) end as control_per_variant_user
        from campaign_arms as c
        join (select distinct source_id, app_id, campaign_id from groups) as source
            on source.source_id = c.source_id
        left join cardinal.campaign_settings as s
            on s.app_id = source.app_id and s.campaign_id = source.campaign_id
        cross join lateral (
            select case
                       when s.expected_split ? 'control'
                           then (s.expected_split ->> 'control')::double precision
                                / (select sum(w.value::double precision) from jsonb_each_text(s.expected_split) as w)
                       when c.send_users > 0
                           then c.control_send_users::double precision / c.send_users
                   end as control_share
        ) as share
        where c.control_send_users > 0 or coalesce(s.expected_split ? 'control', false)
    ),
    control_impressions_missing as (
        select g.finding_id, g.variant_users, c.control_send_users, c.control_share, c.control_impression_users,
               g.variant_users * c.control_per_variant_user as expected_group,
               c.variant_impression_users * c.control_per_variant_user as expected_campaign
        from impression_groups as g
        join control_campaigns as c on c.source_id = g.source_id
        where g.control_users = 0 and g.variant_users > 0
    ),

    control_interaction as (
        select app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
               sum(stored_events) as stored_events, sum(stored_users) as stored_users,
               sum(rejected_events) as rejected_events
        from (
            select n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform,
                   n.sdk_version, n.app_version, i.stored_events, i.stored_users, 0 as rejected_events
            from (
                select finding_id, count(*) as stored_events, count(distinct user_key) as stored_users
                from interactions
                where control_user
                group by finding_id
            ) as i
            join findings as n on n.finding_id = i.finding_id
            union all
            select t.app_name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
                   raw.sdk_version, raw.app_version, 0, 0, count(*)
            from target as t
            join cardinal.rejected_events as r on r.app_id = t.app_id
            cross join lateral (
                select j ->> 'campaign_id' as campaign_id, j ->> 'canvas_id' as canvas_id,
                       j ->> 'canvas_step_id' as canvas_step_id, j ->> 'channel' as channel,
                       j ->> 'platform' as platform, j ->> 'sdk_version' as sdk_version,
                       j ->> 'app_version' as app_version, coalesce(j ->> 'test', 'false') = 'true' as test
                from (select cardinal.try_jsonb(r.raw) as j) as parsed
            ) as raw
            left join cardinal.campaign_settings as s on s.app_id = r.app_id and s.campaign_id = raw.campaign_id
            where r.code = 'control_interaction'
              and r.received_at >= (anomalies_of_0017_from_counts.from_date - 1)::timestamp at time zone 'UTC'
              and r.received_at < (anomalies_of_0017_from_counts.to_date + 2)::timestamp at time zone 'UTC'
              and (r.received_at at time zone coalesce(s.report_time_zone, t.report_time_zone))::date
                  between anomalies_of_0017_from_counts.from_date and anomalies_of_0017_from_counts.to_date
              and (anomalies_of_0017_from_counts.campaign is null or raw.campaign_id = anomalies_of_0017_from_counts.campaign)
              and (anomalies_of_0017_from_counts.canvas is null or raw.canvas_id = anomalies_of_0017_from_counts.canvas)
              and not raw.test
            group by t.app_name, raw.campaign_id, raw.canvas_id, raw.canvas_step_id, raw.channel, raw.platform,
                     raw.sdk_version, raw.app_version
        ) as both_sources
        group by app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version
    ),

    -- The users who met several arms in the range over the whole campaign or canvas: a few hundred, which

    -- The users who may have met several arms in the range: those whose folded rows of the source ever did
    -- (report_several_arm_users) and the pending events' exposed users. Their non-test rows of the source give
    -- the arms of the range (control 0); a user is counted in each finding group where it was exposed.
    several_arm_candidates as materialized (
        select o.source_id, s.user_key
        from cardinal.report_several_arm_users as s
        join sources as o
            on o.app_id = s.app_id and o.campaign_key = s.campaign_id and o.canvas_key = s.canvas_id
        where s.app_id = any(array(select t.app_id from target as t))
          and (anomalies_of_0017_from_counts.campaign is null or s.campaign_id = anomalies_of_0017_from_counts.campaign)
          and (anomalies_of_0017_from_counts.canvas is null or s.canvas_id = anomalies_of_0017_from_counts.canvas)
        union
        select g.source_id, p.user_key
        from pending as p
        join groups as g on g.group_id = p.group_id
        where not p.test
          and (p.impression_days is not null or p.control_impression_days is not null
               or (g.push and (p.send_days is not null or p.control_send_days is not null)))
    ),
    several_arm_exposures as materialized (
        select e.finding_id, e.source_id, e.user_key, a.arm
        from (
            select g.finding_id, g.source_id, g.variant_arm, g.push, u.user_key, u.impression_days, u.send_days,
                   u.control_impression_days, u.control_send_days
            from cardinal.report_user_state as u
            join groups as g on g.group_id = u.group_id
            where u.user_key = any(array(select distinct c.user_key from several_arm_candidates as c))
              and g.group_id > 0 and not g.test
            union all
            select g.finding_id, g.source_id, g.variant_arm, g.push, p.user_key, p.impression_days, p.send_days,
                   p.control_impression_days, p.control_send_days
            from pending as p
            join groups as g on g.group_id = p.group_id
            where not p.test
              and p.user_key = any(array(select distinct c.user_key from several_arm_candidates as c))
        ) as e
        join several_arm_candidates as c on c.source_id = e.source_id and c.user_key = e.user_key
        cross join lateral (
            select daterange(anomalies_of_0017_from_counts.from_date, anomalies_of_0017_from_counts.to_date, '[]')
                       as days
        ) as range
        cross join lateral (
            select e.variant_arm as arm
            where range.days @> any(e.impression_days) or (e.push and range.days @> any(e.send_days))
            union all
            select 0
            where range.days @> any(e.control_impression_days)
               or (e.push and range.days @> any(e.control_send_days))
        ) as a
    ),
    several_arm_users as materialized (
        select source_id, user_key
        from several_arm_exposures
        group by source_id, user_key
        having min(arm) <> max(arm)
    ),
    users_in_several_arms as (
        select x.finding_id, x.users, c.exposed_users
        from (
            select e.finding_id, count(distinct e.user_key) as users
            from several_arm_exposures as e
            join several_arm_users as s on s.source_id = e.source_id and s.user_key = e.user_key
            group by e.finding_id
        ) as x
        join finding_counts as c on c.finding_id = x.finding_id
    )


    select 'dismissals_exceed_impressions', 'critical',
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('unique_impressions', d.unique_impressions,
                              'unique_dismissals', d.unique_dismissals),
           'A custom UI logs dismissals but not the impressions of the same messages (the default UI logs both).'
    from dismissals_exceed_impressions as d
    join findings as n on n.finding_id = d.finding_id
    where d.unique_dismissals > d.unique_impressions

    union all
    select case w.type when 'click' then 'click_without_impression' else 'dismissal_without_impression' end,
           cardinal.anomaly_severity(w.users_without_impression::double precision / w.users),
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('users_without_impression', w.users_without_impression,
                              'users', w.users,
                              'share', w.users_without_impression::double precision / w.users,
                              'events_without_impression', w.events_without_impression,
                              'events', w.events),
           case w.type
               when 'click' then 'A custom UI logs clicks without logging the message''s impression first '
                                 '(or logs it only after the click).'
               else 'A custom UI logs dismissals of messages whose impression it never logged (or logs it only '
                    'after the dismissal).'
           end
    from without_impression as w
    join findings as n on n.finding_id = w.finding_id
    where w.users_without_impression > 0

    union all
    select 'control_impressions_missing',
           case when m.control_impression_users = 0 then 'critical' else 'warning' end,
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('variant_impression_users', m.variant_users,
                              'control_impression_users', 0,
                              'expected_control_impression_users', m.expected_group,
                              'campaign_control_impression_users', m.control_impression_users,
                              'campaign_control_send_users', m.control_send_users,
                              'expected_control_share', m.control_share),
           'The custom UI filters control messages out instead of logging a control impression when the user '
           'would have seen the message.'
    from control_impressions_missing as m
    join findings as n on n.finding_id = m.finding_id
    where (m.control_impression_users = 0 and coalesce(m.expected_campaign >= 8, true))
       or coalesce(m.expected_group >= 8, true)

    union all
    select 'control_interaction',
           case when stored_events > 0 then 'critical' else 'warning' end,
           app_name, campaign_id, canvas_id, canvas_step_id, channel, platform, sdk_version, app_version,
           jsonb_build_object('stored_events', stored_events,
                              'stored_users', stored_users,
                              'rejected_events', rejected_events),
           'The app shows the message to control-group users, or logs clicks or dismissals for control messages '
           'it should only have counted as control impressions.'
    from control_interaction

    union all
    select 'users_in_several_arms',
           cardinal.anomaly_severity(a.users::double precision / a.exposed_users),
           n.app_name, n.campaign_id, n.canvas_id, n.canvas_step_id, n.channel, n.platform, n.sdk_version,
           n.app_version,
           jsonb_build_object('users', a.users,
                              'exposed_users', a.exposed_users,
                              'share', a.users::double precision / a.exposed_users),
           'Users are assigned to more than one arm: the variant changes between sends or devices, or the UI '
           'logs another variant (or control) than the one it shows.'
    from users_in_several_arms as a
    join findings as n on n.finding_id = a.finding_id
    where a.users > 0;
$function$;

alter function cardinal.anomalies_of_0017_from_counts(text, date, date, text, text) owner to cardinal_owner;

grant execute on function cardinal.anomalies_of_0017_from_counts(text, date, date, text, text) to cardinal_reader;

comment on function cardinal.anomalies_of_0017_from_counts(text, date, date, text, text) is
    'The kinds of 0011 and 0017 without test events, by campaign or canvas step (0033): the distinct users of '
    'each finding group from report_finding_day_users'' day pairs, the users of several arms from '
    'report_several_arm_users'' users'' rows, the campaign arms of control_impressions_missing from the rows '
    'of the campaigns it may name, clicks and dismissals from the acting users'' rows (0057), plus the pending '
    'events (0069). Rows as anomalies_of_0017''s.';


create or replace function cardinal.anomalies(
    app          text,
    from_date    date,
    to_date      date,
    include_test boolean default false,
    campaign     text    default null,
    canvas       text    default null
)
    returns table (
        kind           text,
        severity       text,
        app_name       text,
        campaign_id    text,
        canvas_id      text,
        canvas_step_id text,
        channel        text,
        platform       text,
        sdk_version    text,
        app_version    text,
        evidence       jsonb,
        likely_cause   text
    )
    language sql
    stable
as $function$
    select f.*
    from (
        -- Only one of the first two runs: the other's one-time filter is false.
        select * from cardinal.anomalies_of_0017_from_counts(anomalies.app, anomalies.from_date, anomalies.to_date,
                                                             anomalies.campaign, anomalies.canvas)
        where not anomalies.include_test
        union all
        select * from cardinal.anomalies_of_0017(anomalies.app, anomalies.from_date, anomalies.to_date,
                                                 anomalies.include_test, anomalies.campaign, anomalies.canvas)
        where anomalies.include_test
        union all
        select * from cardinal.anomalies_since_0027(anomalies.app, anomalies.from_date, anomalies.to_date,
                                                    anomalies.include_test, anomalies.campaign, anomalies.canvas,
                                                    true)
    ) as f
    order by case f.severity when 'critical' then 0 when 'warning' then 1 else 2 end,
             f.kind, f.app_name, f.campaign_id, f.canvas_id, f.canvas_step_id, f.channel, f.platform,
             f.sdk_version, f.app_version;
$function$;


-- fold_report_state's comment (0051) said it folds every unfolded event; since 0064 a fold takes a long queue
-- in parts. A comment only: the function is unchanged.
comment on function cardinal.fold_report_state() is
    'Folds the unfolded events (report_unfolded_events) into the report state: every event stored past the '
    'watermark, and of the re-queued events (report_fold_queue) all of them or, when there are more than '
    'cardinal.fold_queue_budget, one part of the users (0064); advances the watermark and returns how many, or '
    'NULL when another fold holds the state lock. Learns identity links first (fold_identity_links, 0032), then '
    'reads the pending events once (take_report_fold_snapshot, 0038) for every step, report_control_exposures '
    '(0040) and report_campaign_receipts (0043) among them, before the conversions reach '
    'report_conversion_value_state and report_conversion_state (0051), and records its snapshot''s horizon '
    '(next_xid, running_xids, 0041). Must run in a REPEATABLE READ transaction.';
