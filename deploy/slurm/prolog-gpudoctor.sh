#!/bin/bash
# Slurm prolog (/etc/slurm/prolog.d/50-gpudoctor.sh): before a job starts,
# refuse a node whose GPUs are lost or critically unhealthy. Only GPU jobs are
# checked; gpudoctor answers from the agent's state in milliseconds when the
# agent runs (otherwise a 3-second diagnosis).
#
# A non-zero exit makes slurmd drain the node and requeue the job held (it
# waits in the queue, state PENDING with reason "launch failed requeued held",
# until someone runs `scontrol release JOBID`); the health-check script also
# sets the node's reason, unless an operator's reason is already there.
if [ -z "${SLURM_JOB_GPUS:-}${CUDA_VISIBLE_DEVICES:-}" ]; then
  exit 0
fi
exec /usr/local/libexec/gpudoctor-healthcheck.sh --condition GPUHealthy --condition GPUDropped
