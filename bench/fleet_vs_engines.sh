#!/usr/bin/env bash
# `gpudoctor fleet` over a fleet history held by a real Prometheus and a real
# VictoriaMetrics: wall time, peak RSS and the number of queries per run,
# RUNS runs per engine after one warm-up, for one fleet size or a curve of
# sizes.
#
#   bench/fleet_vs_engines.sh [BINARY] [NODES] [GPUS] [HOURS] [RUNS] [NAMES] [INTERVAL]
#
# Defaults: build/gpudoctor, 256 nodes x 8 GPUs, 24 h at 60 s, 3 runs, NAMES
# dcgm. NODES may be a comma-separated list (64,256,1024): the curve, one
# size after the other, each with its own history and servers. INTERVAL is
# the scrape interval in seconds (the samples' spacing, and fleet's
# --resolution). The history (bench/fleet_history.py; 1 node in 32 has each
# of six faults) is in dcgm-exporter's names (12 series per GPU) or, with
# NAMES gpudoctor, in those of gpudoctor's agents (the 8 families fleet
# reads of them). It is loaded into VictoriaMetrics through its
# /api/v1/import and into Prometheus as TSDB blocks made by promtool, in
# stretches of at most about 3 M samples, under
# /tmp/gpudoctor-fleet-data-NODESxGPUSxHOURSh[-INTERVALs][-gpudoctor] (kept,
# and reused by the next run with the same sizes: loading takes minutes;
# FLEET_BENCH_DELETE=1 deletes each size's data once it is measured).
# FLEET_BENCH_LOAD_ONLY=1 loads the histories and measures nothing.
# FLEET_BENCH_ENGINES=victoria-metrics (or prometheus) loads and measures
# only that engine (default: both).
# Both servers listen on 127.0.0.1 (ports 19391, 19392, or
# FLEET_BENCH_PROM_PORT and FLEET_BENCH_VM_PORT); they are stopped
# after each size, and on every exit. Each row has the load average (1 min)
# at the start of its engine's runs: the figures are only comparable at a
# similar load.
set -euo pipefail

BIN=$(realpath "${1:-build/gpudoctor}")
SIZES=${2:-256}
GPUS=${3:-8}
HOURS=${4:-24}
RUNS=${5:-3}
NAMES=${6:-dcgm}
INTERVAL=${7:-60}
PROM_PORT=${FLEET_BENCH_PROM_PORT:-19391}
VM_PORT=${FLEET_BENCH_VM_PORT:-19392}
ENGINES=${FLEET_BENCH_ENGINES:-both}
HERE=$(dirname "$(realpath "$0")")
work=$(mktemp -d /tmp/gpudoctor-fleet-bench.XXXXXX)
# shellcheck source=bench/server_bench_lib.sh
source "$HERE/server_bench_lib.sh"
require_tools promtool prometheus victoria-metrics curl python3 /usr/bin/time
refuse_ports_in_use "$PROM_PORT" "$VM_PORT"

stop_servers() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}

wait_for() {  # URL TRIES: until it answers, 0.2 s apart
  for _ in $(seq 1 "$2"); do curl -sf "$1" >/dev/null && return 0; sleep 0.2; done
  echo "$1 does not answer" >&2
  return 1
}

# One fleet size: load its history when not loaded yet, start both servers,
# run fleet on each, stop them.
bench_size() {
  local nodes=$1
  local data="/tmp/gpudoctor-fleet-data-${nodes}x${GPUS}x${HOURS}h"
  if [ "$INTERVAL" != 60 ]; then data="$data-${INTERVAL}s"; fi
  if [ "$NAMES" != dcgm ]; then data="$data-$NAMES"; fi
  mkdir -p "$data"
  local end
  if [ -f "$data/end" ]; then end=$(cat "$data/end"); else end=$(( $(date +%s) - 300 )); fi
  echo "$end" > "$data/end"
  local per_gpu=12
  if [ "$NAMES" != dcgm ]; then per_gpu=8; fi
  local samples=$(( nodes * GPUS * per_gpu * HOURS * 3600 / INTERVAL ))
  # Stretches of at most ~3 M samples (promtool reads its whole input file)
  # and at most 2 h (one TSDB block each).
  local parts=$(( (samples + 2999999) / 3000000 ))
  if [ "$parts" -lt $(( (HOURS + 1) / 2 )) ]; then parts=$(( (HOURS + 1) / 2 )); fi
  gen() { python3 "$HERE/fleet_history.py" --nodes "$nodes" --gpus "$GPUS" --hours "$HOURS" \
    --interval "$INTERVAL" --end "$end" --spacing 32 --names "$NAMES" "$@"; }

  if [ "$ENGINES" != prometheus ]; then
  echo "== $nodes nodes: VictoriaMetrics import ($samples samples at most, $parts stretches)"
  victoria-metrics -storageDataPath="$data/vm" -httpListenAddr="127.0.0.1:$VM_PORT" \
    -retentionPeriod=100y -search.latencyOffset=0s > "$work/vm.log" 2>&1 &
  pids+=("$!")
  wait_for "http://127.0.0.1:$VM_PORT/health" 300
  if [ ! -f "$data/vm.done" ]; then
    local t0=$SECONDS
    for part in $(seq 1 "$parts"); do
      gen --format vm --part "$part" --parts "$parts" |
        curl -sf --data-binary @- "http://127.0.0.1:$VM_PORT/api/v1/import"
    done
    curl -sf "http://127.0.0.1:$VM_PORT/internal/force_flush" >/dev/null
    echo "imported in $((SECONDS - t0)) s"
    touch "$data/vm.done"
  fi
  fi

  if [ "$ENGINES" != victoria-metrics ]; then
  echo "== $nodes nodes: Prometheus, promtool blocks"
  if [ ! -f "$data/tsdb.done" ]; then
    mkdir -p "$data/tsdb"
    local t0=$SECONDS
    for part in $(seq 1 "$parts"); do
      gen --format openmetrics --part "$part" --parts "$parts" > "$work/part.om"
      promtool tsdb create-blocks-from openmetrics "$work/part.om" "$data/tsdb" >/dev/null
      rm -f "$work/part.om"
    done
    echo "blocks written in $((SECONDS - t0)) s"
    touch "$data/tsdb.done"
  fi
  printf 'global:\n  scrape_interval: %ss\n' "$INTERVAL" > "$work/prometheus.yml"
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$data/tsdb" \
    --storage.tsdb.retention.time=3650d --web.listen-address="127.0.0.1:$PROM_PORT" \
    > "$work/prometheus.log" 2>&1 &
  pids+=("$!")
  wait_for "http://127.0.0.1:$PROM_PORT/-/ready" 1500
  fi

  local from to
  from=$(date -u -d "@$((end - HOURS * 3600))" +%Y-%m-%dT%H:%M:%SZ)
  to=$(date -u -d "@$end" +%Y-%m-%dT%H:%M:%SZ)
  echo "== fleet $from .. $to, $nodes nodes x $GPUS GPUs in $NAMES names at ${INTERVAL}s"
  if [ "${FLEET_BENCH_LOAD_ONLY:-0}" = 1 ]; then stop_servers; return; fi
  printf '%6s %-18s %6s %8s %10s %8s %6s %s\n' nodes engine load wall_s peak_rss queries gpus summary
  for engine in prometheus:$PROM_PORT victoria-metrics:$VM_PORT; do
    local name=${engine%%:*}
    if [ "$ENGINES" != both ] && [ "$ENGINES" != "$name" ]; then continue; fi
    local url="http://127.0.0.1:${engine##*:}"
    local args=(fleet --prometheus "$url" --from "$from" --to "$to" --resolution "${INTERVAL}s"
                --format json)
    "$BIN" "${args[@]}" > /dev/null || true
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    for _ in $(seq 1 "$RUNS"); do
      /usr/bin/time -f '%e %M' -o "$work/time" "$BIN" "${args[@]}" > "$work/fleet.json" || true
      read -r wall rss < <(tail -1 "$work/time")
      python3 - "$work/fleet.json" "$nodes" "$name" "$load" "$wall" "$rss" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
s = f["summary"]
print("%6s %-18s %6s %8s %8.1f MB %8d %6d %d critical, %d warning, %d stale of %d nodes" % (
    sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]) / 1024, f["queries"],
    s["gpus"], s["critical"], s["warning"], s["stale"], s["nodes"]))
PY
    done
  done
  stop_servers
  if [ "${FLEET_BENCH_DELETE:-0}" = 1 ]; then rm -rf "$data"; fi
}

IFS=, read -r -a sizes <<< "$SIZES"
for nodes in "${sizes[@]}"; do bench_size "$nodes"; done
