#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(HostMemoryPressureRule, SwapInIsAWarning) {
  HostFacts host = TestHost();
  host.memory.swap_in_bytes_per_s = 12.0 * 1024 * 1024;
  host.memory.swap_used_bytes = 6 * kGiB;
  auto d = RunRule(kHostMemoryPressureRule, HostInput(host));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "host.memory_pressure");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(f.gpus.empty());
  bool rate_seen = false;
  for (const auto& e : f.evidence) {
    rate_seen |= e.unit == "bytes_per_second" && e.value == 12.0 * 1024 * 1024;
  }
  EXPECT_TRUE(rate_seen);
  EXPECT_NE(f.title.en.find("swapping"), std::string::npos);
}

TEST(HostMemoryPressureRule, AlmostNoAvailableMemoryIsAWarning) {
  HostFacts host = TestHost();
  host.memory.available_bytes = 20 * kGiB;  // 2 % of 1 TiB
  auto d = RunRule(kHostMemoryPressureRule, HostInput(host));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NEAR(*d.findings[0].evidence[0].value, 1.95, 0.01);
}

TEST(HostMemoryPressureRule, SwapOutOrManyMajorFaultsAloneAreInfo) {
  HostFacts out = TestHost();
  out.memory.swap_out_bytes_per_s = 5.0 * 1024 * 1024;
  auto swap_out = RunRule(kHostMemoryPressureRule, HostInput(out));
  ASSERT_EQ(swap_out.findings.size(), 1u);
  EXPECT_EQ(swap_out.findings[0].severity, Severity::kInfo);
  HostFacts faults = TestHost();
  faults.memory.major_faults_per_s = 5000;
  auto f = RunRule(kHostMemoryPressureRule, HostInput(faults));
  ASSERT_EQ(f.findings.size(), 1u);
  EXPECT_EQ(f.findings[0].severity, Severity::kInfo);
}

TEST(HostMemoryPressureRule, QuietOnAHealthyHostAndOnSmallSwapTraffic) {
  EXPECT_TRUE(RunRule(kHostMemoryPressureRule, HostInput(TestHost())).findings.empty());
  HostFacts trickle = TestHost();
  trickle.memory.swap_in_bytes_per_s = 64.0 * 1024;
  EXPECT_TRUE(RunRule(kHostMemoryPressureRule, HostInput(trickle)).findings.empty());
}

TEST(HostMemoryPressureRule, UnreadableMemoryIsNotChecked) {
  HostFacts host = TestHost();
  host.memory = MemoryFacts{};
  auto d = RunRule(kHostMemoryPressureRule, HostInput(host));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "host.memory_pressure");
}

}  // namespace
}  // namespace gpudoctor::testing
