// NVLink fabric registration and the NVLink P2P matrix of one GPU.
#include <cstdio>

#include "nvml/field_reader.h"

namespace gpudoctor::nvml_detail {
namespace fabric_reader_detail {

std::string UuidText(const unsigned char (&bytes)[kNvmlGpuFabricUuidLen]) {
  char text[40] = {};
  std::snprintf(text, sizeof text,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14],
                bytes[15]);
  return text;
}

// One 2-bit field of the health mask: TRUE 1, FALSE 2, else not reported.
std::optional<bool> HealthField(std::uint32_t mask, unsigned shift) {
  switch ((mask >> shift) & NVML_GPU_FABRIC_HEALTH_MASK_WIDTH) {
    case NVML_GPU_FABRIC_HEALTH_MASK_TRUE: return true;
    case NVML_GPU_FABRIC_HEALTH_MASK_FALSE: return false;
    default: return std::nullopt;
  }
}

template <typename Info>
GpuFabric FabricOf(const Info& info) {
  GpuFabric f;
  f.state = info.state <= NVML_GPU_FABRIC_STATE_COMPLETED ? static_cast<FabricState>(info.state)
                                                          : FabricState::kNotSupported;
  if (f.state == FabricState::kNotSupported) return f;
  if (f.state == FabricState::kCompleted) {
    f.status_code = info.status;
    f.status = info.status == NVML_SUCCESS ? "Success" : NvmlReturnMessage(info.status);
  }
  f.clique_id = info.cliqueId;
  f.cluster_uuid = UuidText(info.clusterUuid);
  return f;
}

}  // namespace fabric_reader_detail

// The versioned call (R550 on) asked for version 2, else the first one
// (R525 on); a GPU or driver without either keeps `fabric` null.
void ReadFabric(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  using namespace fabric_reader_detail;
  const auto& f = r.fn();
  nvmlGpuFabricInfoV_t v{};
  v.version = nvmlGpuFabricInfo_v2;
  nvmlReturn_t rc = r.Call("nvmlDeviceGetGpuFabricInfoV", f.nvmlDeviceGetGpuFabricInfoV, dev, &v);
  if (rc == NVML_SUCCESS) {
    GpuFabric fabric = FabricOf(v);
    if (fabric.state != FabricState::kNotSupported) {
      fabric.health_mask = v.healthMask;
      fabric.degraded_bandwidth = HealthField(v.healthMask, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW);
      fabric.route_recovery = HealthField(v.healthMask, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY);
      fabric.route_unhealthy = HealthField(v.healthMask, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY);
      fabric.access_timeout_recovery =
          HealthField(v.healthMask, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY);
    }
    g.fabric = fabric;
    return;
  }
  if (!AnswersWithOlderCall(rc) && rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    r.Check(rc, "nvmlDeviceGetGpuFabricInfoV", "fabric");
    return;
  }
  nvmlGpuFabricInfo_t v1{};
  if (r.Get("nvmlDeviceGetGpuFabricInfo", "fabric", f.nvmlDeviceGetGpuFabricInfo, dev, &v1)) {
    g.fabric = FabricOf(v1);
  }
}

// Read only on a GPU with NVLink links or a fabric: a PCIe card would spend
// a call per peer to learn nothing. Two calls a peer (its handle, which the
// driver gives without asking the GPU, and the status).
void ReadNvLinkPeers(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  const bool fabric = g.fabric && g.fabric->state != FabricState::kNotSupported;
  if (g.nvlinks.empty() && !fabric) return;
  unsigned count = 0;
  if (r.Call("nvmlDeviceGetCount_v2", f.nvmlDeviceGetCount_v2, &count) != NVML_SUCCESS) return;
  for (unsigned peer = 0; peer < count && !r.stopped(); ++peer) {
    if (peer == g.index) continue;
    nvmlDevice_t other = nullptr;
    if (r.Call("nvmlDeviceGetHandleByIndex_v2", f.nvmlDeviceGetHandleByIndex_v2, peer, &other) !=
        NVML_SUCCESS) {
      continue;  // a lost peer: its own reading says so
    }
    nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
    if (!r.Get("nvmlDeviceGetP2PStatus", "nvlink_peers", f.nvmlDeviceGetP2PStatus, dev, other,
               NVML_P2P_CAPS_INDEX_NVLINK, &status)) {
      if (r.stopped()) return;
      continue;
    }
    NvLinkPeer p;
    p.peer_index = peer;
    p.status = status;
    g.nvlink_peers.push_back(p);  // the session fills in the peer's bus id
  }
}

}  // namespace gpudoctor::nvml_detail
