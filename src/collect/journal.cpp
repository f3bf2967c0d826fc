#include "collect/journal.h"

#include <systemd/sd-journal.h>

#include <cstring>
#include <string>

namespace gpudoctor {
namespace {

std::string Field(sd_journal* j, const char* name) {
  const void* data = nullptr;
  std::size_t len = 0;
  if (sd_journal_get_data(j, name, &data, &len) < 0) return {};
  std::string_view s(static_cast<const char*>(data), len);
  std::size_t eq = s.find('=');
  return eq == std::string_view::npos ? std::string() : std::string(s.substr(eq + 1));
}

std::string SdError(int r, const std::string& what) { return what + ": " + std::strerror(-r); }

int AddMatches(sd_journal* j) {
  const char* matches[] = {"_TRANSPORT=kernel", "SYSLOG_IDENTIFIER=nv-fabricmanager",
                           "_SYSTEMD_UNIT=nvidia-fabricmanager.service",
                           "UNIT=nvidia-fabricmanager.service"};
  for (std::size_t i = 0; i < std::size(matches); ++i) {
    if (i > 0) {
      if (int r = sd_journal_add_disjunction(j); r < 0) return r;
    }
    if (int r = sd_journal_add_match(j, matches[i], 0); r < 0) return r;
  }
  return 0;
}

LogLine ToLine(sd_journal* j) {
  LogLine line;
  line.ref = SourceRef{"journal", 0};
  std::uint64_t usec = 0;
  if (sd_journal_get_realtime_usec(j, &usec) >= 0) {
    line.time = WallTime(std::chrono::microseconds(usec));
  }
  std::string message = Field(j, "MESSAGE");
  if (Field(j, "_TRANSPORT") == "kernel") {
    line.text = std::move(message);
    std::string mono = Field(j, "_SOURCE_MONOTONIC_TIMESTAMP");
    if (!mono.empty()) line.monotonic_s = std::strtod(mono.c_str(), nullptr) / 1e6;
    return line;
  }
  std::string ident = Field(j, "SYSLOG_IDENTIFIER");
  std::string pid = Field(j, "_PID");
  if (ident.empty()) ident = "unknown";
  line.text = ident + (pid.empty() ? "" : "[" + pid + "]") + ": " + message;
  return line;
}

}  // namespace

JournalBatch ReadJournalKernel(const CollectContext& ctx, std::size_t max_entries) {
  JournalBatch batch;
  batch.status.source = "journal";
  sd_journal* j = nullptr;
  int r = 0;
  if (ctx.root == "/") {
    r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
  } else {
    auto dir = UnderRoot(ctx, "/var/log/journal");
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      batch.status.why = "not available: no journal at /var/log/journal";
      return batch;
    }
    r = sd_journal_open_directory(&j, dir.c_str(), 0);
  }
  if (r < 0) {
    batch.status.why = "not available: " + SdError(r, "sd_journal_open");
    return batch;
  }
  using namespace std::chrono;
  auto since = duration_cast<microseconds>((ctx.now - ctx.since).time_since_epoch()).count();
  auto until = duration_cast<microseconds>(ctx.now.time_since_epoch()).count();
  if ((r = AddMatches(j)) < 0 ||
      (r = sd_journal_seek_realtime_usec(j, static_cast<std::uint64_t>(since))) < 0) {
    batch.status.why = SdError(r, "journal query");
    sd_journal_close(j);
    return batch;
  }
  while ((r = sd_journal_next(j)) > 0) {
    std::uint64_t usec = 0;
    if (sd_journal_get_realtime_usec(j, &usec) >= 0 && usec > static_cast<std::uint64_t>(until)) {
      break;
    }
    if (batch.lines.size() >= max_entries) {
      batch.truncated = true;
      break;
    }
    batch.lines.push_back(ToLine(j));
  }
  if (r < 0) batch.status.why = SdError(r, "journal read");
  sd_journal_close(j);
  batch.status.available = batch.status.why.empty();
  return batch;
}

}  // namespace gpudoctor
