#!/usr/bin/env bash
# Store size per GPU-sample against Prometheus's TSDB for the same samples,
# and the `report` read (ReadWindow over the last 24 h) of the same store.
#
#   bench/store_vs_tsdb.sh [BUILD_DIR] [HOURS] [GPUS] [PROM_PORT]
#
# BUILD_DIR holds bench/store_week (default: build; `ninja -C BUILD_DIR
# store_week`). store_week simulates GPUS (default 8) GPUs at 1 Hz for HOURS
# (default 168, a week) into a fresh store under /tmp and writes the same
# samples (every numeric field, one series per field per GPU) as OpenMetrics,
# one file per 2 h block; promtool (Debian package `prometheus`) turns each
# into a TSDB block while the rest is being written, and the file is deleted.
#
# Two TSDB figures: the 2 h blocks as promtool writes them, and the same
# blocks after Prometheus itself has compacted them (the server is started on
# the block directory, 127.0.0.1:PROM_PORT, default 19390, retention 10 years
# so that nothing is dropped and blocks merge up to Prometheus's largest
# range; it is stopped once the block count has not changed for 3 minutes).
# Sizes are `du -sb` of the store directory and of the TSDB's block
# directories (not the server's empty head and WAL).
set -euo pipefail

BUILD_DIR=${1:-build}
HOURS=${2:-168}
GPUS=${3:-8}
PROM_PORT=${4:-19390}
WEEK="$BUILD_DIR/bench/store_week"
TAG="${HOURS}h-${GPUS}gpu"
STORE=/tmp/gpudoctor-store-$TAG
OMDIR=/tmp/gpudoctor-om-$TAG
TSDB=/tmp/gpudoctor-tsdb-$TAG
work=$(mktemp -d)
# shellcheck source=bench/server_bench_lib.sh
source "$(dirname "$0")/server_bench_lib.sh"

if [ ! -x "$WEEK" ]; then
  echo "no $WEEK; build it with: ninja -C $BUILD_DIR store_week" >&2
  exit 2
fi
require_tools promtool prometheus curl
refuse_ports_in_use "$PROM_PORT"

rm -rf "$STORE" "$TSDB" "$OMDIR"
mkdir -p "$TSDB"

convert_ready() {
  local f
  for f in "$OMDIR"/*.om; do
    [ -e "$f" ] || return 0
    promtool tsdb create-blocks-from openmetrics "$f" "$TSDB" >/dev/null
    rm -f "$f"
  done
}

"$WEEK" write "$STORE" "$HOURS" "$GPUS" "$OMDIR" > "$work/write.txt" &
writer=$!
pids+=("$writer")
while kill -0 "$writer" 2>/dev/null; do
  convert_ready
  sleep 5
done
wait "$writer"
convert_ready
rmdir "$OMDIR"
cat "$work/write.txt"

block_dirs() { find "$TSDB" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended -regex '.*/[0-9A-Z]{26}'; }
block_bytes() { block_dirs | xargs du -sbc | tail -1 | cut -f1; }

samples=$(awk '/^gpu_samples/ {print $2}' "$work/write.txt")
store_bytes=$(du -sb "$STORE" | cut -f1)
tsdb2h_blocks=$(block_dirs | wc -l)
tsdb2h_bytes=$(block_bytes)

printf 'global:\n  scrape_interval: 1h\n' > "$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$TSDB" \
  --storage.tsdb.retention.time=3650d --web.listen-address="127.0.0.1:$PROM_PORT" \
  > "$work/prometheus.log" 2>&1 &
pids+=("$!")
last=$(block_dirs | wc -l)
stable_s=0
for _ in $(seq 1 180); do  # at most 30 min
  sleep 10
  now=$(block_dirs | wc -l)
  if [ "$now" = "$last" ]; then stable_s=$((stable_s + 10)); else stable_s=0; last=$now; fi
  [ "$stable_s" -ge 180 ] && break
done
kill "${pids[-1]}"
wait "${pids[-1]}" 2>/dev/null || true
compacted_blocks=$(block_dirs | wc -l)
compacted_bytes=$(block_bytes)
compacted_ranges=$(for d in $(block_dirs); do
  jq -r '((.maxTime - .minTime) / 3600000 + 0.5 | floor | tostring) + "h"' "$d/meta.json"; done | sort | uniq -c |
  awk '{printf "%s%s x %s", sep, $1, $2; sep=", "}')

echo "store_bytes $store_bytes"
echo "tsdb_2h_blocks $tsdb2h_blocks"
echo "tsdb_2h_bytes $tsdb2h_bytes"
echo "tsdb_compacted_blocks $compacted_blocks ($compacted_ranges)"
echo "tsdb_compacted_bytes $compacted_bytes"
awk -v s="$store_bytes" -v t="$tsdb2h_bytes" -v c="$compacted_bytes" -v n="$samples" 'BEGIN {
  printf "store_bytes_per_gpu_sample %.2f\n", s / n
  printf "tsdb_2h_bytes_per_gpu_sample %.2f\n", t / n
  printf "tsdb_compacted_bytes_per_gpu_sample %.2f\n", c / n }'
"$WEEK" read "$STORE" 5
