#include <gtest/gtest.h>

#include "knowledge/cuda_driver_table.h"
#include "parse/version_numbers.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

CudaToolkitInstall Toolkit(const std::string& version, bool is_default) {
  CudaToolkitInstall t;
  t.path = "/usr/local/cuda-" + version;
  t.version_file = "version.json";
  t.version = *ParseCudaVersionText(version);
  t.is_default = is_default;
  t.on_driver = CheckCudaOnDriver(t.version, TestDriver());
  return t;
}

DiagnosisInput WithToolkits(std::vector<CudaToolkitInstall> toolkits) {
  DiagnosisInput input;
  input.versions = TestVersions();  // driver 535.183.01: CUDA 12.2 natively
  input.versions->cuda.toolkits = std::move(toolkits);
  return input;
}

TEST(DriverCudaMismatchRule, DefaultToolkitTheDriverCannotRunIsAWarning) {
  auto d = RunRule(kDriverCudaMismatchRule,
                   WithToolkits({Toolkit("13.0", true), Toolkit("12.2", false)}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "driver.cuda_mismatch");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(f.gpus.empty());
  ASSERT_EQ(f.evidence.size(), 1u);  // 12.2 is supported
  EXPECT_NE(f.evidence[0].text.en.find("needs driver 580.65.06 or newer"), std::string::npos);
  EXPECT_NE(f.evidence[0].text.en.find("supports up to CUDA 12.2"), std::string::npos);
  EXPECT_NE(f.actions[0].text.en.find("580.65.06"), std::string::npos);
  EXPECT_EQ(f.actions[1].command, "sudo ln -sfn /usr/local/cuda-12.2 /usr/local/cuda");
}

TEST(DriverCudaMismatchRule, MinorCompatibilityOrAnUnusedToolkitIsInfo) {
  auto compat = RunRule(kDriverCudaMismatchRule, WithToolkits({Toolkit("12.4", true)}));
  ASSERT_EQ(compat.findings.size(), 1u);
  EXPECT_EQ(compat.findings[0].severity, Severity::kInfo);
  EXPECT_NE(compat.findings[0].evidence[0].text.en.find("minor-version compatibility"),
            std::string::npos);
  auto unused = RunRule(kDriverCudaMismatchRule, WithToolkits({Toolkit("13.0", false)}));
  ASSERT_EQ(unused.findings.size(), 1u);
  EXPECT_EQ(unused.findings[0].severity, Severity::kInfo);
}

TEST(DriverCudaMismatchRule, BundledPipRuntimeIsChecked) {
  DiagnosisInput input = WithToolkits({});
  PythonEnvironment env;
  env.site_dir = "/opt/conda/lib/python3.11/site-packages";
  env.bundled_runtime = CudaVersion{13, 0, std::nullopt};
  env.bundled_runtime_on_driver = CheckCudaOnDriver(*env.bundled_runtime, TestDriver());
  input.versions->frameworks.environments.push_back(env);
  auto d = RunRule(kDriverCudaMismatchRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("bundled by pip wheels"), std::string::npos);
}

TEST(DriverCudaMismatchRule, QuietWhenTheDriverSupportsEverything) {
  auto d = RunRule(kDriverCudaMismatchRule,
                   WithToolkits({Toolkit("12.2", true), Toolkit("11.8", false)}));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(DriverCudaMismatchRule, UnknownDriverIsNotChecked) {
  DiagnosisInput input = WithToolkits({Toolkit("12.2", true)});
  input.versions->cuda.driver.reset();
  auto d = RunRule(kDriverCudaMismatchRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "driver.cuda_mismatch");
}

}  // namespace
}  // namespace gpudoctor::testing
