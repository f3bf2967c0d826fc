#!/usr/bin/env bash
# Sets up gpudoctor on a fresh Debian 12 machine and runs it: installs the
# build packages, builds, installs the binary (default prefix /usr/local, or
# $PREFIX), then runs `gpudoctor` on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_INSTALL_PREFIX="${PREFIX:-/usr/local}" >/dev/null
cmake --build build --target gpudoctor -j "$(nproc)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO cmake --install build --component Unspecified >/dev/null
echo "installed $("${PREFIX:-/usr/local}/bin/gpudoctor" --version) to ${PREFIX:-/usr/local}/bin"
echo
# The exit code says what was found: 0 ok, 1 warning, 2 critical, 3 could not run.
exec "${PREFIX:-/usr/local}/bin/gpudoctor" "$@"
