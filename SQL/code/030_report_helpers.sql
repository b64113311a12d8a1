-- Helpers every report shares: argument checks, day sets and pairs, message parts, severity.
--
-- The check_* functions raise on bad report arguments (the reports themselves are inlinable SQL and cannot);
-- try_jsonb reads rejected events safely; anomaly_severity and wilson_interval give the reports' severities
-- and rate intervals; report_day_set, report_day_pairs and report_user_day_pairs give the day sets and pairs
-- the report state counts; report_message_part and report_part_channels define the part breakdowns,
-- report_receipt_type what a user's receipt of a message is. A counting
-- trigger of the report state builds its query with report_state_versions; copy_column_comments gives a
-- view's columns the comments of the relation they mirror; report_state_lock_key serializes the fold and its
-- requeueing.
--
-- Code, edited in place: cardinal migrate applies every file of SQL/code in order, in one transaction,
-- whenever one of them changed (SQL/README.md).



-- The report functions themselves are LANGUAGE sql with a single SELECT and no SET clause, so that
-- PostgreSQL inlines them into the caller's query: a psql user's constants (or the CLI's parameters,
-- which libpq sends as an unnamed statement and therefore gets a custom plan for) reach the planner, and
-- partition pruning and the partial indexes of events work as they would for a hand-written query. An
-- inlined SQL function cannot RAISE, so the argument checks live here, in plpgsql, and are called from the
-- WHERE clause: with constant arguments they are IMMUTABLE calls that the planner folds, so a bad argument
-- fails before any row is read.
create or replace function cardinal.check_report_range(from_date date, to_date date)
    returns boolean
    language plpgsql
    immutable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if from_date is null or to_date is null then
        raise exception 'report range: from_date and to_date are required'
            using errcode = 'null_value_not_allowed';
    end if;
    if from_date > to_date then
        raise exception 'report range: from_date % is after to_date %', from_date, to_date
            using errcode = 'invalid_parameter_value',
                  hint = 'Both dates are included: from_date = to_date is a one-day report.';
    end if;
    return true;
end
$function$;
alter function cardinal.check_report_range(date, date) owner to cardinal_owner;
grant execute on function cardinal.check_report_range(date, date) to cardinal_reader;
comment on function cardinal.check_report_range(date, date) is
    'Argument check of the report functions: true when from_date and to_date are given and from_date <= '
    'to_date, else raises 22004/22023 with a message naming the dates.';


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
alter function cardinal.check_report_dimension(text) owner to cardinal_owner;
grant execute on function cardinal.check_report_dimension(text) to cardinal_reader;
comment on function cardinal.check_report_dimension(text) is
    'Argument check of unique_impressions: true for a NULL breakdown or one of day, platform, sdk_version, '
    'app_version, button_id, placement_id, message_id, else raises 22023.';


-- rejected_events.raw is text because a rejected event need not be valid JSON. The anomaly report
-- reads the campaign and versions of rejected control interactions out of it, which must not fail the
-- whole report on one malformed row.
create or replace function cardinal.try_jsonb(raw text)
    returns jsonb
    language plpgsql
    immutable
    strict
    set search_path = pg_catalog, pg_temp
as $function$
begin
    return raw::jsonb;
exception
    when invalid_text_representation or untranslatable_character or character_not_in_repertoire then
        return null;
end
$function$;
alter function cardinal.try_jsonb(text) owner to cardinal_owner;
grant execute on function cardinal.try_jsonb(text) to cardinal_reader;
comment on function cardinal.try_jsonb(text) is
    'raw parsed as jsonb, or NULL when it is not valid JSON (a safe cast for rejected_events.raw).';


-- One rule for the anomalies whose size is a share of the users involved, so that --fail-on warning means
-- the same everywhere: below 1% it is worth knowing (info), from 1% a real integration problem (warning),
-- from 5% it distorts the report numbers noticeably (critical).
create or replace function cardinal.anomaly_severity(share double precision)
    returns text
    language sql
    immutable
    strict
    set search_path = pg_catalog, pg_temp
as $function$
    select case when share >= 0.05 then 'critical' when share >= 0.01 then 'warning' else 'info' end;
$function$;
alter function cardinal.anomaly_severity(double precision) owner to cardinal_owner;
grant execute on function cardinal.anomaly_severity(double precision) to cardinal_reader;
comment on function cardinal.anomaly_severity(double precision) is
    'Severity of an anomaly that affects this share of the users involved: info below 0.01, warning below '
    '0.05, critical from 0.05.';


-- The advisory lock key that runs the fold and re-queueing one at a time.
create or replace function cardinal.report_state_lock_key()
    returns bigint
    language sql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
    select hashtextextended('cardinal.report_state', 0);
$function$;
alter function cardinal.report_state_lock_key() owner to cardinal_owner;
comment on function cardinal.report_state_lock_key() is
    'Advisory lock key of the report state: fold_report_state and requeue_report_state hold it exclusively.';


create or replace aggregate cardinal.array_concat_agg(anycompatiblearray) (
    sfunc = array_cat,
    stype = anycompatiblearray
);
alter aggregate cardinal.array_concat_agg(anycompatiblearray) owner to cardinal_owner;
grant execute on function cardinal.array_concat_agg(anycompatiblearray) to cardinal_reader;
comment on aggregate cardinal.array_concat_agg(anycompatiblearray) is
    'The concatenation of arrays, in input order (the message ids of a session''s days).';


-- The days of a set, sorted and without repeats: what report_row_user_days keeps.
create or replace function cardinal.report_day_set(days date[])
    returns date[]
    language sql
    immutable
    parallel safe
as $function$
    select coalesce(array_agg(distinct d order by d), '{}') from unnest(days) as d where d is not null;
$function$;
alter function cardinal.report_day_set(date[]) owner to cardinal_owner;
comment on function cardinal.report_day_set(date[]) is
    'The days of a set sorted and without repeats (empty for NULL).';


-- Each day of a set with the day before it in the set.
create or replace function cardinal.report_day_pairs(days date[])
    returns table (day date, previous_day date)
    language sql
    immutable
    parallel safe
as $function$
    select d, coalesce(lag(d) over (order by d), '-infinity')
    from (select distinct d from unnest(days) as d where d is not null) as s;
$function$;
alter function cardinal.report_day_pairs(date[]) owner to cardinal_owner;
comment on function cardinal.report_day_pairs(date[]) is
    'Each distinct day of a set with the previous day of the set (-infinity for the first): the pairs '
    'report_row_day_users counts.';


-- A user's day pairs of every kind: what one report_row_user_days row adds to report_row_day_users.
create or replace function cardinal.report_user_day_pairs(
    impression_days date[],
    click_days      date[],
    dismissal_days  date[],
    send_days       date[]
)
    returns table (kind text, day date, previous_day date)
    language sql
    immutable
    parallel safe
as $function$
    select k.kind, pair.day, pair.previous_day
    from (
        values ('impression', impression_days), ('click', click_days), ('dismissal', dismissal_days),
               ('send', send_days)
    ) as k (kind, days)
    cross join lateral cardinal.report_day_pairs(k.days) as pair;
$function$;
alter function cardinal.report_user_day_pairs(date[], date[], date[], date[]) owner to cardinal_owner;
comment on function cardinal.report_user_day_pairs(date[], date[], date[], date[]) is
    'The day pairs (report_day_pairs) of each kind of a user''s days in one report row: the pairs its '
    'report_row_user_days row counts in report_row_day_users.';


-- (x + z²/2)/(n + z²) ± z·√n/(n + z²) · √(p̂(1 − p̂) + z²/(4n)), clamped to [0, 1] as the Swift code does
-- (rounding can push a bound out by an ulp at x = 0 or x = n). PL/pgSQL rather than SQL: an inlined SQL
-- function with constant arguments is folded while it is planned, and would divide by a zero trials there
-- whatever guard surrounds the division. The Experiments dashboard draws each arm's conversion rate with it:
-- the stored control report keeps users and converters per arm but intervals only for the comparisons, and
-- the report pages draw Wilson intervals (Sources/CardinalReports/Statistics/NewcombeInterval.swift), so the
-- dashboard uses the same formula, in SQL.
create or replace function cardinal.wilson_interval(
    successes bigint,
    trials    bigint,
    z         double precision default 1.959963984540054,
    out lower double precision,
    out upper double precision
)
    language plpgsql
    immutable
    parallel safe
    set search_path = pg_catalog, pg_temp
as $function$
declare
    n          constant double precision := trials;
    rate       double precision;
    center     double precision;
    half_width double precision;
begin
    if trials is null or successes is null or z is null or trials <= 0 or successes < 0 or successes > trials then
        return;
    end if;
    rate := successes / n;
    center := (successes + z * z / 2) / (n + z * z);
    half_width := z * sqrt(n) / (n + z * z) * sqrt(rate * (1 - rate) + z * z / (4 * n));
    lower := greatest(0, center - half_width);
    upper := least(1, center + half_width);
end
$function$;
alter function cardinal.wilson_interval(bigint, bigint, double precision) owner to cardinal_owner;
grant execute on function cardinal.wilson_interval(bigint, bigint, double precision) to cardinal_reader;
comment on function cardinal.wilson_interval(bigint, bigint, double precision) is
    'Wilson score interval (no continuity correction) of the proportion successes / trials, by default 95 % '
    '(z = 1.959964): the interval the report pages draw for a rate. NULL bounds when trials is 0 or NULL or '
    'successes is not between 0 and trials.';


-- Which part of its message an event is on, for the breakdown that splits its channel; NULL when no
-- breakdown splits it. '' for a missing part.
create or replace function cardinal.report_message_part(
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
               when channel in ('in_app_message', 'push') and type = 'click' then coalesce(button_id, '')
           end;
$function$;
alter function cardinal.report_message_part(text, text, text, text, text) owner to cardinal_owner;
comment on function cardinal.report_message_part(text, text, text, text, text) is
    'The part of its message an event is on: message_id for content cards, placement_id for banners, '
    'button_id for in-app message and push clicks; '''' when the event lacks it (a body click or tap), NULL '
    'for every other event.';


-- A part breakdown splits the channels whose events report_message_part gives a part: buttons are clicked on
-- in-app messages and on push notifications (action buttons).
create or replace function cardinal.report_part_channels(dimension text)
    returns text[]
    language sql
    immutable
    parallel safe
as $function$
    select case dimension
               when 'button_id' then array['in_app_message', 'push']
               when 'placement_id' then array['banner']
               when 'message_id' then array['content_card']
           end;
$function$;
alter function cardinal.report_part_channels(text) owner to cardinal_owner;
comment on function cardinal.report_part_channels(text) is
    'The channels a part breakdown of unique_impressions splits (button_id: in_app_message and push, '
    'placement_id: banner, message_id: content_card); NULL for the other breakdowns.';


-- A user receives a message when it reaches the screen: the impression, on every channel the SDK logs one for
-- (cards, in-app messages, banners, feature flags; no SDK logs a send of those). A push has no impression: the
-- backend's send is its receipt.
create or replace function cardinal.report_receipt_type(channel text)
    returns text
    language sql
    immutable
    parallel safe
as $function$
    select case when channel = 'push' then 'send' else 'impression' end;
$function$;
alter function cardinal.report_receipt_type(text) owner to cardinal_owner;
grant execute on function cardinal.report_receipt_type(text) to cardinal_reader;
comment on function cardinal.report_receipt_type(text) is
    'The event type that is a user''s receipt of a message on the channel: send for push, impression for '
    'content cards, in-app messages, banners and feature flags. Recipients, first receipts and the campaign '
    'conversions'' cohorts count it (never a control one).';


-- The query of a counting trigger's touched rows before (after false) and after the statement, from their rows
-- now (current_rows, with written_by: the xmin and cmin of each) and the transition tables (added, removed):
-- the definition every counting trigger of the report state builds its statement from. An INSERT ... ON
-- CONFLICT DO UPDATE (the fold's upserts) fires the trigger twice, once with the rows it inserted (I) and once
-- with those it updated (old O, new N), each seeing the table after the whole statement (P - O + N + I, P the
-- table before). Netted pairs add up, so the two firings are counted as the statement's two halves in a row,
-- whichever fires first: the update from P to P - O + N, the insert from P - O + N to the end. The update's
-- firing therefore leaves out I, which it cannot see: the touched rows that the statement wrote (the xmin and
-- cmin of its own new rows) but that are not among its own. A plain UPDATE writes no such rows. The
-- statement's rows share one xmin and cmin, so the array to compare with holds one value (an array of one
-- value per row, searched once per touched row, took a third of count_finding_day_users' time once clicks
-- touched more users).
create or replace function cardinal.report_state_versions(operation text, key_columns text[], columns text[])
    returns text
    language sql
    immutable
as $function$
    with parts as (
        select (select string_agg(format('c.%I', c), ', ') from unnest(report_state_versions.columns) as c)
                   as current_columns,
               (select string_agg(format('o.%I', c), ', ') from unnest(report_state_versions.columns) as c)
                   as removed_columns,
               (select string_agg(format('n.%1$I = c.%1$I', c), ' and ')
                from unnest(report_state_versions.key_columns) as c) as added_is_current,
               (select string_agg(format('n.%1$I = w.%1$I', c), ' and ')
                from unnest(report_state_versions.key_columns) as c) as added_is_written
    )
    select case report_state_versions.operation
        when 'INSERT' then format(
            'select true as after, %1$s from current_rows as c
             union all
             select false, %1$s from current_rows as c
             where not exists (select from added as n where %2$s)',
            p.current_columns, p.added_is_current)
        when 'DELETE' then format(
            'select true as after, %1$s from current_rows as c
             union all
             select false, %1$s from current_rows as c
             union all
             select false, %2$s from removed as o',
            p.current_columns, p.removed_columns)
        else format(
            'select true as after, %1$s from current_rows as c
             where not c.written_by = any(array(select distinct w.written_by from current_rows as w
                                                join added as n on %4$s))
                or exists (select from added as n where %3$s)
             union all
             select false, %1$s from current_rows as c
             where not c.written_by = any(array(select distinct w.written_by from current_rows as w
                                                join added as n on %4$s))
             union all
             select false, %2$s from removed as o',
            p.current_columns, p.removed_columns, p.added_is_current, p.added_is_written)
    end
    from parts as p
$function$;
alter function cardinal.report_state_versions(text, text[], text[]) owner to cardinal_owner;
comment on function cardinal.report_state_versions(text, text[], text[]) is
    'The query, for a statement trigger with transition tables added and removed and a CTE current_rows (the '
    'touched rows now, with written_by = xmin:cmin), of the touched rows before (after false) and after the '
    'statement (after true), in the given columns; key_columns identify a row. operation is TG_OP. '
    'The update firing of an upsert leaves out the rows its insert half wrote, so that an INSERT ... ON '
    'CONFLICT DO UPDATE counts each row once.';


-- A view whose columns mean what another relation's same-named columns do (an _of_rows view and its state
-- table, a facts view and its pending view, a latest_* view and its stored-run table) takes their comments
-- from it, so that one text is written once. Called by the code files right after a view's own COMMENT; a
-- column no source comments is left for an explicit COMMENT below the call (SQL/checks/uncommented_columns.sql
-- finds one that has none).
create or replace function cardinal.copy_column_comments(view_name regclass, variadic sources regclass[])
    returns void
    language plpgsql
    set search_path = pg_catalog, pg_temp
as $function$
declare
    target record;
begin
    for target in
        select a.attname as column_name,
               (select pg_catalog.col_description(s.attrelid, s.attnum)
                from unnest(copy_column_comments.sources) with ordinality as source (relation, position)
                join pg_catalog.pg_attribute as s on s.attrelid = source.relation and s.attname = a.attname
                where pg_catalog.col_description(s.attrelid, s.attnum) is not null
                order by source.position
                limit 1) as description
        from pg_catalog.pg_attribute as a
        where a.attrelid = copy_column_comments.view_name and a.attnum > 0 and not a.attisdropped
    loop
        continue when target.description is null;
        execute format('comment on column %s.%I is %L', copy_column_comments.view_name, target.column_name,
                       target.description);
    end loop;
end
$function$;
alter function cardinal.copy_column_comments(regclass, regclass[]) owner to cardinal_owner;
revoke all on function cardinal.copy_column_comments(regclass, regclass[]) from public;
comment on function cardinal.copy_column_comments(regclass, regclass[]) is
    'Comments each column of view_name with the comment of the same-named column of the first of sources '
    'that has one; leaves a column none of them comments as it is.';
