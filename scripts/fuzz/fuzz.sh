#!/usr/bin/env bash
# libFuzzer over the code that reads hostile bytes: the batch decoder and validator (JSON and NDJSON bodies),
# gzip inflation with its output limit, RFC 3339 times and decimal values (README, Fuzzing).
#
# Each target is one entry file in Fuzz/<module>/ compiled together with the real sources of that module by
# swiftc with -sanitize=fuzzer,address, into .build/fuzz/<target>; SwiftPM never sees Fuzz/, so `swift build`
# and `make test` are untouched. The targets run one after another, each for FUZZ_SECONDS, starting from the
# seeds in Fuzz/corpus/<target> plus what earlier runs found (.build/fuzz/corpus/<target>).
#
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   which targets, space-separated (default: all five)
#   FUZZ_RUNS      stop a target after this many executions, if that comes first (default: no limit)
#   FUZZ_TIMEOUT   seconds one input may take before it counts as a hang (default 10)
#   FUZZ_RSS_MB    memory limit of a run in MB (default 2048)
#
# Exits 1 if any target crashed, leaked, hung, broke one of its properties or ran out of memory; the input
# that did it is left in .build/fuzz/artifacts/<target>/ (replay it with `.build/fuzz/<target> FILE`).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"batch-json batch-ndjson gzip rfc3339 decimal"}
timeout=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
runs_limit=${FUZZ_RUNS:--1}
out=.build/fuzz

# The flags of Package.swift's strictSettings, in Swift 6 mode, with the sanitizers. lld because gold warns
# about every ASan helper symbol it cannot export.
swift_flags=(-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
             -warnings-as-errors -parse-as-library -sanitize=fuzzer,address -use-ld=lld -O -g)
# Swift's crash backtracer stops to wait on a process under ASan; ASan prints the stack itself.
export SWIFT_BACKTRACE=enable=no

# module, entry files (beyond the module's sources), longest input, libFuzzer dictionary. Batch bodies stop at 4 KiB
# (about 20 events): every rule applies per event, and longer inputs only slow a run down (a third as many
# executions at 16 KiB).
describe() {
    case "$1" in
        batch-json) echo "CardinalCore|BatchOracle.swift BatchJSONTarget.swift|4096|Fuzz/dictionaries/batch.dict" ;;
        batch-ndjson) echo "CardinalCore|BatchOracle.swift BatchNDJSONTarget.swift|4096|Fuzz/dictionaries/batch.dict" ;;
        gzip) echo "Gzip|InflateTarget.swift|16384|" ;;
        rfc3339) echo "CardinalCore|RFC3339Target.swift|64|" ;;
        decimal) echo "CardinalCore|DecimalTarget.swift|256|" ;;
        *) echo "fuzz: unknown target '$1' (known: batch-json batch-ndjson gzip rfc3339 decimal)" >&2; exit 64 ;;
    esac
}

build() {
    local target=$1 module=$2 entries=$3 binary="$out/$1" sources=() entry
    sources=("Sources/$module"/*.swift)
    for entry in $entries; do sources+=("Fuzz/$module/$entry"); done
    if [[ -x $binary ]] && [[ -z $(find "${sources[@]}" -newer "$binary" -print -quit) ]]; then
        return
    fi
    echo "fuzz: building $target"
    local include=()
    [[ $module == Gzip ]] && include=(-I Sources/CZlib)
    swiftc "${swift_flags[@]}" "${include[@]}" -module-name "$module" "${sources[@]}" -o "$binary"
}

mkdir -p "$out/logs"
failed=0
rows=()
for target in $targets; do
    IFS='|' read -r module entries max_len dict <<<"$(describe "$target")"
    build "$target" "$module" "$entries"
done
for target in $targets; do
    IFS='|' read -r module entries max_len dict <<<"$(describe "$target")"
    mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
    log="$out/logs/$target.log"
    options=(-max_total_time="$seconds" -runs="$runs_limit" -timeout="$timeout" -rss_limit_mb="$rss_mb" -max_len="$max_len"
             -print_final_stats=1 -artifact_prefix="$out/artifacts/$target/")
    [[ -n $dict ]] && options+=(-dict="$dict")
    echo "fuzz: running $target for ${seconds}s (log: $log)"
    status=0
    "$out/$target" "${options[@]}" "$out/corpus/$target" "Fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    if [[ $status -eq 0 ]]; then
        result=ok
    else
        failed=1
        result="FAILED (exit $status): $(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|Fatal error|deadly signal|timeout' "$log" || echo "see $log")"
        tail -40 "$log" >&2
    fi
    rows+=("$(printf '%-13s %13s %7ss  %s' "$target" "${runs:-?}" "${took:-?}" "$result")")
done

printf '%-13s %13s %8s  %s\n' target executions time result
printf '%s\n' "${rows[@]}"
exit $failed
