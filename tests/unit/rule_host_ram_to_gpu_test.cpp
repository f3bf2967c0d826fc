#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

// `gpus` H100-like GPUs of 80 GiB each, on a host with `ram_gib` of RAM.
DiagnosisInput Machine(unsigned gpus, std::uint64_t ram_gib) {
  std::vector<GpuStatus> list;
  for (unsigned i = 0; i < gpus; ++i) list.push_back(HealthyGpu(i));
  DiagnosisInput input = RepeatedReadings(list, 1);
  input.host = TestHost();
  input.host->memory.total_bytes = ram_gib * kGiB;
  return input;
}

TEST(HostRamToGpuRule, LessRamThanGpuMemoryIsAWarning) {
  auto d = RunRule(kHostRamToGpuRule, Machine(8, 512));  // 512 GiB for 640 GiB
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "host.ram_to_gpu");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_DOUBLE_EQ(*f.evidence[0].value, 0.8);
  EXPECT_EQ(f.evidence[0].unit, "ratio");
}

TEST(HostRamToGpuRule, BetweenOnceAndTwiceIsInfo) {
  auto d = RunRule(kHostRamToGpuRule, Machine(8, 1024));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(HostRamToGpuRule, TighterContainerLimitCounts) {
  DiagnosisInput input = Machine(2, 2048);
  input.host->cgroup.memory_limit_bytes = 200 * kGiB;  // 200 GiB for 160 GiB of GPU memory
  auto d = RunRule(kHostRamToGpuRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_NE(d.findings[0].evidence[1].text.en.find("container memory limit"), std::string::npos);
}

TEST(HostRamToGpuRule, QuietAtTwiceTheGpuMemoryOrMore) {
  EXPECT_TRUE(RunRule(kHostRamToGpuRule, Machine(2, 1024)).findings.empty());
  EXPECT_TRUE(RunRule(kHostRamToGpuRule, Machine(8, 2048)).findings.empty());
}

TEST(HostRamToGpuRule, UnknownGpuMemoryFallsBackToTheCollectorOrIsNotChecked) {
  DiagnosisInput input = Machine(1, 64);
  input.gpus[0].readings[0].memory_total_bytes.reset();
  auto unknown = RunRule(kHostRamToGpuRule, input);
  EXPECT_TRUE(unknown.findings.empty());
  ASSERT_EQ(unknown.not_checked.size(), 1u);

  input.host->ram_to_gpu = RamToGpuRatio{0.5, "low", ""};
  auto collected = RunRule(kHostRamToGpuRule, input);
  ASSERT_EQ(collected.findings.size(), 1u);
  EXPECT_EQ(collected.findings[0].severity, Severity::kWarning);
}

}  // namespace
}  // namespace gpudoctor::testing
