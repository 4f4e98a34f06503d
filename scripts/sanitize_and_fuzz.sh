#!/usr/bin/env bash
# Builds drape with clang, AddressSanitizer and UndefinedBehaviorSanitizer into build-san/, runs
# the unit tests there, then runs each libFuzzer target (OBJ, PLY, scene) for FUZZ_SECONDS
# (default 60) from its seed corpus in tests/fuzz/corpus/. Any sanitizer report or fuzzer crash
# fails the script; a crash input is left in build-san/fuzz-crashes/ to become a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(clang-14 libclang-rt-14-dev libomp-14-dev)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

build=build-san
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDRAPE_CUDA=OFF -DDRAPE_SANITIZE=ON -DDRAPE_FUZZ=ON -DDRAPE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure

seconds=${FUZZ_SECONDS:-60}
mkdir -p "$build/fuzz-crashes"
for target in obj ply scene; do
  work="$build/fuzz-corpus/$target"
  mkdir -p "$work"
  cp tests/fuzz/corpus/"$target"/* "$work"/
  echo "fuzz_$target: ${seconds}s" >&2
  "$build/tests/fuzz/fuzz_$target" "$work" -max_total_time="$seconds" -max_len=4096 \
    -rss_limit_mb=2048 -artifact_prefix="$build/fuzz-crashes/$target-" -print_final_stats=1 \
    2>"$build/fuzz-$target.log" || { tail -n 40 "$build/fuzz-$target.log"; exit 1; }
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/fuzz-$target.log" >&2
done
echo "sanitizers and fuzzers: clean"
