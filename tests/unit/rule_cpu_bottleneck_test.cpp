#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

bool HasCommand(const Finding& f, const std::string& command) {
  for (const Action& a : f.actions) {
    if (a.command == command) return true;
  }
  return false;
}

DiagnosisInput StarvingGpu0(const HostFacts& host) {
  GpuStatus starving = HealthyGpu(0);
  starving.utilization_gpu_percent = 35;
  DiagnosisInput input = RepeatedReadings({starving, HealthyGpu(1)}, 10);
  input.host = host;
  return input;
}

TEST(CpuBottleneckRule, FiresWhenAGpuStarvesWhileTheCpuIsSaturated) {
  HostFacts host = TestHost(97);
  host.cpu_usage.top_processes.push_back(ProcessCpu{1234, "python3", "python3 train.py", 850});
  auto d = RunRule(kCpuBottleneckRule, StarvingGpu0(host));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "cpu.bottleneck");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});  // GPU 1 runs at 75 %
  bool busy_seen = false, process_seen = false;
  for (const auto& e : f.evidence) {
    busy_seen |= e.unit == "percent" && e.value == 97.0;
    process_seen |= e.text.en.find("python3 train.py") != std::string::npos && e.value == 850.0;
  }
  EXPECT_TRUE(busy_seen);
  EXPECT_TRUE(process_seen);
  EXPECT_TRUE(HasCommand(f, "top -o %CPU"));
  EXPECT_FALSE(HasCommand(f, "vmstat 1 5"));  // no steal: no noisy-neighbour advice
}

TEST(CpuBottleneckRule, IoWaitAndStealEachFireWithTheirOwnAdvice) {
  auto io = RunRule(kCpuBottleneckRule, StarvingGpu0(TestHost(40, 25)));
  ASSERT_EQ(io.findings.size(), 1u);
  EXPECT_TRUE(HasCommand(io.findings[0], "iostat -x 1 5"));
  EXPECT_FALSE(HasCommand(io.findings[0], "top -o %CPU"));
  auto steal = RunRule(kCpuBottleneckRule, StarvingGpu0(TestHost(40, 0, 15)));
  ASSERT_EQ(steal.findings.size(), 1u);
  EXPECT_TRUE(HasCommand(steal.findings[0], "vmstat 1 5"));
}

TEST(CpuBottleneckRule, ContainerQuotaUsedUpCountsAsSaturated) {
  HostFacts host = TestHost(15);  // the host is mostly idle, the container is not
  host.cpu.cgroup_quota_cores = 8;
  host.cpu.effective_cores = 8;
  host.cpu_usage.top_processes.push_back(ProcessCpu{77, "python3", "", 760});
  auto d = RunRule(kCpuBottleneckRule, StarvingGpu0(host));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].actions.back().text.en.find("container"), std::string::npos);
}

TEST(CpuBottleneckRule, QuietWhenTheCpuHasTimeToSpare) {
  auto d = RunRule(kCpuBottleneckRule, StarvingGpu0(TestHost(45, 5, 1)));
  EXPECT_TRUE(d.findings.empty());
}

TEST(CpuBottleneckRule, QuietOnBusyHealthyGpusAndOnGpusWithoutWork) {
  DiagnosisInput healthy = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 10);
  healthy.host = TestHost(99);
  EXPECT_TRUE(RunRule(kCpuBottleneckRule, healthy).findings.empty());

  GpuStatus idle = HealthyGpu(0);
  idle.utilization_gpu_percent = 0;
  idle.processes = std::vector<GpuProcess>{};
  DiagnosisInput no_work = RepeatedReadings({idle}, 10);
  no_work.host = TestHost(99);
  EXPECT_TRUE(RunRule(kCpuBottleneckRule, no_work).findings.empty());
}

TEST(CpuBottleneckRule, MissingUtilisationOrCpuUsageDoesNotFire) {
  GpuStatus unknown = HealthyGpu(0);
  unknown.utilization_gpu_percent.reset();
  DiagnosisInput input = RepeatedReadings({unknown}, 1);
  input.host = TestHost(99);
  EXPECT_TRUE(RunRule(kCpuBottleneckRule, input).findings.empty());

  HostFacts no_stat = TestHost(99);
  no_stat.cpu_usage.available = false;
  no_stat.cpu_usage.why = "/proc/stat: permission denied";
  auto d = RunRule(kCpuBottleneckRule, StarvingGpu0(no_stat));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("permission denied"), std::string::npos);
}

TEST(CpuBottleneckRule, NotCheckedWithoutHostFacts) {
  auto d = RunRule(kCpuBottleneckRule, RepeatedReadings({HealthyGpu(0)}, 1));
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "cpu.bottleneck");
}

}  // namespace
}  // namespace gpudoctor::testing
