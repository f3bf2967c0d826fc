// End-to-end: `gpudoctor rules --severity` lists the level of every Xid and
// SXid code and why, with the config file's [severity] overrides, and
// rejects a bad override on one line naming the file, line and key.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace rules_severity_test_ns {

// The line of `text` that starts with `key` and a space.
std::string SeverityLineOf(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + " ", 0) == 0) return line;
  }
  return {};
}

TEST(RulesSeverityE2E, ListsEveryCodeWithItsLevelAndWhy) {
  auto r = RunGpudoctor({"rules", "--severity"}, "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string xid79 = SeverityLineOf(r.out, "xid.79");
  EXPECT_NE(xid79.find("critical"), std::string::npos) << xid79;
  EXPECT_NE(xid79.find("DCGM"), std::string::npos) << xid79;
  std::string priv = SeverityLineOf(r.out, "sxid.12028");
  EXPECT_NE(priv.find("critical"), std::string::npos) << priv;
  EXPECT_NE(SeverityLineOf(r.out, "sxid.20034").find("critical"), std::string::npos);
  EXPECT_NE(SeverityLineOf(r.out, "xid.38").find("warning"), std::string::npos);
}

TEST(RulesSeverityE2E, ConfigOverridesShowAndBadOnesAreOneLineErrors) {
  TempDir dir;
  std::string ok = dir.Write("ok.toml", "[severity]\nsxid.12028 = \"warning\"\nxid.94 = \"info\"\n");
  auto r = RunGpudoctor({"rules", "--severity", "--config", ok}, "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string priv = SeverityLineOf(r.out, "sxid.12028");
  EXPECT_NE(priv.find("warning"), std::string::npos) << priv;
  EXPECT_NE(priv.find("config file"), std::string::npos) << priv;
  EXPECT_NE(SeverityLineOf(r.out, "xid.94").find("info"), std::string::npos);
  std::string bad = dir.Write("bad.toml", "[severity]\nxid.94 = \"loud\"\n");
  auto e = RunGpudoctor({"rules", "--severity", "--config", bad}, "");
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_NE(e.err.find("bad.toml:2: severity.xid.94: 'loud' is not info, warning or critical"),
            std::string::npos)
      << e.err;
  // The same override changes what analyze says of a real log: the 12028
  // fixture is critical by default, a warning with the override.
  const std::string fixture = std::string(SHARED_DIR) +
                              "/fixtures/kernel/gpud-testdata-fabricmanager-log-nvswitch-nonfatal-"
                              "12028.log";
  auto plain = RunGpudoctor({"analyze", fixture}, "");
  if (plain.exit_code == 3) GTEST_SKIP() << "fixture not found: " << fixture;
  EXPECT_EQ(plain.exit_code, 2) << plain.out;
  auto lowered = RunGpudoctor({"analyze", "--config", ok, fixture}, "");
  EXPECT_EQ(lowered.exit_code, 1) << lowered.out;
}

}  // namespace
}  // namespace gpudoctor::test
