// Outside bytes that every output must survive (issue: any bytes, every
// output): names and log lines that are not UTF-8 or hold control
// characters and terminal escapes. And a UTF-8 check of the tests' own,
// written from RFC 3629's grammar rather than from src/core/utf8.h, so a
// bug there cannot hide itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::test {

struct HostileName {
  const char* what;
  std::string bytes;
};

// Every case; each also carries a plain marker ("hN") so a test can find
// where it landed. None holds a NUL (NVML names are C strings); see
// kNulLine for one.
inline const std::vector<HostileName>& HostileNames() {
  static const std::vector<HostileName> names = {
      {"lone continuation bytes", std::string("h0-\x80\xbf-end")},
      {"truncated 3-byte sequence", std::string("h1-\xe4\xb8-end")},
      {"truncated 4-byte sequence at the end", std::string("h2-\xf0\x9f\x98")},
      {"overlong encodings", std::string("h3-\xc0\xaf\xe0\x80\xaf-end")},
      {"surrogate and bytes above U+10FFFF", std::string("h4-\xed\xa0\x80\xf5\xff-end")},
      {"GBK name (训练 ni hao)", std::string("h5-\xd1\xb5\xc1\xb7-\xc4\xe3\xba\xc3")},
      {"Latin-1 name", std::string("h6-caf\xe9-na\xefve")},
      {"C0 controls, DEL", std::string("h7-\x07\x08\r\t\x7f-end")},
      {"ANSI escapes (clear screen, title, colour)",
       std::string("h8-\x1b[2J\x1b]0;owned\x07\x1b[31mred-end")},
      {"C1 CSI and NEL", std::string("h9-\xc2\x9b" "2J\xc2\x85-end")},
  };
  return names;
}

// A kernel log line cut by a crash: NUL bytes in the middle.
inline const std::string kNulLine = std::string("nul-\0\0-after", 13);

inline std::string HexOf(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// RFC 3629 section 4 (UTF8-octets), byte by byte: where the first byte that
// breaks it is, npos when s is valid UTF-8.
inline std::size_t FirstNonUtf8(std::string_view s) {
  auto in = [](unsigned char c, int lo, int hi) { return c >= lo && c <= hi; };
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    auto at = [&](std::size_t k) -> int {
      return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : -1;
    };
    auto tail = [&](std::size_t k) { return at(k) >= 0x80 && at(k) <= 0xBF; };
    if (c <= 0x7F) {
      i += 1;
    } else if (in(c, 0xC2, 0xDF) && tail(1)) {
      i += 2;
    } else if (c == 0xE0 && at(1) >= 0xA0 && at(1) <= 0xBF && tail(2)) {
      i += 3;
    } else if ((in(c, 0xE1, 0xEC) || in(c, 0xEE, 0xEF)) && tail(1) && tail(2)) {
      i += 3;
    } else if (c == 0xED && at(1) >= 0x80 && at(1) <= 0x9F && tail(2)) {
      i += 3;
    } else if (c == 0xF0 && at(1) >= 0x90 && at(1) <= 0xBF && tail(2) && tail(3)) {
      i += 4;
    } else if (in(c, 0xF1, 0xF3) && tail(1) && tail(2) && tail(3)) {
      i += 4;
    } else if (c == 0xF4 && at(1) >= 0x80 && at(1) <= 0x8F && tail(2) && tail(3)) {
      i += 4;
    } else {
      return i;
    }
  }
  return std::string_view::npos;
}

inline bool IsUtf8ForTest(std::string_view s) { return FirstNonUtf8(s) == std::string_view::npos; }

// For failure messages: where the first invalid byte is, with what precedes it.
inline std::string FirstBadByte(std::string_view s) {
  const std::size_t n = FirstNonUtf8(s);
  if (n == std::string_view::npos) return "valid UTF-8";
  return "not UTF-8 at byte " + std::to_string(n) + ", after: " +
         std::string(s.substr(n > 60 ? n - 60 : 0, n > 60 ? 60 : n));
}

// A control character a terminal acts on, other than tab and newline: C0,
// DEL, and C1 as UTF-8 (C2 80 - C2 9F). Text is assumed valid UTF-8.
inline bool HasTerminalControl(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < s.size()) {
      const auto d = static_cast<unsigned char>(s[i + 1]);
      if (d >= 0x80 && d <= 0x9F) return true;
    }
  }
  return false;
}

}  // namespace gpudoctor::test
