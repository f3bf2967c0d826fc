// gpu.recovery_action (the driver's NVML request as a finding) and the
// engine's recovery action on every finding: the policy, the driver's
// request when stricter, a cloud instance, folds with Xid 154.
#include <gtest/gtest.h>

#include "core/recovery_action.h"
#include "rules/engine/cause_fold.h"
#include "rules/gpu_health/group.h"
#include "rules/kernel_events/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(GpuRecoveryActionRule, TheDriversRequestIsAFindingWithItsAction) {
  GpuStatus g = HealthyGpu(1);
  g.recovery_action = 2;
  auto d = RunRule(kGpuRecoveryActionRule, RepeatedReadings({HealthyGpu(0), g}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "gpu.recovery_action");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.recommended, RecoveryAction::kRebootNode);
  EXPECT_TRUE(f.recommended_by_driver);
  EXPECT_EQ(d.recommended, RecoveryAction::kRebootNode);
  EXPECT_EQ(d.gpus[1].recommended, RecoveryAction::kRebootNode);
  EXPECT_EQ(d.gpus[0].recommended, RecoveryAction::kNone);
}

TEST(GpuRecoveryActionRule, DrainIsAWarningAndAnUnknownValueIsNamed) {
  GpuStatus drain = HealthyGpu(0);
  drain.recovery_action = 3;
  GpuStatus odd = HealthyGpu(1);
  odd.recovery_action = 9;
  auto d = RunRule(kGpuRecoveryActionRule, RepeatedReadings({drain, odd}, 2));
  ASSERT_EQ(d.findings.size(), 2u);
  for (const Finding& f : d.findings) EXPECT_EQ(f.severity, Severity::kWarning);
  const Finding& first = d.findings[0];
  EXPECT_EQ(first.recommended, RecoveryAction::kDrainAndReset);
  const Finding& second = d.findings[1];
  EXPECT_NE(second.title.en.find("unknown (9)"), std::string::npos) << second.title.en;
  EXPECT_FALSE(second.recommended_by_driver);
}

TEST(GpuRecoveryActionRule, QuietOnNoneAndOnOlderDrivers) {
  GpuStatus none = HealthyGpu(0);
  none.recovery_action = 0;
  GpuStatus old = HealthyGpu(1);
  old.recovery_action.reset();
  auto d = RunRule(kGpuRecoveryActionRule, RepeatedReadings({none, old}, 3));
  EXPECT_TRUE(d.findings.empty());
}

TEST(RecoveryEngine, FindingsGetThePolicyAndTheDriverRaisesThem) {
  GpuStatus g = HealthyGpu(0);
  g.ecc_volatile_uncorrected = 1;  // ecc.uncorrectable, critical: reset the GPU
  auto d = RunRule(kEccUncorrectableRule, RepeatedReadings({g}, 3));
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].recommended, RecoveryAction::kResetGpu);
  EXPECT_FALSE(d.findings[0].recommended_by_driver);
  g.recovery_action = 2;  // the driver wants more
  d = RunRule(kEccUncorrectableRule, RepeatedReadings({g}, 3));
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].recommended, RecoveryAction::kRebootNode);
  EXPECT_TRUE(d.findings[0].recommended_by_driver);
  g.recovery_action = 1;  // the driver wants less: the stricter stays
  d = RunRule(kEccUncorrectableRule, RepeatedReadings({g}, 3));
  EXPECT_EQ(d.findings[0].recommended, RecoveryAction::kResetGpu);
}

TEST(RecoveryEngine, OnACloudInstanceHardwareIsTheProvidersAndInfoNeedsNothing) {
  GpuStatus g = HealthyGpu(0);
  g.remapped_rows_failure = true;  // ecc.row_remap critical: hardware inspection
  DiagnosisInput input = RepeatedReadings({g}, 2);
  auto bare = RunRule(kEccRowRemapRule, input);
  ASSERT_FALSE(bare.findings.empty());
  EXPECT_EQ(bare.findings[0].recommended, RecoveryAction::kHardwareInspection);
  input.versions = VersionFacts{};
  input.versions->stack.virtual_machine = true;
  auto vm = RunRule(kEccRowRemapRule, input);
  EXPECT_EQ(vm.findings[0].recommended, RecoveryAction::kContactProvider);
  GpuStatus past = HealthyGpu(0);
  past.remapped_rows_uncorrected = 2;  // info
  auto info = RunRule(kEccRowRemapRule, RepeatedReadings({past}, 2));
  ASSERT_FALSE(info.findings.empty());
  EXPECT_EQ(info.findings[0].recommended, RecoveryAction::kNone);
}

TEST(RecoveryEngine, XidFindingsTakeTheCatalogsAction) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 2);
  input.kernel = KernelFacts{};
  input.kernel->events.push_back(
      MakeEvent(KernelEventKind::kXid, 79, HealthyGpu(0).pci_bus_id,
                "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus.", TestTime(1)));
  auto d = RunRule(kXidFallenOffBusRule, input);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].recommended, RecoveryAction::kRebootNode);
}

TEST(RecoveryEngine, TheDriversRequestAndItsXid154AreOneFinding) {
  GpuStatus g = HealthyGpu(0);
  g.recovery_action = 1;
  DiagnosisInput input = RepeatedReadings({g}, 2);
  input.kernel = KernelFacts{};
  input.kernel->events.push_back(MakeEvent(
      KernelEventKind::kXid, 154, g.pci_bus_id,
      "NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
      TestTime(1)));
  input.kernel->events.back().detail = "GPU Reset Required";
  Diagnosis d = Diagnose(input, {&kGpuRecoveryActionRule, &kXidRecoveryActionRule});
  ASSERT_EQ(d.findings.size(), 2u);
  FoldCauses(d);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].recommended, RecoveryAction::kResetGpu);
  EXPECT_EQ(d.recommended, RecoveryAction::kResetGpu);
}

}  // namespace
}  // namespace gpudoctor::testing
