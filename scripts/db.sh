#!/usr/bin/env bash
# The private PostgreSQL cluster of this checkout: .data/pg, listening on 127.0.0.1 only, on its own port
# (CARDINAL_PG_PORT, default 54329) so it never collides with a system cluster.
#
#   scripts/db.sh start   initialise (first time) and start the cluster, create the `cardinal` database
#   scripts/db.sh stop    stop it
#   scripts/db.sh status  say whether it runs
#   scripts/db.sh url     print the libpq URL of the `cardinal` database
#
# initdb refuses to run as root, so as root the server runs as the unprivileged `postgres` user that
# Debian's postgresql package creates, and the data folder belongs to that user.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
data_root="$repo/.data"
pgdata="$data_root/pg"
logfile="$data_root/postgresql.log"
port="${CARDINAL_PG_PORT:-54329}"
superuser=postgres
database=cardinal

find_bindir() {
    local candidate
    for candidate in "$(pg_config --bindir 2>/dev/null || true)" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [[ -x "$candidate/postgres" && -x "$candidate/initdb" ]]; then
            echo "$candidate"
            return
        fi
    done
    echo "db: no PostgreSQL server binaries found (looked in pg_config --bindir and /usr/lib/postgresql/*/bin); run 'make deps'" >&2
    exit 1
}
bindir=$(find_bindir)

# Runs a server program as the cluster's owner: ourselves, or `postgres` when we are root.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# The server user must be able to reach the data folder. A checkout under a private (0700) folder
# would stop it, so as root we add only the search bit (o+x, not read) to the folders above it.
make_reachable() {
    local dir="$repo"
    while [[ "$dir" != "/" ]]; do
        if ! runuser -u postgres -- test -x "$dir"; then
            echo "db: adding o+x to $dir so the postgres user can reach $pgdata" >&2
            chmod o+x "$dir"
        fi
        dir=$(dirname "$dir")
    done
}

psql_admin() {
    "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$superuser" "$@"
}

is_running() {
    [[ -f "$pgdata/PG_VERSION" ]] && as_owner "$bindir/pg_ctl" -D "$pgdata" status >/dev/null 2>&1
}

start() {
    mkdir -p "$data_root"
    if [[ $(id -u) -eq 0 ]]; then
        if ! id postgres >/dev/null 2>&1; then
            echo "db: the 'postgres' user is missing; run 'make deps' (the postgresql package creates it)" >&2
            exit 1
        fi
        make_reachable
        chown postgres: "$data_root"
    fi
    if [[ ! -f "$pgdata/PG_VERSION" ]]; then
        echo "db: initialising a private cluster in $pgdata" >&2
        as_owner "$bindir/initdb" -D "$pgdata" -U "$superuser" --auth=trust --encoding=UTF8 --no-locale >/dev/null
        cat >>"$pgdata/postgresql.conf" <<CONF

# Cardinal's private development cluster (scripts/db.sh).
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
max_connections = 200
shared_buffers = 256MB
synchronous_commit = on
fsync = on
timezone = 'UTC'
log_min_messages = warning
CONF
    fi
    if is_running; then
        echo "db: already running on 127.0.0.1:$port" >&2
    else
        if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "db: port $port is taken by another server; set CARDINAL_PG_PORT to a free port" >&2
            exit 1
        fi
        as_owner "$bindir/pg_ctl" -D "$pgdata" -l "$logfile" -o "-p $port" -w -t 60 start >/dev/null
        echo "db: started on 127.0.0.1:$port (log: $logfile)" >&2
    fi
    if [[ -z $(psql_admin -d postgres -tAc "select 1 from pg_database where datname = '$database'") ]]; then
        psql_admin -d postgres -c "create database $database"
    fi
}

stop() {
    if is_running; then
        as_owner "$bindir/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null
        echo "db: stopped" >&2
    else
        echo "db: not running" >&2
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) if is_running; then echo "running on 127.0.0.1:$port"; else echo "stopped"; exit 3; fi ;;
    url) echo "postgresql://$superuser@127.0.0.1:$port/$database" ;;
    admin-url) echo "postgresql://$superuser@127.0.0.1:$port/postgres" ;;
    *) echo "usage: scripts/db.sh start|stop|status|url|admin-url" >&2; exit 64 ;;
esac
