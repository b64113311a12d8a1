#!/usr/bin/env python3
"""make fold-profile: where a report-state fold spends its time, per step, per trigger and per state table.

Two folds of the reports benchmark's data shape (scripts/bench/seed_reports.sql: one app, 50 campaigns with
control arms, 1 M users, a fifth of them anonymous devices, most of the others logging in on their devices,
30 report days ending yesterday):

* burst: FOLD_PROFILE_EVENTS events just stored in a fresh database, folded at once — a bulk import, or the
  backlog after an outage replay, of users the state has never seen;
* later: FOLD_PROFILE_LATER more events of the same users (copies of a sample of the last five days' events,
  a second later, with new ids), folded into the state the burst left — the live case.

Each fold is one `cardinal.fold_report_state()` in its REPEATABLE READ transaction, as cardinald runs it, with
`track_functions = all`; before it commits, the transaction's own statistics are read: seconds per function
(each step of the fold and each counting trigger, self time apart from what it calls), rows inserted,
updated (HOT or not) and deleted per state table. Last, the bytes on disk of each state table per event.
Around the burst, each whole-app report of the release CLI is timed once against the naive SQL of
scripts/bench/naive/ (as `make bench` runs them, numbers compared): with the burst stored and not yet folded,
then folded — issue 43's "reports never slower than naive SQL while the fold catches up"
(FOLD_PROFILE_REPORTS=0 skips them).
FOLD_PROFILE_EXPLAIN=1 also logs EXPLAIN (ANALYZE, BUFFERS) of every statement slower than a second, nested
ones included (auto_explain), to the cluster's log, whose path is printed.

FOLD_PROFILE_COMPARE=<git revision> then compares the fold of that revision's code files (SQL/code) with the
checkout's on the same events, the only fair comparison on a machine whose load moves: FOLD_PROFILE_LATER more
events of the same users are stored, and each is folded FOLD_PROFILE_RUNS times, alternately, in a transaction
that first applies its code files and is then rolled back. The revision's schema must be the checkout's but for
the code (its versioned migrations applied, or no table changed since).

The seeded database is kept as a template (<database>_seed) and reused while it holds the requested events;
each run folds a fresh copy of it. Knobs (environment): FOLD_PROFILE_EVENTS (1000000), FOLD_PROFILE_LATER
(200000), FOLD_PROFILE_DATABASE (cardinal_fold_profile), FOLD_PROFILE_TOP (15 functions), FOLD_PROFILE_REPORTS (1), FOLD_PROFILE_EXPLAIN,
FOLD_PROFILE_COMPARE, FOLD_PROFILE_RUNS (3).
The figures go as JSON to bench-results/fold-profile-<timestamp>.json.
"""
import datetime
import glob
import json
import os
import statistics
import subprocess
import sys
import time

from bench import REPO, admin_url, database_url, psql, sh
from reports import cli_command, compare as compare_with_naive, naive_command, naive_rows, timed

EVENTS = int(os.environ.get("FOLD_PROFILE_EVENTS", "1000000"))
LATER = int(os.environ.get("FOLD_PROFILE_LATER", "200000"))
DATABASE = os.environ.get("FOLD_PROFILE_DATABASE", "cardinal_fold_profile")
TEMPLATE = DATABASE + "_seed"
TOP = int(os.environ.get("FOLD_PROFILE_TOP", "15"))
EXPLAIN = os.environ.get("FOLD_PROFILE_EXPLAIN", "0") == "1"
COMPARE = os.environ.get("FOLD_PROFILE_COMPARE", "")
RUNS = int(os.environ.get("FOLD_PROFILE_RUNS", "3"))
REPORTS = os.environ.get("FOLD_PROFILE_REPORTS", "1") == "1"
BIN_DIR = os.environ.get("BIN_DIR", os.path.join(REPO, ".build", "release"))
COPIED_COLUMNS = ("type, channel, time, user_id, device_id, session_id, campaign_id, canvas_id, canvas_step_id, "
                  "variant_id, control, message_id, placement_id, button_id, url, platform, sdk_version, "
                  "app_version, os_version, test, conversion_name, value, currency, properties")


def log(message):
    print(f"fold-profile: {message}", file=sys.stderr, flush=True)


def seeded_template():
    """Whether the template database holds a finished seed of EVENTS events."""
    if not psql(admin_url(), f"select 1 from pg_database where datname = '{TEMPLATE}'"):
        return False
    url = database_url(TEMPLATE)
    return psql(url, "select to_regclass('bench.seed') is not null") == "t" and psql(
        url, f"select count(*) from bench.seed where finished_at is not null and events = {EVENTS}") == "1"


def seed_template():
    """Seeds the template with EVENTS events (nothing folded), unless it already holds them."""
    if seeded_template():
        sh(f"{BIN_DIR}/cardinal", "migrate", "--database-url", database_url(TEMPLATE))
        log(f"reusing {TEMPLATE} ({EVENTS:,} events)")
        return
    yesterday = datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=1)
    from_date, to_date = (yesterday - datetime.timedelta(days=29)).isoformat(), yesterday.isoformat()
    log(f"seeding {TEMPLATE} with {EVENTS:,} events, report days {from_date} to {to_date}")
    psql(admin_url(), f"drop database if exists {TEMPLATE} with (force)")
    psql(admin_url(), f"create database {TEMPLATE}")
    sh(f"{BIN_DIR}/cardinal", "migrate", "--database-url", database_url(TEMPLATE))
    sh("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", f"events={EVENTS}", "-v", f"from_date={from_date}",
       "-v", f"to_date={to_date}", "-f", "scripts/bench/seed_reports.sql", database_url(TEMPLATE))


def profiled_fold(url, label):
    """Folds what is pending in one transaction and returns its figures, read before it commits."""
    explain = ""
    if EXPLAIN:
        explain = """
            load 'auto_explain';
            set auto_explain.log_min_duration = '1s';
            set auto_explain.log_nested_statements = on;
            set auto_explain.log_analyze = on;
            set auto_explain.log_buffers = on;
        """
    script = f"""
        \\set ON_ERROR_STOP 1
        set track_functions = 'all';
        {explain}
        begin isolation level repeatable read;
        select extract(epoch from clock_timestamp()) as started \\gset
        select coalesce(cardinal.fold_report_state(), 0) as folded \\gset
        select jsonb_build_object(
            'folded', :folded,
            'seconds', extract(epoch from clock_timestamp()) - :started,
            'functions', (select coalesce(jsonb_agg(f order by f.self_seconds desc), '[]')
                          from (select funcname as function, calls, round(total_time::numeric / 1000, 2) as seconds,
                                       round(self_time::numeric / 1000, 2) as self_seconds
                                from pg_stat_xact_user_functions
                                where schemaname = 'cardinal') as f),
            'tables', (select coalesce(jsonb_agg(t order by t.written desc), '[]')
                       from (select relname as "table", n_tup_ins as inserted, n_tup_upd as updated,
                                    n_tup_hot_upd as hot_updated, n_tup_del as deleted,
                                    n_tup_ins + n_tup_upd + n_tup_del as written
                             from pg_stat_xact_user_tables
                             where schemaname = 'cardinal' and n_tup_ins + n_tup_upd + n_tup_del > 0) as t));
        commit;
    """
    result = subprocess.run(["psql", "-X", "-q", "-tA", url], input=script, cwd=REPO, text=True,
                            capture_output=True)
    if result.returncode != 0:
        sys.exit(f"fold-profile: the {label} fold failed:\n{result.stdout}{result.stderr}")
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["label"] = label
    return figures


def store_later_events(url, seconds_later=1):
    """Stores up to LATER new events of existing users: a page sample of the last five report days' events,
    seconds_later after them."""
    # The seed spreads events evenly over 30 days; a sample of twice the last five days' share leaves room.
    percent = min(100.0, 100.0 * 2 * LATER / (EVENTS * 5 / 30))
    later_time = f"time + interval '{seconds_later} seconds',"
    psql(url, f"""
        insert into cardinal.events (app_id, id, {COPIED_COLUMNS})
        select app_id, gen_random_uuid(), {COPIED_COLUMNS.replace("time,", later_time, 1)}
        from cardinal.events tablesample system ({percent:.4f}) repeatable ({10 + seconds_later})
        where time >= (select to_date from bench.seed) - 4
        limit {LATER}""")


def state_bytes(url):
    """Bytes on disk of the events and of each report-state table (heap, indexes, TOAST)."""
    events = int(psql(url, "select sum(pg_total_relation_size(inhrelid)) from pg_inherits "
                           "where inhparent = 'cardinal.events'::regclass"))
    rows = psql(url, "select c.relname, pg_total_relation_size(c.oid) from pg_class as c "
                     "where c.relnamespace = 'cardinal'::regnamespace and c.relkind = 'r' "
                     "and (c.relname like 'report\\_%' or c.relname = 'identity_links') "
                     "and c.relname not in ('report_runs', 'report_unique_impressions', 'report_anomalies', "
                     "'report_control') and pg_total_relation_size(c.oid) > 65536 "
                     "order by 2 desc")
    tables = [(name, int(size)) for name, size in (line.split("|") for line in rows.splitlines())]
    return events, tables


def code_files_sql(revision):
    """The text of every code file, in order: of a git revision, or of the checkout when revision is None."""
    if revision is None:
        return "".join(open(path).read() for path in sorted(glob.glob(os.path.join(REPO, "SQL", "code", "*.sql"))))
    names = sh("git", "ls-tree", "--name-only", f"{revision}:SQL/code").split()
    return "".join(sh("git", "show", f"{revision}:SQL/code/{name}") + "\n" for name in sorted(names)
                   if name.endswith(".sql"))


def rolled_back_fold_seconds(url, code):
    """(events, seconds) of one fold of the pending events with the given code files, rolled back."""
    script = f"""
        \\set ON_ERROR_STOP 1
        set client_min_messages = warning;
        begin isolation level repeatable read;
        set local check_function_bodies = off;
        {code}
        select extract(epoch from clock_timestamp()) as started \\gset
        select coalesce(cardinal.fold_report_state(), 0) as folded \\gset
        select :folded || ' ' || (extract(epoch from clock_timestamp()) - :started);
        rollback;
    """
    result = subprocess.run(["psql", "-X", "-q", "-tA", url], input=script, cwd=REPO, text=True,
                            capture_output=True)
    if result.returncode != 0:
        sys.exit(f"fold-profile: a compared fold failed:\n{result.stderr}")
    events, seconds = result.stdout.split()[-2:]
    return int(events), float(seconds)


def compare(url):
    """Folds the same pending events with COMPARE's code and the checkout's, alternately, RUNS times each."""
    store_later_events(url, seconds_later=2)
    psql(url, "vacuum (analyze) cardinal.events")
    codes = {COMPARE: code_files_sql(COMPARE), "checkout": code_files_sql(None)}
    times = {name: [] for name in codes}
    events = 0
    for run in range(RUNS):
        for name, code in codes.items():
            events, seconds = rolled_back_fold_seconds(url, code)
            times[name].append(seconds)
            log(f"compare run {run + 1}: {name} folded {events:,} events in {seconds:.2f} s")
    print(f"\ncompare: the same {events:,} pending events of existing users, {RUNS} alternating runs each")
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"  {name:<20} median {median:7.2f} s ({min(runs):.2f}–{max(runs):.2f}), "
              f"{events / median:,.0f} events/s")
    ratio = statistics.median(times[COMPARE]) / statistics.median(times["checkout"])
    print(f"  the checkout folds {ratio:.2f}x as fast as {COMPARE}")
    return {"revision": COMPARE, "events": events, "seconds": times}


def timed_reports(url, label):
    """Each whole-app report and its naive SQL, timed once, as wall time of the whole command."""
    from_date, to_date = psql(url, "select from_date, to_date from bench.seed").split("|")
    as_of = (datetime.date.fromisoformat(to_date) + datetime.timedelta(days=1)).isoformat() + "T00:00:00Z"
    scope = {"from_date": from_date, "to_date": to_date, "campaign": None, "as_of": as_of}
    backlog = int(psql(url, "select events from cardinal.report_state_backlog()"))
    log(f"reports, {label} ({backlog:,} events unfolded)")
    results = []
    for report, naive_name in (("unique-impressions", "unique_impressions"), ("anomalies", "anomalies"),
                               ("control", "control")):
        seconds, output = timed(cli_command(BIN_DIR, url, report, scope))
        naive_seconds, naive_output = timed(naive_command(url, naive_name, scope))
        rows, differences = compare_with_naive(json.loads(output), naive_rows(naive_output))
        results.append({"report": report, "seconds": seconds, "naive_seconds": naive_seconds, "rows": rows,
                        "check": "OK" if not differences else "MISMATCH", "differences": differences[:20]})
    return {"label": label, "unfolded": backlog, "reports": results}


def print_reports(figures):
    print(f"\nreports for the whole app, {figures['label']} ({figures['unfolded']:,} events unfolded)")
    print(f"  {'report':<20} {'cardinal s':>11} {'naive s':>9} {'cardinal/naive':>15} {'rows':>6}  check")
    for r in figures["reports"]:
        print(f"  {r['report']:<20} {r['seconds']:>11.2f} {r['naive_seconds']:>9.2f} "
              f"{r['seconds'] / r['naive_seconds']:>14.2f}x {r['rows']:>6}  {r['check']}")
        for difference in r["differences"][:5]:
            print(f"    {difference}")


def print_fold(figures):
    rate = figures["folded"] / figures["seconds"] if figures["seconds"] else 0
    print(f"\n{figures['label']}: {figures['folded']:,} events folded in {figures['seconds']:.1f} s "
          f"({rate:,.0f} events/s)")
    print(f"  {'function (step or trigger)':<36} {'calls':>8} {'seconds':>9} {'self s':>9} {'self %':>7}")
    for f in figures["functions"][:TOP]:
        share = 100 * float(f["self_seconds"]) / figures["seconds"] if figures["seconds"] else 0
        print(f"  {f['function']:<36} {f['calls']:>8} {float(f['seconds']):>9.2f} {float(f['self_seconds']):>9.2f} "
              f"{share:>6.1f}%")
    print(f"  {'state table':<36} {'inserted':>10} {'updated':>10} {'HOT':>10} {'deleted':>10}")
    for t in figures["tables"]:
        print(f"  {t['table']:<36} {t['inserted']:>10,} {t['updated']:>10,} {t['hot_updated']:>10,} "
              f"{t['deleted']:>10,}")


def main():
    if not os.path.exists(f"{BIN_DIR}/cardinal"):
        sys.exit(f"fold-profile: no {BIN_DIR}/cardinal; run `make release` (or set BIN_DIR)")
    seed_template()
    psql(admin_url(), f"drop database if exists {DATABASE} with (force)")
    psql(admin_url(), f"create database {DATABASE} template {TEMPLATE}")
    url = database_url(DATABASE)
    if EXPLAIN:
        log(f"plans of the statements slower than 1 s go to {os.path.join(REPO, '.data', 'postgresql.log')}")
    reports = [timed_reports(url, "before the burst's fold")] if REPORTS else []
    log(f"burst: folding {EVENTS:,} stored events")
    burst = profiled_fold(url, "burst")
    print_fold(burst)
    if REPORTS:
        reports.append(timed_reports(url, "after the burst's fold"))
    for figures in reports:
        print_reports(figures)
    psql(url, "vacuum (analyze) cardinal.events")
    store_later_events(url)
    log(f"later: folding {LATER:,} events of existing users")
    later = profiled_fold(url, "later")
    print_fold(later)
    events, tables = state_bytes(url)
    state = sum(size for _, size in tables)
    folded = burst["folded"] + later["folded"]
    print(f"\nstate: {state / 2**20:,.0f} MiB for {events / 2**20:,.0f} MiB of events ({state / events:.2f}x), "
          f"{state / folded:,.0f} bytes per event")
    for name, size in tables:
        print(f"  {name:<36} {size / 2**20:>9,.1f} MiB {size / folded:>8,.0f} B/event")
    comparison = compare(url) if COMPARE else None
    os.makedirs(os.path.join(REPO, "bench-results"), exist_ok=True)
    path = os.path.join(REPO, "bench-results", f"fold-profile-{time.strftime('%Y%m%d-%H%M%S')}.json")
    with open(path, "w") as out:
        json.dump({"events": EVENTS, "later": LATER, "folds": [burst, later], "reports": reports,
                   "state": {"events_bytes": events, "tables": dict(tables)},
                   "comparison": comparison}, out, indent=2)
    print(f"\nfigures written to {path}")


if __name__ == "__main__":
    main()
