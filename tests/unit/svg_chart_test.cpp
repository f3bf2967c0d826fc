#include "render/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>

#include "render/html_escape.h"
#include "support/text_count.h"

namespace gpudoctor {
namespace {

using test::CountOf;

ChartSpec Spec() {
  ChartSpec s;
  s.metric = "temperature";
  s.title = "Temperature";
  s.unit = "°C";
  s.x_from_s = 1767225600;  // 2026-01-01T00:00:00Z
  s.x_to_s = s.x_from_s + 60;
  return s;
}

TEST(SvgChartEscape, HostileTextIsInert) {
  EXPECT_EQ(HtmlEscape(R"(<script>alert("x")</script> & 'y')"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
  EXPECT_EQ(HtmlEscape("a\x01z\x7f"), "a\xEF\xBF\xBDz\xEF\xBF\xBD");
  EXPECT_EQ(HtmlEscape("tab\tnew\nline, 温度"), "tab\tnew\nline, 温度");
  EXPECT_EQ(HtmlEscape("&amp;"), "&amp;amp;");
}

TEST(SvgChart, GapsBreakTheLineAndLonePointsAreDots) {
  ChartSpec s = Spec();
  ChartSeries series{"core", "s0", {}};
  double t0 = s.x_from_s;
  // Two runs of three points, a gap, and one lone point after another gap.
  for (int i = 0; i < 3; ++i) series.points.push_back({t0 + i, 60.0 + i});
  series.points.push_back({t0 + 3, std::nullopt});
  for (int i = 4; i < 7; ++i) series.points.push_back({t0 + i, 70.0});
  series.points.push_back({t0 + 7, std::nullopt});
  series.points.push_back({t0 + 8, 75.0});
  s.series.push_back(series);
  std::string svg = RenderSvgChart(s);
  EXPECT_EQ(CountOf(svg, "<svg "), 1u);
  EXPECT_EQ(CountOf(svg, R"(<polyline class="line s0")"), 2u) << svg;
  EXPECT_EQ(CountOf(svg, R"(<circle class="dot s0")"), 1u) << svg;
  EXPECT_NE(svg.find(R"(data-metric="temperature")"), std::string::npos);
  EXPECT_NE(svg.find("°C"), std::string::npos);
}

TEST(SvgChart, MarkersBandsAndThresholdsWithEscapedTooltips) {
  ChartSpec s = Spec();
  s.series.push_back(ChartSeries{"core", "s0", {{s.x_from_s, 60.0}, {s.x_to_s, 90.0}}});
  s.markers.push_back(ChartMarker{s.x_from_s + 10, "Xid 79 <b>\"fallen\"</b>", "event"});
  s.markers.push_back(ChartMarker{s.x_from_s + 20, "Xid 48", "event"});
  s.markers.push_back(ChartMarker{s.x_to_s + 100, "outside", "event"});  // left out
  s.bands.push_back(ChartBand{s.x_from_s + 5, s.x_from_s + 30, "thermal.slowdown", "band-warning"});
  s.bands.push_back(ChartBand{s.x_to_s + 5, s.x_to_s + 30, "after", "band-warning"});  // left out
  s.thresholds.push_back(ChartThreshold{87, "slowdown 87 °C"});
  std::string svg = RenderSvgChart(s);
  EXPECT_EQ(CountOf(svg, R"(<g class="marker event")"), 2u);
  EXPECT_EQ(CountOf(svg, R"(<rect class="band band-warning")"), 1u);
  EXPECT_EQ(CountOf(svg, R"(<line class="threshold")"), 1u);
  EXPECT_NE(svg.find("slowdown 87 °C"), std::string::npos);
  EXPECT_NE(svg.find("Xid 79 &lt;b&gt;&quot;fallen&quot;&lt;/b&gt;"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_EQ(svg.find("outside"), std::string::npos);
}

TEST(SvgChart, NoDataIsSaidNotDrawn) {
  ChartSpec s = Spec();
  s.no_data_text = "no data";
  s.series.push_back(ChartSeries{"core", "s0", {{s.x_from_s, std::nullopt}, {s.x_to_s, NAN}}});
  EXPECT_FALSE(ChartHasData(s));
  std::string html = RenderSvgChart(s);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("no-data"), std::string::npos);
  EXPECT_NE(html.find(">no data<"), std::string::npos);
}

TEST(SvgChart, DownsamplingKeepsSpikesAndBoundsThePoints) {
  std::vector<ChartPoint> points;
  for (int i = 0; i < 86400; ++i) points.push_back({static_cast<double>(i), 50.0});
  points[40000].value = 99.0;                                          // one spike
  points[60000].value = 1.0;                                           // one dip
  for (int i = 70000; i < 71000; ++i) points[i].value = std::nullopt;  // a long gap
  auto out = DownsampleMinMax(points, 1500);
  EXPECT_LE(out.size(), 1500u);
  EXPECT_GE(out.size(), 700u);
  bool spike = false, dip = false, gap = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(out[i - 1].x_s, out[i].x_s);  // still in time order
    }
    if (out[i].value == 99.0) spike = true;
    if (out[i].value == 1.0) dip = true;
    if (!out[i].value) gap = true;
  }
  EXPECT_TRUE(spike);
  EXPECT_TRUE(dip);
  EXPECT_TRUE(gap);
  std::vector<ChartPoint> small(points.begin(), points.begin() + 10);
  EXPECT_EQ(DownsampleMinMax(small, 1500).size(), 10u);
}

TEST(SvgChart, NiceTicksCoverTheRangeWithRoundSteps) {
  auto ticks = NiceTicks(37, 91, 5);
  ASSERT_GE(ticks.size(), 3u);
  EXPECT_LE(ticks.front(), 37);
  EXPECT_GE(ticks.back(), 91);
  double step = ticks[1] - ticks[0];
  EXPECT_DOUBLE_EQ(step, 20);  // 54 over about 5 steps
  EXPECT_DOUBLE_EQ(ticks.front(), 20);
  EXPECT_DOUBLE_EQ(ticks.back(), 100);
  for (std::size_t i = 1; i < ticks.size(); ++i) EXPECT_DOUBLE_EQ(ticks[i] - ticks[i - 1], step);
  auto flat = NiceTicks(700, 700, 5);  // one value: a range around it
  EXPECT_LT(flat.front(), 700);
  EXPECT_GT(flat.back(), 700);
  auto small = NiceTicks(0, 0.8, 4);
  EXPECT_DOUBLE_EQ(small[1] - small[0], 0.2);
}

TEST(SvgChart, TimeTicksUseRoundSteps) {
  double from = 1767225600 + 7;  // :07 past a minute (UTC; local zones are whole minutes here)
  auto ticks = TimeTicks(from, from + 3600, 6);
  ASSERT_GE(ticks.size(), 4u);
  EXPECT_LE(ticks.size(), 7u);
  double step = ticks[1] - ticks[0];
  EXPECT_DOUBLE_EQ(step, 600);  // 10 minutes for an hour
  EXPECT_GE(ticks.front(), from);
  EXPECT_EQ(static_cast<long long>(ticks.front()) % 60, 0);
  EXPECT_EQ(TimeTickLabel(ticks.front(), 3600).size(), 5u);        // "HH:MM"
  EXPECT_EQ(TimeTickLabel(ticks.front(), 60).size(), 8u);          // "HH:MM:SS"
  EXPECT_EQ(TimeTickLabel(ticks.front(), 3 * 86400).size(), 11u);  // "MM-DD HH:MM"
}

}  // namespace
}  // namespace gpudoctor
