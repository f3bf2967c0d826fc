#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "core/json_dump.h"
#include "render/ansi.h"
#include "render/fleet_render.h"

namespace gpudoctor {
namespace {

Level LevelOfSeverity(Severity s) {
  switch (s) {
    case Severity::kCritical: return Level::kCritical;
    case Severity::kWarning: return Level::kWarning;
    case Severity::kInfo: return Level::kInfo;
    case Severity::kOk: return Level::kNormal;
  }
  return Level::kNone;
}

std::string XidText(const FleetGpuRow& r) {
  std::string out;
  for (const auto& [code, n] : r.xid_counts) {
    out += (out.empty() ? "" : " ") + fmt::format("{}x{}", code, static_cast<long>(n));
  }
  return out.empty() ? "-" : out;
}

std::string ThrottleText(const FleetGpuRow& r) {
  std::string out;
  for (const auto& [reason, s] : r.throttled_seconds) {
    if (s < 0.5) continue;
    out += (out.empty() ? "" : " ") + fmt::format("{} {:.0f}s", reason, s);
  }
  return out.empty() ? "-" : out;
}

std::string FindingsText(const std::vector<FleetFinding>& findings, Lang lang) {
  std::string out;
  for (const auto& f : findings) {
    out += (out.empty() ? "" : ", ") + f.id + (f.active_now ? "" : lang == Lang::kZh ? "(已结束)" : " (ended)");
  }
  return out.empty() ? "-" : out;
}

std::string FleetPad(const std::string& s, std::size_t width) {
  const std::size_t w = VisibleWidth(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

}  // namespace

int FleetExitCode(const FleetView& view) {
  if (view.critical > 0) return 2;
  if (view.warning > 0 || view.stale > 0) return 1;
  return 0;
}

std::string RenderFleetText(const FleetView& view, Lang lang, bool color) {
  const bool zh = lang == Lang::kZh;
  std::string out = fmt::format(
      fmt::runtime(zh ? "集群 {} 至 {}（{}，{} 次查询）\n" : "Fleet {} to {} ({}, {} queries)\n"),
      FormatRfc3339(view.from), FormatRfc3339(view.to), view.prometheus_url, view.queries);
  std::size_t gpus = view.gpus.size();
  out += fmt::format(fmt::runtime(zh ? "{} 个节点，{} 个 GPU：{} 个严重，{} 个警告，{} 个节点停止上报\n\n" : "{} nodes, {} GPUs: {} critical, {} warning, {} nodes stale\n\n"),
                     view.nodes.size(), gpus, view.critical, view.warning, view.stale);
  std::vector<std::vector<std::string>> table;
  table.push_back(zh ? std::vector<std::string>{"节点", "GPU", "当前", "窗口最差", "恢复操作",
                                                "发现", "Xid", "降频", "掉卡", "来源"}
                     : std::vector<std::string>{"NODE", "GPU", "NOW", "WORST", "ACTION", "FINDINGS",
                                                "XID", "THROTTLED", "LOST", "SOURCE"});
  for (const auto& r : view.gpus) {
    const std::string gpu = (r.gpu.empty() ? "" : r.gpu + " ") + r.pci_bus_id;
    const std::string now = r.verdict_now ? SeverityName(*r.verdict_now) : (zh ? "无数据" : "no data");
    table.push_back(
        {r.node, gpu,
         Colorize(now, r.verdict_now ? LevelOfSeverity(*r.verdict_now) : Level::kWarning, color),
         Colorize(SeverityName(r.worst), LevelOfSeverity(r.worst), color),
         r.recommended == RecoveryAction::kNone ? "-"
                                                : std::string(RecoveryActionName(r.recommended)),
         FindingsText(r.findings, lang), XidText(r), ThrottleText(r),
         r.lost_now         ? (zh ? "现在" : "now")
         : r.lost_in_window ? (zh ? "窗口内" : "in window")
                            : "-",
         FleetSourceName(r.source)});
  }
  std::vector<std::size_t> widths(table.front().size(), 0);
  for (const auto& row : table) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], VisibleWidth(row[i]));
  }
  for (const auto& row : table) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += i + 1 == row.size() ? row[i] : FleetPad(row[i], widths[i] + 2);
    }
    out += line + "\n";
  }
  bool node_lines = false;
  for (const auto& n : view.nodes) {
    if (n.findings.empty() && n.recommended == RecoveryAction::kNone) continue;
    if (!node_lines) out += zh ? "\n节点：\n" : "\nNodes:\n";
    node_lines = true;
    if (n.recommended != RecoveryAction::kNone) {
      out += "  " + n.node + "  " + (zh ? "恢复操作：" : "recovery: ") +
             Bold(RecoveryActionPhrase(n.recommended).In(lang), color) + " (" +
             std::string(RecoveryActionName(n.recommended)) + ")\n";
    }
    for (const auto& f : n.findings) {
      const std::string action = f.recommended == RecoveryAction::kNone
                                     ? ""
                                     : " [" + std::string(RecoveryActionName(f.recommended)) + "]";
      out += "  " + n.node + "  " +
             Colorize(SeverityName(f.severity), LevelOfSeverity(f.severity), color) + "  " + f.id +
             (f.title.In(lang).empty() ? "" : ": " + f.title.In(lang)) + action + "\n";
    }
  }
  for (const auto& note : view.notes) out += (zh ? "注：" : "Note: ") + note + "\n";
  return out;
}

std::string RenderFleetJson(const FleetView& view, Lang lang) {
  using nlohmann::json;
  auto findings = [&](const std::vector<FleetFinding>& list) {
    json a = json::array();
    for (const auto& f : list) {
      json j = {{"id", f.id},
                {"severity", SeverityName(f.severity)},
                {"active_now", f.active_now},
                {"recommended_action", RecoveryActionName(f.recommended)}};
      if (!f.title.In(lang).empty()) j["title"] = f.title.In(lang);
      a.push_back(std::move(j));
    }
    return a;
  };
  json doc = {{"schema", "gpudoctor.fleet/v1"},
              {"from", FormatRfc3339(view.from)},
              {"to", FormatRfc3339(view.to)},
              {"prometheus", view.prometheus_url},
              {"queries", view.queries},
              {"summary",
               {{"nodes", view.nodes.size()},
                {"gpus", view.gpus.size()},
                {"critical", view.critical},
                {"warning", view.warning},
                {"stale", view.stale}}},
              {"notes", view.notes}};
  json nodes = json::array();
  for (const auto& n : view.nodes) {
    json strip = json::array();
    for (const auto& s : n.strip) strip.push_back(s ? json(SeverityName(*s)) : json(nullptr));
    nodes.push_back(
        {{"node", n.node},
         {"names", n.names},
         {"source", FleetSourceName(n.source)},
         {"worst", SeverityName(n.worst)},
         {"recommended_action", RecoveryActionName(n.recommended)},
         {"stale", n.stale},
         {"last_sample_age_s", n.last_sample_age_s ? json(*n.last_sample_age_s) : json(nullptr)},
         {"findings", findings(n.findings)},
         {"strip", strip}});
  }
  doc["nodes"] = std::move(nodes);
  json gpus = json::array();
  for (const auto& r : view.gpus) {
    json xids = json::object();
    for (const auto& [code, c] : r.xid_counts) xids[std::to_string(code)] = c;
    json g = {{"node", r.node},
              {"pci_bus_id", r.pci_bus_id},
              {"gpu", r.gpu},
              {"uuid", r.uuid},
              {"model", r.model},
              {"source", FleetSourceName(r.source)},
              {"verdict_now", r.verdict_now ? json(SeverityName(*r.verdict_now)) : json(nullptr)},
              {"worst", SeverityName(r.worst)},
              {"recommended_action", RecoveryActionName(r.recommended)},
              {"findings", findings(r.findings)},
              {"xid_counts", xids},
              {"throttled_seconds", r.throttled_seconds},
              {"lost_now", r.lost_now},
              {"lost_in_window", r.lost_in_window}};
    if (r.max_temperature_c) g["max_temperature_c"] = *r.max_temperature_c;
    if (r.max_power_w) g["max_power_w"] = *r.max_power_w;
    gpus.push_back(std::move(g));
  }
  doc["gpus"] = std::move(gpus);
  return DumpJson(doc, 2) + "\n";
}

}  // namespace gpudoctor
