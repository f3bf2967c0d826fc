#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "support/rule_testing.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

KernelEvent Fm(const std::string& message, std::optional<int> code = std::nullopt) {
  return MakeEvent(KernelEventKind::kFabricManagerError, code, "", message);
}

TEST(FabricManagerLogEventsRule, NonFatalSwitchErrorIsAWarning) {
  // 20001 (TX replay) is non-fatal in NVIDIA's guide; 12028, also printed
  // non-fatal, stalls traffic and is critical (severity_policy_test.cpp).
  auto d =
      RunRule(kFabricManagerLogEventsRule,
              WithEvents({Fm("[ERROR] detected NVSwitch non-fatal error 20001 on fid 0", 20001)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "fabricmanager.log_events");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  ASSERT_FALSE(d.findings[0].evidence.empty());
  EXPECT_TRUE(d.findings[0].evidence[0].source.has_value());
}

TEST(FabricManagerLogEventsRule, FatalSwitchErrorIsCritical) {
  auto d = RunRule(kFabricManagerLogEventsRule,
                   WithEvents({Fm("[ERROR] detected NVSwitch fatal error 20034 on fid 0", 20034)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

TEST(FabricManagerLogEventsRule, NothingToDoOnASystemWithoutNvswitchIsInfo) {
  auto d = RunRule(kFabricManagerLogEventsRule,
                   WithEvents({Fm("request to query NVSwitch device information from NVSwitch "
                                  "driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]"),
                               Fm("nvidia-fabricmanager.service: Control process exited, code=exited, "
                                  "status=1/FAILURE")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].actions[0].command, "sudo systemctl disable --now nvidia-fabricmanager");
}

TEST(FabricManagerLogEventsRule, OtherStartFailureIsAWarning) {
  auto d = RunRule(kFabricManagerLogEventsRule,
                   WithEvents({Fm("nvidia-fabricmanager.service: Failed with result 'exit-code'.")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(FabricManagerLogEventsRule, QuietWithoutFabricManagerLines) {
  auto d = RunRule(kFabricManagerLogEventsRule,
                   WithEvents({MakeEvent(KernelEventKind::kXid, 13, "0000:3b:00.0", "Graphics Exception")}));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
