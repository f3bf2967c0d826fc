// Terminal colour for graded values. Plain text unless colour is asked for.
#pragma once

#include <string>
#include <string_view>

#include "core/thresholds.h"

namespace gpudoctor {

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
