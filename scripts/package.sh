#!/usr/bin/env bash
# Builds the Debian package gpudoctor_<version>_<arch>.deb in BUILD_DIR (a
# configured build directory; default build) with `cpack -G DEB`, checks what
# it holds, and with --install (or CI=true, as root) installs it with
# apt-get, checks the installed files (gpudoctor --version, man -w gpudoctor,
# systemd-analyze verify on the unit, the conffile), then purges it and
# checks that nothing of it is left.
# Usage: scripts/package.sh [--install] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

install=0
build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --install) install=1; shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "package.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
if [ "${CI:-}" = true ]; then install=1; fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "package.sh: $build is not a configured build directory (run cmake first)" >&2
  exit 2
fi

fail() { echo "package.sh: $*" >&2; exit 1; }

cmake --build "$build" --target gpudoctor gpudoctor_man
rm -f "$build"/gpudoctor_*.deb
(cd "$build" && cpack -G DEB >/dev/null) || fail "cpack -G DEB failed in $build"
debs=("$build"/gpudoctor_*_*.deb)
[ -f "${debs[0]}" ] || fail "cpack wrote no gpudoctor_<version>_<arch>.deb in $build"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "gpudoctor_${version}_${arch}.deb" ] ||
  fail "$deb is not named gpudoctor_${version}_${arch}.deb"
echo "package: $deb"
dpkg-deb -f "$deb" Package Version Architecture Depends | sed 's/^/  /'

# What the package must hold.
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for path in ./usr/bin/gpudoctor ./lib/systemd/system/gpudoctor-agent.service \
  ./etc/gpudoctor/config.toml ./usr/share/man/man1/gpudoctor.1.gz \
  ./usr/share/gpudoctor/prometheus/gpudoctor-alerts.yml \
  ./usr/share/gpudoctor/node-problem-detector/gpudoctor-plugin.json \
  ./usr/share/gpudoctor/slurm/gpudoctor-healthcheck.sh; do
  grep -qxF "$path" <<<"$contents" || fail "$deb lacks $path"
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libsqlite3-0 libsystemd0 zlib1g libarchive13 libfmt9; do
  grep -q "\b$lib\b" <<<"$depends" || fail "Depends of $deb lacks $lib: $depends"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -e "$deb" "$tmp/control"
grep -qxF /etc/gpudoctor/config.toml "$tmp/control/conffiles" ||
  fail "/etc/gpudoctor/config.toml is not a conffile of $deb"
dpkg-deb -x "$deb" "$tmp/root"
grep -q '^ExecStart=/usr/bin/gpudoctor agent' "$tmp/root/lib/systemd/system/gpudoctor-agent.service" ||
  fail "the packaged unit does not run /usr/bin/gpudoctor"
plugin="$tmp/root/usr/share/gpudoctor/node-problem-detector/gpudoctor-plugin.json"
grep -q '"path": "/usr/bin/gpudoctor"' "$plugin" ||
  fail "the packaged node-problem-detector plugin does not run /usr/bin/gpudoctor"
! grep -q '/usr/local/bin' "$plugin" ||
  fail "the packaged node-problem-detector plugin still names /usr/local/bin"

if [ "$install" = 0 ]; then
  echo "package: built and checked; not installed (--install, or CI=true, installs and purges it)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then fail "--install needs root (apt-get install)"; fi
if dpkg-query -W -f='${Status}' gpudoctor 2>/dev/null | grep -q 'ok installed'; then
  fail "a gpudoctor package is already installed here; not replacing it with a test install"
fi

echo "package: apt-get install ./$deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "./$deb" >/dev/null
/usr/bin/gpudoctor --version | grep -qx "gpudoctor $version" || fail "gpudoctor --version is not $version"
man_path=$(man -w gpudoctor) || fail "man -w gpudoctor finds no page"
[ "$man_path" = /usr/share/man/man1/gpudoctor.1.gz ] || fail "man -w gpudoctor: $man_path"
zcat "$man_path" | grep -q "gpudoctor analyze" || fail "the man page does not describe the commands"
systemd-analyze verify /lib/systemd/system/gpudoctor-agent.service ||
  fail "systemd-analyze verify rejects the installed unit"
if systemctl is-enabled gpudoctor-agent.service >/dev/null 2>&1; then
  fail "the package enabled gpudoctor-agent.service (the admin enables it)"
fi
cmp -s deploy/config.example.toml /etc/gpudoctor/config.toml || fail "/etc/gpudoctor/config.toml differs"
echo "package: installed; --version, man page, unit and conffile checked"

DEBIAN_FRONTEND=noninteractive apt-get purge -y -q gpudoctor >/dev/null
left=()
for path in /usr/bin/gpudoctor /lib/systemd/system/gpudoctor-agent.service /etc/gpudoctor \
  /usr/share/gpudoctor /usr/share/man/man1/gpudoctor.1.gz /var/lib/gpudoctor; do
  if [ -e "$path" ]; then left+=("$path"); fi
done
[ ${#left[@]} -eq 0 ] || fail "purge left ${left[*]}"
if dpkg-query -W -f='${Status}' gpudoctor 2>/dev/null | grep -q 'installed'; then
  fail "dpkg still lists gpudoctor after the purge"
fi
echo "package: purged; nothing left"
