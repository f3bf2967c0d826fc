#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

DiagnosisInput WithNics(std::vector<NetInterfaceRates> nics) {
  DiagnosisInput input = NetworkInput();
  input.network->interfaces = std::move(nics);
  return input;
}

TEST(NetworkLinkSpeedRule, GigabitAsTheFastestLinkIsInfo) {
  auto d =
      RunRule(kNetworkLinkSpeedRule,
              WithNics({TestNic("eno1", 1000), TestNic("docker0", std::nullopt, true, false)}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "network.link_speed");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_TRUE(f.gpus.empty());
  ASSERT_EQ(f.evidence.size(), 1u);  // the bridge is virtual: not evidence
  EXPECT_EQ(*f.evidence[0].value, 1000.0);
  EXPECT_EQ(f.actions[0].command, "sudo ethtool eno1");
}

TEST(NetworkLinkSpeedRule, BelowAGigabitIsAWarning) {
  auto d = RunRule(kNetworkLinkSpeedRule, WithNics({TestNic("eth0", 100)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(NetworkLinkSpeedRule, QuietWithAFastNicBesideASlowManagementPort) {
  auto d =
      RunRule(kNetworkLinkSpeedRule, WithNics({TestNic("eno1", 1000), TestNic("ens5f0", 100000)}));
  EXPECT_TRUE(d.findings.empty());
  // A fast link that is down does not count, nor does the slow one that is down.
  auto down = RunRule(kNetworkLinkSpeedRule,
                      WithNics({TestNic("ens5f0", 100000), TestNic("eno2", 100, false)}));
  EXPECT_TRUE(down.findings.empty());
}

TEST(NetworkLinkSpeedRule, UnknownSpeedOfVirtualNicsIsNotChecked) {
  auto d = RunRule(kNetworkLinkSpeedRule, WithNics({TestNic("eth0", std::nullopt)}));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("eth0"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::testing
