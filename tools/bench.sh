#!/usr/bin/env bash
# Builds the benchmarks (bench/*_bench.cc) in Release and runs them all, then
# prints a Markdown summary of every figure beside its target.
#
#   bash tools/bench.sh                  # everything
#   bash tools/bench.sh --benchmark_filter=Llama   # extra args go to each binary
#
# Environment: RIDGELINE_BENCH_BUILD_DIR (default build, the Release build
# tools/dev.sh makes, so nothing is compiled twice), JOBS,
# RIDGELINE_RESNET50 (an existing resnet50.onnx; otherwise the ResNet-50
# benchmark exports one with /usr/bin/python3 + python3-torch, which this
# script installs from Debian unless RIDGELINE_BENCH_NO_TORCH=1; without
# torch that benchmark is skipped with a message).
# Output: <build>/bench_output.txt (full Google Benchmark output) and
# <build>/bench_summary.md (machine + one table row per target).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${RIDGELINE_BENCH_BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc)}

if [[ ${RIDGELINE_BENCH_NO_TORCH:-0} == 1 ]]; then
  bash tools/dev.sh install
else
  bash tools/dev.sh install python3-torch python3-torchvision
fi
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_BENCH=ON \
  -DRIDGELINE_SANITIZE=OFF -DRIDGELINE_FUZZ=OFF >/dev/null
BENCHES=()
for src in bench/*_bench.cc; do
  BENCHES+=("$(basename "$src" .cc)")
done
cmake --build "$BUILD" --target "${BENCHES[@]}" -j "$JOBS"

SUMMARY=$BUILD/bench_summary.md
OUTPUT=$BUILD/bench_output.txt
MEM_GB=$(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
CPU=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
{
  echo "Machine: $(nproc) CPUs ($CPU), ${MEM_GB} GiB RAM, $(uname -sr);" \
       "ridgeline $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%Y-%m-%d)."
  echo
  echo "| benchmark | measured (median) | target | verdict |"
  echo "|---|---|---|---|"
} >"$SUMMARY"
export RIDGELINE_BENCH_SUMMARY=$SUMMARY
: >"$OUTPUT"
for b in "${BENCHES[@]}"; do
  echo "== $b" | tee -a "$OUTPUT"
  "$BUILD/bench/$b" --benchmark_counters_tabular=true "$@" 2>&1 | tee -a "$OUTPUT"
done
echo
cat "$SUMMARY"
if grep -q '| MISS |' "$SUMMARY"; then
  echo "bench.sh: some targets were missed (see above)" >&2
fi
