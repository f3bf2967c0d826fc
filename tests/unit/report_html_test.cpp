// The HTML report's structure: charts per GPU, markers, bands, escaping,
// Chinese labels, downsampling and no external references.
#include "render/report_html.h"

#include <gtest/gtest.h>

#include <regex>

#include "support/rule_testing.h"
#include "support/text_count.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {
namespace {

using test::CountOf;

constexpr const char* kHostile = R"(<script>alert("x")</script> & 'q')";
constexpr const char* kHostileEscaped =
    "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;";

// The <section class="gpu"> of one GPU.
std::string GpuSection(const std::string& html, const std::string& bus_id) {
  auto start = html.find(R"(<section class="gpu" id="gpu-)");
  while (start != std::string::npos) {
    auto end = html.find("</section>", start);
    std::string section = html.substr(start, end - start);
    if (section.find("data-gpu=\"" + bus_id + "\"") != std::string::npos) return section;
    start = html.find(R"(<section class="gpu" id="gpu-)", end);
  }
  return "";
}

void HotGpu(const DiagnosisInput& input, RuleOutput& out) {
  Finding& f = out.Add(Severity::kWarning);
  f.gpus.push_back(input.gpus.at(1).key);
  f.title = Text{std::string("GPU 1 is too hot ") + kHostile, "GPU 1 温度过高"};
  f.explanation = Text{"It slows down.", "它会降频。"};
  f.evidence.push_back(
      EvidenceItem{Text{"max 91 °C", "最高 91 °C"}, 91, "celsius", std::nullopt, TestTime(2)});
  f.evidence.push_back(EvidenceItem{Text{kHostile, kHostile}, std::nullopt, "",
                                    SourceRef{"kern.log", 12}, TestTime(3)});
  f.actions.push_back(
      Action{Text{"Check the fans", "检查风扇"}, "nvidia-smi -q -d TEMPERATURE | grep '<x>'"});
}
const Rule kHot{"thermal.test", "thermal", "hot", kNeedsGpuReadings, HotGpu};

struct Fixture {
  DiagnosisInput input;
  Diagnosis diagnosis;
  Timeline timeline;
  ReportContext report;

  // Two GPUs over `count` readings, one second apart; GPU 1 has no power
  // readings and a hostile name; kernel events on GPU 1, GPU 0, the host and
  // outside the window.
  explicit Fixture(Lang lang, std::size_t count = 10) {
    std::vector<std::vector<GpuStatus>> readings;
    for (std::size_t t = 0; t < count; ++t) {
      GpuStatus g0 = HealthyGpu(0);
      g0.temperature_c = 60 + static_cast<int>(t % 30);
      GpuStatus g1 = HealthyGpu(1);
      g1.name = std::string("H100 ") + kHostile;
      g1.power_draw_w.reset();
      g1.power_limit_w.reset();
      g1.power_enforced_limit_w.reset();
      readings.push_back({g0, g1});
    }
    input = InputFromReadings(readings);
    input.hostname = "node-7";
    input.kernel.emplace();
    auto& ev = input.kernel->events;
    ev.push_back(MakeEvent(KernelEventKind::kXid, 79, "0000:19:00",
                           std::string("fell off ") + kHostile, TestTime(4)));
    ev.push_back(MakeEvent(KernelEventKind::kXid, 48, "0000:19:00.0", "DBE", TestTime(5)));
    ev.push_back(
        MakeEvent(KernelEventKind::kXid, 13, "0000:18:00.0", "graphics exception", TestTime(6)));
    ev.push_back(MakeEvent(KernelEventKind::kOomKill, std::nullopt, "",
                           "Out of memory: Killed process 7", TestTime(7)));
    ev.push_back(
        MakeEvent(KernelEventKind::kXid, 31, "0000:19:00.0", "before the charts", TestTime(-3600)));
    diagnosis = Diagnose(input, {&kHot});
    timeline.findings.push_back(FindingInterval{"thermal.test",
                                                Severity::kWarning,
                                                {"0000:19:00.0"},
                                                Text{"GPU 1 is too hot", "GPU 1 温度过高"},
                                                TestTime(2),
                                                TestTime(6),
                                                std::nullopt});
    timeline.throttled.push_back(ThrottleTime{"0000:19:00.0", {{"hw_thermal_slowdown", 4}}, 9});
    report.input = &input;
    report.diagnosis = &diagnosis;
    report.generated_at = TestTime(20);
    report.lang = lang;
  }
};

TEST(ReportHtml, OneChartPerMetricPerGpuAndNoDataInsteadOfAnEmptyChart) {
  Fixture fx(Lang::kEn);
  std::string html = ReportToHtml(fx.report);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  std::string g0 = GpuSection(html, "0000:18:00.0");
  std::string g1 = GpuSection(html, "0000:19:00.0");
  ASSERT_FALSE(g0.empty());
  ASSERT_FALSE(g1.empty());
  for (const char* metric : {"utilization", "memory", "temperature", "power", "clocks"}) {
    std::string figure = std::string(R"(<figure class="chart-box" data-metric=")") + metric + "\"";
    EXPECT_EQ(CountOf(g0, figure), 1u) << metric;
  }
  EXPECT_EQ(CountOf(g0, R"(<svg class="chart")"), 5u);
  // GPU 1 has no power readings: four charts, and the fifth says so.
  EXPECT_EQ(CountOf(g1, R"(<svg class="chart")"), 4u);
  EXPECT_NE(g1.find(R"(<figure class="chart-box no-data" data-metric="power">)"), std::string::npos)
      << g1;
  EXPECT_NE(g1.find(">no data<"), std::string::npos);
  // The temperature chart marks the slowdown threshold; power its limit.
  EXPECT_NE(g0.find("slowdown 87 °C"), std::string::npos);
  EXPECT_NE(g0.find(R"(<polyline class="line limit")"), std::string::npos);
  // Min/avg/max: GPU 0's temperature went 60..69.
  EXPECT_NE(
      g0.find(
          R"(<td>Temperature</td><td class="num">60.0</td><td class="num">64.5</td><td class="num">69.0</td>)"),
      std::string::npos);
}

TEST(ReportHtml, EventMarkersPerGpuAndHostWide) {
  Fixture fx(Lang::kEn);
  fx.report.timeline = &fx.timeline;
  std::string html = ReportToHtml(fx.report);
  std::string g0 = GpuSection(html, "0000:18:00.0");
  std::string g1 = GpuSection(html, "0000:19:00.0");
  // GPU 1: Xid 79 (bus id without function), Xid 48 and the host-wide OOM
  // kill, on each of its four drawn charts; the event an hour earlier is not
  // drawn. GPU 0: its Xid 13 and the OOM kill on five charts.
  EXPECT_EQ(CountOf(g1, R"(<g class="marker event")"), 3u * 4);
  EXPECT_EQ(CountOf(g0, R"(<g class="marker event")"), 2u * 5);
  EXPECT_EQ(g1.find("before the charts"), std::string::npos);
  // All five events are in the table, the earlier one too.
  EXPECT_NE(html.find("before the charts"), std::string::npos);
  EXPECT_EQ(CountOf(html, "<tr><td>202"), 5u);
}

TEST(ReportHtml, FindingBandsFromTheTimelineElseEvidenceMarkers) {
  Fixture fx(Lang::kEn);
  fx.report.timeline = &fx.timeline;
  std::string with = ReportToHtml(fx.report);
  EXPECT_EQ(CountOf(GpuSection(with, "0000:19:00.0"), R"(<rect class="band band-warning")"), 4u);
  EXPECT_EQ(CountOf(GpuSection(with, "0000:18:00.0"), R"(<rect class="band)"), 0u);
  EXPECT_NE(with.find(R"(<section class="timeline">)"), std::string::npos);
  EXPECT_NE(with.find("hw_thermal_slowdown"), std::string::npos);
  EXPECT_NE(with.find("44.4 %"), std::string::npos);  // 4 of 9 sampled seconds

  fx.report.timeline = nullptr;
  std::string without = ReportToHtml(fx.report);
  std::string g1 = GpuSection(without, "0000:19:00.0");
  EXPECT_EQ(CountOf(g1, R"(<rect class="band)"), 0u);
  EXPECT_EQ(CountOf(g1, R"(<g class="marker finding")"), 2u * 4);  // two timed evidence items
  EXPECT_EQ(without.find(R"(<section class="timeline">)"), std::string::npos);
}

// A host-wide finding (cpu.cores_per_gpu) is in the timeline once, not a
// band on every GPU's charts.
TEST(ReportHtml, HostWideIntervalsAreNotBandsOnEachGpu) {
  Fixture fx(Lang::kEn);
  fx.timeline.findings.push_back(
      FindingInterval{"cpu.cores_per_gpu",
                      Severity::kWarning,
                      {},
                      Text{"Few CPU cores per GPU", "每个 GPU 的 CPU 核心偏少"},
                      TestTime(1),
                      std::nullopt,
                      std::nullopt});
  fx.report.timeline = &fx.timeline;
  std::string html = ReportToHtml(fx.report);
  EXPECT_EQ(CountOf(GpuSection(html, "0000:18:00.0"), R"(<rect class="band)"), 0u);
  EXPECT_EQ(CountOf(GpuSection(html, "0000:19:00.0"), R"(<rect class="band band-warning")"), 4u);
  EXPECT_NE(html.find("cpu.cores_per_gpu"), std::string::npos);
}

TEST(ReportHtml, FindingsWithEvidenceAndNumberedActions) {
  Fixture fx(Lang::kEn);
  std::string html = ReportToHtml(fx.report);
  EXPECT_NE(html.find(R"(<article class="finding sev-warning" data-finding="thermal.test">)"),
            std::string::npos);
  EXPECT_NE(html.find(R"(<span class="badge sev-warning">WARNING</span>)"), std::string::npos);
  EXPECT_NE(
      html.find(
          R"(<ol class="actions"><li>Check the fans<pre><code>nvidia-smi -q -d TEMPERATURE | grep &#39;&lt;x&gt;&#39;</code></pre></li></ol>)"),
      std::string::npos);
  EXPECT_NE(html.find("(kern.log:12)"), std::string::npos);
}

TEST(ReportHtml, EveryOutsideStringIsEscaped) {
  Fixture fx(Lang::kEn);
  fx.input.hostname = "<b>host</b>";
  std::string html = ReportToHtml(fx.report);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;host&lt;/b&gt;"), std::string::npos);
  // GPU name, finding title, evidence log line, event message (table and tooltip).
  EXPECT_GE(CountOf(html, kHostileEscaped), 5u);
}

TEST(ReportHtml, NoExternalReferences) {
  Fixture fx(Lang::kEn);
  fx.report.timeline = &fx.timeline;
  std::string html = ReportToHtml(fx.report);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("@font-face"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  std::regex href(R"re(href="([^"]*)")re");
  std::size_t links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator();
       ++it, ++links) {
    EXPECT_EQ((*it)[1].str().rfind('#', 0), 0u) << (*it)[0];
  }
  EXPECT_EQ(links, 2u);  // the GPU table links to each GPU's section
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
}

// Visible text: tags, <style> and <code> dropped.
std::string VisibleText(std::string html) {
  html = std::regex_replace(html, std::regex("<style>[\\s\\S]*?</style>"), " ");
  html = std::regex_replace(html, std::regex("<code>[\\s\\S]*?</code>"), " ");
  html = std::regex_replace(html, std::regex("<title>[\\s\\S]*?</title>"), " ");
  return std::regex_replace(html, std::regex("<[^>]*>"), "\n");
}

TEST(ReportHtml, ChineseLabels) {
  Fixture fx(Lang::kZh);
  fx.report.timeline = &fx.timeline;
  std::string html = ReportToHtml(fx.report);
  EXPECT_NE(html.find(R"(<html lang="zh-CN">)"), std::string::npos);
  for (const char* zh :
       {"结论", "温度", "利用率", "显存占用", "功耗", "时钟频率", "处理建议", "内核事件", "时间线",
        "降频阈值 87 °C", "无数据", "GPU 1 温度过高", "检查风扇"}) {
    EXPECT_NE(html.find(zh), std::string::npos) << zh;
  }
  for (const char* en :
       {">Findings", ">Temperature<", "What to do", "no data", "Kernel events", "slowdown 87"}) {
    EXPECT_EQ(html.find(en), std::string::npos) << en;
  }
  std::string text = VisibleText(html);
  std::vector<std::string> runs = EnglishRuns(text);
  // The hostile test strings and the title line are English on purpose.
  std::erase_if(runs, [](const std::string& r) {
    for (const char* ours : {"alert", "gpudoctor", "fell off", "before the", "graphics exception",
                             "ut of", "illed process"}) {
      if (r.find(ours) != std::string::npos) return true;
    }
    return false;
  });
  EXPECT_TRUE(runs.empty()) << ::testing::PrintToString(runs);
}

TEST(ReportHtml, LargeWindowsAreDownsampled) {
  Fixture fx(Lang::kEn, 6000);
  std::string html = ReportToHtml(fx.report);
  // A plain scan: std::regex recurses once per character of a long points
  // attribute and overflows the stack under ASan.
  std::size_t lines = 0;
  const std::string start = "<polyline class=\"line ";
  for (auto at = html.find(start); at != std::string::npos; at = html.find(start, at + 1)) {
    auto attr = html.find("points=\"", at);
    ASSERT_NE(attr, std::string::npos);
    ASSERT_LT(attr, html.find('>', at)) << "a polyline without points";
    attr += 8;
    auto end = html.find('"', attr);
    ASSERT_NE(end, std::string::npos);
    ++lines;
    std::string points = html.substr(attr, end - attr);
    std::size_t n = static_cast<std::size_t>(std::count(points.begin(), points.end(), ','));
    EXPECT_LE(n, 1500u);
    EXPECT_GE(n, 2u);
  }
  EXPECT_GE(lines, 8u);
  // 6000 readings of 2 GPUs stay well under a megabyte.
  EXPECT_LT(html.size(), 1000u * 1000);
}

}  // namespace
}  // namespace gpudoctor::testing
