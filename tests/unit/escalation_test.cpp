// Escalation (agent/escalation.h): which findings count, the boots a history
// counts for (once per boot, the dedup window across boots), the thresholds
// (default, per Xid, Xid 94 never), and the GPU's identity.
#include "agent/escalation.h"

#include <gtest/gtest.h>

#include "support/rule_testing.h"

namespace gpudoctor {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

WallTime T(int s) { return WallTime(seconds(1'800'000'000 + s)); }

Finding Xid79(RecoveryAction action = RecoveryAction::kRebootNode) {
  Finding f;
  f.id = "xid.fallen_off_bus";
  f.severity = Severity::kCritical;
  f.gpus = {"0000:3b:00.0"};
  f.xids = {79};
  f.recommended = action;
  return f;
}

TEST(Escalation, OnlyWarningsAndCriticalsThatARebootOrResetShouldFixCount) {
  auto causes = EscalatingCauses(Xid79());
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0], (RecurringCause{"xid.fallen_off_bus", 79}));
  EXPECT_EQ(EscalatingCauses(Xid79(RecoveryAction::kResetGpu)).size(), 1u);
  EXPECT_EQ(EscalatingCauses(Xid79(RecoveryAction::kDrainAndReset)).size(), 1u);
  // Not what a reboot fixes: an application's error, or already inspection.
  EXPECT_TRUE(EscalatingCauses(Xid79(RecoveryAction::kRestartApplication)).empty());
  EXPECT_TRUE(EscalatingCauses(Xid79(RecoveryAction::kHardwareInspection)).empty());
  EXPECT_TRUE(EscalatingCauses(Xid79(RecoveryAction::kNone)).empty());
  Finding info = Xid79();
  info.severity = Severity::kInfo;
  EXPECT_TRUE(EscalatingCauses(info).empty());
  Finding latched = Xid79();
  latched.id = "gpu.needs_inspection";
  EXPECT_TRUE(EscalatingCauses(latched).empty());
  // No Xid: the finding itself; two Xids: one cause each.
  Finding ecc = Xid79(RecoveryAction::kResetGpu);
  ecc.id = "ecc.uncorrectable";
  ecc.xids.clear();
  EXPECT_EQ(EscalatingCauses(ecc), (std::vector<RecurringCause>{{"ecc.uncorrectable", {}}}));
  Finding two = Xid79();
  two.xids = {48, 63};
  EXPECT_EQ(EscalatingCauses(two).size(), 2u);
}

TEST(Escalation, ABootCountsOnceAndRepeatsWithinTheDedupWindowCountOnce) {
  const auto dedup = minutes(3);
  EXPECT_EQ(CountedBoots({}, dedup), 0);
  EXPECT_EQ(CountedBoots({{T(0), "a"}, {T(600), "a"}, {T(7200), "a"}}, dedup), 1);
  EXPECT_EQ(CountedBoots({{T(0), "a"}, {T(3600), "b"}, {T(7200), "c"}}, dedup), 3);
  // Out of order in, counted in time order.
  EXPECT_EQ(CountedBoots({{T(7200), "c"}, {T(0), "a"}, {T(3600), "b"}}, dedup), 3);
  // A reboot 2 minutes after the last counted occurrence (a crash loop, or
  // the same log read again) does not count; one 3 minutes after does.
  EXPECT_EQ(CountedBoots({{T(0), "a"}, {T(120), "b"}, {T(3600), "c"}}, dedup), 2);
  EXPECT_EQ(CountedBoots({{T(0), "a"}, {T(180), "b"}}, dedup), 2);
}

TEST(Escalation, RecurringAfterNRebootsEscalatesAndZeroNever) {
  EXPECT_FALSE(Escalates(1, 2));
  EXPECT_FALSE(Escalates(2, 2));  // seen again after one reboot
  EXPECT_TRUE(Escalates(3, 2));   // seen again after two reboots
  EXPECT_TRUE(Escalates(2, 1));
  EXPECT_FALSE(Escalates(50, 0));
}

TEST(Escalation, ThresholdsComeFromTheXidThenTheDefault) {
  EscalationConfig c;
  EXPECT_EQ(RebootsBeforeEscalation(c, {"xid.fallen_off_bus", 79}), 2);
  EXPECT_EQ(RebootsBeforeEscalation(c, {"ecc.uncorrectable", {}}), 2);
  EXPECT_EQ(RebootsBeforeEscalation(c, {"xid.memory", 94}), 0) << "Xid 94 never escalates";
  c.after_reboots = 3;
  c.xid_after_reboots[79] = 1;
  EXPECT_EQ(RebootsBeforeEscalation(c, {"xid.fallen_off_bus", 79}), 1);
  EXPECT_EQ(RebootsBeforeEscalation(c, {"xid.memory", 48}), 3);
}

TEST(Escalation, TheGpusIdentityIsItsLatestUuidAndSerial) {
  GpuStatus g = testing::HealthyGpu(0);
  g.uuid = "GPU-1111";
  g.serial = "1650000000001";
  GpuStatus later = g;
  later.uuid.clear();  // a reading that lost it (a GPU gone)
  later.serial.reset();
  DiagnosisInput input = testing::InputFromReadings({{g}, {later}});
  GpuIdentity id = IdentityOf(input, g.pci_bus_id);
  EXPECT_EQ(id.uuid, "GPU-1111");
  EXPECT_EQ(id.serial, "1650000000001");
  EXPECT_TRUE(IdentityOf(input, "0000:99:00.0").uuid.empty());
}

}  // namespace
}  // namespace gpudoctor
