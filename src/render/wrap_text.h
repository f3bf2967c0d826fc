// Wrapping of rendered text to a terminal's width: lines break between
// words; a continuation is indented under the text after a "- " or "3. "
// bullet, under a paragraph's own indentation, or two columns in for a line
// that starts at the margin, as man pages and `systemctl status` do. Runs of
// spaces that align columns are kept where a line does not break. A command
// line ("$ ...") is never broken: a copy of it must be the command. A word longer than the line (a command, a path)
// stays whole on a line of its own rather than being cut where a copy would
// break it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpudoctor {

std::string WrapToWidth(std::string_view text, std::size_t width);

}  // namespace gpudoctor
