#include "render/html_escape.h"

namespace gpudoctor {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
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
      default: {
        auto u = static_cast<unsigned char>(c);
        bool control = (u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f;
        if (control)
          out += "\xEF\xBF\xBD";
        else
          out += c;
      }
    }
  }
  return out;
}

}  // namespace gpudoctor
