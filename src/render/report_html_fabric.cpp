// The fabric section of the HTML report of a recorded window: a chart of the
// RDMA ports' error rates (errors per second per port) with the ports' downs,
// drops and flaps marked, and the table of state changes (ports and the GPUs'
// NVLink fabric registration).
#include <fmt/format.h>

#include <algorithm>

#include "core/time_format.h"
#include "render/html_escape.h"
#include "render/report_html_parts.h"
#include "render/report_text.h"
#include "render/report_timeline.h"
#include "render/svg_chart.h"

namespace gpudoctor {
namespace report_html_fabric_detail {

constexpr const char* kPortSeriesClasses[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6"};
constexpr std::size_t kMaxChangeRows = 500;

// The chart's x range: the GPUs' charts' range widened to the port readings.
ChartRange RangeWith(const Timeline& t, ChartRange range) {
  std::optional<double> lo, hi;
  for (const RdmaPortSeries& p : t.rdma_ports) {
    for (const PortErrorRate& e : p.error_rates) {
      const double x = UnixSeconds(e.at);
      lo = std::min(lo.value_or(x), x);
      hi = std::max(hi.value_or(x), x);
    }
  }
  if (!lo) return range;
  if (!range.time_axis) return ChartRange{*lo, std::max(*hi, *lo + 1), true};
  return ChartRange{std::min(range.from_s, *lo), std::max(range.to_s, *hi), true};
}

ChartSpec ErrorRateChart(const Timeline& t, const ChartRange& range, Lang l) {
  ChartSpec s;
  s.metric = "rdma_error_rate";
  s.title = Pick(l, "RDMA port error rates", "RDMA 端口错误速率");
  s.unit = Pick(l, "errors/s", "错误/秒");
  s.x_from_s = range.from_s;
  s.x_to_s = range.to_s;
  s.y_min = 0;
  s.max_points = kMaxChartPoints;
  s.no_data_text = Pick(l, "no error counter rose", "错误计数器均未增长");
  std::size_t next_class = 0;
  for (const RdmaPortSeries& p : t.rdma_ports) {
    if (p.max_errors_per_s <= 0) continue;  // a flat zero line per healthy port is noise
    ChartSeries series{
        p.port, kPortSeriesClasses[next_class++ % std::size(kPortSeriesClasses)], {}};
    for (const PortErrorRate& e : p.error_rates) {
      series.points.push_back(ChartPoint{UnixSeconds(e.at), e.errors_per_s});
    }
    s.series.push_back(std::move(series));
  }
  for (const StateChange& c : t.changes) {
    if (c.kind != "rdma_port" || c.mark.empty()) continue;
    if (s.markers.size() >= kMaxMarkersPerGpu) break;
    s.markers.push_back(
        ChartMarker{UnixSeconds(c.at), c.mark + ": " + ChangeText(c, l), "port-" + c.mark});
  }
  return s;
}

std::string ChangesTable(const Timeline& t, Lang l) {
  std::string out =
      TableStart("changes", {Pick(l, "Time", "时间"), Pick(l, "What", "内容"),
                             Pick(l, "Mark", "标记"), "GPU", Pick(l, "Change", "变化")});
  std::size_t rows = 0;
  for (const StateChange& c : t.changes) {
    if (rows++ == kMaxChangeRows) break;
    std::string gpus;
    for (const auto& g : c.gpus)
      gpus += (gpus.empty() ? "" : " ") + ("<code>" + HtmlEscape(g) + "</code>");
    std::string mark = c.mark.empty() ? ""
                                      : fmt::format(R"(<span class="mark mark-{0}">{0}</span>)",
                                                    HtmlEscape(c.mark));
    out += fmt::format(
        R"(<tr data-kind="{}"><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>)",
        HtmlEscape(c.kind), HtmlEscape(FormatRfc3339(c.at)), HtmlEscape(c.kind), mark, gpus,
        HtmlEscape(ChangeText(c, l)));
  }
  out += "</tbody></table>";
  if (t.changes.size() > kMaxChangeRows) {
    out += fmt::format(R"(<p class="note">{} {}</p>)", t.changes.size() - kMaxChangeRows,
                       Pick(l, "more changes are left out (see --format json).",
                            "条更多变化未列出（见 --format json）。"));
  }
  return out;
}

}  // namespace report_html_fabric_detail

std::string FabricHtml(const ReportContext& r, const ChartRange& gpu_range) {
  using namespace report_html_fabric_detail;
  if (r.timeline == nullptr) return "";
  const Timeline& t = *r.timeline;
  if (t.rdma_ports.empty() && t.changes.empty()) return "";
  const Lang l = r.lang;
  std::string out =
      fmt::format(R"(<section class="fabric"><h2>{}</h2>)",
                  Pick(l, "Fabric: RDMA ports and NVLink", "互连：RDMA 端口与 NVLink"));
  if (!t.rdma_ports.empty()) {
    unsigned flaps = 0, drops = 0;
    for (const RdmaPortSeries& p : t.rdma_ports) {
      flaps += p.flaps;
      drops += p.drops;
    }
    out += fmt::format(
        R"(<p class="note">{}</p>)",
        fmt::format(
            fmt::runtime(Pick(l, "{} RDMA port(s) recorded; {} flap(s), {} drop(s) in the window.",
                              "记录了 {} 个 RDMA 端口；窗口内抖动 {} 次，掉线 {} 次。")),
            t.rdma_ports.size(), flaps, drops));
    out += R"(<div class="charts">)" +
           RenderSvgChart(ErrorRateChart(t, RangeWith(t, gpu_range), l)) + "</div>";
  }
  if (!t.changes.empty()) {
    out += fmt::format("<h3>{}</h3>", Pick(l, "State changes", "状态变化")) + ChangesTable(t, l);
  }
  return out + "</section>";
}

}  // namespace gpudoctor
