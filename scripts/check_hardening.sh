#!/usr/bin/env bash
# Checks that a binary carries Debian's hardening (dpkg-buildflags): a
# read-only relocation segment (-Wl,-z,relro), the stack protector
# (-fstack-protector-strong) and fortified libc calls (-D_FORTIFY_SOURCE=2).
# Usage: scripts/check_hardening.sh BINARY
set -euo pipefail
binary=${1:?usage: scripts/check_hardening.sh BINARY}
[ -x "$binary" ] || { echo "check_hardening: $binary is not an executable" >&2; exit 2; }
fail=0
readelf -lW "$binary" | grep -q GNU_RELRO ||
  { echo "check_hardening: $binary has no GNU_RELRO segment (-Wl,-z,relro)" >&2; fail=1; }
symbols=$(nm -D --undefined-only "$binary")
grep -q '__stack_chk_fail' <<<"$symbols" ||
  { echo "check_hardening: $binary calls no __stack_chk_fail (-fstack-protector-strong)" >&2; fail=1; }
grep -qE '__[a-z]+_chk\b' <<<"$(grep -v __stack_chk_fail <<<"$symbols")" ||
  { echo "check_hardening: $binary calls no fortified __*_chk function (-D_FORTIFY_SOURCE=2)" >&2; fail=1; }
[ "$fail" = 0 ] && echo "check_hardening: $binary has relro, the stack protector and fortified calls"
exit "$fail"
