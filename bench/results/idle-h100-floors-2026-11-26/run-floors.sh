#!/usr/bin/env bash
# The idle-host floors (issue 20), as run on the lent GPU host from out/dev with the binaries in
# out/dev/bin: ROUNDS rounds (15) in turns of the cache-line and futex floors, baton, iceoryx2,
# the four hand-off shapes and the one-thread path cost, on CPUs 2,3. V is the suffix of the baton
# binaries: "" for dad6831's (floors.log), "-v2" for e6b1669's (head/floors.log).
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
ROUNDS=${ROUNDS:-15}; V=${V:-}
L=$OUT/log; : > $L
stamp() { echo "## $(date -u +%T) $*" | tee -a $L; }
stamp start
{ lscpu -e; uptime; } >> $L 2>&1
F=$OUT/floors.log; : > $F
for r in $(seq 1 "$ROUNDS"); do
  stamp "round $r"; echo "== round $r" >> $F
  timeout 30 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  timeout 30 $B/baton-floor-futex --cpus 2,3 --json '' >> $F 2>&1
  timeout 60 $B/baton-bench-latency$V --cpus 2,3 --modes busy-poll,blocking --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  timeout 60 $B/baton-peer-iceoryx2 --cpus 2,3 --modes busy-poll,blocking --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  for s in row payload refs hazard; do echo "shape $s" >> $F; timeout 20 $B/baton-floor-handoff --cpus 2,3 --shape $s --json '' >> $F 2>&1; done
  echo "path-cost" >> $F; timeout 30 taskset -c 2 $B/baton-bench-path-cost$V >> $F 2>&1
  timeout 30 taskset -c 2 $B/baton-bench-path-cost$V --best-effort >> $F 2>&1
done
stamp done; uptime >> $L
