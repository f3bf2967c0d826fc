#include <gtest/gtest.h>

#include "knowledge/framework_compat.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

FrameworkInstall Torch(const std::string& version, std::optional<CudaVersion> cuda,
                       bool cpu_only = false) {
  FrameworkInstall fw;
  fw.name = "torch";
  fw.version = version;
  fw.source = "torch/version.py";
  fw.cuda = cuda;
  fw.cpu_only = cpu_only;
  fw.check = CheckFrameworkBuild(FrameworkBuild{cuda, cpu_only, false}, TestDriver(), std::nullopt);
  return fw;
}

PythonEnvironment Env(const std::string& site_dir, std::vector<FrameworkInstall> frameworks) {
  PythonEnvironment env;
  env.site_dir = site_dir;
  env.origin = "option";
  env.frameworks = std::move(frameworks);
  return env;
}

// A GPU host (one GPU reading) with driver 535.183.01 and these environments.
DiagnosisInput GpuHostWith(std::vector<PythonEnvironment> envs) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 1);
  input.versions = TestVersions();
  input.versions->frameworks.environments = std::move(envs);
  return input;
}

TEST(FrameworkCudaMismatchRule, BuildForACudaTheDriverCannotRunIsAWarning) {
  auto d = RunRule(kFrameworkCudaMismatchRule,
                   GpuHostWith({Env("/venv/lib/python3.12/site-packages",
                                    {Torch("2.9.0+cu130", CudaVersion{13, 0, std::nullopt})})}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "framework.cuda_mismatch");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.title.en.find("/venv/lib/python3.12/site-packages"), std::string::npos);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_NE(f.evidence[0].text.en.find("torch 2.9.0+cu130 is built for CUDA 13.0"),
            std::string::npos);
}

TEST(FrameworkCudaMismatchRule, CpuOnlyBuildIsAWarningUnlessAUsableBuildExistsElsewhere) {
  auto alone = RunRule(kFrameworkCudaMismatchRule,
                       GpuHostWith({Env("/usr/lib/python3/dist-packages",
                                        {Torch("2.3.1+cpu", std::nullopt, true)})}));
  ASSERT_EQ(alone.findings.size(), 1u);
  EXPECT_EQ(alone.findings[0].severity, Severity::kWarning);

  auto with_cuda = RunRule(
      kFrameworkCudaMismatchRule,
      GpuHostWith({Env("/usr/lib/python3/dist-packages", {Torch("2.3.1+cpu", std::nullopt, true)}),
                   Env("/opt/conda/lib/python3.11/site-packages",
                       {Torch("2.3.1+cu121", CudaVersion{12, 1, std::nullopt})})}));
  ASSERT_EQ(with_cuda.findings.size(), 1u);
  EXPECT_EQ(with_cuda.findings[0].severity, Severity::kInfo);
}

TEST(FrameworkCudaMismatchRule, MixedMajorsWarnWhenAFrameworkLoadsThem) {
  PythonEnvironment env = Env("/venv/lib/python3.11/site-packages",
                              {Torch("2.3.1+cu121", CudaVersion{12, 1, std::nullopt})});
  env.cuda_majors = {11, 12};
  env.issues = {FrameworkIssueId::kMixedCudaMajors};
  auto d = RunRule(kFrameworkCudaMismatchRule, GpuHostWith({env}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("majors 11, 12"), std::string::npos);
}

TEST(FrameworkCudaMismatchRule, QuietForMatchingBuildsAndForCpuBuildsOnAHostWithoutGpus) {
  auto d = RunRule(kFrameworkCudaMismatchRule,
                   GpuHostWith({Env("/opt/conda/lib/python3.11/site-packages",
                                    {Torch("2.3.1+cu121", CudaVersion{12, 1, std::nullopt})})}));
  EXPECT_TRUE(d.findings.empty());

  DiagnosisInput cpu_host;
  cpu_host.versions = TestVersions();
  cpu_host.versions->frameworks.environments = {
      Env("/usr/lib/python3/dist-packages", {Torch("2.3.1+cpu", std::nullopt, true)})};
  cpu_host.pci = TestPci({});
  EXPECT_TRUE(RunRule(kFrameworkCudaMismatchRule, cpu_host).findings.empty());
}

TEST(FrameworkCudaMismatchRule, NotCheckedWithoutVersions) {
  auto d = RunRule(kFrameworkCudaMismatchRule, RepeatedReadings({HealthyGpu(0)}, 1));
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "framework.cuda_mismatch");
}

}  // namespace
}  // namespace gpudoctor::testing
