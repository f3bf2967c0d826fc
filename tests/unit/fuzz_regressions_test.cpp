// Inputs that crashed a fuzz target (fuzz/, scripts/fuzz.sh), kept under
// tests/data/fuzz_regressions/<target>/ and fed to the same parser here
// through the normal build, with the behaviour the fix gave them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/kernel_event.h"
#include "core/time_parse.h"
#include "fix/report_findings.h"
#include "parse/fabricmanager_log.h"
#include "parse/kernel_events.h"
#include "parse/kernel_line.h"

namespace gpudoctor {
namespace {

std::string ReadData(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The saved inputs of one target, in name order; never empty.
std::vector<std::filesystem::path> Inputs(const std::string& target) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(TEST_DATA_DIR) +
                                                           "/fuzz_regressions/" + target)) {
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  EXPECT_FALSE(out.empty()) << target;
  return out;
}

// A stamp in a year system_clock cannot hold (its 64-bit nanoseconds span
// 1678-2262) overflowed in MakeWallTime: "[F Aug 3 1:43:09 1012]".
TEST(FuzzRegressKernelLog, YearOutsideClockRangeGivesNoTime) {
  for (const auto& path : Inputs("kernel_log")) {
    const std::string text = ReadData(path);
    const KernelLine line = ParseKernelLine(text.substr(0, text.find('\n')), LineTimeContext{});
    EXPECT_EQ(line.prefix, LinePrefix::kDmesgWall) << path;
    EXPECT_FALSE(line.time.has_value()) << path;
  }
  using std::chrono::seconds;
  EXPECT_FALSE(MakeWallTime(1012, 8, 30, 11, 43, 9, 0, seconds{0}).has_value());
  EXPECT_FALSE(MakeWallTime(9999, 12, 31, 23, 59, 59, 0, seconds{0}).has_value());
  EXPECT_TRUE(MakeWallTime(1970, 1, 1, 0, 0, 0, 0, seconds{3600}).has_value());
  EXPECT_TRUE(MakeWallTime(2200, 12, 31, 23, 59, 59, 0.5, seconds{0}).has_value());
}

// The event of such a line is still reported, without a time.
TEST(FuzzRegressKernelLog, XidWithImpossibleYearKeepsTheEvent) {
  const std::string log =
      "[Fri Aug 30 11:43:09 1012] NVRM: Xid (PCI:0000:cb:00): 13, pid=1, name=x, Graphics "
      "Exception\n";
  KernelEventScanner scanner;
  ScanKernelLogBuffer(log, "dmesg.log", 1, scanner);
  const std::vector<KernelEvent> events = scanner.Finish();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].code, 13);
  EXPECT_EQ(events[0].pci_bus_id, "0000:cb:00.0");
  EXPECT_FALSE(events[0].time.has_value());
}

// A number too large for a double ("88E9844", "1e999") made nlohmann::json
// throw out_of_range, which escaped ParseReportFindings (only parse_error was
// caught) and ended `fix --from-report` with std::terminate.
TEST(FuzzRegressReportJson, NumberOverflowIsACorruptReport) {
  for (const auto& path : Inputs("report_json")) {
    const auto findings = ParseReportFindings(ReadData(path), "r.json");
    ASSERT_FALSE(findings.ok()) << path;
    EXPECT_EQ(findings.error().code, ErrorCode::kCorrupt) << path;
    EXPECT_EQ(findings.error().message.rfind("r.json: not valid JSON (", 0), 0u)
        << findings.error().message;
    EXPECT_EQ(findings.error().message.find('\n'), std::string::npos);
  }
}

// toml++ quotes the character it stopped at, and a key may hold "\n": both
// made ParseConfig's error span two lines although it promises one.
TEST(FuzzRegressConfig, ErrorsStayOnOneLine) {
  for (const auto& path : Inputs("config")) {
    const auto cfg = ParseConfig(ReadData(path), "c.toml");
    ASSERT_FALSE(cfg.ok()) << path;
    EXPECT_EQ(cfg.error().message.find_first_of("\r\n"), std::string::npos) << cfg.error().message;
    EXPECT_EQ(cfg.error().message.rfind("c.toml:", 0), 0u) << cfg.error().message;
  }
  const auto key = ParseConfig("[thresholds]\n\"a\\nb\" = 1\n", "c.toml");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().message, "c.toml:2: thresholds.a b: unknown key");
}

// "[tid " without its ']' made ParseFmLogLine read the tid of an empty
// optional (found by small_parsers as a read past the input).
TEST(FuzzRegressSmallParsers, FabricManagerUnclosedTidStaysInTheMessage) {
  const auto line = ParseFmLogLine("[Feb 25 2025 15:10:02] [ERROR] [tid 4177 link down");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->level, "ERROR");
  EXPECT_FALSE(line->tid.has_value());
  EXPECT_EQ(line->message, "[tid 4177 link down");

  for (const auto& path : Inputs("small_parsers")) {
    if (path.filename().string().rfind("fabricmanager", 0) != 0) continue;
    const std::string text = ReadData(path).substr(1);  // the first byte picked the parser
    const FmLogSummary sum = ScanFabricManagerLog(text, 3);
    EXPECT_EQ(sum.error_count, 1u) << path;
    ASSERT_EQ(sum.last_errors.size(), 1u) << path;
    EXPECT_EQ(sum.last_errors[0].entry.message.rfind("[tid ", 0), 0u)
        << sum.last_errors[0].entry.message;
  }
}

// "2426-11-29T10:13" overflowed system_clock's nanoseconds in ParseTimePoint
// (report --from/--to), as the kernel-log stamps did in MakeWallTime.
TEST(FuzzRegressSmallParsers, TimePointYearOutsideClockRangeIsAnError) {
  const std::string text =
      ReadData(std::string(TEST_DATA_DIR) + "/fuzz_regressions/small_parsers/time-point-year-2426")
          .substr(1);
  ASSERT_EQ(text, "2426-11-29T10:13");
  for (const std::string& t : {text, std::string("1012-01-01"), std::string("9999-12-31T00:00Z")}) {
    const auto point = ParseTimePoint(t);
    ASSERT_FALSE(point.ok()) << t;
    EXPECT_EQ(point.error().code, ErrorCode::kInvalid);
    EXPECT_NE(point.error().message.find("the year is not in 1970-2200"), std::string::npos)
        << point.error().message;
  }
  EXPECT_TRUE(ParseTimePoint("2200-12-31T23:59:59Z").ok());
  EXPECT_TRUE(ParseTimePoint("1970-01-01T00:00:00Z").ok());
}

}  // namespace
}  // namespace gpudoctor
