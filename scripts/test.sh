#!/usr/bin/env bash
# Builds gpudoctor and runs the whole test suite: a Release build (-O3, the
# flags packagers use) and its tests, the Debian package (built, and with
# CI=true installed, checked and purged), an AddressSanitizer +
# UndefinedBehaviorSanitizer build and the same tests under it, then every
# fuzz target for a fixed number of runs. Warnings are errors here
# (GPUDOCTOR_WERROR). Each phase prints its time; DEVELOPMENT.md has the
# figures.
# Usage: scripts/test.sh            (from anywhere in the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."

start_s=$SECONDS
phase_names=()
phase_times=()
phase_start_s=$SECONDS
phase_name=""
phase() {
  local now=$SECONDS
  if [ -n "$phase_name" ]; then
    phase_names+=("$phase_name")
    phase_times+=("$((now - phase_start_s))")
    echo "-- $phase_name: $((now - phase_start_s)) s"
  fi
  phase_name="$1"
  phase_start_s=$now
  if [ -n "$phase_name" ]; then echo "== $phase_name =="; fi
}

phase "bootstrap"
bash scripts/bootstrap.sh

jobs=$(nproc)
# Most tests wait on processes, servers and timers rather than compute: at
# two per core the Release tests kept a fifth of the CPU busy and the ASan
# tests a half; four per core nearly halve both phases (no test asserts a
# time; DEVELOPMENT.md has the figures).
test_jobs=$((jobs * 4))

# Debian's hardening flags, as a package build passes them (fortify, stack
# protector, format security, relro), less dpkg-buildflags' -g -O2 and path
# map: the build type's -O3 governs, and the binary the tests run and the
# package holds is built the way Debian builds packages.
hardening=()
for flag in $(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS); do
  case "$flag" in -g | -O2 | -ffile-prefix-map=*) ;; *) hardening+=("$flag") ;; esac
done
linker_flags=$(dpkg-buildflags --get LDFLAGS)
echo "hardening: ${hardening[*]} $linker_flags"

phase "build (Release -O3, dpkg-buildflags hardening)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_WERROR=ON \
  -DCMAKE_CXX_FLAGS="${hardening[*]}" -DCMAKE_EXE_LINKER_FLAGS="$linker_flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$linker_flags" >/dev/null
cmake --build build -j "$jobs"
bash scripts/check_hardening.sh build/gpudoctor

phase "tests (Release)"
ctest --test-dir build --output-on-failure -j "$test_jobs" --timeout 300

phase "Debian package"
bash scripts/package.sh build

# -O1 with line tables: the tests run about twice as fast as at -O0 and the
# sanitizers' traces still name file and line.
phase "build (ASan + UBSan, -O1)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DGPUDOCTOR_SANITIZE=ON -DGPUDOCTOR_BENCH=OFF -DGPUDOCTOR_WERROR=ON >/dev/null
cmake --build build-asan -j "$jobs"

phase "tests under ASan + UBSan"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-asan --output-on-failure -j "$test_jobs" --timeout 600
unset ASAN_OPTIONS UBSAN_OPTIONS

phase "fuzz targets, a fixed number of runs from a fixed seed (scripts/fuzz.sh --seconds N to explore)"
bash scripts/fuzz.sh --ci

phase ""
echo "== phase times =="
for i in "${!phase_names[@]}"; do
  printf '%6d s  %s\n' "${phase_times[$i]}" "${phase_names[$i]}"
done
printf '%6d s  total\n' "$((SECONDS - start_s))"
