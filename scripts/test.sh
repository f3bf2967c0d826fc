#!/usr/bin/env bash
# Builds gpudoctor and runs the whole test suite twice: a normal build, then
# an AddressSanitizer + UndefinedBehaviorSanitizer build in its own directory.
# Usage: scripts/test.sh            (from anywhere in the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh

jobs=$(nproc)

# -O2 without debug info (Release, at RelWithDebInfo's -O2) for the first pass: it builds noticeably faster on
# small CI machines; the sanitizer pass below carries debug info for traces.
echo "== build (Release) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
cmake --build build -j "$jobs"
echo "== tests =="
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 300

echo "== build (ASan + UBSan) =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUDOCTOR_SANITIZE=ON -DGPUDOCTOR_BENCH=OFF >/dev/null
cmake --build build-asan -j "$jobs"
echo "== tests under ASan + UBSan =="
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 600

echo "== fuzz targets, a fixed number of runs from a fixed seed (clang; scripts/fuzz.sh --seconds N to explore) =="
bash scripts/fuzz.sh --ci
