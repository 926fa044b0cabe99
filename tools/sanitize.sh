#!/usr/bin/env bash
# Builds the project and its tests with AddressSanitizer + UndefinedBehavior-
# Sanitizer (-DRIDGELINE_SANITIZE=ON) in a second build directory and runs the
# whole test suite there. Any memory error, leak or undefined behaviour fails
# the run (UBSan does not recover; ASan aborts on the first error).
#
#   bash tools/sanitize.sh
#
# Environment: RIDGELINE_SANITIZE_BUILD_DIR (default build-sanitize), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${RIDGELINE_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}
JOBS=${JOBS:-$(nproc)}

bash tools/dev.sh install
# -O1 -g1: line numbers in reports at a fraction of -O2 -g's build time;
# assertions stay on.
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DRIDGELINE_SANITIZE=ON \
  -DRIDGELINE_FUZZ=OFF -DRIDGELINE_BENCH=OFF >/dev/null
start=$(date +%s)
cmake --build "$BUILD" -j "$JOBS"
built=$(date +%s)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS" --timeout 1200) || status=$?
done_at=$(date +%s)
echo "sanitize.sh: build $((built - start)) s, tests $((done_at - built)) s," \
     "exit $status"
exit "$status"
