#!/usr/bin/env bash
# The CUDA checks on the lent GPU host, from out/dev with the binaries in out/dev/bin (and
# libOpenCL.so.1 in out/dev/lib): the accel tests REPEAT times (2) and the CUDA accel bench.
# TESTS and BENCH name the binaries: dad6831's by default (cuda-checks.log); e6b1669's were
# TESTS=baton_accel_tests_head BENCH=baton-bench-accel-head REPEAT=3 (head/cuda-checks.log). The first pass also ran three rounds of run-floors.sh's loop,
# not kept (the 15-round pass replaced them).
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
REPEAT=${REPEAT:-2}; TESTS=${TESTS:-baton_accel_tests}; BENCH=${BENCH:-baton-bench-accel}
export LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
export BATON_TEST_DOMAIN_SHIFT=7
n=$(ls /usr/local/cuda*/lib64/libnvrtc.so.* 2>/dev/null | head -1); [ -n "$n" ] && export BATON_NVRTC_LIBRARY=$n
L=$OUT/log; : > $L
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; lscpu | grep -E '^CPU\(s\)|Model name'; uptime; echo "nvrtc=${BATON_NVRTC_LIBRARY:-none}"; } >> $L 2>&1
( cd $OUT && timeout 200 $B/$TESTS --gtest_repeat=$REPEAT > $OUT/tests.log 2>&1; echo "tests rc=$?" >> $L )
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/tests.log | sort | uniq -c >> $L
( cd $OUT && timeout 150 $B/$BENCH --domain cuda:0 > $OUT/accel.log 2>&1; echo "accel rc=$?" >> $L )
tail -4 $OUT/accel.log >> $L
