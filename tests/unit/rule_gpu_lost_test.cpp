#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus LostGpu(unsigned index) {
  GpuStatus g = HealthyGpu(index);
  g.state = GpuState::kLost;
  g.state_detail =
      "nvmlDeviceGetPowerUsage: the GPU has fallen off the bus or is otherwise inaccessible "
      "(NVML_ERROR_GPU_IS_LOST)";
  return g;
}

TEST(GpuLostRule, LostGpuIsCritical) {
  auto d = RunRule(kGpuLostRule, RepeatedReadings({HealthyGpu(0), LostGpu(1)}, 5));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "gpu.lost");
  EXPECT_EQ(f.severity, Severity::kCritical);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], HealthyGpu(1).pci_bus_id);
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_NE(f.evidence[0].text.en.find("NVML_ERROR_GPU_IS_LOST"), std::string::npos);
  EXPECT_EQ(f.evidence.back().value, 5.0);  // broken in all 5 readings
  ASSERT_GE(f.actions.size(), 3u);
  EXPECT_EQ(f.actions[0].command, "sudo dmesg -T | grep -i -E 'xid|fallen off'");
  EXPECT_EQ(f.actions[2].command, "sudo nvidia-smi -r -i 1");
}

TEST(GpuLostRule, HungEarlierInTheWindowStillCounts) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(0)});
  readings[2][0].state = GpuState::kHung;
  readings[2][0].state_detail = "the driver did not answer nvmlDeviceGetUtilizationRates within 5000 ms";
  auto d = RunRule(kGpuLostRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(d.findings[0].evidence.back().value, 1.0);
  EXPECT_NE(d.findings[0].title.en.find("does not answer"), std::string::npos);
}

TEST(GpuLostRule, ManyFieldsFailingWithUnknownErrorFires) {
  GpuStatus g = HealthyGpu(0);
  for (const char* field : {"power_draw_w", "temperature_c", "clocks_sm_mhz", "pstate", "fan_speed_percent"}) {
    g.field_errors[field] = "nvmlDeviceGetX: unknown internal driver error (NVML_ERROR_UNKNOWN)";
  }
  auto d = RunRule(kGpuLostRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(d.findings[0].evidence[0].value, 5.0);
}

// The default nvidia-smi table's ERR! cells (parse/nvsmi_table.h) count too.
TEST(GpuLostRule, FiveErrCellsOfATableFire) {
  GpuStatus g = HealthyGpu(0);
  for (const char* field : {"power_draw_w", "temperature_c", "pstate", "fan_speed_percent"}) {
    g.field_errors[field] = "nvidia-smi showed ERR! (the query failed)";
  }
  EXPECT_TRUE(RunRule(kGpuLostRule, RepeatedReadings({g}, 1)).findings.empty());
  g.field_errors["utilization_gpu_percent"] = "nvidia-smi showed ERR! (the query failed)";
  auto d = RunRule(kGpuLostRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].title.en, "GPU 0 (" + g.pci_bus_id + ") answers most queries with errors");
  EXPECT_EQ(d.findings[0].evidence[0].value, 5.0);
  // Still on the bus: wedged, not fallen off; the reset is the way back.
  EXPECT_NE(d.findings[0].explanation.en.find("still on the bus"), std::string::npos);
  EXPECT_NE(d.findings[0].actions[0].text.en.find("Xid 119/120"), std::string::npos);
}

TEST(GpuLostRule, FewOrPermissionFieldErrorsStayQuiet) {
  GpuStatus few = HealthyGpu(0);
  for (const char* field : {"power_draw_w", "temperature_c", "clocks_sm_mhz", "pstate"}) {
    few.field_errors[field] = "nvmlDeviceGetX: unknown internal driver error (NVML_ERROR_UNKNOWN)";
  }
  GpuStatus denied = HealthyGpu(1);
  for (const char* field : {"a", "b", "c", "d", "e", "f"}) {
    denied.field_errors[field] = "nvmlDeviceGetX: permission denied (NVML_ERROR_NO_PERMISSION)";
  }
  auto d = RunRule(kGpuLostRule, RepeatedReadings({few, denied}, 3));
  EXPECT_TRUE(d.findings.empty());
}

TEST(GpuLostRule, QuietOnHealthyGpus) {
  auto d = RunRule(kGpuLostRule, RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 10));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.verdict, Severity::kOk);
}

TEST(GpuLostRule, NotCheckedWithoutReadings) {
  auto d = RunRule(kGpuLostRule, DiagnosisInput{});
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "gpu.lost");
}

}  // namespace
}  // namespace gpudoctor::testing
