#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang in build-fuzz and runs each
# for a bounded time, seeded from fuzz/seeds/<target>/ and, when present,
# ../shared/fixtures. Corpora go to build-fuzz/corpus/<target>/, crashing
# inputs to build-fuzz/crashes/<target>/, logs to build-fuzz/logs/.
# Exits 1 (after running every target) when any target found a crash, a
# hang or a leak, and prints the input's path.
# Usage: scripts/fuzz.sh [--seconds N] [TARGET...]   (default: 60 s, all targets)
#        scripts/fuzz.sh --ci [TARGET...]   a fixed number of runs per target from
#        a fixed seed and the seeds only (same commit, same result; the test suite's)
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

seconds=60
ci=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) ci=1; shift ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --seconds=*) seconds=${1#--seconds=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --seconds wants a positive whole number, got '$seconds'" >&2
  exit 2
fi

# Target -> the fixture folders that seed it, and its longest input.
declare -A FIXTURES=(
  [nvsmi_xml]="xml" [nvsmi_text]="text" [nvsmi_table]="other" [kernel_log]="kernel other"
  [bug_report]="other kernel text" [config]="" [report_json]="" [small_parsers]=""
  [scenario]="xml" [paste]="other text")
# Target -> folders of this repository that seed it besides fuzz/seeds/<target>.
declare -A REPO_SEEDS=([scenario]="tests/data/scenarios" [paste]="tests/data/tickets")
# Target -> executions in --ci mode (seeds included): 3-45 s each, 2.5 min in
# all, alone on a quiet 2-core machine (the slow ones read the long fixtures;
# most new inputs are found in the first thousands of runs).
declare -A CI_RUNS=(
  [nvsmi_xml]=40000 [nvsmi_text]=2500 [nvsmi_table]=10000 [kernel_log]=3000 [bug_report]=4000
  [config]=200000 [report_json]=40000 [small_parsers]=60000 [scenario]=4000 [paste]=4000)
declare -A MAX_LEN=(
  [nvsmi_xml]=131072 [nvsmi_text]=131072 [nvsmi_table]=65536 [kernel_log]=65536 [bug_report]=131072
  [config]=4096 [report_json]=16384 [small_parsers]=1024 [scenario]=65536 [paste]=65536)
if [ ${#targets[@]} -eq 0 ]; then
  targets=(nvsmi_xml nvsmi_text nvsmi_table kernel_log bug_report config report_json small_parsers scenario paste)
fi
for t in "${targets[@]}"; do
  if [ -z "${MAX_LEN[$t]+set}" ]; then echo "fuzz.sh: no target '$t'" >&2; exit 2; fi
done

fixtures=../shared/fixtures
if [ ! -d "$fixtures" ]; then
  echo "fuzz.sh: $fixtures not found; seeding from fuzz/seeds only"
fi

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
jobs=$(nproc); if [ "$jobs" -gt 2 ]; then jobs=2; fi
echo "== build (clang, libFuzzer + ASan + UBSan) =="
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DGPUDOCTOR_FUZZ=ON \
  -DGPUDOCTOR_TESTS=OFF -DGPUDOCTOR_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$jobs" --target fuzz_all

# Long runs yield the CPU to other work; short ones (the test suite's) need their share.
nice=()
if [ "$ci" = 0 ] && [ "$seconds" -gt 30 ]; then nice=(nice -n 10); fi
wall=$((seconds * 2 + 120))
if [ "$ci" = 1 ]; then wall=300; fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
summary=()
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  bound=(-max_total_time="$seconds")
  label="${seconds}s"
  if [ "$ci" = 1 ]; then
    # Not the kept corpus, which differs from machine to machine: a fresh one.
    corpus=build-fuzz/corpus-ci/$t
    rm -rf "$corpus"
    bound=(-runs="${CI_RUNS[$t]}" -seed=1)
    label="${CI_RUNS[$t]} runs"
  fi
  crashes=build-fuzz/crashes/$t
  log=build-fuzz/logs/$t.log
  mkdir -p "$corpus" "$crashes" build-fuzz/logs
  seeds=(fuzz/seeds/"$t")
  for d in ${REPO_SEEDS[$t]:-}; do seeds+=("$d"); done
  for d in ${FIXTURES[$t]}; do
    if [ -d "$fixtures/$d" ]; then seeds+=("$fixtures/$d"); fi
  done
  echo "== fuzz_$t: $label =="
  rc=0
  # New inputs go to the first folder only: the seeds are read, never written.
  timeout "$wall" "${nice[@]}" build-fuzz/fuzz/fuzz_"$t" \
    "${bound[@]}" -timeout=5 -rss_limit_mb=2048 -max_len="${MAX_LEN[$t]}" \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="FAILED (exit $rc)"
    failed=1
    echo "fuzz_$t failed (exit $rc); the end of $log:"
    grep -E 'ERROR|invariant failed|runtime error|SUMMARY|Test unit written' "$log" | tail -8 || true
    # The inputs this run saved (libFuzzer names them crash-, timeout-, oom-, leak-<sha1>).
    grep -o 'Test unit written to .*' "$log" | sed 's/^Test unit written to /crashing input: /' || true
  fi
  summary+=("$(printf '%-14s %12s %12s execs  corpus %-14s %s' "$t" "$label" "${execs:-?}" "${corp:-?}" "$result")")
done

corpora=build-fuzz/corpus; if [ "$ci" = 1 ]; then corpora=build-fuzz/corpus-ci; fi
echo "== fuzz summary (corpora in $corpora, crashes in build-fuzz/crashes) =="
printf '%s\n' "${summary[@]}"
exit "$failed"
