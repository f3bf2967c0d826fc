// Any bytes, every output: the core conversion (src/core/utf8.h), the JSON
// dump (src/core/json_dump.h) and each renderer over names and log lines that
// are not UTF-8 or hold control characters and terminal escapes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "core/json_dump.h"
#include "core/utf8.h"
#include "render/ansi.h"
#include "render/exposition.h"
#include "render/html_escape.h"
#include "render/prometheus_metrics.h"
#include "render/report_html.h"
#include "render/report_json.h"
#include "render/report_text.h"
#include "render/status_json.h"
#include "support/hostile_bytes.h"
#include "support/rule_testing.h"
#include "support/run_process.h"

namespace gpudoctor::testing {
namespace outside_bytes_test {

using gpudoctor::test::FirstBadByte;
using gpudoctor::test::HostileNames;
using gpudoctor::test::IsUtf8ForTest;
using gpudoctor::test::HasTerminalControl;

const std::string R = "\xEF\xBF\xBD";  // U+FFFD

TEST(OutsideBytesUtf8, EachMaximalSubpartBecomesOneReplacementCharacter) {
  struct Case {
    std::string in, out;
  };
  const std::vector<Case> cases = {
      {"plain", "plain"},
      {"\xe8\xae\xad\xe7\xbb\x83 " + R, "\xe8\xae\xad\xe7\xbb\x83 " + R},  // 训练 U+FFFD, valid
      {"\x80\xbf", R + R},                                              // lone continuations
      {"a\xe4\xb8", "a" + R},                                           // truncated at the end
      {"\xe4\xb8x", R + "x"},                                           // truncated in the middle
      {"\xf0\x9f\x98", R},                                              // truncated 4-byte
      {"\xc0\xaf", R + R},                                              // overlong '/'
      {"\xe0\x80\xaf", R + R + R},                                      // overlong, 3 bytes
      {"\xed\xa0\x80", R + R + R},                                      // a surrogate
      {"\xf4\x90\x80\x80", R + R + R + R},                              // above U+10FFFF
      {"\xf5\xff", R + R},
      {"caf\xe9", "caf" + R},                                           // Latin-1
      {"\xc4\xe3\xba\xc3", R + R + R},  // GBK 你好: C4 | E3 BA | C3 cut short
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToValidUtf8(c.in), c.out) << gpudoctor::test::HexOf(c.in);
    EXPECT_EQ(IsValidUtf8(c.in), c.in == c.out) << gpudoctor::test::HexOf(c.in);
  }
}

// nlohmann/json's replace handler and ToValidUtf8 make the same text of the
// same bytes: one rendering in every output.
TEST(OutsideBytesUtf8, JsonDumpReplacesLikeToValidUtf8) {
  std::vector<std::string> inputs;
  for (const auto& h : HostileNames()) inputs.push_back(h.bytes);
  inputs.push_back(gpudoctor::test::kNulLine);
  std::mt19937 random(7);
  const char alphabet[] = {'a', '\x80', '\xbf', '\xc2', '\xc0', '\xe0', '\xe4', '\xed',
                           '\xa0', '\xf0', '\xf4', '\x90', '\xf5', '\x1b', '\0', '\xff'};
  for (int n = 0; n < 20000; ++n) {
    std::string s;
    const int len = static_cast<int>(random() % 9);
    for (int i = 0; i < len; ++i) s += alphabet[random() % sizeof alphabet];
    inputs.push_back(s);
  }
  for (const std::string& s : inputs) {
    const std::string valid = ToValidUtf8(s);
    ASSERT_TRUE(IsUtf8ForTest(valid)) << gpudoctor::test::HexOf(s);
    ASSERT_EQ(IsValidUtf8(s), IsUtf8ForTest(s)) << gpudoctor::test::HexOf(s);
    if (IsUtf8ForTest(s)) {
      ASSERT_EQ(valid, s);
    }
    const std::string dumped = DumpJson(nlohmann::json{{"name", s}});
    ASSERT_TRUE(IsUtf8ForTest(dumped)) << gpudoctor::test::HexOf(s);
    ASSERT_EQ(nlohmann::json::parse(dumped)["name"].get<std::string>(), valid)
        << gpudoctor::test::HexOf(s);
    const std::string printable = ToPrintableText(s);
    ASSERT_TRUE(IsUtf8ForTest(printable)) << gpudoctor::test::HexOf(s);
    ASSERT_FALSE(HasTerminalControl(printable)) << gpudoctor::test::HexOf(s);
  }
}

TEST(OutsideBytesUtf8, PrintableTextKeepsOnlyTheProcessesOwnColour) {
  EXPECT_EQ(ToPrintableText("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(ToPrintableText("a\rb\x07" "c\x7f"), "a" + R + "b" + R + "c" + R);
  EXPECT_EQ(ToPrintableText("\x1b[2J"), R + "[2J");
  EXPECT_EQ(ToPrintableText("\xc2\x9b" "2J"), R + "2J");  // C1 CSI
  EXPECT_EQ(ToPrintableText("\x1b" "123[1m", "123"), "\x1b[1m");
  EXPECT_EQ(ToPrintableText("\x1b" "12[1m", "123"), R + "12[1m");  // a guess at the token
  // Colorize's codes come out as plain SGR; a name's escape does not.
  const std::string painted = Colorize("x\x1b[2Jy", Level::kWarning, true);
  EXPECT_EQ(ForTerminal(painted), "\x1b[33mx" + R + "[2Jy\x1b[0m");
}

TEST(OutsideBytesUtf8, FilterGivesTheSameTextWhereverThePiecesAreCut) {
  const std::string token = "4711";
  const std::string text = "ok \xe8\xae\xad \xf0\x9f\x98\x80 \x1b" + token + "[1mX\x1b" + token +
                           "[0m \x1b[2J caf\xe9 \xe4\xb8";
  const std::string whole = ToPrintableText(text, token);
  for (std::size_t a = 0; a <= text.size(); ++a) {
    for (std::size_t b = a; b <= text.size(); ++b) {
      PrintableTextFilter f(token);
      std::string out = f.Feed(text.substr(0, a));
      out += f.Feed(text.substr(a, b - a));
      out += f.Feed(text.substr(b));
      out += f.Finish();
      ASSERT_EQ(out, whole) << a << " " << b;
    }
  }
}

TEST(OutsideBytesRender, LabelValuesAndHtmlAreValidWhateverTheBytes) {
  std::string exposition = "# HELP gpudoctor_test_info t\n# TYPE gpudoctor_test_info gauge\n";
  for (const auto& h : HostileNames()) {
    const std::string label = EscapeLabelValue(h.bytes);
    EXPECT_TRUE(IsUtf8ForTest(label)) << h.what << ": " << FirstBadByte(label);
    EXPECT_EQ(label.find('\n'), std::string::npos) << h.what;
    const std::string html = HtmlEscape(h.bytes);
    EXPECT_TRUE(IsUtf8ForTest(html)) << h.what << ": " << FirstBadByte(html);
    EXPECT_FALSE(HasTerminalControl(html)) << h.what;
    exposition += "gpudoctor_test_info{" + PromLabel("name", h.bytes) + "} 1\n";
  }
  if (!std::filesystem::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed";
  gpudoctor::test::ProcessOptions o;
  o.stdin_text = exposition;
  auto lint = gpudoctor::test::RunProcess({"/usr/bin/promtool", "check", "metrics"}, o);
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
}

void HostileFinding(const DiagnosisInput& input, RuleOutput& out) {
  Finding& f = out.Add(Severity::kCritical);
  f.gpus.push_back(input.gpus.at(0).key);
  for (const auto& h : HostileNames()) {
    f.title = Text{"process " + h.bytes, "进程 " + h.bytes};
    f.evidence.push_back(EvidenceItem{Text{"NVRM: Xid 13, name=" + h.bytes, "NVRM: Xid 13, name=" + h.bytes},
                                      std::nullopt, "", SourceRef{"kern-" + h.bytes + ".log", 3},
                                      TestTime(1)});
  }
  f.explanation = Text{"x", "x"};
  f.actions.push_back(Action{Text{"kill " + HostileNames()[8].bytes, "kill"}, "kill " + HostileNames()[5].bytes});
}
const Rule kHostile{"test.hostile", "xid", "hostile", kNeedsGpuReadings, HostileFinding};

// Every report format over a GPU, processes, a finding and events named with
// each hostile case.
TEST(OutsideBytesRender, EveryReportFormatIsValidUtf8WithoutControls) {
  std::vector<GpuStatus> gpus;
  for (std::size_t i = 0; i < HostileNames().size(); ++i) {
    GpuStatus g = HealthyGpu(static_cast<unsigned>(i));
    g.name = HostileNames()[i].bytes;
    g.processes = std::vector<GpuProcess>{GpuProcess(100 + static_cast<std::uint32_t>(i),
                                                     HostileNames()[i].bytes, 1 << 30)};
    gpus.push_back(g);
  }
  DiagnosisInput input = RepeatedReadings(gpus, 3);
  input.hostname = HostileNames()[8].bytes;
  Diagnosis diagnosis = Diagnose(input, {&kHostile});
  ReportContext report;
  report.input = &input;
  report.diagnosis = &diagnosis;
  report.generated_at = TestTime(10);
  report.files.push_back(ReportInputFile{"kern-" + HostileNames()[3].bytes + ".log", "kernel-log", true, "", {}});
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    report.lang = lang;
    const std::string json = DumpJson(ReportToJson(report), 2);
    EXPECT_TRUE(IsUtf8ForTest(json)) << FirstBadByte(json);
    EXPECT_TRUE(nlohmann::json::accept(json));
    EXPECT_EQ(json.find('\x1b'), std::string::npos);
    const std::string html = ReportToHtml(report);
    EXPECT_TRUE(IsUtf8ForTest(html)) << FirstBadByte(html);
    EXPECT_FALSE(HasTerminalControl(html));
    // Text and Markdown reach people through the printable filter
    // (PrintableOutput, WriteCommandOutput); with colour, only its own SGR.
    for (bool color : {false, true}) {
      const std::string text = ForTerminal(ReportToText(report, color));
      EXPECT_TRUE(IsUtf8ForTest(text)) << FirstBadByte(text);
      std::string without_sgr;
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\x1b') {
          ASSERT_TRUE(color);
          ASSERT_EQ(text[i + 1], '[');
          i = text.find('m', i);  // our codes: ESC [ digits ; m
          continue;
        }
        without_sgr += text[i];
      }
      EXPECT_FALSE(HasTerminalControl(without_sgr));
      EXPECT_EQ(without_sgr.find("[2J"), without_sgr.find(R + "[2J") + R.size()) << "escape kept raw";
    }
    const std::string md = ToPrintableText(ReportToMarkdown(report));
    EXPECT_TRUE(IsUtf8ForTest(md)) << FirstBadByte(md);
    EXPECT_FALSE(HasTerminalControl(md));
  }
}

TEST(OutsideBytesRender, StatusJsonDumpsHostileNames) {
  SystemStatus status;
  status.nvml_loaded = true;
  for (std::size_t i = 0; i < HostileNames().size(); ++i) {
    GpuStatus g = HealthyGpu(static_cast<unsigned>(i));
    g.name = HostileNames()[i].bytes;
    g.processes = std::vector<GpuProcess>{GpuProcess(7, HostileNames()[i].bytes, 1)};
    status.gpus.push_back(g);
  }
  const std::string json = DumpJson(StatusToJson(status), 2);
  EXPECT_TRUE(IsUtf8ForTest(json)) << FirstBadByte(json);
  auto doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc["gpus"][6]["name"], "h6-caf" + R + "-na" + R + "ve");
}

// Every JSON document is written by DumpJson: a plain .dump() throws
// type_error 316 on the first name that is not UTF-8.
TEST(OutsideBytesRender, NoJsonIsDumpedOutsideTheOneHelper) {
  const std::filesystem::path src = std::filesystem::path(TEST_DATA_DIR) / ".." / ".." / "src";
  std::vector<std::string> offenders;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file() || entry.path().filename() == "json_dump.cpp") continue;
    std::ifstream in(entry.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find(".dump(") != std::string::npos || line.find("->dump(") != std::string::npos) {
        offenders.push_back(entry.path().string() + ":" + std::to_string(number));
      }
    }
  }
  EXPECT_TRUE(offenders.empty()) << ::testing::PrintToString(offenders);
}

}  // namespace outside_bytes_test
}  // namespace gpudoctor::testing
