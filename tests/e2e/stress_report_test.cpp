// End-to-end: the stress measurements as tables in the text, Markdown and
// HTML reports (values the scenario implies, cells below their expectation
// marked), and the HTML report's burn charts, one set per GPU.
#include <gtest/gtest.h>

#include <sstream>

#include "e2e/stress_e2e.h"
#include "support/text_count.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// The headings and rows of the text report's table titled `title` (the
// lines indented by four spaces after it, up to its note in parentheses).
std::vector<std::string> StressTextTableLines(const std::string& text, const std::string& title) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "  " + title) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("    ", 0) != 0 || line.rfind("    (", 0) == 0) break;
    lines.push_back(line);
  }
  return lines;
}

// The Markdown line that begins with `prefix`, or "".
std::string MarkdownLineStartingWith(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

// Two H100-like GPUs on Gen4 x16 links (31.5 GB/s): GPU 0 copies at 26 GB/s
// (83 %), GPU 1 at 8 GB/s (25 %, a slow link). One NVLink 2.0 link between
// them (25 GB/s): GPU 0 → GPU 1 copies at 5 GB/s (20 %), GPU 1 → GPU 0 at 22.
std::vector<json> SlowLinkNode() {
  json a = StressGpu("0000:01:00.0", {{"h2d_gbps", 26}, {"d2h_gbps", 26}, {"p2p_gbps", 22},
                                      {"p2p_peer_gbps", {{"0000:02:00.0", 5}}}});
  json b = StressGpu("0000:02:00.0", {{"h2d_gbps", 8}, {"d2h_gbps", 8}, {"p2p_gbps", 22}});
  for (json* g : {&a, &b}) {
    (*g)["pcie_link_gen_current"] = (*g)["pcie_link_gen_max"] = 4;
    (*g)["pcie_link_width_current"] = (*g)["pcie_link_width_max"] = 16;
  }
  a["nvlinks"] = {{{"link", 0}, {"active", true}, {"version", 2}, {"remote_pci_bus_id", "0000:02:00.0"}}};
  b["nvlinks"] = {{{"link", 0}, {"active", true}, {"version", 2}, {"remote_pci_bus_id", "0000:01:00.0"}}};
  return {a, b};
}

TEST_F(StressE2e, MarkdownReportHasATablePerTest) {
  ProcessResult p;
  std::string md = RunReport(Scenario(SlowLinkNode()), "markdown",
                             {"--tests", "pcie,p2p,hbm,power", "--duration", "5s"}, p);
  ASSERT_EQ(p.exit_code, 1) << p.err;
  EXPECT_EQ(md.find("```\nMeasurements"), std::string::npos) << "no preformatted block any more";
  EXPECT_NE(md.find("## Measurements (hbm, pcie, p2p, power; ran "), std::string::npos) << md;

  EXPECT_NE(md.find("| GPU | host→device GB/s | device→host GB/s | both GB/s | link | link GB/s | share |"),
            std::string::npos)
      << md;
  std::string fast = MarkdownLineStartingWith(md, "| GPU 0 | "), slow = MarkdownLineStartingWith(md, "| GPU 1 | ");
  EXPECT_NE(fast.find("| Gen4 x16 | 31.5 |"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("▼"), std::string::npos) << fast;
  // 8 GB/s of 31.5: at most 25 %, marked.
  EXPECT_NE(slow.find("| Gen4 x16 | 31.5 | **"), std::string::npos) << slow;
  EXPECT_NE(slow.find("% ▼** |"), std::string::npos) << slow;

  // The p2p matrix: GPU 0 → GPU 1 marked, GPU 1 → GPU 0 not.
  EXPECT_NE(md.find("| from \\ to | GPU 0 | GPU 1 |"), std::string::npos) << md;
  std::string row0 = MarkdownLineStartingWith(md, "| GPU 0 | – | ");
  EXPECT_NE(row0.find("▼**"), std::string::npos) << row0;
  // Each pair against its path: one NVLink 2.0 link at 25 GB/s.
  EXPECT_NE(md.find("| pair | path | links × GB/s | expected GB/s | measured GB/s | share |"), std::string::npos);
  std::string pair01 = MarkdownLineStartingWith(md, "| GPU 0 → GPU 1 | NVLink | 1 × NVLink 2.0 25 | 25.0 | **");
  std::string pair10 = MarkdownLineStartingWith(md, "| GPU 1 → GPU 0 | NVLink | 1 × NVLink 2.0 25 | 25.0 | ");
  EXPECT_FALSE(pair01.empty()) << md;
  EXPECT_FALSE(pair10.empty()) << md;
  EXPECT_EQ(pair10.find("▼"), std::string::npos) << pair10;

  // hbm: the fake's 100 GB/s against the H100's 3350, marked.
  EXPECT_NE(md.find("| GPU | GB/s | published peak GB/s | share |"), std::string::npos);
  EXPECT_NE(md.find("| 3350 | **"), std::string::npos) << md;
  // power: the fake draws 97 % of its 700 W limit under load.
  EXPECT_NE(md.find("| GPU | TFLOPS | peak W | avg W | limit W | to 90 % of limit | max °C | min SM MHz | reasons seen |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find(" | 679 | "), std::string::npos) << md;
  EXPECT_NE(md.find(" | 700 | "), std::string::npos) << md;
}

TEST_F(StressE2e, HtmlReportHasTablesAndBurnChartsPerGpu) {
  ProcessResult p;
  std::string html = RunReport(Scenario(SlowLinkNode()), "html", {"--tests", "pcie,p2p,power", "--duration", "5s"}, p);
  ASSERT_EQ(p.exit_code, 1) << p.err;
  EXPECT_EQ(html.find("<section><pre>"), std::string::npos) << "no preformatted block any more";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find(R"(<table class="active-pcie">)"), std::string::npos);
  EXPECT_NE(html.find(R"(<table class="active-p2p">)"), std::string::npos);
  EXPECT_NE(html.find(R"(<table class="active-p2p_paths">)"), std::string::npos);
  EXPECT_NE(html.find(R"(<table class="active-power">)"), std::string::npos);
  EXPECT_NE(html.find("<th>to 90 % of limit</th>"), std::string::npos);
  // The slow link's share and the slow pair are marked.
  EXPECT_GE(CountOf(html, R"(<td class="num below">)"), 2u) << html;
  // One chart each of power, SM clock and temperature per GPU, over the burn.
  for (const char* metric : {"stress_power", "stress_sm_clock", "stress_temperature"}) {
    EXPECT_EQ(CountOf(html, std::string(R"(<figure class="chart-box" data-metric=")") + metric + "\""), 2u) << metric;
  }
  EXPECT_NE(html.find("GPU 1: power over the burn (s)"), std::string::npos);
}

TEST_F(StressE2e, TextReportTablesAreAligned) {
  ProcessResult p;
  std::string text = RunReport(Scenario(SlowLinkNode()), "text", {"--tests", "pcie,power", "--duration", "5s"}, p);
  ASSERT_EQ(p.exit_code, 1) << p.err;
  for (const char* title : {"PCIe (pinned copies)", "Power burn (NVML every 100 ms)"}) {
    auto lines = StressTextTableLines(text, title);
    ASSERT_EQ(lines.size(), 3u) << title << "\n" << text;  // headings and two GPUs
    // Right-aligned columns: every line of a table ends at the same column.
    auto columns = [](const std::string& s) {
      std::size_t n = 0;
      for (unsigned char c : s) n += (c & 0xC0) != 0x80;
      return n;
    };
    for (const std::string& line : lines) EXPECT_EQ(columns(line), columns(lines[0])) << title << "\n" << text;
  }
  EXPECT_NE(text.find("▼"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::test
