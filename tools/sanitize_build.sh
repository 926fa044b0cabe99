# Sourced by tools/sanitize.sh and tools/fuzz.sh: the one instrumented build
# both use, so CI compiles the project once for the sanitizer suite and the
# fuzzer. clang, AddressSanitizer + UndefinedBehaviorSanitizer (no recovery),
# libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link, no-ops
# outside the fuzzer), -O1 -g1 (line numbers in reports at a fraction of
# -O2 -g's build time; assertions stay on).
#
# Defines SANITIZE_BUILD (default build-sanitize, or
# $RIDGELINE_SANITIZE_BUILD_DIR) and configure_sanitize_build.
SANITIZE_BUILD=${RIDGELINE_SANITIZE_BUILD_DIR:-$(pwd)/build-sanitize}

configure_sanitize_build() {
  # clang and its sanitizer/libFuzzer runtimes, on top of the usual packages.
  bash tools/dev.sh install clang libclang-rt-14-dev
  cmake -S "$(pwd)" -B "$SANITIZE_BUILD" -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DRIDGELINE_SANITIZE=ON -DRIDGELINE_FUZZ=ON -DRIDGELINE_BENCH=OFF \
    -DCMAKE_UNITY_BUILD="${RIDGELINE_UNITY_BUILD:-ON}" \
    >/dev/null
}
