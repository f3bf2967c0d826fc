#include "fix/audit_log.h"

#include "core/safe_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_dump.h"
#include "core/terminal.h"
#include "core/time_format.h"
#include "core/time_parse.h"

namespace gpudoctor {

std::string AuditLine(const AuditEntry& e) {
  using J = nlohmann::ordered_json;
  J j;
  j["time"] = FormatRfc3339(e.time);
  j["host"] = e.host;
  j["gpu"] = e.gpu_index ? J(*e.gpu_index) : J(nullptr);
  j["pci_bus_id"] = e.pci_bus_id;
  j["uuid"] = e.uuid.empty() ? J(nullptr) : J(e.uuid);
  j["step"] = e.step;
  j["finding"] = e.finding_id.empty() ? J(nullptr) : J(e.finding_id);
  j["field"] = e.field;
  j["before"] = e.before;
  j["after"] = e.after;
  j["result"] = e.result;
  return DumpJson(j);
}

int CountAuditSteps(const std::string& dir, const std::string& step, WallTime since) {
  std::ifstream in(dir + "/fix-audit.log");
  int count = 0;
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("step") || !j["step"].is_string() ||
        j["step"].get<std::string>() != step || !j.contains("time") || !j["time"].is_string()) {
      continue;
    }
    auto when = ParseTimePoint(j["time"].get<std::string>());
    if (when && *when >= since) ++count;
  }
  return count;
}

Result<std::unique_ptr<AuditLogFile>> AuditLogFile::Open(const std::string& dir) {
  std::string path = dir + "/fix-audit.log";
  // Opened before anything is changed, so that a change is never made
  // without a log to record it in; O_EXCL first to know whether it is new.
  bool created = true;
  // Never through a symbolic link (O_NOFOLLOW): one planted in a shared
  // directory would have root append to another file.
  Result<int> fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
  if (*fd < 0) {
    fd = errno == EEXIST ? OpenNoFollow(path, O_WRONLY | O_APPEND) : ErrnoError(errno, path);
    created = false;
  }
  if (!fd) return Error{fd.error().code, "audit log " + fd.error().message};
  return std::unique_ptr<AuditLogFile>(new AuditLogFile(*fd, path, created));
}

AuditLogFile::~AuditLogFile() { ::close(fd_); }

Status AuditLogFile::Record(const AuditEntry& entry) {
  if (!WriteAll(fd_, AuditLine(entry) + "\n")) return ErrnoError(errno, "audit log " + path_);
  recorded_ = true;
  if (::fsync(fd_) != 0) return ErrnoError(errno, "audit log " + path_);
  return OkStatus();
}

void AuditLogFile::DiscardIfUnused() {
  if (created_ && !recorded_) ::unlink(path_.c_str());
  created_ = false;
}

}  // namespace gpudoctor
