#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

// What src/nvml/gpu_reader.cpp leaves for a 255 °C reading.
GpuStatus HotSensor(unsigned index) {
  GpuStatus g = HealthyGpu(index);
  g.temperature_c.reset();
  g.field_errors["temperature_c"] =
      "nvmlDeviceGetTemperature: 255 °C: implausible reading (sensor or driver fault), ignored";
  return g;
}

TEST(GpuImplausibleReadingRule, AnImpossibleTemperatureIsAWarningNamingTheField) {
  auto d = RunRule(kGpuImplausibleReadingRule, RepeatedReadings({HealthyGpu(0), HotSensor(1)}, 4));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "gpu.implausible_reading");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0], HealthyGpu(1).pci_bus_id);
  EXPECT_NE(f.title.en.find("(temperature_c)"), std::string::npos) << f.title.en;
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].value, 4.0);  // in all 4 readings
  EXPECT_NE(f.evidence[0].text.en.find("255 °C"), std::string::npos) << f.evidence[0].text.en;
  ASSERT_GE(f.actions.size(), 2u);
  EXPECT_EQ(f.actions[0].command, "nvidia-smi -q -i 1 -d TEMPERATURE,POWER,MEMORY");
  EXPECT_EQ(f.actions[1].command, "sudo nvidia-smi -r -i 1");
}

TEST(GpuImplausibleReadingRule, EveryDroppedFieldIsEvidenceWithItsCount) {
  std::vector<std::vector<GpuStatus>> readings(5, {HealthyGpu(0)});
  readings[1][0] = HotSensor(0);
  readings[3][0] = HotSensor(0);
  readings[3][0].power_draw_w.reset();
  readings[3][0].field_errors["power_draw_w"] =
      "nvmlDeviceGetPowerUsage: 900 W, limit 300 W: implausible reading (sensor or driver "
      "fault), ignored";
  auto d = RunRule(kGpuImplausibleReadingRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_NE(f.title.en.find("(power_draw_w, temperature_c)"), std::string::npos) << f.title.en;
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].value, 1.0);  // power_draw_w once
  EXPECT_EQ(f.evidence[1].value, 2.0);  // temperature_c twice
  EXPECT_NE(f.evidence[0].text.en.find("1 of 5 readings"), std::string::npos);
}

TEST(GpuImplausibleReadingRule, OtherFieldErrorsStayQuiet) {
  GpuStatus g = HealthyGpu(0);
  g.field_errors["temperature_c"] = "nvmlDeviceGetTemperature: not supported (NVML_ERROR_NOT_SUPPORTED)";
  g.field_errors["power_draw_w"] =
      "nvmlDeviceGetPowerUsage: unknown internal driver error (NVML_ERROR_UNKNOWN)";
  auto d = RunRule(kGpuImplausibleReadingRule, RepeatedReadings({g, HealthyGpu(1)}, 3));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
