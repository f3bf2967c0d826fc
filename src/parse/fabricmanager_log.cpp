#include "parse/fabricmanager_log.h"
#include "parse/proc_text.h"

#include <charconv>

namespace gpudoctor {
namespace {

// Reads "[...]" at the start of `s`; advances `s` past it and following spaces.
std::optional<std::string_view> Bracket(std::string_view& s) {
  if (s.empty() || s.front() != '[') return std::nullopt;
  const auto close = s.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view inner = s.substr(1, close - 1);
  s.remove_prefix(close + 1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return inner;
}

bool IsLevel(std::string_view s) {
  if (s.empty() || s.size() > 10) return false;
  for (const char c : s) {
    if (c < 'A' || c > 'Z') return false;
  }
  return true;
}

bool IsErrorLevel(std::string_view level) {
  return level == "ERROR" || level == "CRITICAL" || level == "FATAL";
}

constexpr std::size_t kMaxMessage = 2000;

}  // namespace

std::optional<FmLogLine> ParseFmLogLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto time = Bracket(line);
  if (!time || time->size() < 10) return std::nullopt;
  auto level = Bracket(line);
  if (!level || !IsLevel(*level)) return std::nullopt;
  FmLogLine out;
  out.time_text = std::string(*time);
  out.level = std::string(*level);
  std::string_view rest = line;
  if (rest.substr(0, 5) == "[tid ") {
    // An unclosed "[tid ..." stays in the message.
    if (auto tid = Bracket(rest)) {
      std::uint64_t value = 0;
      const std::string_view digits = tid->substr(4);
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec == std::errc() && ptr == digits.data() + digits.size()) out.tid = value;
    }
  }
  out.message = std::string(Trim(rest));
  return out;
}

std::optional<FmVersionMismatch> ParseFmVersionMismatch(std::string_view line) {
  constexpr std::string_view kFm = "driver interface version ";
  constexpr std::string_view kDriver = "match with driver version ";
  const auto a = line.find(kFm);
  if (a == std::string_view::npos) return std::nullopt;
  const auto b = line.find(kDriver, a);
  if (b == std::string_view::npos) return std::nullopt;
  auto token = [](std::string_view s) {
    // Versions contain dots, so stop at the first character that is neither
    // a digit nor a dot followed by a digit.
    std::size_t n = 0;
    while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || (s[n] == '.' && n + 1 < s.size() &&
                                                             s[n + 1] >= '0' && s[n + 1] <= '9'))) {
      ++n;
    }
    return std::string(s.substr(0, n));
  };
  FmVersionMismatch m{token(line.substr(a + kFm.size())), token(line.substr(b + kDriver.size()))};
  if (m.fm_version.empty() || m.driver_version.empty()) return std::nullopt;
  return m;
}

std::optional<std::string> ParseFmVersionOutput(std::string_view text) {
  constexpr std::string_view kPrefix = "Fabric Manager version is";
  const auto pos = text.find(kPrefix);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(pos + kPrefix.size());
  const auto b = rest.find_first_not_of(" \t:");
  if (b == std::string_view::npos) return std::nullopt;
  rest = rest.substr(b);
  rest = rest.substr(0, rest.find_first_of(" \t\r\n"));
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

std::string FmLogPathFromConfig(std::string_view cfg_text) {
  std::string path;
  std::size_t pos = 0;
  while (pos < cfg_text.size()) {
    auto end = cfg_text.find('\n', pos);
    if (end == std::string_view::npos) end = cfg_text.size();
    const std::string_view line = Trim(cfg_text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos || Trim(line.substr(0, eq)) != "LOG_FILE_NAME") continue;
    path = std::string(Trim(line.substr(eq + 1)));
  }
  return path.empty() ? "/var/log/fabricmanager.log" : path;
}

void FmLogScanner::Feed(std::string_view line) {
  ++summary_.lines;
  auto entry = ParseFmLogLine(line);
  if (!entry) {
    // Continuation of the previous entry (multi-line payloads).
    const std::string_view text = Trim(line);
    if (last_was_kept_error_ && !text.empty()) {
      std::string& msg = summary_.last_errors.back().entry.message;
      if (msg.size() < kMaxMessage) msg.append(" ").append(text.substr(0, kMaxMessage));
    }
    return;
  }
  ++summary_.entries;
  if (summary_.first_time_text.empty()) summary_.first_time_text = entry->time_text;
  summary_.last_time_text = entry->time_text;
  if (auto mismatch = ParseFmVersionMismatch(entry->message)) summary_.version_mismatch = mismatch;
  last_was_kept_error_ = false;
  if (entry->level == "WARNING" || entry->level == "WARN") ++summary_.warning_count;
  if (!IsErrorLevel(entry->level)) return;
  ++summary_.error_count;
  if (max_errors_ == 0) return;
  if (summary_.last_errors.size() == max_errors_) {
    summary_.last_errors.erase(summary_.last_errors.begin());
  }
  if (entry->message.size() > kMaxMessage) entry->message.resize(kMaxMessage);
  summary_.last_errors.push_back(FmLogError{summary_.lines, std::move(*entry)});
  last_was_kept_error_ = true;
}

FmLogSummary ScanFabricManagerLog(std::string_view text, std::size_t max_errors) {
  FmLogScanner scanner(max_errors);
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    scanner.Feed(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return scanner.summary();
}

}  // namespace gpudoctor
