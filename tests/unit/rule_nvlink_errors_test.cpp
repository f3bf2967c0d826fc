#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus WithLinks(unsigned index, unsigned count, bool active) {
  GpuStatus g = HealthyGpu(index);
  for (unsigned l = 0; l < count; ++l) {
    g.nvlinks.push_back(NvLinkStatus{l, active, 0, 0, 0, 0, std::nullopt, "", std::nullopt});
  }
  return g;
}

TEST(NvlinkErrorsRule, LinksDownBesideActiveOnesAreAWarning) {
  GpuStatus g = WithLinks(2, 18, true);
  g.nvlinks[3].active = false;
  g.nvlinks[7].active = false;
  auto d = RunRule(kNvlinkErrorsRule, RepeatedReadings({WithLinks(0, 18, true), g}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "nvlink.errors");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{g.pci_bus_id});
  EXPECT_EQ(f.evidence[0].value, 2.0);
  EXPECT_NE(f.evidence[0].text.en.find("3, 7"), std::string::npos);
  EXPECT_EQ(f.actions[0].command, "nvidia-smi nvlink -e -i 2");
}

TEST(NvlinkErrorsRule, AGpuWithAllLinksDownAmongActivePeersIsCritical) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 4; ++i) gpus.push_back(WithLinks(i, 18, i != 1));
  auto d = RunRule(kNvlinkErrorsRule, RepeatedReadings(gpus, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(d.findings[0].gpus[0], gpus[1].pci_bus_id);
  EXPECT_EQ(d.findings[0].evidence[0].value, 18.0);
  // The driver's "all links are inActive" (no links listed) is the same fault.
  gpus[1].nvlinks.clear();
  gpus[1].nvlinks_all_inactive = true;
  d = RunRule(kNvlinkErrorsRule, RepeatedReadings(gpus, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("inActive"), std::string::npos);
}

TEST(NvlinkErrorsRule, AllLinksDownOnAnNvswitchSystemOrTheFabricIsCriticalEvenAlone) {
  GpuStatus g = WithLinks(0, 18, false);
  DiagnosisInput alone = RepeatedReadings({g}, 1);
  EXPECT_TRUE(RunRule(kNvlinkErrorsRule, alone).findings.empty());
  DiagnosisInput switched = alone;
  switched.versions.emplace();
  switched.versions->fabric_manager.nvswitch_present = true;
  auto d = RunRule(kNvlinkErrorsRule, switched);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  g.fabric = GpuFabric{};
  g.fabric->state = FabricState::kCompleted;
  d = RunRule(kNvlinkErrorsRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

TEST(NvlinkErrorsRule, ALinkSlowerThanTheOthersIsAWarning) {
  GpuStatus a = WithLinks(0, 4, true), b = WithLinks(1, 4, true);
  for (GpuStatus* g : {&a, &b}) {
    for (NvLinkStatus& l : g->nvlinks) l.speed_gb_per_s = 26.562;
  }
  EXPECT_TRUE(RunRule(kNvlinkErrorsRule, RepeatedReadings({a, b}, 1)).findings.empty());
  b.nvlinks[2].speed_gb_per_s = 13.281;
  auto d = RunRule(kNvlinkErrorsRule, RepeatedReadings({a, b}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].gpus[0], b.pci_bus_id);
  EXPECT_EQ(d.findings[0].evidence[0].value, 13.281);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("links 2 at"), std::string::npos);
}

TEST(NvlinkErrorsRule, PcieCardsWithoutBridgesStayQuiet) {
  auto all_down = RunRule(kNvlinkErrorsRule,
                          RepeatedReadings({WithLinks(0, 4, false), WithLinks(1, 4, false)}, 2));
  EXPECT_TRUE(all_down.findings.empty());
  // A lone card beside one bridged pair is not taken for a fault.
  auto lone = RunRule(kNvlinkErrorsRule, RepeatedReadings({WithLinks(0, 4, true), WithLinks(1, 4, true),
                                                           WithLinks(2, 4, false)}, 2));
  EXPECT_TRUE(lone.findings.empty());
}

TEST(NvlinkErrorsRule, ReplaysRisingAreAWarning) {
  std::vector<std::vector<GpuStatus>> readings;
  for (int i = 0; i < 5; ++i) {
    GpuStatus g = WithLinks(0, 18, true);
    g.nvlinks[5].replay_errors = i;
    readings.push_back({g});
  }
  auto d = RunRule(kNvlinkErrorsRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(d.findings[0].evidence[0].value, 4.0);
}

TEST(NvlinkErrorsRule, FewCrcErrorsAreInfoAndLargeStaticTotalsToo) {
  std::vector<std::vector<GpuStatus>> readings;
  for (int i = 0; i < 5; ++i) {
    GpuStatus g = WithLinks(0, 18, true);
    g.nvlinks[1].crc_flit_errors = i * 3;
    readings.push_back({g});
  }
  auto d = RunRule(kNvlinkErrorsRule, InputFromReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);

  GpuStatus old = WithLinks(0, 18, true);
  old.nvlinks[0].crc_data_errors = 4000;
  d = RunRule(kNvlinkErrorsRule, RepeatedReadings({old}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_EQ(d.findings[0].evidence[1].value, 4000.0);
}

TEST(NvlinkErrorsRule, QuietOnHealthyLinksAndWithoutNvlink) {
  auto d = RunRule(kNvlinkErrorsRule,
                   RepeatedReadings({WithLinks(0, 18, true), WithLinks(1, 18, true)}, 10));
  EXPECT_TRUE(d.findings.empty());
  GpuStatus unknown = HealthyGpu(0);
  unknown.nvlinks.push_back(NvLinkStatus{0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, "", std::nullopt});
  d = RunRule(kNvlinkErrorsRule, RepeatedReadings({unknown, HealthyGpu(1)}, 1));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
