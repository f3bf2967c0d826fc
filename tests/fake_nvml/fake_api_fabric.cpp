// NVLink fabric registration and NVLink P2P status.
#include <cstdio>
#include <cstring>

#include "fake_state.h"

using fake::GpuCall;
using fake::WithGpu;

namespace {
namespace fake_api_fabric_detail {

unsigned HealthBits(const std::optional<bool>& value, unsigned shift) {
  if (!value) return NVML_GPU_FABRIC_HEALTH_MASK_NOT_SUPPORTED << shift;
  return (*value ? NVML_GPU_FABRIC_HEALTH_MASK_TRUE : NVML_GPU_FABRIC_HEALTH_MASK_FALSE) << shift;
}

unsigned HealthMask(const gpudoctor::GpuFabric& f) {
  unsigned mask = HealthBits(f.degraded_bandwidth, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW);
  if (fake::TheState().scenario.fabric_health_r570) {
    mask |= HealthBits(f.route_recovery, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY) |
            HealthBits(f.route_unhealthy, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY) |
            HealthBits(f.access_timeout_recovery,
                       NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY);
  }
  return mask;
}

// "xxxxxxxx-xxxx-..." into 16 bytes; zeros for anything else.
void PutUuid(const std::string& text, unsigned char (&out)[kNvmlGpuFabricUuidLen]) {
  std::memset(out, 0, sizeof out);
  unsigned k = 0;
  for (std::size_t i = 0; i + 1 < text.size() && k < kNvmlGpuFabricUuidLen; ++i) {
    if (text[i] == '-') continue;
    unsigned byte = 0;
    if (std::sscanf(text.c_str() + i, "%2x", &byte) != 1) return;
    out[k++] = static_cast<unsigned char>(byte);
    ++i;
  }
}

template <typename Info>
nvmlReturn_t PutFabric(const GpuCall& c, Info* info) {
  if (info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!c.now.fabric) return NVML_ERROR_NOT_SUPPORTED;
  const gpudoctor::GpuFabric& f = *c.now.fabric;
  info->state = static_cast<unsigned char>(f.state);
  info->status = static_cast<nvmlReturn_t>(f.status_code.value_or(NVML_SUCCESS));
  info->cliqueId = f.clique_id.value_or(0);
  PutUuid(f.cluster_uuid, info->clusterUuid);
  return NVML_SUCCESS;
}

}  // namespace fake_api_fabric_detail
}  // namespace

nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t* gpuFabricInfo) {
  using namespace fake_api_fabric_detail;
  return WithGpu(__func__, device, {"fabric"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (gpuFabricInfo == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    // Version 2 on every driver with the call; version 3 from R580 (13.0).
    const bool v3 = gpuFabricInfo->version == nvmlGpuFabricInfo_v3 &&
                    fake::TheState().scenario.cuda_driver_version.value_or(13000) >= 13000;
    if (gpuFabricInfo->version != nvmlGpuFabricInfo_v2 && !v3) {
      return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    nvmlReturn_t rc = PutFabric(c, gpuFabricInfo);
    if (rc != NVML_SUCCESS) return rc;
    gpuFabricInfo->healthMask = HealthMask(*c.now.fabric);
    if (v3) {
      gpuFabricInfo->healthSummary = static_cast<unsigned char>(
          c.now.fabric->health_summary.value_or(gpudoctor::FabricHealthSummary::kNotSupported));
    }
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t* gpuFabricInfo) {
  using namespace fake_api_fabric_detail;
  return WithGpu(__func__, device, {"fabric"},
                 [&](const GpuCall& c) { return PutFabric(c, gpuFabricInfo); });
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                    nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t* p2pStatus) {
  const int peer = fake::IndexOf(device2);
  return WithGpu(__func__, device1, {"nvlink_peers"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (p2pStatus == nullptr || peer < 0 || p2pIndex < NVML_P2P_CAPS_INDEX_READ ||
        p2pIndex > NVML_P2P_CAPS_INDEX_PCI) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (p2pIndex != NVML_P2P_CAPS_INDEX_NVLINK) return NVML_ERROR_NOT_SUPPORTED;
    if (peer == static_cast<int>(c.index)) return NVML_ERROR_INVALID_ARGUMENT;
    if (auto it = c.gpu->nvlink_p2p.find(static_cast<unsigned>(peer)); it != c.gpu->nvlink_p2p.end()) {
      *p2pStatus = it->second;
      return NVML_SUCCESS;
    }
    if (c.gpu->nvlink_p2p_default) {
      *p2pStatus = *c.gpu->nvlink_p2p_default;
      return NVML_SUCCESS;
    }
    bool active = false;
    for (const auto& l : c.now.nvlinks) active = active || l.active == true;
    *p2pStatus = active ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
    return NVML_SUCCESS;
  });
}
