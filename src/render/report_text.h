// The diagnosis report for people: a verdict line per GPU, then the findings
// most severe first with evidence and numbered actions, the kernel events,
// and what could not be checked. Text for terminals (optionally coloured)
// and Markdown for tickets and chat.
#pragma once

#include <string>
#include <vector>

#include "render/report.h"

namespace gpudoctor {

std::string ReportToText(const ReportContext& report, bool color);
std::string ReportToMarkdown(const ReportContext& report);

// What could not be checked, grouped: each distinct reason once, with the
// rules it held back ("no GPU readings ...: thermal.slowdown, power.cap").
struct NotCheckedGroup {
  std::string reason;
  std::vector<std::string> rules;
};
std::vector<NotCheckedGroup> GroupNotChecked(const std::vector<NotChecked>& items, Lang lang);

// "Interrupted after 3 s of 10 s of sampling: ..." for a report whose
// sampling was stopped early; empty otherwise. Text, Markdown and HTML.
std::string InterruptionText(const ReportContext& report);

// Localised words the report uses: severity names and section headings.
std::string SeverityLabel(Severity severity, Lang lang);
inline const char* Pick(Lang lang, const char* en, const char* zh) {
  return lang == Lang::kZh ? zh : en;
}

}  // namespace gpudoctor
