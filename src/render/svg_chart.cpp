#include "render/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include "render/html_escape.h"

namespace gpudoctor {
namespace {

// The drawing in viewBox units; the page scales it to its width.
constexpr double kWidth = 800;
constexpr double kHeight = 240;
constexpr double kLeft = 56;
constexpr double kRight = kWidth - 14;
constexpr double kTop = 10;
constexpr double kBottom = kHeight - 26;

struct Scale {
  double x_from, x_to, y_lo, y_hi;
  double X(double x) const {
    double span = x_to - x_from;
    return span > 0 ? kLeft + (x - x_from) / span * (kRight - kLeft) : (kLeft + kRight) / 2;
  }
  double Y(double y) const {
    double span = y_hi - y_lo;
    return span > 0 ? kBottom - (y - y_lo) / span * (kBottom - kTop) : (kTop + kBottom) / 2;
  }
};

bool Finite(const std::optional<double>& v) { return v && std::isfinite(*v); }

std::string TickText(double value, double step) {
  if (step >= 1 || value == 0) return fmt::format("{:.0f}", value);
  return fmt::format("{:g}", value);
}

// The y range: the fixed ends where given, widened to the data and the
// threshold lines, then rounded out to ticks.
std::vector<double> YTicks(const ChartSpec& spec) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& s : spec.series) {
    for (const auto& p : s.points) {
      if (!Finite(p.value)) continue;
      lo = std::min(lo, *p.value);
      hi = std::max(hi, *p.value);
    }
  }
  for (const auto& t : spec.thresholds) {
    lo = std::min(lo, t.value);
    hi = std::max(hi, t.value);
  }
  if (spec.y_min) lo = std::min(lo, *spec.y_min);
  if (spec.y_max) hi = std::max(hi, *spec.y_max);
  return NiceTicks(lo, hi, 5);
}

std::string Axes(const ChartSpec& spec, const Scale& sc, const std::vector<double>& y_ticks) {
  std::string out =
      fmt::format(R"(<rect class="plot" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"/>)",
                  kLeft, kTop, kRight - kLeft, kBottom - kTop);
  double y_step = y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 1;
  for (double v : y_ticks) {
    double y = sc.Y(v);
    out += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)",
                       kLeft, y, kRight, y);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)",
                       kLeft - 5, y + 4, TickText(v, y_step));
  }
  double span = spec.x_to_s - spec.x_from_s;
  std::vector<double> x_ticks = spec.time_axis ? TimeTicks(spec.x_from_s, spec.x_to_s, 6)
                                               : NiceTicks(spec.x_from_s, spec.x_to_s, 6);
  for (double t : x_ticks) {
    if (t < spec.x_from_s || t > spec.x_to_s) continue;
    double x = sc.X(t);
    std::string label = spec.time_axis ? TimeTickLabel(t, span) : fmt::format("{:g}", t);
    out += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", x,
                       kTop, x, kBottom);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)",
                       x, kBottom + 16, HtmlEscape(label));
  }
  out += fmt::format(
      R"svg(<text class="axis-unit" x="{:.1f}" y="{:.1f}" transform="rotate(-90 {:.1f} {:.1f})" text-anchor="middle">{}</text>)svg",
      14.0, (kTop + kBottom) / 2, 14.0, (kTop + kBottom) / 2, HtmlEscape(spec.unit));
  return out;
}

std::string Bands(const ChartSpec& spec, const Scale& sc) {
  std::string out;
  for (const auto& b : spec.bands) {
    double from = std::max(b.from_s, spec.x_from_s);
    double to = std::min(b.to_s, spec.x_to_s);
    if (to < from) continue;
    double x = sc.X(from);
    double w = std::max(sc.X(to) - x, 2.0);  // a band of one instant stays visible
    out += fmt::format(
        R"(<rect class="band {}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"><title>{}</title></rect>)",
        HtmlEscape(b.css_class), x, kTop, w, kBottom - kTop, HtmlEscape(b.tooltip));
  }
  return out;
}

std::string SeriesLines(const ChartSeries& s, const Scale& sc, std::size_t max_points) {
  std::vector<ChartPoint> points = DownsampleMinMax(s.points, max_points);
  std::string out;
  std::string cls = HtmlEscape(s.css_class);
  std::vector<std::pair<double, double>> run;
  auto flush = [&] {
    if (run.size() == 1) {
      out += fmt::format(R"(<circle class="dot {}" cx="{:.1f}" cy="{:.1f}" r="3"/>)", cls,
                         run[0].first, run[0].second);
    } else if (run.size() > 1) {
      out += fmt::format(R"(<polyline class="line {}" points=")", cls);
      for (std::size_t i = 0; i < run.size(); ++i) {
        out += fmt::format("{}{:.1f},{:.1f}", i == 0 ? "" : " ", run[i].first, run[i].second);
      }
      out += "\"/>";
    }
    run.clear();
  };
  for (const auto& p : points) {
    if (!Finite(p.value)) {
      flush();
      continue;
    }
    run.emplace_back(sc.X(p.x_s), sc.Y(*p.value));
  }
  flush();
  return out;
}

std::string Overlays(const ChartSpec& spec, const Scale& sc) {
  std::string out;
  for (const auto& t : spec.thresholds) {
    double y = sc.Y(t.value);
    out +=
        fmt::format(R"(<line class="threshold" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)",
                    kLeft, y, kRight, y);
    out += fmt::format(
        R"(<text class="threshold-label" x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)",
        kRight - 4, y - 4, HtmlEscape(t.label));
  }
  for (const auto& m : spec.markers) {
    if (m.x_s < spec.x_from_s || m.x_s > spec.x_to_s) continue;
    double x = sc.X(m.x_s);
    out += fmt::format(
        R"(<g class="marker {}"><title>{}</title><line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)"
        R"(<rect class="hit" x="{:.1f}" y="{:.1f}" width="8" height="{:.1f}"/></g>)",
        HtmlEscape(m.css_class), HtmlEscape(m.tooltip), x, kTop, x, kBottom, x - 4, kTop,
        kBottom - kTop);
  }
  return out;
}

std::string Legend(const ChartSpec& spec) {
  std::string out = R"(<span class="legend">)";
  for (const auto& s : spec.series) {
    out += fmt::format(R"(<span class="key"><span class="swatch {}"></span>{}</span>)",
                       HtmlEscape(s.css_class), HtmlEscape(s.label));
  }
  return out + "</span>";
}

}  // namespace

bool ChartHasData(const ChartSpec& spec) {
  return std::any_of(spec.series.begin(), spec.series.end(), [](const ChartSeries& s) {
    return std::any_of(s.points.begin(), s.points.end(),
                       [](const ChartPoint& p) { return Finite(p.value); });
  });
}

std::string RenderSvgChart(const ChartSpec& spec) {
  std::string caption = fmt::format(
      R"(<figcaption><span class="chart-title">{}</span> <span class="unit">({})</span>)",
      HtmlEscape(spec.title), HtmlEscape(spec.unit));
  if (!ChartHasData(spec)) {
    return fmt::format(
        R"(<figure class="chart-box no-data" data-metric="{}">{}</figcaption><p class="no-data-text">{}</p></figure>)",
        HtmlEscape(spec.metric), caption, HtmlEscape(spec.no_data_text));
  }
  std::vector<double> y_ticks = YTicks(spec);
  Scale sc{spec.x_from_s, spec.x_to_s, y_ticks.front(), y_ticks.back()};
  std::string out = fmt::format(R"(<figure class="chart-box" data-metric="{}">{}{}</figcaption>)",
                                HtmlEscape(spec.metric), caption, Legend(spec));
  out += fmt::format(
      R"(<svg class="chart" data-metric="{}" viewBox="0 0 {:.0f} {:.0f}" role="img" aria-label="{}">)",
      HtmlEscape(spec.metric), kWidth, kHeight, HtmlEscape(spec.title));
  out += Axes(spec, sc, y_ticks);
  out += Bands(spec, sc);
  for (const auto& s : spec.series) out += SeriesLines(s, sc, spec.max_points);
  out += Overlays(spec, sc);
  return out + "</svg></figure>";
}

std::vector<ChartPoint> DownsampleMinMax(const std::vector<ChartPoint>& points,
                                         std::size_t max_points) {
  if (points.size() <= max_points || max_points < 2) return points;
  const std::size_t buckets = max_points / 2;
  std::vector<ChartPoint> out;
  out.reserve(buckets * 2);
  for (std::size_t b = 0; b < buckets; ++b) {
    std::size_t begin = points.size() * b / buckets;
    std::size_t end = points.size() * (b + 1) / buckets;
    std::optional<std::size_t> lo, hi;
    for (std::size_t i = begin; i < end; ++i) {
      if (!Finite(points[i].value)) continue;
      if (!lo || *points[i].value < *points[*lo].value) lo = i;
      if (!hi || *points[i].value > *points[*hi].value) hi = i;
    }
    if (!lo) {
      out.push_back(ChartPoint{points[begin].x_s, std::nullopt});
      continue;
    }
    std::size_t first = std::min(*lo, *hi), second = std::max(*lo, *hi);
    out.push_back(points[first]);
    if (second != first) out.push_back(points[second]);
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (hi <= lo) {
    double pad = std::max(std::abs(lo) * 0.1, 1.0);
    lo -= pad;
    hi += pad;
  }
  double raw = (hi - lo) / std::max(target, 1);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  double first = std::floor(lo / step) * step;
  double last = std::ceil(hi / step) * step;
  std::vector<double> ticks;
  for (int i = 0; first + i * step <= last + step * 1e-9; ++i) {
    double v = first + i * step;
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  return ticks;
}

std::vector<double> TimeTicks(double from_s, double to_s, int target) {
  static constexpr double kSteps[] = {1,     2,     5,     10,    15,     30,    60,
                                      120,   300,   600,   900,   1800,   3600,  7200,
                                      10800, 21600, 43200, 86400, 172800, 604800};
  double span = std::max(to_s - from_s, 1.0);
  double step = kSteps[std::size(kSteps) - 1];
  for (double s : kSteps) {
    if (span / s <= target) {
      step = s;
      break;
    }
  }
  // Align to round local times: shift by the zone's offset, round, shift back.
  std::time_t t = static_cast<std::time_t>(from_s);
  std::tm tm{};
  localtime_r(&t, &tm);
  double offset = static_cast<double>(tm.tm_gmtoff);
  double first = std::ceil((from_s + offset) / step) * step - offset;
  std::vector<double> ticks;
  for (double v = first; v <= to_s + 1e-6 && ticks.size() < 64; v += step) ticks.push_back(v);
  return ticks;
}

std::string TimeTickLabel(double time_s, double span_s) {
  std::time_t t = static_cast<std::time_t>(std::floor(time_s));
  std::tm tm{};
  localtime_r(&t, &tm);
  const char* format = span_s > 86400 ? "%m-%d %H:%M" : span_s > 1800 ? "%H:%M" : "%H:%M:%S";
  char buf[32];
  std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace gpudoctor
