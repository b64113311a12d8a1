#!/usr/bin/env bash
# Installs the Debian packages Cardinal needs to build, test and run, if any is missing.
# As root it installs them; as anyone else it prints the exact apt-get line and fails.
set -euo pipefail

# systemd: its systemd-analyze checks the installed units in the install test (the daemon needs no systemd).
# chromium: the report pages' test opens them in a real, headless browser.
# prometheus: the dashboard test evaluates every PromQL expression of Dashboards/ against a real Prometheus.
# python3-venv: the virtualenv of GrowthBook's gbstats, which the statistics are compared with (scripts/gbstats).
packages=(pkg-config libpq-dev libmicrohttpd-dev zlib1g-dev postgresql postgresql-contrib curl ca-certificates systemd
          chromium prometheus python3-venv)
if [[ "${CARDINAL_DEPS_BENCH:-0}" == 1 ]]; then
    packages+=(wrk)
fi
# `make flaky` loads the CPUs while the suite runs over and over.
if [[ "${CARDINAL_DEPS_FLAKY:-0}" == 1 ]]; then
    packages+=(stress-ng)
fi
# `make faults` drops packets to the database with nftables (the network-drop case).
if [[ "${CARDINAL_DEPS_FAULTS:-0}" == 1 ]]; then
    packages+=(nftables)
fi
# `make ha`: three PostgreSQL 15 nodes under Patroni with etcd, HAProxy before the daemons, pgBackRest backups,
# pgbouncer in front of the primary, and nftables for the network cut (scripts/ha/ha.py).
if [[ "${CARDINAL_DEPS_HA:-0}" == 1 ]]; then
    packages+=(postgresql-15 patroni etcd-server etcd-client haproxy pgbackrest pgbouncer nftables iproute2)
fi
# `make ha-smoke` (the last step of `make test`): only what its switchover needs (no pgbouncer, no network cut).
if [[ "${CARDINAL_DEPS_HA_SMOKE:-0}" == 1 ]]; then
    packages+=(postgresql-15 patroni etcd-server haproxy pgbackrest)
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} > 0)); then
    if [[ $(id -u) -eq 0 ]]; then
        echo "deps: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "deps: missing Debian packages. Install them with:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "deps: the Swift toolchain (6.0 or later) is not on PATH; install it from swift.org and retry." >&2
    exit 1
fi
