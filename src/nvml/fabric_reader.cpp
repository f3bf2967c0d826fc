// NVLink fabric registration and the NVLink P2P matrix of one GPU.
#include <chrono>
#include <cstdio>
#include <string>

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

std::optional<FabricHealthSummary> SummaryOf(unsigned char summary) {
  switch (summary) {
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY: return FabricHealthSummary::kHealthy;
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY: return FabricHealthSummary::kUnhealthy;
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY: return FabricHealthSummary::kLimitedCapacity;
    default: return std::nullopt;  // NOT_SUPPORTED, or a value newer than this header
  }
}

// What the P2P matrix depends on: the fabric's state, status and health,
// and which links are up.
std::string PeerKey(const GpuStatus& g) {
  std::string key;
  if (g.fabric) {
    key = std::to_string(static_cast<int>(g.fabric->state)) + "/" +
          std::to_string(g.fabric->status_code.value_or(-1)) + "/" +
          std::to_string(g.fabric->health_mask.value_or(0)) + "/" +
          std::to_string(static_cast<int>(g.fabric->health_summary.value_or(FabricHealthSummary::kNotSupported)));
  }
  key += ":";
  for (const NvLinkStatus& l : g.nvlinks) key += !l.active ? '?' : *l.active ? '1' : '0';
  return key;
}

// Two calls a peer (its handle, which the driver gives without asking the
// GPU, and the status).
void ReadPeerMatrix(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
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

}  // namespace fabric_reader_detail

// The versioned call (R550 on) asked for version 3 (R580 on, with the health
// summary), then version 2 where the driver answers that the version does
// not match, else the first call (R525 on); a GPU or driver without any
// keeps `fabric` null.
void ReadFabric(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  using namespace fabric_reader_detail;
  const auto& f = r.fn();
  nvmlGpuFabricInfoV_t v{};
  v.version = nvmlGpuFabricInfo_v3;
  nvmlReturn_t rc = r.Call("nvmlDeviceGetGpuFabricInfoV", f.nvmlDeviceGetGpuFabricInfoV, dev, &v);
  const bool v3 = rc == NVML_SUCCESS;
  if (rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    v = nvmlGpuFabricInfoV_t{};
    v.version = nvmlGpuFabricInfo_v2;
    rc = r.Call("nvmlDeviceGetGpuFabricInfoV", f.nvmlDeviceGetGpuFabricInfoV, dev, &v);
  }
  if (rc == NVML_SUCCESS) {
    GpuFabric fabric = FabricOf(v);
    if (fabric.state != FabricState::kNotSupported) {
      if (v3) fabric.health_summary = SummaryOf(v.healthSummary);
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
// a call per peer to learn nothing.
void ReadNvLinkPeers(Reader& r, nvmlDevice_t dev, GpuStatus& g, NvLinkPeerCache* cache,
                     std::chrono::milliseconds refresh) {
  const bool fabric = g.fabric && g.fabric->state != FabricState::kNotSupported;
  if (g.nvlinks.empty() && !fabric) return;
  const std::string key = fabric_reader_detail::PeerKey(g);
  const auto now = std::chrono::steady_clock::now();
  if (cache != nullptr && refresh.count() > 0 && cache->read_at && cache->key == key &&
      now - *cache->read_at < refresh) {
    g.nvlink_peers = cache->peers;
    return;
  }
  const std::size_t errors_before = g.field_errors.size();
  fabric_reader_detail::ReadPeerMatrix(r, dev, g);
  // A read that failed part way is not kept: the next one asks again.
  if (cache != nullptr && !r.stopped() && g.field_errors.size() == errors_before) {
    cache->peers = g.nvlink_peers;
    cache->key = key;
    cache->read_at = now;
  } else if (cache != nullptr) {
    cache->read_at.reset();
  }
}

}  // namespace gpudoctor::nvml_detail
