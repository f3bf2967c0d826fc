#!/bin/bash
# Slurm HealthCheckProgram (or prolog) for GPU nodes: asks gpudoctor whether
# this node's GPUs are healthy and drains the node with gpudoctor's one-line
# reason when they are not.
#
#   gpudoctor-healthcheck.sh [extra `gpudoctor check` options...]
#
# Environment:
#   GPUDOCTOR  the gpudoctor binary (default: gpudoctor on PATH)
#   NODENAME   the Slurm node name (default: SLURMD_NODENAME, then hostname -s)
#   DRY_RUN=1  print the scontrol command instead of running it
#
# gpudoctor check --slurm answers from the running agent's state when it is
# fresh, otherwise after a 3-second diagnosis. Exit 0: healthy, nothing done.
# Otherwise (1 a problem, 2 the GPUs cannot be seen, anything else gpudoctor
# could not run) the node is drained: a GPU node whose GPUs cannot be judged
# should not take GPU jobs. This script exits with gpudoctor's code, so as a
# prolog it also fails the job's start on that node.
set -u

gpudoctor="${GPUDOCTOR:-gpudoctor}"
node="${NODENAME:-${SLURMD_NODENAME:-$(hostname -s)}}"

out="$("$gpudoctor" check --slurm "$@" 2>/dev/null)"
rc=$?
reason="${out%%$'\n'*}"
if [ "$rc" -eq 0 ]; then
  exit 0
fi
# gpudoctor keeps its reason to letters, digits and . , : _ / + = @ % - ; a
# reason from anywhere else (an old binary, a crash) is replaced.
if [ -z "$reason" ] || [[ "$reason" =~ [^A-Za-z0-9\ .,:_/+=@%-] ]]; then
  reason="gpudoctor: check failed with exit code $rc"
fi

if [ "${DRY_RUN:-0}" = "1" ]; then
  echo "scontrol update nodename=$node state=drain reason=\"$reason\""
else
  scontrol update nodename="$node" state=drain reason="$reason"
fi
exit "$rc"
