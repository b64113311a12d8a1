#!/usr/bin/env python3
"""`make faults`: cardinald's disk spool under real faults, against the private cluster (scripts/db.sh).

Each case gets a fresh database `cardinal_faults` and a fresh spool folder, starts the daemon, and drives it
with FAULT_CLIENTS concurrent clients that post batches of FAULT_BATCH unique events and retry a batch on
503 or a broken connection until it is acknowledged. Then it injects the fault, waits until the spool is empty,
and checks the database against what the clients were told:

  outage             the cluster is stopped for FAULT_SECONDS (30) under load, then started again
  kill-in-replay     outage of FAULT_SECONDS/2, then `kill -9` of the daemon as soon as the replay has begun;
                     restarted on the same spool
  kill-in-outage     `kill -9` while the daemon is spooling, restart while the database is still down
  kill-under-load    `kill -9` with the database up, restart at once (time to recover: kill → first 200)
  disk-full          the spool on a 2 MiB tmpfs (mounted on the case's spool folder, unmounted whatever happens)
                     through an outage: 503 + Retry-After once it is full, never a 200 that is not durable
  slow-database      `lock table cardinal.events in access exclusive mode` held FAULT_SECONDS (at least 12 s,
                     past the default --request-timeout of 10 s): batches spool after --spool-commit-timeout (5 s)
  network-drop       nftables drops every packet to and from the cluster's port on loopback for
                     min(FAULT_SECONDS, 20) s (table inet cardinal_faults_<port>, deleted in a finally): answers
                     within seconds, the writers notice through tcp_user_timeout, not the kernel's 2 h keepalive
  sigterm            SIGTERM under load: in-flight requests answered, exit 0 within the drain time
  sigterm-in-outage  the same halfway through an outage (the answers come from the spool, which must be on disk
                     for the restarted daemon to replay)
  torn-tail          `kill -9` in an outage under load, then half a record appended to the newest segment (what a
                     crash in the middle of an append leaves): cut off when the daemon restarts, nothing lost
  corrupt-middle     the same, with a byte flipped in the middle of the oldest segment instead (a bad disk): that
                     record goes to quarantine/, the rest replays; its events are the only ones lost, and each of
                     them must be in the quarantined bytes

Columns: events acknowledged (200), lost (acknowledged but not stored), duplicated (stored more than once),
time to recover (end of the fault → spool empty), spool peak (events), events acknowledged per second during the
fault (the spool's append rate under this load), drain rate (events replayed per second of recovery, while the
clients keep sending), 503 answers, the slowest answer. Under the table, per case: what else was measured and
the checks that failed (a case fails on any loss, duplicate or failed check; then the exit status is 1).
Environment: CARDINAL_PG_PORT (as every make target), BIN_DIR (set by the Makefile), FAULT_SECONDS, FAULT_CLIENTS,
FAULT_BATCH, FAULT_CASES (comma-separated).

This stops and starts the private cluster: do not run it while `make test` runs on the same CARDINAL_PG_PORT.
disk-full and network-drop need root (mount, nft).
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
ALL_CASES = ("outage,kill-in-replay,kill-in-outage,kill-under-load,disk-full,slow-database,network-drop,sigterm,"
             "sigterm-in-outage,torn-tail,corrupt-middle")
CASES = os.environ.get("FAULT_CASES", ALL_CASES).split(",")
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
    psql("postgres", f"drop database if exists {DATABASE} with (force)")
    psql("postgres", f"create database {DATABASE}")
    cardinal("migrate")
    cardinal("apps", "create", "faults", "--timezone", "UTC")
    return cardinal("keys", "create", "--app", "faults")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, port, spool, arguments=()):
        self.log = open(os.path.join(spool + ".log"), "ab")
        self.process = subprocess.Popen([
            os.path.join(BIN_DIR, "cardinald"), "--database-url", db_url(DATABASE), "--listen", f"127.0.0.1:{port}",
            "--spool-dir", spool, "--log-level", "warning",
            # One app sends all the load here; the per-app rate limits are not what these faults test.
            "--rate-limit-events", "0", "--rate-limit-requests", "0", *arguments,
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
        self.answers = []  # (answered at, seconds it took), for every answer and every timeout
        self.counts = {"503": 0, "503 without Retry-After": 0, "timeout": 0}
        self.cut = []  # when each request whose connection broke before its answer was sent
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
                sent = None
                try:
                    if connection is None:
                        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                        connection.connect()
                    sent = time.time()
                    connection.request("POST", "/v1/events", body, {
                        "Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
                    response = connection.getresponse()
                    text = response.read()
                    with self.lock:
                        self.answers.append((time.time(), time.time() - sent))
                    if response.status == 200:
                        result = json.loads(text)
                        if result["accepted"] + result["duplicates"] != BATCH:
                            print("unexpected answer:", text, file=sys.stderr)
                        with self.lock:
                            self.acknowledged.extend(ids)
                        break
                    if response.status == 503:
                        with self.lock:
                            self.counts["503"] += 1
                            if response.getheader("Retry-After") is None:
                                self.counts["503 without Retry-After"] += 1
                    else:
                        print("unexpected status", response.status, text[:200], file=sys.stderr)
                    time.sleep(min(float(response.getheader("Retry-After") or 1), 0.5))
                except (OSError, http.client.HTTPException) as error:
                    if sent is not None:
                        with self.lock:
                            if isinstance(error, TimeoutError):
                                self.counts["timeout"] += 1
                                self.answers.append((time.time(), time.time() - sent))
                            else:
                                self.cut.append(sent)
                    if connection is not None:
                        connection.close()
                    connection = None
                    time.sleep(0.1)

    def count(self):
        with self.lock:
            return len(self.acknowledged)

    def refusals(self):
        """503 answers so far, and those of them without Retry-After."""
        with self.lock:
            return self.counts["503"], self.counts["503 without Retry-After"]

    def timeouts(self):
        with self.lock:
            return self.counts["timeout"]

    def cut_off(self, sent_before=float("inf")):
        """Requests sent (before `sent_before`) whose connection broke before an answer came."""
        with self.lock:
            return sum(1 for sent in self.cut if sent < sent_before)

    def slowest_since(self, since):
        """The longest wait for an answer (or a timeout) among those that ended after `since`."""
        with self.lock:
            return max((took for ended, took in self.answers if ended >= since), default=0.0)

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


class Case:
    """One run: a fresh database and spool, the daemon, the clients, and the figures the table shows."""

    def __init__(self, name, daemon_arguments=()):
        self.name = name
        self.key = fresh_database()
        self.spool = tempfile.mkdtemp(prefix="cardinal-faults-")
        self.mounted = False
        self.daemon_arguments = list(daemon_arguments)
        self.port = free_port()
        self.peak = 0
        self.notes = []
        self.failures = []
        self.drain = True
        self.recovered = None  # set by a case that measures recovery otherwise than fault's end → spool empty
        self.quarantine_expected = False  # a case that damages a record: its events may be lost, into quarantine/

    def start(self):
        self.daemon = Daemon(self.port, self.spool, self.daemon_arguments)
        self.load = Load(self.port, self.key)
        time.sleep(3)

    def restart(self):
        self.daemon = Daemon(self.port, self.spool, self.daemon_arguments)

    def watch_peak(self):
        self.peak = max(self.peak, metric(self.port, "cardinal_spool_events") or 0)

    def watch(self, seconds):
        """Keeps an eye on the spool's size for `seconds`."""
        until = time.time() + seconds
        while time.time() < until:
            self.watch_peak()
            time.sleep(0.2)

    def check(self, condition, failure):
        if not condition:
            self.failures.append(failure)

    def cleanup(self):
        if self.mounted:
            subprocess.run(["umount", self.spool], check=False)
        shutil.rmtree(self.spool, ignore_errors=True)


def outage_case(case):
    """Stops the cluster under load; the variants kill the daemon in the outage or in the replay."""
    case.start()
    acked_before = case.load.count()
    db("stop")
    started = time.time()
    if case.name == "kill-in-outage":
        time.sleep(OUTAGE / 2)
        case.watch_peak()
        case.daemon.kill()
        case.restart()
        case.watch(OUTAGE / 2)
    else:
        case.watch(OUTAGE if case.name == "outage" else OUTAGE / 2)
    case.spool_rate = (case.load.count() - acked_before) / (time.time() - started)
    if case.name == "outage":
        case.check(case.load.refusals()[0] == 0, "a request was answered 503 during the outage, not from the spool")
    db("start")
    back = time.time()
    if case.name == "kill-in-replay":
        wait_for("the replay to begin",
                 lambda: (metric(case.port, "cardinal_spool_replayed_events_total") or 0) > 0, interval=0.005)
        case.daemon.kill()
        case.restart()
        case.drain = False
    return back


def kill_under_load_case(case):
    """`kill -9` of the daemon while the database is up and the clients send, then a restart."""
    case.start()
    case.watch(OUTAGE / 2)
    acked_before = case.load.count()
    killed = time.time()
    case.daemon.kill()
    case.restart()
    wait_for("an acknowledgement after the restart", lambda: case.load.count() > acked_before, timeout=120)
    case.recovered = time.time() - killed
    case.notes.append("time to recover: from the kill to the first 200 of the restarted daemon")
    case.watch(OUTAGE / 2)
    case.spool_rate = None
    return killed


def disk_full_case(case):
    """An outage with the spool on a 2 MiB tmpfs: 503 + Retry-After once it is full, never a false 200."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", case.spool], check=True)
    case.mounted = True
    case.start()
    acked_before = case.load.count()
    db("stop")
    started = time.time()
    wait_for("the spool to be full", lambda: metric(case.port, "cardinal_spool_full") == 1, timeout=OUTAGE * 2)
    full_after = time.time() - started
    case.watch_peak()
    refused_before = case.load.refusals()
    case.watch(max(0.0, OUTAGE - (time.time() - started)))
    case.spool_rate = (case.load.count() - acked_before) / (time.time() - started)
    refused = [after - before for after, before in zip(case.load.refusals(), refused_before)]
    case.notes.append(f"spool full (ENOSPC) {full_after:.1f} s into the outage; {refused[0]:,} answers 503 after it, "
                      f"{refused[1]} of them without Retry-After")
    case.check(refused[0] > 0, "no 503 once the spool was full")
    case.check(refused[1] == 0, "a 503 without Retry-After")
    db("start")
    return time.time()


def slow_database_case(case):
    """`lock table cardinal.events in access exclusive mode` for FAULT_SECONDS (at least 12 s), longer than the
    default --request-timeout of 10 s."""
    hold = max(OUTAGE, 12)
    case.start()
    acked_before = case.load.count()
    holder = subprocess.Popen(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", db_url(DATABASE), "-c",
         f"begin; lock table cardinal.events in access exclusive mode; select pg_sleep({hold}); commit"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    started = time.time()
    try:
        case.watch(hold)
        holder.wait(timeout=hold + 30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    case.check(holder.returncode == 0, "the lock holder failed: " + holder.stderr.read().decode()[:200])
    case.spool_rate = (case.load.count() - acked_before) / (time.time() - started)
    case.notes.append(f"slowest answer while the lock was held: {case.load.slowest_since(started):.1f} s "
                      f"(--request-timeout 10 s, --spool-commit-timeout 5 s)")
    case.check(case.load.slowest_since(started) < 10, "an answer slower than --request-timeout")
    return time.time()


NFT_TABLE = f"cardinal_faults_{os.environ.get('CARDINAL_PG_PORT', '54329')}"


def network_drop_case(case):
    """Every packet to and from the cluster's port dropped for min(FAULT_SECONDS, 20) s (nftables on loopback)."""
    port = os.environ.get("CARDINAL_PG_PORT", "54329")
    seconds = min(OUTAGE, 20)
    case.start()
    acked_before = case.load.count()
    subprocess.run(["nft", "delete", "table", "inet", NFT_TABLE], check=False, stderr=subprocess.DEVNULL)
    try:
        subprocess.run(["nft", "-f", "-"], check=True, text=True, input=f"""
            table inet {NFT_TABLE} {{
                chain input {{
                    type filter hook input priority -10; policy accept;
                    tcp dport {port} drop
                    tcp sport {port} drop
                }}
            }}""")
        started = time.time()
        noticed = None
        while time.time() - started < seconds:
            case.watch_peak()
            if noticed is None and metric(case.port, "cardinal_ingest_database_up") == 0:
                noticed = time.time() - started
            time.sleep(0.2)
        case.spool_rate = (case.load.count() - acked_before) / (time.time() - started)
    finally:
        subprocess.run(["nft", "delete", "table", "inet", NFT_TABLE], check=True)
    slowest = case.load.slowest_since(started)
    case.notes.append(f"packets dropped {seconds:g} s; writers noticed after "
                      + (f"{noticed:.1f} s" if noticed is not None else "never (no failed commit)")
                      + f"; slowest answer {slowest:.1f} s; {case.load.timeouts()} requests unanswered after 30 s")
    case.check(slowest < 10, "an answer slower than --request-timeout")
    case.check(case.load.timeouts() == 0, "requests left hanging")
    return time.time()


def sigterm_case(case):
    """SIGTERM under load (in an outage for sigterm-in-outage: the answers come from the spool), then a restart."""
    case.start()
    acked_before = case.load.count()
    if case.name == "sigterm-in-outage":
        db("stop")
    started = time.time()
    case.watch(OUTAGE / 2)
    case.spool_rate = (case.load.count() - acked_before) / (time.time() - started)
    cut_before = case.load.cut_off()
    signalled = time.time()
    case.daemon.process.send_signal(signal.SIGTERM)
    try:
        code = case.daemon.process.wait(timeout=40)
    except subprocess.TimeoutExpired:
        case.daemon.kill()
        code = "killed after 40 s"
    took = time.time() - signalled
    time.sleep(1)
    in_flight_cut = case.load.cut_off(sent_before=signalled) - cut_before
    later_cut = case.load.cut_off() - cut_before - in_flight_cut
    left = sum(os.path.getsize(os.path.join(case.spool, f)) for f in os.listdir(case.spool) if f.endswith(".spool"))
    case.notes.append(f"exit {code} {took:.1f} s after SIGTERM; {left:,} spooled bytes left for the next start; "
                      f"{in_flight_cut} requests in flight at the signal cut off without an answer, {later_cut} sent "
                      "after it on kept-alive connections the daemon closed")
    case.check(in_flight_cut == 0, "requests in flight at SIGTERM went unanswered")
    case.check(code == 0, f"exit status {code}")
    case.check(took < 35, "did not exit within the drain time (30 s + 5 s)")
    if case.name == "sigterm-in-outage":
        db("start")
    case.restart()
    return time.time()


def damaged_spool_case(case):
    """`kill -9` in an outage under load, the spool damaged as a crash (torn-tail) or a bad disk (corrupt-middle)
    leaves it, the daemon restarted on it, then the database started."""
    case.start()
    acked_before = case.load.count()
    db("stop")
    started = time.time()
    case.watch(OUTAGE / 2)
    case.spool_rate = (case.load.count() - acked_before) / (time.time() - started)
    case.daemon.kill()
    segments = sorted(os.path.join(case.spool, f) for f in os.listdir(case.spool) if f.endswith(".spool"))
    if case.name == "torn-tail":
        intact = os.path.getsize(segments[-1])
        with open(segments[-1], "ab") as segment:
            # A record's magic, a length of 200 bytes and a CRC, then 50 of the 200: an append the kill cut short.
            segment.write(b"CSR1" + bytes([200, 0, 0, 0, 1, 2, 3, 4]) + bytes([7]) * 50)
        case.restart()
        case.check(os.path.getsize(segments[-1]) == intact, "the torn tail was not cut off when the daemon started")
    else:
        with open(segments[0], "r+b") as segment:
            segment.seek(os.path.getsize(segments[0]) // 2)
            byte = segment.read(1)
            segment.seek(-1, os.SEEK_CUR)
            segment.write(bytes([byte[0] ^ 0xFF]))
        case.restart()
        case.quarantine_expected = True
    case.notes.append(f"{len(segments)} segments when killed")
    db("start")
    return time.time()


CASES_BY_NAME = {
    "outage": outage_case, "kill-in-replay": outage_case, "kill-in-outage": outage_case,
    "kill-under-load": kill_under_load_case, "disk-full": disk_full_case, "slow-database": slow_database_case,
    "network-drop": network_drop_case, "sigterm": sigterm_case, "sigterm-in-outage": sigterm_case,
    "torn-tail": damaged_spool_case, "corrupt-middle": damaged_spool_case,
}


def run_case(name):
    case = Case(name)
    try:
        back = CASES_BY_NAME[name](case)
        replayed_before = metric(case.port, "cardinal_spool_replayed_events_total") or 0
        wait_for("the spool to drain", lambda: spool_empty(case.port, case.spool), interval=0.05)
        recovered = case.recovered if case.recovered is not None else time.time() - back
        replayed = (metric(case.port, "cardinal_spool_replayed_events_total") or 0) - replayed_before
        time.sleep(2)
        acknowledged = case.load.finish()
        quarantined_records = metric(case.port, "cardinal_spool_quarantined_records_total") or 0
        case.daemon.stop()
        stored = psql(DATABASE, "select id from cardinal.events")
        quarantine = os.path.join(case.spool, "quarantine")
        quarantined = b"".join(open(os.path.join(quarantine, f), "rb").read() for f in os.listdir(quarantine)) \
            if os.path.isdir(quarantine) else b""
    finally:
        if hasattr(case, "load"):
            case.load.finish()
        if hasattr(case, "daemon"):
            case.daemon.stop()
        case.cleanup()
    distinct = set(stored)
    lost = acknowledged - distinct
    if case.quarantine_expected:
        # The spool stores an event id as its 16 bytes; the flipped byte may be one of them.
        def quarantined_id(i):
            raw = uuid.UUID(i).bytes
            return any(raw[:k] + bytes([raw[k] ^ 0xFF]) + raw[k + 1:] in quarantined for k in range(16)) \
                or raw in quarantined
        unexplained = [i for i in lost if not quarantined_id(i)]
        case.notes.append(f"{quarantined_records:.0f} record quarantined; its {len(lost):,} acknowledged events are "
                          "the ones lost, each found in the quarantined bytes" if not unexplained else
                          f"{len(unexplained):,} lost events are not in quarantine/")
        case.check(quarantined_records == 1, f"{quarantined_records:.0f} records quarantined, not 1")
        case.check(lost and not unexplained, "the lost events are not exactly the quarantined record's")
    elif quarantined_records:
        case.check(False, f"{quarantined_records:.0f} records quarantined")
    return {
        "case": name, "acked": len(acknowledged), "lost": len(lost),
        "lost_expected": case.quarantine_expected,
        "duplicated": len(stored) - len(distinct), "recover_s": recovered, "peak": int(case.peak),
        "drain": replayed / recovered if recovered > 0 and case.drain and replayed > 0 else None,
        "spool_rate": case.spool_rate, "refused": case.load.refusals()[0], "slowest": case.load.slowest_since(0),
        "notes": case.notes, "failures": case.failures,
    }


def main():
    unknown = [name for name in CASES if name not in CASES_BY_NAME]
    if unknown:
        sys.exit(f"unknown FAULT_CASES {', '.join(unknown)}; the cases are {ALL_CASES}")
    print(f"make faults: {CLIENTS} clients × batches of {BATCH}, outage {OUTAGE:g} s, cases {', '.join(CASES)}",
          file=sys.stderr)
    rows = []
    for name in CASES:
        print(f"  running {name} …", file=sys.stderr)
        rows.append(run_case(name))
    db("start")
    header = (f"{'case':<18} {'events acked':>12} {'lost':>6} {'duplicated':>10} {'time to recover':>15} "
              f"{'spool peak':>10} {'acked in fault':>15} {'drain rate':>14} {'503s':>7} {'slowest':>8}")
    print(header)
    print("-" * len(header))
    for row in rows:
        drain = f"{row['drain']:,.0f} ev/s" if row["drain"] else "-"
        rate = f"{row['spool_rate']:,.0f} ev/s" if row["spool_rate"] is not None else "-"
        print(f"{row['case']:<18} {row['acked']:>12,} {row['lost']:>6} {row['duplicated']:>10} "
              f"{row['recover_s']:>13.1f} s {row['peak']:>10,} {rate:>15} {drain:>14} {row['refused']:>7,} "
              f"{row['slowest']:>6.1f} s")
    for row in rows:
        for note in row["notes"]:
            print(f"{row['case']}: {note}")
        for failure in row["failures"]:
            print(f"{row['case']}: FAILED: {failure}")
    failed = any((row["lost"] and not row["lost_expected"]) or row["duplicated"] or row["failures"] for row in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
