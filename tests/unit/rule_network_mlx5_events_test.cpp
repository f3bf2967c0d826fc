#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace rule_network_mlx5_events_test_ns {

KernelEvent Mlx5(std::string_view detail, const std::string& bus) {
  KernelEvent e =
      MakeEvent(KernelEventKind::kMlx5, std::nullopt, bus, "mlx5_core " + bus + ": ...");
  e.detail = std::string(detail);
  return e;
}

TEST(NetworkMlx5EventsRule, CommandTimeoutIsCriticalAndNamesTheRdmaDevice) {
  DiagnosisInput input;
  input.network = NetFacts{};
  RdmaDevice d;
  d.name = "mlx5_4";
  d.pci_bus_id = "0000:3a:00.0";
  d.nearest_gpus = {"0000:3b:00.0"};
  input.network->rdma.devices.push_back(d);
  auto r = RunRule(kNetworkMlx5EventsRule,
                   WithEvents({Mlx5(kMlx5CommandTimeout, "0000:3a:00.0")}, input));
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.id, "network.nic_driver");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NE(f.title.en.find("command timeout"), std::string::npos);
  EXPECT_EQ(f.evidence[0].text.en, "adapter(s): mlx5_4 (next to GPU 0000:3b:00.0)");
  ExpectBilingual(r);
}

TEST(NetworkMlx5EventsRule, SlotPowerAloneIsAWarning) {
  auto r =
      RunRule(kNetworkMlx5EventsRule, WithEvents({Mlx5(kMlx5InsufficientPower, "0000:1a:00.0")}));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(r.findings[0].evidence[0].text.en, "adapter(s): PCI 0000:1a:00.0");
}

TEST(NetworkMlx5EventsRule, QuietWithoutMlx5Events) {
  EXPECT_TRUE(RunRule(kNetworkMlx5EventsRule, WithEvents({})).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
