#!/usr/bin/env bash
# make flaky: runs the whole test suite FLAKY_RUNS times in a row (default 20) while stress-ng keeps the CPUs
# FLAKY_CPU_LOAD percent busy (default 60), the way a shared CI machine does, and lists every run that failed
# with the failing tests. Each failed run's full log stays in .data/flaky/ for the post-mortem. Fails when any
# run failed. Expects the build and the private cluster (the Makefile target provides both). FLAKY_FILTER (a
# `swift test --filter` pattern) narrows the runs to the suites under suspicion, e.g. the timing-bound ones:
# FLAKY_FILTER='EndToEndTests|MicroHTTPTests|CardinalIngestTests'.
set -euo pipefail

runs=${FLAKY_RUNS:-20}
load=${FLAKY_CPU_LOAD:-60}
: "${CARDINAL_TEST_DATABASE_URL:?set by the Makefile}" "${CARDINAL_BIN_DIR:?set by the Makefile}"
logs=.data/flaky
mkdir -p "$logs"
rm -f "$logs"/run-*.log

stress-ng --cpu "$(nproc)" --cpu-load "$load" --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null || true' EXIT

failed=0
for run in $(seq 1 "$runs"); do
    started=$(date +%s)
    log="$logs/run-$run.log"
    if swift test ${SWIFT_TEST_FLAGS:-} ${FLAKY_FILTER:+--filter "$FLAKY_FILTER"} >"$log" 2>&1; then
        echo "flaky: run $run/$runs passed in $(($(date +%s) - started)) s"
        rm -f "$log"
    else
        failed=$((failed + 1))
        echo "flaky: run $run/$runs FAILED in $(($(date +%s) - started)) s (log: $log):"
        grep -E '^✘ Test .* (recorded an issue|failed)|error:' "$log" | head -20 | sed 's/^/    /'
    fi
done
echo "flaky: $failed of $runs runs failed under a $load % CPU load"
((failed == 0))
