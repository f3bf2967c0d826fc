#include "core/utf8.h"

#include <utility>

namespace gpudoctor {
namespace {
namespace utf8_text {

constexpr char32_t kReplacement = 0xFFFD;

bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// DecodeUtf8 gave U+FFFD for a sequence that is not the character itself.
bool IsInvalid(std::string_view text, std::size_t pos, std::size_t len, char32_t cp) {
  return cp == kReplacement && text.substr(pos, len) != kReplacementCharacter;
}

// The range the second byte of a sequence must fall in, for its lead byte
// (Unicode Table 3-7): it rules out overlong forms, surrogates and code points
// above U+10FFFF.
void SecondByteRange(unsigned char lead, unsigned char& low, unsigned char& high) {
  low = 0x80;
  high = 0xBF;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
}


bool IsCutShort(std::string_view data, std::size_t k) {
  char32_t cp = 0;
  const std::size_t len = DecodeUtf8(data, k, cp);
  return k + len == data.size() && IsInvalid(data, k, len, cp);
}

// Where the undecided tail of a stream piece starts: a sequence cut short at
// its end, or an ESC followed by the start of the colour token.
std::size_t UndecidedTail(std::string_view data, std::string_view token) {
  const std::size_t n = data.size();
  std::size_t cut = n;
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const std::size_t k = n - back;
    const auto lead = static_cast<unsigned char>(data[k]);
    if (IsContinuation(lead)) continue;
    if (lead >= 0xC2 && lead <= 0xF4 && IsCutShort(data, k)) {
      cut = k;
    }
    break;
  }
  if (!token.empty()) {
    const std::size_t from = n > token.size() ? n - token.size() : 0;
    for (std::size_t k = from; k < n; ++k) {
      if (data[k] != '\x1b') continue;
      std::string_view rest = data.substr(k + 1);
      if (token.substr(0, rest.size()) == rest && k < cut) cut = k;
      break;
    }
  }
  return cut;
}

}  // namespace utf8_text
}  // namespace

using namespace utf8_text;

std::size_t DecodeUtf8(std::string_view text, std::size_t pos, char32_t& code_point) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  std::size_t need = 0;
  char32_t cp = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    cp = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    cp = lead & 0x07;
  } else {
    code_point = kReplacement;  // a continuation byte alone, C0, C1 or F5-FF
    return 1;
  }
  unsigned char low = 0;
  unsigned char high = 0;
  SecondByteRange(lead, low, high);
  for (std::size_t i = 1; i <= need; ++i) {
    if (pos + i >= text.size()) {
      code_point = kReplacement;  // cut short by the end of the text
      return i;
    }
    const auto b = static_cast<unsigned char>(text[pos + i]);
    const bool ok = i == 1 ? (b >= low && b <= high) : IsContinuation(b);
    if (!ok) {
      code_point = kReplacement;
      return i;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  code_point = cp;
  return need + 1;
}

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = DecodeUtf8(text, i, cp);
    if (IsInvalid(text, i, len, cp)) return false;
    i += len;
  }
  return true;
}

std::string ToValidUtf8(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = DecodeUtf8(text, i, cp);
    if (IsInvalid(text, i, len, cp)) {
      out += kReplacementCharacter;
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

void AppendUtf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool IsControlForPeople(char32_t cp) {
  if (cp == '\t' || cp == '\n') return false;
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

std::string ToPrintableText(std::string_view text, std::string_view colour_token) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7F) {  // printable ASCII, the common case
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    if (b == 0x1b && !colour_token.empty() && text.substr(i + 1, colour_token.size()) == colour_token) {
      out += '\x1b';
      i += 1 + colour_token.size();
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = DecodeUtf8(text, i, cp);
    if (IsControlForPeople(cp)) {
      out += kReplacementCharacter;
    } else {
      AppendUtf8(cp, out);
    }
    i += len;
  }
  return out;
}

PrintableTextFilter::PrintableTextFilter(std::string colour_token) : token_(std::move(colour_token)) {}

std::string PrintableTextFilter::Feed(std::string_view piece) {
  pending_.append(piece);
  const std::size_t cut = UndecidedTail(pending_, token_);
  std::string out = ToPrintableText(std::string_view(pending_).substr(0, cut), token_);
  pending_.erase(0, cut);
  return out;
}

std::string PrintableTextFilter::Finish() {
  std::string out = ToPrintableText(pending_, token_);
  pending_.clear();
  return out;
}

}  // namespace gpudoctor
