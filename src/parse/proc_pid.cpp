#include "parse/proc_pid.h"

#include "parse/proc_text.h"

namespace gpudoctor {

std::optional<std::uint32_t> ParseStatusUid(std::string_view status_text) {
  for (std::string_view line : SplitLines(status_text)) {
    if (line.substr(0, 4) != "Uid:") continue;
    auto words = SplitWords(line.substr(4));
    if (words.empty()) return std::nullopt;
    auto uid = ParseUnsigned(words[0]);
    if (!uid || *uid > 0xffffffffULL) return std::nullopt;
    return static_cast<std::uint32_t>(*uid);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> ParseStatusContextSwitches(std::string_view status_text) {
  std::optional<std::uint64_t> voluntary, involuntary;
  for (std::string_view line : SplitLines(status_text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    if (key != "voluntary_ctxt_switches" && key != "nonvoluntary_ctxt_switches") continue;
    auto value = ParseUnsigned(Trim(line.substr(colon + 1)));
    if (!value) return std::nullopt;
    (key.front() == 'v' ? voluntary : involuntary) = *value;
  }
  if (!voluntary || !involuntary) return std::nullopt;
  return *voluntary + *involuntary;
}

std::string CmdlineToString(std::string_view cmdline) {
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.remove_suffix(1);
  std::string out(cmdline);
  for (char& c : out) {
    if (c == '\0') c = ' ';
  }
  return out;
}

std::map<std::uint32_t, std::string> ParsePasswd(std::string_view text) {
  std::map<std::uint32_t, std::string> users;
  for (std::string_view line : SplitLines(text)) {
    if (line.empty() || line.front() == '#') continue;
    auto fields = Split(line, ':');
    if (fields.size() < 3 || fields[0].empty()) continue;
    auto uid = ParseUnsigned(fields[2]);
    if (!uid || *uid > 0xffffffffULL) continue;
    users.emplace(static_cast<std::uint32_t>(*uid), std::string(fields[0]));
  }
  return users;
}

}  // namespace gpudoctor
