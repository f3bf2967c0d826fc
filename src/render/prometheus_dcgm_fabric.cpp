#include "render/prometheus_dcgm_fabric.h"

#include <vector>

namespace gpudoctor {
namespace {
namespace dcgm_fabric_detail {

struct FabricSeries {
  const char* name;
  const char* help;
  std::optional<double> (*value)(const GpuFabric& f);
};

// DCGM stores its own return code here (0 = DCGM_ST_OK) once the GPU
// registered, blank before; an error status is NVML's code turned into
// DCGM's, a table gpudoctor does not carry: only success is served.
std::optional<double> ErrorCode(const GpuFabric& f) {
  if (f.state != FabricState::kCompleted || f.status_code != 0) return std::nullopt;
  return 0.0;
}

std::optional<double> CliqueId(const GpuFabric& f) {
  if (f.state == FabricState::kNotSupported || !f.clique_id) return std::nullopt;
  return static_cast<double>(*f.clique_id);
}

// NVML's healthMask as the driver gives it (DCGM passes it through).
std::optional<double> HealthMask(const GpuFabric& f) {
  if (!f.health_mask) return std::nullopt;
  return static_cast<double>(*f.health_mask);
}

// NVML_GPU_FABRIC_HEALTH_SUMMARY_*: 1 healthy, 2 unhealthy, 3 limited capacity.
std::optional<double> HealthSummary(const GpuFabric& f) {
  if (!f.health_summary) return std::nullopt;
  return static_cast<double>(static_cast<int>(*f.health_summary));
}

const FabricSeries kSeries[] = {
    {"DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE", "Fabric registration return code (0: success)", ErrorCode},
    {"DCGM_FI_DEV_FABRIC_CLIQUE_ID", "ID of the fabric clique the GPU belongs to", CliqueId},
    {"DCGM_FI_DEV_FABRIC_HEALTH_MASK", "GPU fabric health mask (2-bit fields, as NVML gives it)", HealthMask},
    {"DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY",
     "GPU fabric health summary (1 healthy, 2 unhealthy, 3 limited capacity)", HealthSummary},
};

}  // namespace dcgm_fabric_detail
}  // namespace

std::optional<int> DcgmFabricManagerStatus(const std::optional<GpuFabric>& fabric) {
  if (!fabric) return std::nullopt;
  switch (fabric->state) {
    case FabricState::kNotSupported: return 0;
    case FabricState::kNotStarted: return 1;
    case FabricState::kInProgress: return 2;
    case FabricState::kCompleted: break;
  }
  if (!fabric->status_code) return std::nullopt;  // nvidia-smi text: the status in words only
  return *fabric->status_code == 0 ? 3 : 4;
}

void WriteDcgmFabric(const std::vector<GpuStatus>& gpus,
                     const std::function<std::string(const GpuStatus&)>& labels, Exposition& e) {
  using namespace dcgm_fabric_detail;
  bool family = false;
  for (const GpuStatus& g : gpus) {
    auto status = DcgmFabricManagerStatus(g.fabric);
    if (!status) continue;
    if (!family) {
      e.Family("DCGM_FI_DEV_FABRIC_MANAGER_STATUS", "gauge",
               "Fabric Manager status (0 not supported, 1 not started, 2 in progress, 3 success, 4 failure)");
      family = true;
    }
    e.Sample(labels(g), *status);
  }
  for (const FabricSeries& series : kSeries) {
    family = false;
    for (const GpuStatus& g : gpus) {
      if (!g.fabric) continue;
      auto value = series.value(*g.fabric);
      if (!value) continue;
      if (!family) e.Family(series.name, "gauge", series.help);
      family = true;
      e.Sample(labels(g), *value);
    }
  }
}

}  // namespace gpudoctor
