#!/usr/bin/env bash
# Installs the Debian 12 packages gpudoctor needs.
#   scripts/bootstrap.sh            what building and testing need (CI, developers)
#   scripts/bootstrap.sh --build    only what building and running the binary need
#                                   (scripts/install.sh)
#   scripts/bootstrap.sh --test-build  what building the binary and the tests
#                                   needs (scripts/test.sh installs the rest, the
#                                   servers and tools the tests run, beside the build)
# Idempotent: when everything is installed it only checks and returns.
set -euo pipefail

# Compiler, build tools and the libraries the binary links.
BUILD_PACKAGES=(
  build-essential g++ cmake ninja-build pkg-config
  nlohmann-json3-dev libfmt-dev libcli11-dev libpugixml-dev
  libsystemd-dev zlib1g-dev libarchive-dev libtomlplusplus-dev
  libsqlite3-dev
  libcpp-httplib-dev libmicrohttpd-dev libgnutls28-dev libyaml-cpp-dev libcrypt-dev
)

# What building the tests, the benchmarks and the man page needs
# (GoogleTest, Google Benchmark, Python for the test list, help2man) and
# dpkg-buildflags; clang-format and clang-tidy for the lint phase, which
# runs before the build (scripts/lint.sh).
TEST_BUILD_PACKAGES=(
  googletest libgtest-dev libgmock-dev libbenchmark-dev python3 help2man dpkg-dev
  clang-format clang-tidy
)
# What the tests, fuzzing and packaging run: servers the tests start
# (Prometheus, VictoriaMetrics, Chromium, a single-node Slurm with munge),
# clang for the fuzz targets, tools, mmdebstrap for the container image's
# root file system.
TEST_RUN_PACKAGES=(
  chromium fonts-noto-cjk prometheus prometheus-node-exporter victoria-metrics wrk iproute2 openssl
  clang libclang-rt-14-dev
  python3-yaml util-linux tmux
  man-db systemd
  slurmctld slurmd slurm-client munge mmdebstrap
)

PACKAGES=("${BUILD_PACKAGES[@]}")
case "${1:-}" in
  --build) ;;
  --test-build) PACKAGES+=("${TEST_BUILD_PACKAGES[@]}") ;;
  "") PACKAGES+=("${TEST_BUILD_PACKAGES[@]}" "${TEST_RUN_PACKAGES[@]}") ;;
  *) echo "usage: scripts/bootstrap.sh [--build | --test-build]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
