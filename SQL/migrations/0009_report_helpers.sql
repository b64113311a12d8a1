-- 0009_report_helpers.sql — small functions shared by the report functions of 0010–0012.
--
-- The report functions themselves are LANGUAGE sql with a single SELECT and no SET clause, so that
-- PostgreSQL inlines them into the caller's query: a psql user's constants (or the CLI's parameters,
-- which libpq sends as an unnamed statement and therefore gets a custom plan for) reach the planner, and
-- partition pruning and the partial indexes of 0005 work as they would for a hand-written query. An
-- inlined SQL function cannot RAISE, so the argument checks live here, in plpgsql, and are called from the
-- WHERE clause: with constant arguments they are IMMUTABLE calls that the planner folds, so a bad argument
-- fails before any row is read.


create function cardinal.check_report_range(from_date date, to_date date)
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

comment on function cardinal.check_report_range(date, date) is
    'Argument check of the report functions: true when from_date and to_date are given and from_date <= '
    'to_date, else raises 22004/22023 with a message naming the dates.';


create function cardinal.check_report_dimension(dimension text)
    returns boolean
    language plpgsql
    immutable
    set search_path = pg_catalog, pg_temp
as $function$
begin
    if dimension is not null and dimension not in ('day', 'platform', 'sdk_version', 'app_version') then
        raise exception 'unique_impressions: unknown breakdown "%"', dimension
            using errcode = 'invalid_parameter_value',
                  hint = 'by must be NULL (no breakdown), day, platform, sdk_version or app_version.';
    end if;
    return true;
end
$function$;

alter function cardinal.check_report_dimension(text) owner to cardinal_owner;

comment on function cardinal.check_report_dimension(text) is
    'Argument check of unique_impressions: true for a NULL breakdown or one of day, platform, sdk_version, '
    'app_version, else raises 22023.';


-- rejected_events.raw is text because a rejected event need not be valid JSON (0006). The anomaly report
-- reads the campaign and versions of rejected control interactions out of it, which must not fail the
-- whole report on one malformed row.
create function cardinal.try_jsonb(raw text)
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

comment on function cardinal.try_jsonb(text) is
    'raw parsed as jsonb, or NULL when it is not valid JSON (a safe cast for rejected_events.raw).';


-- One rule for the anomalies whose size is a share of the users involved, so that --fail-on warning means
-- the same everywhere: below 1% it is worth knowing (info), from 1% a real integration problem (warning),
-- from 5% it distorts the report numbers noticeably (critical).
create function cardinal.anomaly_severity(share double precision)
    returns text
    language sql
    immutable
    strict
    set search_path = pg_catalog, pg_temp
as $function$
    select case when share >= 0.05 then 'critical' when share >= 0.01 then 'warning' else 'info' end;
$function$;

alter function cardinal.anomaly_severity(double precision) owner to cardinal_owner;

comment on function cardinal.anomaly_severity(double precision) is
    'Severity of an anomaly that affects this share of the users involved: info below 0.01, warning below '
    '0.05, critical from 0.05.';


grant execute on function
    cardinal.check_report_range(date, date),
    cardinal.check_report_dimension(text),
    cardinal.try_jsonb(text),
    cardinal.anomaly_severity(double precision)
    to cardinal_reader;
