// The network.rdma_* rules on the real HGX H100 /sys/class/infiniband capture,
// copied into a temporary root whose files each test rewrites between
// readings (support/infiniband_tree.h).
#include <gtest/gtest.h>

#include "rules/system/group.h"
#include "support/infiniband_tree.h"
#include "support/rule_testing.h"
#include "support/system_facts_testing.h"

namespace gpudoctor::testing {
namespace rule_network_rdma_fabric_test_ns {

using test::InfinibandTree;

#define SKIP_WITHOUT_CAPTURE(tree) \
  if (!(tree).available()) GTEST_SKIP() << "../shared/fixtures/infiniband is not on this machine"

// An input whose RDMA readings are `readings` (oldest first), on a node of
// `gpus` H100 SXM GPUs (0 for none).
DiagnosisInput WithReadings(std::vector<RdmaFacts> readings, unsigned gpus = 8) {
  DiagnosisInput input = NetworkInput();
  if (gpus > 0) {
    std::vector<GpuStatus> list;
    for (unsigned i = 0; i < gpus; ++i) list.push_back(HealthyGpu(i));
    DiagnosisInput g = RepeatedReadings(list, 1);
    input.gpus = g.gpus;
    input.gpu_readings = true;
    input.nvml_loaded = true;
  }
  input.network->rdma = std::move(readings.back());
  readings.pop_back();
  input.rdma_history = std::move(readings);
  return input;
}

std::string AllEvidence(const Finding& f) {
  std::string all;
  for (const auto& e : f.evidence) all += e.text.en + "\n";
  return all;
}

const std::vector<const Rule*>& RdmaRules() {
  static const std::vector<const Rule*> rules = {&kNetworkRdmaRule,     &kNetworkRdmaCountRule,
                                                 &kNetworkRdmaRateRule, &kNetworkRdmaErrorsRule,
                                                 &kNetworkRdmaFlapRule, &kNetworkRdmaSaturatedRule};
  return rules;
}

TEST(RdmaFabricRules, HealthyCaptureHasOnlyTheSaturatedLinkDownedInfo) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  auto input = WithReadings({tree.Read(TestTime(0)), tree.Read(TestTime(600))});
  for (const Rule* rule : RdmaRules()) {
    auto d = RunRule(*rule, input);
    if (rule == &kNetworkRdmaSaturatedRule) {
      ASSERT_EQ(d.findings.size(), 1u);
      EXPECT_EQ(d.findings[0].id, "network.rdma_saturated");
      EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
      ASSERT_EQ(d.findings[0].evidence.size(), 1u);
      // Pinned on mlx5_1 only; excessive_buffer_overrun_errors at 15 on every
      // port is the node's trait and not told.
      EXPECT_NE(AllEvidence(d.findings[0]).find("mlx5_1 port 1: link_downed pinned at 255"),
                std::string::npos);
    } else {
      EXPECT_TRUE(d.findings.empty()) << rule->id << ": " << d.findings[0].title.en;
    }
  }
}

TEST(RdmaFabricRules, LinkDownedRisingIsCritical) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  auto before = tree.Read(TestTime(0));
  tree.SetCounter("mlx5_4", "link_downed", 2);
  auto d = RunRule(kNetworkRdmaErrorsRule, WithReadings({before, tree.Read(TestTime(10))}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "network.rdma_errors");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(AllEvidence(d.findings[0]).find("mlx5_4 port 1: link_downed rose by 2 (0 -> 2)"),
            std::string::npos);
}

TEST(RdmaFabricRules, RnrRetriesExhaustedIsCritical) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  auto before = tree.Read(TestTime(0));
  tree.SetCounter("mlx5_6", "rnr_nak_retry_err", 1);
  auto d = RunRule(kNetworkRdmaErrorsRule, WithReadings({before, tree.Read(TestTime(10))}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(AllEvidence(d.findings[0]).find("mlx5_6 port 1: rnr_nak_retry_err rose by 1"),
            std::string::npos);
}

TEST(RdmaFabricRules, SymbolErrorsAboveTheBoundAreCriticalAFewAreNot) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  auto r0 = tree.Read(TestTime(0));
  tree.SetCounter("mlx5_0", "symbol_error", 5);
  auto r1 = tree.Read(TestTime(600));
  // 5 in 10 minutes: 30 an hour, under the bound of 120 and under ib_error_count.
  EXPECT_TRUE(RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1})).findings.empty());
  tree.SetCounter("mlx5_0", "symbol_error", 45);
  auto r2 = tree.Read(TestTime(1200));
  // 45 in 20 minutes, rising in both steps: 135 an hour, over the bound.
  auto d = RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1, r2}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(
      AllEvidence(d.findings[0]).find("symbol_error rose by 45 (0 -> 45) in 20 min, 135 an hour"),
      std::string::npos)
      << AllEvidence(d.findings[0]);
  // The bound is configurable: at 20 an hour, 30 an hour over ten minutes is over it.
  auto strict = WithReadings({r0, r1});
  strict.config.ib.symbol_errors_per_hour = 20;
  auto s = RunRule(kNetworkRdmaErrorsRule, strict);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0].severity, Severity::kCritical);
}

TEST(RdmaFabricRules, SteadyReceiveErrorsAreAWarningOneBurstIsNot) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  auto r0 = tree.Read(TestTime(0));
  tree.SetCounter("mlx5_7", "port_rcv_errors", 44);  // 14 -> 44 in one step
  auto r1 = tree.Read(TestTime(60));
  auto r2 = tree.Read(TestTime(120));
  auto r3 = tree.Read(TestTime(180));
  // One burst among three steps is not sustained.
  EXPECT_TRUE(RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1, r2, r3})).findings.empty());
  tree.SetCounter("mlx5_7", "port_rcv_errors", 60);
  auto r4 = tree.Read(TestTime(240));
  auto d = RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1, r2, r3, r4}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(AllEvidence(d.findings[0]).find("mlx5_7 port 1: port_rcv_errors rose by 46"),
            std::string::npos);
}

TEST(RdmaFabricRules, ACounterResetIsANewBaselineNotANegativeRate) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  auto r0 = tree.Read(TestTime(0));
  tree.SetCounter("mlx5_8", "port_rcv_errors", 0);  // cleared: 14 -> 0
  tree.SetCounter("mlx5_8", "excessive_buffer_overrun_errors", 0);
  auto r1 = tree.Read(TestTime(60));
  EXPECT_TRUE(RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1})).findings.empty());
  tree.SetCounter("mlx5_8", "excessive_buffer_overrun_errors", 3);
  auto r2 = tree.Read(TestTime(120));
  auto d = RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1, r2}));
  ASSERT_EQ(d.findings.size(), 1u);
  std::string ev = AllEvidence(d.findings[0]);
  EXPECT_NE(ev.find("excessive_buffer_overrun_errors rose by 3 (15 -> 3)"), std::string::npos)
      << ev;
  EXPECT_NE(ev.find("reset 1 time(s), counted from the new baseline"), std::string::npos);
  EXPECT_EQ(ev.find("port_rcv_errors"), std::string::npos);
}

TEST(RdmaFabricRules, ACounterThatSaturatesSaysSo) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  tree.SetCounter("mlx5_5", "link_downed", 250);
  auto r0 = tree.Read(TestTime(0));
  tree.SetCounter("mlx5_5", "link_downed", 255);
  auto r1 = tree.Read(TestTime(60));
  auto r2 = tree.Read(TestTime(120));
  auto d = RunRule(kNetworkRdmaErrorsRule, WithReadings({r0, r1, r2}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(AllEvidence(d.findings[0]).find("now saturated at its maximum, rate unknown"),
            std::string::npos);
  // Pinned all along: no rise, no error finding.
  EXPECT_TRUE(RunRule(kNetworkRdmaErrorsRule, WithReadings({r1, r2})).findings.empty());
  auto only_pinned = WithReadings({tree.Read(TestTime(0)), tree.Read(TestTime(60))});
  EXPECT_TRUE(RunRule(kNetworkRdmaErrorsRule, only_pinned).findings.empty());
}

TEST(RdmaFabricRules, PollingAndDisabledPortsAreNotActive) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  tree.SetState("mlx5_0", "1: DOWN", "2: Polling");
  tree.SetState("mlx5_9", "1: DOWN", "3: Disabled");
  auto d = RunRule(kNetworkRdmaRule, WithReadings({tree.Read(TestTime(0))}));
  ASSERT_EQ(d.findings.size(), 1u);
  std::string ev = AllEvidence(d.findings[0]);
  EXPECT_NE(ev.find("mlx5_0 port 1: state 1: DOWN, physical state 2: Polling"), std::string::npos);
  EXPECT_NE(ev.find("Polling: no signal from the other end"), std::string::npos);
  EXPECT_NE(ev.find("Disabled: the port was switched off"), std::string::npos);
}

TEST(RdmaFabricRules, AMissingPortOnAnHgxH100Node) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  tree.RemoveDevice("mlx5_9");
  auto d = RunRule(kNetworkRdmaCountRule, WithReadings({tree.Read(TestTime(0))}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "network.rdma_count");
  EXPECT_EQ(d.findings[0].title.en, "7 of 8 expected InfiniBand ports present");
  EXPECT_NE(AllEvidence(d.findings[0]).find("HGX H100 default"), std::string::npos);
  // Without GPUs there is no default; a configured count applies anyway.
  auto no_gpus = WithReadings({tree.Read(TestTime(0))}, 0);
  EXPECT_TRUE(RunRule(kNetworkRdmaCountRule, no_gpus).findings.empty());
  no_gpus.config.ib.ports = 8;
  EXPECT_EQ(RunRule(kNetworkRdmaCountRule, no_gpus).findings.size(), 1u);
}

TEST(RdmaFabricRules, APortBelowItsRate) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  tree.SetRate("mlx5_5", "200 Gb/sec (4X HDR)");
  auto d = RunRule(kNetworkRdmaRateRule, WithReadings({tree.Read(TestTime(0))}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "network.rdma_rate");
  EXPECT_NE(AllEvidence(d.findings[0])
                .find("mlx5_5 port 1: 200 Gb/sec (4X HDR) (200 Gb/s); expected 400"),
            std::string::npos)
      << AllEvidence(d.findings[0]);
  // Without GPUs (no platform default) its peers say the same; the bonded
  // Ethernet device at 200 Gb/s has no peers and stays out.
  auto peers = RunRule(kNetworkRdmaRateRule, WithReadings({tree.Read(TestTime(0))}, 0));
  ASSERT_EQ(peers.findings.size(), 1u);
  std::string ev = AllEvidence(peers.findings[0]);
  EXPECT_NE(ev.find("the fastest of its 7 peer ports (MT4129 InfiniBand) runs at 400 Gb/s"),
            std::string::npos)
      << ev;
  EXPECT_EQ(ev.find("mlx5_bond_0"), std::string::npos);
}

TEST(RdmaFabricRules, FlapsAndDropsFromTheHistory) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  std::vector<RdmaFacts> readings;
  readings.push_back(tree.Read(TestTime(0)));
  tree.SetState("mlx5_4", "1: DOWN", "2: Polling");
  readings.push_back(tree.Read(TestTime(10)));
  tree.SetState("mlx5_4", "4: ACTIVE", "5: LinkUp");
  readings.push_back(tree.Read(TestTime(20)));
  tree.SetState("mlx5_4", "1: DOWN", "2: Polling");
  readings.push_back(tree.Read(TestTime(30)));
  tree.SetState("mlx5_4", "4: ACTIVE", "5: LinkUp");
  readings.push_back(tree.Read(TestTime(40)));
  auto d = RunRule(kNetworkRdmaFlapRule, WithReadings(readings));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "network.rdma_flap");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(AllEvidence(d.findings[0])
                .find("mlx5_4 port 1 (InfiniBand, 400 Gb/sec (4X NDR)): went "
                      "down and came back 2 time(s)"),
            std::string::npos)
      << AllEvidence(d.findings[0]);

  // Down for five minutes after being ACTIVE: dropped.
  std::vector<RdmaFacts> drop;
  drop.push_back(tree.Read(TestTime(0)));
  tree.SetState("mlx5_9", "1: DOWN", "3: Disabled");
  drop.push_back(tree.Read(TestTime(60)));
  drop.push_back(tree.Read(TestTime(200)));
  EXPECT_TRUE(RunRule(kNetworkRdmaFlapRule, WithReadings(drop)).findings.empty());  // 2 min 20 s
  drop.push_back(tree.Read(TestTime(360)));
  auto dropped = RunRule(kNetworkRdmaFlapRule, WithReadings(drop));
  ASSERT_EQ(dropped.findings.size(), 1u);
  EXPECT_EQ(dropped.findings[0].severity, Severity::kCritical);
  EXPECT_NE(AllEvidence(dropped.findings[0]).find("down for 5 min since 2026-01-01T00:01:00"),
            std::string::npos)
      << AllEvidence(dropped.findings[0]);
}

TEST(RdmaFabricRules, ReadsEveryCounterOfTheCapture) {
  InfinibandTree tree;
  SKIP_WITHOUT_CAPTURE(tree);
  RdmaFacts facts = tree.Read(TestTime(0));
  ASSERT_EQ(facts.devices.size(), 9u);
  const RdmaDevice& d = facts.devices[1];
  EXPECT_EQ(d.name, "mlx5_1");
  EXPECT_EQ(d.hca_type, "MT4129");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_EQ(d.ports[0].Counter("link_downed"), 255u);
  EXPECT_EQ(d.ports[0].Counter("port_xmit_wait"), 2489603687u);
  EXPECT_TRUE(d.ports[0].Counter("rnr_nak_retry_err").has_value());
  EXPECT_TRUE(d.ports[0].sources.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
