#!/usr/bin/env bash
# A/B on the idle host: v0 = dad6831's binaries, v2 = take path without Result moves (try_resolve, emplace).
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
L=$OUT/log; : > $L; F=$OUT/ab.log; : > $F
stamp() { echo "## $(date -u +%T) $*" | tee -a $L; }
stamp start; uptime >> $L
S=64,65536,4194304,25165824
for r in $(seq 1 12); do
  stamp "round $r"; echo "== round $r" >> $F
  timeout 30 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  if [ $((r % 2)) -eq 1 ]; then order="v0 v2"; else order="v2 v0"; fi
  for v in $order; do echo "variant $v" >> $F
    timeout 60 $B/baton-bench-latency-$v --cpus 2,3 --modes busy-poll,blocking --sizes $S --json '' >> $F 2>&1
    echo "path-cost $v" >> $F; timeout 30 taskset -c 2 $B/baton-bench-path-cost-$v >> $F 2>&1
  done
  echo "variant iceoryx2" >> $F
  timeout 60 $B/baton-peer-iceoryx2 --cpus 2,3 --modes busy-poll,blocking --sizes $S --json '' >> $F 2>&1
done
stamp done
