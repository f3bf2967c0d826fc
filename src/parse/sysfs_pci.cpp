#include "parse/sysfs_pci.h"

#include <cmath>

#include "parse/proc_text.h"

namespace gpudoctor {

const char* PciFunctionKindName(PciFunctionKind kind) {
  switch (kind) {
    case PciFunctionKind::kGpu:
      return "gpu";
    case PciFunctionKind::kNvSwitch:
      return "nvswitch";
    case PciFunctionKind::kAudio:
      return "audio";
    case PciFunctionKind::kOther:
      return "other";
  }
  return "other";
}

PciFunctionKind PciKindFromClass(std::uint32_t class_code) {
  const std::uint32_t base_sub = (class_code >> 8) & 0xffff;
  if (base_sub == 0x0300 || base_sub == 0x0302) return PciFunctionKind::kGpu;
  if (base_sub == 0x0680) return PciFunctionKind::kNvSwitch;
  if (base_sub == 0x0403) return PciFunctionKind::kAudio;
  return PciFunctionKind::kOther;
}

std::optional<double> ParseLinkSpeedGtPerS(std::string_view text) {
  auto words = SplitWords(text);
  if (words.size() < 2 || words[1] != "GT/s") return std::nullopt;
  auto value = ParseDouble(words[0]);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

std::optional<int> PcieGenFromGtPerS(double gt_per_s) {
  constexpr double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < static_cast<int>(std::size(kRates)); ++i) {
    if (std::fabs(gt_per_s - kRates[i]) < 0.01) return i + 1;
  }
  return std::nullopt;
}

std::optional<int> ParseLinkWidth(std::string_view text) {
  auto value = ParseUnsigned(text);
  if (!value || *value == 0 || *value > 32) return std::nullopt;
  return static_cast<int>(*value);
}

Result<AerCounters> ParseAerCounters(std::string_view text) {
  AerCounters out;
  std::optional<std::uint64_t> total;
  std::uint64_t sum = 0;
  for (std::string_view line : SplitLines(text)) {
    auto words = SplitWords(line);
    if (words.empty()) continue;
    if (words.size() != 2)
      return Error{ErrorCode::kCorrupt, "aer: bad line '" + std::string(line) + "'"};
    auto value = ParseUnsigned(words[1]);
    if (!value) return Error{ErrorCode::kCorrupt, "aer: bad count '" + std::string(line) + "'"};
    if (words[0].substr(0, 6) == "TOTAL_") {
      total = *value;
    } else {
      out.counters[std::string(words[0])] = *value;
      sum += *value;
    }
  }
  out.total = total.value_or(sum);
  return out;
}

}  // namespace gpudoctor
