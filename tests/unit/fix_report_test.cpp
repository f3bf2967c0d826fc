// fix --from-report: the findings of a gpudoctor.report/v1 document.
#include <gtest/gtest.h>

#include "fix/report_findings.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

TEST(FixReport, ReadsIdsSeverityAndNormalisedGpus) {
  auto f = ParseReportFindings(
      R"({"schema": "gpudoctor.report/v1", "findings": [
           {"id": "config.power_limit", "severity": "info", "gpus": ["00000000:18:00.0"],
            "title": "GPU 0 power limit 250 W is below its default 300 W"},
           {"id": "xid.gsp", "severity": "critical", "gpus": []}]})",
      "r.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->size(), 2u);
  EXPECT_EQ((*f)[0].id, "config.power_limit");
  EXPECT_EQ((*f)[0].gpus, std::vector<std::string>{"0000:18:00.0"});
  EXPECT_EQ((*f)[0].title.en, "GPU 0 power limit 250 W is below its default 300 W");
  EXPECT_EQ((*f)[1].severity, Severity::kCritical);
}

TEST(FixReport, MalformedInputIsOneLineNamingTheFile) {
  struct Case {
    const char* text;
    const char* want;
  };
  for (const Case& c :
       {Case{"{not json", "not valid JSON"}, Case{"[1, 2]", "not a JSON object"},
        Case{R"({"schema": "gpudoctor.status/v1", "findings": []})",
             "expected gpudoctor.report/v1"},
        Case{R"({"findings": []})", "schema none"},
        Case{R"({"schema": "gpudoctor.report/v1"})", "findings is missing"},
        Case{R"({"schema": "gpudoctor.report/v1", "findings": [{"gpus": []}]})", "findings[0].id"},
        Case{R"({"schema": "gpudoctor.report/v1", "findings": [{"id": "a.b", "gpus": [7]}]})",
             "not a PCI bus id"},
        Case{R"({"schema": "gpudoctor.report/v1", "findings": [{"id": "a.b", "severity": "bad"}]})",
             "severity"}}) {
    auto f = ParseReportFindings(c.text, "r.json");
    ASSERT_FALSE(f.ok()) << c.text;
    EXPECT_EQ(f.error().message.rfind("r.json: ", 0), 0u) << f.error().message;
    EXPECT_NE(f.error().message.find(c.want), std::string::npos) << f.error().message;
    EXPECT_EQ(f.error().message.find('\n'), std::string::npos) << f.error().message;
  }
}

TEST(FixReport, MissingFileIsAnErrorNamingIt) {
  test::TempDir dir;
  std::string path = (dir.path() / "absent.json").string();
  auto f = ReadReportFindings(path);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find(path), std::string::npos);
  std::string good = dir.Write("good.json", R"({"schema": "gpudoctor.report/v1", "findings": []})");
  auto ok = ReadReportFindings(good);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_TRUE(ok->empty());
}

}  // namespace
}  // namespace gpudoctor
