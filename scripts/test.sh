#!/usr/bin/env bash
# Builds gpudoctor and runs the whole test suite: a Release build (-O3, the
# flags packagers use) and its tests, the Debian package (built, and with
# CI=true installed, checked and purged), an AddressSanitizer +
# UndefinedBehaviorSanitizer build and the same tests under it, then every
# fuzz target for a fixed number of runs. With CI=true also the container
# image's root file system (scripts/container_rootfs.sh). Work that waits
# more than it computes runs beside the phase before it (nice 19, raised
# when waited for): the test packages' install beside the Release build,
# the ASan build and the fuzz targets beside the package and the Release
# tests, the container beside the Release tests.
# Warnings are errors here (GPUDOCTOR_WERROR). Each phase prints its time;
# DEVELOPMENT.md has the figures.
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

# Most phases wait on processes, timers, the network or dpkg, so other work
# runs beside them at the lowest priority (nice 19): the packages the tests
# run install during the Release build, the ASan build and the fuzz targets
# during the package and the Release tests, the container image's root file
# system during the Release tests.
# Each prints to its own log, shown when it is waited for.
background_pids=()
trap 'for p in "${background_pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done' EXIT
# Starts "$@" in the background at nice 19 in a process group of its own
# (its pid is the group's id), so that it and everything it starts can be
# raised to normal priority together, or stopped together.
start_background() {
  nice -n 19 setsid --wait "$@" &
}
# Waits for background job PID; on failure prints the end of LOG and stops.
# What the run now waits for goes back to normal priority first: at nice 19
# beside other work at nice 0 (a busy machine, a CPU hog) it would get a
# hundredth of the CPU. Raising a priority needs root (CI); otherwise it
# stays at nice 19.
wait_for() {
  local pid=$1 log=$2 what=$3
  renice -n 0 -g "$pid" >/dev/null 2>&1 || true
  if ! wait "$pid"; then
    echo "$what failed; the end of $log:"
    tail -n 60 "$log"
    exit 1
  fi
}

phase "bootstrap (what the builds need)"
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/bootstrap.sh --test-build
else
  # sudo may ask for a password, which a job in the background cannot:
  # everything now (the job below then only checks).
  bash scripts/bootstrap.sh
fi
# The packages the tests run (servers, browsers, clang, Slurm, mmdebstrap)
# install beside the Release build: on a fresh machine that is minutes of
# downloading and unpacking, little of it CPU.
mkdir -p build
bootstrap_log=build/bootstrap.log
echo "(the packages the tests run install beside the Release build; log: $bootstrap_log)"
start_background bash scripts/bootstrap.sh >"$bootstrap_log" 2>&1
bootstrap_pid=$!
background_pids+=("$bootstrap_pid")

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

# clang-format and clang-tidy against their baselines (scripts/lint.sh): new
# violations only; clang-tidy on the files changed since its baseline, within
# a time budget. Before the build, so that a failure comes in minutes.
phase "lint (clang-format, clang-tidy: new violations only)"
bash scripts/lint.sh

phase "build (Release -O3, dpkg-buildflags hardening)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_WERROR=ON \
  -DCMAKE_CXX_FLAGS="${hardening[*]}" -DCMAKE_EXE_LINKER_FLAGS="$linker_flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$linker_flags" >/dev/null
cmake --build build -j "$jobs"
bash scripts/check_hardening.sh build/gpudoctor

# -O1 with line tables: the tests run about twice as fast as at -O0 and the
# sanitizers' traces still name file and line.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DGPUDOCTOR_SANITIZE=ON -DGPUDOCTOR_BENCH=OFF -DGPUDOCTOR_WERROR=ON >/dev/null
asan_log=build-asan/build.log
asan_start_s=$SECONDS
echo "(the ASan + UBSan build starts beside the next phases, nice 19; log: $asan_log)"
start_background cmake --build build-asan -j "$jobs" >"$asan_log" 2>&1
asan_pid=$!
background_pids+=("$asan_pid")

# ctest starts the tests it expects to take longest first when it has their
# past times (Testing/Temporary/CTestCostData.txt in the build folder); a
# fresh build has none and would start them in the order they are listed,
# so a minute-long test begun last drew the phase out by its length. A build
# without times of its own starts from tests/ctest_costs.txt: the tests that
# took 2 s or more in an earlier run and their times.
seed_test_costs() {
  local dir="$1/Testing/Temporary"
  if [ ! -s "$dir/CTestCostData.txt" ]; then
    mkdir -p "$dir"
    cp tests/ctest_costs.txt "$dir/CTestCostData.txt"
  fi
}

phase "bootstrap: the packages the tests run (what is left)"
wait_for "$bootstrap_pid" "$bootstrap_log" "scripts/bootstrap.sh"
tail -n 1 "$bootstrap_log"

# The fuzz targets (clang, one of the packages just installed) build and
# run beside the package, the Release tests and the ASan build. Beside the
# ASan tests, which wait on processes and timers, they drew that phase out
# by more than their own time (684 s against 509 s alone); they are done
# before it starts.
mkdir -p build-fuzz
fuzz_log=build-fuzz/ci.log
fuzz_start_s=$SECONDS
echo "(the fuzz build and runs start beside the next phases, nice 19; log: $fuzz_log)"
start_background bash scripts/fuzz.sh --ci >"$fuzz_log" 2>&1
fuzz_pid=$!
background_pids+=("$fuzz_pid")

# Before the tests: with CI=true the package is installed, checked and purged
# (apt), which must not run beside the tests.
phase "Debian package"
bash scripts/package.sh build

# The container image's root file system from Debian's packages with the
# package just built, gpudoctor run inside it (needs root and the network's
# Debian mirror, so with CI=true, as the package's install check). It waits
# on the mirror and dpkg more than on the CPU, so it runs beside the Release
# tests.
if [ "${CI:-}" = true ]; then
  container_log=build/container.log
  echo "(the container image's root file system is built beside the Release tests; log: $container_log)"
  start_background bash scripts/container_rootfs.sh build >"$container_log" 2>&1
  container_pid=$!
  background_pids+=("$container_pid")
fi

phase "tests (Release)"
seed_test_costs build
ctest --test-dir build --output-on-failure -j "$test_jobs" --timeout 300

if [ "${CI:-}" = true ]; then
  phase "container image root file system (mmdebstrap, chroot): what is left"
  wait_for "$container_pid" "$container_log" "scripts/container_rootfs.sh"
  grep '^container_rootfs:' "$container_log" || true
fi

phase "build (ASan + UBSan, -O1): what is left after the phases beside it"
wait_for "$asan_pid" "$asan_log" "the ASan + UBSan build"
tail -n 1 "$asan_log"
echo "(the ASan + UBSan build took $((SECONDS - asan_start_s)) s from its start)"

phase "fuzz targets, a fixed number of runs from a fixed seed (scripts/fuzz.sh --seconds N to explore): what is left"
wait_for "$fuzz_pid" "$fuzz_log" "scripts/fuzz.sh --ci"
sed -n '/== fuzz summary/,$p' "$fuzz_log"
echo "(the fuzz build and runs took $((SECONDS - fuzz_start_s)) s from their start)"

phase "tests under ASan + UBSan"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
seed_test_costs build-asan
ctest --test-dir build-asan --output-on-failure -j "$test_jobs" --timeout 600
unset ASAN_OPTIONS UBSAN_OPTIONS

phase ""
echo "== phase times =="
for i in "${!phase_names[@]}"; do
  printf '%6d s  %s\n' "${phase_times[$i]}" "${phase_names[$i]}"
done
printf '%6d s  total\n' "$((SECONDS - start_s))"
