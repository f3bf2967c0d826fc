#include "render/report_html.h"

#include <fmt/format.h>

#include <ctime>

#include "core/gpu_status.h"
#include "core/time_format.h"
#include "render/html_escape.h"
#include "render/listed_events.h"
#include "render/report_active.h"
#include "render/report_html_parts.h"
#include "render/report_text.h"
#include "render/recovery_text.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kMaxEventRows = 500;

// Where a string is only ever ours (a fixed label) it goes in as is; every
// other string passes through E().
std::string E(std::string_view text) { return HtmlEscape(text); }

std::string LocalZoneText(WallTime at) {
  std::time_t t = std::chrono::system_clock::to_time_t(at);
  std::tm tm{};
  localtime_r(&t, &tm);
  long offset_min = tm.tm_gmtoff / 60;
  return fmt::format("UTC{}{:02}:{:02}", offset_min < 0 ? '-' : '+', std::abs(offset_min) / 60,
                     std::abs(offset_min) % 60);
}

std::string MetaRow(const char* label, const std::string& html_value) {
  return fmt::format("<dt>{}</dt><dd>{}</dd>", label, html_value);
}

std::string Header(const ReportContext& r, const ChartRange& range) {
  const Lang l = r.lang;
  const DiagnosisInput& in = *r.input;
  std::string title = "gpudoctor " + r.command + (in.hostname.empty() ? "" : " — " + in.hostname);
  std::string out =
      fmt::format(R"(<header><h1>{}</h1><p class="verdict">{}: {}</p><dl class="meta">)", E(title),
                  Pick(l, "Verdict", "结论"), SeverityBadge(r.diagnosis->verdict, l));
  if (std::string recovery = NodeRecoveryText(*r.diagnosis, l); !recovery.empty()) {
    out += MetaRow(Pick(l, "Recovery", "恢复操作"), "<strong>" + E(recovery) + "</strong>");
  }
  if (!in.hostname.empty()) out += MetaRow(Pick(l, "Host", "主机"), E(in.hostname));
  if (in.window_from && in.window_to) {
    out += MetaRow(Pick(l, "Window", "时间窗口"),
                   E(FormatRfc3339(*in.window_from) + " → " + FormatRfc3339(*in.window_to)));
  }
  if (r.interrupted) out += MetaRow(Pick(l, "Interrupted", "已中断"), E(InterruptionText(r)));
  out += MetaRow(Pick(l, "Generated", "生成时间"), E(FormatRfc3339(r.generated_at)));
  out += MetaRow(Pick(l, "Command", "命令"), "<code>gpudoctor " + E(r.command) + "</code>");
  if (in.driver_version) out += MetaRow(Pick(l, "Driver", "驱动"), E(*in.driver_version));
  if (in.cuda_driver_version) out += MetaRow("CUDA", E(CudaVersionText(*in.cuda_driver_version)));
  if (!in.kernel_release.empty()) out += MetaRow(Pick(l, "Kernel", "内核"), E(in.kernel_release));
  if (range.time_axis && !in.gpus.empty()) {
    out += MetaRow(Pick(l, "Chart times", "图表时间"),
                   E(fmt::format("{} ({})", Pick(l, "local time", "本地时间"),
                                 LocalZoneText(r.generated_at))));
  }
  for (const auto& f : r.files) {
    out += f.ok ? MetaRow(Pick(l, "Input", "输入"),
                          fmt::format("<code>{}</code> ({})", E(f.path), E(f.kind)))
                : MetaRow(Pick(l, "Skipped", "已跳过"), E(f.error));
  }
  out += "</dl>";
  if (!in.nvml_loaded && !in.nvml_error.empty()) {
    out += fmt::format(R"(<p class="note">{}: {}</p>)", Pick(l, "NVML unavailable", "NVML 不可用"),
                       E(in.nvml_error));
  }
  return out + "</header>";
}

std::string GpuSummaryTable(const Diagnosis& d, Lang l) {
  if (d.gpus.empty()) return "";
  std::string out = fmt::format("<h2>{}</h2>", Pick(l, "GPUs", "GPU 概览")) +
                    TableStart("gpus", {"GPU", Pick(l, "Bus ID", "总线 ID"),
                                        Pick(l, "Name", "型号"), Pick(l, "State", "状态"),
                                        Pick(l, "Verdict", "结论"), Pick(l, "Findings", "问题")});
  for (const GpuVerdict& g : d.gpus) {
    std::string ids;
    for (const auto& id : g.finding_ids)
      ids += (ids.empty() ? "" : ", ") + ("<code>" + E(id) + "</code>");
    out += fmt::format(
        R"(<tr><td><a href="#gpu-{}">{}</a></td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>)",
        g.index, g.index, E(g.pci_bus_id), E(g.name), E(g.state), SeverityBadge(g.verdict, l), ids);
  }
  return out + "</tbody></table>";
}

std::string SourceText(const SourceRef& s) {
  return s.line > 0 ? fmt::format("{}:{}", s.file, s.line) : s.file;
}

std::string HtmlEvidenceItem(const EvidenceItem& e, Lang l) {
  std::string out = "<li>";
  if (e.time) out += fmt::format("<time>{}</time> ", E(FormatRfc3339(*e.time)));
  out += E(e.text.In(l));
  if (e.source && !e.source->file.empty())
    out += fmt::format(R"( <span class="src">({})</span>)", E(SourceText(*e.source)));
  return out + "</li>";
}

std::string FindingHtml(const Finding& f, Lang l) {
  std::string out = fmt::format(
      R"(<article class="finding sev-{}" data-finding="{}"><h3>{} {}</h3><p class="src"><code>{}</code>)",
      SeverityName(f.severity), E(f.id), SeverityBadge(f.severity, l), E(f.title.In(l)), E(f.id));
  if (!f.gpus.empty()) {
    out += " · GPU";
    for (const auto& g : f.gpus) out += " <code>" + E(g) + "</code>";
  }
  if (!f.xids.empty()) {
    out += " · Xid";
    for (int x : f.xids) out += fmt::format(" {}", x);
  }
  out += fmt::format("</p><p>{}</p>", E(f.explanation.In(l)));
  if (std::string recovery = FindingRecoveryText(f, l); !recovery.empty()) {
    out += fmt::format(R"(<p class="recovery" data-action="{}"><strong>{}:</strong> {}</p>)",
                       RecoveryActionName(*f.recommended), Pick(l, "Recovery", "恢复操作"),
                       E(recovery));
  }
  if (!f.per_gpu.empty()) {
    // Folded across GPUs: one closed <details> per GPU with its evidence.
    out += fmt::format(R"(<h4>{}</h4><div class="per-gpu">)", Pick(l, "Evidence, per GPU", "各 GPU 的证据"));
    for (const GpuShare& share : f.per_gpu) {
      out += fmt::format(R"(<details data-gpu="{}"><summary>{}: {}</summary><ul class="evidence">)",
                         E(share.gpu), E(share.label), E(share.title.In(l)));
      for (const auto& e : share.evidence) out += HtmlEvidenceItem(e, l);
      out += "</ul></details>";
    }
    out += "</div>";
  } else if (!f.evidence.empty()) {
    out += fmt::format(R"(<h4>{}</h4><ul class="evidence">)", Pick(l, "Evidence", "证据"));
    for (const auto& e : f.evidence) out += HtmlEvidenceItem(e, l);
    out += "</ul>";
  }
  if (!f.actions.empty()) {
    out += fmt::format(R"(<h4>{}</h4><ol class="actions">)", Pick(l, "What to do", "处理建议"));
    for (const auto& a : f.actions) {
      out += "<li>" + E(a.text.In(l));
      if (!a.command.empty()) out += "<pre><code>" + E(a.command) + "</code></pre>";
      out += "</li>";
    }
    out += "</ol>";
  }
  return out + "</article>";
}

std::string Findings(const Diagnosis& d, Lang l) {
  std::string out = fmt::format(R"(<section class="findings"><h2>{} ({})</h2>)",
                                Pick(l, "Findings", "发现的问题"), d.findings.size());
  if (d.findings.empty()) {
    out += fmt::format("<p>{}</p>", Pick(l, "No problem found in the evidence checked.",
                                         "在已检查的证据中未发现问题。"));
  }
  for (const Finding& f : d.findings) out += FindingHtml(f, l);
  return out + "</section>";
}

std::string Events(const DiagnosisInput& in, Lang l) {
  if (!in.kernel || in.kernel->events.empty()) return "";
  const std::vector<const KernelEvent*> events = ListedEvents(in.kernel->events);
  std::string out = fmt::format(R"(<section class="events"><h2>{} ({})</h2>)",
                                Pick(l, "Kernel events", "内核事件"), events.size()) +
                    TableStart("events", {Pick(l, "Time", "时间"), Pick(l, "Kind", "类型"),
                                          Pick(l, "Code", "代码"), "GPU",
                                          Pick(l, "Message", "消息"), Pick(l, "Source", "来源")});
  std::size_t start = events.size() > kMaxEventRows ? events.size() - kMaxEventRows : 0;
  for (std::size_t i = start; i < events.size(); ++i) {
    const KernelEvent& e = *events[i];
    std::string message = E(e.message);
    if (e.count > 1) message += fmt::format(" <span class=\"src\">(x{})</span>", e.count);
    out += fmt::format(
        R"(<tr><td>{}</td><td>{}</td><td class="num">{}</td><td><code>{}</code></td><td class="msg">{}</td><td class="src">{}</td></tr>)",
        e.time ? E(FormatRfc3339(*e.time)) : "-", KernelEventKindName(e.kind),
        e.code ? std::to_string(*e.code) : "", E(e.pci_bus_id), message, E(SourceText(e.source)));
  }
  out += "</tbody></table>";
  if (start > 0) {
    out += fmt::format(
        R"(<p class="note">{}</p>)",
        fmt::format(fmt::runtime(Pick(l, "{} earlier events are left out (see --format json).",
                                      "另有 {} 条更早的事件未列出（见 --format json）。")),
                    start));
  }
  return out + "</section>";
}

std::string TimelineHtml(const Timeline& t, Lang l) {
  std::string out =
      fmt::format(R"(<section class="timeline"><h2>{}</h2>)", Pick(l, "Timeline", "时间线"));
  if (!t.findings.empty()) {
    out += TableStart("intervals", {Pick(l, "Finding", "问题"), Pick(l, "Severity", "级别"), "GPU",
                                    Pick(l, "From", "开始"), Pick(l, "To", "结束"),
                                    Pick(l, "Recovery", "恢复操作")});
    for (const FindingInterval& f : t.findings) {
      std::string gpus;
      for (const auto& g : f.gpus) {
        if (!gpus.empty()) gpus += ' ';
        gpus.append("<code>").append(E(g)).append("</code>");
      }
      out += fmt::format(
          R"(<tr><td>{} <code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>)",
          E(f.title.In(l)), E(f.finding_id), SeverityBadge(f.severity, l), gpus,
          E(FormatRfc3339(f.start)),
          f.end ? E(FormatRfc3339(*f.end)) : Pick(l, "still active", "仍在持续"),
          f.recommended ? E(RecoveryActionPhrase(*f.recommended).In(l)) : std::string("-"));
    }
    out += "</tbody></table>";
  }
  if (!t.throttled.empty()) {
    out += fmt::format("<h3>{}</h3>", Pick(l, "Time throttled", "降频时长")) +
           TableStart("throttle", {"GPU", Pick(l, "Reason", "原因"), Pick(l, "Seconds", "秒"),
                                   Pick(l, "Share of sampled time", "占采样时间")});
    for (const ThrottleTime& g : t.throttled) {
      for (const auto& [reason, seconds] : g.seconds_by_reason) {
        std::string share = g.sampled_seconds > 0
                                ? fmt::format("{:.1f} %", 100.0 * seconds / g.sampled_seconds)
                                : "-";
        out += fmt::format(
            R"(<tr><td><code>{}</code></td><td>{}</td><td class="num">{:.0f}</td><td class="num">{}</td></tr>)",
            E(g.pci_bus_id), E(reason), seconds, share);
      }
    }
    out += "</tbody></table>";
  }
  return out + "</section>";
}

std::string NotCheckedHtml(const Diagnosis& d, Lang l) {
  if (d.not_checked.empty()) return "";
  std::string out = fmt::format(R"(<section class="not-checked"><h2>{} ({})</h2><ul>)",
                                Pick(l, "Not checked", "未能检查"), d.not_checked.size());
  for (const auto& g : GroupNotChecked(d.not_checked, l)) {
    std::string rules;
    for (const auto& id : g.rules)
      rules += (rules.empty() ? "" : ", ") + ("<code>" + E(id) + "</code>");
    out += fmt::format("<li>{}: {}</li>", E(g.reason), rules);
  }
  return out + "</ul></section>";
}

const GpuVerdict* VerdictFor(const Diagnosis& d, const std::string& key) {
  for (const auto& g : d.gpus) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

}  // namespace

std::string ReportToHtml(const ReportContext& r) {
  const Lang l = r.lang;
  const DiagnosisInput& in = *r.input;
  const Diagnosis& d = *r.diagnosis;
  ChartRange range = ChartRangeFor(in);
  std::string title = "gpudoctor " + r.command + (in.hostname.empty() ? "" : " — " + in.hostname);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{}</title><style>{}</style></head>\n<body>",
      Pick(l, "en", "zh-CN"), E(title), ReportHtmlCss());
  out += Header(r, range);
  out += GpuSummaryTable(d, l);
  for (const GpuSeries& g : in.gpus)
    out += GpuSectionHtml(r, g, VerdictFor(d, g.key), range);
  out += Findings(d, l);
  if (in.active) out += ActiveRunHtml(in, l);
  out += Events(in, l);
  if (r.timeline) out += TimelineHtml(*r.timeline, l);
  out += FabricHtml(r, range);
  out += NotCheckedHtml(d, l);
  out += fmt::format(R"(<footer class="note">{} gpudoctor {}</footer>)",
                     Pick(l, "Generated by", "生成工具："), E(FormatRfc3339(r.generated_at)));
  return out + "</body></html>\n";
}

}  // namespace gpudoctor
