#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

RdmaPort Port(unsigned number, int state, const char* state_name, int phys, const char* phys_name,
              const char* link_layer = "InfiniBand") {
  RdmaPort p;
  p.port = number;
  p.state = IbPortState{state, state_name};
  p.phys_state = IbPortState{phys, phys_name};
  p.rate_text = "400 Gb/sec (4X NDR)";
  p.link_layer = link_layer;
  p.roce = std::string(link_layer) == "Ethernet";
  p.active = state == 4;
  return p;
}

DiagnosisInput WithDevices(std::vector<RdmaDevice> devices) {
  DiagnosisInput input = NetworkInput();
  input.network->rdma.devices = std::move(devices);
  return input;
}

TEST(NetworkRdmaRule, LinkUpWithoutSubnetManagerAndADownNicAreWarnings) {
  RdmaDevice init{"mlx5_0", "28.39.1002", {Port(1, 2, "INIT", 5, "LinkUp")}};
  RdmaDevice down{"mlx5_1", "28.39.1002", {Port(1, 1, "DOWN", 3, "Disabled")}};
  auto d = RunRule(kNetworkRdmaRule, WithDevices({init, down}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "network.rdma");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[0].text.en.find("mlx5_0 port 1: state 2: INIT"), std::string::npos);
  EXPECT_EQ(f.actions[1].command, "sudo systemctl status opensm");  // IB without an SM
}

TEST(NetworkRdmaRule, QuietWhenActiveOrASpareSecondPortIsDown) {
  RdmaDevice dual{
      "mlx5_0", "", {Port(1, 4, "ACTIVE", 5, "LinkUp"), Port(2, 1, "DOWN", 2, "Polling")}};
  auto d = RunRule(kNetworkRdmaRule, WithDevices({dual}));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(RunRule(kNetworkRdmaRule, WithDevices({})).findings.empty());
}

TEST(NetworkRdmaRule, RoceDownHasNoSubnetManagerAdvice) {
  RdmaDevice roce{"mlx5_2", "", {Port(1, 1, "DOWN", 3, "Disabled", "Ethernet")}};
  auto d = RunRule(kNetworkRdmaRule, WithDevices({roce}));
  ASSERT_EQ(d.findings.size(), 1u);
  for (const Action& a : d.findings[0].actions)
    EXPECT_EQ(a.command.find("opensm"), std::string::npos);
}

TEST(NetworkRdmaRule, NotCheckedWithoutNetworkFacts) {
  auto d = RunRule(kNetworkRdmaRule, DiagnosisInput{});
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_EQ(d.not_checked[0].rule, "network.rdma");
}

}  // namespace
}  // namespace gpudoctor::testing
