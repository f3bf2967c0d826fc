#!/usr/bin/env bash
# Writes tests/ctest_costs.txt (which scripts/test.sh gives a fresh build, so
# that ctest starts the longest tests first) from the test times ctest kept
# in one or more build folders: every test of the builds' current ctest
# lists (a quick test runs in its suite's group, scripts/ctest_groups.py)
# that took 2 s or more, at the longest time any of the builds saw, longest
# first. ctest keeps the times of tests no longer listed; they are left out.
# Usage: scripts/ctest_costs.sh BUILD_DIR...   (e.g. build build-asan, after
#        scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
python3 - "$@" >tests/ctest_costs.txt <<'PY'
import re
import subprocess
import sys
costs = {}
listed = set()
for build in sys.argv[1:]:
    out = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True, text=True).stdout
    listed.update(m.group(1) for m in re.finditer(r"Test +#\d+: (.+)$", out, re.M))
for build in sys.argv[1:]:
    path = f"{build}/Testing/Temporary/CTestCostData.txt"
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        sys.exit(f"ctest_costs: cannot read {path}: {e.strerror}")
    for line in lines:
        if line.startswith("---"):
            break
        parts = line.split()
        if len(parts) == 3 and parts[0] in listed:
            costs[parts[0]] = max(costs.get(parts[0], 0.0), float(parts[2]))
for name, cost in sorted(costs.items(), key=lambda kv: -kv[1]):
    if cost >= 2.0:
        print(f"{name} 1 {cost:.1f}")
print("---")
PY
echo "tests/ctest_costs.txt: $(($(wc -l <tests/ctest_costs.txt) - 1)) tests"
