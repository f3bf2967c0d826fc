#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput EightGpus(unsigned cores, bool with_work = true) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 8; ++i) {
    gpus.push_back(HealthyGpu(i));
    if (!with_work) gpus.back().processes = std::vector<GpuProcess>{};
  }
  DiagnosisInput input = RepeatedReadings(gpus, 3);
  input.host = TestHost(20, 0, 0, cores);
  return input;
}

TEST(CpuCoresPerGpuRule, BelowTwoCoresPerBusyGpuIsAWarning) {
  auto d = RunRule(kCpuCoresPerGpuRule, EightGpus(12));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "cpu.cores_per_gpu");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(f.gpus.empty());  // host-wide
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_DOUBLE_EQ(*f.evidence[0].value, 1.5);
  EXPECT_EQ(f.evidence[0].unit, "cores");
}

TEST(CpuCoresPerGpuRule, BelowFourIsInfoAndIdleGpusAreNeverWarned) {
  auto few = RunRule(kCpuCoresPerGpuRule, EightGpus(24));
  ASSERT_EQ(few.findings.size(), 1u);
  EXPECT_EQ(few.findings[0].severity, Severity::kInfo);
  auto idle = RunRule(kCpuCoresPerGpuRule, EightGpus(8, false));
  ASSERT_EQ(idle.findings.size(), 1u);
  EXPECT_EQ(idle.findings[0].severity, Severity::kInfo);
}

TEST(CpuCoresPerGpuRule, CgroupQuotaIsNamedWithItsRemedy) {
  DiagnosisInput input = EightGpus(128);
  input.host->cpu.cgroup_quota_cores = 16;
  input.host->cpu.effective_cores = 16;
  auto d = RunRule(kCpuCoresPerGpuRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);  // 2 per GPU
  ASSERT_GE(d.findings[0].evidence.size(), 2u);
  EXPECT_DOUBLE_EQ(*d.findings[0].evidence[1].value, 16.0);
}

TEST(CpuCoresPerGpuRule, QuietWithFourOrMoreCoresPerGpu) {
  EXPECT_TRUE(RunRule(kCpuCoresPerGpuRule, EightGpus(32)).findings.empty());
  EXPECT_TRUE(RunRule(kCpuCoresPerGpuRule, EightGpus(128)).findings.empty());
}

TEST(CpuCoresPerGpuRule, UnknownCoresIsNotCheckedAndNoGpuIsQuiet) {
  DiagnosisInput input = EightGpus(12);
  input.host->cpu.effective_cores.reset();
  auto d = RunRule(kCpuCoresPerGpuRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);

  DiagnosisInput no_gpu;
  no_gpu.gpu_readings = true;
  no_gpu.nvml_loaded = true;
  no_gpu.host = TestHost(20, 0, 0, 1);
  auto none = RunRule(kCpuCoresPerGpuRule, no_gpu);
  EXPECT_TRUE(none.findings.empty());
  EXPECT_TRUE(none.not_checked.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
