#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_xid_memory_unit_local {

const std::string kBus = "0000:18:00.0";  // HealthyGpu(0)

TEST(XidMemoryRule, DoubleBitErrorWithRemapIsCriticalAndResets) {
  auto d = RunRule(kXidMemoryRule,
                   WithEvents({XidEvent(48, kBus, "An uncorrectable double bit error"),
                               XidEvent(63, kBus, "Row Remapper: New row marked for remapping")}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "xid.memory");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{kBus});
  EXPECT_EQ(f.xids, (std::vector<int>{48, 63}));
  bool reset = false;
  for (const auto& a : f.actions) reset = reset || a.command == "sudo nvidia-smi -r -i " + kBus;
  EXPECT_TRUE(reset);
  ExpectBilingual(d);
}

TEST(XidMemoryRule, ContainedErrorIsAWarningWithoutReset) {
  auto d = RunRule(kXidMemoryRule, WithEvents({XidEvent(94, kBus, "Contained: SM")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  for (const auto& a : d.findings[0].actions) EXPECT_EQ(a.command.find("-r -i"), std::string::npos);
}

TEST(XidMemoryRule, PendingRemapInReadingsSaysResetThenWatch) {
  GpuStatus g = HealthyGpu(0);
  g.remapped_rows_pending = true;
  auto d = RunRule(kXidMemoryRule,
                   WithEvents({XidEvent(63, kBus, "Row Remapper")}, RepeatedReadings({g}, 2)));
  ASSERT_EQ(d.findings.size(), 1u);
  bool pending = false;
  for (const auto& e : d.findings[0].evidence) pending = pending || e.unit == "flag";
  EXPECT_TRUE(pending);
}

TEST(XidMemoryRule, RemapFailureIsCriticalWithRma) {
  auto d = RunRule(kXidMemoryRule, WithEvents({XidEvent(64, kBus, "unable to retire page")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].actions.back().text.en.find("RMA"), std::string::npos);
}

TEST(XidMemoryRule, QuietOnHealthyGpus) {
  auto d = RunRule(kXidMemoryRule, WithEvents({}, RepeatedReadings({HealthyGpu(0)}, 3)));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace rule_xid_memory_unit_local
}  // namespace gpudoctor::testing
