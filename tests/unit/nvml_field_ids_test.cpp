// Field ids that changed meaning between driver releases (nvml/field_ids.h).
#include "nvml/field_ids.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace nvml_field_ids_test_ns {

TEST(NvmlFieldIds, ThermalSlowdownCounterIs251Then269) {
  EXPECT_EQ(ThermalSlowdownFieldId("570.133.20"), 269u);  // NOT_SUPPORTED there: old call
  EXPECT_EQ(ThermalSlowdownFieldId("575.51.01"), 269u);
  EXPECT_EQ(ThermalSlowdownFieldId("575.51.02"), 251u);
  EXPECT_EQ(ThermalSlowdownFieldId("575.64.05"), 251u);
  EXPECT_EQ(ThermalSlowdownFieldId("580.76.05"), 251u);
  EXPECT_EQ(ThermalSlowdownFieldId("580.82.07"), 269u);
  EXPECT_EQ(ThermalSlowdownFieldId("580.82"), 269u);
  EXPECT_EQ(ThermalSlowdownFieldId("610.43.02"), 269u);
}

TEST(NvmlFieldIds, UnknownOrMalformedVersionsAskForNoField) {
  EXPECT_EQ(ThermalSlowdownFieldId(std::nullopt), std::nullopt);
  for (const char* bad : {"", "575", "575.", "abc", "575.51.02.1", "575.x.02", "-575.51", "575..1"}) {
    EXPECT_EQ(ThermalSlowdownFieldId(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace gpudoctor
