#include "status/gpu_selector.h"

#include <algorithm>

#include "core/gpu_key.h"

namespace gpudoctor {

Result<std::vector<std::size_t>> SelectGpus(const SystemStatus& status,
                                            const std::vector<std::string>& selectors) {
  std::vector<std::size_t> picked;
  if (selectors.empty()) {
    for (std::size_t i = 0; i < status.gpus.size(); ++i) picked.push_back(i);
    return picked;
  }
  for (const auto& sel : selectors) {
    bool found = false;
    for (std::size_t i = 0; i < status.gpus.size(); ++i) {
      if (GpuSelectorNames(sel, status.gpus[i])) {
        found = true;
        if (std::find(picked.begin(), picked.end(), i) == picked.end()) picked.push_back(i);
      }
    }
    if (!found) {
      return Error{ErrorCode::kNotFound,
                   "--gpu " + sel + ": no such GPU (give an index, a UUID or a PCI bus id; " +
                       std::to_string(status.gpus.size()) + " GPU(s) present)"};
    }
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

Status FilterGpus(SystemStatus& status, const std::vector<std::string>& selectors) {
  auto picked = SelectGpus(status, selectors);
  if (!picked) return picked.error();
  std::vector<GpuStatus> kept;
  for (std::size_t i : *picked) kept.push_back(std::move(status.gpus[i]));
  status.gpus = std::move(kept);
  return OkStatus();
}

}  // namespace gpudoctor
