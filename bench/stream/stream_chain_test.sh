#!/usr/bin/env bash
# ctest stream_chain_three_processes_deliver_every_message: baton-bench-stream's roles as
# seed 004's chain (sender -> relay -> receiver, three processes), 3000 messages of 8 B, 64 KiB
# and 1 MiB without pause. The receiver exits non-zero if any message arrives corrupt, with the
# wrong size or without the relay's addition; the test also wants all 3000 logged, and a bad
# size refused with a clear error. Usage: stream_chain_test.sh <baton-bench-stream>
set -euo pipefail
S="$1"
D="$(mktemp -d)"
export BATON_NAMESPACE="stream-test-$$"
cleanup() {
  kill "${RELAY:-0}" 2>/dev/null || true
  rm -rf "$D"
  rm -f /dev/shm/baton.*."$BATON_NAMESPACE".*
}
trap cleanup EXIT

if "$S" --role sender --out /a --sizes 4 --sync "$D" --name bad 2>"$D/bad.err"; then
  echo "FAIL: a 4-byte size was accepted"; exit 1
fi
grep -q "sizes must be >= 8" "$D/bad.err" || { echo "FAIL: no clear error"; cat "$D/bad.err"; exit 1; }

common=(--sizes 8,64K,1M --per-size 1000 --sync "$D" --timeout 60)
"$S" --role receiver --in /b --relays 1 --name add "${common[@]}" &
RECV=$!
"$S" --role relay --in /a --out /b --name add_para "${common[@]}" &
RELAY=$!
"$S" --role sender --out /a --name para_in "${common[@]}"
wait "$RECV"
kill -TERM "$RELAY"
wait "$RELAY"  # a relay stopped by SIGTERM returns 0
got=$(wc -l <"$D/add.recv")
sent=$(wc -l <"$D/para_in.send")
[ "$got" -eq 3000 ] && [ "$sent" -eq 3000 ] || { echo "FAIL: sent $sent, received $got"; exit 1; }
echo "ok: 3000 messages through the chain"
