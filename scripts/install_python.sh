#!/usr/bin/env bash
# Builds drape (scripts/setup.sh, which also installs pybind11-dev) and installs the `drape`
# Python module into the site-packages of `python3` (or of $PYTHON). One command:
#   scripts/install_python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
DRAPE_CMAKE_ARGS="-DDRAPE_PYTHON=ON -DPython3_EXECUTABLE=$(command -v "$python") ${DRAPE_CMAKE_ARGS:-}" \
  scripts/setup.sh
module=$(ls "${DRAPE_BUILD_DIR:-build}"/python/drape*.so)
target=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
cp "$module" "$target"/
echo "installed $(basename "$module") into $target"
"$python" -c 'import drape; print("import drape: ok, version", drape.__version__)'
