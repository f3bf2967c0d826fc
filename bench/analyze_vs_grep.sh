#!/usr/bin/env bash
# Times the whole `gpudoctor analyze --format json FILE` against
# `grep -c 'NVRM: Xid' FILE` over the same generated syslog, side by side in
# one run, plain and gzip, and reports wall time and peak resident memory.
#
#   bench/analyze_vs_grep.sh [BUILD_DIR] [SIZE_MIB] [REPETITIONS]
#
# BUILD_DIR holds the gpudoctor binary (default: build). The log (default
# 1024 MiB, gen_syslog.py: a few hundred Xid lines among ordinary traffic)
# and its .gz are generated once into /tmp and reused while the size
# matches; delete them afterwards (the script prints their names). Both
# commands read from the page cache (the first, warming read is untimed).
# For the .gz the comparison is `zcat FILE.gz | grep -c 'NVRM: Xid'`.
set -euo pipefail

BUILD_DIR=${1:-build}
SIZE_MIB=${2:-1024}
REPS=${3:-5}
BIN="$BUILD_DIR/gpudoctor"
LOG=${ANALYZE_BENCH_LOG:-/tmp/gpudoctor-analyze-${SIZE_MIB}MiB.log}
GZ="$LOG.gz"

[ -x "$BIN" ] || { echo "no $BIN; build it first" >&2; exit 2; }
want=$((SIZE_MIB * 1024 * 1024))
if [ "$(stat -c %s "$LOG" 2>/dev/null || echo 0)" -lt "$want" ]; then
  echo "generating $LOG ($SIZE_MIB MiB) ..." >&2
  python3 "$(dirname "$0")/gen_syslog.py" "$LOG" "$want"
  rm -f "$GZ"
fi
if [ ! -s "$GZ" ]; then
  echo "compressing $GZ ..." >&2
  gzip -1 -c "$LOG" > "$GZ"
fi
cat "$LOG" "$GZ" > /dev/null  # into the page cache, untimed

python3 - "$BIN" "$LOG" "$GZ" "$REPS" <<'PY'
import os, subprocess, sys, time, statistics, json
bin_, log, gz, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def run(argv, shell=False):
    """Wall seconds and peak RSS (MB) of one command; output to a file (GNU
    grep stops at the first match when its output is /dev/null)."""
    with open("/tmp/gpudoctor-bench-out", "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, shell=shell)
        _, status, ru = os.wait4(p.pid, 0)
        t1 = time.perf_counter()
    code = os.waitstatus_to_exitcode(status)
    return t1 - t0, ru.ru_maxrss / 1024.0, code

def check_output():
    with open("/tmp/gpudoctor-bench-out") as f:
        return f.read()

mib = os.path.getsize(log) / 1048576
print(f"file: {log} ({mib:.0f} MiB), {gz} ({os.path.getsize(gz) / 1048576:.0f} MiB)")
for name, path, grep_cmd in (("plain", log, ["grep", "-c", "NVRM: Xid", log]),
                             ("gzip", gz, f"zcat '{gz}' | grep -c 'NVRM: Xid'")):
    g_all, a_all, rss_all = [], [], []
    for _ in range(reps):
        g, _, _ = run(grep_cmd, shell=isinstance(grep_cmd, str))
        grep_count = check_output().strip()
        a, rss, code = run([bin_, "analyze", "--format", "json", path])
        doc = json.loads(check_output())
        xids = sum(e.get("count", 1) for e in doc["events"] if e["kind"] == "xid")
        g_all.append(g); a_all.append(a); rss_all.append(rss)
        print(f"  {name}: grep {g*1000:7.0f} ms ({grep_count} lines)   analyze {a*1000:7.0f} ms "
              f"({xids} Xid lines, exit {code}, peak RSS {rss:.1f} MB)   ratio {a/g:.2f}")
    gm, am = statistics.median(g_all), statistics.median(a_all)
    print(f"{name} median: grep {gm*1000:.0f} ms ({mib/gm:.0f} MiB/s), analyze {am*1000:.0f} ms "
          f"({mib/am:.0f} MiB/s), analyze/grep {am/gm:.2f}, peak RSS max {max(rss_all):.1f} MB")
os.unlink("/tmp/gpudoctor-bench-out")
PY
echo "generated files (delete when done): $LOG $GZ"
