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
# wrk's threads (default 4); WRK_CPUS=1 pins wrk to that CPU list and the
# two servers to the others, so the load generator does not take the
# servers' CPU time (same treatment for both servers).
wrk_threads=${WRK_THREADS:-4}
wrk_cpus=${WRK_CPUS:-}
server_cpus=""
if [[ -n "$wrk_cpus" ]]; then
  server_cpus=$(python3 -c "import os,sys; w={int(c) for c in sys.argv[1].split(',')}; print(','.join(str(c) for c in sorted(os.sched_getaffinity(0)) if c not in w))" "$wrk_cpus")
  [[ -n "$server_cpus" ]] || { echo "WRK_CPUS=$wrk_cpus leaves no CPU for the servers" >&2; exit 3; }
fi
# Called in a subshell (`&` or `$(...)`): exec, so that the pid the script
# records and kills is the server itself.
pin() { if [[ -n "$1" ]]; then exec taskset -c "$1" "${@:2}"; else exec "${@:2}"; fi; }
here=$(cd "$(dirname "$0")/.." && pwd)
agent_port=${AGENT_PORT:-19835}
node_port=${NODE_PORT:-19100}
work=$(mktemp -d /tmp/gpudoctor-scrape-bench.XXXXXX)
# shellcheck source=bench/server_bench_lib.sh
source "$here/bench/server_bench_lib.sh"
require_tools wrk prometheus-node-exporter curl
refuse_ports_in_use "$agent_port" "$node_port"

GPUDOCTOR_NVML_LIBRARY="$here/$build/fake_nvml/libnvidia-ml.so.1" \
FAKE_NVML_SCENARIO="$here/tests/data/scenarios/eight_gpus.json" \
  pin "$server_cpus" "$here/$build/gpudoctor" agent --data-dir "$work/data" --no-kernel-log --interval 1s \
  --listen "127.0.0.1:$agent_port" >"$work/agent.log" 2>&1 &
pids+=($!)
# Its default --web.max-requests=40 would answer 503 to some of 50 scrapers.
pin "$server_cpus" prometheus-node-exporter --web.listen-address="127.0.0.1:$node_port" --web.max-requests=0 >"$work/node.log" 2>&1 &
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
  local headers=("${@:3}")
  size=$(curl -s -o /dev/null -w '%{size_download}' "${headers[@]/#/-H}" "$url")
  out=$(pin "$wrk_cpus" wrk -t"$wrk_threads" -c50 -d"${duration}s" --latency "${headers[@]/#/-H}" "$url")
  printf '%-28s p50 %-9s p99 %-9s req/s %-10s response %s bytes\n' "$name" \
    "$(awk '$1 == "50%" {print $2}' <<<"$out")" "$(awk '$1 == "99%" {print $2}' <<<"$out")" \
    "$(awk '/^Requests\/sec/ {print $2}' <<<"$out")" "$size"
  grep -E 'Socket errors|Non-2xx' <<<"$out" || true
}

echo "wrk -t$wrk_threads -c50 -d${duration}s --latency${wrk_cpus:+ on CPU $wrk_cpus, servers on CPU $server_cpus}, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "gpudoctor agent (8 GPUs)" "http://127.0.0.1:$agent_port/metrics"
run "prometheus-node-exporter" "http://127.0.0.1:$node_port/metrics"
run "gpudoctor agent (8 GPUs)" "http://127.0.0.1:$agent_port/metrics"
# What Prometheus sends: compressed responses, as both servers answer it.
run "gpudoctor agent, gzip" "http://127.0.0.1:$agent_port/metrics" "Accept-Encoding: gzip"
run "node-exporter, gzip" "http://127.0.0.1:$node_port/metrics" "Accept-Encoding: gzip"
