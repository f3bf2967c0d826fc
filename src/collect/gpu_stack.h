// Reads the GPU's software stack on the host (facts/gpu_stack.h) below the
// context root: /proc/cpuinfo and /proc/modules, /sys/class/infiniband, each
// GPU's IOMMU group type, the ACS capability of the bridges above the GPUs
// (their configuration space, whole only for root), and the container
// runtime's files (/etc/docker/daemon.json, /etc/containerd, CDI specs in
// /etc/cdi and /var/run/cdi). Never fails; what could not be read is in
// `sources` or left unset.
#pragma once

#include "collect/collect_context.h"
#include "facts/gpu_stack.h"
#include "facts/pci.h"

namespace gpudoctor {

GpuStackFacts ReadGpuStack(const CollectContext& ctx, const PciFacts& pci);

}  // namespace gpudoctor
