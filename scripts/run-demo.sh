#!/usr/bin/env bash
# `make run`: a demo app and a fresh ingest key in the private database, then cardinald in the foreground.
# Expects CARDINAL_DATABASE_URL and BIN_DIR (set by the Makefile).
set -euo pipefail

: "${CARDINAL_DATABASE_URL:?set by make run}"
: "${BIN_DIR:?set by make run}"
listen="${CARDINAL_LISTEN:-127.0.0.1:8080}"
cardinal="$BIN_DIR/cardinal"

if ! "$cardinal" apps list --format csv | cut -d, -f1 | grep -qx demo; then
    "$cardinal" apps create demo --timezone UTC >/dev/null
fi
key=$("$cardinal" keys create --app demo --description "make run demo key")

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
first=$(cat /proc/sys/kernel/random/uuid)
second=$(cat /proc/sys/kernel/random/uuid)
cat <<MSG

Cardinal is starting on http://$listen (Ctrl-C stops it). In another terminal, post a small batch:

curl -sS -X POST http://$listen/v1/events \\
  -H 'Authorization: Bearer $key' \\
  -H 'Content-Type: application/json' \\
  -d '{"events":[
    {"id":"$first","type":"impression","channel":"content_card","time":"$now","user_id":"u1","campaign_id":"welcome","variant_id":"v1","platform":"ios"},
    {"id":"$second","type":"click","channel":"content_card","time":"$now","user_id":"u1","campaign_id":"welcome","variant_id":"v1","platform":"ios"}
  ]}'

Then look at what was stored: psql '$CARDINAL_DATABASE_URL' -c 'select type, user_id, campaign_id, time from cardinal.events'

MSG
# The demo's spool lives in the repository's ignored data folder, not in /var/lib/cardinald/spool.
spool_dir="${CARDINAL_SPOOL_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.data/spool}"
exec "$BIN_DIR/cardinald" --listen "$listen" --database-url "$CARDINAL_DATABASE_URL" --spool-dir "$spool_dir"
