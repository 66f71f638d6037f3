#!/usr/bin/env bash
# Third device pass, at e6b1669: 15 rounds of the idle floors (issue 20), CPU topology, path cost both QoS.
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
export LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
L=$OUT/log; : > $L
stamp() { echo "## $(date -u +%T) $*" | tee -a $L; }
stamp start
{ lscpu -e; uptime; } >> $L 2>&1
F=$OUT/floors.log; : > $F
for r in $(seq 1 15); do
  stamp "round $r"; echo "== round $r" >> $F
  timeout 30 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  timeout 30 $B/baton-floor-futex --cpus 2,3 --json '' >> $F 2>&1
  timeout 60 $B/baton-bench-latency-v2 --cpus 2,3 --modes busy-poll,blocking --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  timeout 60 $B/baton-peer-iceoryx2 --cpus 2,3 --modes busy-poll,blocking --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  for s in row payload refs hazard; do echo "shape $s" >> $F; timeout 20 $B/baton-floor-handoff --cpus 2,3 --shape $s --json '' >> $F 2>&1; done
  echo "path-cost" >> $F; timeout 30 taskset -c 2 $B/baton-bench-path-cost-v2 >> $F 2>&1
  timeout 30 taskset -c 2 $B/baton-bench-path-cost-v2 --best-effort >> $F 2>&1
done
stamp done; uptime >> $L
