#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_nvlink_rx_detect_test_ns {

TEST(NvlinkRxDetectRule, FailuresAreCriticalWithAReboot) {
  KernelEvent e = MakeEvent(KernelEventKind::kNvlinkRxDetect, std::nullopt, "",
                            "NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL: Failed to update Rx "
                            "Detect Link mask!");
  e.count = 40;
  auto d = RunRule(kNvlinkRxDetectRule, WithEvents({e}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "nvlink.rx_detect");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].title.en.find("(40 times)"), std::string::npos);
  EXPECT_EQ(d.findings[0].actions.back().command, "sudo reboot");
  ExpectBilingual(d);
}

TEST(NvlinkRxDetectRule, QuietWithoutThem) {
  EXPECT_TRUE(RunRule(kNvlinkRxDetectRule, WithEvents({})).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
