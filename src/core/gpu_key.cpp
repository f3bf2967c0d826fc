#include "core/gpu_key.h"

#include <charconv>

#include "core/gpu_status.h"

namespace gpudoctor {

namespace {
constexpr std::string_view kIndexPrefix = "index:";
}  // namespace

std::string GpuKeyOf(std::string_view pci_bus_id, unsigned index) {
  if (!pci_bus_id.empty()) return std::string(pci_bus_id);
  return std::string(kIndexPrefix) + std::to_string(index);
}

std::string GpuKeyOf(const GpuStatus& gpu) { return GpuKeyOf(gpu.pci_bus_id, gpu.index); }

bool IsIndexKey(std::string_view key) { return IndexOfKey(key).has_value(); }

std::optional<unsigned> IndexOfKey(std::string_view key) {
  if (!key.starts_with(kIndexPrefix)) return std::nullopt;
  const std::string_view digits = key.substr(kIndexPrefix.size());
  unsigned n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
  return n;
}

}  // namespace gpudoctor
