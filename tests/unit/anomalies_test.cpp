#include "status/anomalies.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

bool Has(const std::vector<Anomaly>& found, Level level, const std::string& text) {
  for (const auto& a : found) {
    if (a.level == level && a.text.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(Anomalies, HealthyGpuHasNone) {
  GpuStatus g;
  g.temperature_c = 60;
  g.clock_event_reasons_mask = 0x1;  // idle is not a fault
  g.pcie_link_gen_current = 4;
  g.pcie_link_gen_max = 4;
  g.persistence_mode = true;
  EXPECT_TRUE(FindAnomalies(g, Thresholds{}).empty());
}

TEST(Anomalies, ListsWhatIsWrong) {
  GpuStatus g;
  g.index = 3;
  g.temperature_c = 90;
  g.clock_event_reasons_mask = 0x40 | 0x4;
  g.ecc_volatile_uncorrected = 2;
  g.remapped_rows_pending = true;
  g.pcie_link_width_current = 8;
  g.pcie_link_width_max = 16;
  g.memory_total_bytes = 100;
  g.memory_used_bytes = 95;
  g.field_errors["power_draw_w"] = "permission denied";
  auto found = FindAnomalies(g, Thresholds{});
  EXPECT_TRUE(Has(found, Level::kCritical, "HW thermal slowdown"));
  EXPECT_TRUE(Has(found, Level::kWarning, "SW power cap"));
  EXPECT_TRUE(Has(found, Level::kCritical, "2 uncorrectable ECC"));
  EXPECT_TRUE(Has(found, Level::kWarning, "row remap pending"));
  EXPECT_TRUE(Has(found, Level::kWarning, "x8 below its max x16"));
  EXPECT_TRUE(Has(found, Level::kWarning, "temperature 90"));
  EXPECT_TRUE(Has(found, Level::kWarning, "95% used"));
  EXPECT_TRUE(Has(found, Level::kInfo, "could not read power_draw_w: permission denied"));
  for (const auto& a : found) EXPECT_EQ(a.gpu, 3u);
}

TEST(Anomalies, LostGpuIsCriticalAndNothingElse) {
  GpuStatus g;
  g.state = GpuState::kLost;
  g.state_detail = "fallen off the bus";
  g.temperature_c = 99;
  auto found = FindAnomalies(g, Thresholds{});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, Level::kCritical);
  EXPECT_NE(found[0].text.find("lost"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor
