#include <gtest/gtest.h>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

constexpr std::int64_t kGB = 1000LL * 1000 * 1000;

// Gen4 x16: 31.5 GB/s per direction; 12 + 6 GB/s is 57 % of it.
GpuStatus Copying(std::int64_t utilization_percent) {
  GpuStatus g = HealthyGpu(0);
  g.pcie_link_gen_current = 4;
  g.pcie_link_gen_max = 4;
  g.utilization_gpu_percent = utilization_percent;
  g.pcie_tx_bytes_per_s = 12 * kGB;
  g.pcie_rx_bytes_per_s = 6 * kGB;
  return g;
}

TEST(PcieTransferBoundRule, StarvedGpuWithBusyLinkIsAWarning) {
  auto d = RunRule(kPcieTransferBoundRule, RepeatedReadings({Copying(20)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "pcie.transfer_bound");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<std::string>{HealthyGpu(0).pci_bus_id});
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[1].value, 18.0 * kGB);
  EXPECT_EQ(f.evidence[1].unit, "bytes_per_second");
  EXPECT_GE(f.actions.size(), 3u);
}

TEST(PcieTransferBoundRule, ModerateUtilisationIsInfo) {
  auto d = RunRule(kPcieTransferBoundRule, RepeatedReadings({Copying(45)}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kInfo);
}

TEST(PcieTransferBoundRule, DowngradedLinkIsNamedInTheEvidence) {
  GpuStatus g = Copying(20);
  g.pcie_link_width_current = 8;  // 15.75 GB/s: 18 GB/s is more than it
  auto d = RunRule(kPcieTransferBoundRule, RepeatedReadings({g}, 1));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].evidence.back().text.en,
            "the link runs at Gen4 x8, below its maximum Gen4 x16");
}

TEST(PcieTransferBoundRule, QuietWhenBusyOrTrafficLow) {
  GpuStatus busy = Copying(75);
  GpuStatus quiet_link = HealthyGpu(1);
  quiet_link.utilization_gpu_percent = 20;
  auto d = RunRule(kPcieTransferBoundRule, RepeatedReadings({busy, quiet_link}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PcieTransferBoundRule, QuietWithoutLinkFigures) {
  GpuStatus g = Copying(20);
  g.pcie_link_gen_current.reset();
  auto d = RunRule(kPcieTransferBoundRule, RepeatedReadings({g}, 10));
  EXPECT_TRUE(d.findings.empty());
}

TEST(PcieLinkBandwidth, PerLaneRatesTimesWidth) {
  GpuStatus g = HealthyGpu(0);
  g.pcie_link_gen_current = 3;
  g.pcie_link_width_current = 8;
  EXPECT_NEAR(*perf::PcieLinkBytesPerS(g), 7.88e9, 1e6);
  g.pcie_link_gen_current = 7;
  EXPECT_FALSE(perf::PcieLinkBytesPerS(g).has_value());
}

}  // namespace
}  // namespace gpudoctor::testing

namespace gpudoctor::testing {
namespace {

// GPM's rates win over NVML's 20 ms throughput window where the GPU has them.
TEST(PcieTransferBoundRule, GpmRatesAreUsedWherePresent) {
  GpuStatus g = Copying(20);
  g.pcie_tx_bytes_per_s = 1 * kGB;  // NVML's short window saw little
  g.pcie_rx_bytes_per_s = 1 * kGB;
  EXPECT_TRUE(RunRule(kPcieTransferBoundRule, RepeatedReadings({g}, 10)).findings.empty());
  g.gpm_pcie_tx_bytes_per_s = 14 * kGB;
  g.gpm_pcie_rx_bytes_per_s = 4 * kGB;
  auto d = RunRule(kPcieTransferBoundRule, RepeatedReadings({g}, 10));
  ASSERT_EQ(d.findings.size(), 1u);
  ASSERT_GE(d.findings[0].evidence.size(), 2u);
  EXPECT_EQ(d.findings[0].evidence[1].value, 18.0 * kGB);
  EXPECT_NE(d.findings[0].evidence[1].text.en.find("(GPM)"), std::string::npos);
  // And GPM's quiet link keeps it quiet, whatever NVML's window caught.
  g = Copying(20);
  g.gpm_pcie_tx_bytes_per_s = kGB / 10;
  g.gpm_pcie_rx_bytes_per_s = kGB / 10;
  EXPECT_TRUE(RunRule(kPcieTransferBoundRule, RepeatedReadings({g}, 10)).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
