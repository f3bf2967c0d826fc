#include "core/gpu_key.h"

#include <algorithm>
#include <cctype>
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

bool GpuSelectorNames(std::string_view selector, unsigned index, std::string_view pci_bus_id,
                      std::string_view uuid) {
  if (selector.empty()) return false;
  if (std::all_of(selector.begin(), selector.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    unsigned n = 0;
    auto [end, ec] = std::from_chars(selector.data(), selector.data() + selector.size(), n);
    return ec == std::errc() && end == selector.data() + selector.size() && n == index;
  }
  auto same_ignoring_case = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) ==
                    std::tolower(static_cast<unsigned char>(y));
           });
  };
  if (!uuid.empty() && same_ignoring_case(selector, uuid)) return true;
  const std::string bus = NormalizePciBusId(std::string(selector));
  return !bus.empty() && bus == pci_bus_id;
}

bool GpuSelectorNames(std::string_view selector, const GpuStatus& gpu) {
  return GpuSelectorNames(selector, gpu.index, gpu.pci_bus_id, gpu.uuid);
}

}  // namespace gpudoctor
