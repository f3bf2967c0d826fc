#include "analyze/smi_messages_input.h"

#include <algorithm>

namespace gpudoctor {
namespace {

GpuStatus* SameGpu(SystemStatus& status, const NvsmiMessage& m) {
  for (GpuStatus& g : status.gpus) {
    if (!m.pci_bus_id.empty() ? g.pci_bus_id == m.pci_bus_id
                              : (m.gpu_index && g.pci_bus_id.empty() && g.index == *m.gpu_index)) {
      return &g;
    }
  }
  return nullptr;
}

unsigned NextFreeIndex(const SystemStatus& status) {
  unsigned next = 0;
  for (const GpuStatus& g : status.gpus) next = std::max(next, g.index + 1);
  return next;
}

void MarkLost(const NvsmiMessage& m, GpuStatus& g) {
  g.state = GpuState::kLost;
  g.state_detail = m.text;
}

}  // namespace

void AddLostGpusFromMessages(const std::vector<NvsmiMessage>& messages, SystemStatus& status) {
  for (const NvsmiMessage& m : messages) {
    if (m.kind != NvsmiMessageKind::kNoDeviceHandle) continue;
    if (m.pci_bus_id.empty() && !m.gpu_index) continue;  // nothing to name it by
    if (GpuStatus* known = SameGpu(status, m)) {
      MarkLost(m, *known);
      continue;
    }
    GpuStatus g;
    g.pci_bus_id = m.pci_bus_id;
    g.index = m.gpu_index.value_or(NextFreeIndex(status));
    MarkLost(m, g);
    status.gpus.push_back(std::move(g));
  }
  std::stable_sort(status.gpus.begin(), status.gpus.end(),
                   [](const GpuStatus& a, const GpuStatus& b) { return a.index < b.index; });
}

std::optional<SystemStatus> ReadingFromMessages(const std::vector<NvsmiMessage>& messages) {
  if (messages.empty()) return std::nullopt;
  SystemStatus status;
  for (const NvsmiMessage& m : messages) {
    if (m.kind == NvsmiMessageKind::kNoDeviceHandle) continue;
    status.nvml_loaded = false;
    status.nvml_error = m.text;
    return status;
  }
  status.nvml_loaded = true;
  AddLostGpusFromMessages(messages, status);
  if (status.gpus.empty()) return std::nullopt;
  return status;
}

}  // namespace gpudoctor
