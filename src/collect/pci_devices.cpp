#include "collect/pci_devices.h"

#include <filesystem>

#include "core/gpu_status.h"
#include "parse/proc_text.h"

namespace gpudoctor {

namespace {

constexpr std::string_view kDevices = "/sys/bus/pci/devices/";

Result<std::uint64_t> ReadHexFile(const CollectContext& ctx, const std::string& path) {
  auto text = ReadRootFile(ctx, path, 256);
  if (!text.ok()) return text.error();
  auto value = ParseHex(*text);
  if (!value) return Error{ErrorCode::kCorrupt, path + ": not a hex number"};
  return *value;
}

// Reads an optional attribute: a missing file (old kernel, no AER) is not
// an error worth listing; anything else is.
std::optional<std::string> ReadAttr(const CollectContext& ctx, PciDevice& dev,
                                    const std::string& path) {
  auto text = ReadRootFile(ctx, path, 64 * 1024);
  if (text.ok()) return *text;
  if (text.error().code != ErrorCode::kNotFound) {
    dev.sources.push_back(SourceStatus{path, false, text.error().message});
  }
  return std::nullopt;
}

void ReadLink(const CollectContext& ctx, const std::string& dir, PciDevice& dev) {
  if (auto t = ReadAttr(ctx, dev, dir + "current_link_speed")) {
    dev.link_speed_current_gt_s = ParseLinkSpeedGtPerS(*t);
    if (dev.link_speed_current_gt_s)
      dev.link_gen_current = PcieGenFromGtPerS(*dev.link_speed_current_gt_s);
  }
  if (auto t = ReadAttr(ctx, dev, dir + "max_link_speed")) {
    dev.link_speed_max_gt_s = ParseLinkSpeedGtPerS(*t);
    if (dev.link_speed_max_gt_s) dev.link_gen_max = PcieGenFromGtPerS(*dev.link_speed_max_gt_s);
  }
  if (auto t = ReadAttr(ctx, dev, dir + "current_link_width"))
    dev.link_width_current = ParseLinkWidth(*t);
  if (auto t = ReadAttr(ctx, dev, dir + "max_link_width")) dev.link_width_max = ParseLinkWidth(*t);
}

void ReadAer(const CollectContext& ctx, const std::string& dir, PciDevice& dev) {
  struct Slot {
    const char* file;
    std::optional<AerCounters>* into;
  } slots[] = {{"aer_dev_correctable", &dev.aer_correctable},
               {"aer_dev_nonfatal", &dev.aer_nonfatal},
               {"aer_dev_fatal", &dev.aer_fatal}};
  for (const auto& slot : slots) {
    auto text = ReadAttr(ctx, dev, dir + slot.file);
    if (!text) continue;
    auto counters = ParseAerCounters(*text);
    if (counters.ok()) {
      *slot.into = std::move(*counters);
    } else {
      dev.sources.push_back(SourceStatus{dir + slot.file, false, counters.error().message});
    }
  }
}

// Live config space: the sysfs vendor/device/revision files are cached at
// enumeration, the first bytes of `config` are read from the device now.
void CheckConfigSpace(const CollectContext& ctx, const std::string& dir, PciDevice& dev) {
  auto config = ReadRootFile(ctx, dir + "config", 4);
  if (!config.ok() || config->size() < 4) return;
  if (config->find_first_not_of('\xff') == std::string::npos) {
    dev.answers = false;
    dev.no_answer_detail = "config space reads all ones (0xffffffff)";
  }
}

}  // namespace

std::optional<PciDevice> ReadPciDevice(const CollectContext& ctx, const std::string& name) {
  const std::string dir = std::string(kDevices) + name + "/";
  PciDevice dev;
  dev.bus_id = NormalizePciBusId(name);
  if (dev.bus_id.empty()) dev.bus_id = name;
  auto vendor = ReadHexFile(ctx, dir + "vendor");
  auto device = ReadHexFile(ctx, dir + "device");
  auto klass = ReadHexFile(ctx, dir + "class");
  if (!vendor.ok() || !klass.ok()) return std::nullopt;
  dev.vendor_id = static_cast<std::uint32_t>(*vendor);
  dev.class_code = static_cast<std::uint32_t>(*klass);
  if (device.ok()) dev.device_id = static_cast<std::uint32_t>(*device);
  std::error_code ec;
  auto self_link = std::filesystem::read_symlink(UnderRoot(ctx, std::string(kDevices) + name), ec);
  if (!ec) dev.upstream_ports = PciUpstreamPorts(self_link.string());
  auto driver_link = std::filesystem::read_symlink(UnderRoot(ctx, dir + "driver"), ec);
  if (!ec) dev.driver = driver_link.filename().string();
  // A device that stopped answering may read 0xffff as vendor; it is still
  // ours when the nvidia driver holds it.
  const bool all_ones_vendor = dev.vendor_id == 0xffff;
  if (dev.vendor_id != kNvidiaVendorId &&
      !(all_ones_vendor && dev.driver.rfind("nvidia", 0) == 0)) {
    return std::nullopt;
  }
  dev.kind = PciKindFromClass(dev.class_code);
  if (all_ones_vendor && dev.kind == PciFunctionKind::kOther) dev.kind = PciFunctionKind::kGpu;
  if (dev.kind != PciFunctionKind::kGpu && dev.kind != PciFunctionKind::kNvSwitch)
    return std::nullopt;

  if (auto rev = ReadHexFile(ctx, dir + "revision"); rev.ok()) {
    dev.revision = static_cast<std::uint32_t>(*rev);
  } else {
    dev.sources.push_back(StatusOf(dir + "revision", rev));
  }
  if (all_ones_vendor || (device.ok() && dev.device_id == 0xffff)) {
    dev.answers = false;
    dev.no_answer_detail = "vendor/device read 0xffff";
  } else if (dev.revision && *dev.revision == 0xff) {
    dev.answers = false;
    dev.no_answer_detail = "revision reads 0xff (lspci: rev ff)";
  } else {
    CheckConfigSpace(ctx, dir, dev);
  }
  ReadLink(ctx, dir, dev);
  ReadAer(ctx, dir, dev);
  if (auto t = ReadAttr(ctx, dev, dir + "numa_node")) {
    auto node = ParseSigned(*t);
    if (node && *node >= 0) dev.numa_node = static_cast<int>(*node);
  }
  return dev;
}

PciFacts ReadPciDevices(const CollectContext& ctx) {
  PciFacts facts;
  auto names = ListRootDir(ctx, "/sys/bus/pci/devices");
  facts.sources.push_back(StatusOf("/sys/bus/pci/devices", names));
  if (!names.ok()) return facts;
  for (const auto& name : *names) {
    auto dev = ReadPciDevice(ctx, name);
    if (!dev) continue;
    (dev->kind == PciFunctionKind::kGpu ? facts.gpus : facts.nvswitches).push_back(std::move(*dev));
  }
  return facts;
}

}  // namespace gpudoctor
