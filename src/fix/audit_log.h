// The audit log of `gpudoctor fix --apply`: one JSON object per line in
// <data_dir>/fix-audit.log, one per change attempted, with the time, host,
// GPU, the step and its finding, the field, its value before and after, and
// the result ("ok" or "failed: <error>").
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/kernel_event.h"
#include "core/result.h"

namespace gpudoctor {

struct AuditEntry {
  WallTime time;
  std::string host;
  std::optional<unsigned> gpu_index;
  std::string pci_bus_id;
  std::string uuid;
  std::string step;        // "power_limit"
  std::string finding_id;  // "config.power_limit"; empty when asked by an option
  std::string field;       // "power_limit_w"
  std::string before;      // "250 W"
  std::string after;       // "700 W"
  std::string result;      // "ok" or "failed: ..."
};

// The JSON line for an entry, without the newline. Pure.
std::string AuditLine(const AuditEntry& entry);

// How many entries of `step` the audit log in `dir` holds from `since` on
// (0 when there is no log). Lines that do not parse are skipped. For the
// anti-storm limit of `fix --reset-gpu` (step "gpu_reset").
int CountAuditSteps(const std::string& dir, const std::string& step, WallTime since);

class AuditSink {
 public:
  virtual ~AuditSink() = default;
  virtual Status Record(const AuditEntry& entry) = 0;
};

// Appends to a file (O_APPEND, fsync after each line).
class AuditLogFile final : public AuditSink {
 public:
  // Opens (creating it 0640) <dir>/fix-audit.log; dir must exist. Errors name
  // the file.
  static Result<std::unique_ptr<AuditLogFile>> Open(const std::string& dir);
  ~AuditLogFile() override;
  AuditLogFile(const AuditLogFile&) = delete;
  AuditLogFile& operator=(const AuditLogFile&) = delete;

  Status Record(const AuditEntry& entry) override;
  const std::string& path() const { return path_; }
  // Removes the file when this run created it and recorded nothing (the
  // user declined, or there was nothing to apply); otherwise leaves it.
  void DiscardIfUnused();

 private:
  AuditLogFile(int fd, std::string path, bool created)
      : fd_(fd), path_(std::move(path)), created_(created) {}
  int fd_;
  std::string path_;
  bool created_;
  bool recorded_ = false;
};

}  // namespace gpudoctor
