#include "render/report_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "core/gpu_status.h"
#include "core/thresholds.h"
#include "core/time_format.h"
#include "render/ansi.h"
#include "render/listed_events.h"
#include "render/recovery_text.h"
#include "render/report_active.h"
#include "render/report_timeline.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kMaxEventsShown = 20;

Level LevelOf(Severity s) {
  switch (s) {
    case Severity::kOk: return Level::kNormal;
    case Severity::kInfo: return Level::kInfo;
    case Severity::kWarning: return Level::kWarning;
    case Severity::kCritical: return Level::kCritical;
  }
  return Level::kNone;
}

std::string Header(const ReportContext& r) {
  const DiagnosisInput& in = *r.input;
  Lang l = r.lang;
  std::string line = fmt::format("gpudoctor {}", r.command);
  if (!in.hostname.empty()) line += fmt::format(" — {}", in.hostname);
  if (in.driver_version) line += fmt::format(", {} {}", Pick(l, "driver", "驱动"), *in.driver_version);
  if (in.cuda_driver_version) line += fmt::format(", CUDA {}", CudaVersionText(*in.cuda_driver_version));
  line += "\n";
  if (in.window_from && in.window_to) {
    line += fmt::format("{}: {} → {}\n", Pick(l, "Window", "时间窗口"), FormatRfc3339(*in.window_from),
                        FormatRfc3339(*in.window_to));
  }
  return line;
}

std::string GpuLines(const ReportContext& r, bool color) {
  std::string out;
  const Lang l = r.lang;
  if (r.diagnosis->gpus.empty()) {
    if (!r.input->nvml_error.empty()) {
      out += fmt::format("{}: {}\n", Pick(l, "NVML unavailable", "NVML 不可用"), r.input->nvml_error);
    }
    return out;
  }
  for (const GpuVerdict& g : r.diagnosis->gpus) {
    std::string verdict = Colorize(SeverityLabel(g.verdict, l), LevelOf(g.verdict), color);
    std::string ids;
    for (const auto& id : g.finding_ids) ids += (ids.empty() ? "  " : ", ") + id;
    std::string state = g.state == "ok" ? "" : " [" + g.state + "]";
    out += fmt::format("GPU {:<2} {}  {}{}  {}{}\n", g.index, g.pci_bus_id, g.name, state, verdict, ids);
  }
  return out;
}

// One piece of evidence on one line: when, what, where from.
std::string FindingEvidenceLine(const EvidenceItem& e, Lang l) {
  std::string where;
  if (e.source && !e.source->file.empty()) {
    where = e.source->line > 0 ? fmt::format("  ({}:{})", e.source->file, e.source->line)
                               : fmt::format("  ({})", e.source->file);
  }
  std::string when = e.time ? FormatRfc3339(*e.time) + "  " : "";
  return when + e.text.In(l) + where;
}

std::string FindingText(const Finding& f, Lang l, bool color) {
  std::string out = fmt::format("{} {}  {}\n", Colorize("[" + SeverityLabel(f.severity, l) + "]", LevelOf(f.severity), color),
                                Bold(f.title.In(l), color), f.id);
  out += "  " + f.explanation.In(l) + "\n";
  if (std::string recovery = FindingRecoveryText(f, l); !recovery.empty()) {
    out += fmt::format("  {}: {}\n", Pick(l, "Recovery", "恢复操作"), recovery);
  }
  if (!f.per_gpu.empty()) {
    // Folded across GPUs: one line per GPU, its evidence side by side.
    out += fmt::format("  {}:\n", Pick(l, "Evidence, per GPU", "各 GPU 的证据"));
    for (const GpuShare& share : f.per_gpu) {
      std::string items;
      for (const auto& e : share.evidence) items += (items.empty() ? "" : "; ") + FindingEvidenceLine(e, l);
      out += fmt::format("    - {}: {}\n", share.label, items.empty() ? share.title.In(l) : items);
    }
  } else if (!f.evidence.empty()) {
    out += fmt::format("  {}:\n", Pick(l, "Evidence", "证据"));
    for (const auto& e : f.evidence) out += fmt::format("    - {}\n", FindingEvidenceLine(e, l));
  }
  if (!f.actions.empty()) {
    out += fmt::format("  {}:\n", Pick(l, "What to do", "处理建议"));
    for (std::size_t i = 0; i < f.actions.size(); ++i) {
      out += fmt::format("    {}. {}\n", i + 1, f.actions[i].text.In(l));
      std::string_view commands = f.actions[i].command;
      while (!commands.empty()) {  // one per line when folded across GPUs
        std::size_t end = commands.find('\n');
        out += fmt::format("       $ {}\n", commands.substr(0, end));
        commands = end == std::string_view::npos ? std::string_view() : commands.substr(end + 1);
      }
    }
  }
  return out;
}

std::string EventLine(const KernelEvent& e) {
  std::string when = e.time ? FormatRfc3339(*e.time) : std::string("-");
  std::string code = e.code ? fmt::format(" {}", *e.code) : "";
  std::string count = e.count > 1 ? fmt::format(" (x{})", e.count) : "";
  std::string bus = e.pci_bus_id.empty() ? "" : " " + e.pci_bus_id;
  return fmt::format("  {}  {}{}{}  {}{}  ({}:{})\n", when, KernelEventKindName(e.kind), code, bus,
                     e.message, count, e.source.file, e.source.line);
}

// Findings with their start and end, events, and time throttled (report).
std::string TimelineText(const ReportContext& r, bool color) {
  if (r.timeline == nullptr) return "";
  const Lang l = r.lang;
  auto rows = TimelineRows(r);
  std::string out = fmt::format("\n{}\n", Bold(Pick(l, "Timeline", "时间线"), color));
  if (rows.empty()) out += fmt::format("  {}\n", Pick(l, "nothing happened in this window", "该时间窗口内无事发生"));
  for (const auto& row : rows) {
    std::string gpus;
    for (const auto& g : row.gpus) gpus += (gpus.empty() ? " " : ",") + g;
    if (row.is_finding) {
      std::string span = row.end ? fmt::format("{} → {} ({})", FormatRfc3339(row.start), FormatRfc3339(*row.end),
                                               FormatSpan(std::chrono::duration<double>(*row.end - row.start).count(), l))
                                 : fmt::format("{} → {}", FormatRfc3339(row.start), Pick(l, "still active", "仍在持续"));
      out += fmt::format("  {}  {} {}{}: {}{}\n", span, SeverityLabel(row.severity, l), row.what,
                         gpus, row.text, row.recovery);
    } else {
      out += fmt::format("  {}  {}{}: {}\n", FormatRfc3339(row.start), row.what, gpus, row.text);
    }
  }
  auto throttle = ThrottleLines(r);
  if (!throttle.empty()) {
    out += fmt::format("\n{}\n", Bold(Pick(l, "Time throttled", "降频时长"), color));
    for (const auto& [bus, text] : throttle) out += fmt::format("  {}  {}\n", bus, text);
  }
  return out;
}

}  // namespace

std::vector<NotCheckedGroup> GroupNotChecked(const std::vector<NotChecked>& items, Lang lang) {
  std::vector<NotCheckedGroup> groups;
  for (const auto& n : items) {
    const std::string& reason = n.reason.In(lang);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const NotCheckedGroup& g) { return g.reason == reason; });
    if (it == groups.end()) {
      groups.push_back(NotCheckedGroup{reason, {}});
      it = std::prev(groups.end());
    }
    it->rules.push_back(n.rule);
  }
  return groups;
}

std::string SeverityLabel(Severity s, Lang l) {
  switch (s) {
    case Severity::kOk: return Pick(l, "OK", "正常");
    case Severity::kInfo: return Pick(l, "INFO", "提示");
    case Severity::kWarning: return Pick(l, "WARNING", "警告");
    case Severity::kCritical: return Pick(l, "CRITICAL", "严重");
  }
  return "";
}

// The last line: the verdict, the findings counted by severity and the worst
// one, so that the answer is on screen when the command returns (the findings
// above may have scrolled the verdict away).
std::string SummaryLine(const Diagnosis& d, Lang l, bool color) {
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const Finding& f : d.findings) ++counts[static_cast<int>(f.severity)];
  std::string line = fmt::format("{}: {}", Pick(l, "Summary", "总结"),
                                 Colorize(SeverityLabel(d.verdict, l), LevelOf(d.verdict), color));
  if (d.findings.empty()) return line + Pick(l, " — no problem found\n", " — 未发现问题\n");
  std::string parts;
  const auto add = [&](Severity s, const char* en, const char* zh) {
    const std::size_t n = counts[static_cast<int>(s)];
    if (n == 0) return;
    parts += (parts.empty() ? "" : ", ") + fmt::format("{} {}", n, Pick(l, en, zh));
  };
  add(Severity::kCritical, "critical", "严重");
  add(Severity::kWarning,
      counts[static_cast<int>(Severity::kWarning)] == 1 ? "warning" : "warnings", "警告");
  add(Severity::kInfo, "info", "提示");
  const Finding& worst = d.findings.front();
  return line + fmt::format(" — {}; {}: {} ({})\n", parts, Pick(l, "worst", "最严重"), worst.title.In(l), worst.id);
}

std::string InterruptionText(const ReportContext& r) {
  if (!r.interrupted) return {};
  const auto seconds = [](std::chrono::milliseconds t) { return static_cast<double>(t.count()) / 1000.0; };
  return fmt::format(fmt::runtime(Pick(r.lang,
                                       "Interrupted after {:.1f} s of {:.1f} s of sampling: the "
                                       "diagnosis covers what was sampled so far",
                                       "采样 {:.1f} 秒（计划 {:.1f} 秒）后被中断：诊断仅基于已采集的数据")),
                     seconds(r.interrupted->sampled), seconds(r.interrupted->planned));
}

std::string ReportToText(const ReportContext& r, bool color) {
  const Lang l = r.lang;
  const Diagnosis& d = *r.diagnosis;
  std::string out = Header(r);
  if (r.interrupted) out += Colorize(InterruptionText(r), Level::kWarning, color) + "\n";
  for (const auto& f : r.files) {
    out += f.ok ? fmt::format("  {} ({})\n", f.path, f.kind) : fmt::format("  {}: {}\n", Pick(l, "skipped", "已跳过"), f.error);
    for (const auto& note : f.notes) out += fmt::format("    {}: {}\n", Pick(l, "note", "注意"), note);
  }
  out += fmt::format("{}: {}\n\n", Bold(Pick(l, "Verdict", "结论"), color),
                     Colorize(SeverityLabel(d.verdict, l), LevelOf(d.verdict), color));
  out += GpuLines(r, color);
  if (d.findings.empty()) {
    out += fmt::format("\n{}\n", Pick(l, "No problem found in the evidence checked.", "在已检查的证据中未发现问题。"));
  } else {
    out += fmt::format("\n{} ({})\n", Bold(Pick(l, "Findings", "发现的问题"), color), d.findings.size());
    for (const Finding& f : d.findings) out += "\n" + FindingText(f, l, color);
  }
  if (r.input->kernel && !r.input->kernel->events.empty()) {
    const std::vector<const KernelEvent*> events = ListedEvents(r.input->kernel->events);
    out += fmt::format("\n{} ({})\n", Bold(Pick(l, "Kernel events", "内核事件"), color), events.size());
    std::size_t start = events.size() > kMaxEventsShown ? events.size() - kMaxEventsShown : 0;
    if (start > 0) out += fmt::format(fmt::runtime(Pick(l, "  ... {} earlier events (see --format json)\n",
                                                        "  ……另有 {} 条更早的事件（见 --format json）\n")),
                                     start);
    for (std::size_t i = start; i < events.size(); ++i) out += EventLine(*events[i]);
  }
  out += TimelineText(r, color);
  if (r.input->active) out += ActiveRunText(*r.input, l);
  if (!d.not_checked.empty()) {
    out += fmt::format("\n{} ({})\n", Bold(Pick(l, "Not checked", "未能检查"), color), d.not_checked.size());
    for (const auto& g : GroupNotChecked(d.not_checked, l)) {
      std::string rules;
      for (const auto& id : g.rules) rules += (rules.empty() ? "" : ", ") + id;
      out += fmt::format("  - {}: {}\n", g.reason, rules);
    }
  }
  out += "\n";
  // Just above the summary, which stays the last line on screen.
  if (std::string recovery = NodeRecoveryText(d, l); !recovery.empty()) {
    out += fmt::format("{}: {}\n", Pick(l, "Recovery", "恢复操作"), Bold(recovery, color));
  }
  out += SummaryLine(d, l, color);
  return out;
}

}  // namespace gpudoctor
