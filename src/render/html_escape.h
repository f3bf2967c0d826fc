// Escaping outside text (GPU names, log lines, process names, file paths) for
// HTML and inline SVG.
#pragma once

#include <string>
#include <string_view>

namespace gpudoctor {

// Replaces & < > " ' with character references, so that the result is safe
// both as element text and inside a quoted attribute. Control characters
// other than tab, newline and carriage return (not allowed in HTML) become
// U+FFFD. Other bytes, UTF-8 included, pass through.
std::string HtmlEscape(std::string_view text);

}  // namespace gpudoctor
