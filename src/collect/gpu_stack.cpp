#include "collect/gpu_stack.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "parse/gpu_stack.h"
#include "parse/proc_text.h"

namespace gpudoctor {

namespace {
namespace gpu_stack_collect {

bool Exists(const CollectContext& ctx, std::string_view path) {
  std::error_code ec;
  return std::filesystem::exists(UnderRoot(ctx, path), ec);
}

std::string FirstExisting(const CollectContext& ctx, const std::vector<std::string_view>& paths) {
  for (std::string_view p : paths) {
    if (Exists(ctx, p)) return std::string(p);
  }
  return "";
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void ReadContainers(const CollectContext& ctx, ContainerStack& c) {
  const std::vector<std::pair<const char*, std::vector<std::string_view>>> runtimes = {
      {"docker", {"/usr/bin/dockerd", "/usr/local/bin/dockerd"}},
      {"containerd", {"/usr/bin/containerd", "/usr/local/bin/containerd"}},
      {"cri-o", {"/usr/bin/crio", "/usr/local/bin/crio"}},
      {"podman", {"/usr/bin/podman"}},
  };
  for (const auto& [name, paths] : runtimes) {
    if (!FirstExisting(ctx, paths).empty()) c.runtimes.emplace_back(name);
  }
  c.kubernetes = !FirstExisting(ctx, {"/usr/bin/kubelet", "/usr/local/bin/kubelet"}).empty();
  c.toolkit = FirstExisting(
      ctx, {"/usr/bin/nvidia-container-runtime-hook", "/usr/bin/nvidia-container-runtime",
            "/usr/bin/nvidia-ctk", "/usr/local/nvidia/toolkit/nvidia-container-runtime"});
  if (auto daemon = ReadRootFile(ctx, "/etc/docker/daemon.json", 1 << 20); daemon.ok()) {
    c.docker_nvidia_runtime = DockerNamesNvidiaRuntime(*daemon).value_or(false);
  }
  if (std::find(c.runtimes.begin(), c.runtimes.end(), "containerd") != c.runtimes.end()) {
    std::vector<std::string> files = {"/etc/containerd/config.toml"};
    if (auto dropins = ListRootDir(ctx, "/etc/containerd/conf.d"); dropins.ok()) {
      for (const auto& n : *dropins) {
        if (EndsWith(n, ".toml")) files.push_back("/etc/containerd/conf.d/" + n);
      }
    }
    for (const std::string& f : files) {
      auto text = ReadRootFile(ctx, f, 4 << 20);
      if (!text.ok()) continue;
      c.containerd_config += (c.containerd_config.empty() ? "" : ", ") + f;
      c.containerd_nvidia =
          c.containerd_nvidia.value_or(false) || ContainerdConfigNamesNvidia(*text);
    }
  }
  for (std::string_view dir : {"/etc/cdi", "/var/run/cdi"}) {
    auto names = ListRootDir(ctx, dir);
    if (!names.ok()) continue;
    for (const std::string& n : *names) {
      if (!EndsWith(n, ".yaml") && !EndsWith(n, ".yml") && !EndsWith(n, ".json")) continue;
      const std::string path = std::string(dir) + "/" + n;
      auto text = ReadRootFile(ctx, path, 16 << 20);
      if (!text.ok() || text->find("nvidia.com/") == std::string::npos) continue;
      c.cdi_specs.push_back(CdiSpec{path, CdiDriverVersions(*text)});
    }
  }
}

void ReadPcieSide(const CollectContext& ctx, const PciFacts& pci, GpuStackFacts& f) {
  std::set<std::string> ports_seen;
  for (const PciDevice& gpu : pci.gpus) {
    const std::string dev = "/sys/bus/pci/devices/" + gpu.bus_id;
    if (auto type = ReadRootFile(ctx, dev + "/iommu_group/type", 256); type.ok()) {
      std::string t(Trim(*type));
      if (!t.empty()) f.iommu_types.emplace_back(gpu.bus_id, t);
    }
    for (const std::string& port : gpu.upstream_ports) {
      if (!ports_seen.insert(port).second) continue;
      auto config = ReadRootFile(ctx, "/sys/bus/pci/devices/" + port + "/config", 4096);
      if (!config.ok()) continue;
      if (config->size() < 4096) {
        ++f.acs_unreadable;
        continue;
      }
      ++f.acs_ports_read;
      auto control = AcsControl(*config);
      if (control && AcsRedirectsPeerToPeer(*control)) {
        f.acs_redirects.push_back(AcsRedirect{port, gpu.bus_id, *control});
      }
    }
  }
}

}  // namespace gpu_stack_collect
}  // namespace

GpuStackFacts ReadGpuStack(const CollectContext& ctx, const PciFacts& pci) {
  GpuStackFacts f;
  f.read = true;
  if (auto cpuinfo = ReadRootFile(ctx, "/proc/cpuinfo", 8 << 20); cpuinfo.ok()) {
    f.virtual_machine = CpuinfoHasHypervisor(*cpuinfo);
  } else {
    f.sources.push_back(StatusOf("/proc/cpuinfo", cpuinfo));
  }
  if (auto modules = ReadRootFile(ctx, "/proc/modules", 4 << 20); modules.ok()) {
    f.modules = ModuleNames(*modules);
  } else {
    f.sources.push_back(StatusOf("/proc/modules", modules));
  }
  if (auto ib = ListRootDir(ctx, "/sys/class/infiniband"); ib.ok()) f.infiniband_devices = *ib;
  gpu_stack_collect::ReadPcieSide(ctx, pci, f);
  gpu_stack_collect::ReadContainers(ctx, f.containers);
  return f;
}

}  // namespace gpudoctor
