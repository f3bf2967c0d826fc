#include "collect/rdma.h"

#include <algorithm>
#include <filesystem>

#include "core/gpu_status.h"
#include "parse/proc_text.h"
#include "parse/sysfs_pci.h"

namespace gpudoctor {

namespace {

constexpr std::size_t kMaxCountersPerDir = 256;  // mlx5 has about 40; a cap, not a limit met

std::optional<std::string> ReadAttr(const CollectContext& ctx, std::vector<SourceStatus>& sources,
                                    const std::string& path) {
  auto text = ReadRootFile(ctx, path, 4096);
  if (text.ok()) return std::string(Trim(*text));
  sources.push_back(SourceStatus{path, false, text.error().message});
  return std::nullopt;
}

// counters/ or hw_counters/: every file holding one unsigned number. A
// missing directory is normal (RoCE ports have no IB counters on some
// drivers); a file that does not parse is named in sources.
void ReadCounters(const CollectContext& ctx, const std::string& dir, bool hw, RdmaPort& port) {
  auto names = ListRootDir(ctx, dir);
  if (!names.ok()) return;
  std::sort(names->begin(), names->end());
  if (names->size() > kMaxCountersPerDir) names->resize(kMaxCountersPerDir);
  for (const auto& name : *names) {
    auto text = ReadRootFile(ctx, dir + name, 64);
    if (!text.ok()) {
      port.sources.push_back(SourceStatus{dir + name, false, text.error().message});
      continue;
    }
    auto value = ParseUnsigned(Trim(*text));
    if (!value) {
      port.sources.push_back(SourceStatus{dir + name, false, "not a counter value"});
      continue;
    }
    port.counters.push_back(RdmaCounter{name, hw, *value});
  }
}

RdmaPort ReadPort(const CollectContext& ctx, const std::string& dir, unsigned number) {
  RdmaPort port;
  port.port = number;
  if (auto t = ReadAttr(ctx, port.sources, dir + "state")) port.state = ParseIbPortState(*t);
  if (auto t = ReadAttr(ctx, port.sources, dir + "phys_state"))
    port.phys_state = ParseIbPortState(*t);
  if (auto t = ReadAttr(ctx, port.sources, dir + "rate")) {
    port.rate_text = *t;
    port.rate_gbps = ParseIbRateGbps(*t);
  }
  if (auto t = ReadAttr(ctx, port.sources, dir + "link_layer")) port.link_layer = *t;
  port.roce = port.link_layer == "Ethernet";
  port.active = port.state && port.state->code == 4;
  ReadCounters(ctx, dir + "counters/", false, port);
  ReadCounters(ctx, dir + "hw_counters/", true, port);
  return port;
}

// The device link ("../../../0000:1a:00.0") names the PCI function; its
// /sys/bus/pci/devices entry gives the bridges above it.
void ReadPciPlace(const CollectContext& ctx, const std::string& dir, RdmaDevice& dev) {
  std::error_code ec;
  auto link = std::filesystem::read_symlink(UnderRoot(ctx, dir + "device"), ec);
  if (ec) return;
  const std::string name = link.filename().string();
  dev.pci_bus_id = NormalizePciBusId(name);
  if (dev.pci_bus_id.empty()) return;
  auto self = std::filesystem::read_symlink(UnderRoot(ctx, "/sys/bus/pci/devices/" + name), ec);
  if (!ec) dev.upstream_ports = PciUpstreamPorts(self.string());
  if (auto numa = ReadRootFile(ctx, dir + "device/numa_node", 32); numa.ok()) {
    auto t = Trim(*numa);
    if (!t.empty() && t[0] != '-') {
      if (auto n = ParseUnsigned(t); n && *n < 4096) dev.numa_node = static_cast<int>(*n);
    }
  }
}

}  // namespace

RdmaFacts ReadRdma(const CollectContext& ctx) {
  RdmaFacts facts;
  facts.read_at = ctx.now;
  auto names = ListRootDir(ctx, "/sys/class/infiniband");
  if (!names.ok()) {
    SourceStatus s = StatusOf("/sys/class/infiniband", names);
    if (names.error().code == ErrorCode::kNotFound)
      s.why = "no RDMA devices (/sys/class/infiniband absent)";
    facts.sources.push_back(std::move(s));
    return facts;
  }
  facts.sources.push_back(SourceStatus{"/sys/class/infiniband", true, ""});
  std::sort(names->begin(), names->end());
  for (const auto& name : *names) {
    RdmaDevice dev;
    dev.name = name;
    const std::string dir = "/sys/class/infiniband/" + name + "/";
    if (auto fw = ReadRootFile(ctx, dir + "fw_ver", 256); fw.ok())
      dev.fw_version = std::string(Trim(*fw));
    if (auto hca = ReadRootFile(ctx, dir + "hca_type", 256); hca.ok())
      dev.hca_type = std::string(Trim(*hca));
    ReadPciPlace(ctx, dir, dev);
    auto ports = ListRootDir(ctx, dir + "ports");
    if (!ports.ok()) {
      facts.sources.push_back(StatusOf(dir + "ports", ports));
    } else {
      for (const auto& p : *ports) {
        auto number = ParseUnsigned(p);
        if (!number) continue;
        dev.ports.push_back(
            ReadPort(ctx, dir + "ports/" + p + "/", static_cast<unsigned>(*number)));
      }
    }
    std::sort(dev.ports.begin(), dev.ports.end(),
              [](const RdmaPort& a, const RdmaPort& b) { return a.port < b.port; });
    facts.devices.push_back(std::move(dev));
  }
  return facts;
}

void AssignNearestGpus(RdmaFacts& rdma, const PciFacts& pci) {
  for (RdmaDevice& dev : rdma.devices) {
    dev.nearest_gpus.clear();
    // The nearest bridge above the NIC that also has GPUs below it.
    for (const std::string& bridge : dev.upstream_ports) {
      for (const PciDevice& gpu : pci.gpus) {
        const auto& up = gpu.upstream_ports;
        if (std::find(up.begin(), up.end(), bridge) != up.end()) dev.nearest_gpus.push_back(gpu.bus_id);
      }
      if (!dev.nearest_gpus.empty()) break;
    }
    if (!dev.nearest_gpus.empty() || !dev.numa_node) continue;
    for (const PciDevice& gpu : pci.gpus) {
      if (gpu.numa_node == dev.numa_node) dev.nearest_gpus.push_back(gpu.bus_id);
    }
  }
}

}  // namespace gpudoctor
