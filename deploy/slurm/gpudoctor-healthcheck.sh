#!/bin/bash
# Slurm HealthCheckProgram (or prolog) for GPU nodes: asks gpudoctor whether
# this node's GPUs are healthy and drains the node with gpudoctor's one-line
# reason when they are not.
#
#   gpudoctor-healthcheck.sh [`gpudoctor check` options...]
#
# Slurm runs HealthCheckProgram without arguments, so options for
# `gpudoctor check` (e.g. --expected-gpus 8) come from an environment file:
#   GPUDOCTOR_CHECK_ARGS="--expected-gpus 8"   in /etc/default/gpudoctor
# (one line, words split on spaces; read, never executed). Arguments given to
# the script (as the prolog does) come after them.
#
# Environment:
#   GPUDOCTOR           the gpudoctor binary (default: gpudoctor on PATH)
#   GPUDOCTOR_ENV_FILE  the environment file (default: /etc/default/gpudoctor)
#   NODENAME            the Slurm node name (default: SLURMD_NODENAME, then hostname -s)
#   DRY_RUN=1           print the scontrol update command instead of running it
#
# gpudoctor check --slurm answers from the running agent's state when it is
# fresh, otherwise after a 3-second diagnosis. Exit 0: healthy, nothing done.
# Otherwise (1 a problem, 2 the GPUs cannot be seen, anything else gpudoctor
# could not run) the node is drained: a GPU node whose GPUs cannot be judged
# should not take GPU jobs. When the node is healthy again and gpudoctor's
# own drain is in place, the node is resumed. A node drained or down with a reason that
# gpudoctor did not write (an operator's "RMA ticket 1234, do not resume") is
# left alone: its reason is never overwritten. gpudoctor's reasons end in
# "[gpudoctor]". This script exits with gpudoctor's code, so as a prolog it
# also fails the job's start on that node.
#
# What it does goes to stdout and check's own messages to stderr, one line
# each, prefixed "gpudoctor-healthcheck:"; slurmd logs them.
set -u

tag="[gpudoctor]"
gpudoctor="${GPUDOCTOR:-gpudoctor}"
node="${NODENAME:-${SLURMD_NODENAME:-$(hostname -s)}}"
env_file="${GPUDOCTOR_ENV_FILE:-/etc/default/gpudoctor}"

say() { echo "gpudoctor-healthcheck: $*"; }

check_args=()
if [ -r "$env_file" ]; then
  line="$(grep -E '^[[:space:]]*(export[[:space:]]+)?GPUDOCTOR_CHECK_ARGS=' "$env_file" | tail -n 1)"
  value="${line#*=}"
  value="${value%\"}"
  value="${value#\"}"
  value="${value%\'}"
  value="${value#\'}"
  read -r -a check_args <<<"$value"
fi

errors="$(mktemp)" || { say "cannot create a temporary file"; exit 3; }
trap 'rm -f "$errors"' EXIT
out="$("$gpudoctor" check --slurm "${check_args[@]}" "$@" 2>"$errors")"
rc=$?
while IFS= read -r msg; do
  [ -n "$msg" ] && echo "gpudoctor-healthcheck: check: $msg" >&2
done <"$errors"
reason="${out%%$'\n'*}"

# The node's state and reason now: `scontrol show node` prints
# "State=IDLE+DRAIN ..." and "Reason=<text> [user@time]".
node_state() {
  shown="$(scontrol show node "$node" 2>/dev/null)"
  state="$(grep -o 'State=[^ ]*' <<<"$shown" | head -n 1)"
  current="$(sed -n 's/^[[:space:]]*Reason=//p' <<<"$shown" | head -n 1)"
  current="${current% \[*@*\]}"
}

if [ "$rc" -eq 0 ]; then
  # Healthy again (a latched fault acknowledged, a GPU back): a drain that
  # gpudoctor set ends with it; anyone else's drain stays.
  node_state
  if [[ "$state" =~ DRAIN ]] && [[ "$current" == *"$tag"* ]]; then
    say "node $node is healthy again; resuming it (drained by gpudoctor: $current)"
    if [ "${DRY_RUN:-0}" = "1" ]; then
      echo "scontrol update nodename=$node state=resume"
    elif ! scontrol update nodename="$node" state=resume; then
      say "scontrol update nodename=$node state=resume failed"
    fi
  fi
  exit 0
fi
# gpudoctor keeps its reason to letters, digits and . , : _ / + = @ % [ ] -;
# a reason from anywhere else (an old binary, a crash) is replaced.
if [ -z "$reason" ] || [[ "$reason" =~ [^A-Za-z0-9\ .,:_/+=@%\[\]-] ]]; then
  reason="check failed with exit code $rc $tag"
fi

node_state
if [[ "$state" =~ DRAIN|DOWN|FAIL ]] && [ -n "$current" ] && [ "$current" != none ] &&
  [[ "$current" != *"$tag"* ]] && [[ "$current" != gpudoctor:* ]]; then
  say "node $node is ${state#State=} with a reason gpudoctor did not write (\"$current\"); leaving it alone; gpudoctor: $reason"
  exit "$rc"
fi
if [[ "$state" =~ DRAIN|DOWN|FAIL ]] && [ "$current" = "$reason" ]; then
  say "node $node already drained: $reason"
  exit "$rc"
fi

say "draining node $node: $reason"
if [ "${DRY_RUN:-0}" = "1" ]; then
  echo "scontrol update nodename=$node state=drain reason=\"$reason\""
elif ! scontrol update nodename="$node" state=drain reason="$reason"; then
  say "scontrol update nodename=$node state=drain failed"
fi
exit "$rc"
