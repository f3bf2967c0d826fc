#!/usr/bin/env bash
# Builds the root file system of the container image (deploy/container/
# Containerfile: Debian 12 and the project's own .deb) from Debian's packages,
# without a registry or a container engine, and runs gpudoctor inside it:
# mmdebstrap (Debian 12, minbase) installs BUILD_DIR/gpudoctor_*.deb with apt
# as the Containerfile does, then, in a chroot,
#   gpudoctor --version                  must print the package's version;
#   gpudoctor check --npd                without NVML: unknown, exit 2, one
#                                        short line;
#   gpudoctor check --npd                on the fake NVML copied in (the build's
#                                        tests/fake_nvml), two healthy GPUs:
#                                        exit 0.
# The downloaded packages are kept in BUILD_DIR/container-cache, so a second
# run downloads nothing new; the root file system is removed at the end.
# Needs root (mmdebstrap's root mode, chroot) and mmdebstrap; run
# scripts/package.sh BUILD_DIR first. scripts/test.sh runs it with CI=true.
# Usage: scripts/container_rootfs.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
fail() { echo "container_rootfs.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (mmdebstrap in root mode, chroot)"
command -v mmdebstrap >/dev/null || fail "mmdebstrap is missing (scripts/bootstrap.sh installs it)"
debs=("$build"/gpudoctor_*_*.deb)
[ -f "${debs[0]}" ] || fail "no gpudoctor_<version>_<arch>.deb in $build (run scripts/package.sh $build)"
deb=$(realpath "${debs[0]}")
version=$(dpkg-deb -f "$deb" Version)
fake_nvml="$build/fake_nvml/libnvidia-ml.so.1"
scenario=tests/data/scenarios/healthy_idle.json

cache=$(realpath -m "$build/container-cache")
mkdir -p "$cache"
rootfs=$(mktemp -d "${TMPDIR:-/tmp}/gpudoctor-rootfs.XXXXXX")
trap 'rm -rf "$rootfs"' EXIT

start_s=$SECONDS
# minbase: essential packages and apt, as debian:12-slim. The package's
# .deb goes in through mmdebstrap's file-mirror-automount hook; the .debs
# apt downloads are copied in from the cache before and back out after, and
# kept (download/empty, essential/unlink skipped). force-unsafe-io: no fsync
# per file for a tree that is thrown away. The hooks' "$1" (the root
# file system) is mmdebstrap's to expand.
# shellcheck disable=SC2016
mmdebstrap --quiet --mode=root --variant=minbase --format=directory \
  --dpkgopt=force-unsafe-io --skip=essential/unlink,download/empty \
  --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
  --setup-hook="sync-in $cache /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives $cache" \
  --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
  --include="$deb" \
  bookworm "$rootfs" || fail "mmdebstrap could not build the root file system"
echo "container_rootfs: root file system built in $((SECONDS - start_s)) s ($(du -sh "$rootfs" | cut -f1))"

# The installed binary, the way the image's ENTRYPOINT runs it.
out=$(chroot "$rootfs" /usr/bin/gpudoctor --version) || fail "gpudoctor --version failed in the root file system"
[ "$out" = "gpudoctor $version" ] || fail "gpudoctor --version in the root file system: $out (want gpudoctor $version)"
echo "container_rootfs: $out"

# No NVML in the image (the NVIDIA runtime mounts the host's): unknown.
set +e
out=$(chroot "$rootfs" /usr/bin/gpudoctor check --npd --duration 1s --interval 500ms 2>/dev/null)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "check --npd without NVML exited $rc (want 2): $out"
if [ "$(wc -l <<<"$out")" -ne 1 ] || [ "${#out}" -gt 80 ] || [[ "$out" != "unknown: "* ]]; then
  fail "check --npd without NVML: not one short unknown line: $out"
fi
echo "container_rootfs: check --npd without NVML: exit 2, $out"

# On the fake NVML, as the NVIDIA runtime would mount the driver's library.
if [ -f "$fake_nvml" ]; then
  mkdir -p "$rootfs/opt/fake"
  cp "$fake_nvml" "$rootfs/opt/fake/libnvidia-ml.so.1"
  cp "$scenario" "$rootfs/opt/fake/scenario.json"
  set +e
  out=$(chroot "$rootfs" env GPUDOCTOR_NVML_LIBRARY=/opt/fake/libnvidia-ml.so.1 \
    FAKE_NVML_SCENARIO=/opt/fake/scenario.json \
    /usr/bin/gpudoctor check --npd --duration 1s --interval 500ms 2>&1)
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "check --npd on the fake NVML exited $rc (want 0): $out"
  [ "$out" = "2 GPUs: healthy (diagnosis)" ] || fail "check --npd on the fake NVML: $out"
  echo "container_rootfs: check --npd on the fake NVML: exit 0, $out"
else
  echo "container_rootfs: $fake_nvml not built; check --npd on the fake NVML not run"
fi
echo "container_rootfs: ok in $((SECONDS - start_s)) s"
