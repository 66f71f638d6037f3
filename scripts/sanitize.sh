#!/usr/bin/env bash
# Sanitizer runs (see tests/stress/README.md):
#   build-asan  (-DBATON_SANITIZE=address,undefined): unit tests (ctest -L unit) + the corruption
#               fuzz test (tests/stress/corruption_fuzz_test.cpp).
#   build-tsan  (-DBATON_SANITIZE=thread): the multi-threaded tests (gtest filter below), including
#               the wake-up word's racing test (shm/sleeper_word.hpp, every publish goes through it).
# Exits non-zero if any test fails or any sanitizer reports (halt_on_error / exitcode=66).
#
# Usage: scripts/sanitize.sh [asan|tsan|all]   (default all)
# Env:   JOBS (default 2), BATON_FUZZ_CASES (default 100000 under ASan).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-2}
WHAT=${1:-all}
export BATON_NAMESPACE="sanitize-$$"
LOG_DIR="$ROOT/build-sanitize-logs"
mkdir -p "$LOG_DIR"
status=0

configure_build() {  # dir sanitizer [targets...] (default: everything but the benchmarks)
  cmake -S "$ROOT" -B "$ROOT/$1" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBATON_BUILD_BENCH=OFF \
    -DBATON_SANITIZE="$2" >/dev/null
  ninja -C "$ROOT/$1" -j"$JOBS" "${@:3}"
}

# Any sanitizer report in a log fails the run, even if the process exited 0.
check_log() {  # log
  if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:" "$1"; then
    echo "sanitize: sanitizer report in $1:" >&2
    grep -nE "ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:" "$1" | head -20 >&2
    status=1
  fi
}

# A failed test's assertions, from a log CI keeps only on its own machine: gtest's "file:line:
# Failure" blocks (what was expected, what came), so the CI record says why, not only which.
show_failures() {  # log
  echo "sanitize: failed assertions in $1:"
  grep -A14 -E ": Failure$" "$1" | cut -c1-400 | head -150
}

if [[ $WHAT == asan || $WHAT == all ]]; then
  # Only what `ctest -L unit` and the fuzz run execute (CI time: the Python module, tools and the
  # other examples are not run here): one test executable per tests/<layer>/ folder with tests
  # (baton_ros2_tests pulls in rmw_baton_cpp, baton_stress_tests its helpers) and the examples
  # labelled "unit". A test whose executable is missing shows in ctest as "Not Run" and fails.
  asan_targets=(example-publish-subscribe example-zero-copy-loan)
  for dir in tests/*/; do
    if compgen -G "$dir*_test.cpp" >/dev/null; then
      asan_targets+=("baton_$(basename "$dir")_tests")
    fi
  done
  t0=$SECONDS
  configure_build build-asan address,undefined "${asan_targets[@]}"
  echo "== ASan+UBSan build: $((SECONDS - t0)) s"
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=66:detect_leaks=1:strict_string_checks=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=66"
  # Third-party leaks only (PoCL's first kernel compile through LLVM), each explained in the file.
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp:print_suppressions=0"
  log="$LOG_DIR/asan-unit.log"
  echo "== ASan+UBSan: ctest -L unit"
  t0=$SECONDS
  if ! (cd build-asan && ctest -L unit -j"$JOBS" --output-on-failure) >"$log" 2>&1; then
    status=1
    show_failures "$log"
  fi
  tail -3 "$log"; check_log "$log"
  echo "   ($((SECONDS - t0)) s)"
  log="$LOG_DIR/asan-fuzz.log"
  echo "== ASan+UBSan: corruption fuzz (${BATON_FUZZ_CASES:-100000} cases per path)"
  BATON_FUZZ_CASES=${BATON_FUZZ_CASES:-100000} \
    ./build-asan/tests/baton_stress_tests --gtest_filter='CorruptionFuzz*' >"$log" 2>&1 ||
    { status=1; show_failures "$log"; }
  grep -E "^\[fuzz\] (segment-open|row-read) path" "$log" || true
  grep -E "^\[  (PASSED|FAILED)" "$log" || true
  check_log "$log"
fi

if [[ $WHAT == tsan || $WHAT == all ]]; then
  tsan_tests=(baton_shm_tests baton_topic_tests baton_api_tests)
  t0=$SECONDS
  configure_build build-tsan thread "${tsan_tests[@]}"  # only what runs under TSan (CI time)
  echo "== TSan build: $((SECONDS - t0)) s"
  # Suppressions: only genuinely false positives, each explained in the file.
  export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp"
  filter='Concurrency*:*thread*:*threads*:RegressionTest.*:SleeperWord.*'
  for exe in "${tsan_tests[@]}"; do
    log="$LOG_DIR/tsan-$exe.log"
    echo "== TSan: $exe --gtest_filter=$filter"
    ./build-tsan/tests/$exe --gtest_filter="$filter" >"$log" 2>&1 || { status=1; show_failures "$log"; }
    grep -E "^\[  (PASSED|FAILED)|tests? ran" "$log" || true
    check_log "$log"
  done
fi

# Leftover segments of this run (a crashed test) are removed.
rm -f /dev/shm/baton.$(id -u).sanitize-$$.* 2>/dev/null || true
if [[ $status -ne 0 ]]; then echo "sanitize: FAILED (logs in $LOG_DIR)" >&2; else echo "sanitize: all clean"; fi
exit $status
