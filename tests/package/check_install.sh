#!/usr/bin/env bash
# Installs a built drape into a temporary prefix, then configures, builds and runs the consumer
# project of tests/package/consumer against it (find_package(drape), drape::drape) on SCENE.
# Usage: check_install.sh BUILD_DIR SCENE EXPECTED_OUTPUT
set -euo pipefail
build=$1 scene=$2 expected=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/lib/cmake/drape/drapeConfig.cmake"
test -f "$work/prefix/lib/cmake/drape/drapeConfigVersion.cmake"
test -f "$work/prefix/include/drape/simulation.h"
test -f "$work/prefix/include/drape/version.h"
test -x "$work/prefix/bin/drape"
# Only the public headers are installed: none of src/'s internals.
if find "$work/prefix/include" -name 'cloth.h' -o -name 'solver.h' | grep -q .; then
  echo "check_install: internal headers were installed" >&2
  exit 1
fi
"$work/prefix/bin/drape" --version

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here/consumer" -B "$work/consumer" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
output=$("$work/consumer/consumer" "$scene")
echo "$output"
if [ "$output" != "$expected" ]; then
  echo "check_install: expected '$expected'" >&2
  exit 1
fi
