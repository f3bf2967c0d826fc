#include <gtest/gtest.h>

#include "collect/fabric_manager.h"
#include "rules/system/group.h"
#include "support/fake_service_state.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"
#include "support/temp_files.h"

namespace gpudoctor::testing {
namespace {

ServiceState Fm(const char* load, const char* active, const char* sub) {
  ServiceState s;
  s.unit = "nvidia-fabricmanager.service";
  s.load_state = load;
  s.active_state = active;
  s.sub_state = sub;
  return s;
}

DiagnosisInput NvSwitchHost(std::optional<ServiceState> service) {
  DiagnosisInput input = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 1);
  input.versions = TestVersions();
  input.versions->fabric_manager.nvswitch_present = true;
  input.versions->fabric_manager.service = std::move(service);
  return input;
}

TEST(FabricManagerNotRunningRule, FailedServiceFromTheCollectorIsCritical) {
  test::TempDir root;  // no log, no binary: only the service state matters
  test::FakeServiceStateReader services;
  ServiceState failed = Fm("loaded", "failed", "failed");
  failed.exec_main_status = 1;
  services.Set(failed);
  FabricManagerOptions opts;
  opts.nvswitch_present = true;
  opts.driver = TestDriver();
  opts.services = &services;
  opts.run_binary = false;
  DiagnosisInput input = NvSwitchHost(std::nullopt);
  input.versions->fabric_manager = CollectFabricManager(CollectContext{root.path()}, opts);

  auto d = RunRule(kFabricManagerNotRunningRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "fabricmanager.not_running");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus.size(), 2u);
  EXPECT_NE(f.evidence[0].text.en.find("failed/failed"), std::string::npos);
  EXPECT_NE(f.evidence[0].text.en.find("status 1"), std::string::npos);
  EXPECT_EQ(f.actions[0].command, "sudo systemctl enable --now nvidia-fabricmanager");
}

TEST(FabricManagerNotRunningRule, NotInstalledIsAWarningThatNamesTheGpuOperator) {
  auto d = RunRule(kFabricManagerNotRunningRule, NvSwitchHost(Fm("not-found", "inactive", "dead")));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].explanation.en.find("GPU Operator"), std::string::npos);
}

TEST(FabricManagerNotRunningRule, QuietWhenRunningOrWithoutNvSwitch) {
  EXPECT_TRUE(RunRule(kFabricManagerNotRunningRule, NvSwitchHost(Fm("loaded", "active", "running")))
                  .findings.empty());
  DiagnosisInput pcie_boards = NvSwitchHost(Fm("loaded", "failed", "failed"));
  pcie_boards.versions->fabric_manager.nvswitch_present = false;
  auto d = RunRule(kFabricManagerNotRunningRule, pcie_boards);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(FabricManagerNotRunningRule, UnreadableServiceStateIsNotChecked) {
  DiagnosisInput input = NvSwitchHost(std::nullopt);
  input.versions->fabric_manager.sources.push_back(
      SourceStatus{"nvidia-fabricmanager.service", false, "no system bus"});
  auto d = RunRule(kFabricManagerNotRunningRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("no system bus"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::testing
