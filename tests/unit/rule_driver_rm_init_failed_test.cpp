#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(DriverRmInitFailedRule, InitFailureIsCriticalAndNamesTheLoss) {
  const std::string bus = "0000:09:00.0";
  KernelEvent lost = MakeEvent(KernelEventKind::kFallenOffBus, std::nullopt, bus, "fallen off");
  KernelEvent init = MakeEvent(KernelEventKind::kRmInitFailed, std::nullopt, bus,
                               "RmInitAdapter failed! (0x22:0x56:894)");
  init.detail = "(0x22:0x56:894)";
  init.count = 2;
  auto d = RunRule(kDriverRmInitFailedRule, WithEvents({lost, init}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "driver.rm_init_failed");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{bus});
  EXPECT_EQ(f.evidence[0].value, 2);
  EXPECT_NE(f.explanation.en.find("falling off the bus"), std::string::npos);
  ExpectBilingual(d);
}

TEST(DriverRmInitFailedRule, ProbeFailureWithoutBusIsHostWide) {
  KernelEvent probe = MakeEvent(KernelEventKind::kProbeFailed, std::nullopt, "",
                                "The NVIDIA probe routine failed for 1 device(s).");
  auto d = RunRule(kDriverRmInitFailedRule, WithEvents({probe}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_TRUE(d.findings[0].gpus.empty());
}

TEST(DriverRmInitFailedRule, QuietWithoutFailures) {
  auto d =
      RunRule(kDriverRmInitFailedRule,
              WithEvents({MakeEvent(KernelEventKind::kDriverLoaded, std::nullopt, "", "loading")},
                         RepeatedReadings({HealthyGpu(0)}, 2)));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
