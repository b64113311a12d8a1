# Cardinal — build, test and run against a private PostgreSQL cluster in .data/ (see scripts/db.sh).
# Every target is idempotent and works from a fresh clone, as root or as a normal user.

SWIFT        ?= swift
SWIFT_FLAGS  ?= -Xswiftc -warnings-as-errors
# The release binaries carry the Swift runtime and Foundation inside them: a host that runs them needs only the
# Debian libraries they link (libpq5, libmicrohttpd12, zlib1g, libstdc++6), not a Swift toolchain.
RELEASE_FLAGS ?= $(SWIFT_FLAGS) --static-swift-stdlib
CONFIG       ?= debug
DB_URL       := $(shell scripts/db.sh url)
ADMIN_DB_URL := $(shell scripts/db.sh admin-url)
BIN_DIR       = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path)
RELEASE_BIN_DIR = $(shell $(SWIFT) build -c release --show-bin-path)

# `make install`: where it goes (see scripts/install.sh). DESTDIR stages it for packaging; BINDIR, DATADIR,
# UNITDIR and SYSCONFDIR default to $(PREFIX)/bin, $(PREFIX)/share, $(PREFIX)/lib/systemd/system and /etc.
PREFIX       ?= /usr/local
DESTDIR      ?=

.PHONY: all deps db db-stop build release install migrate test gbstats experiment-simulation property run bench fold-profile soak faults ha ha-smoke flaky fuzz schemathesis clean

all: build

deps:
	@scripts/deps.sh

db: deps
	@scripts/db.sh start

db-stop:
	@scripts/db.sh stop

build: deps
	$(SWIFT) build -c $(CONFIG) $(SWIFT_FLAGS)

release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS)

# Installs the release binaries, migrations, systemd units and example configuration (README, Operations).
install: release
	@BIN_DIR="$(RELEASE_BIN_DIR)" PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BINDIR="$(BINDIR)" DATADIR="$(DATADIR)" \
		UNITDIR="$(UNITDIR)" SYSCONFDIR="$(SYSCONFDIR)" scripts/install.sh

migrate: build db
	@"$(BIN_DIR)/cardinal" migrate --database-url "$(DB_URL)"

# Unit, integration and end-to-end tests. Integration and end-to-end tests read the private cluster's
# address from CARDINAL_TEST_DATABASE_URL and the built binaries from CARDINAL_BIN_DIR; the comparison with
# GrowthBook's engine reads CARDINAL_GBSTATS_PYTHON, the virtualenv scripts/gbstats/install.sh keeps in
# .build/gbstats (gbstats from PyPI, installed on first use). Then, as root, the smoke of
# `make ha` (ha-smoke below); a normal user's run says it left it out, and TEST_HA_SMOKE=0 leaves it out too.
TEST_HA_SMOKE ?= 1
test: build db gbstats
	CARDINAL_TEST_DATABASE_URL="$(ADMIN_DB_URL)" CARDINAL_BIN_DIR="$(BIN_DIR)" \
		CARDINAL_GBSTATS_PYTHON="$$(scripts/gbstats/install.sh)" \
		$(SWIFT) test -c $(CONFIG) $(SWIFT_FLAGS)
	@if [ "$(TEST_HA_SMOKE)" != 1 ]; then echo "test: ha-smoke left out (TEST_HA_SMOKE=$(TEST_HA_SMOKE))" >&2; \
	elif [ "$$(id -u)" -ne 0 ]; then echo "test: ha-smoke left out: it needs root (sudo make ha-smoke)" >&2; \
	else $(HA_SMOKE_RUN); fi

# GrowthBook's stats engine for the comparison tests, in .build/gbstats/venv (installed on first use).
gbstats: deps
	@scripts/gbstats/install.sh >/dev/null

# A/A experiments read daily for SIMULATION_DAYS (30), SIMULATION_EXPERIMENTS (2000) of them with
# SIMULATION_DAILY_USERS (200) per arm and day at SIMULATION_RATE (0.1): the share ever called significant by the
# fixed-horizon and the always-valid numbers, then the intervals' coverage and the share detected under a true
# lift of SIMULATION_LIFT (0.1). Not part of `make test` (about a minute); fails when the always-valid share of
# false positives is above 5 % (docs/experiment-statistics.md).
experiment-simulation: deps
	$(SWIFT) build -c $(CONFIG) $(SWIFT_FLAGS) --product experiment-simulation
	@"$(BIN_DIR)/experiment-simulation"

# The property tests (state-backed reports against their reference over raw events) on PROPERTY_WORKLOADS random
# workloads (1000; make test runs 140): the longer run to make after changing report SQL.
PROPERTY_WORKLOADS ?= 1000
property: build db
	CARDINAL_TEST_DATABASE_URL="$(ADMIN_DB_URL)" CARDINAL_BIN_DIR="$(BIN_DIR)" \
		CARDINAL_PROPERTY_WORKLOADS="$(PROPERTY_WORKLOADS)" \
		$(SWIFT) test -c $(CONFIG) $(SWIFT_FLAGS) --filter ReportStatePropertyTests

run: build db migrate
	@CARDINAL_DATABASE_URL="$(DB_URL)" BIN_DIR="$(BIN_DIR)" scripts/run-demo.sh

# Ingest against raw COPY, and the reports against naive SQL, on the release build (see README, Performance).
# BENCH_SCENARIOS=ingest or =reports runs one of them; scripts/bench/bench.py and reports.py list the knobs.
bench: db
	@CARDINAL_DEPS_BENCH=1 scripts/deps.sh
	$(SWIFT) build -c release $(RELEASE_FLAGS)
	python3 scripts/bench/bench.py

# Where a report-state fold spends its time: a burst of FOLD_PROFILE_EVENTS (1 M) new events, then
# FOLD_PROFILE_LATER (200 k) events of the same users, each folded once, per step, per trigger and per state table,
# and the state's bytes per event (scripts/bench/fold_profile.py lists the knobs). Release build, own database.
fold-profile: release db
	@BIN_DIR="$(RELEASE_BIN_DIR)" python3 scripts/bench/fold_profile.py

# A soak on the release build, not part of `make test` nor of `make bench`: a database preloaded with
# SOAK_PRELOAD_EVENTS (10 M) events of the reports benchmark's shape, then SOAK_RATE (10,000) events/s of recent events
# offered at a fixed rate for SOAK_MINUTES (30), sampling the report state's backlog and lag and each report's time
# every SOAK_SAMPLE_SECONDS (10); fails when the backlog grows or a report misses its goal (scripts/bench/soak.py).
soak: db
	$(SWIFT) build -c release $(RELEASE_FLAGS)
	python3 scripts/bench/soak.py

# The disk spool under real faults (a 30 s outage under concurrent load, kill -9 during replay, during an outage
# and under load, a full spool disk, a locked table, dropped packets, SIGTERM): prints events acknowledged, lost,
# duplicated and the time to recover. Stops and starts the private cluster, so not while `make test` runs on it;
# needs root (mount, nft). FAULT_SECONDS, FAULT_CLIENTS, FAULT_CASES: see the script.
faults: build db
	@CARDINAL_DEPS_FAULTS=1 scripts/deps.sh
	@BIN_DIR="$(BIN_DIR)" python3 scripts/faults/faults.py

# A production topology on one machine, loopback only, in .data/ha on its own ports: etcd, three PostgreSQL 15 nodes
# under Patroni (synchronous_mode), two cardinald behind HAProxy (/readyz), pgBackRest, pgbouncer. Kills the primary's
# PostgreSQL and Patroni, switches over, kills and rolls the daemons, cuts the primary's network, all under load from
# retrying clients, and prints acknowledged / lost / duplicated and the time to recover; then every report on the hot
# standbys, a point-in-time restore and pgbouncer (see scripts/ha/ha.py, docs/production-topology.md). Needs root;
# stops everything it started. Not part of `make test`, which runs its smoke (ha-smoke). HA_FAULTS, …: see the script.
ha: release
	@CARDINAL_DEPS_HA=1 scripts/deps.sh
	@BIN_DIR="$(RELEASE_BIN_DIR)" nice -n 10 python3 scripts/ha/ha.py

# The smoke of `make ha`, the last step of `make test`: the same script with HA_SMOKE=1 on the debug build, in
# .data/ha-smoke on ports of its own (HA_PORT_OFFSET, from CARDINAL_PG_PORT): etcd, three PostgreSQL 15 nodes under
# Patroni, two cardinald behind HAProxy, and one `patronictl switchover` under load from 2 retrying clients. Fails
# unless the primary moved, every acknowledged event is stored exactly once, the report state equals a rebuild from
# raw events and the reports on the standbys equal the primary's; no backup, restore or pgbouncer. About a minute
# (plus patroni, etcd-server, haproxy and pgbackrest the first time); needs root; stops everything it started.
HA_SMOKE_RUN = CARDINAL_DEPS_HA_SMOKE=1 scripts/deps.sh && BIN_DIR="$(BIN_DIR)" HA_SMOKE=1 python3 scripts/ha/ha.py
ha-smoke: build
	@$(HA_SMOKE_RUN)

# The whole suite FLAKY_RUNS times (20) under a FLAKY_CPU_LOAD % (60) CPU load from stress-ng: lists the runs
# that failed and keeps their logs in .data/flaky/ (see scripts/flaky.sh). Takes FLAKY_RUNS × a test run.
flaky: build db gbstats
	@CARDINAL_DEPS_FLAKY=1 scripts/deps.sh
	@CARDINAL_TEST_DATABASE_URL="$(ADMIN_DB_URL)" CARDINAL_BIN_DIR="$(BIN_DIR)" \
		CARDINAL_GBSTATS_PYTHON="$$(scripts/gbstats/install.sh)" \
		SWIFT_TEST_FLAGS="-c $(CONFIG) $(SWIFT_FLAGS)" scripts/flaky.sh

# libFuzzer with AddressSanitizer (leaks included) over the batch decoder and validator (JSON, NDJSON), gzip
# inflation with its limit, RFC 3339 times and decimal values, one target after another, FUZZ_SECONDS each
# (FUZZ_TARGETS picks some, FUZZ_RUNS caps executions, FUZZ_TIMEOUT is the hang limit per input). Fails on any
# crash, leak, hang or broken property and leaves the input in .build/fuzz/artifacts/ (README, Fuzzing).
FUZZ_SECONDS ?= 60
fuzz: deps
	@FUZZ_SECONDS="$(FUZZ_SECONDS)" scripts/fuzz/fuzz.sh

# docs/openapi.json against the real daemon with schemathesis (PyPI, installed into .build/schemathesis/venv): every
# operation, valid and invalid requests, every check (no 5xx, answers as documented). Starts and migrates the private
# cluster, runs cardinald on SCHEMATHESIS_LISTEN with a fresh key of the app `schemathesis`, stops it at the end.
# SCHEMATHESIS_EXAMPLES (default 200) bounds the requests per operation and phase; SCHEMATHESIS_SEED replays a run.
schemathesis: build db migrate
	@BIN_DIR="$(BIN_DIR)" CARDINAL_DATABASE_URL="$(DB_URL)" scripts/schemathesis/run.sh

clean: db-stop
	rm -rf .build .data
