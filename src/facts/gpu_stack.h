// The GPU's software stack on the host beyond the versions: which kernel
// modules are loaded (nvidia_peermem beside InfiniBand devices), whether the
// host is a virtual machine, how the IOMMU translates the GPUs' DMA, PCIe
// ACS redirection on the bridges above them, and the container runtime's
// NVIDIA configuration (nvidia-container-toolkit, CDI specs).
// collect/gpu_stack.h reads it; the stack.* rules judge it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/source_status.h"
#include "facts/version_numbers.h"

namespace gpudoctor {

// A PCIe bridge above a GPU whose ACS control redirects peer-to-peer
// requests or completions up to the root complex.
struct AcsRedirect {
  std::string port;       // "0000:15:01.0"
  std::string gpu;        // the GPU below it
  std::uint16_t control;  // the ACS Control register
};

// A Container Device Interface spec file and the driver versions of the
// libraries it mounts (libcuda.so.X, libnvidia-ml.so.X).
struct CdiSpec {
  std::string path;
  std::vector<DriverVersion> driver_versions;
};

struct ContainerStack {
  std::vector<std::string> runtimes;  // "docker", "containerd", "cri-o", "podman" (installed)
  bool kubernetes = false;            // a kubelet is installed
  std::string toolkit;                // the nvidia-container-toolkit program found, "" when none
  std::optional<bool> docker_nvidia_runtime;  // daemon.json names it; unset: no daemon.json
  std::optional<bool> containerd_nvidia;      // its config names the runtime or enables CDI
  std::string containerd_config;              // the file(s) read
  std::vector<CdiSpec> cdi_specs;
};

struct GpuStackFacts {
  bool read = false;                                // false: not collected (files, the store)
  std::optional<bool> virtual_machine;              // /proc/cpuinfo's "hypervisor" flag
  std::optional<std::vector<std::string>> modules;  // /proc/modules names; unset: unreadable
  std::vector<std::string> infiniband_devices;      // /sys/class/infiniband
  // GPU bus id -> its IOMMU group's domain type ("identity", "DMA", "DMA-FQ");
  // empty when the IOMMU is off or does not say.
  std::vector<std::pair<std::string, std::string>> iommu_types;
  std::vector<AcsRedirect> acs_redirects;
  // Bridges whose extended configuration space could not be read (not root).
  std::size_t acs_unreadable = 0;
  std::size_t acs_ports_read = 0;
  ContainerStack containers;
  std::vector<SourceStatus> sources;
};

inline bool HasModule(const GpuStackFacts& f, std::string_view name) {
  if (!f.modules) return false;
  for (const std::string& m : *f.modules) {
    if (m == name) return true;
  }
  return false;
}

}  // namespace gpudoctor
