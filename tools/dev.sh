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
  # The Python package (tools/python) and its tests; torch/torchvision for
  # ridgeline.from_torch and its test, pandas for Report.to_pandas().
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-pandas
  python3-torch python3-torchvision
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

# Unity build (CMake batches of 8 sources per compiler run): a fresh Release
# build on 2 cores took about 560 s instead of 870 s (README), and CI builds
# fresh; set
# RIDGELINE_UNITY_BUILD=OFF for quick incremental rebuilds while editing.
UNITY=${RIDGELINE_UNITY_BUILD:-ON}

build() {
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_PYTHON=ON \
    -DCMAKE_UNITY_BUILD="$UNITY" "$@"
  cmake --build "$BUILD" -j "$JOBS"
  install_python
}

# Copies the built package ($BUILD/python/ridgeline: the .py files and the
# extension) into /usr/bin/python3's site-packages
# (/usr/local/lib/python3.X/dist-packages), so `import ridgeline` works from
# any folder without the checkout; every build re-installs it.
install_python() {
  local dest SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  dest=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
  $SUDO mkdir -p "$dest"
  $SUDO rm -rf "$dest/ridgeline"
  $SUDO cp -r "$BUILD/python/ridgeline" "$dest/ridgeline"
  (cd / && /usr/bin/python3 -c 'import ridgeline') \
    || { echo "dev.sh: import ridgeline failed after installing into $dest" >&2; return 1; }
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
