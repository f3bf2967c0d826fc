// gpudirect.peermem on the real line of the shared fixture
// gpud-pr-46-xid13-109-dmesg-ctime.log (leptonai/gpud PR #46): main let it
// pass unread (the prefilter had no needle for it).
#include <gtest/gtest.h>

#include "parse/kernel_events.h"
#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_gpudirect_peermem_test_ns {

constexpr const char* kPeermemLine =
    "[Fri Aug 30 11:11:22 2024] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected "
    "invalid context, skipping further processing";

TEST(GpudirectPeermemRule, InvalidContextIsAnInfoFindingAboutGpudirectRdma) {
  auto events = ExtractKernelEvents({LogLine{kPeermemLine, SourceRef{"dmesg.log", 1}, {}, {}}}, {});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kPeermemError);
  EXPECT_EQ(events[0].detail, "nv_get_p2p_free_callback");
  auto d = RunRule(kGpudirectPeermemRule, WithEvents(events));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "gpudirect.peermem");
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_TRUE(d.findings[0].gpus.empty());
  EXPECT_NE(d.findings[0].title.en.find("GPUDirect RDMA"), std::string::npos);
  ExpectBilingual(d);
}

TEST(GpudirectPeermemRule, QuietWithoutPeermemLines) {
  auto d = RunRule(kGpudirectPeermemRule,
                   WithEvents({XidEvent(13, "0000:cb:00.0", "Graphics SM Warp Exception")}));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
