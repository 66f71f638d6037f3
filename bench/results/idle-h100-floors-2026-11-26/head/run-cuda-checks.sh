#!/usr/bin/env bash
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
export LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
n=$(ls /usr/local/cuda*/lib64/libnvrtc.so.* 2>/dev/null | head -1); [ -n "$n" ] && export BATON_NVRTC_LIBRARY=$n
L=$OUT/log; : > $L
( cd $OUT && timeout 200 $B/baton_accel_tests_head --gtest_repeat=3 > $OUT/tests.log 2>&1; echo "tests rc=$?" >> $L )
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/tests.log | sort | uniq -c >> $L
( cd $OUT && timeout 150 $B/baton-bench-accel-head --domain cuda:0 > $OUT/accel.log 2>&1; echo "accel rc=$?" >> $L )
tail -4 $OUT/accel.log >> $L
