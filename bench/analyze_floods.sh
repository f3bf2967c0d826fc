#!/usr/bin/env bash
# Floods: times the whole `gpudoctor analyze --format json FILE` against
# `grep -c 'NVRM: Xid' FILE` (for the .gz: `zcat FILE | grep -c 'NVRM: Xid'`)
# over the same generated log, side by side in one run, and reports wall
# time, peak resident memory and the size of the JSON report:
#   xid13  a 2 M-line Xid 13 storm (5000 processes, varying SM coordinates)
#   nvrm   a 1 GiB syslog in which one line in seven is a non-Xid NVRM line
#   xid79  2 GiB of one repeated Xid (79, the pid varying), gzip -1
#   syslog an ordinary 1 GiB syslog (gen_syslog.py: one Xid line in 30000)
#
#   bench/analyze_floods.sh [BUILD_DIR|BINARY] [REPETITIONS] [CASES...]
#
# Each case runs REPETITIONS times (grep, then analyze); the medians and
# their ratio close each case, with the load average before and after.
# Peak RSS is the kernel's ru_maxrss of the analyze process (what
# `/usr/bin/time -v` prints as "Maximum resident set size"); cpu is its
# user+sys time (for grep's line: the shell's, zcat and grep included),
# which says more than the wall time on a busy machine.
#
# The logs are generated once into /tmp (gen_flood.py) and reused; delete
# them afterwards (the script prints their names). Both commands read from
# the page cache (the first, warming read is untimed).
set -euo pipefail

BUILD_DIR=${1:-build}
REPS=${2:-3}
shift 2 || true
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(xid13 nvrm xid79)
BIN="$BUILD_DIR/gpudoctor"
[ -f "$BUILD_DIR" ] && BIN="$BUILD_DIR"
GEN="$(dirname "$0")/gen_flood.py"
[ -x "$BIN" ] || { echo "no $BIN; build it first" >&2; exit 2; }

files=()
for c in "${CASES[@]}"; do
  case $c in
    xid13) f=/tmp/gpudoctor-flood-xid13.log; bytes=$((2000000 * 186)) ;;
    nvrm) f=/tmp/gpudoctor-flood-nvrm.log; bytes=$((1024 * 1024 * 1024)) ;;
    xid79) f=/tmp/gpudoctor-flood-xid79.log.gz; bytes=$((2048 * 1024 * 1024)) ;;
    syslog) f=/tmp/gpudoctor-flood-syslog.log; bytes=$((1024 * 1024 * 1024)) ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  if [ ! -s "$f" ]; then
    echo "generating $f ..." >&2
    if [ "$c" = syslog ]; then
      python3 "$(dirname "$0")/gen_syslog.py" "$f" "$bytes"
    elif [ "${f%.gz}" != "$f" ]; then
      python3 "$GEN" "$c" "${f%.gz}" "$bytes"
      gzip -1 -c "${f%.gz}" > "$f"
      rm -f "${f%.gz}"
    else
      python3 "$GEN" "$c" "$f" "$bytes"
    fi
  fi
  cat "$f" > /dev/null
  files+=("$c=$f")
done

python3 - "$BIN" "$REPS" "${files[@]}" <<'PY'
import os, subprocess, sys, time, statistics, json
bin_, reps = sys.argv[1], int(sys.argv[2])
OUT = "/tmp/gpudoctor-flood-out"

def run(argv, shell=False):
    """Wall seconds, peak RSS (MB), exit code and CPU seconds (user+sys, with
    the children a shell waited for: zcat and grep) of one command; output
    to a file."""
    with open(OUT, "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, shell=shell)
        _, status, ru = os.wait4(p.pid, 0)
        t1 = time.perf_counter()
    return (t1 - t0, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status),
            ru.ru_utime + ru.ru_stime)

for case in sys.argv[3:]:
    name, path = case.split("=", 1)
    gz = path.endswith(".gz")
    grep = f"zcat '{path}' | grep -c 'NVRM: Xid'" if gz else ["grep", "-c", "NVRM: Xid", path]
    print(f"{name}: {path} ({os.path.getsize(path) / 1048576:.0f} MiB), "
          f"load average {os.getloadavg()[0]:.1f}")
    g_all, a_all, rss_all, out_all, gc_all, ac_all = [], [], [], [], [], []
    for _ in range(reps):
        g, grss, _, gc = run(grep, shell=gz)
        grep_count = int(open(OUT).read().strip() or 0)
        a, rss, code, ac = run([bin_, "analyze", "--format", "json", path])
        size = os.path.getsize(OUT)
        doc = json.load(open(OUT))
        xids = sum(e.get("count", 1) for e in doc["events"] if e["kind"] == "xid")
        g_all.append(g); a_all.append(a); rss_all.append(rss); out_all.append(size)
        gc_all.append(gc); ac_all.append(ac)
        print(f"  grep {g*1000:7.0f} ms (cpu {gc*1000:.0f}; {grep_count} lines)   analyze {a*1000:7.0f} ms "
              f"(cpu {ac*1000:.0f}; {xids} Xid lines, exit {code}, peak RSS {rss:.1f} MB, "
              f"JSON {size/1024:.0f} KiB)   ratio {a/g:.2f}   load {os.getloadavg()[0]:.1f}")
    gm, am = statistics.median(g_all), statistics.median(a_all)
    gcm, acm = statistics.median(gc_all), statistics.median(ac_all)
    print(f"{name} median: grep {gm*1000:.0f} ms, analyze {am*1000:.0f} ms, analyze/grep {am/gm:.2f}; "
          f"cpu grep {gcm*1000:.0f} ms, analyze {acm*1000:.0f} ms; "
          f"peak RSS max {max(rss_all):.1f} MB, JSON max {max(out_all)/1024:.0f} KiB, "
          f"load average after {os.getloadavg()[0]:.1f}")
os.unlink(OUT)
PY
echo "generated files (delete when done): ${files[*]#*=}"
