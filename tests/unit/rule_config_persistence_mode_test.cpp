#include <gtest/gtest.h>

#include "rules/gpu_health/group.h"
#include "support/rule_testing.h"
#include "unit/rule_gpu_health_testing.h"

namespace gpudoctor::testing {
namespace {

TEST(ConfigPersistenceModeRule, OneInfoFindingForAllGpusWithItOff) {
  GpuStatus a = HealthyGpu(0);
  GpuStatus b = HealthyGpu(2);
  a.persistence_mode = false;
  b.persistence_mode = false;
  auto d = RunRule(kConfigPersistenceModeRule, RepeatedReadings({a, HealthyGpu(1), b}, 3));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "config.persistence_mode");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.gpus, (std::vector<std::string>{a.pci_bus_id, b.pci_bus_id}));
  EXPECT_EQ(f.evidence[0].value, 2.0);
  ASSERT_EQ(f.actions.size(), 2u);
  EXPECT_EQ(f.actions[0].command, "sudo nvidia-smi -pm 1");
  EXPECT_EQ(f.actions[1].command, "sudo systemctl enable --now nvidia-persistenced");
}

TEST(ConfigPersistenceModeRule, QuietWhenOnOrNotReported) {
  GpuStatus windows = HealthyGpu(1);
  windows.persistence_mode.reset();
  auto d = RunRule(kConfigPersistenceModeRule, RepeatedReadings({HealthyGpu(0), windows}, 2));
  EXPECT_TRUE(d.findings.empty());
}

TEST(ConfigPersistenceModeRule, QuietOnAWindowsCapture) {
  auto input = InputFromTextFixture("gpuexporter-rtx2080super-windows-591.86-idle-q.txt");
  if (!input) GTEST_SKIP() << "shared fixtures missing";
  ASSERT_EQ(input->gpus.size(), 1u);
  EXPECT_FALSE(input->gpus[0].latest().persistence_mode.has_value());
  EXPECT_TRUE(RunRule(kConfigPersistenceModeRule, *input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing

namespace gpudoctor::testing {
namespace {
namespace config_persistence_daemon_local {

DiagnosisInput Off() {
  GpuStatus a = HealthyGpu(0);
  a.persistence_mode = false;
  return RepeatedReadings({a}, 2);
}

TEST(ConfigPersistenceModeRule, NotJudgedInTheFirstFiveMinutesAfterBoot) {
  DiagnosisInput input = Off();
  input.host = HostFacts{};
  input.host->uptime_s = 120;
  auto d = RunRule(kConfigPersistenceModeRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("booted 120 s ago"), std::string::npos);
  input.host->uptime_s = 301;
  EXPECT_EQ(RunRule(kConfigPersistenceModeRule, input).findings.size(), 1u);
}

TEST(ConfigPersistenceModeRule, AFailedDaemonIsAWarningWithItsState) {
  DiagnosisInput input = Off();
  input.versions = VersionFacts{};
  PersistencedFacts& p = input.versions->driver.persistenced;
  p.source = "nvidia-persistenced.service";
  p.running = false;
  p.active_state = "failed";
  p.sub_state = "failed";
  auto d = RunRule(kConfigPersistenceModeRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  ASSERT_EQ(d.findings[0].evidence.size(), 2u);
  EXPECT_EQ(d.findings[0].evidence[1].text.en,
            "nvidia-persistenced (nvidia-persistenced.service): failed/failed");
  // Why it failed comes before turning it on again.
  EXPECT_NE(d.findings[0].actions.front().command.find("journalctl -u nvidia-persistenced"),
            std::string::npos);
  p.active_state = "inactive";
  p.sub_state = "dead";
  EXPECT_EQ(RunRule(kConfigPersistenceModeRule, input).findings[0].severity, Severity::kInfo);
}

}  // namespace config_persistence_daemon_local
}  // namespace
}  // namespace gpudoctor::testing
