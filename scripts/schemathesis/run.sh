#!/usr/bin/env bash
# `make schemathesis`: docs/openapi.json against the real daemon (README, Fuzzing). Every operation of the document
# gets its examples, the coverage phase (each boundary and each kind of invalid value) and generated requests,
# valid and invalid; every check runs: no 5xx, statuses, content types, headers and bodies as documented, invalid
# requests refused, valid ones accepted, and a request without the key refused. The document has no links (events
# are written, never read back), so schemathesis' stateful phase has nothing to chain and reports "not applicable".
#
# Expects BIN_DIR and CARDINAL_DATABASE_URL (set by the Makefile, which also starts and migrates the private
# cluster). Makes an app `schemathesis` if missing and a fresh key, starts cardinald on SCHEMATHESIS_LISTEN,
# runs schemathesis from a virtualenv in .build/schemathesis/venv (installed from PyPI on first use) and stops
# the daemon on every exit.
#
#   SCHEMATHESIS_EXAMPLES  generated requests per operation and phase (default 200)
#   SCHEMATHESIS_SEED      the seed, to replay a run (default: random, printed in the summary)
#   SCHEMATHESIS_LISTEN    the daemon's address (default 127.0.0.1:18433)
set -euo pipefail

: "${BIN_DIR:?set by make schemathesis}"
: "${CARDINAL_DATABASE_URL:?set by make schemathesis}"
repo=$(cd "$(dirname "$0")/../.." && pwd)
work="$repo/.build/schemathesis"
listen="${SCHEMATHESIS_LISTEN:-127.0.0.1:18433}"
examples="${SCHEMATHESIS_EXAMPLES:-200}"
version=4.32.5 jsonschema_version=4.26.0 rfc3339_version=0.1.4
mkdir -p "$work"

if [[ ! -x "$work/venv/bin/schemathesis" ]] || ! "$work/venv/bin/python" -c "import jsonschema, rfc3339_validator" 2>/dev/null || ! "$work/venv/bin/schemathesis" --version | grep -q "$version"; then
    echo "schemathesis: installing schemathesis $version, jsonschema and rfc3339-validator (for hooks.py) into $work/venv"
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet "schemathesis==$version" "jsonschema==$jsonschema_version" "rfc3339-validator==$rfc3339_version"
fi

cardinal="$BIN_DIR/cardinal"
if ! "$cardinal" apps list --format csv | cut -d, -f1 | grep -qx schemathesis; then
    "$cardinal" apps create schemathesis --timezone UTC >/dev/null
fi
key=$("$cardinal" keys create --app schemathesis --description "make schemathesis")

"$BIN_DIR/cardinald" --listen "$listen" --database-url "$CARDINAL_DATABASE_URL" --spool-dir "$work/spool" \
    >"$work/cardinald.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -fsS "http://$listen/healthz" >/dev/null 2>&1 && break
    kill -0 "$daemon" 2>/dev/null || { echo "schemathesis: cardinald exited; see $work/cardinald.log" >&2; exit 1; }
    sleep 0.1
done

seed=()
[[ -n ${SCHEMATHESIS_SEED:-} ]] && seed=(--seed "$SCHEMATHESIS_SEED")
cd "$work"
SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$repo/scripts/schemathesis" "$work/venv/bin/schemathesis" run \
    "$repo/docs/openapi.json" --url "http://$listen" -H "Authorization: Bearer $key" \
    --checks all --max-examples "$examples" --workers 1 --continue-on-failure --no-color \
    --report junit --report-dir "$work/report" "${seed[@]}"
