// Pieces of the HTML report (report_html.cpp), one file each: the style
// sheet, and the per-GPU section with its charts and min/avg/max table.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

#include "render/report.h"

namespace gpudoctor {

// The inline style sheet, screen and print.
const char* ReportHtmlCss();

// The x range every GPU's charts share: Unix seconds of the first and last
// timed reading (padded when they are the same instant). Without any timed
// reading, x is the reading's index and time_axis is false.
struct ChartRange {
  double from_s = 0;
  double to_s = 1;
  bool time_axis = true;
};
ChartRange ChartRangeFor(const DiagnosisInput& input);

// Points per chart series after downsampling, and markers per GPU.
inline constexpr std::size_t kMaxChartPoints = 1500;
inline constexpr std::size_t kMaxMarkersPerGpu = 200;

// <section class="gpu"> for one GPU: heading with its verdict, the five
// charts (utilisation, memory, temperature, power, clocks) and the
// min/avg/max table. `verdict` may be null (no verdict for this GPU).
std::string GpuSectionHtml(const ReportContext& report, const GpuSeries& gpu,
                           const GpuVerdict* verdict, const ChartRange& range);

// <section class="fabric"> of a recorded window: the RDMA ports' error-rate
// chart with downs, drops and flaps marked, and the table of state changes
// (ports, NVLink fabric); "" when the window recorded neither.
std::string FabricHtml(const ReportContext& report, const ChartRange& gpu_range);

// A severity badge: <span class="badge sev-warning">WARNING</span>.
std::string SeverityBadge(Severity severity, Lang lang);

// "<table class=...><thead><tr><th>...</th>...</tr></thead><tbody>": the
// headings are our own labels (not escaped).
std::string TableStart(const char* css_class, std::initializer_list<const char*> headings);

// Seconds since the Unix epoch.
double UnixSeconds(WallTime time);

}  // namespace gpudoctor
