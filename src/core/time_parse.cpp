#include "core/time_parse.h"

#include <cctype>
#include <charconv>
#include <ctime>
#include <string>
#include <utility>

namespace gpudoctor {
namespace {

// Reads exactly `digits` decimal digits at text[pos].
bool Digits(std::string_view text, std::size_t& pos, int digits, int& out) {
  if (pos + static_cast<std::size_t>(digits) > text.size()) return false;
  int value = 0;
  for (int i = 0; i < digits; ++i) {
    char c = text[pos + static_cast<std::size_t>(i)];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(digits);
  out = value;
  return true;
}

bool Expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

Error BadTime(std::string_view text, const std::string& why) {
  // Appended piece by piece: g++ 12 at -O3 raises a -Wrestrict false positive
  // on a chain of operator+ that starts with a one-character literal.
  std::string message;
  message.reserve(text.size() + why.size() + 96);
  message.append("'").append(text).append("': ").append(why).append(
      " (expected RFC 3339 such as 2026-11-29T02:13:05Z, or local time 2026-11-29 02:13[:05])");
  return Error{ErrorCode::kInvalid, std::move(message)};
}

}  // namespace

Result<WallTime> ParseTimePoint(std::string_view text) {
  std::tm tm{};
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(text, pos, 4, year) || !Expect(text, pos, '-') || !Digits(text, pos, 2, month) ||
      !Expect(text, pos, '-') || !Digits(text, pos, 2, day)) {
    return BadTime(text, "no date YYYY-MM-DD");
  }
  long long nanos = 0;
  bool has_zone = false;
  int offset_s = 0;
  if (pos < text.size()) {
    if (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ') {
      return BadTime(text, "unexpected text after the date");
    }
    ++pos;
    if (!Digits(text, pos, 2, hour) || !Expect(text, pos, ':') || !Digits(text, pos, 2, minute)) {
      return BadTime(text, "no time HH:MM");
    }
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      if (!Digits(text, pos, 2, second)) return BadTime(text, "bad seconds");
      if (pos < text.size() && text[pos] == '.') {
        ++pos;
        int digits = 0;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
          if (digits < 9) nanos = nanos * 10 + (text[pos] - '0');
          ++digits;
          ++pos;
        }
        if (digits == 0) return BadTime(text, "empty fraction of a second");
        for (int i = digits; i < 9; ++i) nanos *= 10;
      }
    }
    if (pos < text.size()) {
      char z = text[pos];
      if (z == 'Z' || z == 'z') {
        has_zone = true;
        ++pos;
      } else if (z == '+' || z == '-') {
        ++pos;
        int oh = 0, om = 0;
        if (!Digits(text, pos, 2, oh) || !Expect(text, pos, ':') || !Digits(text, pos, 2, om) ||
            oh > 23 || om > 59) {
          return BadTime(text, "bad zone offset");
        }
        has_zone = true;
        offset_s = (oh * 3600 + om * 60) * (z == '-' ? -1 : 1);
      }
    }
    if (pos != text.size()) return BadTime(text, "unexpected text after the time");
  }
  // system_clock's 64-bit nanoseconds end in 2262.
  if (year < 1970 || year > 2200) return BadTime(text, "the year is not in 1970-2200");
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return BadTime(text, "a field is out of range");
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  std::time_t t = 0;
  if (has_zone) {
    t = timegm(&tm) - offset_s;
  } else {
    tm.tm_isdst = -1;
    t = std::mktime(&tm);
  }
  if (tm.tm_mday != day) return BadTime(text, "no such day");
  return std::chrono::system_clock::from_time_t(t) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::nanoseconds(nanos));
}

}  // namespace gpudoctor
