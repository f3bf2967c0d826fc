// Month names in the locales whose syslog/journalctl/dmesg -T output we
// accept, and calendar arithmetic for the stamps.
#include <cctype>

#include "parse/kernel_line.h"

namespace gpudoctor {
namespace {

struct MonthName {
  std::string_view name;
  int month;
};

// Abbreviations as glibc's %b prints them, plus full names where a locale
// prints those. Matching is case-insensitive for ASCII letters; non-ASCII
// names are listed in the cases that occur.
constexpr MonthName kMonths[] = {
    // English
    {"jan", 1},
    {"feb", 2},
    {"mar", 3},
    {"apr", 4},
    {"may", 5},
    {"jun", 6},
    {"jul", 7},
    {"aug", 8},
    {"sep", 9},
    {"oct", 10},
    {"nov", 11},
    {"dec", 12},
    // German
    {"mär", 3},
    {"Mär", 3},
    {"mrz", 3},
    {"mai", 5},
    {"okt", 10},
    {"dez", 12},
    // French
    {"janv", 1},
    {"févr", 2},
    {"Févr", 2},
    {"fevr", 2},
    {"mars", 3},
    {"avr", 4},
    {"juin", 6},
    {"juil", 7},
    {"août", 8},
    {"Août", 8},
    {"sept", 9},
    {"déc", 12},
    {"Déc", 12},
    // Spanish
    {"ene", 1},
    {"abr", 4},
    {"ago", 8},
    {"dic", 12},
    // Italian
    {"gen", 1},
    {"mag", 5},
    {"giu", 6},
    {"lug", 7},
    {"set", 9},
    {"ott", 10},
    // Portuguese
    {"fev", 2},
    {"out", 10},
    {"avril", 4},
    // Polish
    {"sty", 1},
    {"lut", 2},
    {"kwi", 4},
    {"maj", 5},
    {"cze", 6},
    {"lip", 7},
    {"sie", 8},
    {"wrz", 9},
    {"paź", 10},
    {"Paź", 10},
    {"lis", 11},
    {"gru", 12},
    // Dutch
    {"mrt", 3},
    {"mei", 5},
    // Russian (genitive forms as %b prints them, and nominative)
    {"янв", 1},
    {"Янв", 1},
    {"фев", 2},
    {"Фев", 2},
    {"мар", 3},
    {"Мар", 3},
    {"апр", 4},
    {"Апр", 4},
    {"мая", 5},
    {"Мая", 5},
    {"май", 5},
    {"Май", 5},
    {"июн", 6},
    {"Июн", 6},
    {"июл", 7},
    {"Июл", 7},
    {"авг", 8},
    {"Авг", 8},
    {"сен", 9},
    {"Сен", 9},
    {"окт", 10},
    {"Окт", 10},
    {"ноя", 11},
    {"Ноя", 11},
    {"дек", 12},
    {"Дек", 12},
    // Chinese numerals
    {"十一月", 11},
    {"十二月", 12},
    {"一月", 1},
    {"二月", 2},
    {"三月", 3},
    {"四月", 4},
    {"五月", 5},
    {"六月", 6},
    {"七月", 7},
    {"八月", 8},
    {"九月", 9},
    {"十月", 10},
    // English full names (journalctl in some locales prints them)
    {"january", 1},
    {"february", 2},
    {"march", 3},
    {"april", 4},
    {"june", 6},
    {"july", 7},
    {"august", 8},
    {"september", 9},
    {"october", 10},
    {"november", 11},
    {"december", 12},
};

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    unsigned char a = static_cast<unsigned char>(s[i]);
    unsigned char b = static_cast<unsigned char>(prefix[i]);
    if (a < 0x80 && b < 0x80) {
      if (std::tolower(a) != std::tolower(b)) return false;
    } else if (a != b) {
      return false;
    }
  }
  return true;
}

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "1月", "12月" (Chinese, Japanese) and "1월" (Korean).
std::optional<int> NumericMonth(std::string_view s, std::size_t* consumed) {
  std::size_t i = 0;
  int v = 0;
  while (i < s.size() && i < 2 && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
  if (i == 0 || v < 1 || v > 12) return std::nullopt;
  for (std::string_view suffix : {std::string_view("月"), std::string_view("월")}) {
    if (s.substr(i, suffix.size()) == suffix) {
      *consumed = i + suffix.size();
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> ParseMonthName(std::string_view s, std::size_t* consumed) {
  std::size_t used = 0;
  if (auto m = NumericMonth(s, &used)) {
    *consumed = used;
    return m;
  }
  // The common case first (syslog, journal): an English abbreviation as
  // written, not running into further letters.
  static constexpr std::string_view kEnglish[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (s.size() > 3 && !IsAsciiLetter(s[3])) {
    for (int i = 0; i < 12; ++i) {
      if (s.substr(0, 3) != kEnglish[i]) continue;
      *consumed = s[3] == '.' ? 4 : 3;
      return i + 1;
    }
  }
  const MonthName* best = nullptr;
  for (const auto& m : kMonths) {
    if (!StartsWithNoCase(s, m.name)) continue;
    // An ASCII name must not run into further letters ("mar" in "markus").
    if (m.name.size() < s.size() && IsAsciiLetter(s[m.name.size()])) continue;
    if (!best || m.name.size() > best->name.size()) best = &m;
  }
  if (!best) return std::nullopt;
  used = best->name.size();
  if (used < s.size() && s[used] == '.') ++used;
  *consumed = used;
  return best->month;
}

std::optional<WallTime> MakeWallTime(int year, int month, int day, int hour, int minute, int second,
                                     double fraction, std::chrono::seconds utc_offset) {
  using namespace std::chrono;
  // No log holds stamps from before 1970, and system_clock's 64-bit
  // nanoseconds end in 2262: years outside [1970, 2200] are not times.
  if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 ||
      hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return std::nullopt;
  }
  year_month_day ymd{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                     std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) return std::nullopt;
  auto t = sys_days{ymd} + hours{hour} + minutes{minute} + seconds{second} - utc_offset;
  auto frac = duration_cast<system_clock::duration>(duration<double>(fraction));
  return time_point_cast<system_clock::duration>(t) + frac;
}

}  // namespace gpudoctor
