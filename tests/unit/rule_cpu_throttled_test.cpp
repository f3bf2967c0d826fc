// cpu.throttled: the container's CPU quota throttling it over the window
// (cgroup cpu.stat), from a twentieth of the periods (info) and a quarter
// (warning); a quota the job does not reach, no quota, or an idle group is
// no finding; the counters as the kernel writes them (v2 and v1).
#include <gtest/gtest.h>

#include "collect/cgroup_limits.h"
#include "parse/cgroup.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/temp_files.h"

namespace gpudoctor::testing {
namespace {
namespace rule_cpu_throttled_local {

DiagnosisInput Throttled(std::uint64_t periods, std::uint64_t throttled, bool quota = true) {
  DiagnosisInput input;
  input.host = HostFacts{};
  if (quota) input.host->cgroup.cpu_quota_cores = 4;
  CpuThrottling t;
  t.window_s = 10;
  t.periods = periods;
  t.throttled_periods = throttled;
  t.throttled_s = 0.05 * static_cast<double>(throttled);
  t.file = "/sys/fs/cgroup/kubepods.slice/pod1/cpu.stat";
  input.host->cgroup.throttling = t;
  return input;
}

TEST(CpuThrottled, AQuarterOfThePeriodsIsAWarningATwentiethInfo) {
  auto warn = RunRule(kCpuThrottledRule, Throttled(100, 25));
  ASSERT_EQ(warn.findings.size(), 1u);
  EXPECT_EQ(warn.findings[0].id, "cpu.throttled");
  EXPECT_EQ(warn.findings[0].severity, Severity::kWarning);
  EXPECT_NE(warn.findings[0].title.en.find("25 % of periods"), std::string::npos);
  auto info = RunRule(kCpuThrottledRule, Throttled(100, 5));
  ASSERT_EQ(info.findings.size(), 1u);
  EXPECT_EQ(info.findings[0].severity, Severity::kInfo);
}

TEST(CpuThrottled, ALimitNotReachedNoQuotaOrAnIdleGroupIsNothing) {
  EXPECT_TRUE(RunRule(kCpuThrottledRule, Throttled(100, 4)).findings.empty());
  EXPECT_TRUE(RunRule(kCpuThrottledRule, Throttled(100, 90, false)).findings.empty());
  EXPECT_TRUE(RunRule(kCpuThrottledRule, Throttled(8, 8)).findings.empty());
}

TEST(ParseCpuStat, ReadsV2AndV1Counters) {
  auto v2 = ParseCpuStat(
      "usage_usec 81234567\nuser_usec 70000000\nsystem_usec 11234567\nnr_periods 5000\n"
      "nr_throttled 1250\nthrottled_usec 62500000\nnr_bursts 0\nburst_usec 0\n");
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->periods, 5000u);
  EXPECT_EQ(v2->throttled_periods, 1250u);
  EXPECT_DOUBLE_EQ(v2->throttled_s, 62.5);
  auto v1 = ParseCpuStat("nr_periods 10\nnr_throttled 3\nthrottled_time 1500000000\n");
  ASSERT_TRUE(v1.ok());
  EXPECT_DOUBLE_EQ(v1->throttled_s, 1.5);
  EXPECT_FALSE(ParseCpuStat("usage_usec 1\n").ok());
  EXPECT_FALSE(ParseCpuStat("nr_periods -1\nnr_throttled 0\n").ok());
}

TEST(ThrottlingBetween, CountsTheWindowAndRefusesCountersThatWentBack) {
  CpuStat a{1000, 100, 5.0}, b{1100, 140, 7.0};
  auto t = ThrottlingBetween(a, b, 10, "/sys/fs/cgroup/x/cpu.stat");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->periods, 100u);
  EXPECT_EQ(t->throttled_periods, 40u);
  EXPECT_DOUBLE_EQ(t->throttled_s, 2.0);
  EXPECT_FALSE(ThrottlingBetween(b, a, 10, ""));
}

TEST(ReadQuotaCpuStat, ReadsTheFileBesideTheQuota) {
  test::TempDir root;
  root.Write("sys/fs/cgroup/kubepods.slice/pod1/cpu.stat", "nr_periods 7\nnr_throttled 2\n");
  CollectContext ctx;
  ctx.root = root.path();
  CgroupLimits limits;
  limits.cpu_quota_cores = 2;
  limits.cpu_quota_file = "/sys/fs/cgroup/kubepods.slice/pod1/cpu.max";
  auto st = ReadQuotaCpuStat(ctx, limits);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->periods, 7u);
  limits.cpu_quota_cores.reset();
  EXPECT_FALSE(ReadQuotaCpuStat(ctx, limits));
}

}  // namespace rule_cpu_throttled_local
}  // namespace
}  // namespace gpudoctor::testing
