// `gpudoctor stress` options into a plan: the tests in the order they run,
// and a one-line error naming the option for anything else.
#include <gtest/gtest.h>

#include "stress/stress_plan.h"

namespace gpudoctor {
namespace {

TEST(StressPlan, TestsRunShortMeasurementsFirstAndTheBurnLast) {
  StressOptions o;
  o.tests = "power,p2p,memory,hbm,pcie,memory";
  auto plan = MakeStressPlan(o);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->tests.size(), 5u);
  EXPECT_EQ(plan->tests[0], StressTest::kHbm);
  EXPECT_EQ(plan->tests[1], StressTest::kMemory);
  EXPECT_EQ(plan->tests[2], StressTest::kPcie);
  EXPECT_EQ(plan->tests[3], StressTest::kP2p);
  EXPECT_EQ(plan->tests[4], StressTest::kPower);
  EXPECT_EQ(plan->duration, std::chrono::seconds(60));
  EXPECT_FALSE(plan->staggered);
}

TEST(StressPlan, DefaultsRunEveryImplementedTest) {
  auto plan = MakeStressPlan(StressOptions{});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->tests.size(), 5u);
}

TEST(StressPlan, ErrorsNameTheOption) {
  auto with = [](auto set) {
    StressOptions o;
    set(o);
    auto plan = MakeStressPlan(o);
    return plan ? std::string() : plan.error().message;
  };
  EXPECT_EQ(with([](StressOptions& o) { o.tests = "power,burn"; }),
            "--tests: unknown test 'burn' (hbm, memory, pcie, p2p, power)");
  EXPECT_EQ(with([](StressOptions& o) { o.tests = ","; }), "--tests: no test named");
  EXPECT_EQ(with([](StressOptions& o) { o.start = "random"; }),
            "--start: 'random' is neither together nor staggered");
  EXPECT_EQ(with([](StressOptions& o) { o.memory_fraction = 1.5; }),
            "--memory-fraction: 1.5 is not in (0, 0.95]");
  EXPECT_EQ(with([](StressOptions& o) { o.memory_fraction = 0; }), "--memory-fraction: 0 is not in (0, 0.95]");
  EXPECT_EQ(with([](StressOptions& o) { o.duration = "48h"; }), "--duration: 48h is not between 1s and 24h");
  EXPECT_EQ(with([](StressOptions& o) { o.duration = "soon"; }).rfind("--duration: ", 0), 0u);
}

}  // namespace
}  // namespace gpudoctor
