#include <gtest/gtest.h>

#include "collect/ping.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace {

PingResult Pinged(const std::string& target, unsigned sent, std::vector<double> rtts_ms) {
  PingResult p;
  p.target = target;
  p.address = target;
  p.method = PingMethod::kIcmpDatagram;
  p.available = true;
  p.stats = SummarizeProbes(sent, rtts_ms);
  return p;
}

DiagnosisInput WithPings(std::vector<PingResult> pings) {
  DiagnosisInput input = NetworkInput();
  input.network->pings = std::move(pings);
  return input;
}

TEST(NetworkPingRule, LossAboveOnePercentIsAWarningPerTarget) {
  std::vector<double> answered(90, 0.4);  // 10 of 100 lost
  auto d = RunRule(kNetworkPingRule,
                   WithPings({Pinged("10.0.0.2", 100, answered),
                              Pinged("10.0.0.3", 100, std::vector<double>(100, 0.3))}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "network.ping");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.title.en.find("10.0.0.2"), std::string::npos);
  EXPECT_DOUBLE_EQ(*f.evidence[0].value, 10.0);
  EXPECT_EQ(f.evidence[0].unit, "percent");
  EXPECT_EQ(f.actions[0].command, "mtr -rwc 100 10.0.0.2");
}

TEST(NetworkPingRule, HighLatencyWithoutLossIsInfo) {
  auto d = RunRule(kNetworkPingRule,
                   WithPings({Pinged("far.example", 20, std::vector<double>(20, 180))}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
  EXPECT_DOUBLE_EQ(*d.findings[0].evidence[1].value, 180.0);
}

TEST(NetworkPingRule, QuietOnAHealthyLink) {
  auto d = RunRule(kNetworkPingRule,
                   WithPings({Pinged("10.0.0.2", 100, std::vector<double>(100, 0.2))}));
  EXPECT_TRUE(d.findings.empty());
  EXPECT_TRUE(d.not_checked.empty());
}

TEST(NetworkPingRule, UnprobedTargetsAndNoTargetsAreNotChecked) {
  PingResult refused;
  refused.target = "storage:2049";
  refused.why = "ICMP not permitted";
  auto d = RunRule(kNetworkPingRule, WithPings({refused}));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("ICMP not permitted"), std::string::npos);

  auto none = RunRule(kNetworkPingRule, WithPings({}));
  ASSERT_EQ(none.not_checked.size(), 1u);
  EXPECT_NE(none.not_checked[0].reason.en.find("[network] ping"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::testing
