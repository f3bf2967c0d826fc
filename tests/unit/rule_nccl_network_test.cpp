// nccl.network: NCCL's network failures, their severity by what failed, the
// explanation and actions that follow the failure, and the RDMA port of
// this node that had trouble around it.
#include <gtest/gtest.h>

#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {
namespace rule_nccl_network_local {

KernelEvent Net(const std::string& detail) {
  KernelEvent e = MakeEvent(KernelEventKind::kNcclNetwork, std::nullopt, "",
                            "host:1:2 [0] NCCL WARN NET/IB : " + detail);
  e.detail = detail;
  return e;
}

bool Says(const Finding& f, std::string_view text) {
  return f.explanation.en.find(text) != std::string::npos;
}

bool HasCommand(const Finding& f, std::string_view command) {
  for (const Action& a : f.actions) {
    if (a.command.find(command) != std::string::npos) return true;
  }
  return false;
}

TEST(NcclNetworkRule, RetriesExceededIsCriticalAndPointsAtThePortsAndTheTimeout) {
  auto d = RunRule(kNcclNetworkRule,
                   WithEvents({Net("completion error 12 (transport retry counter exceeded), "
                                   "vendor err 129, peer 10.0.0.2<1234>"),
                               Net("completion error 5 (work request flushed)")}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "nccl.network");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.title.en,
            "NCCL lost its network connection (2 times): completion error 12 (transport retry "
            "counter exceeded); completion error 5 (work request flushed)");
  EXPECT_TRUE(Says(f, "packets were lost"));
  EXPECT_TRUE(HasCommand(f, "perfquery -x"));
  EXPECT_TRUE(HasCommand(f, "NCCL_IB_TIMEOUT"));
  EXPECT_FALSE(HasCommand(f, "nvidia_peermem"));
  ExpectBilingual(d);
}

TEST(NcclNetworkRule, ALocalProtectionErrorPointsAtGpuDirectRdma) {
  auto d = RunRule(kNcclNetworkRule,
                   WithEvents({Net("completion error 4 (local protection error), vendor err 81")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_TRUE(Says(d.findings[0], "nvidia-peermem"));
  EXPECT_TRUE(HasCommand(d.findings[0], "nvidia_peermem"));
}

TEST(NcclNetworkRule, AClosedPeerPointsAtThePeersOwnLog) {
  auto d = RunRule(kNcclNetworkRule, WithEvents({Net("connection closed by remote peer")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_TRUE(Says(d.findings[0], "process on the other node had already died"));
  EXPECT_FALSE(Says(d.findings[0], "packets were lost"));
}

TEST(NcclNetworkRule, AQueuePairThatDoesNotComeUpPointsAtTheGidIndex) {
  auto d = RunRule(kNcclNetworkRule,
                   WithEvents({Net("ibv_modify_qp failed, 110 Connection timed out")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_TRUE(HasCommand(d.findings[0], "show_gids"));
}

TEST(NcclNetworkRule, ARefusedConnectionStillRetriedIsAWarning) {
  auto d = RunRule(kNcclNetworkRule, WithEvents({Net("connection refused, retrying")}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  // Once NCCL gives up, the job has failed.
  auto failed =
      RunRule(kNcclNetworkRule,
              WithEvents({Net("connection refused, retrying"), Net("connection refused")}));
  ASSERT_EQ(failed.findings.size(), 1u);
  EXPECT_EQ(failed.findings[0].severity, Severity::kCritical);
}

TEST(NcclNetworkRule, APortThatWentDownAroundItIsNamed) {
  DiagnosisInput input;
  input.network = NetFacts{};
  input.rdma_history = {IbPortReading("mlx5_0", "0000:18:00.0", 0, 0)};
  input.network->rdma = IbPortReading("mlx5_0", "0000:18:00.0", 10, 1);
  KernelEvent e = Net("completion error 12 (transport retry counter exceeded)");
  e.time = TestTime(20);
  auto d = RunRule(kNcclNetworkRule, WithEvents({e}, input));
  ASSERT_EQ(d.findings.size(), 1u);
  bool named = false;
  for (const auto& ev : d.findings[0].evidence) {
    named |= ev.text.en.find(
                 "mlx5_0 port 1 (InfiniBand; next to GPU 0000:18:00.0): link_downed "
                 "rose by 1, in the window of the NCCL network error") != std::string::npos;
  }
  EXPECT_TRUE(named);
  EXPECT_TRUE(Says(d.findings[0], "An RDMA port of this node went down"));
  ExpectBilingual(d);
}

TEST(NcclNetworkRule, QuietWithoutNetworkEvents) {
  auto d = RunRule(kNcclNetworkRule,
                   WithEvents({MakeEvent(KernelEventKind::kNcclTimeout, std::nullopt, "",
                                         "Watchdog caught collective operation timeout")}));
  EXPECT_TRUE(d.findings.empty());
}

}  // namespace rule_nccl_network_local
}  // namespace
}  // namespace gpudoctor::testing
