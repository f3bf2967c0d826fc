// Log records in JSON lines and logfmt (log_record.h).
#include "parse/kernel_line.h"
#include "parse/log_record.h"
#include "parse/log_record_json.h"
#include "parse/text_cursor.h"

namespace gpudoctor {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kTextKeys[] = {"MESSAGE", "message", "msg", "log", "line",
                                          "textPayload"};
constexpr std::string_view kTimeKeys[] = {
    "__REALTIME_TIMESTAMP", "_SOURCE_REALTIME_TIMESTAMP", "@timestamp", "timestamp", "time", "ts",
    "date", "datetime", "_time", "eventTime"};

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || TextCursor::IsDigit(c) || c == '_' ||
         c == '.' || c == '-' || c == '@';
}

// journald's µs fields are strings of digits: µs since the epoch.
bool JournalMicros(std::string_view key) {
  return key == "__REALTIME_TIMESTAMP" || key == "_SOURCE_REALTIME_TIMESTAMP";
}

// Integral epoch values exactly (a double loses the milliseconds of a
// nanosecond count).
std::optional<WallTime> EpochIntegerToWallTime(std::uint64_t v) {
  using namespace std::chrono;
  std::optional<WallTime> t;
  if (v > 100'000'000'000'000'000ull) {
    t = WallTime{} + duration_cast<system_clock::duration>(nanoseconds(v));
  } else if (v > 100'000'000'000'000ull) {
    t = WallTime{} + microseconds(v);
  } else if (v > 100'000'000'000ull) {
    t = WallTime{} + milliseconds(v);
  } else {
    t = WallTime{} + seconds(v);
  }
  auto s = duration_cast<seconds>(t->time_since_epoch()).count();
  if (s < 100'000'000 || s > 7'000'000'000) return std::nullopt;
  return t;
}

std::optional<WallTime> TimeOfJson(std::string_view key, const Json& v) {
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() > 0)) {
    auto n = v.get<std::uint64_t>();
    return EpochIntegerToWallTime(JournalMicros(key) ? n * 1000 : n);
  }
  if (v.is_number()) {
    double d = v.get<double>();
    return JournalMicros(key) ? EpochToWallTime(d * 1e3) : EpochToWallTime(d);
  }
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  if (JournalMicros(key)) {
    TextCursor c(s);
    std::uint64_t us = 0;
    if (!c.Uint64(us) || !c.done()) return std::nullopt;
    return WallTime{} + std::chrono::microseconds(us);
  }
  return ParseRecordTime(s);
}

// MESSAGE as journald writes non-UTF-8 text: [78, 86, 82, 77, ...].
std::optional<std::string> BytesOf(const Json& v) {
  if (!v.is_array()) return std::nullopt;
  std::string out;
  for (const Json& b : v) {
    if (!b.is_number_unsigned() || b.get<unsigned>() > 255) return std::nullopt;
    out += static_cast<char>(b.get<unsigned>());
  }
  return out;
}

bool TextOf(const Json& obj, LogRecord& rec) {
  for (std::string_view key : kTextKeys) {
    auto it = obj.find(key);
    if (it == obj.end()) continue;
    if (it->is_string()) {
      rec.text = it->get<std::string>();
      return true;
    }
    if (auto bytes = BytesOf(*it)) {
      rec.text = std::move(*bytes);
      return true;
    }
  }
  return false;
}

void TimeAndHostOf(const Json& obj, LogRecord& rec) {
  for (std::string_view key : kTimeKeys) {
    auto it = obj.find(key);
    if (it == obj.end()) continue;
    if (auto t = TimeOfJson(key, *it)) {
      rec.time = t;
      break;
    }
  }
  if (auto it = obj.find("__MONOTONIC_TIMESTAMP"); it != obj.end() && it->is_string()) {
    TextCursor c(it->get_ref<const std::string&>());
    std::uint64_t us = 0;
    if (c.Uint64(us) && c.done()) rec.monotonic_s = static_cast<double>(us) / 1e6;
  }
  auto sec = obj.find("sec"), usec = obj.find("usec");  // fluent-bit's kmsg input
  if (sec != obj.end() && sec->is_number() && usec != obj.end() && usec->is_number()) {
    rec.monotonic_s = sec->get<double>() + usec->get<double>() / 1e6;
  }
  for (std::string_view key : {"_HOSTNAME", "hostname", "host"}) {
    auto it = obj.find(key);
    if (it == obj.end()) continue;
    if (it->is_string()) {
      rec.host = it->get<std::string>();
      break;
    }
    if (it->is_object()) {
      auto name = it->find("name");
      if (name != it->end() && name->is_string()) rec.host = name->get<std::string>();
      break;
    }
  }
}

}  // namespace

std::optional<LogRecord> LogRecordFromJson(const nlohmann::json& obj) {
  if (!obj.is_object()) return std::nullopt;
  LogRecord rec;
  if (TextOf(obj, rec)) {
    TimeAndHostOf(obj, rec);
    return rec;
  }
  for (std::string_view nested : {"_source", "fields"}) {  // Elasticsearch / OpenSearch hits
    auto it = obj.find(nested);
    if (it == obj.end() || !it->is_object() || !TextOf(*it, rec)) continue;
    TimeAndHostOf(*it, rec);
    if (!rec.time) TimeAndHostOf(obj, rec);
    return rec;
  }
  return std::nullopt;
}

namespace {

// logfmt value at the cursor: bare up to a space, or quoted with escapes.
std::string LogfmtValue(TextCursor& c) {
  std::string v;
  if (c.Lit('"')) {
    while (!c.done() && c.peek() != '"') {
      char ch = c.peek();
      c.set_pos(c.pos() + 1);
      if (ch == '\\' && !c.done()) {
        char e = c.peek();
        c.set_pos(c.pos() + 1);
        ch = e == 'n' ? '\n' : e == 't' ? '\t' : e;
      }
      v += ch;
    }
    c.Lit('"');
    return v;
  }
  std::string_view tok;
  if (c.Token(tok)) v = std::string(tok);
  return v;
}

std::optional<LogRecord> FromLogfmt(std::string_view line) {
  TextCursor c(line);
  LogRecord rec;
  bool has_text = false;
  std::size_t text_rank = std::size(kTextKeys), time_rank = std::size(kTimeKeys);
  while (c.SkipSpaces(), !c.done()) {
    std::size_t key_start = c.pos();
    while (!c.done() && IsKeyChar(c.peek())) c.set_pos(c.pos() + 1);
    std::string_view key = line.substr(key_start, c.pos() - key_start);
    if (key.empty() || !c.Lit('=')) return has_text ? std::optional(rec) : std::nullopt;
    std::string value = LogfmtValue(c);
    for (std::size_t i = 0; i < text_rank; ++i) {
      if (key == kTextKeys[i]) rec.text = value, has_text = true, text_rank = i;
    }
    std::size_t rank = key == "t" ? std::size(kTimeKeys) - 1 : std::size(kTimeKeys);
    for (std::size_t i = 0; i < std::size(kTimeKeys); ++i) {
      if (key == kTimeKeys[i]) rank = i;
    }
    if (rank < time_rank) {
      if (auto t = ParseRecordTime(value)) rec.time = t, time_rank = rank;
    }
    if (key == "host" || key == "hostname") rec.host = value;
  }
  if (!has_text) return std::nullopt;
  return rec;
}

}  // namespace

std::optional<WallTime> EpochToWallTime(double v) {
  if (!(v > 0)) return std::nullopt;
  double s = v > 1e17 ? v / 1e9 : v > 1e14 ? v / 1e6 : v > 1e11 ? v / 1e3 : v;
  if (s < 1e8 || s > 7e9) return std::nullopt;  // 1973 .. 2191: anything else is not a time
  return WallTime{} + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                          std::chrono::duration<double>(s));
}

std::optional<WallTime> ParseRecordTime(std::string_view text) {
  TextCursor c(text);
  std::uint64_t whole = 0;
  double frac = 0;
  if (c.Uint64(whole) && c.done()) return EpochIntegerToWallTime(whole);
  if (c.Lit('.') && c.Fraction(frac) && c.done()) {
    return EpochToWallTime(static_cast<double>(whole) + frac);
  }
  // "2025-02-15T17:37:45.123456789Z" and the like: read as a line stamp.
  std::string line(text);
  line += ' ';
  KernelLine kl = ParseKernelLine(line, LineTimeContext{});
  if (kl.prefix == LinePrefix::kIso && kl.message.empty()) return kl.time;
  return std::nullopt;
}

bool MayBeLogRecord(std::string_view line) {
  std::size_t i = 0;  // past the indent (a byte loop: a flood's every line asks)
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == line.size()) return false;
  if (line[i] == '{') return true;
  std::size_t j = i;
  while (j < line.size() && IsKeyChar(line[j])) ++j;
  return j > i && j < line.size() && line[j] == '=';
}

std::optional<LogRecord> UnwrapLogRecord(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' '))
    line.remove_suffix(1);
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return std::nullopt;
  line.remove_prefix(i);
  if (line.front() == '{') {
    Json doc = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return std::nullopt;
    return LogRecordFromJson(doc);
  }
  if (!MayBeLogRecord(line)) return std::nullopt;
  return FromLogfmt(line);
}

}  // namespace gpudoctor
