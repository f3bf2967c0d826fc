// The GPU readings in NVIDIA dcgm-exporter's metric and label names, so that
// dashboards and alerts written for dcgm-exporter read the agent unchanged
// (`gpudoctor agent --metrics-names dcgm|both`). The scalar fields come from
// core/metric_fields.h (name, unit and type per field); this file adds the
// Xid gauge (the last code, with err_code and err_msg), NVLink error
// counters per link and in total, and dcgm-exporter's labels: gpu, UUID,
// pci_bus_id (NVML's form), device (nvidia<index>), modelName, Hostname,
// DCGM_FI_DRIVER_VERSION, and pod, namespace and container while one pod
// runs every process on the GPU. deploy/prometheus/DCGM_NAMES.md has the
// mapping and what has no equivalent.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "render/exposition.h"

namespace gpudoctor {

// "00000000:3B:00.0", NVML's and DCGM's form, from "0000:3b:00.0".
std::string DcgmPciBusId(std::string_view pci_bus_id);

// dcgm-exporter's labels of a GPU.
std::string DcgmGpuLabelText(const MetricGpuLabels& gpu, const std::string& hostname,
                             const std::optional<std::string>& driver_version);

void WriteDcgmMetrics(const AgentLiveSnapshot& s, const MetricsRenderOptions& options,
                      Exposition& e);

// True when `gpudoctor_name`'s field is also served under a dcgm-exporter
// name (with --metrics-names dcgm the gpudoctor series is then left out).
bool HasDcgmName(std::string_view gpudoctor_name);

}  // namespace gpudoctor
