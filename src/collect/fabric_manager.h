// NVIDIA Fabric Manager on NVSwitch systems: whether the machine needs it,
// the state of nvidia-fabricmanager.service, its version and whether that
// equals the driver version (it must, exactly), and the recent errors in its
// log file. Facts only; rules decide what is wrong.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "collect/service_state.h"
#include "parse/fabricmanager_log.h"
#include "parse/version_numbers.h"

namespace gpudoctor {

struct FabricManagerFacts {
  bool nvswitch_present = false;        // as passed in: the system needs Fabric Manager
  std::optional<ServiceState> service;  // nvidia-fabricmanager.service
  std::optional<std::string> version;   // "535.183.01"
  std::string version_source;  // "nv-fabricmanager --version", "/var/lib/dpkg/status (...)"
  std::optional<DriverVersion> driver;         // as passed in
  std::optional<bool> version_matches_driver;  // exact text match; nullopt if either is unknown
  std::string log_path;  // from fabricmanager.cfg, default /var/log/fabricmanager.log
  std::optional<FmLogSummary> log;
  std::size_t log_skipped_bytes = 0;  // a large log is scanned from its tail only
  std::vector<SourceStatus> sources;
};

struct FabricManagerOptions {
  bool nvswitch_present = false;        // from the PCI collector or CountNvSwitchesInSysfs
  std::optional<DriverVersion> driver;  // the loaded kernel module's version
  // Pass the sd-bus reader when the root is "/"; a fake in tests. When null
  // the service state is recorded as not available.
  ServiceStateReader* services = nullptr;
  bool run_binary = true;  // `nv-fabricmanager --version`, only when the root is "/"
  std::size_t max_log_errors = 20;
  std::size_t max_log_bytes = 64u << 20;  // scan at most this much of the log's tail
};

FabricManagerFacts CollectFabricManager(const CollectContext& ctx,
                                        const FabricManagerOptions& options);

// NVSwitch PCI functions (vendor 0x10de, class 0x0680xx) under
// /sys/bus/pci/devices. An error when the directory cannot be listed.
Result<int> CountNvSwitchesInSysfs(const CollectContext& ctx);

}  // namespace gpudoctor
