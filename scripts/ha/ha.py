#!/usr/bin/env python3
"""`make ha`: Cardinal on a highly available PostgreSQL, tested on one machine (loopback only).

Starts, in .data/ha (its own ports, nothing shared with scripts/db.sh's cluster):
  etcd                      127.0.0.1:52379 (peer 52380)                scripts/ha/etcd.yml
  PostgreSQL 15 × 3         127.0.0.1:55431–55433 under Patroni        scripts/ha/patroni-pg{1,2,3}.yml
                            (REST 58008–58010), synchronous_mode: a commit is acknowledged once the synchronous
                            standby has it, and only that standby is promoted
  cardinald × 2             127.0.0.1:58091–58092, each reaching the primary through the libpq multi-host URL
                            host=55431,55432,55433 with target_session_attrs=read-write, each with its own spool
  HAProxy                   127.0.0.1:58080 before the daemons (/readyz checks), 55440/55441 the primary and the
                            standbys through Patroni's REST checks, stats on 58081     scripts/ha/haproxy.cfg
  pgBackRest                WAL archiving from the primary, a full backup, a point-in-time restore into a fresh
                            node on 55434                                             scripts/ha/pgbackrest.conf
  pgbouncer                 127.0.0.1:56432 before HAProxy's primary port           scripts/ha/pgbouncer.ini

Then, under load from retrying clients through HAProxy (scripts/faults/faults.py's Load), the faults of HA_FAULTS:
  kill-postgres   kill -9 of the primary's postmaster (Patroni restarts it, or fails over)
  kill-patroni    kill -9 of the primary's Patroni, restarted HA_PATRONI_RESTART_SECONDS (25) later, past the
                  leader key's ttl (20 s): a standby is promoted while the old primary still runs
  switchover      `patronictl switchover` to the other synchronous standby candidate
  kill-daemon     kill -9 of one cardinald, restarted 2 s later (Restart=on-failure, RestartSec=2s)
  rolling-restart each daemon in turn: drained in HAProxy, SIGTERM, restarted, back in HAProxy
  network-cut     the primary's node cut off for HA_CUT_SECONDS (40, past the ttl): nftables drops every packet of
                  its PostgreSQL port, its Patroni's REST port and its Patroni's own address of etcd
For each: events acknowledged, lost, duplicated, the answers during the fault (200 from the database, 200 from a
spool, 503 with Retry-After, other), the slowest answer, when writes worked again, when everything was healthy
again, and which node ended primary; then the report state of the fault's app against a rebuild from raw events.
Then: every report on each hot standby after it replayed, against the primary's output; a point-in-time restore
whose reports equal the original's at that time; cardinald and the CLI through pgbouncer.

Exit status 1 on any lost or duplicated acknowledged event, a state that differs from its rebuild, a report that
differs on a standby, or a restore whose reports differ; also when a switchover leaves the primary where it was,
or when no event was acknowledged between a fault and the recovery (the load did not run across it). Everything
started here is stopped at the end, on SIGINT/SIGTERM, and after HA_TIMEOUT seconds (1800) whatever happens.

HA_SMOKE=1 (`make ha-smoke`, the last step of `make test`, on the debug build) changes the defaults to a short run
of the same code: in .data/ha-smoke, on the ports above plus HA_PORT_OFFSET = −30000 + 100 × (1 + CARDINAL_PG_PORT
mod 9) (below the ephemeral range; each checkout has its own CARDINAL_PG_PORT), 2 clients, the switchover only
(the cheapest fault that moves the primary), the standby reads; no full backup, restore or pgbouncer; HA_TIMEOUT
600. Each knob still overrides.

Environment: BIN_DIR (set by the Makefile: the release binaries, the debug ones for the smoke), HA_FAULTS
(comma-separated), HA_CLIENTS (3), HA_BATCH (50), HA_PATRONI_RESTART_SECONDS, HA_CUT_SECONDS, HA_TIMEOUT, HA_SKIP
(comma-separated among standby-reads, restore, pgbouncer), HA_PORT_OFFSET (0: added to every port above, in the
rendered configuration files too, so that runs in two checkouts can share the machine; the nftables table and the
reserved ports are the run's own).
"""
import http.client
import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG_SOURCES = os.path.join(REPO, "scripts", "ha")
sys.path.insert(0, os.path.join(REPO, "scripts", "faults"))
import faults  # noqa: E402  (the retrying clients and the helpers of `make faults`)

BIN_DIR = faults.BIN_DIR
SMOKE = os.environ.get("HA_SMOKE", "0") == "1"
HA = os.path.join(REPO, ".data", "ha-smoke" if SMOKE else "ha")
CONF, RUN, LOG = os.path.join(HA, "conf"), os.path.join(HA, "run"), os.path.join(HA, "log")
PG_BIN = "/usr/lib/postgresql/15/bin"
# Every port below is the one of the configuration files in scripts/ha/ plus HA_PORT_OFFSET (0), which render() adds
# in the rendered files too: another offset runs the same topology beside one on the files' ports.
# The smoke's ports lie below the kernel's ephemeral range (32768–60999): inside it, a connection open before the run
# reserved its ports (make test opens thousands) can hold one as its source port, and a node that cannot bind it
# never becomes a working replica.
PORT_OFFSET = int(os.environ.get("HA_PORT_OFFSET")
                  or (-30000 + 100 * (1 + int(os.environ.get("CARDINAL_PG_PORT") or "54329") % 9) if SMOKE else 0))
P = PORT_OFFSET
ETCD_PORT, ETCD_PEER_PORT = 52379 + P, 52380 + P
NODES = {"pg1": (55431 + P, 58008 + P), "pg2": (55432 + P, 58009 + P), "pg3": (55433 + P, 58010 + P)}
DAEMONS = {"d1": 58091 + P, "d2": 58092 + P}
HAPROXY_PORT, HAPROXY_STATS, PG_PRIMARY_PORT, PG_REPLICAS_PORT = 58080 + P, 58081 + P, 55440 + P, 55441 + P
PGBOUNCER_PORT, RESTORE_PORT, BOUNCER_DAEMON_PORT = 56432 + P, 55434 + P, 58093 + P
MULTI_HOST = ",".join(f"127.0.0.1:{port}" for port, _ in NODES.values())
PRIMARY_URL = f"postgresql://postgres@{MULTI_HOST}/cardinal?target_session_attrs=read-write"
FAULTS = os.environ.get("HA_FAULTS", "switchover" if SMOKE else
                        "kill-postgres,kill-patroni,switchover,kill-daemon,rolling-restart,network-cut").split(",")
SKIP = set(filter(None, os.environ.get("HA_SKIP", "restore,pgbouncer" if SMOKE else "").split(",")))
PATRONI_RESTART = float(os.environ.get("HA_PATRONI_RESTART_SECONDS", "25"))
CUT_SECONDS = float(os.environ.get("HA_CUT_SECONDS", "40"))
TIMEOUT = float(os.environ.get("HA_TIMEOUT", "600" if SMOKE else "1800"))
faults.CLIENTS = int(os.environ.get("HA_CLIENTS", "2" if SMOKE else "3"))
faults.BATCH = int(os.environ.get("HA_BATCH", "50"))
POSTGRES = pwd.getpwnam("postgres")

# faults.Load prints an "unexpected status" line for answers other than 200 and 503 (HAProxy's 502 and 504 when
# a daemon dies under a request): counted here instead.
other_answers = {}
other_lock = threading.Lock()


def _count_unexpected(*arguments, **keywords):
    text = " ".join(str(a) for a in arguments)
    if text.startswith("unexpected status"):
        with other_lock:
            status = text.split()[2]
            other_answers[status] = other_answers.get(status, 0) + 1
    else:
        print(*arguments, **keywords)


faults.print = _count_unexpected


STARTED = time.time()


def say(*arguments):
    print(f"ha: [{time.time() - STARTED:5.0f} s]", *arguments, file=sys.stderr, flush=True)


# --- processes ---------------------------------------------------------------------------------------------------

class Processes:
    """Every process this run starts, by name, so that teardown stops each of them (and only them)."""

    def __init__(self):
        self.running = {}

    def start(self, name, argv, as_postgres=False, cwd=None, env=None):
        log = open(os.path.join(LOG, name + ".log"), "ab")
        keywords = {}
        if as_postgres:
            keywords = {"user": POSTGRES.pw_uid, "group": POSTGRES.pw_gid, "extra_groups": []}
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=cwd or HA,
                                   env={**os.environ, "HOME": RUN, **(env or {})}, start_new_session=True,
                                   **keywords)
        self.running[name] = process
        with open(os.path.join(RUN, "pids"), "a") as pids:
            pids.write(f"{process.pid} {name}\n")
        return process

    def signal(self, name, sig):
        process = self.running.get(name)
        if process is not None and process.poll() is None:
            os.kill(process.pid, sig)

    def stop(self, name, timeout=30):
        process = self.running.pop(name, None)
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode


processes = Processes()


def postmaster_pid(data_dir):
    try:
        with open(os.path.join(data_dir, "postmaster.pid")) as f:
            pid = int(f.readline())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except OSError:
        return None
    return pid


def stop_postmasters():
    """The postmasters of this run's data folders that outlived their Patroni (a kill -9 of Patroni leaves them)."""
    for name in [*NODES, "restore"]:
        data_dir = os.path.join(HA, name)
        pid = postmaster_pid(data_dir)
        if pid is not None:
            subprocess.run(["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_ctl", "-D", data_dir, "-m", "immediate",
                            "-w", "-t", "20", "stop"], check=False, capture_output=True)
            if postmaster_pid(data_dir) is not None:
                os.kill(pid, signal.SIGKILL)


def leftovers():
    """Stops what a run that was itself killed left behind: the processes in its pid file, if they are still the
    ones it started (their command line names this run's folder), and its postmasters."""
    pids = os.path.join(RUN, "pids")
    if os.path.exists(pids):
        for line in open(pids):
            pid, name = line.split()
            try:
                cmdline = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            except OSError:
                continue
            if HA in cmdline:
                say(f"stopping {name} (pid {pid}) left by an earlier run")
                os.kill(int(pid), signal.SIGKILL)
        os.remove(pids)
    stop_postmasters()
    delete_nft_table()


def teardown():
    say("stopping everything")
    for name in [n for n in processes.running if n.startswith("cardinald")]:
        processes.stop(name)
    for name in ["pgbouncer", "haproxy"]:
        processes.stop(name)
    # Maintenance mode first, so that stopping one Patroni after another hands the primary to nobody; then the
    # postmasters, which a paused Patroni leaves running.
    patronis = [n for n in processes.running if n.startswith("patroni")]
    if patronis:
        try:
            subprocess.run(["patronictl", "-c", os.path.join(CONF, f"{patronis[0]}.yml"), "pause", "--wait"],
                           check=False, capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            pass
    for name in patronis:
        processes.signal(name, signal.SIGTERM)
    for name in patronis:
        processes.stop(name, timeout=60)
    stop_postmasters()
    for name in list(processes.running):
        processes.stop(name)
    delete_nft_table()
    unreserve_ports()


# --- helpers -----------------------------------------------------------------------------------------------------

def wait_for(what, predicate, timeout=120, interval=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if predicate():
                return
        except (OSError, http.client.HTTPException, ValueError, KeyError, RuntimeError, subprocess.SubprocessError):
            pass
        time.sleep(interval)
    raise SystemExit(f"ha: gave up waiting for {what} after {timeout:g} s (logs in {LOG})")


def http_json(port, path, method="GET", body=None, timeout=5):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None,
                           headers={"Content-Type": "application/json"} if body is not None else {})
        response = connection.getresponse()
        text = response.read().decode()
        return response.status, (json.loads(text) if text.strip().startswith(("{", "[")) else text)
    finally:
        connection.close()


def node_url(port, database="cardinal"):
    return f"postgresql://postgres@127.0.0.1:{port}/{database}"


def psql(url, sql, timeout=30, check=True):
    result = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", url, "-c", sql], capture_output=True,
                            text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise RuntimeError(f"psql {url} -c {sql!r}: {result.stderr.strip()}")
    return result.stdout.strip()


def cardinal(*arguments, url=PRIMARY_URL, check=True, timeout=300):
    result = subprocess.run([os.path.join(BIN_DIR, "cardinal"), *arguments, "--database-url", url],
                            capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise RuntimeError(f"cardinal {' '.join(arguments)}: {result.stderr.strip()}")
    return result


def cluster():
    """Patroni's view of the cluster, from the first node that answers."""
    for _, rest in NODES.values():
        try:
            status, body = http_json(rest, "/cluster", timeout=2)
            if status == 200:
                return body["members"]
        except (OSError, http.client.HTTPException, ValueError):
            continue
    return []


def leader():
    return next((m["name"] for m in cluster() if m["role"] == "leader" and m["state"] == "running"), None)


def healthy_cluster():
    members = cluster()
    roles = sorted(m["role"] for m in members if m["state"] in ("running", "streaming"))
    return roles == ["leader", "replica", "sync_standby"] or roles == ["leader", "sync_standby", "sync_standby"]


def render(name):
    """scripts/ha/<name> with @HA@ set to the run's folder, into .data/ha/conf/."""
    text = open(os.path.join(CONFIG_SOURCES, name)).read().replace("@HA@", HA)
    if PORT_OFFSET:
        # One pass, so that a shifted port is never shifted again.
        shifted = {str(port - PORT_OFFSET): str(port) for port in all_ports()}
        text = re.sub(r"\b(" + "|".join(shifted) + r")\b", lambda match: shifted[match.group(1)], text)
    path = os.path.join(CONF, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def metric_sum(name):
    return sum(faults.metric(port, name) or 0 for port in DAEMONS.values())


# --- the topology ------------------------------------------------------------------------------------------------

RESERVED_PORTS = "/proc/sys/net/ipv4/ip_local_reserved_ports"
reserved_here = []  # the ports this run added to the reserved ones


def all_ports():
    return [ETCD_PORT, ETCD_PEER_PORT, *[p for pair in NODES.values() for p in pair], *DAEMONS.values(),
            BOUNCER_DAEMON_PORT, HAPROXY_PORT, HAPROXY_STATS, PG_PRIMARY_PORT, PG_REPLICAS_PORT, PGBOUNCER_PORT,
            RESTORE_PORT]


def reserved_ports():
    """The reserved ports as a set: the kernel lists them as `a,b-c`."""
    with open(RESERVED_PORTS) as f:
        text = f.read().strip()
    ports = set()
    for item in filter(None, text.split(",")):
        first, _, last = item.partition("-")
        ports.update(range(int(first), int(last or first) + 1))
    return ports


def write_reserved_ports(ports):
    with open(RESERVED_PORTS, "w") as f:
        f.write(",".join(map(str, sorted(ports))) or "\n")


def reserve_ports():
    """Keeps the kernel from handing this run's ports to outgoing connections as their source port (they lie in
    the ephemeral range, 32768–60999): a first run failed when HAProxy's 55440 was some client's source port.
    The teardown takes back only the ports added here, so a run beside another on other ports (HA_PORT_OFFSET)
    leaves the other's reserved."""
    before = reserved_ports()
    reserved_here[:] = [port for port in all_ports() if port not in before]
    write_reserved_ports(before | set(reserved_here))


def unreserve_ports():
    if reserved_here:
        write_reserved_ports(reserved_ports() - set(reserved_here))
        reserved_here.clear()


def prepare():
    reserve_ports()
    # The postgres user must reach .data/ha: as scripts/db.sh does, only the search bit on the folders above.
    directory = REPO
    while directory != "/":
        if subprocess.run(["runuser", "-u", "postgres", "--", "test", "-x", directory]).returncode != 0:
            say(f"adding o+x to {directory} so the postgres user can reach {HA}")
            os.chmod(directory, os.stat(directory).st_mode | 0o001)
        directory = os.path.dirname(directory)
    os.makedirs(RUN, exist_ok=True)
    leftovers()
    for entry in os.listdir(HA):
        if entry != "run":
            shutil.rmtree(os.path.join(HA, entry), ignore_errors=True)
    for directory in [CONF, LOG, RUN, os.path.join(HA, "backrest")]:
        os.makedirs(directory, exist_ok=True)
    for directory in [HA, RUN, LOG, os.path.join(HA, "backrest")]:
        os.chown(directory, POSTGRES.pw_uid, POSTGRES.pw_gid)
    os.chmod(RUN, 0o700)
    for name in ["etcd.yml", "haproxy.cfg", "haproxy-503.http", "pgbackrest.conf", "pgbouncer.ini",
                 *[f"patroni-{n}.yml" for n in NODES]]:
        render(name)
    with open(os.path.join(CONF, "pgbouncer-users.txt"), "w") as f:
        f.write('"postgres" ""\n')
    # Bound as the nodes will bind them (SO_REUSEADDR): this finds a listener and a connection's source port alike.
    for port in all_ports():
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError as error:
                raise SystemExit(f"ha: port {port} is taken ({error.strerror}); see ss -tanp 'sport = {port}'")


def start_etcd():
    processes.start("etcd", ["etcd", "--config-file", os.path.join(CONF, "etcd.yml")])
    wait_for("etcd", lambda: http_json(ETCD_PORT, "/health")[1].get("health") == "true", timeout=60)


def start_patroni(name):
    processes.start(f"patroni-{name}", ["patroni", os.path.join(CONF, f"patroni-{name}.yml")], as_postgres=True)


def start_cluster():
    start_patroni("pg1")
    wait_for("pg1 to bootstrap the cluster", lambda: leader() == "pg1", timeout=120)
    start_patroni("pg2")
    start_patroni("pg3")
    wait_for("a leader, a synchronous standby and a replica", healthy_cluster, timeout=180)


def backrest(*arguments, check=True):
    result = subprocess.run(["runuser", "-u", "postgres", "--", "pgbackrest",
                             f"--config={os.path.join(CONF, 'pgbackrest.conf')}", "--stanza=cardinal", *arguments],
                            capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise RuntimeError(f"pgbackrest {' '.join(arguments)}: {result.stdout.strip()} {result.stderr.strip()}")
    return result


def start_daemon(name):
    port = DAEMONS[name]
    spool = os.path.join(HA, f"spool-{name}")
    os.makedirs(spool, exist_ok=True)
    processes.start(f"cardinald-{name}", [
        os.path.join(BIN_DIR, "cardinald"), "--database-url", PRIMARY_URL, "--listen", f"127.0.0.1:{port}",
        "--spool-dir", spool, "--log-level", "warning",
        # One app per fault sends all the load; the per-app rate limits are not what this tests.
        "--rate-limit-events", "0", "--rate-limit-requests", "0",
        # Behind HAProxy every client has HAProxy's address.
        "--max-connections-per-ip", "0",
    ])
    wait_for(f"cardinald {name}", lambda: faults.get(port, "/healthz")[0] == 200, timeout=60, interval=0.05)


def haproxy_servers():
    """{(proxy, server): status} from HAProxy's stats CSV."""
    connection = http.client.HTTPConnection("127.0.0.1", HAPROXY_STATS, timeout=3)
    try:
        connection.request("GET", "/;csv")
        lines = connection.getresponse().read().decode().splitlines()
    finally:
        connection.close()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {(r["pxname"], r["svname"]): r["status"] for r in rows}


def daemons_up():
    servers = haproxy_servers()
    return all(servers.get(("cardinald", name)) == "UP" for name in DAEMONS)


def haproxy_command(command):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(os.path.join(RUN, "haproxy.sock"))
        s.sendall((command + "\n").encode())
        return s.recv(65536).decode()


def start_haproxy():
    process = processes.start("haproxy", ["haproxy", "-db", "-f", os.path.join(CONF, "haproxy.cfg")])
    wait_for("HAProxy to see both daemons up", lambda: process.poll() is not None or daemons_up(), timeout=60)
    if process.poll() is not None:
        raise SystemExit(f"ha: HAProxy exited {process.returncode}; see {LOG}/haproxy.log")


def create_app(name):
    cardinal("apps", "create", name, "--timezone", "UTC")
    return cardinal("keys", "create", "--app", name).stdout.strip()


# --- load --------------------------------------------------------------------------------------------------------

def post(key, events):
    """Posts a batch through HAProxy until a daemon acknowledges it."""
    body = json.dumps({"events": events})
    for _ in range(600):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", HAPROXY_PORT, timeout=30)
            connection.request("POST", "/v1/events", body, {"Authorization": f"Bearer {key}",
                                                            "Content-Type": "application/json"})
            response = connection.getresponse()
            text = response.read()
            connection.close()
            if response.status == 200:
                result = json.loads(text)
                if result.get("rejected"):
                    raise SystemExit(f"ha: the seed workload had rejected events: {text[:400]!r}")
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.5)
    raise SystemExit("ha: a seed batch was never acknowledged")


def seed(key, users, seed_value, hours_ago=(2, 48)):
    """A varied workload for the reports: content-card impressions in two variants and a control arm (control
    impressions), clicks, dismissals (some without an impression, an anomaly), purchases within the window."""
    generator = random.Random(seed_value)
    now = int(time.time() * 1000)
    events = []
    for n in range(users):
        user = f"{seed_value}-user-{n}"
        arm = generator.choice(["v1", "v2", "control"])
        platform = generator.choice(["ios", "android", "web"])
        base = now - generator.randint(hours_ago[0] * 3600, hours_ago[1] * 3600) * 1000
        common = {"channel": "content_card", "campaign_id": "spring", "user_id": user, "platform": platform,
                  "sdk_version": generator.choice(["4.1.0", "4.2.0"]), "app_version": "1.0"}
        arm_fields = {"control": True} if arm == "control" else {"variant_id": arm}
        def event(kind, minutes, **extra):
            events.append({"id": str(uuid.uuid4()), "type": kind, "time": base + minutes * 60_000, **extra})
        if generator.random() < 0.95:
            event("impression", 0, **common, **arm_fields)
            if generator.random() < 0.3:
                event("impression", 1, **common, **arm_fields)
        if arm != "control":
            if generator.random() < 0.3:
                event("click", 2, **common, **arm_fields)
            if generator.random() < 0.1:
                event("dismissal", 3, **common, **arm_fields)
        if generator.random() < (0.25 if arm == "v1" else 0.15):
            event("conversion", 20, user_id=user, name="purchase", value="9.99", currency="EUR")
    for start in range(0, len(events), 500):
        post(key, events[start:start + 500])
    return len(events)


class WriteProbe:
    """A commit through the multi-host URL every half second: when writes failed and when they worked again."""

    def __init__(self):
        self.results = []  # (started at, ok)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping.is_set():
            started = time.time()
            try:
                # Generous: on the shared machine (load average up to 17) psql alone can take seconds to start.
                psql(PRIMARY_URL + "&connect_timeout=3", "select txid_current()", timeout=10)
                ok = True
            except (RuntimeError, subprocess.TimeoutExpired):
                ok = False
            self.results.append((started, ok))
            self.stopping.wait(max(0.0, 0.5 - (time.time() - started)))

    def writes_back(self, since):
        """Seconds from `since` to the first good commit after the last failed one (0 when none failed); waits up
        to a minute for that commit when the last probe failed."""
        deadline = time.time() + 60
        while time.time() < deadline and self.results and not self.results[-1][1]:
            time.sleep(0.2)
        self.stopping.set()
        self.thread.join()
        after = [(t, ok) for t, ok in self.results if t >= since]
        failed = [t for t, ok in after if not ok]
        if not failed:
            return 0.0, 0
        back = next((t for t, ok in after if ok and t > failed[-1]), None)
        return (back - since if back else None), len(failed)


# --- faults ------------------------------------------------------------------------------------------------------

def postmaster_of(name):
    return postmaster_pid(os.path.join(HA, name))


def kill_postgres(case):
    old = leader()
    case["old_primary"] = old
    os.kill(postmaster_of(old), signal.SIGKILL)


def kill_patroni(case):
    old = leader()
    case["old_primary"] = old
    processes.signal(f"patroni-{old}", signal.SIGKILL)
    processes.running[f"patroni-{old}"].wait()
    case["watch"](PATRONI_RESTART)
    case["notes"].append(f"{old}'s Patroni restarted {PATRONI_RESTART:g} s after the kill (its PostgreSQL ran on "
                         f"meanwhile as an orphan: leader key ttl 20 s)")
    start_patroni(old)


def switchover(case):
    old = leader()
    case["old_primary"] = old
    candidate = next(m["name"] for m in cluster() if m["role"] == "sync_standby")
    result = subprocess.run(["patronictl", "-c", os.path.join(CONF, f"patroni-{old}.yml"), "switchover",
                             "--leader", old, "--candidate", candidate, "--force"], capture_output=True, text=True,
                            timeout=120)
    said = [line for line in result.stdout.splitlines() if "witch" in line] or ["(no output)"]
    case["expected_primary"] = candidate
    case["notes"].append(f"patronictl switchover {old} → {candidate}: {said[-1].strip()[:120]}")
    if result.returncode != 0:
        case["failures"].append("patronictl switchover failed: " + result.stderr.strip()[:200])


def kill_daemon(case):
    case["old_primary"] = leader()
    processes.signal("cardinald-d1", signal.SIGKILL)
    processes.running["cardinald-d1"].wait()
    processes.running.pop("cardinald-d1")
    case["watch"](2.0)  # RestartSec=2s of scripts/systemd/cardinald.service.in
    start_daemon("d1")


def rolling_restart(case):
    case["old_primary"] = leader()
    for name in DAEMONS:
        started = time.time()
        haproxy_command(f"set server cardinald/{name} state drain")
        # Draining: no new requests; those on kept-alive connections finish. Then SIGTERM, which drains the daemon.
        case["watch"](2.0)
        code = processes.stop(f"cardinald-{name}", timeout=40)
        if code != 0:
            case["failures"].append(f"cardinald {name} exited {code} on SIGTERM")
        start_daemon(name)
        haproxy_command(f"set server cardinald/{name} state ready")
        wait_for(f"HAProxy to take {name} back", daemons_up, timeout=30)
        case["notes"].append(f"{name}: drained, stopped and back in HAProxy in {time.time() - started:.1f} s")


# Named after the offset, so that a run on other ports never deletes the table of another's network cut.
NFT_TABLE = "cardinal_ha" + (f"_{PORT_OFFSET}".replace("-", "minus_") if PORT_OFFSET else "")


def delete_nft_table():
    """The network cut's table, if a run left it (nftables is installed for `make ha`, not for the smoke)."""
    if shutil.which("nft"):
        subprocess.run(["nft", "delete", "table", "inet", NFT_TABLE], check=False, stderr=subprocess.DEVNULL)


def network_cut(case):
    """The primary's machine cut off: its PostgreSQL port (clients, standbys), its Patroni's REST port (the other
    Patronis) and its Patroni's own address of etcd (patroni-pgN.yml) drop every packet for HA_CUT_SECONDS."""
    old = leader()
    case["old_primary"] = old
    port, rest = NODES[old]
    etcd_address = f"127.0.0.{int(old[2:]) + 1}"
    subprocess.run(["nft", "-f", "-"], check=True, text=True, input=f"""
        table inet {NFT_TABLE} {{
            chain input {{
                type filter hook input priority -10; policy accept;
                tcp dport {{ {port}, {rest} }} drop
                tcp sport {{ {port}, {rest} }} drop
                ip daddr {etcd_address} tcp dport {ETCD_PORT} drop
                ip saddr {etcd_address} tcp sport {ETCD_PORT} drop
            }}
        }}""")
    try:
        case["watch"](CUT_SECONDS)
    finally:
        subprocess.run(["nft", "delete", "table", "inet", NFT_TABLE], check=True)
    case["notes"].append(f"{old} cut off {CUT_SECONDS:g} s: packets to and from its PostgreSQL port {port}, its "
                         f"Patroni's REST port {rest} and its Patroni's etcd address {etcd_address}:{ETCD_PORT} "
                         "dropped (Patroni reaches its own PostgreSQL over the Unix socket, as on a real machine)")


FAULT_FUNCTIONS = {"kill-postgres": kill_postgres, "kill-patroni": kill_patroni, "switchover": switchover,
                   "kill-daemon": kill_daemon, "rolling-restart": rolling_restart, "network-cut": network_cut}


def all_healthy():
    if not healthy_cluster() or not daemons_up():
        return False
    for port in DAEMONS.values():
        status, body = http_json(port, "/readyz", timeout=5)
        if status != 200 or body.get("status") != "ready":
            return False
    return True


def report_outputs(app, url=PRIMARY_URL):
    """Every report of `app` as JSON, and the failures (report, error), keyed by report."""
    outputs, failures = {}, {}
    for report, extra in [("unique-impressions", []), ("unique-impressions", ["--by", "day"]),
                          ("unique-impressions", ["--by", "platform"]), ("anomalies", []), ("control", [])]:
        label = " ".join([report, *extra])
        result = cardinal("report", report, "--app", app, "--format", "json", *extra, url=url, check=False)
        if result.returncode == 0:
            outputs[label] = json.loads(result.stdout)
        else:
            failures[label] = result.stderr.strip()
    return outputs, failures


def without_volatile(value):
    """A report's JSON without what changes from one run to the next: when it was computed (`as_of` of the control
    report: users matured by then)."""
    if isinstance(value, dict):
        return {k: without_volatile(v) for k, v in value.items() if k not in ("generated_at", "computed_at", "as_of")}
    if isinstance(value, list):
        return [without_volatile(v) for v in value]
    return value


def first_difference(a, b, path="$"):
    """Where two reports' JSON first differ, as `path: a ≠ b`, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            found = first_difference(a.get(k), b.get(k), f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} ≠ {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:80]} ≠ {json.dumps(b)[:80]}"


def differences(reference, outputs):
    """{label: first difference} of the reports in `outputs` that differ from `reference`."""
    found = {}
    for label, value in reference.items():
        if label in outputs:
            difference = first_difference(without_volatile(value), without_volatile(outputs[label]))
            if difference:
                found[label] = difference
    return found


def wait_folded():
    wait_for("the fold to catch up", lambda: json.loads(cardinal("state", "status", "--format", "json").stdout)
             [0]["unfolded_events"] in (0, "0"), timeout=300, interval=1)


def state_equals_rebuild(app, case):
    wait_folded()
    before, failed = report_outputs(app)
    cardinal("state", "rebuild", "--app", app, timeout=600)
    after, _ = report_outputs(app)
    different = differences(before, after)
    case["checks"].append("report state = rebuild from raw events" if not different and not failed else
                          f"report state differs from its rebuild in {different} {failed}")
    if different or failed:
        case["failures"].append(f"the report state differs from a rebuild in {', '.join(different)} {failed}")


def run_fault(name):
    app = f"ha-{name}"
    key = create_app(app)
    case = {"case": name, "notes": [], "failures": [], "checks": []}
    peak = [0]

    spooled_seen = {name: None for name in DAEMONS}  # the last value of each daemon's spooled-events counter
    spooled = [0]

    def sample_spooled():
        """Adds up what each daemon spooled since the last look; a restarted daemon's counter starts at 0 again."""
        for name, port in DAEMONS.items():
            value = faults.metric(port, "cardinal_spool_appended_events_total")
            if value is None:
                continue
            last = spooled_seen[name]
            if last is not None:
                spooled[0] += value - last if value >= last else value
            spooled_seen[name] = value

    def watch(seconds):
        until = time.time() + seconds
        while True:
            peak[0] = max(peak[0], metric_sum("cardinal_spool_events"))
            sample_spooled()
            if time.time() >= until:
                return
            time.sleep(0.2)
    case["watch"] = watch
    with other_lock:
        other_answers.clear()
    load = faults.Load(HAPROXY_PORT, key)
    time.sleep(3)
    acked_before = load.count()
    refused_before = load.refusals()
    sample_spooled()
    probe = WriteProbe()
    started = time.time()
    FAULT_FUNCTIONS[name](case)
    try:
        wait_for("the topology to be healthy again (a leader with a synchronous standby, both daemons ready with "
                 "empty spools, both up in HAProxy)", lambda: (watch(0) or True) and all_healthy(), timeout=300,
                 interval=0.25)
    except SystemExit as error:
        case["failures"].append(str(error))
    recovered = time.time() - started
    writes_back, failed_probes = probe.writes_back(started)
    acked_in_fault = load.count() - acked_before
    sample_spooled()
    spooled_total = spooled[0]
    refused = [after - before for after, before in zip(load.refusals(), refused_before)]
    slowest = load.slowest_since(started)
    time.sleep(2)
    acknowledged = load.finish()
    with other_lock:
        others = dict(other_answers)
    stored = psql(PRIMARY_URL, f"select e.id from cardinal.events e join cardinal.apps a using (app_id) "
                               f"where a.name = '{app}'", timeout=120).split()
    distinct = set(stored)
    lost = acknowledged - distinct
    case.update({
        "app": app, "acked": len(acknowledged), "lost": len(lost), "duplicated": len(stored) - len(distinct),
        "ok_db": int(max(0, acked_in_fault - spooled_total) // faults.BATCH),
        "ok_spool": int(spooled_total // faults.BATCH),
        "refused": refused[0], "refused_no_retry_after": refused[1], "others": others, "slowest": slowest,
        "writes_back": writes_back, "failed_probes": failed_probes, "recovered": recovered,
        "old_primary": case.get("old_primary"), "new_primary": leader(), "spool_peak": int(peak[0]),
    })
    if case["lost"] or case["duplicated"]:
        case["failures"].append(f"{case['lost']:,} acknowledged events not stored, {case['duplicated']:,} stored "
                                "twice")
    if refused[1]:
        case["failures"].append(f"{refused[1]} answers 503 without Retry-After")
    if case.get("expected_primary") and case["new_primary"] != case["expected_primary"]:
        case["failures"].append(f"the primary did not move: {case['new_primary']} is primary, not "
                                f"{case['expected_primary']}")
    if acked_in_fault <= 0:
        case["failures"].append("no event acknowledged between the fault and the recovery: the load did not run "
                                "across it")
    state_equals_rebuild(app, case)
    return case


def print_faults(rows):
    header = (f"{'fault':<16} {'acked':>8} {'lost':>5} {'dup':>4} {'200 db':>7} {'200 spool':>9} {'503+RA':>7} "
              f"{'other':>9} {'slowest':>8} {'writes back':>11} {'recovered':>10} {'primary':>11} {'spool peak':>10}")
    print(header)
    print("-" * len(header))
    for r in rows:
        if "acked" not in r:
            print(f"{r['case']:<16} did not run to the end: {'; '.join(r['failures'])}")
            continue
        others = ",".join(f"{k}×{v}" for k, v in sorted(r["others"].items())) or "0"
        back = f"{r['writes_back']:.1f} s" if r["writes_back"] is not None else "never"
        print(f"{r['case']:<16} {r['acked']:>8,} {r['lost']:>5} {r['duplicated']:>4} {r['ok_db']:>7,} "
              f"{r['ok_spool']:>9,} {r['refused']:>7,} {others:>9} {r['slowest']:>6.1f} s {back:>11} "
              f"{r['recovered']:>8.1f} s {(r['old_primary'] or '?') + '→' + (r['new_primary'] or '?'):>11} "
              f"{r['spool_peak']:>10,}")
    print("Columns: events acknowledged (200) and of them lost / stored twice; answers in the fault (fault → "
          "healthy) in batches: 200 committed, 200 from a daemon's spool, 503 with Retry-After, others by status "
          "(HAProxy's 502/504); the slowest answer; writes back = fault → first commit through the multi-host URL "
          "after the last failed one (a probe every 0.5 s); recovered = fault → leader with a synchronous standby, "
          "both daemons ready with empty spools and up in HAProxy; the primary before → after.")
    for r in rows:
        for note in r["notes"] + r["checks"]:
            print(f"{r['case']}: {note}")
        for failure in r["failures"]:
            print(f"{r['case']}: FAILED: {failure}")


# --- reads off the primary ---------------------------------------------------------------------------------------

def replayed(port, lsn):
    return psql(node_url(port), f"select pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn") == "t"


def standby_reads(app, failures):
    """Every report on each hot standby, once it replayed everything the primary had, against the primary's."""
    wait_folded()
    primary_outputs, primary_failures = report_outputs(app)
    if primary_failures:
        failures.append(f"reports failed on the primary: {primary_failures}")
    lsn = psql(PRIMARY_URL, "select pg_current_wal_lsn()")
    primary = leader()
    lines = []
    for name, (port, _) in NODES.items():
        if name == primary:
            continue
        wait_for(f"{name} to replay up to {lsn}", lambda: replayed(port, lsn), timeout=60)
        lag = psql(node_url(port), "select coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()), 0)")
        outputs, report_failures = report_outputs(app, url=node_url(port))
        different = differences(primary_outputs, outputs)
        same = [label for label in outputs if label not in different]
        lines.append(f"standby {name}: replayed to {lsn} (last replayed commit {float(lag):.1f} s old); "
                     f"{len(same)} reports equal the primary's" + (f"; DIFFERENT: {different}" if different else ""))
        for label, error in report_failures.items():
            lines.append(f"standby {name}: report {label} FAILED: {error}")
        if different or report_failures:
            failures.append(f"standby {name}: reports differ {different} or failed {list(report_failures)}")
        # The scheduled job writes its run: on a standby alone it cannot; with --store-url it reads the standby
        # and stores the run on the primary.
        run = cardinal("report", "run", "--app", app, url=node_url(port), check=False)
        lines.append(f"standby {name}: report run exits {run.returncode}: "
                     + (run.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1][:300])
        run = cardinal("report", "run", "--app", app, "--store-url", PRIMARY_URL, url=node_url(port), check=False)
        stored = run.returncode == 0 and psql(PRIMARY_URL, "select status from cardinal.report_runs where run_id = "
                                              f"{int(run.stdout.strip() or 0)}") == "succeeded"
        lines.append(f"standby {name}: report run --store-url <primary> exits {run.returncode}"
                     + (f", run {run.stdout.strip()} stored on the primary" if stored else
                        f": {(run.stderr.strip().splitlines() or ['(nothing on stderr)'])[-1][:300]}"))
        if not stored:
            failures.append(f"standby {name}: report run --store-url did not store its run on the primary")
        text = cardinal("report", "unique-impressions", "--app", app, url=node_url(port), check=False)
        lines.append(f"standby {name}: report unique-impressions (table) exits {text.returncode}; on stderr: "
                     + (text.stderr.strip().splitlines() or ["(nothing)"])[0][:200])
    # Through HAProxy's standby port (Patroni's /replica check) and libpq's target_session_attrs=standby.
    for label, url in [("HAProxy postgres-replicas", node_url(PG_REPLICAS_PORT)),
                       ("libpq target_session_attrs=standby", f"postgresql://postgres@{MULTI_HOST}/cardinal?"
                                                               "target_session_attrs=standby")]:
        outputs, report_failures = report_outputs(app, url=url)
        different = differences(primary_outputs, outputs)
        same = not different
        lines.append(f"{label}: on a standby ({psql(url, 'select pg_is_in_recovery()')}), reports "
                     + ("equal the primary's" if same and not report_failures
                        else f"DIFFER {different} or fail {report_failures}"))
        if not same or report_failures:
            failures.append(f"{label}: reports differ or fail")
    return lines


# --- backups -----------------------------------------------------------------------------------------------------

def restore_test(app, key, failures):
    lines = []
    wait_folded()
    psql(PRIMARY_URL, "checkpoint")
    target_time = psql(PRIMARY_URL, "select now()")
    time.sleep(1)
    at_target, target_failures = report_outputs(app)
    # More events after the target time: the restore must not have them.
    added = seed(key, 300, "after-target")
    wait_folded()
    after_target, _ = report_outputs(app)
    psql(PRIMARY_URL, "select pg_switch_wal()")
    psql(PRIMARY_URL, "select txid_current()")
    psql(PRIMARY_URL, "select pg_switch_wal()")
    wait_for("the WAL to be archived", lambda: backrest("check").returncode == 0, timeout=120, interval=2)
    info = backrest("info", "--output=json")
    backups = json.loads(info.stdout)[0]["backup"]
    lines.append(f"pgBackRest: {len(backups)} backup(s) ({', '.join(b['type'] for b in backups)}), "
                 f"{backups[-1]['info']['size'] / 1e6:.0f} MB, taken in "
                 f"{backups[-1]['timestamp']['stop'] - backups[-1]['timestamp']['start']} s; WAL archived to "
                 f"{json.loads(info.stdout)[0]['archive'][0]['max']}")
    restore_dir = os.path.join(HA, "restore")
    started = time.time()
    backrest("restore", f"--pg1-path={restore_dir}", "--type=time", f"--target={target_time}",
             "--target-action=promote", "--archive-mode=off")
    processes.start("postgres-restore", [f"{PG_BIN}/postgres", "-D", restore_dir, "-c", f"port={RESTORE_PORT}",
                                         "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={RUN}",
                                         "-c", "synchronous_standby_names=", "-c", "archive_mode=off",
                                         "-c", "hot_standby=on"], as_postgres=True)
    url = node_url(RESTORE_PORT)
    wait_for("the restored node to reach the target and promote",
             lambda: psql(url, "select pg_is_in_recovery()") == "f",
             timeout=300, interval=1)
    lines.append(f"point-in-time restore to {target_time} into a fresh node (port {RESTORE_PORT}) and its promotion "
                 f"took {time.time() - started:.1f} s")
    status = cardinal("state", "status", "--format", "json", url=url, check=False)
    lines.append("restored node: cardinal state status " + ("works (the fold's watermark is valid: a physical restore "
                 "keeps the transaction ids)" if status.returncode == 0 else f"FAILED: {status.stderr.strip()}"))
    if status.returncode != 0:
        failures.append("state status fails on the restored node")
    restored, restored_failures = report_outputs(app, url=url)
    different = differences(at_target, restored)
    changed = differences(at_target, after_target)
    lines.append(f"restored node: {len(at_target) - len(different)} of {len(at_target)} reports equal the original's "
                 f"at the target time ({len(changed)} of them changed on the original with the {added:,} events after "
                 "it)" + (f"; DIFFERENT: {different}" if different else "")
                 + (f"; failed: {restored_failures}" if restored_failures else ""))
    if different or restored_failures or target_failures:
        failures.append(f"restore: reports differ {different} or fail {restored_failures} {target_failures}")
    fold = cardinal("state", "fold", url=url, check=False)
    lines.append(f"restored node: cardinal state fold exits {fold.returncode}")
    processes.stop("postgres-restore")
    return lines


# --- pgbouncer ---------------------------------------------------------------------------------------------------

def pgbouncer_test(app, failures):
    lines = []
    processes.start("pgbouncer", ["pgbouncer", os.path.join(CONF, "pgbouncer.ini")], as_postgres=True)
    wait_for("pgbouncer", lambda: psql(node_url(PGBOUNCER_PORT), "select 1") == "1", timeout=30)
    direct, _ = report_outputs(app)
    for database, mode in [("cardinal", "transaction"), ("cardinal_session", "session")]:
        url = node_url(PGBOUNCER_PORT, database)
        outputs, report_failures = report_outputs(app, url=url)
        different = differences(direct, outputs)
        lines.append(f"pgbouncer {mode} mode: CLI reports "
                     + ("equal the direct ones" if not different and not report_failures
                        else f"DIFFER {different} or fail {report_failures}"))
        run = cardinal("report", "run", "--app", app, url=url, check=False)
        lines.append(f"pgbouncer {mode} mode: report run exits {run.returncode}"
                     + (": " + run.stderr.strip().splitlines()[-1][:300] if run.returncode else ""))
        # A third daemon through pgbouncer, its own spool, posting straight to it (not through HAProxy).
        port = BOUNCER_DAEMON_PORT
        spool = os.path.join(HA, f"spool-bouncer-{mode}")
        os.makedirs(spool, exist_ok=True)
        processes.start(f"cardinald-bouncer-{mode}", [
            os.path.join(BIN_DIR, "cardinald"), "--database-url", url, "--listen", f"127.0.0.1:{port}",
            "--spool-dir", spool, "--log-level", "warning", "--writers", "4", "--rate-limit-events", "0",
            "--rate-limit-requests", "0"])
        wait_for("cardinald through pgbouncer", lambda: faults.get(port, "/healthz")[0] == 200, timeout=60)
        key = create_app(f"ha-bouncer-{mode}")
        ids, statuses = [], {}
        deadline = time.time() + 20
        threads = []
        lock = threading.Lock()

        def client():
            while time.time() < deadline:
                batch = [str(uuid.uuid4()) for _ in range(20)]
                body = json.dumps({"events": [{"id": i, "type": "impression", "channel": "content_card",
                                               "time": int(time.time() * 1000), "user_id": f"u{n}",
                                               "campaign_id": "bouncer"} for n, i in enumerate(batch)]})
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    connection.request("POST", "/v1/events", body, {"Authorization": f"Bearer {key}",
                                                                    "Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    connection.close()
                    with lock:
                        statuses[response.status] = statuses.get(response.status, 0) + 1
                        if response.status == 200:
                            ids.extend(batch)
                except (OSError, http.client.HTTPException):
                    with lock:
                        statuses["error"] = statuses.get("error", 0) + 1
        for _ in range(4):
            threads.append(threading.Thread(target=client))
            threads[-1].start()
        for thread in threads:
            thread.join()
        spooled = faults.metric(port, "cardinal_spool_appended_events_total") or 0
        errors = faults.metric(port, "cardinal_ingest_database_errors_total") or 0
        wait_for("the bouncer daemon's spool to drain", lambda: faults.spool_empty(port, spool), timeout=60)
        processes.stop(f"cardinald-bouncer-{mode}")
        stored = set(psql(PRIMARY_URL, f"select e.id from cardinal.events e join cardinal.apps a using (app_id) "
                                       f"where a.name = 'ha-bouncer-{mode}'").split())
        log_lines = open(os.path.join(LOG, f"cardinald-bouncer-{mode}.log"), errors="replace").read().splitlines()
        errors_logged = sorted({line.split("error=", 1)[1][:160] for line in log_lines if "error=" in line})[:3]
        lines.append(f"pgbouncer {mode} mode: cardinald answered {statuses}; {len(ids):,} events acknowledged, "
                     f"{len(set(ids) - stored)} of them not stored; {spooled:.0f} events went through the spool, "
                     f"{errors:.0f} database errors" + (f"; errors: {errors_logged}" if errors_logged else ""))
        if set(ids) - stored:
            failures.append(f"pgbouncer {mode}: acknowledged events lost")
    processes.stop("pgbouncer")
    return lines


class Stopped(BaseException):
    """SIGINT, SIGTERM, SIGHUP or the HA_TIMEOUT watchdog: past every `except`, straight to the teardown."""


# --- main --------------------------------------------------------------------------------------------------------

def main():
    unknown = [f for f in FAULTS if f not in FAULT_FUNCTIONS]
    if unknown:
        sys.exit(f"unknown HA_FAULTS {unknown}; the faults are {', '.join(FAULT_FUNCTIONS)}")
    if os.geteuid() != 0:
        sys.exit("ha: needs root (the postgres user for the nodes, nftables for the network cut)")

    timed_out = threading.Event()

    def stop_on_signal(signum, _frame):
        raise Stopped(f"stopped by signal {signum}" + (f" after HA_TIMEOUT ({TIMEOUT:g} s)" if timed_out.is_set()
                                                       else ""))

    def time_out():
        timed_out.set()
        os.kill(os.getpid(), signal.SIGTERM)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop_on_signal)
    watchdog = threading.Timer(TIMEOUT, time_out)
    watchdog.daemon = True
    watchdog.start()

    failures, extra_lines, rows = [], [], []
    try:
        prepare()
        started = time.time()
        start_etcd()
        start_cluster()
        say(f"cluster up in {time.time() - started:.1f} s: {[(m['name'], m['role']) for m in cluster()]}")
        backrest("stanza-create")
        backrest("check")
        psql(PRIMARY_URL.replace("/cardinal?", "/postgres?"), "create database cardinal")
        cardinal("migrate")
        key = create_app("ha")
        cardinal("campaigns", "set", "--app", "ha", "--campaign", "spring", "--conversion", "purchase", "--window",
                 "1h", "--split", "control=1,v1=1,v2=1")
        for name in DAEMONS:
            start_daemon(name)
        start_haproxy()
        seeded = seed(key, 2000, "seed")
        say(f"seeded {seeded:,} events through HAProxy")
        if "restore" not in SKIP:
            started = time.time()
            backrest("backup", "--type=full")
            say(f"full backup in {time.time() - started:.1f} s")
        for name in FAULTS:
            say(f"fault {name} …")
            try:
                rows.append(run_fault(name))
            except (RuntimeError, SystemExit, subprocess.SubprocessError, OSError) as error:
                rows.append({"case": name, "failures": [str(error)], "notes": [], "checks": []})
            say(json.dumps({k: v for k, v in rows[-1].items() if k != "watch"}, default=str))
            wait_for("a healthy topology before the next step", all_healthy, timeout=180, interval=0.5)
        steps = [("standby-reads", lambda: standby_reads("ha", failures)),
                 ("restore", lambda: restore_test("ha", key, failures)),
                 ("pgbouncer", lambda: pgbouncer_test("ha", failures))]
        for step, run in steps:
            if step in SKIP:
                continue
            say(f"{step} …")
            try:
                lines = run()
            except (RuntimeError, SystemExit, subprocess.SubprocessError, OSError, ValueError, KeyError) as error:
                lines = []
                failures.append(f"{step}: {error}")
            extra_lines += lines
            for line in lines:
                say(line)
    except (RuntimeError, SystemExit, subprocess.SubprocessError, OSError) as error:
        failures.append(f"stopped early: {error}")
    except Stopped as error:
        failures.append(str(error))
    finally:
        teardown()
        watchdog.cancel()
    print_faults(rows)
    for line in extra_lines:
        print(line)
    for failure in failures:
        print("FAILED:", failure)
    failed = failures or any(r.get("lost") or r.get("duplicated") or r["failures"] for r in rows)
    say(f"{'FAILED' if failed else 'passed'} in {time.time() - STARTED:.0f} s")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
