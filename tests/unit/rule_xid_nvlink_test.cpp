#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_xid_nvlink_unit_local {

const std::string kBus = "0000:18:00.0";

TEST(XidNvlinkRule, Xid74IsCriticalWithLinkCounters) {
  GpuStatus g = HealthyGpu(0);
  g.nvlinks = {NvLinkStatus{0, true, 12, 0, 3, 0, std::nullopt, "", std::nullopt}};
  auto d = RunRule(kXidNvlinkRule, WithEvents({XidEvent(74, kBus, "NVLink: fatal error")},
                                              RepeatedReadings({g}, 2)));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "xid.nvlink");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.xids, std::vector<int>{74});
  bool counters = false;
  for (const auto& e : f.evidence) counters = counters || (e.unit == "count" && e.value == 15);
  EXPECT_TRUE(counters);
  ExpectBilingual(d);
}

TEST(XidNvlinkRule, NonfatalNvlink5IsAWarning) {
  auto d = RunRule(kXidNvlinkRule,
                   WithEvents({XidEvent(145, kBus, "RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0)")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  auto fatal =
      RunRule(kXidNvlinkRule, WithEvents({XidEvent(149, kBus, "NETIR Fatal XC0 i0 Link -1")}));
  ASSERT_EQ(fatal.findings.size(), 1u);
  EXPECT_EQ(fatal.findings[0].severity, Severity::kCritical);
}

TEST(XidNvlinkRule, QuietOnHealthyGpus) {
  auto d = RunRule(kXidNvlinkRule, WithEvents({}, RepeatedReadings({HealthyGpu(0)}, 3)));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace rule_xid_nvlink_unit_local
}  // namespace gpudoctor::testing
