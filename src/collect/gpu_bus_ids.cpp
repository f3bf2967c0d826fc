#include "collect/gpu_bus_ids.h"

#include <algorithm>
#include <set>

#include "parse/sysfs_pci.h"

namespace gpudoctor {
namespace {

void NoteBusIdFromPci(GpuStatus& g) {
  g.state_detail += std::string(g.state_detail.empty() ? "" : "; ") +
                    "bus id from the PCI bus (sysfs): NVML could not give it";
}

}  // namespace

std::size_t FillBusIdsFromPci(SystemStatus& status, const std::vector<PciDevice>& pci_gpus) {
  std::vector<GpuStatus*> missing;
  std::set<std::string> claimed;
  for (auto& g : status.gpus) {
    if (g.pci_bus_id.empty()) {
      missing.push_back(&g);
    } else {
      claimed.insert(NormalizePciBusId(g.pci_bus_id));
    }
  }
  if (missing.empty()) return 0;
  std::vector<std::string> on_bus;
  for (const auto& d : pci_gpus) {
    if (d.kind == PciFunctionKind::kGpu && !d.bus_id.empty()) on_bus.push_back(d.bus_id);
  }
  std::sort(on_bus.begin(), on_bus.end());
  std::vector<std::string> free;
  for (const auto& b : on_bus) {
    if (claimed.count(b) == 0) free.push_back(b);
  }
  std::sort(missing.begin(), missing.end(),
            [](const GpuStatus* a, const GpuStatus* b) { return a->index < b->index; });
  std::size_t filled = 0;
  if (free.size() == missing.size()) {
    for (std::size_t i = 0; i < missing.size(); ++i) missing[i]->pci_bus_id = free[i];
    filled = missing.size();
  } else if (on_bus.size() == status.gpus.size()) {
    // Every GPU of NVML is on the bus: NVML's index is the position.
    for (GpuStatus* g : missing) {
      if (g->index < on_bus.size() && claimed.count(on_bus[g->index]) == 0) {
        g->pci_bus_id = on_bus[g->index];
        claimed.insert(g->pci_bus_id);
        ++filled;
      }
    }
  }
  for (GpuStatus* g : missing) {
    if (!g->pci_bus_id.empty()) NoteBusIdFromPci(*g);
  }
  return filled;
}

void MissingBusIds::Fill(const CollectContext& ctx, SystemStatus& status) {
  bool unknown = false;
  for (auto& g : status.gpus) {
    if (!g.pci_bus_id.empty()) continue;
    if (auto it = found_.find(g.index); it != found_.end()) {
      g.pci_bus_id = it->second;
      NoteBusIdFromPci(g);
    } else {
      unknown = true;
    }
  }
  const auto now = std::chrono::steady_clock::now();
  if (!unknown || now < next_read_) return;
  next_read_ = now + reread_;
  if (FillBusIdsFromPci(status, ReadPciDevices(ctx).gpus) == 0) return;
  for (const auto& g : status.gpus) {
    if (!g.pci_bus_id.empty() && g.state != GpuState::kOk) found_[g.index] = g.pci_bus_id;
  }
}

}  // namespace gpudoctor
