#include "collect/pci_devices.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "collect/dropped_gpus.h"
#include "parse/sysfs_pci.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace pci_devices_unit_local {

TEST(SysfsPci, ClassKinds) {
  EXPECT_EQ(PciKindFromClass(0x030200), PciFunctionKind::kGpu);
  EXPECT_EQ(PciKindFromClass(0x030000), PciFunctionKind::kGpu);
  EXPECT_EQ(PciKindFromClass(0x068000), PciFunctionKind::kNvSwitch);
  EXPECT_EQ(PciKindFromClass(0x040300), PciFunctionKind::kAudio);
  EXPECT_EQ(PciKindFromClass(0x060400), PciFunctionKind::kOther);  // PCI bridge
}

TEST(SysfsPci, LinkSpeedTable) {
  struct Case {
    const char* text;
    std::optional<int> gen;
  } cases[] = {{"2.5 GT/s PCIe\n", 1}, {"5.0 GT/s PCIe", 2},      {"8.0 GT/s PCIe", 3},
               {"16.0 GT/s PCIe", 4},  {"32.0 GT/s PCIe", 5},     {"64.0 GT/s PCIe", 6},
               {"8 GT/s", 3},          {"Unknown", std::nullopt}, {"3.0 GT/s", std::nullopt}};
  for (const auto& c : cases) {
    auto speed = ParseLinkSpeedGtPerS(c.text);
    std::optional<int> gen = speed ? PcieGenFromGtPerS(*speed) : std::nullopt;
    EXPECT_EQ(gen, c.gen) << c.text;
  }
  EXPECT_EQ(ParseLinkWidth("16\n"), 16);
  EXPECT_EQ(ParseLinkWidth("0"), std::nullopt);
  EXPECT_EQ(ParseLinkWidth("x16"), std::nullopt);
}

TEST(SysfsPci, AerCounters) {
  auto c = ParseAerCounters("RxErr 0\nBadTLP 2\nBadDLLP 3\nTOTAL_ERR_COR 5\n");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->total, 5u);
  EXPECT_EQ(c->counters.at("BadDLLP"), 3u);
  EXPECT_EQ(c->counters.count("TOTAL_ERR_COR"), 0u);
  auto no_total = ParseAerCounters("Undefined 1\nDLP 4\n");
  EXPECT_EQ(no_total->total, 5u);
  EXPECT_FALSE(ParseAerCounters("RxErr x\n").ok());
}

// Builds /sys/bus/pci/devices/<bdf>/ with the given attributes.
void Device(const test::TempDir& root, const std::string& bdf, const std::string& klass,
            const std::string& device, const std::string& revision = "0xa1",
            const std::string& vendor = "0x10de") {
  const std::string dir = "sys/bus/pci/devices/" + bdf + "/";
  root.Write(dir + "vendor", vendor + "\n");
  root.Write(dir + "device", device + "\n");
  root.Write(dir + "class", klass + "\n");
  root.Write(dir + "revision", revision + "\n");
  root.Write(dir + "current_link_speed", "16.0 GT/s PCIe\n");
  root.Write(dir + "max_link_speed", "16.0 GT/s PCIe\n");
  root.Write(dir + "current_link_width", "16\n");
  root.Write(dir + "max_link_width", "16\n");
  root.Write(dir + "numa_node", "1\n");
}

void BindDriver(const test::TempDir& root, const std::string& bdf, const std::string& driver) {
  root.Write("sys/bus/pci/drivers/" + driver + "/.keep", "");
  std::filesystem::create_directory_symlink(
      "../../drivers/" + driver, root.path() / ("sys/bus/pci/devices/" + bdf + "/driver"));
}

TEST(PciDevices, GpusNvSwitchesAudioAndOtherVendors) {
  test::TempDir root;
  Device(root, "0000:3b:00.0", "0x030200", "0x20b2");
  BindDriver(root, "0000:3b:00.0", "nvidia");
  root.Write("sys/bus/pci/devices/0000:3b:00.0/aer_dev_correctable",
             "RxErr 1\nBadTLP 6\nTOTAL_ERR_COR 7\n");
  root.Write("sys/bus/pci/devices/0000:3b:00.0/aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL 0\n");
  Device(root, "0000:3b:00.1", "0x040300", "0x10f0");  // HDMI audio: ignored
  Device(root, "0000:c1:00.0", "0x068000", "0x22a3");  // NVSwitch
  Device(root, "0000:c2:00.0", "0x068000", "0x22a3");
  Device(root, "0000:00:02.0", "0x030000", "0x3e92", "0x02", "0x8086");  // Intel iGPU
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadPciDevices(ctx);
  ASSERT_EQ(facts.gpus.size(), 1u);
  ASSERT_EQ(facts.nvswitches.size(), 2u);
  const auto& gpu = facts.gpus[0];
  EXPECT_EQ(gpu.bus_id, "0000:3b:00.0");
  EXPECT_EQ(gpu.device_id, 0x20b2u);
  EXPECT_EQ(gpu.revision, 0xa1u);
  EXPECT_TRUE(gpu.answers);
  EXPECT_EQ(gpu.driver, "nvidia");
  EXPECT_EQ(gpu.numa_node, 1);
  EXPECT_EQ(gpu.link_gen_current, 4);
  EXPECT_EQ(gpu.link_width_max, 16);
  ASSERT_TRUE(gpu.aer_correctable.has_value());
  EXPECT_EQ(gpu.aer_correctable->total, 7u);
  EXPECT_FALSE(gpu.aer_nonfatal.has_value());  // file absent
  EXPECT_EQ(gpu.aer_fatal->total, 0u);
  EXPECT_FALSE(PcieLinkDegraded(gpu));
  EXPECT_EQ(facts.nvswitches[1].bus_id, "0000:c2:00.0");
  EXPECT_EQ(facts.nvswitches[0].kind, PciFunctionKind::kNvSwitch);
  EXPECT_EQ(facts.nvswitches[0].driver, "");
}

TEST(SysfsPci, UpstreamPortsFromTheDeviceLink) {
  using V = std::vector<std::string>;
  EXPECT_EQ(PciUpstreamPorts("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/"
                             "0000:03:00.0"),
            (V{"0000:02:08.0", "0000:01:00.0", "0000:00:01.0"}));
  EXPECT_EQ(PciUpstreamPorts("/sys/devices/pci0000:3A/0000:3A:00.0/0000:3B:00.0"),
            (V{"0000:3a:00.0"}));
  // Directly on the root complex (a VM's GPU): no port above it.
  EXPECT_EQ(PciUpstreamPorts("../../../devices/pci0000:00/0000:00:05.0"), V{});
  EXPECT_EQ(PciUpstreamPorts(""), V{});
  EXPECT_EQ(PciUpstreamPorts("../devices/platform/x/0000:0g:00.0/0000:03:00.0"), V{});
}

// sysfs as the kernel lays it out: /sys/bus/pci/devices/<bdf> is a link
// into /sys/devices/pci0000:00/<root port>/[<switch ports>/]<bdf>.
void LinkedDevice(const test::TempDir& root, const std::string& chain, const std::string& bdf) {
  const std::string real = "sys/devices/pci0000:00/" + chain + bdf;
  root.Write(real + "/vendor", "0x10de\n");
  root.Write(real + "/device", "0x2330\n");
  root.Write(real + "/class", "0x030200\n");
  root.Write(real + "/revision", "0xa1\n");
  std::filesystem::create_directories(root.path() / "sys/bus/pci/devices");
  std::filesystem::create_directory_symlink("../../../devices/pci0000:00/" + chain + bdf,
                                            root.path() / ("sys/bus/pci/devices/" + bdf));
}

TEST(PciDevices, UpstreamPortsAndWhichGpuAnAerReportConcerns) {
  test::TempDir root;
  // Two GPUs behind one PCIe switch under root port 00:01.0, a third on its own root port.
  LinkedDevice(root, "0000:00:01.0/0000:01:00.0/0000:02:08.0/", "0000:03:00.0");
  LinkedDevice(root, "0000:00:01.0/0000:01:00.0/0000:02:10.0/", "0000:04:00.0");
  LinkedDevice(root, "0000:00:03.0/", "0000:05:00.0");
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadPciDevices(ctx);
  ASSERT_EQ(facts.gpus.size(), 3u);
  const PciDevice* first = nullptr;
  for (const auto& g : facts.gpus) {
    if (g.bus_id == "0000:03:00.0") first = &g;
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->upstream_ports,
            (std::vector<std::string>{"0000:02:08.0", "0000:01:00.0", "0000:00:01.0"}));
  auto owner = AerOwnerOfBus(facts);
  EXPECT_EQ(owner.at("0000:02:08.0"), "0000:03:00.0");  // the switch port above it alone
  EXPECT_EQ(owner.at("0000:02:10.0"), "0000:04:00.0");
  EXPECT_EQ(owner.count("0000:01:00.0"), 0u);  // the switch's upstream port: both GPUs
  EXPECT_EQ(owner.count("0000:00:01.0"), 0u);
  EXPECT_EQ(owner.at("0000:00:03.0"), "0000:05:00.0");
  EXPECT_EQ(owner.at("0000:05:00.0"), "0000:05:00.0");
  EXPECT_EQ(owner.size(), 6u);
}

TEST(PciDevices, X16RunningAtX8IsDegraded) {
  test::TempDir root;
  Device(root, "0000:af:00.0", "0x030200", "0x2330");
  root.Write("sys/bus/pci/devices/0000:af:00.0/current_link_width", "8\n");
  root.Write("sys/bus/pci/devices/0000:af:00.0/current_link_speed", "2.5 GT/s PCIe\n");
  root.Write("sys/bus/pci/devices/0000:af:00.0/max_link_speed", "32.0 GT/s PCIe\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadPciDevices(ctx);
  ASSERT_EQ(facts.gpus.size(), 1u);
  EXPECT_TRUE(PcieLinkDegraded(facts.gpus[0]));
  EXPECT_EQ(PcieLinkDegradation(facts.gpus[0]), "x8 of x16, Gen1 of Gen5");
}

TEST(PciDevices, RevisionFfDoesNotAnswer) {
  test::TempDir root;
  Device(root, "0000:3b:00.0", "0x030200", "0x20b2", "0xff");
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadPciDevices(ctx);
  ASSERT_EQ(facts.gpus.size(), 1u);
  EXPECT_FALSE(facts.gpus[0].answers);
  EXPECT_NE(facts.gpus[0].no_answer_detail.find("rev ff"), std::string::npos);
  auto dropped = FindDroppedGpus(facts.gpus, {"00000000:3B:00.0"}, std::nullopt);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].reason, DropReason::kNoAnswer);
  EXPECT_NE(dropped[0].detail.find("does not answer on the bus"), std::string::npos);
}

TEST(PciDevices, ConfigSpaceAllOnesDoesNotAnswer) {
  test::TempDir root;
  Device(root, "0000:3b:00.0", "0x030200", "0x20b2");
  root.Write("sys/bus/pci/devices/0000:3b:00.0/config", std::string(64, '\xff'));
  Device(root, "0000:5e:00.0", "0x030200", "0x20b2");
  root.Write("sys/bus/pci/devices/0000:5e:00.0/config", std::string("\xde\x10\xb2\x20", 4));
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadPciDevices(ctx);
  ASSERT_EQ(facts.gpus.size(), 2u);
  EXPECT_FALSE(facts.gpus[0].answers);
  EXPECT_TRUE(facts.gpus[1].answers);
}

TEST(PciDevices, MissingSysfsSaysWhy) {
  test::TempDir root;
  CollectContext ctx;
  ctx.root = root.path();
  auto facts = ReadPciDevices(ctx);
  EXPECT_TRUE(facts.gpus.empty());
  ASSERT_EQ(facts.sources.size(), 1u);
  EXPECT_FALSE(facts.sources[0].available);
  EXPECT_NE(facts.sources[0].why.find("/sys/bus/pci/devices"), std::string::npos);
}

PciDevice Gpu(const std::string& bus_id, bool answers = true) {
  PciDevice d;
  d.bus_id = bus_id;
  d.kind = PciFunctionKind::kGpu;
  d.answers = answers;
  return d;
}

TEST(DroppedGpus, PresentOnBusButAbsentFromNvml) {
  std::vector<PciDevice> bus = {Gpu("0000:1b:00.0"), Gpu("0000:3b:00.0"), Gpu("0000:5e:00.0")};
  // NVML spells ids with an 8-digit domain and upper case.
  auto dropped = FindDroppedGpus(bus, {"00000000:1B:00.0", "00000000:5E:00.0"}, std::nullopt);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].bus_id, "0000:3b:00.0");
  EXPECT_EQ(dropped[0].reason, DropReason::kNotInNvml);
  EXPECT_STREQ(DropReasonName(dropped[0].reason), "not_in_nvml");
  // All present: nothing.
  EXPECT_TRUE(FindDroppedGpus(bus, {"0000:1b:00.0", "0000:3b:00.0", "0000:5e:00.0"}, 3u).empty());
}

TEST(DroppedGpus, BelowExpectedCount) {
  std::vector<PciDevice> bus = {Gpu("0000:1b:00.0"), Gpu("0000:3b:00.0")};
  auto dropped = FindDroppedGpus(bus, {"0000:1b:00.0", "0000:3b:00.0"}, 8u);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].reason, DropReason::kBelowExpectedCount);
  EXPECT_EQ(dropped[0].bus_id, "");
  EXPECT_EQ(dropped[0].detail, "2 GPUs seen, 8 expected");
  // A GPU missing from NVML but on the bus is reported once, not twice.
  auto once = FindDroppedGpus(bus, {"0000:1b:00.0"}, 2u);
  ASSERT_EQ(once.size(), 1u);
  EXPECT_EQ(once[0].reason, DropReason::kNotInNvml);
}

TEST(DroppedGpus, NoAnswerReportedOnceEvenIfAbsentFromNvml) {
  std::vector<PciDevice> bus = {Gpu("0000:1b:00.0", false), Gpu("0000:3b:00.0")};
  auto dropped = FindDroppedGpus(bus, {"0000:3b:00.0"}, 2u);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[0].reason, DropReason::kNoAnswer);
  EXPECT_EQ(dropped[0].bus_id, "0000:1b:00.0");
  EXPECT_EQ(dropped[1].reason, DropReason::kBelowExpectedCount);
}

}  // namespace pci_devices_unit_local
}  // namespace gpudoctor
