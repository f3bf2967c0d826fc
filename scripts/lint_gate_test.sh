#!/usr/bin/env bash
# The lint gate (scripts/lint.sh) on a small repository of its own, with the
# project's .clang-format and .clang-tidy: it passes on old violations that
# its baseline records, fails on a new clang-format or clang-tidy violation
# (naming the file), notes a file that got better, and says so when the
# baseline's commit is not in the history. A few seconds: two tiny sources
# without includes. ctest: Lint.GateFailsOnNewViolations.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in clang-format clang-tidy git; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (scripts/bootstrap.sh --test-build)"
    exit 77
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/repo"
cd "$tmp/repo"
mkdir -p scripts src/demo build-lint
cp "$repo/scripts/lint.sh" scripts/
cp "$repo/.clang-format" "$repo/.clang-tidy" .
# Formatted and clean for clang-tidy; a header without a source of its own.
cat >src/demo/shape.h <<'EOF'
#pragma once

namespace demo {

inline int Sides() { return 4; }

}  // namespace demo
EOF
cat >src/demo/clean.cpp <<'EOF'
#include "demo/shape.h"

namespace demo {

int Twice(int x) { return 2 * x; }

}  // namespace demo
EOF
# Already off the format (the badly spaced line) and with an old clang-tidy
# warning (0 as a null pointer): both in the baseline.
cat >src/demo/old.cpp <<'EOF'
namespace demo {

int* Old() {
  int*   p = 0;
  return p;
}

}  // namespace demo
EOF
cat >build-lint/compile_commands.json <<EOF
[
  {"directory": "$tmp/repo", "command": "c++ -std=c++20 -Isrc -c src/demo/clean.cpp", "file": "src/demo/clean.cpp"},
  {"directory": "$tmp/repo", "command": "c++ -std=c++20 -Isrc -c src/demo/old.cpp", "file": "src/demo/old.cpp"},
  {"directory": "$tmp/repo", "command": "c++ -std=c++20 -Isrc -c src/demo/added.cpp", "file": "src/demo/added.cpp"}
]
EOF
echo "build-lint/" >.gitignore
git init -q .
git_commit() { git -c user.name=lint -c user.email=lint@localhost commit -q "$@"; }
git add -A
git_commit -m "demo tree"
bash scripts/lint.sh --update-baseline >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
git add -A
git_commit -m "lint baseline"

fail() {
  echo "FAIL: $1"
  echo "--- scripts/lint.sh said:"
  cat "$tmp/out"
  exit 1
}
# lint.sh must exit with status $1; its output must match each pattern after.
expect() {
  local want=$1
  shift
  local args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  local rc=0
  bash scripts/lint.sh "${args[@]}" >"$tmp/out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || fail "scripts/lint.sh ${args[*]} exited $rc, not $want"
  for pattern in "$@"; do
    grep -qE -- "$pattern" "$tmp/out" || fail "no line matching '$pattern'"
  done
}

grep -q '^1 src/demo/old.cpp$' scripts/lint_baseline/format.txt || fail "old.cpp not in format.txt"
grep -q '^1 modernize-use-nullptr src/demo/old.cpp$' scripts/lint_baseline/tidy.txt ||
  fail "old.cpp's warning not in tidy.txt"

# The tree as the baseline recorded it passes.
expect 0 -- 'clang-format: no file further' 'clang-tidy: no source changed since'

# A new clang-format violation in a clean file fails, naming it.
cp src/demo/clean.cpp "$tmp/clean.cpp"
sed -i 's/return 2 \* x;/return 2*x ;/' src/demo/clean.cpp
expect 1 --format-only -- 'src/demo/clean.cpp: 1 line' 'git clang-format' '--update-baseline'
# ... and in a new file.
cp "$tmp/clean.cpp" src/demo/clean.cpp
printf 'int  Added() { return 1; }\n' >src/demo/added.cpp
expect 1 --format-only -- 'src/demo/added.cpp: 1 line.*baseline 0'
rm src/demo/added.cpp
# One more off line in a file with old ones fails too; fixing them is noted.
sed -i 's/return p;/return  p;/' src/demo/old.cpp
expect 1 --format-only -- 'src/demo/old.cpp: 2 line.*baseline 1'
sed -i 's/return  p;/return p;/; s/int\*   p/int* p/' src/demo/old.cpp
expect 0 --format-only -- 'closer to .clang-format' 'src/demo/old.cpp: 0 line'
git checkout -q -- src/demo/old.cpp

# A new clang-tidy warning in a committed change fails, naming file and check.
sed -i 's/^}  \/\/ namespace demo/int* Zero() { return 0; }\n\n&/' src/demo/clean.cpp
git_commit -qam "a new warning"
expect 1 --tidy-only -- 'clang-tidy on 1 source' 'src/demo/clean.cpp: 1 modernize-use-nullptr \(baseline 0\)'
git -c user.name=lint -c user.email=lint@localhost revert --no-edit HEAD >/dev/null
# ... and in a header, checked through a source that includes it.
sed -i 's/^inline int Sides() { return 4; }/&\ninline int* NoShape() { return 0; }/' src/demo/shape.h
git_commit -qam "a new warning in a header"
expect 1 --tidy-only -- 'src/demo/shape.h: 1 modernize-use-nullptr \(baseline 0\)'
git -c user.name=lint -c user.email=lint@localhost revert --no-edit HEAD >/dev/null
# The old warning alone, in a changed file, passes.
printf '// touched\n' >>src/demo/old.cpp
git_commit -qam "touch old.cpp"
expect 0 --tidy-only -- 'clang-tidy on 2 source' 'no new warnings'

# A refresh on the changed sources only (--update-baseline --changed): the
# new warning is recorded, old.cpp's kept, the commit moved; then it passes.
sed -i 's/^}  \/\/ namespace demo/int* Zero() { return 0; }\n\n&/' src/demo/clean.cpp
git_commit -qam "a warning kept on purpose"
expect 1 --tidy-only -- 'src/demo/clean.cpp: 1 modernize-use-nullptr \(baseline 0\)'
expect 0 --tidy-only --update-baseline --changed -- 'baseline refreshed on 2 source'
grep -q '^1 modernize-use-nullptr src/demo/clean.cpp$' scripts/lint_baseline/tidy.txt ||
  fail "--changed did not record clean.cpp's warning"
grep -q '^1 modernize-use-nullptr src/demo/old.cpp$' scripts/lint_baseline/tidy.txt ||
  fail "--changed dropped old.cpp's row"
grep -q "^commit $(git rev-parse HEAD)$" scripts/lint_baseline/tidy.txt ||
  fail "--changed did not move the commit to HEAD"
git_commit -qam "lint baseline refreshed"
expect 0 --tidy-only -- 'no source changed since'

# A baseline commit that this clone does not have: said so, and the last
# commit's files checked.
sed -i 's/^commit .*/commit 0123456789abcdef0123456789abcdef01234567/' scripts/lint_baseline/tidy.txt
expect 0 --tidy-only -- 'not in this clone.s history' 'changed by the last commit'
echo "lint gate: all cases as expected"
