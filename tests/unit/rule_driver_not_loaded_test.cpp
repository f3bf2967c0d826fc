#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

// A reading where NVML failed with `error`, on a machine with two GPUs on the bus.
DiagnosisInput NvmlFailed(const std::string& error) {
  DiagnosisInput input;
  SystemStatus s;
  s.nvml_loaded = false;
  s.nvml_error = error;
  AddReading(input, s, TestTime(0));
  input.pci = TestPci({TestPciGpu(0), TestPciGpu(1)});
  input.versions = TestVersions();
  return input;
}

TEST(DriverNotLoadedRule, NvmlFailureWithGpusOnTheBusIsCritical) {
  auto d = RunRule(kDriverNotLoadedRule, NvmlFailed("NVML_ERROR_UNKNOWN: Unknown Error"));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "driver.not_loaded");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, (std::vector<std::string>{"0000:18:00.0", "0000:19:00.0"}));
  EXPECT_NE(f.evidence[0].text.en.find("Unknown Error"), std::string::npos);
  EXPECT_EQ(f.evidence[0].text.zh, "NVML：`NVML_ERROR_UNKNOWN: Unknown Error`");
  EXPECT_DOUBLE_EQ(*f.evidence.back().value, 2.0);
}

TEST(DriverNotLoadedRule, VersionMismatchIsExplainedAsAnUpgradeWithoutReboot) {
  DiagnosisInput input = NvmlFailed("Driver/library version mismatch");
  input.versions->driver.version_mismatch = true;
  input.versions->driver.mismatch_details = {
      "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07 is 550.90.07, kernel module is "
      "535.183.01"};
  auto d = RunRule(kDriverNotLoadedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_NE(f.explanation.en.find("without a reboot"), std::string::npos);
  EXPECT_EQ(f.actions[0].command, "sudo reboot");
  EXPECT_EQ(f.evidence.size(), 3u);  // the NVML error, the detail line, the GPU count
}

// nvidia-smi's own messages (as `analyze` reads them from a pasted session),
// each with its explanation. No PCI list: a file from another machine.
TEST(DriverNotLoadedRule, NvidiaSmiMessagesGetTheirOwnExplanations) {
  struct Case {
    const char* message;
    const char* title_part;
  };
  for (const Case& c : {Case{"No devices were found", "finds no GPU"},
                        Case{"NVIDIA-SMI has failed because it couldn't communicate with the "
                             "NVIDIA driver. Make sure that the latest NVIDIA driver is installed "
                             "and running.",
                             "cannot reach the NVIDIA driver"},
                        Case{"Failed to initialize NVML: Driver/library version mismatch",
                             "kernel module and libraries differ"}}) {
    DiagnosisInput input;
    SystemStatus s;
    s.nvml_error = c.message;
    AddReading(input, s, std::nullopt);
    auto d = RunRule(kDriverNotLoadedRule, input);
    ASSERT_EQ(d.findings.size(), 1u) << c.message;
    EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
    EXPECT_NE(d.findings[0].title.en.find(c.title_part), std::string::npos)
        << d.findings[0].title.en;
    EXPECT_NE(d.findings[0].evidence[0].text.en.find(c.message), std::string::npos);
  }
}

TEST(DriverNotLoadedRule, ModuleAbsentIsCaughtEvenWithoutAReading) {
  DiagnosisInput input;
  input.pci = TestPci({TestPciGpu(0)});
  input.versions = TestVersions();
  input.versions->driver.kernel_module.reset();
  auto d = RunRule(kDriverNotLoadedRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("kernel module is not loaded"), std::string::npos);
  EXPECT_NE(d.findings[0].actions[0].command.find("modprobe nvidia"), std::string::npos);
}

TEST(DriverNotLoadedRule, QuietWhenNvmlWorksOrThereIsNoNvidiaGpu) {
  DiagnosisInput healthy = RepeatedReadings({HealthyGpu(0)}, 2);
  healthy.pci = TestPci({TestPciGpu(0)});
  EXPECT_TRUE(RunRule(kDriverNotLoadedRule, healthy).findings.empty());

  DiagnosisInput no_gpu = NvmlFailed("Driver Not Loaded");
  no_gpu.pci = TestPci({});
  auto d = RunRule(kDriverNotLoadedRule, no_gpu);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(DriverNotLoadedRule, OfflineNvmlFailureStillFiresAndNothingAtAllIsNotChecked) {
  DiagnosisInput offline;  // an nvidia-smi dump that only holds the failure
  SystemStatus s;
  s.nvml_error = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.";
  AddReading(offline, s, std::nullopt);
  auto d = RunRule(kDriverNotLoadedRule, offline);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_TRUE(d.findings[0].gpus.empty());

  auto nothing = RunRule(kDriverNotLoadedRule, DiagnosisInput{});
  EXPECT_TRUE(nothing.findings.empty());
  ASSERT_EQ(nothing.not_checked.size(), 1u);
  EXPECT_EQ(nothing.not_checked[0].rule, "driver.not_loaded");
}

}  // namespace
}  // namespace gpudoctor::testing
