// Chinese for what gpudoctor prints on standard error (errors, notes and
// progress lines) under --lang zh or LANG=zh_*. The messages are built in
// English across the modules (errors as values carry one English line); this
// catalog translates a finished line by its templates, as a message catalog
// does, leaving what the templates' placeholders hold (paths, option names,
// values, the driver's own words) as they were, each placeholder itself
// translated where a template matches it. A line no template matches stays
// English.
#pragma once

#include <string>
#include <string_view>

namespace gpudoctor {

// The line (without its newline) in Chinese: "gpudoctor: " and
// "gpudoctor COMMAND: " prefixes kept, the message after it translated.
std::string TranslateStderrLineZh(std::string_view line);

// The message alone (no "gpudoctor:" prefix) in Chinese, as far as the
// catalog covers it.
std::string TranslateMessageZh(std::string_view message);

// Whether the text holds a CJK character (tests: a line was translated).
bool HasCjk(std::string_view text);

}  // namespace gpudoctor
