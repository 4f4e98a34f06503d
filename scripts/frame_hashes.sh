#!/usr/bin/env bash
# Prints the SHA-256 of every cached frame of four runs, one "run/file hash" line each, so that a
# refactor can prove it changed no output (compare two builds' lists with diff):
#   sphere_cpu        data/sphere_drape.json on cpu (2 threads)
#   sphere_reference  data/sphere_drape.json on reference
#   folding           data/folding_cloth.json (self-collision) on cpu (2 threads)
#   body              a 48x48 cloth dropped on the shared body mesh (a mesh collider, 24 frames;
#                     skipped with a note when $DRAPE_DATA_DIR, default ../shared/data, is absent)
# Usage: scripts/frame_hashes.sh [DRAPE_EXE] > hashes.txt
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build/drape}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
  local name=$1
  shift
  "$exe" simulate "$@" -o "$work/$name" --quiet
  (cd "$work" && sha256sum "$name"/*.ply | awk '{print $2, $1}')
}

run sphere_cpu data/sphere_drape.json --backend cpu --threads 2
run sphere_reference data/sphere_drape.json --backend reference
run folding data/folding_cloth.json --backend cpu --threads 2

body=$(realpath -m "${DRAPE_DATA_DIR:-../shared/data}/bodies/mean_all.obj")
if [ -f "$body" ]; then
  cat >"$work/body.json" <<EOF
{
  "fps": 24, "frames": 24,
  "solver": {"backend": "cpu", "substeps": 8, "iterations": 10},
  "cloth": {"mesh": {"grid": {"resolution": [48, 48], "size": [0.9, 0.9], "center": [0, 1.6, 0]}},
            "stretch": 1.0, "shear": 0.9, "bend": 0.05},
  "colliders": [{"mesh": "$body", "voxel_size": 0.01, "friction": 0.5}]
}
EOF
  run body "$work/body.json" --threads 2
else
  echo "frame_hashes: $body is absent: the body run is skipped" >&2
fi
