// Bus ids for GPUs NVML counts but cannot open. A GPU lost before this
// process started has no handle, so NVML cannot say where it sits; the PCI
// bus can: NVML numbers the GPUs in PCI bus order, so the GPUs on the bus
// (NVIDIA's vendor id, sysfs) that no answering GPU claims belong, in order,
// to the GPUs without a bus id. With that, a GPU is one row in every view
// whatever state it was in when first seen.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/pci_devices.h"
#include "core/gpu_status.h"

namespace gpudoctor {

// Fills the empty bus ids of `status` from `pci_gpus` (sysfs, any order) and
// returns how many it filled. Only when it is unambiguous: as many free bus
// ids on the bus as GPUs without one, or the bus holds exactly NVML's GPUs
// (then by position). Pure.
std::size_t FillBusIdsFromPci(SystemStatus& status, const std::vector<PciDevice>& pci_gpus);

// The same reading sysfs under ctx.root, for a sampling loop: only when some
// GPU lacks a bus id, remembering what it found per index, and reading the
// bus at most once per `reread` while one is still unknown.
class MissingBusIds {
 public:
  explicit MissingBusIds(std::chrono::milliseconds reread = std::chrono::seconds(60))
      : reread_(reread) {}
  void Fill(const CollectContext& ctx, SystemStatus& status);

 private:
  std::chrono::milliseconds reread_;
  std::map<unsigned, std::string> found_;  // by NVML index
  std::chrono::steady_clock::time_point next_read_{};
};

}  // namespace gpudoctor
