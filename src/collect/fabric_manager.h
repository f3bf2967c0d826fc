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
#include "facts/versions.h"
#include "parse/fabricmanager_log.h"
#include "parse/version_numbers.h"

namespace gpudoctor {

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
