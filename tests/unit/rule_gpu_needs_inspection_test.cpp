// gpu.needs_inspection: a latched finding (the agent's escalation) is one
// critical finding per GPU naming every latched cause, with hardware
// inspection as its action (the provider's on a VM), whether or not the GPU
// is still read; nothing without latches.
#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

LatchedFinding Latch(const std::string& gpu, const std::string& finding, std::optional<int> xid) {
  LatchedFinding l;
  l.finding_id = finding;
  l.xid = xid;
  l.gpu = gpu;
  l.uuid = "GPU-" + gpu;
  l.serial = "1650000000001";
  l.boots = 3;
  l.after_reboots = 2;
  l.first_seen = TestTime(0);
  l.since = TestTime(7200);
  l.title_en = "it fell off the bus";
  l.title_zh = "它从总线上掉线";
  return l;
}

TEST(GpuNeedsInspectionRule, OneCriticalFindingPerLatchedGpuForHardwareInspection) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 3);
  const std::string gpu0 = HealthyGpu(0).pci_bus_id;
  input.latched = {Latch(gpu0, "xid.fallen_off_bus", 79),
                   Latch("0000:99:00.0", "ecc.uncorrectable", {}),
                   Latch(gpu0, "gpu.recovery_action", {})};
  auto d = RunRule(kGpuNeedsInspectionRule, input);
  ASSERT_EQ(d.findings.size(), 2u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "gpu.needs_inspection");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{gpu0});
  EXPECT_EQ(f.recommended, RecoveryAction::kHardwareInspection);
  EXPECT_NE(f.title.en.find("GPU 0 (" + gpu0 +
                            ") failed again after 2 reboot(s): Xid 79 "
                            "(xid.fallen_off_bus), gpu.recovery_action"),
            std::string::npos)
      << f.title.en;
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[0].text.en.find("seen in 3 boots"), std::string::npos)
      << f.evidence[0].text.en;
  EXPECT_EQ(f.evidence[0].value, 3);
  bool ack_command = false;
  for (const auto& a : f.actions) {
    ack_command = ack_command || a.command == "sudo gpudoctor ack gpu.needs_inspection --gpu " +
                                                  gpu0 + " --reason '...'";
  }
  EXPECT_TRUE(ack_command);
  // A GPU no longer read (replaced, or gone) is named by its bus id.
  EXPECT_NE(d.findings[1].title.en.find("GPU 0000:99:00.0 failed again"), std::string::npos)
      << d.findings[1].title.en;
  EXPECT_EQ(d.recommended, RecoveryAction::kHardwareInspection);
}

TEST(GpuNeedsInspectionRule, TheProviderInspectsOnACloudInstanceAndNothingWithoutLatches) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 2);
  EXPECT_TRUE(RunRule(kGpuNeedsInspectionRule, input).findings.empty());
  input.latched = {Latch(HealthyGpu(0).pci_bus_id, "xid.fallen_off_bus", 79)};
  input.versions.emplace();
  input.versions->stack.virtual_machine = true;
  auto d = RunRule(kGpuNeedsInspectionRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].recommended, RecoveryAction::kContactProvider);
}

}  // namespace
}  // namespace gpudoctor::testing
