#include "render/report_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "render/events_json.h"

namespace gpudoctor {
namespace {

double Seconds(WallTime from, WallTime to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

std::vector<TimelineRow> TimelineRows(const ReportContext& r) {
  std::vector<TimelineRow> rows;
  if (r.timeline == nullptr) return rows;
  for (const auto& f : r.timeline->findings) {
    TimelineRow row;
    row.start = f.start;
    row.end = f.end;
    row.is_finding = true;
    row.what = f.finding_id;
    row.severity = f.severity;
    row.gpus = f.gpus;
    row.text = f.title.In(r.lang);
    row.recommended = f.recommended;
    if (f.recommended && *f.recommended != RecoveryAction::kNone) {
      const Text phrase = RecoveryActionPhrase(*f.recommended);
      row.recovery = r.lang == Lang::kZh ? "（恢复操作：" + phrase.zh + "）"
                                         : " (recovery: " + phrase.en + ")";
    }
    rows.push_back(std::move(row));
  }
  if (r.input != nullptr && r.input->kernel) {
    for (const auto& e : r.input->kernel->events) {
      if (!e.time) continue;
      TimelineRow row;
      row.start = *e.time;
      row.what = KernelEventKindName(e.kind);
      if (e.code) row.what += " " + std::to_string(*e.code);
      if (!e.pci_bus_id.empty()) row.gpus = {e.pci_bus_id};
      row.text = e.message;
      rows.push_back(std::move(row));
    }
  }
  for (const auto& c : r.timeline->changes) {
    TimelineRow row;
    row.start = c.at;
    row.change = &c;
    row.what = c.mark.empty() ? c.kind : c.kind + " " + c.mark;
    row.gpus = c.gpus;
    row.text = ChangeText(c, r.lang);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const TimelineRow& a, const TimelineRow& b) { return a.start < b.start; });
  return rows;
}

std::string FormatSpan(double seconds, Lang lang) {
  const bool zh = lang == Lang::kZh;
  const auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  const long long h = total / 3600, m = (total % 3600) / 60, s = total % 60;
  if (h > 0) return zh ? fmt::format("{} 小时 {:02} 分", h, m) : fmt::format("{} h {:02} min", h, m);
  if (m > 0) return zh ? fmt::format("{} 分 {} 秒", m, s) : fmt::format("{} min {} s", m, s);
  return zh ? fmt::format("{} 秒", s) : fmt::format("{} s", s);
}

std::string ChangeText(const StateChange& c, Lang lang) {
  std::string out = fmt::format("{}: {} → {}", c.subject, c.from, c.to);
  if (!c.down_s) return out;
  const std::string span = FormatSpan(*c.down_s, lang);
  if (lang == Lang::kZh) {
    return out + (c.mark == "flap" ? "（断开了 " : "（已断开 ") + span +
           (c.mark == "drop" ? "，掉线）" : "）");
  }
  return out + " (down for " + span + (c.mark == "drop" ? ": a drop)" : ")");
}

std::vector<std::pair<std::string, std::string>> ThrottleLines(const ReportContext& r) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (r.timeline == nullptr) return lines;
  for (const auto& t : r.timeline->throttled) {
    std::string text;
    for (const auto& [reason, secs] : t.seconds_by_reason) {
      if (secs <= 0) continue;
      const double share = t.sampled_seconds > 0 ? 100.0 * secs / t.sampled_seconds : 0;
      text += fmt::format("{}{} {} ({:.0f} %)", text.empty() ? "" : "; ", reason,
                          FormatSpan(secs, r.lang), share);
    }
    if (!text.empty()) lines.emplace_back(t.pci_bus_id, std::move(text));
  }
  return lines;
}

nlohmann::ordered_json TimelineToJson(const ReportContext& r) {
  using J = nlohmann::ordered_json;
  J out = J::array();
  for (const auto& row : TimelineRows(r)) {
    J j;
    if (row.is_finding) {
      j["type"] = "finding";
      j["id"] = row.what;
      j["severity"] = SeverityName(row.severity);
      j["gpus"] = row.gpus;
      j["title"] = row.text;
      j["recommended_action"] =
          row.recommended ? J(RecoveryActionName(*row.recommended)) : J(nullptr);
      j["start"] = FormatRfc3339(row.start);
      j["end"] = row.end ? J(FormatRfc3339(*row.end)) : J(nullptr);
      j["duration_s"] = row.end ? J(std::round(Seconds(row.start, *row.end) * 1000) / 1000)
                                : J(nullptr);
    } else if (row.change != nullptr) {
      const StateChange& c = *row.change;
      j["type"] = "state_change";
      j["time"] = FormatRfc3339(c.at);
      j["kind"] = c.kind;
      j["subject"] = c.subject;
      j["from"] = c.from;
      j["to"] = c.to;
      j["mark"] = c.mark.empty() ? J(nullptr) : J(c.mark);
      j["down_s"] = c.down_s ? J(std::round(*c.down_s * 1000) / 1000) : J(nullptr);
      j["gpus"] = row.gpus;
      j["message"] = row.text;
    } else {
      j["type"] = "event";
      j["time"] = FormatRfc3339(row.start);
      j["event"] = row.what;
      j["gpus"] = row.gpus;
      j["message"] = row.text;
    }
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json RdmaPortsToJson(const ReportContext& r) {
  using J = nlohmann::ordered_json;
  if (r.timeline == nullptr) return J(nullptr);
  J out = J::array();
  for (const RdmaPortSeries& p : r.timeline->rdma_ports) {
    J rates = J::array();
    for (const PortErrorRate& e : p.error_rates) {
      if (e.errors_per_s <= 0) continue;
      rates.push_back({{"time", FormatRfc3339(e.at)},
                       {"errors_per_s", std::round(e.errors_per_s * 1e6) / 1e6}});
    }
    J increases = J::object();
    for (const auto& [name, rise] : p.increases) increases[name] = rise;
    out.push_back({{"port", p.port},
                   {"link_layer", p.link_layer},
                   {"rate", p.rate_text},
                   {"gpus", p.gpus},
                   {"flaps", p.flaps},
                   {"drops", p.drops},
                   {"steps", p.error_rates.size()},
                   {"max_errors_per_s", std::round(p.max_errors_per_s * 1e6) / 1e6},
                   {"error_counters_increase", std::move(increases)},
                   {"error_rates", std::move(rates)}});
  }
  return out;
}

}  // namespace gpudoctor
