#include "status/gpu_selector.h"

#include <algorithm>
#include <cctype>

namespace gpudoctor {
namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Matches(const GpuStatus& gpu, const std::string& selector) {
  if (!selector.empty() &&
      std::all_of(selector.begin(), selector.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return selector.size() < 6 && std::stoul(selector) == gpu.index;
  }
  if (!gpu.uuid.empty() && Lower(selector) == Lower(gpu.uuid)) return true;
  std::string pci = NormalizePciBusId(selector);
  return !pci.empty() && pci == gpu.pci_bus_id;
}

}  // namespace

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
      if (Matches(status.gpus[i], sel)) {
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

Result<bool> FilterGpus(SystemStatus& status, const std::vector<std::string>& selectors) {
  auto picked = SelectGpus(status, selectors);
  if (!picked) return picked.error();
  std::vector<GpuStatus> kept;
  for (std::size_t i : *picked) kept.push_back(std::move(status.gpus[i]));
  status.gpus = std::move(kept);
  return true;
}

}  // namespace gpudoctor
