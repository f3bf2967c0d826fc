// The event rules over real kernel logs from ../shared/fixtures: each log
// yields the findings a person reading it would expect.
#include <gtest/gtest.h>

#include <sstream>

#include "parse/kernel_events.h"
#include "rules/kernel_events/group.h"
#include "rules/engine/registry.h"
#include "support/fixtures.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

struct Expect {
  const char* file;  // below fixtures/
  const char* rule;
  Severity severity;
};

Diagnosis DiagnoseFixture(const std::string& path) {
  auto slash = path.find('/');
  std::istringstream text(test::ReadFixtureFile(path.substr(0, slash), path.substr(slash + 1)));
  std::vector<LogLine> lines;
  for (std::string line; std::getline(text, line);) {
    lines.push_back(LogLine{line, SourceRef{path, lines.size() + 1}, {}, {}});
  }
  ExtractOptions opts;
  opts.time.year = 2025;
  return Diagnose(WithEvents(ExtractKernelEvents(lines, opts)), KernelEventRules());
}

TEST(KernelEventRulesFixtures, EachLogYieldsTheExpectedFinding) {
  if (!std::filesystem::is_directory(test::FixtureDir("kernel"))) {
    GTEST_SKIP() << "shared fixtures not found; skipping";
  }
  const Expect cases[] = {
      {"kernel/akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log",
       "xid.fallen_off_bus", Severity::kCritical},
      {"kernel/nvsentinel-issue-155-fallen-off-bus-multiline-570.log", "xid.fallen_off_bus",
       Severity::kCritical},
      {"kernel/nvsentinel-issue-155-fallen-off-bus-multiline-570.log", "driver.rm_init_failed",
       Severity::kCritical},
      {"kernel/gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log", "xid.gsp", Severity::kCritical},
      {"kernel/open-gpu-kernel-modules-issue-446-xid119-gsp-timeout-a30-525.85.12-dmesg-T.log",
       "xid.gsp", Severity::kCritical},
      {"kernel/open-gpu-kernel-modules-issue-1200-rtx5080-gsp-heartbeat-xid154.log", "xid.gsp",
       Severity::kCritical},
      {"kernel/relion-issue-436-xid13-illegal-instruction.log", "xid.application",
       Severity::kWarning},
      {"kernel/open-gpu-kernel-modules-issue-1150-xid45-after-xid145-149-590.log",
       "xid.application", Severity::kInfo},
      {"kernel/nvforum-364958-rtxpro6000-blackwell-xid120-154-gsp-exception.log",
       "xid.recovery_action", Severity::kCritical},
      {"kernel/nvforum-371272-rtx5080-xid62-154-gsp-watchdog.log", "xid.recovery_action",
       Severity::kCritical},
      {"kernel/nvforum-371272-rtx5080-xid62-154-gsp-watchdog.log", "xid.other",
       Severity::kCritical},
      {"kernel/ecc-howto-doc-xid48-63-94-a100-550.90.07.log", "xid.memory", Severity::kCritical},
      {"kernel/"
       "open-gpu-kernel-modules-issue-1151-rtx5080-rminitadapter-failed-after-xid79-journal.log",
       "driver.rm_init_failed", Severity::kCritical},
      {"kernel/openshift-notes-xid119-gsp-timeout-new-format-rminitadapter-535.log",
       "host.oom_kill", Severity::kWarning},
      {"kernel/gpud-testdata-nccl-segfault-libnccl-dmesg-decode-iso.log", "nccl.errors",
       Severity::kWarning},
      {"other/basicsr-issue-737-nccl-watchdog-timeout-new-format.log", "nccl.errors",
       Severity::kWarning},
      {"other/mlengineering-dmesg-pcie-bandwidth-limited.txt", "pcie.bandwidth_limited",
       Severity::kWarning},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " -> " + c.rule);
    Diagnosis d = DiagnoseFixture(c.file);
    const Finding* f = FindingFor(d, c.rule);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, c.severity);
    EXPECT_FALSE(f->evidence.empty());
    EXPECT_TRUE(f->evidence[0].source.has_value());
    ExpectBilingual(d);
  }
}

TEST(KernelEventRulesFixtures, Xid79FindingCarriesTheLogLine) {
  if (!std::filesystem::is_directory(test::FixtureDir("kernel"))) GTEST_SKIP() << "no fixtures";
  Diagnosis d = DiagnoseFixture(
      "kernel/akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log");
  const Finding* f = FindingFor(d, "xid.fallen_off_bus");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->gpus, std::vector<std::string>{"0000:a1:00.0"});
  EXPECT_EQ(f->evidence[0].source->line, 7u);
  EXPECT_TRUE(f->evidence[0].time.has_value());
  // The UUID from the driver's "GPU at PCI:..." line labels the GPU.
  EXPECT_NE(f->title.en.find("GPU-979426f2"), std::string::npos) << f->title.en;
}

}  // namespace
}  // namespace gpudoctor::testing
