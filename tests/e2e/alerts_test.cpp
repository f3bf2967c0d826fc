// The Prometheus alerting rules in deploy/prometheus: promtool accepts them,
// and their unit tests (a firing case and a quiet time per alert) pass. Every
// alert in the rules file has a test case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "support/run_process.h"

namespace gpudoctor::test {
namespace {

const std::string kDir = std::string(TEST_DATA_DIR) + "/../../deploy/prometheus";

bool HavePromtool() { return std::filesystem::exists("/usr/bin/promtool"); }

std::set<std::string> Matches(const std::string& path, const std::regex& re) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    found.insert((*it)[1]);
  }
  return found;
}

TEST(Alerts, PromtoolChecksRules) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  auto r = RunProcess({"/usr/bin/promtool", "check", "rules", kDir + "/gpudoctor-alerts.yml"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS: 23 rules found"), std::string::npos) << r.out;
}

TEST(Alerts, PromtoolUnitTestsPass) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  auto r = RunProcess({"/usr/bin/promtool", "test", "rules", kDir + "/gpudoctor-alerts_test.yml"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS"), std::string::npos) << r.out << r.err;
}

TEST(Alerts, EveryAlertHasAFiringTest) {
  const auto alerts = Matches(kDir + "/gpudoctor-alerts.yml", std::regex(R"(- alert: (\w+))"));
  const auto tested =
      Matches(kDir + "/gpudoctor-alerts_test.yml", std::regex(R"(alertname: (\w+))"));
  EXPECT_EQ(alerts.size(), 23u);
  EXPECT_EQ(alerts, tested);
}

}  // namespace
}  // namespace gpudoctor::test
