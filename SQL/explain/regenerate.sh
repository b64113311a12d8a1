#!/bin/sh
# regenerate.sh — rebuilds SQL/explain/*.txt: the EXPLAIN (ANALYZE, BUFFERS) plans of the report functions on
# about 1 M events. Creates a scratch database on the cluster of CARDINAL_TEST_DATABASE_URL (a superuser URL
# of a maintenance database, as for the tests), applies the migrations and the code files as `cardinal migrate`
# does, seeds it (seed.sql), folds the seeded events into the report state that the reports read, vacuums it so that index-only scans can
# skip the heap, runs explain.sql, and drops the database again.
#
#     CARDINAL_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:54329/postgres SQL/explain/regenerate.sh
set -eu

: "${CARDINAL_TEST_DATABASE_URL:?set CARDINAL_TEST_DATABASE_URL to a superuser postgresql:// URL (make test does this)}"
here=$(cd "$(dirname "$0")" && pwd)
migrations="$here/../migrations"
code="$here/../code"
database="cardinal_explain_$$"

run_psql() {
    psql -X -q -v ON_ERROR_STOP=1 "$CARDINAL_TEST_DATABASE_URL" "$@"
}

run_psql -c "create database $database"
trap 'run_psql -c "drop database if exists $database with (force)"' EXIT

{
    # printf, not echo: dash's echo would read the "\c" of "\connect" as an escape and drop the line.
    printf '%s\n' "\\connect $database"
    # Never seed or explain anywhere but the scratch database.
    printf '%s\n' "do \$\$ begin if current_database() <> '$database' then raise exception 'not in $database'; end if; end \$\$;"
    # Each migration in its own transaction, then every code file in one, as `cardinal migrate` applies them.
    printf '%s\n' "create schema cardinal;"
    for file in "$migrations"/*.sql; do
        printf '%s\n' "begin;" "\\i $file" "commit;"
    done
    printf '%s\n' "begin;" "set local check_function_bodies = off;"
    for file in "$code"/*.sql; do
        printf '%s\n' "\\i $file"
    done
    printf '%s\n' "commit;"
    printf '%s\n' "\\i $here/seed.sql" \
        "begin isolation level repeatable read;" \
        "select cardinal.fold_report_state();" \
        "commit;" \
        "vacuum (analyze) cardinal.report_groups, cardinal.report_user_state, cardinal.report_daily_counts;" \
        "vacuum (analyze) cardinal.report_session_state, cardinal.report_conversion_state, cardinal.report_fold_queue;" \
        "vacuum (analyze) cardinal.report_rows, cardinal.report_row_user_days, cardinal.report_row_day_users;" \
        "vacuum (analyze) cardinal.events;" \
        "vacuum (analyze) cardinal.apps;" \
        "vacuum (analyze) cardinal.campaign_settings;" \
        "\\set outdir $here" \
        "\\i $here/explain.sql"
} | run_psql

echo "regenerate.sh: wrote $here/unique_impressions.txt, anomalies.txt, control_arms.txt"
