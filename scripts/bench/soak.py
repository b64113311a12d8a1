#!/usr/bin/env python3
"""make soak: a steady offered load of recent events on a database preloaded with millions, for half an hour, to see
whether the report state's fold keeps up and the reports stay within their goals while it runs. Not part of
`make test` nor of `make bench`.

1. The preload. A database of the private cluster (SOAK_DATABASE, cardinal_soak) holding SOAK_PRELOAD_EVENTS events
   of the reports benchmark's shape: scripts/bench/seed_reports.sql (app `bench`, 50 campaigns, 1 M users, the 30
   report days ending yesterday), then its report state built with `cardinal state rebuild`. A database whose
   finished seed (the marker bench.seed, as reports.py reads it) holds the requested events is reused, with the
   events earlier soaks added; a backlog an earlier soak left is folded first (`cardinal state fold`). A database
   this script did not seed is dropped only with SOAK_RESEED=1: it is soaked as it is when its seed holds at least
   the requested events (the 50 M bench database: SOAK_DATABASE=cardinal_bench_reports_50m), else the script stops.
   Its events then outnumber the seed's marker, so reports.py seeds that database again the next time it runs.
2. The load, at a fixed offered rate. The release cardinald (the daemon's defaults but --fold-interval), a fresh
   ingest key of `bench`, and the app's rate limits set to twice the offered rate, never below the daemon's defaults
   (`cardinal apps limits`: at the default of 10,000 events/s per app, a load of exactly 10,000 would meet the
   limit's edge). A pacer thread schedules a request of SOAK_BATCH events every SOAK_BATCH / SOAK_RATE seconds, on
   the clock, whatever the answers do (an open loop, so that a slow daemon cannot lower the load it is offered), and
   SOAK_CONNECTIONS threads post them over keep-alive connections (http.client). A request scheduled while more
   than five seconds of requests wait for a free connection is not sent, and counts as offered and not accepted.
   Nothing is retried; the answers are counted by status (a 429 is the rate limit). Ack latency runs from the
   scheduled time to the answer.
   The events are recent (now minus up to two minutes, their impressions, clicks and conversions up to a few minutes
   later) and of the seed's shape: 80 % of the exposures go to the seed's users (drawn with its skew, with its
   devices, platforms, SDK builds and, through the same hash of user and campaign, its arms, so that a user stays in
   the arm the seed gave it), 20 % to new users of this run (200,000 of them, each seen again and again); 1 % of the
   exposures are late (one to 48 hours old), and 0.5 % of the events sent are duplicates of events sent before.
3. Every SOAK_SAMPLE_SECONDS, a row: the load since the row before (events offered and answered 200 per second,
   429s, the ack latency's p99), the backlog (events stored and not folded, counted by
   cardinal.report_state_backlog()) and the lag (the age of the oldest of them), and the time of each report run
   that ended since the row before (· when none did). The reports run on a thread of their own, as a user runs
   them, one after another: the release `cardinal report unique-impressions|anomalies|control --app bench --from
   <the seed's first day> --to <today> --format json` (31 report days on a fresh seed), the as-of time left at its
   default (now), for one campaign (the one with the most events, as reports.py picks it) and for the whole app;
   wall time of the whole command. A round of the six starts at a row's time once the round before has ended, so
   slow reports thin out rather than pile up; a run past SOAK_REPORT_TIMEOUT is cancelled by the server
   (statement_timeout) and counts with the time it took. Counting a backlog of millions takes a while itself, which
   delays the row after it.

The goals, checked at the end (the exit status is 1 when one is missed; every one is printed with its figures):
  - backlog bounded: the largest backlog of the soak's last third at most twice that of its first third. A fold
    every interval leaves up to an interval's traffic behind by design, so the first third's figure is taken as
    at least SOAK_RATE × the fold interval;
  - backlog under 30 s of traffic: the largest backlog of the last third, divided by SOAK_RATE, under 30 s;
  - each report's 95th percentile (nearest rank) under 100 ms for one campaign and 3 s for the whole app, in each
    third of the soak (the runs that started in it; a third without a run misses the goal);
  - the load delivered: events answered 200 (stored or duplicate, not rejected) per second of load at least 95 % of
    SOAK_RATE.
Then the summary: each report's runs, p50, p95 and max, and its p95 per third; the backlog's first- and last-third
maxima; the load (offered, answered, statuses, ack latency, the load generator's own CPU); each goal and the verdict.
The figures, every row and every report run go as JSON to bench-results/soak-<timestamp>.json (the path is printed
at the end), and a line to the table bench.soak_runs of the soaked database.

Knobs (environment): SOAK_PRELOAD_EVENTS (10000000), SOAK_RATE (10000 events/s offered, the per-app default
limit), SOAK_MINUTES (30), SOAK_SAMPLE_SECONDS (10), SOAK_DATABASE (cardinal_soak), SOAK_RESEED (1 seeds the
database again even when it holds the requested events), SOAK_BATCH (100 events per request), SOAK_CONNECTIONS
(16), SOAK_FOLD_INTERVAL (5s, the daemon's default), SOAK_REPORT_TIMEOUT (60 s).

Run it with `make soak` (release build) or directly: python3 scripts/bench/soak.py. It takes the preload (about
25–30 minutes for 10 M events the first time: the seed and the rebuild) plus SOAK_MINUTES and the last report run.
"""
import datetime
import http.client
import itertools
import json
import math
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from bench import REPO, admin_url, database_url, free_port, psql, sh

PRELOAD = int(os.environ.get("SOAK_PRELOAD_EVENTS", "10000000"))
RATE = float(os.environ.get("SOAK_RATE", "10000"))
MINUTES = float(os.environ.get("SOAK_MINUTES", "30"))
SAMPLE_SECONDS = float(os.environ.get("SOAK_SAMPLE_SECONDS", "10"))
DATABASE = os.environ.get("SOAK_DATABASE", "cardinal_soak")
RESEED = os.environ.get("SOAK_RESEED", "0") == "1"
BATCH = int(os.environ.get("SOAK_BATCH", "100"))
CONNECTIONS = int(os.environ.get("SOAK_CONNECTIONS", "16"))
FOLD_INTERVAL = os.environ.get("SOAK_FOLD_INTERVAL", "5s")
REPORT_TIMEOUT = float(os.environ.get("SOAK_REPORT_TIMEOUT", "60"))
APP = "bench"
# The 50 M-event database of the reports benchmark (docs/performance.md), which a soak may take as it is.
BENCH_50M = "cardinal_bench_reports_50m"
# cardinald's --rate-limit-events and --rate-limit-requests by default.
DEFAULT_EVENTS_LIMIT, DEFAULT_REQUESTS_LIMIT = 10_000, 1_000

# The goals (issue 43).
ONE_CAMPAIGN_GOAL_S = 0.1
WHOLE_APP_GOAL_S = 3.0
BACKLOG_GROWTH = 2.0
BACKLOG_GOAL_S = 30.0
ACCEPTED_SHARE = 0.95
PERCENTILE = 95

# The traffic's make-up.
EXISTING_SHARE = 0.8
NEW_USERS = 200_000
LATE_SHARE = 0.01
DUPLICATE_SHARE = 0.005
QUEUE_SECONDS = 5.0

REPORTS = ("unique-impressions", "anomalies", "control")
SHORT = {"unique-impressions": "uniq", "anomalies": "anom", "control": "ctrl"}


def log(message):
    print(f"soak: {message}", file=sys.stderr, flush=True)


def seconds_of(duration):
    """A daemon duration (5s, 500ms, 0) in seconds."""
    text = duration.strip()
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * factor
    return float(text)


# ---------------------------------------------------------------------------------------------------------------
# The preload

# The comment of a database this script created: it may drop it to seed it again.
OWNED = "seeded by make soak (scripts/bench/soak.py), which may drop it to seed it again"


def database_state():
    """None when there is no such database, else whether this script created it."""
    owned = psql(admin_url(), f"select coalesce(shobj_description(oid, 'pg_database'), '') = '{OWNED}' "
                              f"from pg_database where datname = '{DATABASE}'")
    return None if owned == "" else owned == "t"


def marker(url):
    """(seeded events, from_date, to_date, events now) of a finished seed whose events are all still there, or
    None."""
    if psql(url, "select to_regclass('bench.seed') is not null") != "t":
        return None
    row = psql(url, "select events, from_date, to_date, (select count(*) from cardinal.events) from bench.seed "
                    "where finished_at is not null")
    if not row:
        return None
    events, from_date, to_date, now = row.split("|")
    return (int(events), from_date, to_date, int(now)) if int(now) >= int(events) else None


def preload(bin_dir, url):
    """The database to soak, its report state built and folded: reused when it holds the requested events, seeded
    otherwise. Returns what the summary's JSON says about it."""
    owned = database_state()
    found = marker(url) if owned is not None else None
    if found and not RESEED and (found[0] == PRELOAD or (not owned and found[0] >= PRELOAD)):
        sh(f"{bin_dir}/cardinal", "migrate", "--database-url", url)
        if not owned and found[3] == found[0]:
            log(f"{DATABASE} holds just its seed's events, as reports.py reuses a database: this soak adds events "
                f"to it, so reports.py will seed it again")
        log(f"reusing {DATABASE}: {found[3]:,} events ({found[0]:,} seeded, report days {found[1]} to {found[2]}; "
            f"SOAK_RESEED=1 seeds again)")
        info = {"reused": True, "seed_seconds": None, "seeded_events": found[0], "events": found[3],
                "from_date": found[1]}
    else:
        if owned is False and not RESEED:
            holds = f"a finished seed of {found[0]:,} events" if found else "no finished seed with all its events"
            sys.exit(f"soak: {DATABASE} was not made by the soak and holds {holds}, not the {PRELOAD:,} asked for: "
                     f"it is left alone (SOAK_RESEED=1 drops it and seeds it again; SOAK_PRELOAD_EVENTS at most its "
                     f"seed's events soaks it as it is)")
        yesterday = datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=1)
        from_date, to_date = (yesterday - datetime.timedelta(days=29)).isoformat(), yesterday.isoformat()
        log(f"seeding {DATABASE} with {PRELOAD:,} events, report days {from_date} to {to_date}")
        psql(admin_url(), f"drop database if exists {DATABASE} with (force)")
        psql(admin_url(), f"create database {DATABASE}")
        psql(admin_url(), f"comment on database {DATABASE} is '{OWNED}'")
        sh(f"{bin_dir}/cardinal", "migrate", "--database-url", url)
        started = time.monotonic()
        sh("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", f"events={PRELOAD}", "-v", f"from_date={from_date}",
           "-v", f"to_date={to_date}", "-f", "scripts/bench/seed_reports.sql", url)
        seconds = time.monotonic() - started
        log(f"seeded in {seconds:.0f} s")
        info = {"reused": False, "seed_seconds": seconds, "seeded_events": PRELOAD, "events": PRELOAD,
                "from_date": from_date}
    info["rebuild_seconds"] = info["fold_seconds"] = None
    if psql(url, "select not exists (select from cardinal.report_user_state)") == "t":
        log("building the report state: cardinal state rebuild")
        started = time.monotonic()
        sh(f"{bin_dir}/cardinal", "state", "rebuild", "--database-url", url, "--app", APP)
        psql(url, "vacuum (analyze) cardinal.report_groups, cardinal.report_user_state, cardinal.report_daily_counts, "
                  "cardinal.report_session_state, cardinal.report_conversion_state, cardinal.report_fold_queue, "
                  "cardinal.report_rows, cardinal.report_row_user_days, cardinal.report_row_day_users")
        info["rebuild_seconds"] = time.monotonic() - started
        log(f"report state built in {info['rebuild_seconds']:.0f} s")
    backlog = backlog_now(url)[0]
    if backlog:
        log(f"folding the {backlog:,} events an earlier run left: cardinal state fold")
        started = time.monotonic()
        sh(f"{bin_dir}/cardinal", "state", "fold", "--database-url", url)
        info["fold_seconds"] = time.monotonic() - started
        log(f"folded in {info['fold_seconds']:.0f} s")
    return info


def backlog_now(url):
    """(events stored and not folded, seconds since the oldest of them was received)."""
    events, lag = psql(url, "select events, coalesce(extract(epoch from clock_timestamp() - oldest_received_at), 0) "
                            "from cardinal.report_state_backlog()").split("|")
    return int(events), float(lag)


def largest_campaign(url):
    # As reports.py picks it.
    return psql(url, f"select campaign_id from cardinal.events where campaign_id is not null "
                     f"and app_id = (select app_id from cardinal.apps where name = '{APP}') "
                     f"group by campaign_id order by count(*) desc, campaign_id limit 1")


# ---------------------------------------------------------------------------------------------------------------
# The traffic: exposures of seed_reports.sql's shape, now

MASK = 0xFFFFFFFF


def _rotate(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK


def hashint8(value):
    """PostgreSQL's hashint8() (Jenkins' hash_uint32 of the two halves folded), as the seed draws its arms with it.
    Checked against the server before the load starts."""
    low, high = value & MASK, (value >> 32) & MASK
    low ^= high if value >= 0 else (~high & MASK)
    a = b = c = (0x9E3779B9 + 4 + 3923095) & MASK
    a = (a + low) & MASK
    c ^= b; c = (c - _rotate(b, 14)) & MASK
    a ^= c; a = (a - _rotate(c, 11)) & MASK
    b ^= a; b = (b - _rotate(a, 25)) & MASK
    c ^= b; c = (c - _rotate(b, 16)) & MASK
    a ^= c; a = (a - _rotate(c, 4)) & MASK
    b ^= a; b = (b - _rotate(a, 14)) & MASK
    c ^= b; c = (c - _rotate(b, 24)) & MASK
    return c


class Campaign:
    """bench.campaigns of seed_reports.sql."""

    def __init__(self, n):
        self.n = n
        self.id = f"c{n:02d}"
        self.channel = ("content_card", "in_app_message", "banner", "push", "feature_flag")[n % 5]
        self.variants = 1 + (n * 3) % 7
        self.has_control = n % 3 != 0
        self.conversion = ("purchase", "signup", "subscribe", "add_to_cart")[n % 4]
        self.weight = 0.5 + ((n * 37) % 21) / 10.0
        self.base_conversion = 0.02 + (n % 7) * 0.01
        self.click_rate = 0.05 + (n % 5) * 0.02
        self.control_share = 1 / (1 + 2 * self.variants) if self.has_control else 0.0
        self.arms = self.variants + int(self.has_control)


CAMPAIGNS = [Campaign(n) for n in range(1, 51)]
CUMULATIVE_WEIGHTS = list(itertools.accumulate(c.weight for c in CAMPAIGNS))


def check_shape(url):
    """Stops when the database's campaigns or its hashint8 are not what the traffic assumes."""
    settings = psql(url, "select string_agg(s.campaign_id || '=' || coalesce(s.conversion_event, ''), ',' "
                         "order by s.campaign_id) from cardinal.campaign_settings as s "
                         f"join cardinal.apps as a using (app_id) where a.name = '{APP}'")
    expected = ",".join(f"{c.id}={c.conversion}" for c in CAMPAIGNS)
    if settings != expected:
        sys.exit(f"soak: the campaigns of app {APP} are not those of seed_reports.sql:\n{settings}")
    values = [0, 1, 63, 64 * 999_999 + 50, 64 * 123_457 + 17, 2**33 + 5, -7]
    server = psql(url, "select string_agg((hashint8(v) & 2147483647)::text, ',' order by o) "
                       f"from unnest(array{values}::bigint[]) with ordinality as t(v, o)")
    if server != ",".join(str(hashint8(v) & 0x7FFFFFFF) for v in values):
        sys.exit("soak: hashint8 of this server differs from the script's; the arms would not match the seed's")


class Traffic:
    """Events of exposures, as the seed makes them but now: a send, then (but for push) impressions in one to three
    sessions (a control impression in the control arm), maybe a click, a dismissal, a conversion; and conversions
    unrelated to any message. Not thread-safe: the pacer alone calls it."""

    def __init__(self, run):
        self.run = run
        self.random = random.Random(run)
        self.exposures = 0
        self.recent = []  # events sent, for the duplicates
        self.pending = []  # the rest of an exposure cut by the end of a batch

    def person(self, existing):
        r = self.random.random
        if existing:
            number = int(1_000_000 * r() ** 1.5)
            user, device = f"u{number}", f"d{number}"
            arm_key = number
        else:
            number = self.random.randrange(NEW_USERS)
            user, device = f"n{self.run}-{number}", f"nd{self.run}-{number}"
            arm_key = 1_000_000 + number
        anonymous = number % 5 == 0
        second = not anonymous and number % 10 == 1 and r() < 0.4
        position = (number * 7 + second * 3) % 20
        platform = "ios" if position < 9 else "android" if position < 18 else "web"
        build = (number // 20 + second) % 10
        sdk = {"ios": ("5.9.3", "6.2.0", "6.1.0"), "android": ("29.0.1", "30.2.0", "30.1.0"),
               "web": ("5.3.1", "5.4.0", "5.3.0")}[platform][0 if build == 0 else 1 if build <= 5 else 2]
        return {"number": number, "arm_key": arm_key, "second": second,
                "user_id": None if anonymous else user, "device_id": device + ("b" if second else ""),
                "platform": platform, "sdk_version": sdk, "app_version": f"3.{1 + (number // 7) % 4}",
                "os_version": {"ios": f"17.{number % 6}", "android": str(11 + number % 4), "web": "web"}[platform]}

    @staticmethod
    def arm(person, c):
        draw = (hashint8(person["arm_key"] * 64 + c.n) & 0x7FFFFFFF) / 2147483648.0
        if c.has_control and draw < c.control_share:
            arm = 0
        else:
            arm = int(c.has_control) + min(c.variants - 1,
                                           math.floor((draw - c.control_share) / (1 - c.control_share) * c.variants))
        shift = int(person["second"] and (person["number"] + c.n) % 20 == 0)
        return (arm + shift) % c.arms

    def exposure(self, now_ms):
        """The events of one message to one person, as JSON texts."""
        r = self.random.random
        self.exposures += 1
        p = self.person(r() < EXISTING_SHARE)
        c = self.random.choices(CAMPAIGNS, cum_weights=CUMULATIVE_WEIGHTS)[0]
        arm = self.arm(p, c)
        control = c.has_control and arm == 0
        variant_number = arm + 1 - int(c.has_control)
        variant = None if control or c.variants == 1 else f"v{variant_number}"
        if c.channel == "push":
            sessions = 0
        elif control:
            sessions = 0 if p["sdk_version"] == "29.0.1" else 1
        elif r() < 0.2:
            sessions = 0
        else:
            draw = r()
            sessions = 1 + (draw < 0.3) + (draw < 0.1)
        if control:
            per_session = 1
        elif p["sdk_version"] == "5.9.3":
            per_session = 3 + int(r() * 4)
        elif p["sdk_version"] == "5.3.1" and c.channel == "content_card":
            per_session = 0
        elif c.channel in ("content_card", "in_app_message") and r() < 0.08:
            per_session = 2
        else:
            per_session = 1
        seen = c.channel == "push" or sessions > 0
        clicked = not control and seen and r() < c.click_rate * (1 + 0.1 * (variant_number - 1))
        dismissed = (not control and sessions > 0 and c.channel in ("content_card", "in_app_message", "banner")
                     and r() < 0.25)
        convert_draw = r()
        converted = seen and convert_draw < c.base_conversion * (1 if control else 1 + 0.08 * variant_number)
        test = r() < 0.002
        late = r() < LATE_SHARE
        t0 = now_ms - int((3_600_000 + r() * 47 * 3_600_000) if late else r() * 120_000)
        seen_at = t0 + int(1000 + 29_000 * r())
        gap = int(60_000 + 120_000 * r())
        exposure_id = f"{self.run}x{self.exposures}"
        common = {"user_id": p["user_id"], "device_id": p["device_id"], "platform": p["platform"],
                  "sdk_version": p["sdk_version"], "app_version": p["app_version"], "os_version": p["os_version"]}
        if test:
            common["test"] = True
        message = {"campaign_id": c.id, "channel": c.channel, "variant_id": variant,
                   "message_id": f"m{exposure_id}" if c.channel == "content_card"
                   else f"{c.id}-{variant or 'default'}"}
        if c.channel == "banner":
            message["placement_id"] = "home_top"
        events = [dict(common, **message, type="send", time=t0, control=control)]
        for session in range(1, sessions + 1):
            for i in range(per_session):
                events.append(dict(common, **message, type="impression", control=control,
                                   time=seen_at + (session - 1) * gap + i * 40_000,
                                   session_id=f"s{exposure_id}-{session}"))
        if clicked:
            click = dict(common, **message, type="click", session_id=f"s{exposure_id}-1" if sessions else None,
                         time=t0 + int(120_000 * r()) if c.channel == "push" else seen_at + 20_000 + int(60_000 * r()))
            if c.channel == "in_app_message":
                click["button_id"] = "0"
            events.append(click)
        if dismissed:
            events.append(dict(common, **message, type="dismissal", session_id=f"s{exposure_id}-{sessions}",
                               time=seen_at + (sessions - 1) * gap + 60_000))
        if converted:
            events.append(dict(common, type="conversion", name=c.conversion, currency="USD",
                               value=round(5 + 95 * convert_draw / c.base_conversion, 2),
                               time=(t0 if c.channel == "push" else seen_at) + int(300_000 * r())))
        if r() < 0.045:  # about 2 % of the events: conversions of someone else, unrelated to any message
            other = self.person(True)
            events.append({"user_id": other["user_id"], "device_id": other["device_id"],
                           "platform": other["platform"], "app_version": other["app_version"],
                           "type": "conversion", "time": now_ms - int(60_000 * r()), "currency": "USD",
                           "name": ("purchase", "signup", "subscribe", "add_to_cart", "app_rating")[int(r() * 5)],
                           "value": round(1 + 99 * r(), 2)})
        texts = []
        for event in events:
            event["id"] = str(uuid.UUID(int=self.random.getrandbits(128), version=4))
            texts.append(json.dumps({k: v for k, v in event.items() if v is not None and v is not False},
                                    separators=(",", ":")))
        return texts

    def batch(self, size):
        """size events: new ones (an exposure cut by the end of a batch goes on in the next), but for about
        DUPLICATE_SHARE of them, which are events sent before, sent again."""
        now_ms = int(time.time() * 1000)
        texts, self.pending = self.pending[:size], self.pending[size:]
        while len(texts) < size:
            if self.recent and self.random.random() < DUPLICATE_SHARE:
                texts.append(self.random.choice(self.recent))
            else:
                texts.extend(self.exposure(now_ms))
        texts, self.pending = texts[:size], texts[size:] + self.pending
        self.recent = (self.recent + texts)[-2000:]
        return '{"events":[' + ",".join(texts) + "]}"


# ---------------------------------------------------------------------------------------------------------------
# The load

class Load:
    """SOAK_RATE events per second offered in requests of SOAK_BATCH, on a fixed schedule (open loop)."""

    def __init__(self, port, key, traffic, duration):
        self.port, self.key, self.traffic, self.duration = port, key, traffic, duration
        self.ended = None
        self.requests = queue.Queue()
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.total = self._counters()
        self.interval = self._counters()
        self.latencies, self.interval_latencies = [], []
        self.errors = {}
        self.threads = [threading.Thread(target=self._pace, daemon=True)]
        self.threads += [threading.Thread(target=self._post, daemon=True) for _ in range(CONNECTIONS)]

    @staticmethod
    def _counters():
        return {"offered": 0, "not_sent": 0, "sent": 0, "accepted": 0, "duplicates": 0, "rejected": 0,
                "200": 0, "429": 0, "503": 0, "other_status": 0, "failed": 0}

    def _count(self, **figures):
        with self.lock:
            for name, value in figures.items():
                self.total[name] += value
                self.interval[name] += value

    def start(self):
        self.started = time.monotonic()
        for thread in self.threads:
            thread.start()

    def stop(self):
        """Ends the load: the requests still waiting for a connection are not sent, those on their way are
        answered."""
        self.stopping.set()
        self.threads[0].join()
        self.ended = self.ended or time.monotonic()
        while True:
            try:
                self.requests.get_nowait()
            except queue.Empty:
                break
            self._count(not_sent=BATCH)
        for _ in range(CONNECTIONS):
            self.requests.put(None)
        for thread in self.threads:
            thread.join(timeout=70)

    def _pace(self):
        period = BATCH / RATE
        most_waiting = max(CONNECTIONS, int(QUEUE_SECONDS / period))
        n = 0
        while True:
            due = self.started + n * period
            if due >= self.started + self.duration:
                self.ended = self.started + self.duration
                return
            if self.stopping.wait(max(0.0, due - time.monotonic())):
                return
            n += 1
            if self.requests.qsize() > most_waiting:
                self._count(offered=BATCH, not_sent=BATCH)
                continue
            self._count(offered=BATCH)
            self.requests.put((due, self.traffic.batch(BATCH)))

    def _post(self):
        connection = None
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.key}"}
        while True:
            item = self.requests.get()
            if item is None:
                if connection:
                    connection.close()
                return
            due, body = item
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                connection.request("POST", "/v1/events", body.encode(), headers)
                answer = connection.getresponse()
                text = answer.read()
                latency = time.monotonic() - due
            except (OSError, http.client.HTTPException) as error:
                if connection:
                    connection.close()
                connection = None
                self._count(sent=BATCH, failed=1)
                with self.lock:
                    self.errors[type(error).__name__] = self.errors.get(type(error).__name__, 0) + 1
                continue
            status = str(answer.status) if answer.status in (200, 429, 503) else "other_status"
            figures = {"sent": BATCH, status: 1}
            if answer.status == 200:
                result = json.loads(text)
                figures.update(accepted=result["accepted"], duplicates=result["duplicates"],
                               rejected=result["rejected"])
                for error in result.get("errors", [])[:3]:
                    with self.lock:
                        self.errors[error["code"]] = self.errors.get(error["code"], 0) + 1
            elif answer.status != 429:
                with self.lock:
                    self.errors[f"HTTP {answer.status}"] = self.errors.get(f"HTTP {answer.status}", 0) + 1
            self._count(**figures)
            if answer.status == 200:
                with self.lock:
                    self.latencies.append(latency)
                    self.interval_latencies.append(latency)

    def take_interval(self):
        """The counters and ack latencies since the last call."""
        with self.lock:
            counters, latencies = self.interval, self.interval_latencies
            self.interval, self.interval_latencies = self._counters(), []
        return counters, latencies


# ---------------------------------------------------------------------------------------------------------------
# Sampling and the verdict

def percentile(values, p):
    """Nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


SCOPES = (("one campaign", True), ("whole app", False))
FIGURES = [(report, scope, one) for report in REPORTS for scope, one in SCOPES]


class Reports(threading.Thread):
    """The reports as a user runs them, one after another, in rounds of the six: a round starts at a sample's time
    once the round before has ended, so that rounds slower than the interval thin out rather than pile up. Each
    command gets SOAK_REPORT_TIMEOUT: its statements are cancelled by the server past it (statement_timeout, so that
    nothing keeps running after the command is given up), and it counts as taking that long."""

    def __init__(self, bin_dir, url, campaign, from_date, started, duration):
        super().__init__(daemon=True)
        self.bin_dir, self.campaign, self.from_date = bin_dir, campaign, from_date
        self.url = url + ("&" if "?" in url else "?") + f"options=-c%20statement_timeout%3D{int(REPORT_TIMEOUT * 1000)}"
        self.started, self.duration = started, duration
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.results, self.unread = [], []
        self.failure = None

    def command(self, report, one):
        today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        return ([f"{self.bin_dir}/cardinal", "report", report, "--database-url", self.url, "--app", APP,
                 "--from", self.from_date, "--to", today, "--format", "json"]
                + (["--campaign", self.campaign] if one else []))

    def run(self):
        tick = 1
        while True:
            if self.stopping.wait(max(0.0, self.started + tick * SAMPLE_SECONDS - time.monotonic())):
                return
            for report, scope, one in FIGURES:
                offset = time.monotonic() - self.started
                if self.stopping.is_set() or offset >= self.duration:
                    return
                try:
                    result = subprocess.run(self.command(report, one), cwd=REPO, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE, text=True, timeout=REPORT_TIMEOUT + 30)
                    timed_out = result.returncode != 0 and "57014" in result.stderr  # query_canceled
                    if result.returncode != 0 and not timed_out:
                        self.failure = f"{' '.join(self.command(report, one))} failed:\n{result.stderr}"
                        return
                except subprocess.TimeoutExpired:
                    timed_out = True
                seconds = time.monotonic() - self.started - offset
                measured = {"report": report, "scope": scope, "t": offset, "seconds": seconds,
                            "timed_out": timed_out}
                with self.lock:
                    self.results.append(measured)
                    self.unread.append(measured)
            tick = max(tick + 1, math.floor((time.monotonic() - self.started) / SAMPLE_SECONDS) + 1)

    def take_unread(self):
        """{(report, scope): seconds} of the last time each finished since the last call."""
        with self.lock:
            unread, self.unread = self.unread, []
        return {(m["report"], m["scope"]): m["seconds"] for m in unread}

    def stop(self):
        """No new command; the one running finishes (within its timeout) and counts."""
        self.stopping.set()
        self.join()


def header_line():
    cells = [f"{'t (s)':>6}", f"{'offered/s':>9}", f"{'200 ev/s':>9}", f"{'429':>4}", f"{'ack p99':>8}",
             f"{'backlog':>10}", f"{'= s':>6}", f"{'lag s':>6}"]
    cells += [f"{SHORT[r] + (' 1c ms' if one else ' app s'):>{11 if one else 10}}" for r, _, one in FIGURES]
    return " ".join(cells)


def row_line(row):
    seconds = row["interval_s"]
    cells = [f"{row['t']:>6.0f}", f"{row['offered'] / seconds:>9,.0f}",
             f"{(row['accepted'] + row['duplicates']) / seconds:>9,.0f}", f"{row['429']:>4}",
             f"{row['ack_p99_ms']:>6.0f}ms", f"{row['backlog']:>10,}", f"{row['backlog'] / RATE:>6.1f}",
             f"{row['lag_s']:>6.1f}"]
    for report, scope, one in FIGURES:
        value = row["reports"].get(f"{report}/{scope}")
        text = "·" if value is None else f"{value * 1000:.0f}" if one else f"{value:.2f}"
        cells.append(f"{text:>{11 if one else 10}}")
    return " ".join(cells)


def third_of(t, duration):
    return min(2, max(0, int(3 * t / duration)))


def thirds(samples, duration):
    """The backlog samples of the soak's first, middle and last third, each by the middle of the interval it
    ends."""
    parts = ([], [], [])
    for s in samples:
        parts[third_of(s["t"] - s["interval_s"] / 2, duration)].append(s)
    return parts


def report_thirds(results, report, scope, duration):
    """The times of one report and scope in each third of the soak, by the time each started."""
    parts = ([], [], [])
    for m in results:
        if m["report"] == report and m["scope"] == scope:
            parts[third_of(m["t"], duration)].append(m["seconds"])
    return parts


def verdict(samples, results, load_totals, load_seconds, duration):
    """The goals, each as (name, figures text, met)."""
    first, _, last = thirds(samples, duration)
    goals = []
    floor = RATE * seconds_of(FOLD_INTERVAL)
    first_max = max((s["backlog"] for s in first), default=0)
    last_max = max((s["backlog"] for s in last), default=0)
    reference = max(first_max, floor)
    goals.append(("backlog bounded",
                  f"last third's max {last_max:,} ≤ {BACKLOG_GROWTH:g} × {reference:,.0f} (first third's max "
                  f"{first_max:,}, at least one fold interval of traffic, {floor:,.0f})",
                  bool(first and last) and last_max <= BACKLOG_GROWTH * reference))
    goals.append(("backlog under 30 s of traffic",
                  f"last third's max {last_max:,} events / {RATE:,.0f} events/s = {last_max / RATE:.1f} s "
                  f"< {BACKLOG_GOAL_S:g} s",
                  bool(last) and last_max / RATE < BACKLOG_GOAL_S))
    for report, scope, one in FIGURES:
        goal = ONE_CAMPAIGN_GOAL_S if one else WHOLE_APP_GOAL_S
        by_third = [percentile(part, PERCENTILE) for part in report_thirds(results, report, scope, duration)]
        shown = ", ".join("—" if p is None else f"{p:.3f}" for p in by_third)
        goals.append((f"{report}, {scope}: p{PERCENTILE} < {goal:g} s in each third", f"{shown} s",
                      all(p is not None and p < goal for p in by_third)))
    accepted = (load_totals["accepted"] + load_totals["duplicates"]) / load_seconds
    goals.append(("load delivered",
                  f"{accepted:,.0f} events/s answered 200 ≥ {ACCEPTED_SHARE:.0%} of {RATE:,.0f} offered "
                  f"({accepted / RATE:.1%})", accepted >= ACCEPTED_SHARE * RATE))
    return goals


def summary_table(results, duration):
    rows = []
    for report, scope, one in FIGURES:
        values = [m["seconds"] for m in results if m["report"] == report and m["scope"] == scope]
        rows.append({"report": report, "scope": scope, "goal_s": ONE_CAMPAIGN_GOAL_S if one else WHOLE_APP_GOAL_S,
                     "runs": len(values),
                     "timed_out": sum(1 for m in results if m["report"] == report and m["scope"] == scope
                                      and m["timed_out"]),
                     "p50_s": percentile(values, 50), "p95_s": percentile(values, PERCENTILE),
                     "max_s": max(values, default=None),
                     "p95_by_third_s": [percentile(part, PERCENTILE)
                                        for part in report_thirds(results, report, scope, duration)]})
    return rows


def start_daemon(bin_dir, url, spool_dir, log_path):
    port = free_port()
    log_file = open(log_path, "w")
    daemon = subprocess.Popen(
        [f"{bin_dir}/cardinald", "--listen", f"127.0.0.1:{port}", "--database-url", url, "--log-level", "warning",
         "--fold-interval", FOLD_INTERVAL, "--spool-dir", spool_dir],
        cwd=REPO, stderr=log_file)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return daemon, port
        except OSError:
            if daemon.poll() is not None:
                break
            time.sleep(0.05)
    sys.exit(f"soak: cardinald did not start listening (its log: {log_path})")


def main():
    if min(RATE, MINUTES, SAMPLE_SECONDS, BATCH, CONNECTIONS, REPORT_TIMEOUT) <= 0:
        sys.exit("soak: SOAK_RATE, SOAK_MINUTES, SOAK_SAMPLE_SECONDS, SOAK_BATCH, SOAK_CONNECTIONS and "
                 "SOAK_REPORT_TIMEOUT must be positive")
    bin_dir = sh("swift", "build", "-c", "release", "--show-bin-path")
    url = database_url(DATABASE)
    if "SOAK_DATABASE" not in os.environ and psql(admin_url(), "select count(*) from pg_database "
                                                               f"where datname = '{BENCH_50M}'") == "1":
        log(f"the 50 M bench database is here too: SOAK_DATABASE={BENCH_50M} soaks it (reports.py then seeds it "
            f"again, as the soak adds events)")
    database = preload(bin_dir, url)
    check_shape(url)
    campaign = largest_campaign(url)
    # Twice the offered rate, and never below the daemon's defaults: the default limit (10,000 events/s) is the
    # default rate, and a limit met exactly throttles the bursts of a steady load.
    events_limit = max(DEFAULT_EVENTS_LIMIT, math.ceil(2 * RATE))
    requests_limit = max(DEFAULT_REQUESTS_LIMIT, math.ceil(2 * RATE / BATCH))
    sh(f"{bin_dir}/cardinal", "apps", "limits", APP, "--database-url", url,
       "--events-per-second", str(events_limit), "--requests-per-second", str(requests_limit))
    started_at = datetime.datetime.now(datetime.timezone.utc)
    key = sh(f"{bin_dir}/cardinal", "keys", "create", "--app", APP, "--database-url", url,
             "--description", f"make soak {started_at:%Y-%m-%dT%H:%M:%SZ}")
    events_before = int(psql(url, "select count(*) from cardinal.events"))
    log(f"app limits set to {events_limit:,} events/s and {requests_limit:,} requests/s")
    work_dir = tempfile.mkdtemp(prefix="cardinal-soak-")
    log_path = os.path.join(REPO, ".build", "soak-cardinald.log")
    daemon, port = start_daemon(bin_dir, url, os.path.join(work_dir, "spool"), log_path)
    duration = MINUTES * 60
    load = Load(port, key, Traffic(random.randrange(16**6)), duration)
    samples = []
    print(f"\nCardinal soak: {RATE:,.0f} events/s offered for {MINUTES:g} min in requests of {BATCH}, "
          f"{CONNECTIONS} connections; {DATABASE}, {events_before:,} events; fold every {FOLD_INTERVAL}; a sample "
          f"every {SAMPLE_SECONDS:g} s; reports from {database['from_date']} to today, one campaign = {campaign}; "
          f"report times of the last run that ended in the interval (·: none ended)\n", flush=True)
    print(header_line(), flush=True)
    cpu_before = os.times()
    failure = None
    try:
        load.start()
        reports = Reports(bin_dir, url, campaign, database["from_date"], load.started, duration)
        reports.start()
        previous = 0.0
        tick = 1
        while True:
            time.sleep(max(0.0, load.started + min(tick * SAMPLE_SECONDS, duration) - time.monotonic()))
            offset = time.monotonic() - load.started
            counters, latencies = load.take_interval()
            events, lag = backlog_now(url)
            row = dict(counters, t=offset, interval_s=max(offset - previous, 1e-9), backlog=events, lag_s=lag,
                       ack_p99_ms=(percentile(latencies, 99) or 0) * 1000,
                       reports={f"{r}/{s}": v for (r, s), v in reports.take_unread().items()})
            previous = offset
            samples.append(row)
            print(row_line(row), flush=True)
            if reports.failure:
                failure = reports.failure
            elif daemon.poll() is not None:
                failure = f"cardinald exited with status {daemon.returncode} (its log: {log_path})"
            if failure or time.monotonic() - load.started >= duration:
                break
            tick = max(tick + 1, math.floor((time.monotonic() - load.started) / SAMPLE_SECONDS) + 1)
    finally:
        load.stop()
        if "reports" in locals():
            reports.stop()
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(work_dir, ignore_errors=True)
    cpu_after = os.times()
    load_seconds = load.ended - load.started
    generator_cpu = (cpu_after.user - cpu_before.user + cpu_after.system - cpu_before.system) / load_seconds
    if failure:
        sys.exit(f"soak: {failure}")
    left, left_lag = backlog_now(url)
    stored = int(psql(url, "select count(*) from cardinal.events")) - events_before
    finish(database, campaign, events_before, samples, reports.results, load, load_seconds, duration, generator_cpu,
           left, left_lag, stored, started_at, url)


def finish(database, campaign, events_before, samples, results, load, load_seconds, duration, generator_cpu, left,
           left_lag, stored, started_at, url):
    totals = load.total
    latencies = load.latencies
    goals = verdict(samples, results, totals, load_seconds, duration)
    table = summary_table(results, duration)
    first, _, last = thirds(samples, duration)
    print(f"\nCardinal soak summary: {load_seconds:.0f} s of load, {len(samples)} backlog samples, "
          f"{len(results)} report runs; report wall time in seconds (the release CLI), percentiles by nearest rank; "
          f"cut: runs cancelled at SOAK_REPORT_TIMEOUT ({REPORT_TIMEOUT:g} s), counted with the time they took\n")
    print(f"{'report':<19} {'scope':<13} {'runs':>4} {'cut':>4} {'p50':>7} {'p95':>7} {'max':>7}   "
          f"{'p95 by third (—: none)':<23} {'goal':>6}")

    def cell(value):
        return "—" if value is None else f"{value:.3f}"

    for r in table:
        by_third = " ".join(cell(p) for p in r["p95_by_third_s"])
        print(f"{r['report']:<19} {r['scope']:<13} {r['runs']:>4} {r['timed_out']:>4} {cell(r['p50_s']):>7} "
              f"{cell(r['p95_s']):>7} "
              f"{cell(r['max_s']):>7}   {by_third:<23} {'< ' + format(r['goal_s'], 'g'):>6}")
    first_max = max((s["backlog"] for s in first), default=0)
    last_max = max((s["backlog"] for s in last), default=0)
    lag_max = max((s["lag_s"] for s in samples), default=0)
    print(f"\nbacklog (events stored, not folded): first third's max {first_max:,} ({first_max / RATE:.1f} s of "
          f"traffic), last third's max {last_max:,} ({last_max / RATE:.1f} s); lag at most {lag_max:.1f} s; "
          f"{left:,} events left unfolded at the end (lag {left_lag:.1f} s)")
    offered = totals["offered"] / load_seconds
    answered = (totals["accepted"] + totals["duplicates"]) / load_seconds
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    print(f"load: {offered:,.0f} events/s offered, {answered:,.0f} answered 200 ({totals['accepted']:,} accepted, "
          f"{totals['duplicates']:,} duplicates, {totals['rejected']:,} rejected); {stored:,} events stored; requests "
          f"{totals['200']:,} × 200, {totals['429']:,} × 429, {totals['503']:,} × 503, {totals['other_status']:,} "
          f"other, {totals['failed']:,} failed; {totals['not_sent']:,} events not sent (no free connection); ack "
          f"p50 {1000 * (p50 or 0):.0f} ms, p99 {1000 * (p99 or 0):.0f} ms; the load generator used "
          f"{100 * generator_cpu:.0f} % of a core")
    if load.errors:
        print("errors: " + ", ".join(f"{name} × {count}" for name, count in sorted(load.errors.items())))
    print("\ngoals:")
    for name, figures, met in goals:
        print(f"  {'✔' if met else '✘'} {name}: {figures}")
    passed = all(met for _, _, met in goals)
    print(f"\nverdict: {'PASS' if passed else 'FAIL'}")
    os.makedirs(os.path.join(REPO, "bench-results"), exist_ok=True)
    path = os.path.join(REPO, "bench-results", time.strftime("soak-%Y%m%dT%H%M%S.json"))
    with open(path, "w") as out:
        json.dump({"started_at": started_at.isoformat(), "database": DATABASE, "preload": database,
                   "events_before": events_before, "campaign": campaign, "rate": RATE, "minutes": MINUTES,
                   "sample_seconds": SAMPLE_SECONDS, "batch": BATCH, "connections": CONNECTIONS,
                   "fold_interval": FOLD_INTERVAL, "report_timeout": REPORT_TIMEOUT, "load_seconds": load_seconds,
                   "load": totals, "errors": load.errors, "ack_p50_s": p50, "ack_p99_s": p99,
                   "generator_cpu": generator_cpu, "stored": stored, "backlog_left": left, "reports": table,
                   "goals": [{"goal": n, "figures": f, "met": m} for n, f, m in goals], "passed": passed,
                   "samples": samples, "report_runs": results}, out, indent=2)
    psql(url, "create table if not exists bench.soak_runs (started_at timestamptz primary key, rate numeric, "
              "minutes numeric, events_before bigint, stored bigint, backlog_left bigint, passed boolean)")
    psql(url, f"insert into bench.soak_runs values ('{started_at.isoformat()}', {RATE}, {MINUTES}, {events_before}, "
              f"{stored}, {left}, {passed})")
    print(f"\nfigures written to {path}")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
