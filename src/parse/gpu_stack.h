// Pure parsers for the GPU software stack's files (facts/gpu_stack.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/version_numbers.h"

namespace gpudoctor {

// The ACS Control register from a PCI device's configuration space (the
// bytes of /sys/bus/pci/devices/X/config): the extended capability list from
// offset 0x100 is walked for ACS (id 0x000D); its control word sits 6 bytes
// in. nullopt when there is no extended space (fewer than 4096 bytes read,
// as for a non-root reader) or no ACS capability.
std::optional<std::uint16_t> AcsControl(std::string_view config);

// The ACS control bits that send peer-to-peer traffic up to the root
// complex: P2P Request Redirect (bit 2) and P2P Completion Redirect (bit 3).
inline bool AcsRedirectsPeerToPeer(std::uint16_t control) { return (control & 0x000c) != 0; }

// Module names, the first word of each /proc/modules line.
std::vector<std::string> ModuleNames(std::string_view proc_modules);

// Whether /proc/cpuinfo's flags carry "hypervisor" (a virtual machine).
bool CpuinfoHasHypervisor(std::string_view cpuinfo);

// The driver versions of NVIDIA libraries a CDI spec mounts
// ("libcuda.so.550.54.15", "libnvidia-ml.so.535.183.01"), each once.
std::vector<DriverVersion> CdiDriverVersions(std::string_view spec);

// Whether Docker's daemon.json names the nvidia runtime (in "runtimes" or
// as "default-runtime"); nullopt when the text is not a JSON object.
std::optional<bool> DockerNamesNvidiaRuntime(std::string_view daemon_json);

// Whether a containerd configuration names the nvidia runtime (a
// runtimes.nvidia table or nvidia-container-runtime as a binary) or turns
// CDI on (enable_cdi = true).
bool ContainerdConfigNamesNvidia(std::string_view toml);

}  // namespace gpudoctor
