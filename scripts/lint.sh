#!/usr/bin/env bash
# clang-format and clang-tidy against their baselines: fails on NEW
# violations only, so that code written before .clang-format and .clang-tidy
# existed passes as it is and nothing gets worse. DEVELOPMENT.md ("Lint")
# has the scheme and the figures.
#
# clang-format: for every C++ file under src/ tests/ bench/ fuzz/ (not
#   tests/data/), the number of lines `clang-format --dry-run` would change.
#   Fails when a file's count is above its count in
#   scripts/lint_baseline/format.txt (a file not listed there: 0).
# clang-tidy: warnings per (file, check), counted in the files the warnings
#   are in (a header's once, whichever sources include it). Too slow for the
#   whole tree on every run (see DEVELOPMENT.md), so it runs on the sources
#   changed since the commit scripts/lint_baseline/tidy.txt was taken at
#   (committed, uncommitted and new files; for a changed header, one source
#   that includes it), at most LINT_TIDY_MAX_FILES (40) of them, the most
#   recently changed first, none started after LINT_TIDY_BUDGET_S (75) s.
#   Fails when a (file, check) count is above the baseline's. When that
#   commit is not in this clone (a shallow clone), it says so and checks the
#   files the last commit changed. What clang cannot compile is noted, not
#   counted.
#
# Usage: scripts/lint.sh [--format-only | --tidy-only] [--update-baseline [--changed]]
#   --update-baseline  rewrite the baseline(s) from the tree as it is (the
#                      clang-tidy one runs on every source: about an hour on
#                      2 cores; with --format-only, seconds)
#   --changed          with --update-baseline: clang-tidy only on the sources
#                      changed since the baseline's commit (no cap, no time
#                      budget); their rows are replaced, the others kept,
#                      rows of files that are gone dropped, and the commit
#                      moved to HEAD
# Environment: LINT_BUILD_DIR (build-lint; configured here without unity
#   sources or precompiled headers, for compile_commands.json),
#   LINT_JOBS (nproc), LINT_TIDY_MAX_FILES (40), LINT_TIDY_BUDGET_S (75).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

do_format=1
do_tidy=1
update=0
changed_only=0
for arg in "$@"; do
  case "$arg" in
    --format-only) do_tidy=0 ;;
    --tidy-only) do_format=0 ;;
    --update-baseline) update=1 ;;
    --changed) changed_only=1 ;;
    *)
      echo "usage: scripts/lint.sh [--format-only | --tidy-only] [--update-baseline [--changed]]" >&2
      exit 2
      ;;
  esac
done

baseline_dir=scripts/lint_baseline
format_baseline=$baseline_dir/format.txt
tidy_baseline=$baseline_dir/tidy.txt
build_dir=${LINT_BUILD_DIR:-build-lint}
jobs=${LINT_JOBS:-$(nproc)}
max_tidy_files=${LINT_TIDY_MAX_FILES:-40}
budget_s=${LINT_TIDY_BUDGET_S:-75}
clang_format=${CLANG_FORMAT:-clang-format}
clang_tidy=${CLANG_TIDY:-clang-tidy}
for tool in "$clang_format" "$clang_tidy"; do
  if ! command -v "$tool" >/dev/null; then
    echo "lint: $tool is not installed (scripts/bootstrap.sh --test-build installs it)" >&2
    exit 2
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# The C++ files lint looks at: tracked and new (not ignored) ones.
lint_files() {
  git ls-files --cached --others --exclude-standard -- \
    'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'bench/*.cpp' 'bench/*.h' \
    'fuzz/*.cpp' 'fuzz/*.h' |
    grep -v '^tests/data/' | sort -u | while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done
}

# ---------------------------------------------------------------- clang-format
# "count path" for every file clang-format would change, from one
# `clang-format --dry-run` over all files: the distinct lines it warns on.
format_counts() {
  local out=$work/format.out
  lint_files >"$work/files"
  if ! xargs -r "$clang_format" --dry-run <"$work/files" 2>"$out" >/dev/null; then
    echo "lint: clang-format failed (crashed or rejected .clang-format):" >&2
    grep -v 'warning: code should be clang-formatted' "$out" | head -20 >&2
    exit 2
  fi
  sed -n 's/^\(.*\):\([0-9]*\):[0-9]*: warning: code should be clang-formatted.*/\1 \2/p' "$out" |
    sort -u | awk '{n[$1]++} END {for (f in n) print n[f], f}' | sort -k2
}

if [ "$do_format" = 1 ]; then
  start_s=$SECONDS
  format_counts >"$work/format.now"
  if [ "$update" = 1 ]; then
    mkdir -p "$baseline_dir"
    {
      echo "# Lines clang-format would change in each file (scripts/lint.sh; files with none"
      echo "# are not listed). scripts/lint.sh fails when a file's count goes above this."
      echo "# count path"
      cat "$work/format.now"
    } >"$format_baseline"
    echo "lint: clang-format baseline written: $(wc -l <"$work/format.now") file(s)," \
      "$(awk '{t+=$1} END {print t+0}' "$work/format.now") line(s) -> $format_baseline"
  else
    touch "$work/format.base"
    if [ -f "$format_baseline" ]; then grep -v '^#' "$format_baseline" >"$work/format.base" || true; fi
    # worse: "path now base"; better: "path now base"
    awk 'NR == FNR {base[$2] = $1; next}
         {now[$2] = $1}
         END {
           for (f in now) if (now[f] > base[f] + 0) print "worse", f, now[f], base[f] + 0
           for (f in base) if (now[f] + 0 < base[f]) print "better", f, now[f] + 0, base[f]
         }' "$work/format.base" "$work/format.now" | sort -k2 >"$work/format.cmp"
    worse=$(grep -c '^worse' "$work/format.cmp" || true)
    better=$(grep -c '^better' "$work/format.cmp" || true)
    total=$(awk '{t+=$1} END {print t+0}' "$work/format.now")
    if [ "$worse" -gt 0 ]; then
      failed=1
      echo "lint: clang-format: $worse file(s) differ from .clang-format in more lines than the baseline ($format_baseline):"
      awk '$1 == "worse" {
             printf "  %s: %d line(s) clang-format would change (baseline %d%s)\n",
                    $2, $3, $4, ($4 == 0 ? ", a new or clean file" : "") }' "$work/format.cmp"
      echo "  fix: format the lines you changed, \`git clang-format\` (staged changes) or"
      echo "       \`git clang-format HEAD~1\` (the last commit), or a whole file: clang-format -i FILE"
      echo "  see the changes: clang-format FILE | diff FILE -"
      echo "  if the layout is intended: scripts/lint.sh --format-only --update-baseline, and commit it"
    else
      echo "lint: clang-format: no file further from .clang-format than its baseline" \
        "($total line(s) in $(wc -l <"$work/format.now") file(s) differ, as recorded)"
    fi
    if [ "$better" -gt 0 ]; then
      echo "lint: clang-format: $better file(s) now closer to .clang-format than the baseline (fine;" \
        "\`scripts/lint.sh --format-only --update-baseline\` records it):"
      awk '$1 == "better" && ++n <= 20 {printf "  %s: %d line(s), baseline %d\n", $2, $3, $4}' "$work/format.cmp"
    fi
  fi
  echo "lint: clang-format took $((SECONDS - start_s)) s"
fi

# ------------------------------------------------------------------ clang-tidy
if [ "$do_tidy" = 0 ]; then
  exit "$failed"
fi
start_s=$SECONDS

# compile_commands.json file by file: unity sources list only the batches
# and precompiled headers are g++'s, which clang cannot read.
if [ -f CMakeLists.txt ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DCMAKE_UNITY_BUILD=OFF -DGPUDOCTOR_PCH=OFF >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log"; echo "lint: configuring $build_dir failed" >&2; exit 2; }
fi
compdb=$build_dir/compile_commands.json
if [ ! -f "$compdb" ]; then
  echo "lint: no $compdb" >&2
  exit 2
fi
# The sources clang-tidy can run on (those in compile_commands.json), relative.
python3 - "$compdb" "$root" >"$work/tus" <<'EOF'
import json, os, sys
root = sys.argv[2]
for e in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(e.get("directory", ""), e["file"]))
    rel = os.path.relpath(f, root)
    if not rel.startswith(".."):
        print(rel)
EOF
sort -u -o "$work/tus" "$work/tus"

# Runs clang-tidy on the sources in file $1 (jobs in parallel) and prints
# "count check path" per (file the warning is in, check), each warning once.
# Compile errors (clang-diagnostic-*) are not counted but listed in
# $work/tidy.errors: clang 14 rejects some valid C++20 that g++ 12 builds (a
# lambda capturing a structured binding, which clang has from 16), and the
# compiler, not this gate, judges what compiles.
# A source not yet started when the time budget ($2 s) is spent is skipped
# and listed in $work/tidy/skipped.
tidy_counts() {
  local list=$1 deadline=$(($(date +%s) + $2))
  mkdir -p "$work/tidy"
  : >"$work/tidy/skipped"
  # shellcheck disable=SC2016
  xargs -r -P "$jobs" -I{} sh -c '
    if [ "$(date +%s)" -ge "$5" ]; then echo "$2" >>"$1/tidy/skipped"; exit 0; fi
    out="$1/tidy/$(echo "$2" | tr / _).txt"
    "$3" --quiet -p "$4" "$2" >"$out" 2>"$out.err" || true' \
    _ "$work" {} "$clang_tidy" "$build_dir" "$deadline" <"$list"
  { cat "$work"/tidy/*.txt 2>/dev/null || true; } | python3 -c '
import os, re, sys
root = sys.argv[1]
pat = re.compile(r"^([^:\s][^:]*):(\d+):(\d+): (warning|error): .* \[([^\]]+)\]$")
seen = set()
counts = {}
errors = os.fdopen(3, "w")
for line in sys.stdin:
    m = pat.match(line.rstrip("\n"))
    if not m:
        continue
    # Absolute, or relative to the directory of the compile commands (the root).
    path = os.path.relpath(os.path.normpath(os.path.join(root, m.group(1))), root)
    if path.startswith(".."):
        continue
    key = (path, m.group(2), m.group(3), m.group(5))
    if key in seen:
        continue
    seen.add(key)
    if m.group(5).startswith("clang-diagnostic-"):
        errors.write("%s:%s: %s\n" % (path, m.group(2), line.split(": ", 2)[2].rstrip()))
        continue
    counts[(path, m.group(5))] = counts.get((path, m.group(5)), 0) + 1
for (path, check), n in sorted(counts.items()):
    print(n, check, path)
' "$root" 3>"$work/tidy.errors"
}

# What clang could not compile: its checks there may have missed code.
report_compile_errors() {
  if [ -s "$work/tidy.errors" ]; then
    echo "lint: clang-tidy: note: clang $("$clang_tidy" --version | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p')" \
      "could not compile $(wc -l <"$work/tidy.errors") place(s) (not counted; g++ judges" \
      "what compiles), so its checks may have missed code there; the first per file:"
    sort -t: -k1,1 -u "$work/tidy.errors" | sed 's/^/  /'
  fi
}

if [ "$update" = 1 ] && [ "$changed_only" = 0 ]; then
  if [ -n "$(git status --porcelain -- src tests bench 2>/dev/null)" ]; then
    echo "lint: note: src/, tests/ or bench/ has uncommitted changes; the baseline counts them" \
      "but records the commit HEAD"
  fi
  head_commit=$(git rev-parse HEAD)
  echo "lint: clang-tidy on all $(wc -l <"$work/tus") sources, $jobs at a time (long)..."
  tidy_counts "$work/tus" 1000000 >"$work/tidy.now"
  mkdir -p "$baseline_dir"
  {
    echo "# clang-tidy warnings per file and check (scripts/lint.sh), taken on every source"
    echo "# at the commit below in $((SECONDS - start_s)) s, $jobs job(s). scripts/lint.sh runs clang-tidy"
    echo "# on the files changed since that commit and fails when a count goes above this."
    echo "commit $head_commit"
    echo "# count check path"
    cat "$work/tidy.now"
  } >"$tidy_baseline"
  report_compile_errors
  echo "lint: clang-tidy baseline written: $(awk '{t+=$1} END {print t+0}' "$work/tidy.now")" \
    "warning(s) -> $tidy_baseline; took $((SECONDS - start_s)) s"
  exit "$failed"
fi

base=""
[ -f "$tidy_baseline" ] && base=$(sed -n 's/^commit \([0-9a-f]*\)$/\1/p' "$tidy_baseline" | head -1)
# Changed files, the most recently changed first: the working tree's changes
# and new files, then each commit's from HEAD back to the baseline's.
changed_files() {
  git diff --name-only HEAD -- src tests bench
  git ls-files --others --exclude-standard -- src tests bench
  git log --format= --name-only "$@" -- src tests bench
}
if [ -n "$base" ] && git cat-file -e "$base^{commit}" 2>/dev/null; then
  if git merge-base --is-ancestor "$base" HEAD; then
    changed_files "$base..HEAD" >"$work/changed.all"
  else
    # History rewritten or another branch: what differs from that tree.
    git diff --name-only "$base" -- src tests bench >"$work/changed.all"
  fi
  scope="changed since the baseline's commit ${base:0:12}"
else
  if git rev-parse -q --verify HEAD~1 >/dev/null; then
    changed_files HEAD~1..HEAD >"$work/changed.all"
    scope="changed by the last commit"
  else
    changed_files -0 >"$work/changed.all"
    scope="changed in the working tree"
  fi
  if [ -z "$base" ]; then
    echo "lint: clang-tidy: $tidy_baseline has no commit line (no baseline yet?): checking" \
      "the sources $scope"
  else
    echo "lint: clang-tidy: the baseline's commit ${base:0:12} is not in this clone's history" \
      "(a shallow clone?): checking only the sources $scope$([ "$scope" = "changed in the working tree" ] &&
        echo " (HEAD has no parent here)"); for all changed since the baseline: git fetch --unshallow"
  fi
fi
# Keep the first occurrence of each existing file; headers map to a source
# that includes them (the one of the same name, else the first includer).
awk '!seen[$0]++' "$work/changed.all" | while read -r f; do
  [ -f "$f" ] || continue
  case "$f" in
    tests/data/*) ;;
    *.cpp) if grep -qxF "$f" "$work/tus"; then echo "$f"; fi ;;
    *.h)
      stem=${f%.h}.cpp
      if grep -qxF "$stem" "$work/tus"; then
        echo "$stem"
      else
        inc=${f#src/}
        inc=${inc#tests/}
        tu=$(xargs grep -lF "#include \"$inc\"" <"$work/tus" 2>/dev/null | head -1 || true)
        if [ -z "$tu" ]; then
          tu=$(grep "^$(dirname "$f")/" "$work/tus" |
            xargs -r grep -lF "#include \"$(basename "$f")\"" 2>/dev/null | head -1 || true)
        fi
        if [ -n "$tu" ]; then echo "$tu"; fi
      fi
      ;;
  esac
done | awk '!seen[$0]++' >"$work/check.all"
n_all=$(wc -l <"$work/check.all")
if [ "$update" = 1 ]; then
  # --update-baseline --changed: every changed source, then the rows of the
  # files they cover replaced.
  head_commit=$(git rev-parse HEAD)
  echo "lint: clang-tidy on the $n_all source(s) $scope, $jobs at a time..."
  tidy_counts "$work/check.all" 1000000 >"$work/tidy.now"
  grep -v '^#' "$tidy_baseline" 2>/dev/null | grep -v '^commit ' >"$work/tidy.base" || true
  # Replaced: the rows of every source checked and of every file a warning
  # was found in now; dropped: the rows of files that no longer exist.
  { cat "$work/check.all"; awk '{print $3}' "$work/tidy.now"; } | sort -u >"$work/replaced"
  awk 'NR == FNR {r[$0] = 1; next} !($3 in r)' "$work/replaced" "$work/tidy.base" |
    while read -r n check path; do if [ -f "$path" ]; then echo "$n $check $path"; fi; done |
    cat - "$work/tidy.now" | sort -k3,3 -k2,2 >"$work/tidy.merged"
  {
    echo "# clang-tidy warnings per file and check (scripts/lint.sh), taken on every source"
    echo "# and since refreshed on the sources changed up to the commit below (the last"
    echo "# refresh: $n_all source(s) in $((SECONDS - start_s)) s, $jobs job(s)). scripts/lint.sh runs"
    echo "# clang-tidy on the files changed since that commit and fails when a count goes above this."
    echo "commit $head_commit"
    echo "# count check path"
    cat "$work/tidy.merged"
  } >"$tidy_baseline"
  report_compile_errors
  echo "lint: clang-tidy baseline refreshed on $n_all source(s):" \
    "$(awk '{t+=$1} END {print t+0}' "$work/tidy.merged") warning(s) in all -> $tidy_baseline;" \
    "took $((SECONDS - start_s)) s"
  exit "$failed"
fi
head -n "$max_tidy_files" "$work/check.all" >"$work/check"
n=$(wc -l <"$work/check")
if [ "$n_all" -eq 0 ]; then
  echo "lint: clang-tidy: no source $scope; nothing to check"
  exit "$failed"
fi
echo "lint: clang-tidy on $n source(s) $scope, $jobs at a time"
if [ "$n_all" -gt "$n" ]; then
  echo "lint: clang-tidy: $n_all sources changed since the baseline; only the $n most recently" \
    "changed are checked (LINT_TIDY_MAX_FILES). Refresh the baseline:" \
    "scripts/lint.sh --tidy-only --update-baseline"
fi
tidy_counts "$work/check" "$budget_s" >"$work/tidy.now"
if [ -s "$work/tidy/skipped" ]; then
  echo "lint: clang-tidy: $(wc -l <"$work/tidy/skipped") source(s) not checked, the time budget" \
    "(LINT_TIDY_BUDGET_S=$budget_s s) spent before their turn:"
  sed 's/^/  /' "$work/tidy/skipped"
fi
grep -v '^#' "$tidy_baseline" 2>/dev/null | grep -v '^commit ' >"$work/tidy.base" || true
# "count check path" now against the baseline's: the (file, check) pairs above it.
awk 'NR == FNR {base[$2 " " $3] = $1; next}
     {k = $2 " " $3; if ($1 > base[k] + 0) printf "  %s: %d %s (baseline %d)\n", $3, $1, $2, base[k] + 0}' \
  "$work/tidy.base" "$work/tidy.now" >"$work/tidy.worse"
if [ -s "$work/tidy.worse" ]; then
  failed=1
  echo "lint: clang-tidy: new warnings, more than the baseline ($tidy_baseline) has for the file and check:"
  cat "$work/tidy.worse"
  echo "  the warnings: clang-tidy -p $build_dir FILE (the source; for a header, a source including it)"
  echo "  fix them, or where the check is wrong here, silence that line with a reason:"
  echo "    // NOLINT(check-name): why; or refresh the baseline (about an hour on 2 cores):"
  echo "    scripts/lint.sh --tidy-only --update-baseline, and commit it"
else
  echo "lint: clang-tidy: no new warnings ($(awk '{t+=$1} END {print t+0}' "$work/tidy.now")" \
    "in these files, none above the baseline)"
fi
report_compile_errors
echo "lint: clang-tidy took $((SECONDS - start_s)) s"
exit "$failed"
