// What `analyze` takes from an nvidia-bug-report.log besides its kernel-log
// sections (those come from collect/kernel_log_files.h): the output of the
// `nvidia-smi --query` commands, the driver version of
// /proc/driver/nvidia/version, and the identity lines of the prologue.
//
// A report is a list of sections, each opened by a line of underscores and
// a header: "*** /path" for a file it copied, the command line for a command
// it ran ("/usr/bin/nvidia-smi --query", followed in the same section by
// "/usr/bin/nvidia-smi --query --unit" and, on newer drivers, the nvlink
// commands). Pure; never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

struct BugReportFacts {
  // One text per `nvidia-smi --query` run (one per kernel module instance),
  // as nvidia-smi printed it: parse with ParseNvidiaSmiText. May hold the
  // tool's failure message instead ("NVIDIA-SMI has failed because ...").
  std::vector<std::string> smi_query_texts;
  std::optional<std::string> proc_driver_version;  // "535.104.05"
  std::string hostname;                            // from "uname: Linux <host> <release> ..."
  std::string kernel_release;
  int date_year = 0;  // from "Date: ...", for year-less log stamps; 0: none
};

BugReportFacts ReadBugReportFacts(const std::vector<LogLine>& lines);

// The same, a line at a time, for reports read as a stream. Each section
// kept (nvidia-smi output, /proc version) is capped at kMaxSectionBytes.
class BugReportReader {
 public:
  static constexpr std::size_t kMaxSectionBytes = 16u << 20;
  void Line(std::string_view line);  // without its '\n'
  BugReportFacts Finish();

 private:
  enum class In { kOther, kSmiQuery, kProcVersion };
  BugReportFacts facts_;
  In in_ = In::kOther;
  bool want_header_ = false;
  int separators_ = 0;  // the prologue (Date, uname) is the section after the first
  std::string proc_version_text_;
};

// First non-empty line of a text, trimmed; used as the error of a failed run.
std::string FirstNonEmptyLine(const std::string& text);

}  // namespace gpudoctor
