#!/usr/bin/env bash
# kill -9 the agent N times at random moments (on the fake NVML, GPU 0 under
# the power brake, so a finding is open at every kill), restarting it each
# time; then a clean run, and the report is checked: no finding interval left
# open, one agent_stopped event per stop, one row per GPU. Prints one line.
# Usage: scripts/crash_loop.sh [BUILD_DIR] [KILLS]   (RELIABILITY.md)
set -euo pipefail
build=${1:-build}
kills=${2:-20}
bin="$build/gpudoctor"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '{"gpus": [{"clock_event_reasons": 128}, {}]}' > "$work/braking.json"
export GPUDOCTOR_NVML_LIBRARY="$build/fake_nvml/libnvidia-ml.so.1"
export FAKE_NVML_SCENARIO="$work/braking.json"
args=(agent --data-dir "$work/data" --interval 100ms --window 2s --evaluate-every 300ms
      --facts-every 1h --no-kernel-log --no-listen)
for ((i = 1; i <= kills; i++)); do
  "$bin" "${args[@]}" 2>>"$work/agent.log" &
  pid=$!
  # 1.0 to 3.9 s: past the first evaluation, at a random point of the sample loop
  sleep "$((1 + RANDOM % 3)).$((RANDOM % 10))"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
done
"$bin" "${args[@]}" --run-for 1500ms 2>>"$work/agent.log"
"$bin" report --data-dir "$work/data" --since 1h --format json > "$work/report.json" || true
python3 - "$work/report.json" "$kills" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
kills = int(sys.argv[2])
rows = [r for r in doc["timeline"] if r["type"] == "finding"]
still_open = sum(1 for r in rows if r["end"] is None)
stops = sum(1 for e in doc["events"] if e["kind"] == "agent_stopped")
gpus = len(doc["gpus"])
ok = still_open == 0 and stops == kills + 1 and gpus == 2
print(f"kills={kills} finding_intervals={len(rows)} still_open={still_open} "
      f"agent_stopped_events={stops} (expected {kills + 1}) gpu_rows={gpus} -> {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
