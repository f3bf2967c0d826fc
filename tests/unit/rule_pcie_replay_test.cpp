#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput ReplaysOver(std::initializer_list<std::int64_t> counts) {
  std::vector<std::vector<GpuStatus>> readings;
  for (std::int64_t c : counts) {
    GpuStatus g = HealthyGpu(1);
    g.pcie_replay_count = c;
    readings.push_back({HealthyGpu(0), g});
  }
  return InputFromReadings(readings);
}

TEST(PcieReplayRule, RisingFastIsAWarning) {
  auto d = RunRule(kPcieReplayRule, ReplaysOver({0, 5, 10, 15, 20}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "pcie.replay");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(1).pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 20.0);  // 20 in 4 s: counted as one minute
  EXPECT_EQ(f.evidence[0].unit, "per_minute");
  EXPECT_EQ(f.actions[0].command, "sudo lspci -vvv -s 0000:19:00.0 | grep -i -E 'LnkSta|CESta'");
}

TEST(PcieReplayRule, AFewReplaysAreInfo) {
  auto d = RunRule(kPcieReplayRule, ReplaysOver({100, 100, 102, 103}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[0].value, 3.0);
}

TEST(PcieReplayRule, CounterResetCountsTheNewValue) {
  auto d = RunRule(kPcieReplayRule, ReplaysOver({500, 2}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].evidence[0].value, 2.0);
}

TEST(PcieReplayRule, StaticTotalsStayQuietUnlessInTheThousands) {
  EXPECT_TRUE(RunRule(kPcieReplayRule, ReplaysOver({120, 120, 120})).findings.empty());
  EXPECT_TRUE(RunRule(kPcieReplayRule, ReplaysOver({120})).findings.empty());
  auto d = RunRule(kPcieReplayRule, ReplaysOver({5000}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[0].value, 5000.0);
}

TEST(PcieReplayRule, QuietOnHealthyAndMissingCounters) {
  GpuStatus none = HealthyGpu(1);
  none.pcie_replay_count.reset();
  auto d = RunRule(kPcieReplayRule, RepeatedReadings({HealthyGpu(0), none}, 10));
  EXPECT_TRUE(d.findings.empty());
}

// 58-120 replays since reset on every GPU of a working 8-GPU H100 node: a
// total without a time base is no alarm.
TEST(PcieReplayRule, QuietOnTheH100CaptureWithOldReplays) {
  auto input = InputFromTextFixture("gpud-h100x8-535.183.01-q-replays.txt");
  if (!input) GTEST_SKIP() << "shared fixtures missing";
  ASSERT_EQ(input->gpus.size(), 8u);
  EXPECT_EQ(input->gpus[0].latest().pcie_replay_count, 120);
  auto d = RunRule(kPcieReplayRule, *input);
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
