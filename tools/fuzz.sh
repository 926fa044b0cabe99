#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/import_fuzzer.cc: ImportOnnxBytes +
# Analyze, with ASan and UBSan) with clang in the instrumented build it shares
# with tools/sanitize.sh (tools/sanitize_build.sh), and runs it for a bounded
# time.
#
#   bash tools/fuzz.sh [SECONDS]      # default 120
#
# Seeds: every committed fixture (tests/fixtures/**/*.onnx, the stored fuzz
# regressions included) plus a few small models of ONNX's node test suite
# (libonnx-testdata). The corpus grows in <build>/fuzz_corpus across runs.
# A crash leaves its input in <build>/fuzz_artifacts/ and makes this script
# exit non-zero; copy the input to tests/fixtures/fuzz_regressions/ and fix
# the bug (tests/fuzz_regressions_test.cc replays every stored input).
#
# Environment: RIDGELINE_SANITIZE_BUILD_DIR (default build-sanitize), JOBS,
# FUZZ_RSS_LIMIT_MB (default 2048), FUZZ_MAX_LEN (default 65536), FUZZ_SEED
# (libFuzzer's -seed; default 0 = a fresh random seed each run). .ci/run fixes
# the seed so that its bounded run replays the same mutations on every clean
# clone; exploratory runs by hand leave it random and run longer.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-120}
JOBS=${JOBS:-$(nproc)}
RSS_LIMIT_MB=${FUZZ_RSS_LIMIT_MB:-2048}
MAX_LEN=${FUZZ_MAX_LEN:-65536}
SEED=${FUZZ_SEED:-0}
source tools/sanitize_build.sh
BUILD=$SANITIZE_BUILD

configure_sanitize_build
cmake --build "$BUILD" --target import_fuzzer -j "$JOBS"

SEEDS=$BUILD/fuzz_seeds
CORPUS=$BUILD/fuzz_corpus
ARTIFACTS=$BUILD/fuzz_artifacts
rm -rf "$SEEDS"
mkdir -p "$SEEDS" "$CORPUS" "$ARTIFACTS"
if [[ -d tests/fixtures ]]; then
  find tests/fixtures -type f \( -name '*.onnx' -o -path '*/fuzz_regressions/*' \) \
    ! -name '*.md' -size -1M -print0 |
    while IFS= read -r -d '' f; do
      cp "$f" "$SEEDS/fixture_$(echo "$f" | tr '/' '_')"
    done
fi
NODE_TESTS=/usr/share/libonnx-testdata/data/node
for t in conv_with_strides_padding matmul_4d gemm_default_matrix_bias \
         reshape_reordered_all_dims slice if loop11 scan9_sum expand_dim_changed \
         concat_3d_axis_0 gather_0 range_float_type_positive_delta_expanded \
         constantofshape_float_ones layer_normalization_4d_axis0 softmax_example \
         maxpool_2d_pads resize_upsample_scales_linear einsum_batch_matmul tile \
         split_equal_parts_1d where_example shape reduce_mean_keepdims_example \
         transpose_all_permutations_0 convtranspose qlinearconv matmulinteger \
         batchnorm_epsilon lstm_defaults nonzero_example averagepool_2d_default; do
  [[ -f $NODE_TESTS/test_$t/model.onnx ]] &&
    cp "$NODE_TESTS/test_$t/model.onnx" "$SEEDS/node_$t.onnx"
done
echo "fuzz.sh: $(ls "$SEEDS" | wc -l) seeds, $(ls "$CORPUS" | wc -l) corpus" \
     "entries, running ${SECONDS_TO_RUN}s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
"$BUILD/tests/fuzz/import_fuzzer" \
  -max_total_time="$SECONDS_TO_RUN" -seed="$SEED" -rss_limit_mb="$RSS_LIMIT_MB" \
  -malloc_limit_mb="$RSS_LIMIT_MB" -max_len="$MAX_LEN" -timeout=30 \
  -print_final_stats=1 -artifact_prefix="$ARTIFACTS/" \
  "$CORPUS" "$SEEDS" || status=$?
if ((status != 0)); then
  echo "fuzz.sh: the fuzzer found a problem; inputs in $ARTIFACTS:" >&2
  ls -l "$ARTIFACTS" >&2
  echo "fuzz.sh: store each under tests/fixtures/fuzz_regressions/ and fix it" >&2
fi
exit "$status"
