#include "collect/net_interfaces.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "collect/rdma.h"
#include "parse/sysfs_net.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace net_interfaces_unit_local {

TEST(SysfsNet, Parsers) {
  EXPECT_EQ(ParseNetSpeedMbps("25000\n"), 25000);
  EXPECT_EQ(ParseNetSpeedMbps("-1\n"), std::nullopt);
  EXPECT_EQ(ParseNetSpeedMbps(""), std::nullopt);
  auto state = ParseIbPortState("4: ACTIVE\n");
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->code, 4);
  EXPECT_EQ(state->name, "ACTIVE");
  EXPECT_EQ(ParseIbPortState("5: LinkUp")->name, "LinkUp");
  EXPECT_FALSE(ParseIbPortState("ACTIVE").has_value());
  EXPECT_EQ(ParseIbRateGbps("200 Gb/sec (4X HDR)\n"), 200.0);
  EXPECT_EQ(ParseIbRateGbps("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_EQ(ParseIbRateGbps("fast"), std::nullopt);
}

void Interface(const test::TempDir& root, const std::string& name, const std::string& speed,
               std::uint64_t rx, std::uint64_t tx, std::uint64_t rx_drop = 0) {
  const std::string dir = "sys/class/net/" + name + "/";
  root.Write(dir + "operstate", "up\n");
  root.Write(dir + "speed", speed + "\n");
  root.Write(dir + "mtu", "9000\n");
  root.Write(dir + "statistics/rx_bytes", std::to_string(rx) + "\n");
  root.Write(dir + "statistics/tx_bytes", std::to_string(tx) + "\n");
  root.Write(dir + "statistics/rx_errors", "0\n");
  root.Write(dir + "statistics/tx_errors", "0\n");
  root.Write(dir + "statistics/rx_dropped", std::to_string(rx_drop) + "\n");
  root.Write(dir + "statistics/tx_dropped", "0\n");
}

NetSnapshot SnapshotAt(const test::TempDir& root, std::chrono::seconds at) {
  CollectContext ctx;
  ctx.root = root.path();
  NetSnapshot snap = ReadNet(ctx);
  snap.taken = std::chrono::steady_clock::time_point(at);
  return snap;
}

TEST(NetInterfaces, RatesPhysicalVirtualAndLoopbackSkipped) {
  test::TempDir root;
  Interface(root, "lo", "-1", 0, 0);
  Interface(root, "eth0", "25000", 1000, 2000, 10);
  root.Write("sys/devices/pci0000:00/0000:00:03.0/.keep", "");
  std::filesystem::create_directory_symlink("../../../devices/pci0000:00/0000:00:03.0",
                                            root.path() / "sys/class/net/eth0/device");
  Interface(root, "docker0", "-1", 0, 0);
  auto a = SnapshotAt(root, std::chrono::seconds(0));
  Interface(root, "eth0", "25000", 1000 + 250000000, 2000 + 50000000, 30);
  Interface(root, "docker0", "-1", 500, 0);
  auto b = SnapshotAt(root, std::chrono::seconds(2));

  ASSERT_EQ(b.interfaces.size(), 2u);  // docker0, eth0 (sorted), no lo
  auto rates = NetRatesBetween(a, b);
  ASSERT_EQ(rates.size(), 2u);
  const auto& docker = rates[0];
  const auto& eth = rates[1];
  EXPECT_EQ(docker.interface.name, "docker0");
  EXPECT_FALSE(docker.interface.physical);
  EXPECT_EQ(docker.interface.speed_mbps, std::nullopt);
  EXPECT_EQ(eth.interface.name, "eth0");
  EXPECT_TRUE(eth.interface.physical);
  EXPECT_EQ(eth.interface.speed_mbps, 25000);
  EXPECT_EQ(eth.interface.mtu, 9000);
  EXPECT_EQ(eth.interface.operstate, "up");
  EXPECT_DOUBLE_EQ(eth.rx_bytes_per_s.value_or(-1), 125000000.0);
  EXPECT_DOUBLE_EQ(eth.rx_mbps.value_or(-1), 1000.0);
  EXPECT_DOUBLE_EQ(eth.tx_mbps.value_or(-1), 200.0);
  EXPECT_DOUBLE_EQ(eth.rx_dropped_per_s.value_or(-1), 10.0);
  EXPECT_DOUBLE_EQ(eth.tx_errors_per_s.value_or(-1), 0.0);
}

TEST(NetInterfaces, NewInterfaceHasNoRates) {
  test::TempDir root;
  auto a = SnapshotAt(root, std::chrono::seconds(0));  // no /sys/class/net at all
  EXPECT_FALSE(a.sources[0].available);
  Interface(root, "ib0", "100000", 10, 10);
  auto b = SnapshotAt(root, std::chrono::seconds(1));
  auto rates = NetRatesBetween(a, b);
  ASSERT_EQ(rates.size(), 1u);
  EXPECT_EQ(rates[0].rx_bytes_per_s, std::nullopt);
}

TEST(Rdma, RoCEAndInfiniBandPorts) {
  test::TempDir root;
  const std::string roce = "sys/class/infiniband/mlx5_0/";
  root.Write(roce + "fw_ver", "22.36.1010\n");
  root.Write(roce + "ports/1/state", "4: ACTIVE\n");
  root.Write(roce + "ports/1/phys_state", "5: LinkUp\n");
  root.Write(roce + "ports/1/rate", "100 Gb/sec (4X EDR)\n");
  root.Write(roce + "ports/1/link_layer", "Ethernet\n");
  const std::string ib = "sys/class/infiniband/mlx5_1/";
  root.Write(ib + "ports/1/state", "1: DOWN\n");
  root.Write(ib + "ports/1/phys_state", "3: Disabled\n");
  root.Write(ib + "ports/1/rate", "200 Gb/sec (4X HDR)\n");
  root.Write(ib + "ports/1/link_layer", "InfiniBand\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadRdma(ctx);
  ASSERT_EQ(facts.devices.size(), 2u);
  const auto& p0 = facts.devices[0].ports.at(0);
  EXPECT_EQ(facts.devices[0].name, "mlx5_0");
  EXPECT_EQ(facts.devices[0].fw_version, "22.36.1010");
  EXPECT_TRUE(p0.roce);
  EXPECT_TRUE(p0.active);
  EXPECT_EQ(p0.phys_state->name, "LinkUp");
  EXPECT_EQ(p0.rate_gbps, 100.0);
  const auto& p1 = facts.devices[1].ports.at(0);
  EXPECT_FALSE(p1.roce);
  EXPECT_FALSE(p1.active);
  EXPECT_EQ(p1.state->name, "DOWN");
  EXPECT_EQ(p1.rate_gbps, 200.0);
}

TEST(Rdma, NoDevicesSaysWhy) {
  test::TempDir root;
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadRdma(ctx);
  EXPECT_TRUE(facts.devices.empty());
  ASSERT_EQ(facts.sources.size(), 1u);
  EXPECT_FALSE(facts.sources[0].available);
  EXPECT_NE(facts.sources[0].why.find("no RDMA devices"), std::string::npos);
}

}  // namespace net_interfaces_unit_local
}  // namespace gpudoctor
