#!/usr/bin/env bash
# Times gpudoctor's kernel-log scan against `grep -c 'NVRM: Xid'` over the
# same generated log, in the same run, and prints a table.
#
#   bench/kernel_scan_vs_grep.sh [BUILD_DIR] [SIZE_MIB] [REPETITIONS]
#
# BUILD_DIR holds bench/kernel_scan (default: build). The log (default
# 1024 MiB) is generated once into /tmp and reused while its size matches:
# syslog-style traffic (kernel, systemd, containerd, kubelet, audit, network
# lines) with a few hundred Xid lines. Both commands read it from the page
# cache; the first, warming read is not timed.
set -euo pipefail

BUILD_DIR=${1:-build}
SIZE_MIB=${2:-1024}
REPS=${3:-5}
SCAN="$BUILD_DIR/bench/kernel_scan"
LOG=${KERNEL_SCAN_LOG:-/tmp/gpudoctor-kernel-scan-${SIZE_MIB}MiB.log}

if [ ! -x "$SCAN" ]; then
  echo "no $SCAN; build it with: ninja -C $BUILD_DIR kernel_scan" >&2
  exit 2
fi

want=$((SIZE_MIB * 1024 * 1024))
have=$(stat -c %s "$LOG" 2>/dev/null || echo 0)
if [ "$have" -lt "$want" ]; then
  echo "generating $LOG ($SIZE_MIB MiB) ..." >&2
  python3 "$(dirname "$0")/gen_syslog.py" "$LOG" "$want"
fi

cat "$LOG" > /dev/null  # into the page cache, untimed

OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
ms() { echo $(( ($2 - $1) / 1000000 )); }

echo "file: $LOG ($(($(stat -c %s "$LOG") / 1048576)) MiB)"
echo "grep: $(grep -c 'NVRM: Xid' "$LOG") matching lines;  kernel_scan: $("$SCAN" "$LOG")"
echo
printf "%-4s %12s %12s %10s\n" "rep" "grep (ms)" "scan (ms)" "scan/grep"
grep_all=() scan_all=()
for rep in $(seq 1 "$REPS"); do
  # Output goes to a file, not /dev/null: GNU grep stops at the first match
  # when it sees its output is /dev/null.
  t0=$(date +%s%N); grep -c 'NVRM: Xid' "$LOG" > "$OUT"; t1=$(date +%s%N)
  "$SCAN" "$LOG" > "$OUT"; t2=$(date +%s%N)
  g=$(ms "$t0" "$t1"); s=$(ms "$t1" "$t2")
  grep_all+=("$g"); scan_all+=("$s")
  printf "%-4s %12d %12d %10s\n" "$rep" "$g" "$s" "$(awk -v s="$s" -v g="$g" 'BEGIN{printf "%.2f", s/g}')"
done
median() { printf "%s\n" "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
gm=$(median "${grep_all[@]}"); sm=$(median "${scan_all[@]}")
echo
printf "median: grep %d ms (%s MiB/s), scan %d ms (%s MiB/s), scan takes %sx grep's time\n" \
  "$gm" "$(awk -v m="$SIZE_MIB" -v t="$gm" 'BEGIN{printf "%.0f", m*1000/t}')" \
  "$sm" "$(awk -v m="$SIZE_MIB" -v t="$sm" 'BEGIN{printf "%.0f", m*1000/t}')" \
  "$(awk -v s="$sm" -v g="$gm" 'BEGIN{printf "%.2f", s/g}')"
