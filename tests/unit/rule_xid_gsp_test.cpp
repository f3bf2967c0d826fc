#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_xid_gsp_unit_local {

const std::string kBus = "0000:9b:00.0";

KernelEvent Timeout(std::size_t line) {
  KernelEvent e =
      XidEvent(119, kBus, "Timeout after 6s of waiting for RPC response from GPU4 GSP!");
  e.source.line = line;
  return e;
}

// Xid 119 is one of DCGM's always-fatal Xids: critical at once (the one
// severity policy, knowledge/xid_severity.h).
TEST(XidGspRule, OneXid119IsCriticalWithTheWorkaround) {
  KernelEvent derived = Timeout(1);
  derived.kind = KernelEventKind::kGspTimeout;
  auto d = RunRule(kXidGspRule, WithEvents({Timeout(1), derived}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "xid.gsp");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{kBus});
  EXPECT_EQ(f.xids, std::vector<int>{119});
  EXPECT_EQ(f.evidence.size(), 1u);
  bool workaround = false;
  for (const auto& a : f.actions) {
    workaround = workaround || a.command.find("NVreg_EnableGpuFirmware=0") != std::string::npos;
  }
  EXPECT_TRUE(workaround);
  EXPECT_EQ(f.actions.front().command, "sudo nvidia-smi -r -i " + kBus);
  ExpectBilingual(d);
}

// An RPC timeout printed without an Xid ("... sanity check failed ...
// waiting for RPC response from GSP").
KernelEvent TimeoutWithoutXid() {
  KernelEvent rpc = Timeout(1);
  rpc.kind = KernelEventKind::kGspTimeout;
  rpc.code.reset();
  return rpc;
}

TEST(XidGspRule, OneTimeoutWithoutAnXidIsAWarning) {
  auto d = RunRule(kXidGspRule, WithEvents({TimeoutWithoutXid()}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(XidGspRule, RepeatedOrWithGpuErrorIsCritical) {
  auto d = RunRule(kXidGspRule, WithEvents({Timeout(1), Timeout(2)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  auto e = RunRule(kXidGspRule, WithEvents({XidEvent(120, kBus, "GSP task exception")}));
  ASSERT_EQ(e.findings.size(), 1u);
  EXPECT_EQ(e.findings[0].severity, Severity::kCritical);
}

// One timeout without an Xid, and the GPU answers most queries with errors
// (an nvidia-smi table full of ERR!): the GPU is in error, so critical.
TEST(XidGspRule, TimeoutWithTheGpuFailingMostQueriesIsCritical) {
  DiagnosisInput input;
  GpuStatus g;
  g.pci_bus_id = kBus;
  for (const char* field : {"temperature_c", "pstate", "power_draw_w", "utilization_gpu_percent"})
    g.field_errors[field] = "nvidia-smi showed ERR! (the query failed)";
  SystemStatus status;
  status.gpus = {g};
  AddReading(input, status, std::nullopt);
  EXPECT_EQ(RunRule(kXidGspRule, WithEvents({TimeoutWithoutXid()}, input)).findings.at(0).severity,
            Severity::kWarning);  // four failing fields are not yet "most"
  input.gpus[0].readings[0].field_errors["fan_speed_percent"] = "nvidia-smi showed ERR! (the query failed)";
  EXPECT_EQ(RunRule(kXidGspRule, WithEvents({TimeoutWithoutXid()}, input)).findings.at(0).severity,
            Severity::kCritical);
}

TEST(XidGspRule, OpenModuleGetsNoGspOffAdvice) {
  DiagnosisInput input;
  input.versions = VersionFacts{};
  input.versions->driver.kernel_module = KernelModuleVersion{};
  input.versions->driver.kernel_module->open_module = true;
  auto d = RunRule(kXidGspRule, WithEvents({Timeout(1)}, input));
  ASSERT_EQ(d.findings.size(), 1u);
  for (const auto& a : d.findings[0].actions) {
    EXPECT_EQ(a.command.find("NVreg_EnableGpuFirmware"), std::string::npos);
  }
}

TEST(XidGspRule, HeartbeatWithoutBusIsHostWide) {
  auto d = RunRule(kXidGspRule, WithEvents({MakeEvent(KernelEventKind::kGspHeartbeat, std::nullopt,
                                                      "", "heartbeat timed out")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_TRUE(d.findings[0].gpus.empty());
  EXPECT_TRUE(d.findings[0].xids.empty());
}

TEST(XidGspRule, HeartbeatOnANodeWithOneGpuIsThatGpus) {
  // open-gpu-kernel-modules#1200: heartbeat lines, then Xid 154 on the only GPU.
  KernelEvent heartbeat =
      MakeEvent(KernelEventKind::kGspHeartbeat, std::nullopt, "", "GSP RM heartbeat timed out");
  KernelEvent recovery = MakeEvent(KernelEventKind::kRecoveryAction, 154, kBus,
                                   "GPU recovery action changed from 0x0 (None) to 0x1");
  auto d = RunRule(kXidGspRule, WithEvents({heartbeat, recovery}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{kBus});
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);  // with a GPU error
  // Two GPUs in the log: the heartbeat stays unattributed.
  KernelEvent other = recovery;
  other.pci_bus_id = "0000:01:00.0";
  auto two = RunRule(kXidGspRule, WithEvents({heartbeat, recovery, other}));
  ASSERT_EQ(two.findings.size(), 1u);
  EXPECT_TRUE(two.findings[0].gpus.empty());
}

TEST(XidGspRule, GpuNumberWithoutBusIdIsNamedByNumberOrByTheReadings) {
  KernelEvent halted = MakeEvent(KernelEventKind::kGspTimeout, std::nullopt, "",
                                 "GPU2 _kgspRpcGspEventPmuHalted: Received signal from GSP that "
                                 "PMU has halted.");
  halted.detail = "PMU halted";
  halted.gpu_number = 2;
  auto by_number = RunRule(kXidGspRule, WithEvents({halted}));
  ASSERT_EQ(by_number.findings.size(), 1u);
  EXPECT_NE(by_number.findings[0].title.en.find("GPU2 (the driver's number"), std::string::npos)
      << by_number.findings[0].title.en;
  EXPECT_TRUE(by_number.findings[0].gpus.empty());
  EXPECT_EQ(by_number.findings[0].severity, Severity::kWarning);  // once, no GPU error
  ExpectBilingual(by_number);
  // A dump that indexes GPU 2 names its bus id; repeated, it is critical.
  halted.count = 3;
  auto input = WithEvents({halted}, RepeatedReadings({HealthyGpu(0), HealthyGpu(2)}, 2));
  auto mapped = RunRule(kXidGspRule, input);
  ASSERT_EQ(mapped.findings.size(), 1u);
  ASSERT_EQ(mapped.findings[0].gpus.size(), 1u);
  EXPECT_EQ(mapped.findings[0].gpus[0], input.gpus[1].key);
  EXPECT_EQ(mapped.findings[0].severity, Severity::kCritical);
}

TEST(XidGspRule, QuietWithoutGspEvents) {
  auto d = RunRule(kXidGspRule, WithEvents({XidEvent(79, kBus, "fallen off")},
                                           RepeatedReadings({HealthyGpu(0)}, 3)));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace rule_xid_gsp_unit_local
}  // namespace gpudoctor::testing
