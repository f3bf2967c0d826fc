#!/usr/bin/env bash
# The agent's own cost: 8 GPUs sampled at 1 Hz on the fake NVML (so the
# driver's cost is excluded), recording into a fresh store, rules every 10 s,
# host facts every 5 min. Measures CPU time (utime+stime from /proc/PID/stat)
# over a steady-state stretch after a warm-up, and resident memory (VmRSS,
# VmHWM).
# Usage: bench/agent_cost.sh BUILD_DIR [SECONDS] (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?build dir}
seconds=${2:-300}
warmup=30
work=$(mktemp -d)
trap 'kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# Eight busy H100s: GPU 0 of the healthy scenario with eight bus ids.
python3 - "$work/eight.json" <<'PY'
import json, sys
base = json.load(open("tests/data/scenarios/healthy_busy.json"))
gpu = base["gpus"][0]
gpus = []
for i in range(8):
    g = dict(gpu)
    g["uuid"] = "GPU-%08d-0000-0000-0000-000000000000" % i
    g["pci_bus_id"] = "00000000:%02X:00.0" % (0x18 + i)
    g["metrics"] = {"temperature_c": {"ramp": [55, 75, 600]},
                    "power_draw_w": {"ramp": [300, 650, 300]},
                    "utilization_gpu_percent": {"steps": [[60, 20], [120, 97]]}}
    gpus.append(g)
base["gpus"] = gpus
json.dump(base, open(sys.argv[1], "w"))
PY

clk=$(getconf CLK_TCK)
GPUDOCTOR_NVML_LIBRARY="$build/fake_nvml/libnvidia-ml.so.1" FAKE_NVML_SCENARIO="$work/eight.json" \
  "$build/gpudoctor" agent --data-dir "$work/data" --interval 1s --no-kernel-log \
  --log-level warning 2>"$work/agent.log" &
pid=$!
sleep "$warmup"
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(ticks)
sleep "$seconds"
t1=$(ticks)
rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/{print $2}' "/proc/$pid/status")
samples=$(python3 -c "import json;print(json.load(open('$work/data/agent-state.json'))['samples_written'])")
store=$(du -sk "$work/data" | cut -f1)
cpu_s=$(python3 -c "print(round(($t1 - $t0) / $clk, 2))")
share=$(python3 -c "print(round(100 * ($t1 - $t0) / $clk / $seconds, 3))")
echo "agent: 8 GPUs at 1 Hz, ${seconds} s after ${warmup} s warm-up"
echo "  cpu ${cpu_s} s = ${share} % of one core"
echo "  rss ${rss} kB, peak ${hwm} kB"
echo "  samples written ${samples}, data dir ${store} kB"
