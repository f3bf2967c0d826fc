#include <fmt/format.h>

#include <map>

#include "core/time_format.h"
#include "render/fleet_render.h"
#include "render/html_escape.h"

namespace gpudoctor {
namespace {

const char* FleetCellClass(std::optional<Severity> s) {
  if (!s) return "nodata";
  switch (*s) {
    case Severity::kCritical: return "critical";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
    case Severity::kOk: return "ok";
  }
  return "nodata";
}

const char kFleetStyle[] = R"(<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}
.grid td.node{font-family:monospace;padding-right:1em;white-space:nowrap}
.cell{display:inline-block;width:2.2em;height:1.6em;line-height:1.6em;margin:1px;text-align:center;
 font-size:.8em;color:#fff;text-decoration:none;border-radius:3px}
.strip span{display:inline-block;width:6px;height:1.2em;margin:0}
.ok{background:#2e7d32}.info{background:#0277bd}.warning{background:#f9a825;color:#222}
.critical{background:#c62828}.nodata{background:#bbb}
.detail{border-top:1px solid #ddd;padding:.4em 0}.detail code{font-size:.9em}
.summary{font-size:1.05em}.note{color:#555;font-size:.9em}
</style>)";

std::string Anchor(std::size_t i) { return "g" + std::to_string(i); }

}  // namespace

std::string RenderFleetHtml(const FleetView& view, Lang lang) {
  const bool zh = lang == Lang::kZh;
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + std::string(zh ? "zh" : "en") +
                    "\"><head><meta charset=\"utf-8\"><title>gpudoctor fleet</title>" + kFleetStyle +
                    "</head><body>\n";
  out += fmt::format("<h1>{}</h1>\n<p>{} &ndash; {} &middot; {} &middot; {} {}</p>\n",
                     zh ? "gpudoctor 集群诊断" : "gpudoctor fleet", FormatRfc3339(view.from),
                     FormatRfc3339(view.to), HtmlEscape(view.prometheus_url), view.queries,
                     zh ? "次查询" : "queries");
  out += fmt::format(fmt::runtime(zh ? "<p class=\"summary\">{} 个节点，{} 个 GPU：<b>{}</b> 个严重，<b>{}</b> 个警告，<b>{}</b> 个节点停止上报</p>\n" : "<p class=\"summary\">{} nodes, {} GPUs: <b>{}</b> critical, <b>{}</b> warning, <b>{}</b> nodes stale</p>\n"),
                     view.nodes.size(), view.gpus.size(), view.critical, view.warning, view.stale);
  // GPU rows per node, in the node's own order (index, then bus id).
  std::map<std::string, std::vector<std::size_t>> by_node;
  for (std::size_t i = 0; i < view.gpus.size(); ++i) by_node[view.gpus[i].node].push_back(i);
  for (auto& [node, list] : by_node) {
    std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      const auto& x = view.gpus[a];
      const auto& y = view.gpus[b];
      if (x.gpu.size() != y.gpu.size()) return x.gpu.size() < y.gpu.size();
      return x.gpu != y.gpu ? x.gpu < y.gpu : x.pci_bus_id < y.pci_bus_id;
    });
  }
  out += std::string("<h2>") + (zh ? "节点 × GPU" : "Nodes x GPUs") +
         "</h2>\n<table class=\"grid\"><tr><th>" + (zh ? "节点" : "node") + "</th><th>GPU</th><th>" +
         (zh ? "窗口内最差（从旧到新）" : "worst over the window (oldest first)") + "</th></tr>\n";
  for (const auto& n : view.nodes) {
    out += "<tr><td class=\"node\"><span class=\"cell " + std::string(FleetCellClass(n.worst)) +
           "\" title=\"" + SeverityName(n.worst) + "\"></span> " + HtmlEscape(n.node) +
           (n.stale ? (zh ? " (停止上报)" : " (stale)") : "") + "</td><td>";
    for (std::size_t i : by_node[n.node]) {
      const FleetGpuRow& g = view.gpus[i];
      const std::optional<Severity> now = g.verdict_now ? g.verdict_now : std::optional(g.worst);
      out += "<a class=\"cell " + std::string(FleetCellClass(now)) + "\" href=\"#" + Anchor(i) +
             "\" title=\"" + HtmlEscape(g.node + " GPU " + g.gpu + " " + g.pci_bus_id + ": " +
                                        (now ? SeverityName(*now) : "no data")) +
             "\">" + HtmlEscape(g.gpu.empty() ? "?" : g.gpu) + "</a>";
    }
    out += "</td><td class=\"strip\">";
    for (const auto& s : n.strip) out += "<span class=\"" + std::string(FleetCellClass(s)) + "\"></span>";
    out += "</td></tr>\n";
  }
  out += "</table>\n";
  out += std::string("<h2>") + (zh ? "每个 GPU" : "Each GPU") + "</h2>\n";
  for (std::size_t i = 0; i < view.gpus.size(); ++i) {
    const FleetGpuRow& g = view.gpus[i];
    out += "<div class=\"detail\" id=\"" + Anchor(i) + "\"><b>" + HtmlEscape(g.node) + "</b> GPU " +
           HtmlEscape(g.gpu) + " <code>" + HtmlEscape(g.pci_bus_id) + "</code> " + HtmlEscape(g.model) +
           " &middot; " + (zh ? "当前 " : "now ") +
           (g.verdict_now ? SeverityName(*g.verdict_now) : "no data") + " &middot; " +
           (zh ? "最差 " : "worst ") + SeverityName(g.worst) + " &middot; " + FleetSourceName(g.source);
    if (g.recommended != RecoveryAction::kNone) {
      out += std::string(" &middot; ") + (zh ? "恢复操作 " : "action ") + "<b>" +
             HtmlEscape(RecoveryActionPhrase(g.recommended).In(lang)) + "</b>";
    }
    if (g.lost_now || g.lost_in_window) {
      out += std::string(" &middot; <b>") + (g.lost_now ? (zh ? "已掉卡" : "lost now") : (zh ? "窗口内掉卡" : "lost in the window")) + "</b>";
    }
    out += "<ul>";
    for (const auto& f : g.findings) {
      out += "<li><span class=\"cell " + std::string(FleetCellClass(f.severity)) + "\"></span> <code>" +
             HtmlEscape(f.id) + "</code>" + (f.title.In(lang).empty() ? "" : " " + HtmlEscape(f.title.In(lang))) +
             (f.active_now ? "" : (zh ? "（已结束）" : " (ended)")) + "</li>";
    }
    for (const auto& [code, c] : g.xid_counts) {
      out += fmt::format("<li>Xid {} &times; {}</li>", code, static_cast<long>(c));
    }
    for (const auto& [reason, s] : g.throttled_seconds) {
      if (s >= 0.5) out += fmt::format("<li>{} {} {:.0f} s</li>", zh ? "降频" : "throttled", HtmlEscape(reason), s);
    }
    out += "</ul></div>\n";
  }
  for (const auto& n : view.nodes) {
    for (const auto& f : n.findings) {
      out += "<p class=\"note\"><b>" + HtmlEscape(n.node) + "</b> " + SeverityName(f.severity) + " <code>" +
             HtmlEscape(f.id) + "</code> " + HtmlEscape(f.title.In(lang)) + "</p>\n";
    }
  }
  for (const auto& note : view.notes) out += "<p class=\"note\">" + HtmlEscape(note) + "</p>\n";
  out += "</body></html>\n";
  return out;
}

}  // namespace gpudoctor
