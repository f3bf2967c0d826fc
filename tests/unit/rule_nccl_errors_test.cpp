#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

KernelEvent Timeout() {
  return MakeEvent(KernelEventKind::kNcclTimeout, std::nullopt, "",
                   "Watchdog caught collective operation timeout");
}

TEST(NcclErrorsRule, WithoutFabricSignsPointsToTheJob) {
  auto d = RunRule(kNcclErrorsRule, WithEvents({Timeout()}, RepeatedReadings({HealthyGpu(0)}, 2)));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "nccl.errors");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.explanation.en.find("one rank died or hung"), std::string::npos);
  ExpectBilingual(d);
}

TEST(NcclErrorsRule, NvlinkXidPointsToTheFabric) {
  auto d = RunRule(kNcclErrorsRule,
                   WithEvents({XidEvent(74, "0000:18:00.0", "NVLink error"), Timeout()}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].explanation.en.find("GPU fabric is the likely cause"), std::string::npos);
}

TEST(NcclErrorsRule, StoppedFabricManagerPointsToTheFabric) {
  DiagnosisInput input;
  input.versions = VersionFacts{};
  input.versions->fabric_manager.nvswitch_present = true;
  input.versions->fabric_manager.service =
      ServiceState{"nvidia-fabricmanager.service", "loaded", "failed", "failed", 1, 0};
  auto d = RunRule(kNcclErrorsRule, WithEvents({Timeout()}, input));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].explanation.en.find("Fabric Manager"), std::string::npos);
  ExpectBilingual(d);
}

TEST(NcclErrorsRule, AFlappingRdmaPortInTheSameWindowIsNamedWithItsGpu) {
  DiagnosisInput input;
  input.network = NetFacts{};
  input.rdma_history = {IbPortReading("mlx5_4", "0000:3b:00.0", 0, 0)};
  input.network->rdma = IbPortReading("mlx5_4", "0000:3b:00.0", 10, 2);
  KernelEvent timeout = Timeout();
  timeout.time = TestTime(30);
  auto d = RunRule(kNcclErrorsRule, WithEvents({timeout}, input));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_NE(f.explanation.en.find("inter-node fabric is the likely cause"), std::string::npos);
  bool named = false;
  for (const auto& e : f.evidence) {
    named |= e.text.en.find("mlx5_4 port 1 (InfiniBand; next to GPU 0000:3b:00.0): link_downed "
                            "rose by 2, in the window of the NCCL timeout") != std::string::npos;
  }
  EXPECT_TRUE(named);
  ExpectBilingual(d);
  // A timeout hours away from the port readings is not tied to the port.
  timeout.time = TestTime(-7200);
  auto apart = RunRule(kNcclErrorsRule, WithEvents({timeout}, input));
  ASSERT_EQ(apart.findings.size(), 1u);
  EXPECT_EQ(apart.findings[0].explanation.en.find("inter-node"), std::string::npos);
}

TEST(NcclErrorsRule, QuietWithoutNcclEvents) {
  auto d = RunRule(kNcclErrorsRule, WithEvents({}, RepeatedReadings({HealthyGpu(0)}, 2)));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
