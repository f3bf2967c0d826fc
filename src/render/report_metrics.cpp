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

std::map<std::string, MetricSummary> ReportMetrics(const ReportContext& report,
                                                   const GpuSeries& gpu) {
  if (report.summaries != nullptr) {
    if (auto it = report.summaries->find(gpu.pci_bus_id); it != report.summaries->end()) {
      return it->second;
    }
  }
  return SummarizeMetrics(gpu);
}

}  // namespace gpudoctor
