#!/usr/bin/env bash
# Sets up gpudoctor on a fresh Debian 12 machine and runs it once:
#   1. installs only what building and running need (scripts/bootstrap.sh --build;
#      the test tool chain is scripts/test.sh's business),
#   2. builds the Release binary at -O2 (no tests, no benchmarks),
#   3. installs it stripped into $PREFIX/bin (default /usr/local/bin),
#   4. runs `gpudoctor` (a 10-second diagnosis; extra arguments go to it).
# The exit status is the install's: 0 when gpudoctor was installed, whatever the
# diagnosis found. The diagnosis' own exit code is printed with its meaning.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${PREFIX:-/usr/local}"
build_dir="${BUILD_DIR:-build-install}"
start_s=$SECONDS

bash scripts/bootstrap.sh --build
# -O2, as Debian builds its packages: about 15 % less compile time than the
# Release type's -O3 (DEVELOPMENT.md, "The install's time").
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
      -DGPUDOCTOR_TESTS=OFF -DGPUDOCTOR_BENCH=OFF \
      -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$build_dir" --target gpudoctor -j "$(nproc)"
SUDO=""
if [ "$(id -u)" -ne 0 ] && [ ! -w "$prefix/bin" ] && [ ! -w "$prefix" ]; then SUDO="sudo"; fi
$SUDO cmake --install "$build_dir" --component Unspecified --strip >/dev/null
binary="$prefix/bin/gpudoctor"
size_kb=$(( $(stat -c %s "$binary") / 1024 ))
echo "installed $("$binary" --version) to $binary (${size_kb} KiB, stripped) in $((SECONDS - start_s)) s"
echo

set +e
"$binary" "$@"
code=$?
set -e
case "$code" in
  0) meaning="no problem found (or information only)" ;;
  1) meaning="the worst finding is a warning" ;;
  2) meaning="a critical finding" ;;
  3) meaning="gpudoctor could not run the diagnosis here (see the line above)" ;;
  *) meaning="unexpected" ;;
esac
echo
echo "gpudoctor's diagnosis exited with $code: $meaning. The install succeeded."
exit 0
