#include <fmt/format.h>

#include "core/gpu_status.h"
#include "core/time_format.h"
#include "render/listed_events.h"
#include "render/report_active.h"
#include "render/report_text.h"
#include "render/report_timeline.h"
#include "render/recovery_text.h"

namespace gpudoctor {
namespace {

// Table cells must not break the table.
std::string MarkdownCell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// One piece of evidence with the log line it came from.
std::string MarkdownEvidence(const EvidenceItem& e, Lang l) {
  std::string out = e.text.In(l);
  if (e.source && !e.source->file.empty()) {
    out += e.source->line > 0 ? fmt::format(" (`{}:{}`)", e.source->file, e.source->line)
                              : fmt::format(" (`{}`)", e.source->file);
  }
  return out;
}

std::string FindingMarkdown(const Finding& f, Lang l) {
  std::string out = fmt::format("### {} — {}\n\n", SeverityLabel(f.severity, l), f.title.In(l));
  out += fmt::format("`{}`", f.id);
  if (!f.gpus.empty()) {
    out += " · GPU";
    for (const auto& g : f.gpus) out += " `" + g + "`";
  }
  if (!f.xids.empty()) {
    out += " · Xid";
    for (int x : f.xids) out += fmt::format(" {}", x);
  }
  out += "\n\n" + f.explanation.In(l) + "\n\n";
  if (std::string recovery = FindingRecoveryText(f, l); !recovery.empty()) {
    out += fmt::format("**{}:** {}\n\n", Pick(l, "Recovery", "恢复操作"), recovery);
  }
  if (!f.per_gpu.empty()) {
    // Folded across GPUs: each GPU with its own evidence under it.
    out += fmt::format("**{}**\n\n", Pick(l, "Evidence, per GPU", "各 GPU 的证据"));
    for (const GpuShare& share : f.per_gpu) {
      out += "- **" + share.label + "**";
      if (share.evidence.empty()) out += ": " + share.title.In(l);
      out += "\n";
      for (const auto& e : share.evidence) out += "  - " + MarkdownEvidence(e, l) + "\n";
    }
    out += "\n";
  } else if (!f.evidence.empty()) {
    out += fmt::format("**{}**\n\n", Pick(l, "Evidence", "证据"));
    for (const auto& e : f.evidence) out += "- " + MarkdownEvidence(e, l) + "\n";
    out += "\n";
  }
  if (!f.actions.empty()) {
    out += fmt::format("**{}**\n\n", Pick(l, "What to do", "处理建议"));
    for (std::size_t i = 0; i < f.actions.size(); ++i) {
      out += fmt::format("{}. {}\n", i + 1, f.actions[i].text.In(l));
      if (f.actions[i].command.empty()) continue;
      std::string block = f.actions[i].command;  // one command a line when folded across GPUs
      for (std::size_t at = block.find('\n'); at != std::string::npos; at = block.find('\n', at + 4)) {
        block.replace(at, 1, "\n   ");
      }
      out += fmt::format("   ```\n   {}\n   ```\n", block);
    }
    out += "\n";
  }
  return out;
}

// Findings with their start and end, events, and time throttled (report).
std::string TimelineMarkdown(const ReportContext& r) {
  if (r.timeline == nullptr) return "";
  const Lang l = r.lang;
  auto rows = TimelineRows(r);
  std::string out = fmt::format("## {}\n\n", Pick(l, "Timeline", "时间线"));
  if (rows.empty()) return out + Pick(l, "Nothing happened in this window.", "该时间窗口内无事发生。") + "\n\n";
  out += fmt::format("| {} | {} | {} | GPU | {} |\n|---|---|---|---|---|\n", Pick(l, "From", "开始"),
                     Pick(l, "To", "结束"), Pick(l, "What", "内容"), Pick(l, "Detail", "详情"));
  for (const auto& row : rows) {
    std::string gpus;
    for (const auto& g : row.gpus) gpus += (gpus.empty() ? "`" : ", `") + g + "`";
    std::string to = !row.is_finding ? "" : row.end ? FormatRfc3339(*row.end) : Pick(l, "still active", "仍在持续");
    std::string what = row.is_finding ? fmt::format("{} `{}`", SeverityLabel(row.severity, l), row.what) : row.what;
    out += fmt::format("| {} | {} | {} | {} | {} |\n", FormatRfc3339(row.start), to, what, gpus,
                       MarkdownCell(row.text + row.recovery));
  }
  out += "\n";
  auto throttle = ThrottleLines(r);
  if (!throttle.empty()) {
    out += fmt::format("### {}\n\n", Pick(l, "Time throttled", "降频时长"));
    for (const auto& [bus, text] : throttle) out += fmt::format("- `{}`: {}\n", bus, text);
    out += "\n";
  }
  return out;
}

// Markdown viewers render raw HTML: a host, GPU, process, label or file name
// from outside holding "<script>" must arrive as text. gpudoctor's own
// Markdown uses none of these three characters, so the whole document is
// escaped once (in a code span the entity shows as written; names there,
// bus ids, finding ids and paths, seldom hold one).
std::string EscapeHtmlInMarkdown(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

namespace {

std::string ReportToMarkdownUnescaped(const ReportContext& r) {
  const Lang l = r.lang;
  const DiagnosisInput& in = *r.input;
  const Diagnosis& d = *r.diagnosis;
  std::string out = fmt::format("# gpudoctor {}{}\n\n", r.command, in.hostname.empty() ? "" : " — " + in.hostname);
  out += fmt::format("**{}: {}**\n\n", Pick(l, "Verdict", "结论"), SeverityLabel(d.verdict, l));
  if (std::string recovery = NodeRecoveryText(d, l); !recovery.empty()) {
    out += fmt::format("**{}:** {}\n\n", Pick(l, "Recovery", "恢复操作"), recovery);
  }
  if (in.driver_version) out += fmt::format("- {}: {}\n", Pick(l, "Driver", "驱动"), *in.driver_version);
  if (in.cuda_driver_version) out += fmt::format("- CUDA: {}\n", CudaVersionText(*in.cuda_driver_version));
  if (in.window_from && in.window_to) {
    out += fmt::format("- {}: {} → {}\n", Pick(l, "Window", "时间窗口"), FormatRfc3339(*in.window_from), FormatRfc3339(*in.window_to));
  }
  if (r.interrupted) out += "- **" + InterruptionText(r) + "**\n";
  for (const auto& f : r.files) {
    out += f.ok ? fmt::format("- {}: `{}` ({})\n", Pick(l, "Input", "输入"), f.path, f.kind)
                : fmt::format("- {}: {}\n", Pick(l, "Skipped", "已跳过"), MarkdownCell(f.error));
  }
  out += "\n";
  if (!d.gpus.empty()) {
    out += fmt::format("| GPU | {} | {} | {} | {} |\n|---|---|---|---|---|\n", Pick(l, "Bus ID", "总线 ID"),
                       Pick(l, "Name", "型号"), Pick(l, "Verdict", "结论"), Pick(l, "Findings", "问题"));
    for (const auto& g : d.gpus) {
      std::string ids;
      for (const auto& id : g.finding_ids) ids += (ids.empty() ? "" : ", ") + ("`" + id + "`");
      out += fmt::format("| {} | `{}` | {} | {} | {} |\n", g.index, g.pci_bus_id, MarkdownCell(g.name), SeverityLabel(g.verdict, l), ids);
    }
    out += "\n";
  }
  out += fmt::format("## {} ({})\n\n", Pick(l, "Findings", "发现的问题"), d.findings.size());
  if (d.findings.empty()) out += std::string(Pick(l, "No problem found in the evidence checked.", "在已检查的证据中未发现问题。")) + "\n\n";
  for (const Finding& f : d.findings) out += FindingMarkdown(f, l);
  if (in.active) out += ActiveRunMarkdown(in, l);
  if (in.kernel && !in.kernel->events.empty()) {
    const std::vector<const KernelEvent*> listed = ListedEvents(in.kernel->events);
    out += fmt::format("## {} ({})\n\n| {} | {} | Xid | GPU | {} |\n|---|---|---|---|---|\n",
                       Pick(l, "Kernel events", "内核事件"), listed.size(), Pick(l, "Time", "时间"),
                       Pick(l, "Kind", "类型"), Pick(l, "Message", "消息"));
    for (const KernelEvent* ep : listed) {
      const KernelEvent& e = *ep;
      out += fmt::format("| {} | {} | {} | {} | {} |\n", e.time ? FormatRfc3339(*e.time) : "-", KernelEventKindName(e.kind),
                         e.code ? std::to_string(*e.code) : "", e.pci_bus_id, MarkdownCell(e.message));
    }
    out += "\n";
  }
  out += TimelineMarkdown(r);
  if (!d.not_checked.empty()) {
    out += fmt::format("## {} ({})\n\n", Pick(l, "Not checked", "未能检查"), d.not_checked.size());
    for (const auto& g : GroupNotChecked(d.not_checked, l)) {
      std::string rules;
      for (const auto& id : g.rules) rules += (rules.empty() ? "`" : ", `") + id + "`";
      out += fmt::format("- {}: {}\n", g.reason, rules);
    }
  }
  return out;
}

}  // namespace

std::string ReportToMarkdown(const ReportContext& r) {
  return EscapeHtmlInMarkdown(ReportToMarkdownUnescaped(r));
}

}  // namespace gpudoctor
