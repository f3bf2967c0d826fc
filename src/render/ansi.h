// Terminal colour for graded values. Plain text unless colour is asked for.
#pragma once

#include <string>
#include <string_view>

#include "core/thresholds.h"

namespace gpudoctor {

// gpudoctor's own colour codes carry a token that is random per process:
// ESC, the token, then "[<parameters>m". ForTerminal (the filter every
// output for people passes, core/utf8.h's ToPrintableText) turns them into
// plain SGR sequences and every other control character, an ESC from a
// process or GPU name included, into U+FFFD. Text with colour codes must
// reach the terminal through ForTerminal.
const std::string& ColourToken();
std::string Sgr(std::string_view parameters);
std::string ForTerminal(std::string_view text);

// Wraps text in the colour for level (info cyan, warning yellow, critical
// red, normal green); returns text unchanged when color is false or the level
// is kNone.
std::string Colorize(std::string_view text, Level level, bool color);
std::string Bold(std::string_view text, bool color);
// Decides colour for a stream: a TTY, NO_COLOR unset, TERM not "dumb".
bool ShouldUseColor(int fd);
// Visible width of text that may hold ANSI escapes and UTF-8.
std::size_t VisibleWidth(std::string_view text);

}  // namespace gpudoctor
