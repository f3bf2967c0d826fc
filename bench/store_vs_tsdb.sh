#!/usr/bin/env bash
# Store size per GPU-sample against Prometheus's TSDB for the same samples,
# and the `report` read (ReadWindow over the last 24 h) of the same store.
#
#   bench/store_vs_tsdb.sh [BUILD_DIR] [HOURS] [GPUS]
#
# BUILD_DIR holds bench/store_week (default: build; `ninja -C BUILD_DIR
# store_week`). store_week simulates GPUS (default 8) GPUs at 1 Hz for HOURS
# (default 168, a week) into a fresh store under /tmp and writes the same
# samples (every numeric field, one series per field per GPU) as OpenMetrics;
# promtool (Debian package `prometheus`) turns that into TSDB blocks. Sizes
# are `du -sb` of each directory after the writer closed.
set -euo pipefail

BUILD_DIR=${1:-build}
HOURS=${2:-168}
GPUS=${3:-8}
WEEK="$BUILD_DIR/bench/store_week"
TAG="${HOURS}h-${GPUS}gpu"
STORE=/tmp/gpudoctor-store-$TAG
OM=/tmp/gpudoctor-store-$TAG.om
TSDB=/tmp/gpudoctor-tsdb-$TAG

if [ ! -x "$WEEK" ]; then
  echo "no $WEEK; build it with: ninja -C $BUILD_DIR store_week" >&2
  exit 2
fi
command -v promtool >/dev/null || { echo "promtool not found (apt-get install prometheus)" >&2; exit 2; }

rm -rf "$STORE" "$TSDB" "$OM"
"$WEEK" write "$STORE" "$HOURS" "$GPUS" "$OM" | tee /tmp/gpudoctor-store-$TAG.txt
promtool tsdb create-blocks-from openmetrics "$OM" "$TSDB" >/dev/null
samples=$(awk '/^gpu_samples/ {print $2}' /tmp/gpudoctor-store-$TAG.txt)
series_samples=$(grep -vc '^#' "$OM")
store_bytes=$(du -sb "$STORE" | cut -f1)
tsdb_bytes=$(du -sb "$TSDB" | cut -f1)
echo "openmetrics_samples $series_samples"
echo "store_bytes $store_bytes"
echo "tsdb_bytes $tsdb_bytes"
awk -v s="$store_bytes" -v t="$tsdb_bytes" -v n="$samples" 'BEGIN {
  printf "store_bytes_per_gpu_sample %.2f\ntsdb_bytes_per_gpu_sample %.2f\n", s / n, t / n }'
rm -f "$OM"
"$WEEK" read "$STORE" 5
