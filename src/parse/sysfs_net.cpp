#include "parse/sysfs_net.h"

#include "parse/proc_text.h"

namespace gpudoctor {

std::optional<std::int64_t> ParseNetSpeedMbps(std::string_view text) {
  auto value = ParseSigned(text);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

std::optional<IbPortState> ParseIbPortState(std::string_view text) {
  text = Trim(text);
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto code = ParseSigned(text.substr(0, colon));
  auto name = Trim(text.substr(colon + 1));
  if (!code || name.empty()) return std::nullopt;
  return IbPortState{static_cast<int>(*code), std::string(name)};
}

std::optional<double> ParseIbRateGbps(std::string_view text) {
  auto words = SplitWords(text);
  if (words.size() < 2 || words[1].substr(0, 3) != "Gb/") return std::nullopt;
  auto value = ParseDouble(words[0]);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

}  // namespace gpudoctor
