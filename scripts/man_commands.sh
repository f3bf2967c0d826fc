#!/usr/bin/env bash
# Writes a help2man include file with one section per subcommand, each the
# subcommand's own --help, so that `man gpudoctor` documents every command
# and option. Used by the build (cmake/packaging.cmake).
# Usage: scripts/man_commands.sh GPUDOCTOR_BINARY OUTPUT_FILE
set -euo pipefail
# The help in English whatever the build machine's language (headings follow LANG).
export LC_ALL=C LANG=C LC_MESSAGES=C
bin=${1:?usage: man_commands.sh GPUDOCTOR_BINARY OUTPUT_FILE}
out=${2:?usage: man_commands.sh GPUDOCTOR_BINARY OUTPUT_FILE}
commands=$("$bin" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
if [ -z "$commands" ]; then
  echo "man_commands.sh: '$bin --help' lists no subcommands" >&2
  exit 1
fi
{
  echo '[COMMANDS]'
  for c in $commands; do
    echo ".SS \"gpudoctor $c\""
    echo '.nf'
    # roff: backslashes doubled, a leading dot or quote escaped.
    "$bin" "$c" --help | sed -e 's/\\/\\\\/g' -e "s/^\([.']\)/\\\\\&\1/" -e "s#^Usage: .*/gpudoctor #Usage: gpudoctor #"
    echo '.fi'
  done
  echo '[FILES]'
  echo '.TP'
  echo '/etc/gpudoctor/config.toml'
  echo 'Thresholds and settings (see /usr/share/gpudoctor/config.example.toml).'
  echo '.TP'
  echo '/var/lib/gpudoctor'
  echo "The agent's store of recorded samples, events and findings."
  echo '[SEE ALSO]'
  echo 'nvidia-smi(1), journalctl(1), systemctl(1)'
} >"$out"
