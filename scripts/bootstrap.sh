#!/usr/bin/env bash
# Installs the Debian 12 packages gpudoctor needs to build and test.
# Idempotent: when everything is installed it only checks and returns.
set -euo pipefail

PACKAGES=(
  build-essential g++ cmake ninja-build pkg-config
  nlohmann-json3-dev libfmt-dev libcli11-dev libpugixml-dev
  googletest libgtest-dev libgmock-dev
  libsystemd-dev zlib1g-dev libbenchmark-dev libtomlplusplus-dev
  libsqlite3-dev
  chromium fonts-noto-cjk prometheus prometheus-node-exporter victoria-metrics wrk iproute2
  libcpp-httplib-dev
  clang libclang-rt-14-dev
  python3 python3-yaml util-linux
  help2man man-db dpkg-dev systemd
)

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
