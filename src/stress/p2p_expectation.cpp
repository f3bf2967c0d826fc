#include "stress/p2p_expectation.h"

#include <fmt/format.h>

#include <algorithm>

#include "knowledge/nvlink_rates.h"
#include "knowledge/pcie_link_rates.h"

namespace gpudoctor {
namespace {

// The links of `gpu` a path uses: those towards `peer_bus`, or, with an
// empty `peer_bus`, those to the NVSwitch fabric (a remote end that is no GPU).
struct PathLinks {
  int total = 0, active = 0;
  std::optional<NvLinkGeneration> slowest;  // the slowest known generation among them
  bool unknown_version = false;             // a version the table does not know
};

void NoteGeneration(const ActiveNvLink& l, PathLinks& out) {
  if (!l.version) return;
  auto generation = FindNvLinkGeneration(static_cast<long>(*l.version));
  if (!generation) {
    out.unknown_version = true;
  } else if (!out.slowest || generation->link_gbps < out.slowest->link_gbps) {
    out.slowest = generation;
  }
}

PathLinks LinksToward(const ActiveGpuResult& gpu, const std::string& peer_bus) {
  PathLinks out;
  for (const ActiveNvLink& l : gpu.nvlinks) {
    bool on_path = peer_bus.empty() ? (!l.remote_pci_bus_id.empty() && !l.remote_is_gpu)
                                    : l.remote_pci_bus_id == peer_bus;
    if (!on_path) continue;
    ++out.total;
    if (l.active) ++out.active;
    NoteGeneration(l, out);
  }
  // Links that are down may not say their version: the GPU's others do.
  if (out.total > 0 && !out.slowest && !out.unknown_version) {
    for (const ActiveNvLink& l : gpu.nvlinks) NoteGeneration(l, out);
  }
  return out;
}

// A GPU of the NVSwitch fabric: all its links that say where they lead go
// to switches, so a link that is down (and silent) is one of the fabric's too.
int FabricLinks(const ActiveGpuResult& gpu, const PathLinks& to_switch) {
  bool all_switch = std::none_of(gpu.nvlinks.begin(), gpu.nvlinks.end(), [](const ActiveNvLink& l) {
    return l.remote_is_gpu;
  });
  return all_switch ? static_cast<int>(gpu.nvlinks.size()) : to_switch.total;
}

std::optional<PeerExpectation> NvLinkExpectation(const char* path, int links, int active,
                                                 const NvLinkGeneration& generation) {
  PeerExpectation e;
  e.path = path;
  e.links = links;
  e.links_active = active;
  e.link_name = std::string(generation.name);
  e.link_gbps = generation.link_gbps;
  e.theoretical_gbps = generation.link_gbps * links;
  e.achievable_share = kNvLinkAchievableShare;
  e.source = std::string(generation.source);
  return e;
}

std::optional<PeerExpectation> PcieExpectation(const ActiveGpuResult& src, const ActiveGpuResult& dst,
                                               bool peer_access) {
  std::optional<double> slowest;
  std::string name;
  for (const ActiveGpuResult* g : {&src, &dst}) {
    if (!g->pcie_link_gen_max || !g->pcie_link_width_max) return std::nullopt;
    auto lane = PcieLaneGbps(static_cast<long>(*g->pcie_link_gen_max));
    if (!lane) return std::nullopt;
    double link = *lane * static_cast<double>(*g->pcie_link_width_max);
    if (!slowest || link < *slowest) {
      slowest = link;
      name = fmt::format("PCIe Gen{} x{}", *g->pcie_link_gen_max, *g->pcie_link_width_max);
    }
  }
  PeerExpectation e;
  e.path = "pcie";
  e.link_name = name;
  e.link_gbps = *slowest;
  e.theoretical_gbps = peer_access ? *slowest : *slowest / 2;
  e.achievable_share = kPcieAchievableShare;
  e.source = peer_access ? "PCI-SIG base specification (knowledge/pcie_link_rates.h)"
                         : "PCI-SIG base specification; staged through host memory, half the link";
  return e;
}

}  // namespace

std::vector<ActiveNvLink> ActiveNvLinksOf(const GpuStatus& gpu, const SystemStatus& node) {
  std::vector<ActiveNvLink> out;
  for (const NvLinkStatus& l : gpu.nvlinks) {
    ActiveNvLink a;
    a.link = l.link;
    a.active = l.active.value_or(false);
    a.version = l.version;
    a.remote_pci_bus_id = l.remote_pci_bus_id;
    a.remote_is_gpu = std::any_of(node.gpus.begin(), node.gpus.end(), [&](const GpuStatus& g) {
      return !g.pci_bus_id.empty() && g.pci_bus_id == l.remote_pci_bus_id;
    });
    out.push_back(std::move(a));
  }
  return out;
}

std::optional<PeerExpectation> ExpectPeerCopy(const ActiveGpuResult& src, const ActiveGpuResult& dst,
                                              bool peer_access) {
  PathLinks direct = LinksToward(src, dst.pci_bus_id);
  if (direct.total > 0) {
    if (direct.unknown_version || !direct.slowest) return std::nullopt;  // no rate to hold it to
    return NvLinkExpectation("nvlink", direct.total, direct.active, *direct.slowest);
  }
  PathLinks src_fabric = LinksToward(src, ""), dst_fabric = LinksToward(dst, "");
  if (src_fabric.active > 0 && dst_fabric.active > 0) {
    if (src_fabric.unknown_version || dst_fabric.unknown_version) return std::nullopt;
    if (!src_fabric.slowest || !dst_fabric.slowest) return std::nullopt;
    const NvLinkGeneration& slower = src_fabric.slowest->link_gbps <= dst_fabric.slowest->link_gbps
                                         ? *src_fabric.slowest
                                         : *dst_fabric.slowest;
    // The copy crosses the fabric at the pace of the GPU with fewer links up.
    int src_links = FabricLinks(src, src_fabric), dst_links = FabricLinks(dst, dst_fabric);
    bool src_fewer = src_fabric.active <= dst_fabric.active;
    return NvLinkExpectation("nvswitch", src_fewer ? src_links : dst_links,
                             src_fewer ? src_fabric.active : dst_fabric.active, slower);
  }
  return PcieExpectation(src, dst, peer_access);
}

}  // namespace gpudoctor
