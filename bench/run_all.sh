#!/usr/bin/env bash
# The full benchmark session: latency (baton, floors, peers), periodic-stream rate and CPU,
# throughput; then one report (out/bench/report.md) whose tables go into BENCHMARKS.md.
#   bench/run_all.sh [--quick]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BATON_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/out/bench"
quick=()
[ "${1:-}" = "--quick" ] && quick=(--quick)
rm -f "$OUT"/baton-rate.json "$OUT"/baton-throughput.json
BATON_NO_REPORT=1 "$ROOT/bench/run_latency.sh" "${quick[@]}"
echo "== rate"
"$BUILD/bench/rate/baton-bench-rate" "${quick[@]}" || echo "baton-rate: failed" >> "$OUT/failures.txt"
echo "== throughput"
"$BUILD/bench/throughput/baton-bench-throughput" "${quick[@]}" || echo "baton-throughput: failed" >> "$OUT/failures.txt"
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) vCPUs, $(uname -r)."
  echo "Command: bench/run_all.sh ${quick[*]}  ($(date -u +%Y-%m-%d))"
  echo
  python3 "$ROOT/bench/report.py" "$OUT"
} | tee "$OUT/report.md"
