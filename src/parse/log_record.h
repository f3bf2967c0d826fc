// Log lines inside a wrapper: one JSON object per line (journalctl -o json,
// fluent-bit, Vector, Elasticsearch/OpenSearch exports, Loki, CloudWatch,
// Docker's json-file), logfmt (`ts=... msg="..."`), and the records of
// journalctl -o export. What comes out is the log text the wrapper holds,
// and the time, monotonic time and host when the wrapper states them; the
// text is then read by ParseKernelLine like any other line.
//
// Keys read (first found wins):
//   text:  MESSAGE, message, msg, log, line, textPayload; also inside
//          "_source" (Elasticsearch/OpenSearch hits) and "fields";
//          MESSAGE as an array of bytes (journald, when not UTF-8)
//   time:  __REALTIME_TIMESTAMP, _SOURCE_REALTIME_TIMESTAMP (µs),
//          @timestamp, timestamp, time, ts, date, datetime, _time,
//          eventTime: RFC 3339 strings, or epoch numbers in s, ms, µs or ns
//          (told by magnitude)
//   monotonic: __MONOTONIC_TIMESTAMP (µs); fluent-bit kmsg "sec" + "usec"
//   host:  _HOSTNAME, hostname, host (a string or {"name": ...})
// Pure; never throws.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

struct LogRecord {
  std::string text;
  std::optional<WallTime> time;
  std::optional<double> monotonic_s;
  std::string host;
};

// The record in one line when it is a JSON object or logfmt with a text
// field; nullopt for anything else (the line is then read as it stands).
std::optional<LogRecord> UnwrapLogRecord(std::string_view line);

// Whether a line may be a wrapped record (starts with '{' or "key=").
bool MayBeLogRecord(std::string_view line);

// A time value as log pipelines write it: RFC 3339 text, or epoch seconds,
// milliseconds, microseconds or nanoseconds (as text or a number).
std::optional<WallTime> ParseRecordTime(std::string_view text);
std::optional<WallTime> EpochToWallTime(double value);

// Streaming reader of `journalctl -o export`: feed bytes in any pieces;
// each complete entry with a MESSAGE is passed to the callback. Binary
// fields (name, 64-bit little-endian length, data) are read as such.
// Memory: one entry (fields over max_field_bytes are dropped).
class JournalExportReader {
 public:
  template <typename F>
  explicit JournalExportReader(F on_record) : on_record_(std::move(on_record)) {}
  void Feed(std::string_view bytes);
  void Finish();  // the last entry when the input lacks the final blank line
  std::size_t entries() const { return entries_; }

 private:
  void Field(std::string_view name, std::string_view value);
  void EndEntry();
  std::function<void(const LogRecord&)> on_record_;
  std::string pending_;  // bytes not yet consumed
  std::size_t skip_ = 0;  // bytes of an oversized binary field still to drop
  LogRecord current_;
  bool has_message_ = false;
  std::size_t entries_ = 0;
};

// True when the start of a file is journalctl -o export output.
bool LooksLikeJournalExport(std::string_view head);

// Reads JSON documents from `in` one after another (journalctl -o
// json-pretty writes objects back to back; Loki's query API, CloudWatch's
// filter-log-events and Elasticsearch's search write one document holding
// arrays of records) and passes each record to `on_record`: every object
// with a text key, and Loki's ["<ns>", "<line>"] pairs. Objects that are
// records are not kept, so memory stays near one record whatever the size.
// Returns the number of records, or a one-line description of the first
// syntax error ("syntax error at byte 812: ...").
struct JsonRecordsResult {
  std::size_t records = 0;
  std::string error;  // empty when the input was well formed to its end
};
JsonRecordsResult ReadJsonRecords(std::istream& in,
                                  const std::function<void(const LogRecord&)>& on_record);

}  // namespace gpudoctor
