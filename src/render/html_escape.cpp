#include "render/html_escape.h"

#include "core/utf8.h"

namespace gpudoctor {

std::string HtmlEscape(std::string_view text) {
  // Invalid UTF-8 and control characters (not allowed in HTML) become U+FFFD
  // the way every output for people makes them (core/utf8.h).
  const std::string printable = ToPrintableText(text);
  std::string out;
  out.reserve(printable.size() + printable.size() / 8);
  for (char c : printable) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace gpudoctor
