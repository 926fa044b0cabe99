#!/usr/bin/env bash
# One entry point for setting up, building and testing ridgeline on a fresh
# Debian 12 machine (run as root, or with sudo available).
#
#   bash tools/dev.sh demo   # install what is missing, build, analyze a built-in model
#   bash tools/dev.sh test   # install what is missing, build, run the whole test suite
#   bash tools/dev.sh build  # install + build only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${RIDGELINE_BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc)}

APT_PACKAGES=(
  build-essential cmake pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler libabsl-dev libboost-graph-dev
  libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  python3 python3-onnx python3-numpy libonnx-testdata
  chromium chromium-driver
)

install_deps() {
  local missing=()
  for p in "${APT_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "dev.sh: installing ${missing[*]}"
    local SUDO=""
    [[ $(id -u) -ne 0 ]] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$BUILD" -j "$JOBS"
}

case "${1:-}" in
  install) install_deps "${@:2}" ;;
  build) install_deps; build ;;
  demo)
    install_deps; build
    "$BUILD/tools/analyze" --zoo resnet50 --hw h100
    ;;
  test)
    install_deps; build
    (cd "$BUILD" && ctest --output-on-failure -j "$JOBS")
    ;;
  *)
    echo "usage: bash tools/dev.sh demo|test|build|install" >&2
    exit 1
    ;;
esac
