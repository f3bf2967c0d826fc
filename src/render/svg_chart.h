// A line chart as inline SVG, built on the server side so that the HTML
// report needs no script, works with JavaScript disabled and prints. Pure:
// plain data in, markup out. Every string given here (titles, labels, marker
// tooltips) is plain text and is escaped by the builder.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// One sample: seconds on the x axis (Unix time when ChartSpec::time_axis,
// else any number) and a value, nullopt for a gap in the line.
struct ChartPoint {
  double x_s = 0;
  std::optional<double> value;
};

struct ChartSeries {
  std::string label;      // legend text, "core", "HBM"
  std::string css_class;  // "s0", "s1", "limit": the stroke comes from the page's CSS
  std::vector<ChartPoint> points;
};

// A vertical line at one time (a kernel event, a finding's evidence), with a
// tooltip (<title>).
struct ChartMarker {
  double x_s = 0;
  std::string tooltip;
  std::string css_class;  // "event", "finding"
};

// A shaded stretch of time (a finding active from..to), with a tooltip.
struct ChartBand {
  double from_s = 0;
  double to_s = 0;
  std::string tooltip;
  std::string css_class;  // "band-warning", "band-critical", ...
};

// A horizontal line at a value (a slowdown temperature), labelled.
struct ChartThreshold {
  double value = 0;
  std::string label;
};

struct ChartSpec {
  std::string metric;  // data-metric attribute: "temperature"
  std::string title;   // "Temperature"
  std::string unit;    // y axis unit label: "°C"
  double x_from_s = 0;
  double x_to_s = 0;
  bool time_axis = true;        // x labels as local clock times; else plain numbers
  std::optional<double> y_min;  // fixed ends (0..100 for percentages); else from the data
  std::optional<double> y_max;
  std::vector<ChartSeries> series;
  std::vector<ChartMarker> markers;
  std::vector<ChartBand> bands;
  std::vector<ChartThreshold> thresholds;
  std::size_t max_points = 1500;  // per series, after min/max downsampling
  std::string no_data_text = "no data";
};

// True when some series has at least one finite value.
bool ChartHasData(const ChartSpec& spec);

// A <figure class="chart-box" data-metric=...> holding an <svg class="chart">
// with axes, grid, the series as polylines (a gap breaks the line; a lone
// point is a dot), bands behind and markers and thresholds on top, and a
// legend. Without data: a <figure> with class "no-data" and no <svg>.
// Markers and bands outside [x_from_s, x_to_s] are clipped or left out.
std::string RenderSvgChart(const ChartSpec& spec);

// At most about `max_points` points: the series is cut into max_points / 2
// buckets in order, and each bucket keeps its lowest and highest value (in
// time order) so spikes survive; a bucket with no value keeps one gap.
// Shorter series come back unchanged.
std::vector<ChartPoint> DownsampleMinMax(const std::vector<ChartPoint>& points,
                                         std::size_t max_points);

// Round tick values covering [lo, hi] with about `target` steps of 1, 2 or
// 5 times a power of ten. Ascending; the first <= lo and the last >= hi.
std::vector<double> NiceTicks(double lo, double hi, int target);

// Tick times (Unix seconds) for [from_s, to_s]: a round step (1 s ... 1 day)
// giving about `target` ticks, aligned in local time.
std::vector<double> TimeTicks(double from_s, double to_s, int target);

// A local clock label for a tick: "14:05:30" (or "14:05" for minute steps);
// with the date, "11-29 14:05", when the span exceeds a day.
std::string TimeTickLabel(double time_s, double span_s);

}  // namespace gpudoctor
