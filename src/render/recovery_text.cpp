#include "render/recovery_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace gpudoctor {

std::string FindingRecoveryText(const Finding& f, Lang lang) {
  const RecoveryAction action = f.recommended.value_or(RecoveryAction::kNone);
  if (action == RecoveryAction::kNone) return {};
  std::string out = RecoveryActionPhrase(action).In(lang);
  if (f.recommended_by_driver) {
    out += lang == Lang::kZh ? "（驱动要求）" : " (the driver asks for it)";
  }
  return out;
}

std::string NodeRecoveryText(const Diagnosis& d, Lang lang) {
  if (d.recommended == RecoveryAction::kNone) return {};
  // The GPUs of the findings that need it, as the GPU list names them (by
  // bus id where there is no list: an analysed log).
  std::vector<std::string> names;
  for (const Finding& f : d.findings) {
    if (f.recommended != d.recommended) continue;
    for (const std::string& key : f.gpus) {
      auto v = std::find_if(d.gpus.begin(), d.gpus.end(),
                            [&](const GpuVerdict& g) { return g.key == key; });
      std::string name = v != d.gpus.end() ? fmt::format("GPU {}", v->index) : key;
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(std::move(name));
    }
  }
  std::string out = RecoveryActionPhrase(d.recommended).In(lang);
  if (names.empty()) return out;
  const std::string list = fmt::format("{}", fmt::join(names, ", "));
  return out + (lang == Lang::kZh ? fmt::format("（{}）", list) : fmt::format(" ({})", list));
}

}  // namespace gpudoctor
