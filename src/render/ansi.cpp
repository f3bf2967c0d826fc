#include "render/ansi.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "core/utf8.h"

namespace gpudoctor {

const std::string& ColourToken() {
  // Decimal digits: parameter bytes of a CSI sequence, so VisibleWidth and
  // the clipping of watch lines skip the token with the sequence.
  static const std::string token = [] {
    std::random_device random;
    std::string digits;
    for (int i = 0; i < 16; ++i) digits += static_cast<char>('0' + random() % 10);
    return digits;
  }();
  return token;
}

std::string Sgr(std::string_view parameters) {
  return "\x1b" + ColourToken() + "[" + std::string(parameters) + "m";
}

std::string ForTerminal(std::string_view text) { return ToPrintableText(text, ColourToken()); }

std::string Colorize(std::string_view text, Level level, bool color) {
  if (!color) return std::string(text);
  const char* code = nullptr;
  switch (level) {
    case Level::kNormal: code = "32"; break;
    case Level::kInfo: code = "36"; break;
    case Level::kWarning: code = "33"; break;
    case Level::kCritical: code = "1;31"; break;
    case Level::kNone: return std::string(text);
  }
  return Sgr(code) + std::string(text) + Sgr("0");
}

std::string Bold(std::string_view text, bool color) {
  if (!color) return std::string(text);
  return Sgr("1") + std::string(text) + Sgr("0");
}

bool ShouldUseColor(int fd) {
  if (const char* no = std::getenv("NO_COLOR"); no != nullptr && *no != '\0') {
    return false;
  }
  if (const char* term = std::getenv("TERM");
      term != nullptr && std::strcmp(term, "dumb") == 0) {
    return false;
  }
  return isatty(fd) == 1;
}

std::size_t VisibleWidth(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {  // skip CSI sequence
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~' && text[i] != '[')) ++i;
      continue;
    }
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    ++width;
  }
  return width;
}

}  // namespace gpudoctor
