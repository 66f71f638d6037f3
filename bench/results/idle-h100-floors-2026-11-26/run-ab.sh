#!/usr/bin/env bash
# A/B on the idle host: v0 = dad6831's baton-bench-latency, v1 = no post-publish reuse look while a chunk is free.
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
L=$OUT/log; : > $L; F=$OUT/ab.log; : > $F
stamp() { echo "## $(date -u +%T) $*" | tee -a $L; }
stamp start; uptime >> $L
for r in $(seq 1 10); do
  stamp "round $r"; echo "== round $r" >> $F
  timeout 30 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  for v in v0 v1; do echo "variant $v" >> $F
    timeout 60 $B/baton-bench-latency-$v --cpus 2,3 --modes busy-poll --sizes 64,4194304,25165824 --json '' >> $F 2>&1
  done
  for v in v1 v0; do echo "variant $v" >> $F
    timeout 60 $B/baton-bench-latency-$v --cpus 2,3 --modes busy-poll --sizes 64,4194304,25165824 --json '' >> $F 2>&1
  done
done
stamp done
