#!/bin/sh
# Bytes the agent's store spends per reading of the RDMA ports: the agent runs
# for SECONDS on a --root tree holding the real HGX H100 /sys/class/infiniband
# capture (../shared/fixtures/infiniband: ten ports and a bonded RoCE device,
# 21 counters/ and up to 26 hw_counters/ files each), reading the ports every
# 100 ms, while a loop raises every port's data and packet counters by
# irregular steps about every 50 ms (traffic), so that the chunks hold changing values. Prints the
# readings stored and the bytes of their sealed chunks per reading.
#
# usage: bench/rdma_store_cost.sh BUILD_DIR [SECONDS]   (BUILD_DIR holds the gpudoctor binary)
set -eu
build=$1
seconds=${2:-60}
capture=$(dirname "$0")/../../shared/fixtures/infiniband/gpud-sys-class-infiniband-h100
[ -d "$capture" ] || { echo "no capture at $capture" >&2; exit 3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/sys/class" "$work/data"
cp -r "$capture" "$work/root/sys/class/infiniband"
chmod -R u+w "$work/root"
(
  n=0
  while [ -d "$work/root" ]; do
    n=$((n + 1))
    for f in "$work"/root/sys/class/infiniband/*/ports/1/counters/port_*_data \
             "$work"/root/sys/class/infiniband/*/ports/1/counters/*_packets; do
      # Irregular steps, as traffic is: a delta codec gets no free ride.
      echo $((n * 1000003 + (n * n * 7919 + ${#f} * 104729) % 65521)) > "$f" 2>/dev/null || true
    done
    echo "$n" > "$work/steps"
    sleep 0.05
  done
) &
loop=$!
# No NVML: the ports are read and stored whether or not the GPUs answer.
GPUDOCTOR_NVML_LIBRARY=/nonexistent \
  "$build/gpudoctor" agent --data-dir "$work/data" --root "$work/root" --interval 100ms \
  --evaluate-every 100ms --facts-every 1h --no-listen --no-kernel-log --no-nvml-events \
  --run-for "${seconds}s" >/dev/null 2>&1 || true
kill "$loop" 2>/dev/null || true
echo "counter updates: $(cat "$work/steps")"
sqlite3 "$work/data/gpudoctor.db" \
  "SELECT sum(n) AS readings, sum(length(blob)) AS chunk_bytes,
          round(1.0 * sum(length(blob)) / sum(n), 1) AS bytes_per_reading FROM rdma_chunks;"
