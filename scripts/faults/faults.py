#!/usr/bin/env python3
"""`make faults`: cardinald's disk spool under real faults, against the private cluster (scripts/db.sh).

Each case gets a fresh database `cardinal_faults` and a fresh spool folder, starts the daemon, and drives it
with FAULT_CLIENTS concurrent clients that post batches of FAULT_BATCH unique events and retry a batch on
503 or a broken connection until it is acknowledged. Then it injects the fault, waits until the spool is empty,
and checks the database against what the clients were told:

  outage           the cluster is stopped for FAULT_SECONDS (30) under load, then started again
  kill-in-replay   outage of FAULT_SECONDS/2, then `kill -9` of the daemon as soon as the replay has begun;
                   restarted on the same spool
  kill-in-outage   `kill -9` while the daemon is spooling, restart while the database is still down

Columns: events acknowledged (200), lost (acknowledged but not stored), duplicated (stored more than once),
time to recover (cluster back → spool empty), spool peak (events), events acknowledged per second during the
outage (the spool's append rate under this load), drain rate (events replayed per second of recovery, while the
clients keep sending).
Environment: CARDINAL_PG_PORT (as every make target), BIN_DIR (set by the Makefile), FAULT_SECONDS, FAULT_CLIENTS,
FAULT_BATCH, FAULT_CASES (comma-separated).

This stops and starts the private cluster: do not run it while `make test` runs on the same CARDINAL_PG_PORT.
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DB_SH = os.path.join(REPO, "scripts", "db.sh")
BIN_DIR = os.environ.get("BIN_DIR") or sys.exit("BIN_DIR is set by `make faults`")
OUTAGE = float(os.environ.get("FAULT_SECONDS", "30"))
CLIENTS = int(os.environ.get("FAULT_CLIENTS", "4"))
BATCH = int(os.environ.get("FAULT_BATCH", "50"))
CASES = os.environ.get("FAULT_CASES", "outage,kill-in-replay,kill-in-outage").split(",")
DATABASE = "cardinal_faults"


def db(command):
    subprocess.run([DB_SH, command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def db_url(database):
    base = subprocess.run([DB_SH, "admin-url"], check=True, capture_output=True, text=True).stdout.strip()
    return base.rsplit("/", 1)[0] + "/" + database


def psql(database, sql):
    result = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", db_url(database), "-c", sql],
                            check=True, capture_output=True, text=True)
    return result.stdout.split()


def cardinal(*arguments):
    return subprocess.run([os.path.join(BIN_DIR, "cardinal"), *arguments, "--database-url", db_url(DATABASE)],
                          check=True, capture_output=True, text=True).stdout.strip()


def fresh_database():
    db("start")
    psql("postgres", f"drop database if exists {DATABASE}")
    psql("postgres", f"create database {DATABASE}")
    cardinal("migrate")
    cardinal("apps", "create", "faults", "--timezone", "UTC")
    return cardinal("keys", "create", "--app", "faults")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, port, spool):
        self.log = open(os.path.join(spool + ".log"), "ab")
        self.process = subprocess.Popen([
            os.path.join(BIN_DIR, "cardinald"), "--database-url", db_url(DATABASE), "--listen", f"127.0.0.1:{port}",
            "--spool-dir", spool, "--log-level", "warning",
        ], stderr=self.log)
        self.port = port
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                get(port, "/healthz")
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("cardinald did not come up; see " + self.log.name)

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)


def get(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def metric(port, name):
    try:
        for line in get(port, "/metrics")[1].splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    except OSError:
        pass
    return None


class Load:
    """CLIENTS threads posting batches of new events, retrying each until it gets a 200."""

    def __init__(self, port, key):
        self.port, self.key = port, key
        self.acknowledged = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.client, daemon=True) for _ in range(CLIENTS)]
        for thread in self.threads:
            thread.start()

    def client(self):
        connection = None
        while not self.stopping.is_set():
            ids = [str(uuid.uuid4()) for _ in range(BATCH)]
            millis = int(time.time() * 1000) - 3_600_000
            body = json.dumps({"events": [
                {"id": i, "type": "impression", "channel": "content_card", "time": millis, "user_id": f"u{n}",
                 "campaign_id": "faults"} for n, i in enumerate(ids)]})
            while not self.stopping.is_set():
                try:
                    if connection is None:
                        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                    connection.request("POST", "/v1/events", body, {
                        "Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
                    response = connection.getresponse()
                    text = response.read()
                    if response.status == 200:
                        result = json.loads(text)
                        if result["accepted"] + result["duplicates"] != BATCH:
                            print("unexpected answer:", text, file=sys.stderr)
                        with self.lock:
                            self.acknowledged.extend(ids)
                        break
                    if response.status != 503:
                        print("unexpected status", response.status, text[:200], file=sys.stderr)
                    time.sleep(min(float(response.getheader("Retry-After") or 1), 0.5))
                except (OSError, http.client.HTTPException):
                    if connection is not None:
                        connection.close()
                    connection = None
                    time.sleep(0.1)

    def count(self):
        with self.lock:
            return len(self.acknowledged)

    def finish(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join()
        return set(self.acknowledged)


def wait_for(what, predicate, timeout=600, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise SystemExit("gave up waiting for " + what)


def spool_empty(port, spool):
    return metric(port, "cardinal_spool_records") == 0 and not [f for f in os.listdir(spool) if f.endswith(".spool")]


def run_case(name):
    key = fresh_database()
    spool = tempfile.mkdtemp(prefix="cardinal-faults-")
    port = free_port()
    daemon = Daemon(port, spool)
    load = Load(port, key)
    time.sleep(3)
    peak = {"events": 0}

    def watch_peak():
        value = metric(port, "cardinal_spool_events") or 0
        peak["events"] = max(peak["events"], value)

    acked_before_outage = load.count()
    db("stop")
    outage_started = time.time()
    if name == "outage":
        while time.time() - outage_started < OUTAGE:
            watch_peak()
            time.sleep(0.2)
    elif name == "kill-in-outage":
        time.sleep(OUTAGE / 2)
        watch_peak()
        daemon.kill()
        daemon = Daemon(port, spool)
        time.sleep(OUTAGE / 2)
        watch_peak()
    elif name == "kill-in-replay":
        while time.time() - outage_started < OUTAGE / 2:
            watch_peak()
            time.sleep(0.2)
    spool_rate = (load.count() - acked_before_outage) / (time.time() - outage_started)
    db("start")
    back = time.time()
    if name == "kill-in-replay":
        wait_for("the replay to begin", lambda: (metric(port, "cardinal_spool_replayed_events_total") or 0) > 0, interval=0.005)
        daemon.kill()
        daemon = Daemon(port, spool)
    replayed_before = metric(port, "cardinal_spool_replayed_events_total") or 0
    wait_for("the spool to drain", lambda: spool_empty(port, spool), interval=0.05)
    recovered = time.time() - back
    replayed = (metric(port, "cardinal_spool_replayed_events_total") or 0) - replayed_before
    time.sleep(2)
    acknowledged = load.finish()
    daemon.stop()
    stored = psql(DATABASE, "select id from cardinal.events")
    distinct = set(stored)
    shutil.rmtree(spool, ignore_errors=True)
    return {
        "case": name, "acked": len(acknowledged), "lost": len(acknowledged - distinct),
        "duplicated": len(stored) - len(distinct), "recover_s": recovered, "peak": int(peak["events"]),
        "drain": replayed / recovered if recovered > 0 and name != "kill-in-replay" else None,
        "spool_rate": spool_rate,
    }


def main():
    print(f"make faults: {CLIENTS} clients × batches of {BATCH}, outage {OUTAGE:g} s, cases {', '.join(CASES)}",
          file=sys.stderr)
    rows = []
    for name in CASES:
        print(f"  running {name} …", file=sys.stderr)
        rows.append(run_case(name))
    db("start")
    header = (f"{'case':<16} {'events acked':>12} {'lost':>6} {'duplicated':>10} {'time to recover':>15} "
              f"{'spool peak':>10} {'acked in outage':>15} {'drain rate':>14}")
    print(header)
    print("-" * len(header))
    for row in rows:
        drain = f"{row['drain']:,.0f} ev/s" if row["drain"] else "-"
        print(f"{row['case']:<16} {row['acked']:>12,} {row['lost']:>6} {row['duplicated']:>10} "
              f"{row['recover_s']:>13.1f} s {row['peak']:>10,} {row['spool_rate']:>10,.0f} ev/s {drain:>14}")
    failed = any(row["lost"] or row["duplicated"] for row in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
