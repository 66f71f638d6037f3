#!/usr/bin/env bash
# Device check for this session: CUDA tests + accel bench + idle floors (issue 20).
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
export LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
export BATON_TEST_DOMAIN_SHIFT=7
n=$(ls /usr/local/cuda*/lib64/libnvrtc.so.* 2>/dev/null | head -1); [ -n "$n" ] && export BATON_NVRTC_LIBRARY=$n
L=$OUT/log; : > $L
stamp() { echo "## $(date -u +%T) $*" | tee -a $L; }
stamp start
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; lscpu | grep -E '^CPU\(s\)|Model name'; uptime; echo "nvrtc=${BATON_NVRTC_LIBRARY:-none}"; } >> $L 2>&1
stamp tests
( cd $OUT && timeout 200 $B/baton_accel_tests --gtest_repeat=2 > $OUT/tests.log 2>&1; echo "tests rc=$?" >> $L )
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/tests.log | sort | uniq -c >> $L
stamp accel
( cd $OUT && timeout 150 $B/baton-bench-accel --domain cuda:0 > $OUT/accel.log 2>&1; echo "accel rc=$?" >> $L; cp -f out/bench/accel-cuda.json $OUT/ 2>/dev/null )
F=$OUT/floors.log; : > $F
for r in 1 2 3; do
  stamp "round $r"; echo "== round $r" >> $F
  timeout 30 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  timeout 30 $B/baton-floor-futex --cpus 2,3 --json '' >> $F 2>&1
  timeout 60 $B/baton-bench-latency --cpus 2,3 --modes busy-poll,blocking --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  timeout 60 $B/baton-peer-iceoryx2 --cpus 2,3 --modes busy-poll,blocking --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  for s in row payload refs hazard; do echo "shape $s" >> $F; timeout 20 $B/baton-floor-handoff --cpus 2,3 --shape $s --json '' >> $F 2>&1; done
  echo "path-cost" >> $F; timeout 30 taskset -c 2 $B/baton-bench-path-cost >> $F 2>&1
done
stamp done
