// One user-facing text in English and Chinese (Text), the output language
// (Lang), and how the language is chosen: the command line's --lang, else
// the locale environment.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

enum class Lang { kEn, kZh };

// "en" / "zh" (also "zh_CN", "zh-TW", ...); nullopt otherwise.
std::optional<Lang> ParseLang(std::string_view name);
// The command line's --lang when SetCommandLineLang gave one, else from LC_ALL,
// then LC_MESSAGES, then LANG: Chinese when the first one set starts with "zh",
// else English.
Lang LangFromEnvironment();
// The language the command line asked for (main sets it once, before any
// command runs); every default that reads the environment follows it.
void SetCommandLineLang(std::optional<Lang> lang);

// One user-facing text in both languages. Rules fill both; `zh` must not be
// left in English (a test walks every rule).
struct Text {
  std::string en;
  std::string zh;
  const std::string& In(Lang lang) const { return lang == Lang::kZh ? zh : en; }
};

}  // namespace gpudoctor
