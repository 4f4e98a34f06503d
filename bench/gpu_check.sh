#!/usr/bin/env bash
# The GPU check, in two halves.
#
#   bench/gpu_check.sh --prepare   on a machine with drape's Debian packages: copies the
#                                  header-only dependencies (GLM, nlohmann-json) and GoogleTest's
#                                  sources into .deps/ (ignored by git; carry it to the GPU machine)
#   bench/gpu_check.sh             on the GPU machine (nvcc, CMake, ninja; no packages, no
#                                  network): builds with DRAPE_CUDA=ON against .deps/, runs the
#                                  tests (CUDA ones included) and the benchmark, prints a table.
# Budget: about 3 minutes of build and 4 of benchmarks on one H200.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
  rm -rf .deps && mkdir -p .deps/include
  cp -r /usr/include/glm /usr/include/nlohmann /usr/include/nanovdb /usr/include/stb .deps/include/
  cp -r /usr/src/googletest .deps/googletest
  du -sh .deps
  exit 0
fi

[ -d .deps/include/glm ] || { echo "gpu_check: .deps/ is missing: run --prepare first and carry it" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
arch=${DRAPE_CUDA_ARCH:-90}
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAPE_CUDA=ON -DDRAPE_BUILD_BENCH=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" -DDRAPE_DEPS_DIR="$PWD/.deps" >/dev/null
time cmake --build build-gpu --parallel "$(nproc)" 2>&1 | tail -n 3
ctest --test-dir build-gpu --output-on-failure --timeout 120 2>&1 | tail -n 15
ctest --test-dir build-gpu -R 'Cuda' -V 2>&1 |
  grep -E 'max_vertex_difference|contacts|Passed|Skipped|Failed' || true
mkdir -p "${OUT:-bench/results}"
build-gpu/bench/bench_solvers --sizes 64,128,256,512,1024,2048 --reference-max 256 --frames 5 \
  --out "${OUT:-bench/results}/solvers_gpu.json"
build-gpu/bench/bench_self_collision --sizes 128,256 --frames 12 \
  --out "${OUT:-bench/results}/self_collision_gpu.json"
