#!/usr/bin/env bash
# Issue 7's goal measurement: ridgeline's predicted ResNet-50 latency on this
# host vs ONNX Runtime's measured one (single thread, graph optimization
# disabled), with the host calibrated by `calibrate`.
#
#   bash tools/measure_resnet50.sh [MODEL.onnx]     # default /tmp/models/resnet50.onnx
#
# Environment: RIDGELINE_BUILD_DIR (default ./build), OUT (default
# ./out/resnet50_measure), RUNS (ORT runs, default 21; the first is a warm-up,
# skipped when analyze offers --skip-runs), CALIBRATE_SECONDS (default 20),
# SKIP_BUILD=1 (use the binaries already in the build directory).
#
# Steps:
#  1. build `calibrate` and `analyze`;
#  2. calibrate this host with one thread (ORT runs single-threaded), writing
#     $OUT/host-1t.json;
#  3. profile the model with onnxruntime-node (tests/profiles/profile_models.js,
#     intra/inter-op threads 1, sequential, ORT_DISABLE_ALL);
#  4. `analyze MODEL --hw-file host-1t.json --measured PROFILE` with every
#     efficiency and tax at its default (nothing tuned to the model), table
#     and JSON, and a one-line summary.
# The machine should be otherwise idle: other processes on the 2 cores
# change both the calibration and the ORT times.
# The model is exported with tools/export_torchvision.py if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${RIDGELINE_BUILD_DIR:-$ROOT/build}
OUT=${OUT:-$ROOT/out/resnet50_measure}
RUNS=${RUNS:-21}
CALIBRATE_SECONDS=${CALIBRATE_SECONDS:-20}
MODEL=${1:-/tmp/models/resnet50.onnx}
mkdir -p "$OUT"

if [[ ! -f "$MODEL" ]]; then
  echo "measure_resnet50: exporting $MODEL"
  /usr/bin/python3 tools/export_torchvision.py "$(dirname "$MODEL")" resnet50
fi

if [[ -z "${SKIP_BUILD:-}" ]]; then  # SKIP_BUILD=1: use the built binaries
  echo "== 1. build"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" --target calibrate analyze -j "${JOBS:-2}"
fi

echo "== 2. calibrate (1 thread, ${CALIBRATE_SECONDS} s)"
"$BUILD/tools/calibrate" --threads 1 --seconds "$CALIBRATE_SECONDS" \
  -o "$OUT/host-1t.json"

echo "== 3. profile with ONNX Runtime ($RUNS runs, 1 thread, optimization disabled)"
if [[ ! -d tests/profiles/node_modules/onnxruntime-node ]]; then
  (cd tests/profiles && npm install --ignore-scripts --no-audit --no-fund)
fi
node tests/profiles/profile_models.js --model "$MODEL" --levels disabled \
  --runs "$RUNS" --out "$OUT"
PROFILE="$OUT/$(basename "$MODEL" .onnx)_disabled.json"

echo "== 4. predicted vs measured"
# The warm-up run is left out when analyze has --skip-runs (ProfileOptions::
# skip_runs); otherwise all runs are averaged.
SKIP=()
if "$BUILD/tools/analyze" --help 2>&1 | grep -q -- --skip-runs; then
  SKIP=(--skip-runs 1)
fi
"$BUILD/tools/analyze" "$MODEL" --hw-file "$OUT/host-1t.json" \
  --measured "$PROFILE" "${SKIP[@]}" | tee "$OUT/comparison.txt"
"$BUILD/tools/analyze" "$MODEL" --hw-file "$OUT/host-1t.json" \
  --measured "$PROFILE" "${SKIP[@]}" --format json -o "$OUT/comparison.json"
python3 - "$OUT/comparison.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["measured"]
err = (m["predicted_s"] - m["measured_s"]) / m["measured_s"]
print(f"ResNet-50: predicted {m['predicted_s'] * 1e3:.2f} ms, measured "
      f"{m['measured_s'] * 1e3:.2f} ms ({m['runs']} runs, {m['measured_s_source']}), "
      f"prediction error {100 * err:+.1f}% of measured; Spearman of per-layer "
      f"times {m['spearman']:.3f}")
PY
echo "measure_resnet50: results in $OUT"
