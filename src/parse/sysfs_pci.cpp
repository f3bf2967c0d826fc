#include "parse/sysfs_pci.h"

#include <cctype>
#include <cmath>

#include "parse/proc_text.h"

namespace gpudoctor {

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

namespace gpudoctor {

namespace {

// "0000:03:00.0": four hex digits, ':', two, ':', two, '.', one.
bool IsSysfsBusId(std::string_view s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 4 || i == 7 || i == 10) continue;
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> PciUpstreamPorts(std::string_view device_link) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= device_link.size()) {
    std::size_t end = device_link.find('/', start);
    if (end == std::string_view::npos) end = device_link.size();
    std::string_view part = device_link.substr(start, end - start);
    if (!part.empty()) parts.emplace_back(part);
    start = end + 1;
  }
  std::vector<std::string> ports;
  if (parts.empty()) return ports;
  parts.pop_back();  // the device itself
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!IsSysfsBusId(*it)) continue;
    std::string bus = *it;
    for (char& c : bus) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ports.push_back(std::move(bus));
  }
  return ports;
}

}  // namespace gpudoctor
