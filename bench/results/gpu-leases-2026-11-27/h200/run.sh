#!/usr/bin/env bash
# Lease 2: the accel tests at 02c12c0 (child roles instead of forks) x3 and the CUDA accel bench;
# then rounds in turns of the path cost and busy-poll one-way of e6b1669 and each later commit.
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
export LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
export BATON_TEST_DOMAIN_SHIFT=7
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log; : > $L
stamp() { echo "## $(date -u +%T) +$(el)s $*" >> $L; }
n=$(ls /usr/local/cuda*/lib64/libnvrtc.so.* 2>/dev/null | head -1); [ -n "$n" ] && export BATON_NVRTC_LIBRARY=$n
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; uptime; echo "nvrtc=${BATON_NVRTC_LIBRARY:-none}"; git log --oneline -1 2>/dev/null; } >> $L 2>&1
stamp tests
( cd $OUT && timeout 120 $B/baton_accel_tests --gtest_repeat=3 > $OUT/tests.log 2>&1; echo "tests rc=$?" >> $L )
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/tests.log | sort | uniq -c >> $L
stamp accel
( cd $OUT && timeout 60 $B/baton-bench-accel --domain cuda:0 > $OUT/accel.log 2>&1; echo "accel rc=$?" >> $L )
tail -4 $OUT/accel.log >> $L
F=$OUT/bisect.log; : > $F; r=0
V=(e6b ad8 96b 690 c8c 858 head)
while [ $(el) -lt ${BUDGET:-250} ]; do
  r=$((r+1)); stamp "round $r"; echo "== round $r" >> $F
  timeout 20 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  k=$((r % 7))
  for i in 0 1 2 3 4 5 6; do v=${V[$(( (i + k) % 7 ))]}
    echo "variant $v" >> $F
    timeout 20 taskset -c 2 $B/pc-$v >> $F 2>&1
    timeout 40 $B/lat-$v --cpus 2,3 --modes busy-poll --sizes 64,4194304 --json '' >> $F 2>&1
  done
done
stamp done; uptime >> $L
