#include "analyze/bug_report.h"

#include <algorithm>
#include <string_view>

#include "analyze/dump_time.h"
#include "parse/driver_version.h"

namespace gpudoctor {
namespace {

bool IsSeparator(std::string_view s) {
  return s.size() >= 20 && s.find_first_not_of('_') == std::string_view::npos;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// A command line the report printed before a command's output: it starts at
// column 0 and names nvidia-smi ("/usr/bin/nvidia-smi --query --unit").
// nvidia-smi's own output never does (its banner says "NVSMI", its errors "NVIDIA-SMI").
bool IsSmiCommand(std::string_view s) {
  return !s.empty() && s.front() != ' ' && s.find("nvidia-smi") != std::string_view::npos;
}

bool IsSmiQueryCommand(std::string_view s) {
  if (!IsSmiCommand(s)) return false;
  std::string_view args = s.substr(s.find("nvidia-smi") + 10);
  return (args == " --query" || args == " -q");
}

bool IsProcVersionHeader(std::string_view s) {
  constexpr std::string_view kTail = "/version";
  return StartsWith(s, "*** /proc/driver/nvidia/") && s.size() > kTail.size() &&
         s.substr(s.size() - kTail.size()) == kTail;
}

void ReadPrologueLine(std::string_view t, BugReportFacts& facts) {
  if (StartsWith(t, "Date:") && facts.date_year == 0) facts.date_year = YearInText(t.substr(5));
  if (StartsWith(t, "uname:") && facts.hostname.empty()) {
    // "uname: Linux <hostname> <release> #1 SMP ..."
    std::string_view rest = t.substr(6);
    std::string words[3];
    for (std::string& w : words) {
      std::size_t b = rest.find_first_not_of(' ');
      if (b == std::string_view::npos) return;
      rest.remove_prefix(b);
      std::size_t e = std::min(rest.find(' '), rest.size());
      w = std::string(rest.substr(0, e));
      rest.remove_prefix(e);
    }
    facts.hostname = words[1];
    facts.kernel_release = words[2];
  }
}

}  // namespace

std::string FirstNonEmptyLine(const std::string& text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = std::string_view(text).substr(pos, end - pos);
    std::size_t b = line.find_first_not_of(" \t\r");
    if (b != std::string_view::npos) {
      std::size_t e = line.find_last_not_of(" \t\r");
      return std::string(line.substr(b, e - b + 1));
    }
    pos = end + 1;
  }
  return {};
}

BugReportFacts ReadBugReportFacts(const std::vector<LogLine>& lines) {
  BugReportFacts facts;
  enum class In { kOther, kSmiQuery, kProcVersion } in = In::kOther;
  bool want_header = false;
  int separators = 0;  // the prologue (Date, uname) is the section after the first
  std::string proc_version_text;
  for (const LogLine& line : lines) {
    std::string_view t = line.text;
    if (IsSeparator(t)) {
      ++separators;
      in = In::kOther;
      want_header = true;
      continue;
    }
    if (separators <= 1) ReadPrologueLine(t, facts);
    if (want_header && (t.empty() || StartsWith(t, "NVIDIA Kernel module instance"))) continue;
    if (want_header || IsSmiCommand(t)) {
      want_header = false;
      in = IsSmiQueryCommand(t)     ? In::kSmiQuery
           : IsProcVersionHeader(t) ? In::kProcVersion
                                    : In::kOther;
      if (in == In::kSmiQuery) facts.smi_query_texts.emplace_back();
      continue;
    }
    if (in == In::kSmiQuery && !StartsWith(t, "NVIDIA Kernel module instance")) {
      facts.smi_query_texts.back().append(t).push_back('\n');
    } else if (in == In::kProcVersion && !StartsWith(t, "*** ")) {
      proc_version_text.append(t).push_back('\n');
    }
  }
  if (auto v = ParseProcDriverVersion(proc_version_text)) {
    facts.proc_driver_version = v->version.ToString();
  }
  return facts;
}

}  // namespace gpudoctor
