#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus AtClock(std::int64_t mhz, std::uint64_t reasons = 0) {
  GpuStatus g = HealthyGpu(0);
  g.clocks_sm_mhz = mhz;
  g.clocks_max_sm_mhz = 1980;
  g.clock_event_reasons_mask = reasons;
  return g;
}

TEST(StressClocksHeldRule, HeldDownWithoutReason) {
  auto input = StressInput({{AtClock(1980)}, {AtClock(1200)}, {AtClock(1200)}, {AtClock(1200)}, {AtClock(1200)}});
  auto d = RunRule(kStressClocksHeldRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.clocks_held");
  EXPECT_NE(f.title.en.find("held its SM clock at 1200 of 1980 MHz"), std::string::npos) << f.title.en;
  EXPECT_NE(f.evidence[0].text.en.find("4 of 4 burn samples"), std::string::npos) << f.evidence[0].text.en;
}

TEST(StressClocksHeldRule, AReasonOrABoostIsNotHeld) {
  // Power-capped: the reason explains the clock (stress.power_brake and the
  // reasons in the report cover it).
  std::uint64_t cap = ClockReasonBit("sw_power_cap");
  auto capped = StressInput({{AtClock(1980)}, {AtClock(1200, cap)}, {AtClock(1200, cap)}, {AtClock(1200, cap)}});
  EXPECT_TRUE(RunRule(kStressClocksHeldRule, capped).findings.empty());
  auto boosting = StressInput({{AtClock(1980)}, {AtClock(1950)}, {AtClock(1980)}, {AtClock(1965)}});
  EXPECT_TRUE(RunRule(kStressClocksHeldRule, boosting).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
