#include <algorithm>
#include <cmath>

#include "core/gpu_fields.h"
#include "render/report.h"

namespace gpudoctor {

std::map<std::string, MetricSummary> SummarizeMetrics(const GpuSeries& gpu) {
  std::map<std::string, MetricSummary> out;
  for (const GpuField& field : ScalarGpuFields()) {
    if (std::holds_alternative<BoolMember>(field.member) ||
        std::holds_alternative<TextMember>(field.member)) {
      continue;
    }
    MetricSummary s;
    double sum = 0;
    for (const GpuStatus& r : gpu.readings) {
      auto v = GetNumber(r, field);
      if (!v || !std::isfinite(*v)) continue;
      if (s.count == 0 || *v < s.min) s.min = *v;
      if (s.count == 0 || *v > s.max) s.max = *v;
      sum += *v;
      ++s.count;
    }
    if (s.count == 0) continue;
    s.avg = sum / static_cast<double>(s.count);
    out.emplace(std::string(field.name), s);
  }
  return out;
}

namespace {

struct Accumulator {
  std::size_t count = 0;
  double sum = 0, min = 0, max = 0;
  void Add(double v) {
    if (count == 0 || v < min) min = v;
    if (count == 0 || v > max) max = v;
    sum += v;
    ++count;
  }
  std::optional<MetricSummary> Summary() const {
    if (count == 0) return std::nullopt;
    return MetricSummary{count, min, sum / static_cast<double>(count), max};
  }
};

}  // namespace

std::vector<ProcessSummary> SummarizeProcesses(const GpuSeries& gpu, std::size_t limit) {
  struct Seen {
    ProcessSummary summary;
    Accumulator sm, memory;
  };
  std::map<std::uint32_t, Seen> by_pid;
  for (const GpuStatus& r : gpu.readings) {
    if (!r.processes) continue;
    for (const GpuProcess& p : *r.processes) {
      Seen& seen = by_pid[p.pid];
      ProcessSummary& s = seen.summary;
      s.pid = p.pid;
      if (!p.name.empty()) s.name = p.name;
      if (!p.user.empty()) s.user = p.user;
      if (!p.container_id.empty()) s.container_id = p.container_id;
      if (!p.pod_uid.empty()) s.pod_uid = p.pod_uid;
      ++s.readings;
      if (p.sm_util_percent) seen.sm.Add(static_cast<double>(*p.sm_util_percent));
      if (p.memory_util_percent) seen.memory.Add(static_cast<double>(*p.memory_util_percent));
      if (p.used_memory_bytes) {
        const double used = static_cast<double>(*p.used_memory_bytes);
        s.used_memory_max_bytes = std::max(s.used_memory_max_bytes.value_or(used), used);
      }
    }
  }
  std::vector<ProcessSummary> out;
  for (auto& [pid, seen] : by_pid) {
    seen.summary.sm_util_percent = seen.sm.Summary();
    seen.summary.memory_util_percent = seen.memory.Summary();
    out.push_back(std::move(seen.summary));
  }
  std::stable_sort(out.begin(), out.end(), [](const ProcessSummary& a, const ProcessSummary& b) {
    const double sa = a.sm_util_percent ? a.sm_util_percent->avg : -1;
    const double sb = b.sm_util_percent ? b.sm_util_percent->avg : -1;
    if (sa != sb) return sa > sb;
    return a.used_memory_max_bytes.value_or(0) > b.used_memory_max_bytes.value_or(0);
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::map<std::string, MetricSummary> ReportMetrics(const ReportContext& report,
                                                   const GpuSeries& gpu) {
  if (report.summaries != nullptr) {
    if (auto it = report.summaries->find(gpu.key); it != report.summaries->end()) {
      return it->second;
    }
  }
  return SummarizeMetrics(gpu);
}

}  // namespace gpudoctor
