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

void BugReportReader::Line(std::string_view t) {
  if (IsSeparator(t)) {
    ++separators_;
    in_ = In::kOther;
    want_header_ = true;
    return;
  }
  if (separators_ <= 1) ReadPrologueLine(t, facts_);
  if (want_header_ && (t.empty() || StartsWith(t, "NVIDIA Kernel module instance"))) return;
  if (want_header_ || IsSmiCommand(t)) {
    want_header_ = false;
    in_ = IsSmiQueryCommand(t)     ? In::kSmiQuery
          : IsProcVersionHeader(t) ? In::kProcVersion
                                   : In::kOther;
    if (in_ == In::kSmiQuery) facts_.smi_query_texts.emplace_back();
    return;
  }
  if (in_ == In::kSmiQuery && !StartsWith(t, "NVIDIA Kernel module instance")) {
    std::string& text = facts_.smi_query_texts.back();
    if (text.size() + t.size() < kMaxSectionBytes) text.append(t).push_back('\n');
  } else if (in_ == In::kProcVersion && !StartsWith(t, "*** ")) {
    if (proc_version_text_.size() + t.size() < kMaxSectionBytes)
      proc_version_text_.append(t).push_back('\n');
  }
}

BugReportFacts BugReportReader::Finish() {
  if (auto v = ParseProcDriverVersion(proc_version_text_)) {
    facts_.proc_driver_version = v->version.ToString();
  }
  return std::move(facts_);
}

BugReportFacts ReadBugReportFacts(const std::vector<LogLine>& lines) {
  BugReportReader reader;
  for (const LogLine& line : lines) reader.Line(line.text);
  return reader.Finish();
}

}  // namespace gpudoctor
