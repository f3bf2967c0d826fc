// The stress measurements in the HTML report: the tables of
// active_tables.h, and for each GPU that burned, its 100 ms NVML samples of
// power (with the limit), SM clock (with its maximum) and temperature over
// the burn as inline SVG charts (svg_chart.h), seconds since the burn began.
#include <fmt/format.h>

#include <algorithm>

#include "render/active_summary.h"
#include "render/active_tables.h"
#include "render/html_escape.h"
#include "render/report_active.h"
#include "render/report_html_parts.h"
#include "render/report_text.h"
#include "render/svg_chart.h"

namespace gpudoctor {
namespace {

std::string ActiveTableHtml(const ActiveTable& t) {
  std::string out = fmt::format(R"(<h3>{}</h3><table class="active-{}"><thead><tr>)", HtmlEscape(t.title), t.id);
  for (const std::string& h : t.headings) out += "<th>" + HtmlEscape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const ActiveCell& c = row[i];
      std::string cls = i == 0 ? "" : c.below ? "num below" : "num";
      out += cls.empty() ? "<td>" : fmt::format(R"(<td class="{}">)", cls);
      out += HtmlEscape(c.text) + (c.below ? " " + std::string(kActiveBelowMark) : "") + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
  if (!t.note.empty()) out += R"(<p class="note">)" + HtmlEscape(t.note) + "</p>";
  return out;
}

using BurnValue = std::optional<double> (*)(const GpuStatus&);

std::optional<double> BurnPowerDraw(const GpuStatus& g) { return g.power_draw_w; }
std::optional<double> BurnPowerLimit(const GpuStatus& g) { return g.power_limit_w; }
std::optional<double> BurnSmClock(const GpuStatus& g) {
  return g.clocks_sm_mhz ? std::optional<double>(static_cast<double>(*g.clocks_sm_mhz)) : std::nullopt;
}
std::optional<double> BurnSmClockMax(const GpuStatus& g) {
  return g.clocks_max_sm_mhz ? std::optional<double>(static_cast<double>(*g.clocks_max_sm_mhz)) : std::nullopt;
}
std::optional<double> BurnTemperature(const GpuStatus& g) {
  return g.temperature_c ? std::optional<double>(static_cast<double>(*g.temperature_c)) : std::nullopt;
}

// The GPU's readings during its burn, x in seconds since the burn began.
ChartSeries BurnSeries(const ActiveRun& run, const ActiveGpuResult& gpu, const GpuSeries& series,
                       std::string label, const char* css_class, BurnValue value) {
  ChartSeries out{std::move(label), css_class, {}};
  for (std::size_t i = 0; i < series.readings.size(); ++i) {
    auto at = ActiveReadingAt(run, series, i);
    if (!at || *at < *gpu.burn_started_s || *at > gpu.burn_ended_s.value_or(*at)) continue;
    const GpuStatus& r = series.readings[i];
    out.points.push_back(
        ChartPoint{*at - *gpu.burn_started_s, r.state == GpuState::kOk ? value(r) : std::nullopt});
  }
  return out;
}

std::string BurnChartsHtml(const DiagnosisInput& input, const ActiveGpuResult& gpu, Lang l) {
  const GpuSeries* series = FindGpu(input, gpu.pci_bus_id);
  if (series == nullptr || !gpu.burn_started_s) return "";
  const ActiveRun& run = *input.active;
  const double span_s = std::max(0.1, gpu.burn_ended_s.value_or(*gpu.burn_started_s) - *gpu.burn_started_s);
  auto spec = [&](const char* metric, const char* en, const char* zh, const char* unit) {
    ChartSpec s;
    s.metric = metric;
    s.title = fmt::format("GPU {}: {}", gpu.index, Pick(l, en, zh));
    s.unit = unit;
    s.x_from_s = 0;
    s.x_to_s = span_s;
    s.time_axis = false;
    s.y_min = 0;
    s.max_points = kMaxChartPoints;
    s.no_data_text = Pick(l, "no data", "无数据");
    return s;
  };
  ChartSpec power = spec("stress_power", "power over the burn (s)", "满功耗测试期间的功耗（秒）", "W");
  power.series.push_back(BurnSeries(run, gpu, *series, Pick(l, "draw", "功耗"), "s0", BurnPowerDraw));
  power.series.push_back(BurnSeries(run, gpu, *series, Pick(l, "limit", "上限"), "limit", BurnPowerLimit));
  ChartSpec clock = spec("stress_sm_clock", "SM clock over the burn (s)", "满功耗测试期间的 SM 频率（秒）", "MHz");
  clock.series.push_back(BurnSeries(run, gpu, *series, "SM", "s0", BurnSmClock));
  clock.series.push_back(BurnSeries(run, gpu, *series, Pick(l, "SM max", "SM 最高"), "limit", BurnSmClockMax));
  ChartSpec temp = spec("stress_temperature", "temperature over the burn (s)", "满功耗测试期间的温度（秒）", "°C");
  temp.series.push_back(BurnSeries(run, gpu, *series, Pick(l, "core", "核心"), "s0", BurnTemperature));
  return R"(<div class="charts">)" + RenderSvgChart(power) + RenderSvgChart(clock) + RenderSvgChart(temp) +
         "</div>";
}

}  // namespace

std::string ActiveRunHtml(const DiagnosisInput& input, Lang l) {
  std::string out = R"(<section class="active"><h2>)" + HtmlEscape(ActiveRunHeading(input, l)) + "</h2>";
  for (const ActiveTable& t : ActiveRunTables(input, l)) out += ActiveTableHtml(t);
  bool heading = false;
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    std::string charts = BurnChartsHtml(input, gpu, l);
    if (charts.empty()) continue;
    if (!heading) {
      out += "<h3>" + HtmlEscape(Pick(l, "The burn, NVML every 100 ms", "满功耗测试，NVML 每 100 ms 采样")) + "</h3>";
      heading = true;
    }
    out += charts;
  }
  return out + "</section>\n";
}

}  // namespace gpudoctor
