// journalctl -o export entries (log_record.h).
#include <cstring>

#include "parse/log_record.h"
#include "parse/text_cursor.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kMaxExportFieldBytes = 1u << 20;  // a core dump in the journal: skipped

std::optional<std::uint64_t> DecimalField(std::string_view v) {
  TextCursor c(v);
  std::uint64_t n = 0;
  if (!c.Uint64(n) || !c.done()) return std::nullopt;
  return n;
}

}  // namespace

bool LooksLikeJournalExport(std::string_view head) {
  return head.rfind("__CURSOR=", 0) == 0 || head.rfind("__REALTIME_TIMESTAMP=", 0) == 0;
}

void JournalExportReader::Field(std::string_view name, std::string_view value) {
  if (name == "MESSAGE") {
    current_.text = std::string(value);
    has_message_ = true;
  } else if (name == "__REALTIME_TIMESTAMP") {
    if (auto us = DecimalField(value)) current_.time = WallTime{} + std::chrono::microseconds(*us);
  } else if (name == "__MONOTONIC_TIMESTAMP") {
    if (auto us = DecimalField(value)) current_.monotonic_s = static_cast<double>(*us) / 1e6;
  } else if (name == "_HOSTNAME") {
    current_.host = std::string(value);
  }
}

void JournalExportReader::EndEntry() {
  if (has_message_) {
    ++entries_;
    on_record_(current_);
  }
  current_ = LogRecord{};
  has_message_ = false;
}

void JournalExportReader::Feed(std::string_view bytes) {
  if (skip_ >= bytes.size()) {
    skip_ -= bytes.size();
    return;
  }
  bytes.remove_prefix(skip_);
  skip_ = 0;
  pending_.append(bytes);
  std::size_t pos = 0;
  for (;;) {
    std::size_t nl = pending_.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string_view line(pending_.data() + pos, nl - pos);
    if (line.empty()) {
      EndEntry();
      pos = nl + 1;
      continue;
    }
    if (auto eq = line.find('='); eq != std::string_view::npos) {
      Field(line.substr(0, eq), line.substr(eq + 1));
      pos = nl + 1;
      continue;
    }
    // Binary field: "NAME\n", 64-bit little-endian length, the data, "\n".
    if (pending_.size() < nl + 1 + 8) break;
    std::uint64_t len = 0;
    for (int b = 7; b >= 0; --b) {
      len = len << 8 | static_cast<unsigned char>(pending_[nl + 1 + static_cast<std::size_t>(b)]);
    }
    std::size_t data = nl + 1 + 8;
    if (len > kMaxExportFieldBytes) {
      std::size_t have = pending_.size() - data;
      if (have >= len + 1) {
        pos = data + len + 1;
        continue;
      }
      skip_ = static_cast<std::size_t>(len + 1 - have);
      pos = pending_.size();
      break;
    }
    if (pending_.size() < data + len + 1) break;
    Field(line, std::string_view(pending_.data() + data, len));
    pos = data + len + 1;
  }
  pending_.erase(0, pos);
}

void JournalExportReader::Finish() {
  if (!pending_.empty()) Feed("\n");  // a last line without its '\n'
  EndEntry();
}

}  // namespace gpudoctor
