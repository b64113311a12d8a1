#!/usr/bin/env python3
"""make bench, reports scenario: each report of the release CLI against the naive SQL a psql user would write.

Seeds a database of its own (cardinal_bench_reports in the private cluster, created fresh and migrated with
the release `cardinal migrate`) with BENCH_REPORT_EVENTS events through scripts/bench/seed_reports.sql:
INSERT … SELECT from generate_series, 50 campaigns, 1 M users, the 30 report days ending yesterday (UTC).
A database that already holds the requested number of events is reused; its report days are those it was
seeded with.

Then, for one campaign (the one with the most events) and for all campaigns of the app, times each report
as a user runs it — `cardinal report unique-impressions|anomalies|control … --format json`, the release
binary, which calls cardinal.unique_impressions, cardinal.anomalies (and cardinal.control_arms for the
sample ratio check) and cardinal.control_arms — and the naive SQL of scripts/bench/naive/ through psql, both
as wall time of the whole command. Checks that both give the same numbers (the key columns of each report
row or finding against the naive rows), and prints a table with the medians, min, max and the speed-up. Each
CLI command's first run is timed apart and left out of its median: it follows the naive SQL of the figure
before, whose scan of the raw events evicts the report state from memory when the two do not fit together
(50 M events on this machine: the anomalies for all campaigns 18.7 s on a first run, 2.0 s after).
Last, times a fold on this state: BENCH_FOLD_EVENTS new events of the app's existing users (copies of a sample
of the last five report days' events, a second later, with new ids) folded in one transaction that is rolled
back, so the database stays as it was. The ingest scenario folds into a young database; this is what a fold
costs once the state holds millions of users.
The figures go as JSON to bench-results/reports-<timestamp>.json (the path is printed at the end).

Knobs (environment): BENCH_REPORT_EVENTS (10000000), BENCH_RUNS (3, runs per figure), BENCH_RESEED (1 seeds
again even when the database holds the requested events), BENCH_LEGACY (1: a fresh database is first built
by migrations 0001-0083 from the git history, as releases before the baseline built it, and then upgraded
by this release's migrate: the upgrade path measured), BENCH_REPORT_SLOW (15: a command slower than this
many seconds on its first timed run is not repeated, so that a slow naive query cannot blow the time budget;
the table says how many runs each figure has; a CLI command runs at least twice: its first run, timed apart,
then the runs of its median), BENCH_REPORT_DATABASE (cardinal_bench_reports), BENCH_FOLD_EVENTS
(16000, about a second of the ingest scenario's full load; fewer when the last five days hold fewer events).

Run it with `make bench` (after the ingest scenario; BENCH_SCENARIOS=reports runs it alone) or directly:
python3 scripts/bench/reports.py.
"""
import csv
import datetime
import io
import json
import math
import os
import statistics
import subprocess
import sys
import time

from bench import REPO, admin_url, database_url, psql, sh, summary

EVENTS = int(os.environ.get("BENCH_REPORT_EVENTS", "10000000"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
RESEED = os.environ.get("BENCH_RESEED", "0") == "1"
# The last commit whose SQL/migrations held the files 0001-0083 (tagged sql-legacy-0083), for BENCH_LEGACY=1.
LEGACY_COMMIT = "8d5520e02035f28dd57b0185f601a75c23958739"
LEGACY = os.environ.get("BENCH_LEGACY", "0") == "1"
SLOW_SECONDS = float(os.environ.get("BENCH_REPORT_SLOW", "15"))
DATABASE = os.environ.get("BENCH_REPORT_DATABASE", "cardinal_bench_reports")
FOLD_EVENTS = int(os.environ.get("BENCH_FOLD_EVENTS", "16000"))
APP = "bench"
NAIVE_DIR = os.path.join(REPO, "scripts", "bench", "naive")

# The numbers of each report that the naive SQL must reproduce, by the key of a row.
UNIQUE_KEY = ("campaign_id", "variant_id", "channel")
UNIQUE_FIGURES = ("impressions", "unique_impressions", "unique_daily_impressions", "unique_recipients",
                  "clicks", "unique_clicks", "dismissals", "unique_dismissals")
FINDING_KEY = ("kind", "campaign_id", "channel", "platform", "sdk_version", "app_version")


def log(message):
    print(f"reports: {message}", file=sys.stderr, flush=True)


def seeded(url):
    """(events, from_date, to_date) of a finished seed that the events table still matches, or None."""
    if not psql(admin_url(), f"select 1 from pg_database where datname = '{DATABASE}'"):
        return None
    if psql(url, "select to_regclass('bench.seed') is not null") != "t":
        return None
    marker = psql(url, "select events, from_date, to_date from bench.seed "
                       "where finished_at is not null and events = (select count(*) from cardinal.events)")
    if not marker:
        return None
    events, from_date, to_date = marker.split("|")
    return int(events), from_date, to_date


def seed(bin_dir, url):
    """A database holding EVENTS events: the existing one when it does (unless BENCH_RESEED=1), else a fresh one."""
    marker = None if RESEED else seeded(url)
    if marker and marker[0] == EVENTS:
        # Migrations added since the seed apply on top; an edited migration fails here, and BENCH_RESEED=1 helps.
        sh(f"{bin_dir}/cardinal", "migrate", "--database-url", url)
        log(f"reusing {DATABASE}: {EVENTS:,} events, report days {marker[1]} to {marker[2]} "
            f"(BENCH_RESEED=1 seeds again)")
        return {"reused": True, "seconds": None, "from_date": marker[1], "to_date": marker[2]}
    yesterday = datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=1)
    from_date, to_date = (yesterday - datetime.timedelta(days=29)).isoformat(), yesterday.isoformat()
    log(f"seeding {DATABASE} with {EVENTS:,} events, report days {from_date} to {to_date}")
    psql(admin_url(), f"drop database if exists {DATABASE} with (force)")
    psql(admin_url(), f"create database {DATABASE}")
    if LEGACY:
        migrate_as_legacy_release(bin_dir, url)
    sh(f"{bin_dir}/cardinal", "migrate", "--database-url", url)
    started = time.monotonic()
    sh("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", f"events={EVENTS}", "-v", f"from_date={from_date}",
       "-v", f"to_date={to_date}", "-f", "scripts/bench/seed_reports.sql", url)
    seconds = time.monotonic() - started
    log(f"seeded in {seconds:.0f} s")
    return {"reused": False, "seconds": seconds, "from_date": from_date, "to_date": to_date}


def migrate_as_legacy_release(bin_dir, url):
    """Builds the schema with migrations 0001-0083 as the releases before the baseline did, so that the
    `cardinal migrate` after it upgrades that database in place (BENCH_LEGACY=1)."""
    folder = os.path.join(REPO, ".build", "bench-legacy")
    sh("rm", "-rf", folder)
    os.makedirs(os.path.join(folder, "code"))
    sh("sh", "-c", f"git -C {REPO} archive {LEGACY_COMMIT} SQL/migrations | tar -x -C {folder}")
    log("building the schema with the legacy migrations 0001-0083, then upgrading it")
    sh(f"{bin_dir}/cardinal", "migrate", "--database-url", url,
       "--migrations-dir", os.path.join(folder, "SQL", "migrations"), "--code-dir", os.path.join(folder, "code"))


def state_sizes(url):
    """Bytes on disk of the events (heap, indexes, TOAST of every partition) and of the report state."""
    events = int(psql(url, "select sum(pg_total_relation_size(inhrelid)) from pg_inherits "
                           "where inhparent = 'cardinal.events'::regclass"))
    # Every table the fold keeps (the report_* tables but the stored report runs) and the identity links it
    # learns, so that a migration adding state is counted without a change here.
    state = int(psql(url, "select sum(pg_total_relation_size(c.oid)) from pg_class as c "
                          "where c.relnamespace = 'cardinal'::regnamespace and c.relkind = 'r' "
                          "and (c.relname like 'report\\_%' or c.relname = 'identity_links') "
                          "and c.relname not in ('report_runs', 'report_unique_impressions', 'report_anomalies', "
                          "'report_control')"))
    return events, state


def build_state(bin_dir, url):
    """Builds the report state of a fresh seed with the rebuild command and times it; None when it exists.
    A rebuild that was stopped part way (its folded parts are committed) is finished by folding the rest,
    untimed: at 50 M a rebuild takes hours, more than one sitting may have."""
    built, backlog = psql(url, "select exists (select from cardinal.report_user_state), "
                               "(select events from cardinal.report_state_backlog())").split("|")
    if built == "t" and backlog == "0":
        log("report state already built")
        return None
    if built == "t":
        log(f"finishing a report state rebuilt in part: cardinal state fold of {int(backlog):,} events")
        sh(f"{bin_dir}/cardinal", "state", "fold", "--database-url", url)
        vacuum_state(url)
        return None
    log("building the report state: cardinal state rebuild")
    seconds, _ = timed([f"{bin_dir}/cardinal", "state", "rebuild", "--database-url", url, "--app", APP])
    vacuum_state(url)
    log(f"report state built in {seconds:.0f} s")
    return seconds


def vacuum_state(url):
    """Vacuums and analyzes the state tables the reports read, as a fold in production leaves them."""
    psql(url, "vacuum (analyze) cardinal.report_groups, cardinal.report_user_state, cardinal.report_daily_counts, "
              "cardinal.report_session_state, cardinal.report_conversion_state, cardinal.report_fold_queue, "
              "cardinal.report_rows, cardinal.report_row_user_days, cardinal.report_row_day_users")


def fold_seconds(url, to_date):
    """(events, wall seconds) of one fold of up to FOLD_EVENTS new events of existing users, rolled back."""
    columns = ("type, channel, time, user_id, device_id, session_id, campaign_id, canvas_id, canvas_step_id, "
               "variant_id, control, message_id, placement_id, button_id, url, platform, sdk_version, app_version, "
               "os_version, test, conversion_name, value, currency, properties")
    # The seed spreads events evenly over the report days, so the last five hold about 5/30 of them; a page sample
    # of twice the share needed leaves room for the sample's unevenness at any BENCH_REPORT_EVENTS.
    sample_percent = min(100.0, 100.0 * 2 * FOLD_EVENTS / (EVENTS * 5 / 30))
    script = f"""
        \\set ON_ERROR_STOP 1
        set jit = off;
        begin isolation level repeatable read;
        -- A page sample of the last five report days; a second later, so each is a new event of its user.
        insert into cardinal.events (app_id, id, {columns})
        select app_id, gen_random_uuid(), {columns.replace("time,", "time + interval '1 second',", 1)}
        from cardinal.events tablesample system ({sample_percent:.4f}) repeatable (7)
        where app_id = (select app_id from cardinal.apps where name = '{APP}')
          and time >= date '{to_date}' - 4
        limit {FOLD_EVENTS};
        select extract(epoch from clock_timestamp()) as started \\gset
        select cardinal.fold_report_state();
        select extract(epoch from clock_timestamp()) - :started;
        rollback;
    """
    result = subprocess.run(["psql", "-X", "-q", "-tA", url], input=script, cwd=REPO, text=True,
                            capture_output=True)
    lines = result.stdout.split()
    if result.returncode != 0 or len(lines) != 2 or int(lines[0]) == 0:
        sys.exit(f"bench: the fold on the state failed:\n{result.stdout}{result.stderr}")
    return int(lines[0]), float(lines[1])


def timed(command):
    """Runs the command (a list), exits the benchmark when it fails, returns (seconds, stdout)."""
    started = time.monotonic()
    result = subprocess.run(command, cwd=REPO, text=True, capture_output=True)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed:\n{result.stderr}")
    return seconds, result.stdout


def repeated(command):
    """Times the command RUNS times (once when the first run is slower than SLOW_SECONDS)."""
    seconds, output = timed(command)
    times = [seconds]
    while len(times) < RUNS and seconds <= SLOW_SECONDS:
        seconds, output = timed(command)
        times.append(seconds)
    return times, output


def cli_command(bin_dir, url, report, scope):
    command = [f"{bin_dir}/cardinal", "report", report, "--database-url", url, "--app", APP,
               "--from", scope["from_date"], "--to", scope["to_date"], "--format", "json"]
    if report in ("anomalies", "control"):
        command += ["--as-of", scope["as_of"]]
    if scope["campaign"]:
        command += ["--campaign", scope["campaign"]]
    return command


def naive_command(url, name, scope):
    return ["psql", "-X", "-q", "--csv", "-v", "ON_ERROR_STOP=1", "-v", f"app={APP}",
            "-v", f"from_date={scope['from_date']}", "-v", f"to_date={scope['to_date']}",
            "-v", f"campaign={scope['campaign'] or ''}", "-v", f"as_of={scope['as_of']}",
            "-f", os.path.join(NAIVE_DIR, f"{name}.sql"), url]


def naive_rows(output):
    """psql --csv rows as dicts; an empty field is NULL."""
    return [{name: (value if value != "" else None) for name, value in row.items()}
            for row in csv.DictReader(io.StringIO(output))]


def same_number(a, b):
    return a == b or (a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=1e-9))


def compare(report, naive):
    """Differences between the report's numbers and the naive ones: (rows compared, list of differences)."""
    differences = []

    def check(key, expected, actual):
        if expected is None or actual is None:
            if expected != actual:
                differences.append(f"{key}: report {expected}, naive {actual}")
            return
        # Every figure the naive SQL computes; a finding's evidence may carry more (0027 added users, shares
        # and user days to repeated_impressions), which the property tests check against the reference.
        for name in sorted(actual):
            if not same_number(expected.get(name), actual.get(name)):
                differences.append(f"{key} {name}: report {expected.get(name)}, naive {actual.get(name)}")

    if "rows" in report:
        mine = {tuple(r[k] for k in UNIQUE_KEY): {f: r[f] for f in UNIQUE_FIGURES} for r in report["rows"]}
        theirs = {tuple(r[k] for k in UNIQUE_KEY): {f: int(r[f]) for f in UNIQUE_FIGURES} for r in naive}
    elif "findings" in report:
        mine = {tuple(f[k] for k in FINDING_KEY): f["evidence"] for f in report["findings"]
                if f["kind"] != "sample_ratio_mismatch"}
        theirs = {tuple(r[k] for k in FINDING_KEY): json.loads(r["evidence"]) for r in naive}
    else:
        mine = {(c["campaign_id"], a["variant_id"], a["control"]): {"users": a["users"], "converters": a["converters"]}
                for c in report["campaigns"] for a in c["arms"]}
        theirs = {(r["campaign_id"], r["variant_id"], r["control"] == "t"):
                  {"users": int(r["users"]), "converters": int(r["converters"])} for r in naive}
    for key in sorted(set(mine) | set(theirs), key=str):
        check(key, mine.get(key), theirs.get(key))
    return len(mine), differences


def largest_campaign(url):
    return psql(url, f"select campaign_id from cardinal.events where campaign_id is not null "
                     f"and app_id = (select app_id from cardinal.apps where name = '{APP}') "
                     f"group by campaign_id order by count(*) desc, campaign_id limit 1")


def main():
    bin_dir = sh("swift", "build", "-c", "release", "--show-bin-path")
    url = database_url(DATABASE)
    seeding = seed(bin_dir, url)
    rebuild_seconds = build_state(bin_dir, url)
    events_bytes, state_bytes = state_sizes(url)
    log(f"events {events_bytes / 2**20:,.0f} MiB, report state {state_bytes / 2**20:,.0f} MiB")
    campaign = largest_campaign(url)
    as_of = (datetime.date.fromisoformat(seeding["to_date"]) + datetime.timedelta(days=1)).isoformat() + "T00:00:00Z"
    campaign_events = int(psql(url, f"select count(*) from cardinal.events where campaign_id = '{campaign}'"))
    log(f"one campaign: {campaign} ({campaign_events:,} events); as of {as_of}")
    results = []
    for report, naive_name in (("unique-impressions", "unique_impressions"), ("anomalies", "anomalies"),
                               ("control", "control")):
        for label, chosen in (("one campaign", campaign), ("all campaigns", None)):
            scope = {"from_date": seeding["from_date"], "to_date": seeding["to_date"], "campaign": chosen,
                     "as_of": as_of}
            first_seconds, _ = timed(cli_command(bin_dir, url, report, scope))
            cardinal_times, cardinal_output = repeated(cli_command(bin_dir, url, report, scope))
            naive_times, naive_output = repeated(naive_command(url, naive_name, scope))
            rows, differences = compare(json.loads(cardinal_output), naive_rows(naive_output))
            result = {"report": report, "scope": label, "campaign": chosen, "rows": rows,
                      "cardinal_first_s": first_seconds,
                      "cardinal_s": summary(cardinal_times), "cardinal_runs": cardinal_times,
                      "naive_s": summary(naive_times), "naive_runs": naive_times,
                      "speedup": statistics.median(naive_times) / statistics.median(cardinal_times),
                      "check": "OK" if not differences else "MISMATCH", "differences": differences[:20]}
            results.append(result)
            log(f"{report}, {label}: {result['cardinal_s']['median']:.2f} s (first run {first_seconds:.2f} s) "
                f"vs naive {result['naive_s']['median']:.2f} s, {result['check']}")
            for difference in differences[:5]:
                log(f"  {difference}")
    folds = [fold_seconds(url, seeding["to_date"]) for _ in range(RUNS)]
    fold_events = folds[0][0]
    fold_runs = [seconds for _, seconds in folds]
    log(f"fold of {fold_events:,} new events on this state: {statistics.median(fold_runs):.2f} s")
    state = {"rebuild_seconds": rebuild_seconds,
             "rebuild_events_per_s": EVENTS / rebuild_seconds if rebuild_seconds else None,
             "events_bytes": events_bytes, "state_bytes": state_bytes,
             "fold_events": fold_events, "fold_s": summary(fold_runs), "fold_runs": fold_runs}
    report_table(seeding, campaign, campaign_events, results, state)


def report_table(seeding, campaign, campaign_events, results, state):
    seeded_how = "reused" if seeding["reused"] else f"seeded in {seeding['seconds']:.0f} s"
    print(f"\nCardinal reports benchmark: {EVENTS:,} events ({seeded_how}), report days {seeding['from_date']} to "
          f"{seeding['to_date']}; one campaign = {campaign} ({campaign_events:,} events). Wall time in seconds: "
          f"median, min–max, ×runs (up to {RUNS}; once when slower than {SLOW_SECONDS:g} s); the CLI's first run "
          f"apart (it follows the naive SQL of the figure before, or the scans that chose the campaign)\n")
    print(f"{'report':<19} {'scope':<14} {'first':>7} {'cardinal (CLI)':>25} {'naive SQL':>25} {'speed-up':>9} "
          f"{'rows':>5}  check")

    def cell(figure, runs):
        return f"{figure['median']:>7.2f} {figure['min']:>7.2f}–{figure['max']:<7.2f}×{len(runs)}"

    for r in results:
        print(f"{r['report']:<19} {r['scope']:<14} {r['cardinal_first_s']:>7.2f} "
              f"{cell(r['cardinal_s'], r['cardinal_runs']):>25} "
              f"{cell(r['naive_s'], r['naive_runs']):>25} {r['speedup']:>8.1f}× {r['rows']:>5}  {r['check']}")
    rebuild = (f"{state['rebuild_seconds']:.0f} s, {state['rebuild_events_per_s']:,.0f} events/s"
               if state["rebuild_seconds"] else "not run (state reused)")
    print(f"\nreport state: {state['state_bytes'] / 2**20:,.0f} MiB on disk against "
          f"{state['events_bytes'] / 2**20:,.0f} MiB of events ({state['state_bytes'] / state['events_bytes']:.2f}×); "
          f"cardinal state rebuild: {rebuild}")
    fold = state["fold_s"]
    print(f"fold of {state['fold_events']:,} new events of existing users on this state (rolled back): "
          f"{fold['median']:.2f} s, {fold['min']:.2f}–{fold['max']:.2f} ×{len(state['fold_runs'])}, "
          f"{state['fold_events'] / fold['median']:,.0f} events/s")
    print("goals: each report under 100 ms for one campaign and 1 s for all campaigns at 10 M events (3 s at "
          "50–100 M), and at least 10× faster than the naive SQL")
    os.makedirs(os.path.join(REPO, "bench-results"), exist_ok=True)
    path = os.path.join(REPO, "bench-results", time.strftime("reports-%Y%m%dT%H%M%S.json"))
    with open(path, "w") as out:
        json.dump({"events": EVENTS, "runs": RUNS, "slow_seconds": SLOW_SECONDS, "database": DATABASE,
                   "seed": seeding, "campaign": campaign, "campaign_events": campaign_events,
                   "state": state, "results": results}, out, indent=2)
    print(f"\nfigures written to {path}")


if __name__ == "__main__":
    main()
