#!/usr/bin/env bash
# Installs the `drape` Python module for `python3` (or $PYTHON) with pip, after drape's Debian
# build dependencies (scripts/setup.sh, which also builds build/):
#   scripts/install_python.sh            PYTHON=/path/to/venv/bin/python scripts/install_python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh && "${PYTHON:-python3}" -m pip install . && "${PYTHON:-python3}" -c 'import drape; print("import drape: ok, version", drape.__version__)'
