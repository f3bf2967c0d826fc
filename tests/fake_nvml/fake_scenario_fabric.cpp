// The "fabric" and "nvlink_p2p" keys of a scenario GPU (README.md).
#include <string_view>

#include "fake_scenario_json.h"

namespace fake {
namespace fake_fabric_detail {

using nlohmann::json;

gpudoctor::FabricState StateByName(const json& value, const std::string& where) {
  static const std::pair<std::string_view, gpudoctor::FabricState> kStates[] = {
      {"not_supported", gpudoctor::FabricState::kNotSupported},
      {"not_started", gpudoctor::FabricState::kNotStarted},
      {"in_progress", gpudoctor::FabricState::kInProgress},
      {"completed", gpudoctor::FabricState::kCompleted},
  };
  if (value.is_string()) {
    for (const auto& [name, state] : kStates) {
      if (value.get<std::string>() == name) return state;
    }
  }
  Fail(where, "must be not_supported, not_started, in_progress or completed");
}

int P2PStatusByName(const json& value, const std::string& where) {
  if (value.is_string()) {
    for (int code = NVML_P2P_STATUS_OK; code <= NVML_P2P_STATUS_UNKNOWN; ++code) {
      if (value.get<std::string>() == gpudoctor::P2PStatusName(code)) return code;
    }
  }
  Fail(where, "must be a P2P status name such as ok or not_supported");
}

std::optional<gpudoctor::FabricHealthSummary> SummaryByName(const json& e, const std::string& where) {
  if (!e.contains("health_summary") || e["health_summary"].is_null()) return std::nullopt;
  const json& value = e["health_summary"];
  for (auto s : {gpudoctor::FabricHealthSummary::kNotSupported, gpudoctor::FabricHealthSummary::kHealthy,
                 gpudoctor::FabricHealthSummary::kUnhealthy, gpudoctor::FabricHealthSummary::kLimitedCapacity}) {
    if (value.is_string() && value.get<std::string>() == gpudoctor::FabricHealthSummaryName(s)) return s;
  }
  Fail(where + ".health_summary", "must be healthy, unhealthy, limited_capacity, not_supported or null");
}

std::optional<bool> Health(const json& e, const char* key, const std::string& where) {
  if (!e.contains(key) || e[key].is_null()) return std::nullopt;
  if (!e[key].is_boolean()) Fail(where + "." + key, "must be true, false or null");
  return e[key].get<bool>();
}

}  // namespace fake_fabric_detail

void ApplyFabricJson(const nlohmann::json& value, const std::string& where, FakeGpu& gpu) {
  using namespace fake_fabric_detail;
  if (value.is_null()) {
    gpu.status.fabric.reset();
    return;
  }
  if (!value.is_object()) Fail(where, "must be an object or null");
  CheckKeys(value, where,
            {"state", "status", "clique_id", "cluster_uuid", "degraded_bandwidth",
             "route_recovery", "route_unhealthy", "access_timeout_recovery", "health_summary"});
  gpudoctor::GpuFabric f;
  f.state = value.contains("state") ? StateByName(value["state"], where + ".state")
                                    : gpudoctor::FabricState::kCompleted;
  f.status_code = NVML_SUCCESS;
  if (value.contains("status")) {
    const json& s = value["status"];
    auto code = s.is_string() ? ReturnCodeByName(s.get<std::string>()) : std::nullopt;
    if (!code) Fail(where + ".status", "must be an NVML return code name");
    f.status_code = *code;
  }
  f.status = ReturnCodeText(static_cast<nvmlReturn_t>(*f.status_code));
  f.clique_id = static_cast<std::uint32_t>(
      value.contains("clique_id") ? Integer(value["clique_id"], where + ".clique_id", 0, 0xFFFFFFFF)
                                  : 0);
  f.cluster_uuid = value.value("cluster_uuid", "00000000-0000-0000-0000-000000000000");
  f.degraded_bandwidth = Health(value, "degraded_bandwidth", where);
  f.route_recovery = Health(value, "route_recovery", where);
  f.route_unhealthy = Health(value, "route_unhealthy", where);
  f.access_timeout_recovery = Health(value, "access_timeout_recovery", where);
  f.health_summary = SummaryByName(value, where);  // answered by version 3 (R580 on) only
  gpu.status.fabric = f;
}

void ApplyNvLinkP2PJson(const nlohmann::json& value, const std::string& where, FakeGpu& gpu) {
  using namespace fake_fabric_detail;
  gpu.nvlink_p2p.clear();
  gpu.nvlink_p2p_default.reset();
  if (value.is_null()) return;
  if (value.is_string()) {
    gpu.nvlink_p2p_default = P2PStatusByName(value, where);
    return;
  }
  if (!value.is_object()) Fail(where, "must be a status name or an object");
  for (const auto& [key, status] : value.items()) {
    const std::string at = where + "." + key;
    if (key == "default") {
      gpu.nvlink_p2p_default = P2PStatusByName(status, at);
      continue;
    }
    unsigned peer = 0;
    for (char c : key) {
      if (c < '0' || c > '9' || peer > kMaxGpus) Fail(at, "keys are peer indexes or \"default\"");
      peer = peer * 10 + static_cast<unsigned>(c - '0');
    }
    if (key.empty()) Fail(at, "keys are peer indexes or \"default\"");
    gpu.nvlink_p2p[peer] = P2PStatusByName(status, at);
  }
}

}  // namespace fake
