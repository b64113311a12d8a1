#!/usr/bin/env python3
"""make bench: Cardinal's ingest measured side by side with raw COPY on the same server in the same run, then the
reports against the naive SQL (scripts/bench/reports.py). BENCH_SCENARIOS picks them: ingest,reports (default).

Uses a database of its own (cardinal_bench) in the private cluster, the release build of cardinald and
cardinal, and wrk with scripts/bench/ingest.lua as the load generator. Every figure is the median of
BENCH_RUNS runs, with min and max. Knobs (environment): BENCH_RUNS (3), BENCH_SECONDS (15, per run),
BENCH_CONNECTIONS (32), BENCH_BATCH (100 events per request), BENCH_WRITERS (2), BENCH_FOLD_INTERVAL (5s,
the daemon's default: how often cardinald folds stored events into the report state; 0s defers folding until
after each run, which then measures how long the backlog takes to fold).
Prints a table and writes the figures as JSON to bench-results/ (the path is printed at the end).
"""
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "15"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))
BATCH = int(os.environ.get("BENCH_BATCH", "100"))
WRITERS = os.environ.get("BENCH_WRITERS", "2")
FOLD_INTERVAL = os.environ.get("BENCH_FOLD_INTERVAL", "5s")
STATE_TABLES = ("cardinal.report_fold_queue, cardinal.report_user_state, cardinal.report_daily_counts, "
                "cardinal.report_session_state, cardinal.report_conversion_state")
COLUMNS = ("app_id, id, type, channel, time, received_at, user_id, device_id, session_id, campaign_id, canvas_id, "
           "canvas_step_id, variant_id, control, message_id, placement_id, button_id, url, platform, sdk_version, "
           "app_version, os_version, test, conversion_name, value, currency, properties")


def sh(*args, env=None, capture=True):
    result = subprocess.run(args, cwd=REPO, env=env, text=True, capture_output=capture)
    if result.returncode != 0:
        sys.exit(f"bench: {' '.join(args)} failed:\n{result.stderr}")
    return result.stdout.strip() if capture else ""


def admin_url():
    return sh("scripts/db.sh", "admin-url")


def database_url(name):
    return admin_url().rsplit("/", 1)[0] + "/" + name


def psql(url, sql):
    return sh("psql", "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", url, "-c", sql)


def fresh_database(name, bin_dir):
    psql(admin_url(), f"drop database if exists {name} with (force)")
    psql(admin_url(), f"create database {name}")
    url = database_url(name)
    sh(f"{bin_dir}/cardinal", "migrate", "--database-url", url)
    return url


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_daemon(bin_dir, url, spool_dir):
    port = free_port()
    daemon = subprocess.Popen(
        [f"{bin_dir}/cardinald", "--listen", f"127.0.0.1:{port}", "--database-url", url,
         "--log-level", "warning", "--writers", WRITERS, "--fold-interval", FOLD_INTERVAL,
         "--spool-dir", spool_dir,
         # The bench measures the daemon's ceiling with one app: its per-app rate limits would measure themselves.
         "--rate-limit-events", "0", "--rate-limit-requests", "0"],
        cwd=REPO, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return daemon, port
        except OSError:
            time.sleep(0.05)
    sys.exit("bench: cardinald did not start listening")


def wrk(port, key, id_offset, seconds, delay_ms=0, connections=CONNECTIONS):
    env = dict(os.environ, CARDINAL_KEY=key, ID_OFFSET=str(id_offset), BATCH=str(BATCH), DELAY_MS=str(delay_ms))
    out = sh("wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s",
             "-s", "scripts/bench/ingest.lua", f"http://127.0.0.1:{port}", env=env)
    figures = dict(re.findall(r"(\w+)=([\d.]+)", out.splitlines()[-1]))
    if int(figures["non_200"]) or int(figures["errors"]):
        sys.exit(f"bench: wrk saw non-200 answers or errors:\n{out}")
    return {"requests_per_s": int(figures["requests"]) / seconds, "p50_ms": float(figures["p50_ms"]),
            "p99_ms": float(figures["p99_ms"])}


class LagSampler(threading.Thread):
    """Scrapes cardinald's /metrics twice a second and keeps the largest report-state folding lag seen."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stopping, self.max_lag, self.max_backlog = port, threading.Event(), 0.0, 0

    def run(self):
        while not self.stopping.wait(0.5):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=2) as answer:
                    text = answer.read().decode()
            except OSError:
                continue
            lag = re.search(r"^cardinal_report_state_lag_seconds ([\d.e+-]+)$", text, re.M)
            backlog = re.search(r"^cardinal_report_state_backlog_events (\d+)$", text, re.M)
            self.max_lag = max(self.max_lag, float(lag.group(1)) if lag else 0.0)
            self.max_backlog = max(self.max_backlog, int(backlog.group(1)) if backlog else 0)

    def stop(self):
        self.stopping.set()
        self.join()


def fold_backlog(url, bin_dir):
    """Seconds until the report-state queue is empty: folded by cardinald, or by `cardinal state fold` when
    the daemon does not fold."""
    started = time.monotonic()
    if FOLD_INTERVAL in ("0", "0s", "0ms"):
        sh(f"{bin_dir}/cardinal", "state", "fold", "--database-url", url)
    while psql(url, "select events > 0 from cardinal.report_state_backlog()") == "t":
        time.sleep(0.2)
    return time.monotonic() - started


def half_rate_delay(port, key, peak_requests):
    """The mean pause per connection between requests that makes all connections together offer half the
    peak rate. A connection's cycle is its pause plus the latency, and the latency itself falls as the load
    does, so the pause is found by two short probes rather than computed once."""
    target_cycle_ms = 1000 * CONNECTIONS / (peak_requests / 2)
    delay_ms = target_cycle_ms / 2
    for probe in range(2):
        achieved = wrk(port, key, 90 + probe, 4, int(delay_ms))["requests_per_s"]
        achieved_cycle_ms = 1000 * CONNECTIONS / achieved
        delay_ms = max(1.0, delay_ms + target_cycle_ms - achieved_cycle_ms)
    return int(delay_ms)


class CPUShares:
    """Where the machine's CPU went while a measurement ran, in % of one core: the report-state fold's backend, the
    writers' backends (told apart by cardinald's application_name per connection role), the daemon, and
    everything else (the load generator, other backends, the kernel). Read from /proc, so the server must run on
    this machine, as the private cluster does."""

    def __init__(self, url, daemon_pid):
        roles = psql(url, "select pid, application_name from pg_stat_activity "
                          "where datname = current_database() and application_name like 'cardinald-%'")
        self.pids = {"daemon": [daemon_pid], "fold backend": [], "writer backends": []}
        for line in roles.splitlines():
            pid, name = line.split("|")
            role = {"cardinald-report-state-fold": "fold backend", "cardinald-writer": "writer backends"}.get(name)
            if role:
                self.pids[role].append(int(pid))
        self.start = self._snapshot()

    @staticmethod
    def _process_ticks(pid):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0
        return int(fields[11]) + int(fields[12])  # utime and stime, fields 14 and 15 of proc(5)

    def _snapshot(self):
        with open("/proc/stat") as stat:
            cpu = [int(value) for value in stat.readline().split()[1:]]
        busy = sum(cpu) - cpu[3] - cpu[4]  # all but idle and iowait
        ticks = {role: sum(self._process_ticks(pid) for pid in pids) for role, pids in self.pids.items()}
        return time.monotonic(), busy, ticks

    def stop(self):
        """The shares since construction: {role: % of one core}, with "rest" for the remainder of the busy time."""
        (started, busy0, ticks0), (ended, busy1, ticks1) = self.start, self._snapshot()
        per_core = os.sysconf("SC_CLK_TCK") * (ended - started) / 100
        shares = {role: (ticks1[role] - ticks0[role]) / per_core for role in ticks1}
        shares["rest"] = (busy1 - busy0) / per_core - sum(shares.values())
        return shares


def fsync_microseconds():
    """pg_test_fsync's fdatasync time for one 8 kB write (Linux's default wal_sync_method), on the disk of the
    private cluster."""
    probe = os.path.join(REPO, ".data", "bench-fsync-probe")
    pg_bin = sh("sh", "-c", "ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1")
    try:
        out = sh(f"{pg_bin}/pg_test_fsync", "-s", "2", "-f", probe)
    finally:
        if os.path.exists(probe):
            os.unlink(probe)
    return float(re.search(r"^\s+fdatasync\s+[\d.]+ ops/sec\s+(\d+) usecs/op", out, re.M).group(1))


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def timed_copy(copy_url, dump_path):
    psql(copy_url, "truncate cardinal.events")
    started = time.monotonic()
    # Raw COPY: the replica role skips events_record_storing_xid (0061), which cardinald's inserts pay for.
    sh("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", copy_url, "-c", "set session_replication_role = replica", "-c",
       f"\\copy cardinal.events ({COLUMNS}) from '{dump_path}'")
    return time.monotonic() - started


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    scenarios = [name.strip() for name in os.environ.get("BENCH_SCENARIOS", "ingest,reports").split(",") if name.strip()]
    unknown = set(scenarios) - {"ingest", "reports"}
    if unknown or not scenarios:
        sys.exit(f"bench: BENCH_SCENARIOS must list ingest and/or reports, not {', '.join(sorted(unknown)) or 'nothing'}")
    if "ingest" in scenarios:
        ingest()
    if "reports" in scenarios:
        import reports  # here, not at the top: reports.py imports its helpers from this module
        reports.main()


def ingest():
    bin_dir = sh("swift", "build", "-c", "release", "--show-bin-path")
    url = fresh_database("cardinal_bench", bin_dir)
    copy_url = fresh_database("cardinal_bench_copy", bin_dir)
    sh(f"{bin_dir}/cardinal", "apps", "create", "bench", "--database-url", url)
    key = sh(f"{bin_dir}/cardinal", "keys", "create", "--app", "bench", "--database-url", url)
    psql(copy_url, "insert into cardinal.apps (name) values ('bench')")
    spool_dir = tempfile.mkdtemp(prefix="cardinal-bench-spool-")
    daemon, port = start_daemon(bin_dir, url, spool_dir)
    runs = {"ingest_events_per_s": [], "copy_events_per_s": [], "ratio": [], "full_p50_ms": [],
            "full_p99_ms": [], "duplicate_events_per_s": [], "fold_lag_max_s": [], "fold_backlog_max": [],
            "fold_catch_up_s": []}
    try:
        wrk(port, key, 0, 3)  # warm-up: connections, partitions, caches
        for run in range(1, RUNS + 1):
            psql(url, f"truncate cardinal.events, {STATE_TABLES}")
            before = time.monotonic()
            sampler = LagSampler(port)
            sampler.start()
            full = wrk(port, key, run, SECONDS)
            sampler.stop()
            stored = int(psql(url, "select count(*) from cardinal.events"))
            catch_up = fold_backlog(url, bin_dir)
            ingest_rate = stored / SECONDS
            duplicate = wrk(port, key, run, max(3, SECONDS // 3))
            with tempfile.NamedTemporaryFile(suffix=".copy", delete=False) as dump:
                dump_path = dump.name
            os.chmod(dump_path, 0o666)
            sh("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c",
               f"\\copy (select {COLUMNS} from cardinal.events) to '{dump_path}'")
            copy_seconds = timed_copy(copy_url, dump_path)
            os.unlink(dump_path)
            copy_rate = stored / copy_seconds
            runs["ingest_events_per_s"].append(ingest_rate)
            runs["copy_events_per_s"].append(copy_rate)
            runs["ratio"].append(ingest_rate / copy_rate)
            runs["full_p50_ms"].append(full["p50_ms"])
            runs["full_p99_ms"].append(full["p99_ms"])
            runs["duplicate_events_per_s"].append(duplicate["requests_per_s"] * BATCH)
            runs["fold_lag_max_s"].append(sampler.max_lag)
            runs["fold_backlog_max"].append(sampler.max_backlog)
            runs["fold_catch_up_s"].append(catch_up)
            print(f"run {run}: {ingest_rate:,.0f} events/s ingest, {copy_rate:,.0f} events/s COPY "
                  f"({stored:,} events), p99 {full['p99_ms']:.1f} ms, {time.monotonic() - before:.0f} s",
                  file=sys.stderr)
        # The floor: one client, one request at a time, so every request is a batch and a commit of its own.
        floor = [wrk(port, key, 200 + run, 5, connections=1) for run in range(RUNS)]
        peak_requests = statistics.median(runs["ingest_events_per_s"]) / BATCH
        delay_ms = half_rate_delay(port, key, peak_requests)
        half, half_cpu = [], []
        for run in range(RUNS):
            cpu = CPUShares(url, daemon.pid)
            half.append(wrk(port, key, 100 + run, SECONDS, delay_ms))
            half_cpu.append(cpu.stop())
        rss = peak_rss_mb(daemon.pid)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        shutil.rmtree(spool_dir, ignore_errors=True)
    figures = {name: summary(values) for name, values in runs.items()}
    figures["half_rate_events_per_s"] = summary([h["requests_per_s"] * BATCH for h in half])
    figures["half_rate_p50_ms"] = summary([h["p50_ms"] for h in half])
    figures["half_rate_p99_ms"] = summary([h["p99_ms"] for h in half])
    for role in half_cpu[0]:
        figures[f"half_rate_cpu_{role.replace(' ', '_')}"] = summary([cpu[role] for cpu in half_cpu])
    figures["daemon_peak_rss_mb"] = {"median": rss, "min": rss, "max": rss}
    figures["floor_p50_ms"] = summary([f["p50_ms"] for f in floor])
    figures["floor_p99_ms"] = summary([f["p99_ms"] for f in floor])
    fsync_ms = fsync_microseconds() / 1000
    figures["fsync_ms"] = {"median": fsync_ms, "min": fsync_ms, "max": fsync_ms}
    report(figures)


def report(figures):
    rows = [
        ("ingest, HTTP → committed (events/s)", "ingest_events_per_s", "{:,.0f}"),
        ("raw COPY of the same events (events/s)", "copy_events_per_s", "{:,.0f}"),
        ("ratio ingest / COPY (goal ≥ 0.8)", "ratio", "{:.2f}"),
        ("ack latency p50 at full load (ms)", "full_p50_ms", "{:.1f}"),
        ("ack latency p99 at full load (ms)", "full_p99_ms", "{:.1f}"),
        ("half-peak offered rate (events/s)", "half_rate_events_per_s", "{:,.0f}"),
        ("ack latency p50 at half peak (ms)", "half_rate_p50_ms", "{:.1f}"),
        ("ack latency p99 at half peak (ms, goal ≤ 2 × floor)", "half_rate_p99_ms", "{:.1f}"),
        ("CPU at half peak: report-state fold (% of a core)", "half_rate_cpu_fold_backend", "{:.0f}"),
        ("CPU at half peak: writers' backends (% of a core)", "half_rate_cpu_writer_backends", "{:.0f}"),
        ("CPU at half peak: cardinald (% of a core)", "half_rate_cpu_daemon", "{:.0f}"),
        ("CPU at half peak: everything else (% of a core)", "half_rate_cpu_rest", "{:.0f}"),
        ("floor: one client, one request at a time, p50 (ms)", "floor_p50_ms", "{:.1f}"),
        ("floor: one client, one request at a time, p99 (ms)", "floor_p99_ms", "{:.1f}"),
        ("fdatasync of one 8 kB write, pg_test_fsync (ms)", "fsync_ms", "{:.2f}"),
        ("duplicate path, all ids known (events/s)", "duplicate_events_per_s", "{:,.0f}"),
        ("report-state folding lag at full load, max (s)", "fold_lag_max_s", "{:.1f}"),
        ("report-state backlog at full load, max (events)", "fold_backlog_max", "{:,.0f}"),
        ("report-state backlog folded after the run (s)", "fold_catch_up_s", "{:.1f}"),
        ("daemon peak resident memory (MB, goal ≤ 64)", "daemon_peak_rss_mb", "{:.1f}"),
    ]
    print(f"\nCardinal ingest benchmark: {RUNS} runs × {SECONDS} s, {CONNECTIONS} connections, "
          f"{BATCH} events per request, {WRITERS} writers, report state folded every {FOLD_INTERVAL}\n")
    print(f"{'figure':<52} {'median':>12} {'min':>12} {'max':>12}")
    for label, key, fmt in rows:
        f = figures[key]
        print(f"{label:<52} {fmt.format(f['median']):>12} {fmt.format(f['min']):>12} {fmt.format(f['max']):>12}")
    os.makedirs(os.path.join(REPO, "bench-results"), exist_ok=True)
    path = os.path.join(REPO, "bench-results", time.strftime("ingest-%Y%m%dT%H%M%S.json"))
    with open(path, "w") as out:
        json.dump({"runs": RUNS, "seconds": SECONDS, "connections": CONNECTIONS, "batch": BATCH,
                   "writers": WRITERS, "figures": figures}, out, indent=2)
    print(f"\nfigures written to {path}")


if __name__ == "__main__":
    main()
