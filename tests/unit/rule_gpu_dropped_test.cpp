#include <gtest/gtest.h>

#include "collect/dropped_gpus.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"
#include "support/temp_files.h"

namespace gpudoctor::testing {
namespace {

TEST(GpuDroppedRule, GpuOnTheBusButMissingFromNvmlIsCritical) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 3);
  input.pci = TestPci({TestPciGpu(0), TestPciGpu(1)});
  input.dropped_gpus = FindDroppedGpus(input.pci->gpus, {HealthyGpu(0).pci_bus_id}, std::nullopt);
  auto d = RunRule(kGpuDroppedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "gpu.dropped");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{"0000:19:00.0"});
  EXPECT_EQ(f.actions[0].command, "lspci -d 10de: -nn");
  EXPECT_EQ(f.actions[1].command, "sudo dmesg -T | grep -i 19:00");
}

TEST(GpuDroppedRule, RevFfFromASysfsTreeAndSeveralAtOncePointToPower) {
  test::TempDir root;
  for (const char* bdf : {"0000:3b:00.0", "0000:5e:00.0"}) {
    std::string dir = std::string("sys/bus/pci/devices/") + bdf + "/";
    root.Write(dir + "vendor", "0x10de\n");
    root.Write(dir + "device", "0x2330\n");
    root.Write(dir + "class", "0x030200\n");
    root.Write(dir + "revision", "0xff\n");
  }
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 1);
  input.pci = ReadPciDevices(CollectContext{root.path()});
  input.dropped_gpus = FindDroppedGpus(input.pci->gpus, {HealthyGpu(0).pci_bus_id}, std::nullopt);
  auto d = RunRule(kGpuDroppedRule, input);
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{"0000:3b:00.0"});
  EXPECT_NE(d.findings[0].title.en.find("rev ff"), std::string::npos);
  EXPECT_NE(d.findings[1].explanation.en.find("2 GPUs dropped together"), std::string::npos);
}

TEST(GpuDroppedRule, FewerThanExpectedIsHostWide) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0)}, 1);
  input.config.expected_gpus = 8;
  input.pci = TestPci({TestPciGpu(0)});
  input.dropped_gpus = FindDroppedGpus(input.pci->gpus, {HealthyGpu(0).pci_bus_id}, 8u);
  auto d = RunRule(kGpuDroppedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_TRUE(d.findings[0].gpus.empty());
  bool expected_seen = false;
  for (const auto& e : d.findings[0].evidence) expected_seen |= e.value == 8.0;
  EXPECT_TRUE(expected_seen);
}

TEST(GpuDroppedRule, QuietWhenBothViewsAgree) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 3);
  input.pci = TestPci({TestPciGpu(0), TestPciGpu(1)});
  input.dropped_gpus =
      FindDroppedGpus(input.pci->gpus, {HealthyGpu(0).pci_bus_id, HealthyGpu(1).pci_bus_id}, 2u);
  auto d = RunRule(kGpuDroppedRule, input);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.verdict, Severity::kOk);
}

TEST(GpuDroppedRule, NvmlFailureIsLeftToDriverNotLoaded) {
  DiagnosisInput input;
  input.gpu_readings = true;
  input.nvml_loaded = false;
  input.nvml_error = "Driver Not Loaded";
  input.pci = TestPci({TestPciGpu(0)});
  input.dropped_gpus = FindDroppedGpus(input.pci->gpus, {}, std::nullopt);
  ASSERT_EQ(input.dropped_gpus.size(), 1u);
  EXPECT_TRUE(RunRule(kGpuDroppedRule, input).findings.empty());
}

TEST(GpuDroppedRule, NotCheckedWithoutThePciList) {
  auto d = RunRule(kGpuDroppedRule, RepeatedReadings({HealthyGpu(0)}, 1));
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "gpu.dropped");
}

}  // namespace
}  // namespace gpudoctor::testing
