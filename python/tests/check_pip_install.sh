#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment, then, from outside the source tree, imports
# drape from that environment and checks that it steps the default scene to the CLI's frame bit
# for bit, and that drape.batch finds the drape command the package installed. Needs PyPI (scikit-build-core, pybind11, numpy) and drape's Debian build dependencies.
# Usage: check_pip_install.sh SOURCE_DIR DRAPE_EXE
set -euo pipefail
source_dir=$1 drape=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
# The cuda backend is left out to keep this check short; a plain `pip install .` builds it when
# nvcc is found.
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$work/venv/bin/pip" install -q "$source_dir" \
  -C cmake.define.DRAPE_CUDA=OFF
cd "$work"
"$drape" simulate "$source_dir/data/sphere_drape.json" --frames 2 -o cli --quiet
"$work/venv/bin/python" - "$source_dir/data/sphere_drape.json" cli/cloth.0002.ply "$work" <<'PY'
import sys
import numpy as np
import drape

scene, ply, venv_root = sys.argv[1], sys.argv[2], sys.argv[3]
assert drape.__file__.startswith(venv_root), "drape came from " + drape.__file__
sim = drape.load_scene(scene)
sim.step(2)
data = open(ply, "rb").read()
end = data.index(b"end_header\n") + len(b"end_header\n")
frame = np.frombuffer(data, dtype="<f4", count=3 * 4096, offset=end).reshape(-1, 3)
assert np.array_equal(sim.positions, frame), "the module's frame 2 differs from the CLI's"
print("pip-installed drape %s from %s: frame 2 equals the CLI's" % (drape.__version__, drape.__file__))

# drape.batch runs the command installed inside the package.
from drape import runner
exe = runner.drape_executable()
assert exe.startswith(venv_root) and exe.endswith("drape/bin/drape"), exe
import subprocess
version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
assert drape.__version__ in version, version
print("drape.batch runs %s (%s)" % (exe, version.strip()))
PY
"$work/venv/bin/python" -m drape.batch --help >/dev/null
