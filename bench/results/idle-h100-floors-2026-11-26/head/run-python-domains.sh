#!/usr/bin/env bash
# Builds the Python module on the GPU host (its python3 is 3.12, with numpy and pytest) and runs
# the Python domain tests, the CUDA DLPack one among them (it skips on the CI machine).
set -u
L=$OUT/log; : > $L
stamp() { echo "## $(date -u +%T) $*" | tee -a $L; }
stamp start; { python3 --version; which python3 gcc g++ cmake ninja; nproc; } >> $L 2>&1
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(which python3) > $OUT/cmake.log 2>&1
echo "cmake rc=$?" >> $L; stamp build
timeout 330 ninja -C /tmp/b _baton baton_py_files > $OUT/build.log 2>&1
echo "build rc=$?" >> $L; tail -5 $OUT/build.log >> $L; stamp pytest
n=$(ls /usr/local/cuda*/lib64/libnvrtc.so.* 2>/dev/null | head -1); [ -n "$n" ] && export BATON_NVRTC_LIBRARY=$n
BATON_BUILD_DIR=/tmp/b PYTHONUNBUFFERED=1 timeout 150 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_domains.py > $OUT/pytest.log 2>&1
echo "pytest rc=$?" >> $L; tail -15 $OUT/pytest.log >> $L
stamp done
