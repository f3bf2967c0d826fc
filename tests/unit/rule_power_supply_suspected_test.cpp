#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

KernelEvent Lost(unsigned gpu, double seconds) {
  return XidEvent(79, HealthyGpu(gpu).pci_bus_id, "GPU has fallen off the bus.", TestTime(seconds));
}

TEST(PowerSupplySuspectedRule, ThreeGpusLostWithinASecond) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0), HealthyGpu(1), HealthyGpu(2)});
  for (auto& g : readings[9]) g.power_draw_w = 690;
  auto input = WithEvents({Lost(0, 9.2), Lost(1, 9.5), Lost(2, 10.0)}, InputFromReadings(readings));
  auto d = RunRule(kPowerSupplySuspectedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.supply_suspected");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus.size(), 3u);
  EXPECT_NE(f.title.en.find("3 GPUs lost within 0.8 s"), std::string::npos) << f.title.en;
  bool draw = false;
  for (const auto& e : f.evidence) draw = draw || (e.unit == "watts" && e.value == 690);
  EXPECT_TRUE(draw);
  EXPECT_NE(f.explanation.en.find("high power"), std::string::npos);
  ExpectBilingual(d);
}

TEST(PowerSupplySuspectedRule, MonotonicTimesAreEnough) {
  KernelEvent a = Lost(0, 0), b = Lost(1, 0);
  a.time.reset();
  b.time.reset();
  a.monotonic_s = 100.0;
  b.monotonic_s = 101.5;
  auto d = RunRule(kPowerSupplySuspectedRule, WithEvents({a, b}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].gpus.size(), 2u);
}

TEST(PowerSupplySuspectedRule, QuietForOneGpuOrLossesFarApart) {
  EXPECT_TRUE(RunRule(kPowerSupplySuspectedRule, WithEvents({Lost(0, 1)})).findings.empty());
  auto d = RunRule(kPowerSupplySuspectedRule, WithEvents({Lost(0, 1), Lost(1, 600)}));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(PowerSupplySuspectedRule, UntimedLossesAreNotJudged) {
  KernelEvent a = Lost(0, 0), b = Lost(1, 0);
  a.time.reset();
  b.time.reset();
  auto d = RunRule(kPowerSupplySuspectedRule, WithEvents({a, b}));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  ExpectBilingual(d);
}

// A GPU lost before it was first seen has no bus id: the agent's store keeps
// its readings as "index:5" and NVML's loss event names no GPU. The two are
// one lost GPU, not "2 GPUs lost within 0 s".
KernelEvent UnnamedNvmlLoss(double seconds) {
  KernelEvent e;
  e.kind = KernelEventKind::kGpuLost;
  e.time = TestTime(seconds);
  e.message = "GPU 5 did not answer when first seen (lost)";
  e.source = SourceRef{"nvml", 0};
  return e;
}

DiagnosisInput WithUnnamedLostGpu() {
  GpuStatus lost;
  lost.index = 5;
  lost.state = GpuState::kLost;
  auto input = InputFromReadings(std::vector<std::vector<GpuStatus>>(4, {HealthyGpu(0), lost}));
  // Named as every reader names it (core/gpu_key.h).
  EXPECT_EQ(input.gpus.back().key, "index:5");
  return input;
}

TEST(PowerSupplySuspectedRule, AnUnnamedLostGpuAndItsEventAreOneGpu) {
  auto input = WithEvents({UnnamedNvmlLoss(0)}, WithUnnamedLostGpu());
  ASSERT_EQ(input.gpus.size(), 2u);
  auto d = RunRule(kPowerSupplySuspectedRule, input);
  EXPECT_TRUE(d.findings.empty()) << d.findings[0].title.en;
}

// The same once the store knows the GPU's bus id (it answered after a
// restart): its lost readings and the event that named no GPU are one loss.
TEST(PowerSupplySuspectedRule, AnUnnamedEventIsTheGpuWhoseReadingsShowTheLoss) {
  auto input = WithEvents({UnnamedNvmlLoss(0.5)}, WithUnnamedLostGpu());
  for (GpuSeries& g : input.gpus) {
    if (g.key == "index:5") g.key = "0000:06:00.0";
  }
  EXPECT_TRUE(RunRule(kPowerSupplySuspectedRule, input).findings.empty());
}

TEST(PowerSupplySuspectedRule, AnUnnamedLossBesideANamedOneIsTwoGpus) {
  auto input = WithEvents({UnnamedNvmlLoss(0), Lost(0, 1)}, WithUnnamedLostGpu());
  auto d = RunRule(kPowerSupplySuspectedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("2 GPUs lost"), std::string::npos)
      << d.findings[0].title.en;
  // An event naming no GPU, with no readings to pin it on, is a GPU too.
  auto events_only = RunRule(kPowerSupplySuspectedRule, WithEvents({UnnamedNvmlLoss(0), Lost(1, 2)}));
  ASSERT_EQ(events_only.findings.size(), 1u);
}

}  // namespace
}  // namespace gpudoctor::testing
