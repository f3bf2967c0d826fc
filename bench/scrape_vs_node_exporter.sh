#!/usr/bin/env bash
# /metrics under 50 concurrent scrapers: `gpudoctor agent` on the fake NVML
# with eight GPUs next to prometheus-node-exporter on the same machine, in
# the same run, both loaded with `wrk -t4 -c50 -d<duration>s --latency`.
# Prints p50, p99, requests/s and the response size of each.
#
# Usage: bench/scrape_vs_node_exporter.sh [BUILD_DIR] [DURATION_S]
#   (after `ninja -C BUILD_DIR gpudoctor fake_nvml`)
set -euo pipefail

build=${1:-build}
duration=${2:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
agent_port=${AGENT_PORT:-19835}
node_port=${NODE_PORT:-19100}
work=$(mktemp -d /tmp/gpudoctor-scrape-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

for tool in wrk prometheus-node-exporter curl; do
  command -v "$tool" >/dev/null || { echo "$tool not installed" >&2; exit 3; }
done

GPUDOCTOR_NVML_LIBRARY="$here/$build/fake_nvml/libnvidia-ml.so.1" \
FAKE_NVML_SCENARIO="$here/tests/data/scenarios/eight_gpus.json" \
  "$here/$build/gpudoctor" agent --data-dir "$work/data" --no-kernel-log --interval 1s \
  --listen "127.0.0.1:$agent_port" >"$work/agent.log" 2>&1 &
pids+=($!)
# Its default --web.max-requests=40 would answer 503 to some of 50 scrapers.
prometheus-node-exporter --web.listen-address="127.0.0.1:$node_port" --web.max-requests=0 >"$work/node.log" 2>&1 &
pids+=($!)

wait_up() {
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "$1 did not answer; logs in $work" >&2
  cat "$work"/*.log >&2
  exit 3
}
wait_up "http://127.0.0.1:$agent_port/metrics"
wait_up "http://127.0.0.1:$node_port/metrics"
sleep 2  # a few samples, so that every series is there

run() {
  local name=$1 url=$2 size out
  size=$(curl -s -o /dev/null -w '%{size_download}' "$url")
  out=$(wrk -t4 -c50 -d"${duration}s" --latency "$url")
  printf '%-28s p50 %-9s p99 %-9s req/s %-10s response %s bytes\n' "$name" \
    "$(awk '$1 == "50%" {print $2}' <<<"$out")" "$(awk '$1 == "99%" {print $2}' <<<"$out")" \
    "$(awk '/^Requests\/sec/ {print $2}' <<<"$out")" "$size"
  grep -E 'Socket errors|Non-2xx' <<<"$out" || true
}

echo "wrk -t4 -c50 -d${duration}s --latency, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "gpudoctor agent (8 GPUs)" "http://127.0.0.1:$agent_port/metrics"
run "prometheus-node-exporter" "http://127.0.0.1:$node_port/metrics"
run "gpudoctor agent (8 GPUs)" "http://127.0.0.1:$agent_port/metrics"
