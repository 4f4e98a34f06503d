#!/usr/bin/env bash
# The GPU check, in two halves.
#
#   bench/gpu_check.sh --prepare   on a machine with drape's Debian packages and a built drape
#                                  (DRAPE_EXE, default build/drape or build-dev/drape): copies the
#                                  header-only dependencies (GLM, nlohmann-json, NanoVDB, stb) and
#                                  GoogleTest's sources into .deps/ (ignored by git; carry it to
#                                  the GPU machine), and the dress scene on the mannequin (issue 17,
#                                  scene b) with its body as a NanoVDB level set, since the GPU
#                                  machine has no OpenVDB to build one (needs data/dress/ from
#                                  scripts/dress_scene.py; skipped without it)
#   bench/gpu_check.sh             on the GPU machine (nvcc, CMake, ninja, python3; no packages,
#                                  no network): builds with DRAPE_CUDA=ON against .deps/, runs
#                                  every test (the CUDA ones included), the benchmarks, and the
#                                  default scene and the dress on `cpu` and on `cuda`; prints
#                                  tables. Logs and JSON go to $OUT (or bench/results/): 6 files.
# Budget: about 1 minute of build, 1 of tests and 4 of benchmarks and scenes on one H200.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
  rm -rf .deps && mkdir -p .deps/include .deps/scenes
  cp -r /usr/include/glm /usr/include/nlohmann /usr/include/nanovdb /usr/include/stb .deps/include/
  cp -r /usr/src/googletest .deps/googletest
  exe=${DRAPE_EXE:-}
  for candidate in build/drape build-dev/drape; do
    [ -z "$exe" ] && [ -x "$candidate" ] && exe=$candidate
  done
  panels=../shared/data/garments/dress_panels.obj
  if [ -n "$exe" ] && [ -f data/dress/dress.obj ] && [ -f "$panels" ]; then
    cp data/dress/dress.obj "$panels" .deps/scenes/
    "$exe" sdf data/dress/mannequin.obj -o .deps/scenes/mannequin.nvdb --voxel-size 0.004
    python3 - data/dress_mannequin.json .deps/scenes/dress_mannequin.json <<'EOF'
import json, sys
scene = json.load(open(sys.argv[1]))
scene["cloth"].update(mesh="dress.obj", rest_mesh="dress_panels.obj", stitches="dress_panels.obj")
body = scene["colliders"][0]
for key in ("mesh", "voxel_size"):
    body.pop(key)
body["nvdb"] = "mannequin.nvdb"
json.dump(scene, open(sys.argv[2], "w"), indent=2)
EOF
  else
    echo "gpu_check: no dress scene (needs a built drape, data/dress/ and $panels)" >&2
  fi
  du -sh .deps
  exit 0
fi

[ -d .deps/include/glm ] || { echo "gpu_check: .deps/ is missing: run --prepare first and carry it" >&2; exit 2; }
out=${OUT:-bench/results}
mkdir -p "$out"
[ -d /usr/local/cuda/bin ] && PATH=/usr/local/cuda/bin:$PATH
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "nvcc $(nvcc --version | tail -n 1), $(cmake --version | head -n 1), $(nproc) CPUs"
arch=${DRAPE_CUDA_ARCH:-90}
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAPE_CUDA=ON -DDRAPE_BUILD_BENCH=ON \
  -DDRAPE_PYTHON=OFF -DDRAPE_OPENVDB=OFF -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DDRAPE_DEPS_DIR="$PWD/.deps" >"$out/build.log"
time cmake --build build-gpu --parallel "$(nproc)" >>"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; exit 1; }

ctest --test-dir build-gpu -j "$(nproc)" --output-on-failure --timeout 300 >"$out/ctest.log" 2>&1 ||
  true
grep -E 'tests passed|tests failed|\*\*\*Failed|Timeout|Not Run' "$out/ctest.log" | tail -n 20
ctest --test-dir build-gpu -R 'Cuda' -V >"$out/ctest_cuda.log" 2>&1 || true
grep -E 'max_vertex_difference|contacts|Passed|Skipped|Failed' "$out/ctest_cuda.log" || true

# Whole scenes through the command line: the same scene on cpu (all cores) and on cuda.
echo
echo "| scene | backend | threads | frames | ms/frame | max inside | max self-intersections | max stitch gap mm | last frames apart mm |"
echo "|---|---|---|---|---|---|---|---|---|"
rm -f "$out/scenes_gpu.json"
run_scene() {  # label scene frames
  local dir
  dir=$(mktemp -d)
  for backend in cpu cuda; do
    build-gpu/drape simulate "$2" --backend "$backend" --frames "$3" --format obj --quiet \
      -o "$dir/$backend" >"$dir/$backend.log" 2>&1 || { echo "| $1 | $backend | failed: $(tail -n 1 "$dir/$backend.log") |"; return 0; }
  done
  python3 bench/compare_runs.py "$1" "$dir/cpu" "$dir/cuda" --json "$out/scenes_gpu.json"
}
run_scene sphere_drape data/sphere_drape.json 72
[ -f .deps/scenes/dress_mannequin.json ] && run_scene dress_mannequin .deps/scenes/dress_mannequin.json 24

# The benchmarks last, the longest at the end (their rows print as they come).
build-gpu/bench/bench_self_collision --sizes 128,256 --frames 12 \
  --out "$out/self_collision_gpu.json"
build-gpu/bench/bench_solvers --sizes 64,128,256,512,1024,2048 --reference-max 256 --frames 5 \
  --out "$out/solvers_gpu.json" | grep -v '^| \(obj\|ply\) '
