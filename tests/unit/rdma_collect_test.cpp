// ReadRdma's PCI placement of an RDMA device (its device link, NUMA node)
// and AssignNearestGpus: the GPUs that share the nearest PCI bridge with the
// NIC, else its NUMA node's.
#include <gtest/gtest.h>

#include <filesystem>

#include "collect/rdma.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace rdma_collect_test_ns {

namespace fs = std::filesystem;

constexpr const char* kNicPath =
    "devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:01.0/0000:1a:00.0";

void MakeNic(const test::TempDir& dir) {
  dir.Write(std::string("sys/") + kNicPath + "/numa_node", "0\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
  fs::create_directories(dir.path() / "sys/bus/pci/devices");
  fs::create_symlink(std::string("../../../") + kNicPath,
                     dir.path() / "sys/bus/pci/devices/0000:1a:00.0");
  fs::create_symlink(std::string("../../../") + kNicPath,
                     dir.path() / "sys/class/infiniband/mlx5_0/device");
}

PciDevice Gpu(const std::string& bus, std::vector<std::string> upstream, int numa) {
  PciDevice d;
  d.bus_id = bus;
  d.kind = PciFunctionKind::kGpu;
  d.upstream_ports = std::move(upstream);
  d.numa_node = numa;
  return d;
}

TEST(RdmaCollect, PciPlaceAndNearestGpusOnTheSameSwitch) {
  test::TempDir dir;
  MakeNic(dir);
  CollectContext ctx;
  ctx.root = dir.path();
  RdmaFacts facts = ReadRdma(ctx);
  ASSERT_EQ(facts.devices.size(), 1u);
  const RdmaDevice& nic = facts.devices[0];
  EXPECT_EQ(nic.pci_bus_id, "0000:1a:00.0");
  EXPECT_EQ(nic.numa_node, 0);
  EXPECT_EQ(nic.upstream_ports,
            (std::vector<std::string>{"0000:19:01.0", "0000:18:00.0", "0000:17:01.0"}));
  PciFacts pci;
  pci.gpus = {Gpu("0000:1b:00.0", {"0000:19:02.0", "0000:18:00.0", "0000:17:01.0"}, 0),
              Gpu("0000:2b:00.0", {"0000:29:00.0", "0000:17:02.0"}, 0),
              Gpu("0000:3b:00.0", {"0000:39:00.0", "0000:37:01.0"}, 1)};
  AssignNearestGpus(facts, pci);
  EXPECT_EQ(facts.devices[0].nearest_gpus, (std::vector<std::string>{"0000:1b:00.0"}));
  // No bridge in common: the GPUs of its NUMA node.
  pci.gpus.erase(pci.gpus.begin());
  AssignNearestGpus(facts, pci);
  EXPECT_EQ(facts.devices[0].nearest_gpus, (std::vector<std::string>{"0000:2b:00.0"}));
}

TEST(RdmaCollect, NoDeviceLinkLeavesThePlaceUnknown) {
  test::TempDir dir;
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "not a number\n");
  CollectContext ctx;
  ctx.root = dir.path();
  RdmaFacts facts = ReadRdma(ctx);
  ASSERT_EQ(facts.devices.size(), 1u);
  EXPECT_EQ(facts.devices[0].pci_bus_id, "");
  EXPECT_FALSE(facts.devices[0].numa_node.has_value());
  PciFacts pci;
  pci.gpus = {Gpu("0000:1b:00.0", {"0000:19:02.0"}, 0)};
  AssignNearestGpus(facts, pci);
  EXPECT_TRUE(facts.devices[0].nearest_gpus.empty());
  // The malformed counter is named, not counted.
  ASSERT_EQ(facts.devices[0].ports.size(), 1u);
  EXPECT_TRUE(facts.devices[0].ports[0].counters.empty());
  bool named = false;
  for (const auto& s : facts.devices[0].ports[0].sources)
    named |= s.source.find("counters/symbol_error") != std::string::npos &&
             s.why == "not a counter value";
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace gpudoctor
