#!/usr/bin/env bash
# Installs drape's build dependencies from Debian's packages (skipped when already present) and
# builds everything into build/. Safe to run again: it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libglm-dev nlohmann-json3-dev libgtest-dev libnanovdb-dev libopenvdb-dev
  libboost-dev libtbb-dev libstb-dev pybind11-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python packages the tests use: Pixar's USD library (reads the USD cache back), numpy and pytest
# (the Python module's tests), Ray (drape.batch).
for module in pxr:usd-core numpy:numpy pytest:pytest ray:ray; do
  if ! python3 -c "import ${module%%:*}" >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
    echo "setup: installing ${module#*:} (PyPI) for the tests" >&2
    python3 -m pip install -q "${module#*:}" >/dev/null 2>&1 || echo "setup: ${module#*:} unavailable" >&2
  fi
done

build_dir=${DRAPE_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAPE_BUILD_BENCH=ON \
  ${DRAPE_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir"
