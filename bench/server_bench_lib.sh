# Sourced by the benchmarks that start servers (scrape_vs_node_exporter.sh,
# endpoint_soak.sh): a work directory and the pids to stop on exit, the tools
# they need, and a refusal to run on a port something already answers on (a
# server left from an earlier run would answer instead of the one under test).
# Set `work` before sourcing; append background pids to `pids`.
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

require_tools() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$tool not installed" >&2; exit 3; }
  done
}

refuse_ports_in_use() {
  for port in "$@"; do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
      echo "port $port is already in use; stop what listens there first" >&2
      exit 3
    fi
  done
}
