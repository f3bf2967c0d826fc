// Builders of host, PCI, version and network facts for the tests of the
// system rules (rules/system/group.cpp): healthy values to start from, which
// each test changes where it matters.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "facts/diagnosis_input.h"
#include "parse/driver_version.h"

namespace gpudoctor::testing {

inline constexpr std::uint64_t kGiB = 1ULL << 30;

// A host with `cores` online cores (no quota), CPU busy/iowait/steal shares
// over a 1 s window, 1 TiB RAM with 900 GiB available, no swapping.
inline HostFacts TestHost(double busy_percent = 20, double iowait_percent = 0,
                          double steal_percent = 0, unsigned cores = 64) {
  HostFacts h;
  h.cpu_usage.available = true;
  h.cpu_usage.window_s = 1;
  h.cpu_usage.total.total_percent = busy_percent;
  h.cpu_usage.total.iowait_percent = iowait_percent;
  h.cpu_usage.total.steal_percent = steal_percent;
  h.cpu_usage.total.idle_percent = 100 - busy_percent - iowait_percent;
  h.cpu.online_cores = cores;
  h.cpu.effective_cores = static_cast<double>(cores);
  h.cpu.load = LoadAvg{busy_percent * cores / 100, 1, 1, 1, 1000};
  h.memory.total_bytes = 1024 * kGiB;
  h.memory.available_bytes = 900 * kGiB;
  h.memory.used_bytes = 124 * kGiB;
  h.memory.used_percent = 124.0 / 1024 * 100;
  h.memory.swap_total_bytes = 8 * kGiB;
  h.memory.swap_used_bytes = 0;
  h.memory.window_s = 1;
  h.memory.swap_in_bytes_per_s = 0;
  h.memory.swap_out_bytes_per_s = 0;
  h.memory.major_faults_per_s = 2;
  return h;
}

inline DriverVersion TestDriver(const std::string& text = "535.183.01") {
  return *ParseDriverVersion(text);
}

// Kernel module, NVML and libraries all at `driver`; no CUDA, frameworks or NVSwitch.
inline VersionFacts TestVersions(const std::string& driver = "535.183.01") {
  VersionFacts v;
  KernelModuleVersion km;
  km.version = TestDriver(driver);
  v.driver.kernel_module = km;
  v.driver.nvml_version = TestDriver(driver);
  v.driver.effective_version = TestDriver(driver);
  v.driver.effective_source = "/proc/driver/nvidia/version";
  v.driver.libraries.push_back(
      DriverLibraryFile{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + driver, "libnvidia-ml.so",
                        TestDriver(driver), true});
  v.cuda.driver = TestDriver(driver);
  v.frameworks.driver = TestDriver(driver);
  v.fabric_manager.driver = TestDriver(driver);
  return v;
}

// The sysfs view of HealthyGpu(index): same bus id, answering, bound to nvidia.
inline PciDevice TestPciGpu(unsigned index, int width = 16, int width_max = 16) {
  PciDevice d;
  d.bus_id = fmt::format("0000:{:02x}:00.0", index + 0x18);
  d.kind = PciFunctionKind::kGpu;
  d.vendor_id = 0x10de;
  d.device_id = 0x2330;
  d.class_code = 0x030200;
  d.revision = 0xa1;
  d.link_gen_current = 5;
  d.link_gen_max = 5;
  d.link_width_current = width;
  d.link_width_max = width_max;
  d.driver = "nvidia";
  return d;
}

inline PciFacts TestPci(std::vector<PciDevice> gpus) {
  PciFacts p;
  p.gpus = std::move(gpus);
  p.sources.push_back(SourceStatus{"/sys/bus/pci/devices", true, ""});
  return p;
}

inline NetInterfaceRates TestNic(const std::string& name, std::optional<std::int64_t> speed_mbps,
                                 bool up = true, bool physical = true) {
  NetInterfaceRates r;
  r.interface.name = name;
  r.interface.operstate = up ? "up" : "down";
  r.interface.speed_mbps = speed_mbps;
  r.interface.physical = physical;
  r.window_s = 1;
  return r;
}

// Inputs holding only one kind of evidence, as a rule that needs just that sees them.
inline DiagnosisInput HostInput(const HostFacts& host) {
  DiagnosisInput input;
  input.host = host;
  return input;
}

inline DiagnosisInput VersionsInput(const VersionFacts& versions) {
  DiagnosisInput input;
  input.versions = versions;
  return input;
}

inline DiagnosisInput NetworkInput() {
  DiagnosisInput input;
  input.network = NetFacts{};
  return input;
}

}  // namespace gpudoctor::testing
