#include "analyze/dump_time.h"

#include <charconv>
#include <vector>

#include "parse/kernel_line.h"

namespace gpudoctor {
namespace {

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (true) {
    pos = s.find_first_not_of(" \t\r\n", pos);
    if (pos == std::string_view::npos) return words;
    std::size_t end = s.find_first_of(" \t\r\n", pos);
    if (end == std::string_view::npos) end = s.size();
    words.push_back(s.substr(pos, end - pos));
    pos = end;
  }
}

std::optional<int> Number(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<WallTime> ParseCtimeStamp(std::string_view text) {
  std::vector<std::string_view> w = Words(text);
  if (w.size() == 5) w.erase(w.begin());  // the weekday says nothing new
  if (w.size() != 4 || w[2].size() != 8 || w[2][2] != ':' || w[2][5] != ':') return std::nullopt;
  std::size_t used = 0;
  std::optional<int> month = ParseMonthName(w[0], &used);
  if (!month || used != w[0].size()) return std::nullopt;
  auto day = Number(w[1]), year = Number(w[3]);
  auto hour = Number(w[2].substr(0, 2)), minute = Number(w[2].substr(3, 2)),
       second = Number(w[2].substr(6, 2));
  if (!day || !year || !hour || !minute || !second) return std::nullopt;
  return MakeWallTime(*year, *month, *day, *hour, *minute, *second, 0, std::chrono::seconds(0));
}

std::optional<WallTime> XmlDumpTime(std::string_view xml) {
  constexpr std::string_view kOpen = "<timestamp>";
  std::size_t start = xml.find(kOpen);
  if (start == std::string_view::npos) return std::nullopt;
  start += kOpen.size();
  std::size_t end = xml.find('<', start);
  if (end == std::string_view::npos) return std::nullopt;
  return ParseCtimeStamp(xml.substr(start, end - start));
}

std::optional<WallTime> TextDumpTime(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    std::size_t first = line.find_first_not_of(' ');
    if (first == std::string_view::npos || line.substr(first).rfind("Timestamp", 0) != 0) continue;
    std::size_t colon = line.find(':');
    // Only a "Timestamp<padding>: value" label; the value itself has colons.
    if (colon == std::string_view::npos ||
        line.substr(first + 9, colon - first - 9).find_first_not_of(' ') != std::string_view::npos)
      continue;
    return ParseCtimeStamp(line.substr(colon + 1));
  }
  return std::nullopt;
}

std::optional<WallTime> TableDumpTime(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    if (line[first] == '+' || line[first] == '|') return std::nullopt;
    if (auto t = ParseCtimeStamp(line)) return t;
  }
  return std::nullopt;
}

int YearInText(std::string_view text) {
  for (std::string_view word : Words(text)) {
    auto year = Number(word);
    if (word.size() == 4 && year && *year >= 1990 && *year < 2200) return *year;
  }
  return 0;
}

}  // namespace gpudoctor
