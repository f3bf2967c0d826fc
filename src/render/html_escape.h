// Escaping outside text (GPU names, log lines, process names, file paths) for
// HTML and inline SVG.
#pragma once

#include <string>
#include <string_view>

namespace gpudoctor {

// Replaces & < > " ' with character references, so that the result is safe
// both as element text and inside a quoted attribute. Invalid UTF-8 and
// control characters other than tab and newline become U+FFFD
// (ToPrintableText, core/utf8.h). The result is valid UTF-8.
std::string HtmlEscape(std::string_view text);

}  // namespace gpudoctor
