#!/usr/bin/env bash
# One lease: CUDA checks at HEAD (accel tests x2, accel bench cuda:0), the Python domain tests built
# there, then rounds in turns (floor, HEAD, e6b1669, iceoryx2, path cost) until the time budget ends.
set -u
D=$(cd "$(dirname "$0")" && pwd); B=$D/bin
export LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
export BATON_TEST_DOMAIN_SHIFT=7
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log; : > $L
stamp() { echo "## $(date -u +%T) +$(el)s $*" >> $L; }
n=$(ls /usr/local/cuda*/lib64/libnvrtc.so.* 2>/dev/null | head -1); [ -n "$n" ] && export BATON_NVRTC_LIBRARY=$n
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; lscpu | grep -E '^CPU\(s\)|Model name'; uptime; echo "nvrtc=${BATON_NVRTC_LIBRARY:-none}"; git log --oneline -1 2>/dev/null; } >> $L 2>&1
stamp tests
( cd $OUT && timeout 150 $B/baton_accel_tests --gtest_repeat=2 > $OUT/tests.log 2>&1; echo "tests rc=$?" >> $L )
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/tests.log | sort | uniq -c >> $L
stamp accel
( cd $OUT && timeout 90 $B/baton-bench-accel --domain cuda:0 > $OUT/accel.log 2>&1; echo "accel rc=$?" >> $L )
tail -4 $OUT/accel.log >> $L
stamp python-build
( cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_BUILD_PYTHON=ON -DBATON_BUILD_TESTS=OFF -DPython_EXECUTABLE=$(which python3) > $OUT/cmake.log 2>&1; echo "cmake rc=$?" >> $L
  timeout 120 ninja -C /tmp/b _baton baton_py_files > $OUT/build.log 2>&1; echo "build rc=$?" >> $L; tail -3 $OUT/build.log >> $L )
stamp pytest
BATON_BUILD_DIR=/tmp/b PYTHONUNBUFFERED=1 timeout 60 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_domains.py > $OUT/pytest.log 2>&1
echo "pytest rc=$?" >> $L; tail -12 $OUT/pytest.log >> $L
F=$OUT/floors.log; : > $F; r=0
while [ $(el) -lt ${BUDGET:-400} ]; do
  r=$((r+1)); stamp "round $r"; echo "== round $r" >> $F
  timeout 20 $B/baton-floor-cacheline --cpus 2,3 --json '' >> $F 2>&1
  if [ $((r % 2)) = 1 ]; then order="head e6b"; else order="e6b head"; fi
  for v in $order; do sfx=-$v; [ $v = head ] && sfx=""
    echo "variant $v" >> $F; timeout 40 $B/baton-bench-latency$sfx --cpus 2,3 --modes busy-poll --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1; done
  echo "variant iceoryx2" >> $F; timeout 40 $B/baton-peer-iceoryx2 --cpus 2,3 --modes busy-poll --sizes 64,65536,4194304,25165824 --json '' >> $F 2>&1
  echo "path-cost head" >> $F; timeout 20 taskset -c 2 $B/baton-bench-path-cost >> $F 2>&1
  echo "path-cost e6b" >> $F; timeout 20 taskset -c 2 $B/baton-bench-path-cost-e6b >> $F 2>&1
done
stamp done; uptime >> $L
