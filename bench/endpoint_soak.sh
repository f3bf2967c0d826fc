#!/usr/bin/env bash
# The agent's endpoint held under load and abuse for a while, for
# RELIABILITY.md: `gpudoctor agent` on the fake NVML with eight GPUs at 1 Hz,
# scraped by `wrk -c CONNECTIONS` for DURATION_S seconds while SLOW clients
# hold half-sent requests (re-opened as the server drops them) and a loop
# sends oversized and garbage requests. Prints the agent's resident memory
# every 10 s, the samples it wrote against the seconds that passed, and
# whether /healthz still answers 200 at the end. Every client connects from
# 127.0.0.1, so the agent's cap on connections per client address is raised
# above what the run opens (wrk's, the slow clients' and the abuse loop's).
#
# Usage: bench/endpoint_soak.sh [BUILD_DIR] [DURATION_S] [CONNECTIONS] [SLOW]
#   (after `ninja -C BUILD_DIR gpudoctor fake_nvml`)
set -euo pipefail

build=${1:-build}
duration=${2:-60}
connections=${3:-500}
slow=${4:-100}
here=$(cd "$(dirname "$0")/.." && pwd)
port=${AGENT_PORT:-19836}
work=$(mktemp -d /tmp/gpudoctor-soak.XXXXXX)
# shellcheck source=bench/server_bench_lib.sh
source "$here/bench/server_bench_lib.sh"
require_tools wrk curl python3
refuse_ports_in_use "$port"

GPUDOCTOR_NVML_LIBRARY="$here/$build/fake_nvml/libnvidia-ml.so.1" \
FAKE_NVML_SCENARIO="$here/tests/data/scenarios/eight_gpus.json" \
  "$here/$build/gpudoctor" agent --data-dir "$work/data" --no-kernel-log --interval 1s \
  --listen "127.0.0.1:$port" --log-level warning \
  --max-connections-per-client "$((connections + slow + 64))" >"$work/agent.log" 2>&1 &
agent=$!
pids+=("$agent")
for _ in $(seq 1 100); do
  curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.1
done
samples() {
  curl -s --max-time 30 "http://127.0.0.1:$port/metrics" |
    awk -F' ' '/^gpudoctor_agent_samples_total\{result="written"\}/ {print $2}'
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$agent/status"; }

# Slow clients: half a request each, re-opened whenever the server closes one.
python3 - "$port" "$slow" "$duration" <<'PY' &
import socket, sys, time
port, count, duration = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def opened():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    s.setblocking(False)
    return s
socks = [opened() for _ in range(count)]
end = time.time() + duration
while time.time() < end:
    for i, s in enumerate(socks):
        try:
            if s.recv(4096) == b"":
                raise ConnectionError
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            socks[i] = opened()
    time.sleep(0.2)
PY
pids+=($!)
# Abuse: long URLs, a 1 MiB header, garbage, unknown paths, in a loop.
python3 - "$port" "$duration" <<'PY' &
import os, socket, sys, time
port, duration = int(sys.argv[1]), float(sys.argv[2])
requests = [
    b"GET /metrics?" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nX-Big: " + b"b" * (1 << 20) + b"\r\n\r\n",
    os.urandom(4096),
    b"GET /no/such/path HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/v1/report?since=" + b"9" * 4000 + b"h HTTP/1.1\r\nHost: x\r\n\r\n",
]
end = time.time() + duration
sent = 0
while time.time() < end:
    for r in requests:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(r)
                s.recv(4096)
            sent += 1
        except OSError:
            pass
print(f"abusive requests sent: {sent}", flush=True)
PY
pids+=($!)

s0=$(samples)
t0=$(date +%s)
echo "rss at start: $(rss_kb) kB; $slow slow clients; wrk -t2 -c$connections -d${duration}s"
(for _ in $(seq 1 $((duration / 10))); do sleep 10; echo "  rss $(rss_kb) kB"; done) &
pids+=($!)
wrk -t2 -c"$connections" -d"${duration}s" --timeout 10s --latency "http://127.0.0.1:$port/metrics" |
  grep -E 'Latency|50%|99%|Requests/sec|Socket errors|Non-2xx|requests in'
wait "${pids[-1]}" 2>/dev/null || true
sleep 2
s1=$(samples)
t1=$(date +%s)
echo "samples written during the run: $((s1 - s0)) in $((t1 - t0)) s (interval 1 s)"
echo "rss at end: $(rss_kb) kB, peak $(awk '/^VmHWM/ {print $2}' "/proc/$agent/status") kB"
echo "healthz: $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")"
grep -ciE 'error|fatal' "$work/agent.log" | sed 's/^/agent log lines with error: /' || true
