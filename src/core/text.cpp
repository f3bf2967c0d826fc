#include "core/text.h"

#include <cstdlib>

namespace gpudoctor {

std::optional<Lang> ParseLang(std::string_view name) {
  if (name.starts_with("zh")) return Lang::kZh;
  if (name.starts_with("en") || name == "C" || name == "POSIX") return Lang::kEn;
  return std::nullopt;
}

namespace {
std::optional<Lang>& CommandLineLangSlot() {
  static std::optional<Lang> lang;
  return lang;
}
}  // namespace

void SetCommandLineLang(std::optional<Lang> lang) { CommandLineLangSlot() = lang; }

Lang LangFromEnvironment() {
  if (CommandLineLangSlot()) return *CommandLineLangSlot();
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(var);
    if (value == nullptr || *value == '\0') continue;
    return std::string_view(value).starts_with("zh") ? Lang::kZh : Lang::kEn;
  }
  return Lang::kEn;
}

}  // namespace gpudoctor
