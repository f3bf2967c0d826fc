#!/usr/bin/env bash
# `gpudoctor fleet --since 24h` over a fleet history held by a real
# Prometheus and a real VictoriaMetrics: wall time, peak RSS and the number
# of queries per run, RUNS runs per engine after one warm-up.
#
#   bench/fleet_vs_engines.sh [BINARY] [NODES] [GPUS] [HOURS] [RUNS] [NAMES]
#
# Defaults: build/gpudoctor, 256 nodes x 8 GPUs, 24 h at 60 s, 3 runs, NAMES
# dcgm. The history (bench/fleet_history.py; 1 node in 32 has each of six
# faults) is in dcgm-exporter's names (12 series per GPU) or, with NAMES
# gpudoctor, in those of gpudoctor's agents (the 8 families fleet reads of
# them). It is loaded into VictoriaMetrics through its /api/v1/import and
# into Prometheus as TSDB blocks made by promtool, two hours at a time, under
# /tmp/gpudoctor-fleet-data-NODESxGPUSxHOURSh (-gpudoctor for those names;
# kept, and reused by the next run with the same sizes: loading takes
# minutes).
# Both servers listen on 127.0.0.1 (ports 19391, 19392) and are stopped at
# the end.
set -euo pipefail

BIN=$(realpath "${1:-build/gpudoctor}")
NODES=${2:-256}
GPUS=${3:-8}
HOURS=${4:-24}
RUNS=${5:-3}
NAMES=${6:-dcgm}
PROM_PORT=19391
VM_PORT=19392
HERE=$(dirname "$(realpath "$0")")
work=$(mktemp -d /tmp/gpudoctor-fleet-bench.XXXXXX)
# shellcheck source=bench/server_bench_lib.sh
source "$HERE/server_bench_lib.sh"
require_tools promtool prometheus victoria-metrics curl python3 /usr/bin/time
refuse_ports_in_use "$PROM_PORT" "$VM_PORT"

data="/tmp/gpudoctor-fleet-data-${NODES}x${GPUS}x${HOURS}h"
if [ "$NAMES" != dcgm ]; then data="$data-$NAMES"; fi
mkdir -p "$data"
if [ -f "$data/end" ]; then end=$(cat "$data/end"); else end=$(( $(date +%s) - 300 )); fi
echo "$end" > "$data/end"
parts=$(( (HOURS + 1) / 2 ))
gen() { python3 "$HERE/fleet_history.py" --nodes "$NODES" --gpus "$GPUS" --hours "$HOURS" \
  --end "$end" --spacing 32 --names "$NAMES" "$@"; }

echo "== VictoriaMetrics: import"
victoria-metrics -storageDataPath="$data/vm" -httpListenAddr="127.0.0.1:$VM_PORT" \
  -retentionPeriod=100y -search.latencyOffset=0s > "$work/vm.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$VM_PORT/health" >/dev/null && break; sleep 0.2; done
if [ ! -f "$data/vm.done" ]; then
  t0=$SECONDS
  for part in $(seq 1 "$parts"); do
    gen --format vm --part "$part" --parts "$parts" |
      curl -sf --data-binary @- "http://127.0.0.1:$VM_PORT/api/v1/import"
  done
  curl -sf "http://127.0.0.1:$VM_PORT/internal/force_flush" >/dev/null
  echo "imported in $((SECONDS - t0)) s"
  touch "$data/vm.done"
fi

echo "== Prometheus: promtool blocks"
if [ ! -f "$data/tsdb.done" ]; then
  mkdir -p "$data/tsdb"
  t0=$SECONDS
  for part in $(seq 1 "$parts"); do
    gen --format openmetrics --part "$part" --parts "$parts" > "$work/part.om"
    promtool tsdb create-blocks-from openmetrics "$work/part.om" "$data/tsdb" >/dev/null
    rm -f "$work/part.om"
  done
  echo "blocks written in $((SECONDS - t0)) s"
  touch "$data/tsdb.done"
fi
printf 'global:\n  scrape_interval: 60s\n' > "$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$data/tsdb" \
  --storage.tsdb.retention.time=3650d --web.listen-address="127.0.0.1:$PROM_PORT" \
  > "$work/prometheus.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null && break; sleep 0.2; done

from=$(date -u -d "@$((end - HOURS * 3600))" +%Y-%m-%dT%H:%M:%SZ)
to=$(date -u -d "@$end" +%Y-%m-%dT%H:%M:%SZ)
echo "== fleet $from .. $to, $NODES nodes x $GPUS GPUs in $NAMES names; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %8s %10s %8s %6s %s\n' engine wall_s peak_rss queries gpus summary
for engine in prometheus:$PROM_PORT victoria-metrics:$VM_PORT; do
  name=${engine%%:*}
  url="http://127.0.0.1:${engine##*:}"
  "$BIN" fleet --prometheus "$url" --from "$from" --to "$to" --format json > /dev/null || true
  for _ in $(seq 1 "$RUNS"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$BIN" fleet --prometheus "$url" --from "$from" \
      --to "$to" --format json > "$work/fleet.json" || true
    read -r wall rss < <(tail -1 "$work/time")
    python3 - "$work/fleet.json" "$name" "$wall" "$rss" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
s = f["summary"]
print("%-18s %8s %8.1f MB %8d %6d %d critical, %d warning, %d stale of %d nodes" % (
    sys.argv[2], sys.argv[3], int(sys.argv[4]) / 1024, f["queries"], s["gpus"],
    s["critical"], s["warning"], s["stale"], s["nodes"]))
PY
  done
done
