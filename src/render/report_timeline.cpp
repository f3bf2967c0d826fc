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
      j["start"] = FormatRfc3339(row.start);
      j["end"] = row.end ? J(FormatRfc3339(*row.end)) : J(nullptr);
      j["duration_s"] = row.end ? J(std::round(Seconds(row.start, *row.end) * 1000) / 1000)
                                : J(nullptr);
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

}  // namespace gpudoctor
