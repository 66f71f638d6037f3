#!/usr/bin/env bash
# Runs the ping-pong latency comparison in one session: machine floors, baton, and the peers
# (iceoryx2, iceoryx classic, CycloneDDS), then prints the side-by-side table with ratios.
#   bench/run_latency.sh [--quick] [extra options passed to every program, e.g. --sizes 64]
# Results: out/bench/<system>.json (fresh each run) and out/bench/latency_table.md.
# A peer that fails is reported as failed in the table, with its reason, never silently dropped.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BATON_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/out/bench"
mkdir -p "$OUT"
cd "$ROOT"

args=("$@")
rm -f "$OUT"/floor-*.json "$OUT"/baton.json "$OUT"/iceoryx.json "$OUT"/iceoryx2.json \
      "$OUT"/cyclonedds.json "$OUT"/failures.txt

run() {  # run NAME COMMAND...: runs one program, records a failure with its last message
  local name="$1"; shift
  echo "== $name"
  if [ ! -x "$1" ]; then
    echo "$name: not built ($1 missing)" | tee -a "$OUT/failures.txt"
    return
  fi
  if ! "$@" 2> >(tee "$OUT/$name.err" >&2); then
    echo "$name: failed: $(tail -n 1 "$OUT/$name.err")" | tee -a "$OUT/failures.txt"
  fi
}

run floor-cacheline "$BUILD/bench/floors/baton-floor-cacheline" "${args[@]}"
run floor-futex "$BUILD/bench/floors/baton-floor-futex" "${args[@]}"
run floor-memcpy "$BUILD/bench/floors/baton-floor-memcpy" "${args[@]}"
run baton "$BUILD/bench/latency/baton-bench-latency" "${args[@]}"
run iceoryx2 "$ROOT/bench/peers/iceoryx2_pingpong/target/release/baton-peer-iceoryx2" "${args[@]}"
run iceoryx "$BUILD/bench/peers/baton-peer-iceoryx" "${args[@]}"
run cyclonedds "$BUILD/bench/peers/baton-peer-cyclonedds" "${args[@]}"

[ -n "${BATON_NO_REPORT:-}" ] || python3 "$ROOT/bench/report.py" "$OUT" | tee "$OUT/report.md"
