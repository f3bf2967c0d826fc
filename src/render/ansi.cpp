#include "render/ansi.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace gpudoctor {

std::string Colorize(std::string_view text, Level level, bool color) {
  if (!color) return std::string(text);
  const char* code = nullptr;
  switch (level) {
    case Level::kNormal: code = "\x1b[32m"; break;
    case Level::kInfo: code = "\x1b[36m"; break;
    case Level::kWarning: code = "\x1b[33m"; break;
    case Level::kCritical: code = "\x1b[1;31m"; break;
    case Level::kNone: return std::string(text);
  }
  return std::string(code) + std::string(text) + "\x1b[0m";
}

std::string Bold(std::string_view text, bool color) {
  if (!color) return std::string(text);
  return "\x1b[1m" + std::string(text) + "\x1b[0m";
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
