#include "render/status_json.h"

#include <nlohmann/json.hpp>

#include "core/clock_reasons.h"
#include "core/gpu_fields.h"

namespace gpudoctor {
namespace {

template <typename T>
nlohmann::ordered_json StatusOrNull(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json NvLinksToJson(const std::vector<NvLinkStatus>& links) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& l : links) {
    nlohmann::ordered_json link{{"link", l.link},
                                {"active", StatusOrNull(l.active)},
                                {"crc_flit_errors", StatusOrNull(l.crc_flit_errors)},
                                {"crc_data_errors", StatusOrNull(l.crc_data_errors)},
                                {"replay_errors", StatusOrNull(l.replay_errors)},
                                {"recovery_errors", StatusOrNull(l.recovery_errors)}};
    // Where the link leads, when the topology was read (status, stress).
    if (l.version) link["version"] = *l.version;
    if (!l.remote_pci_bus_id.empty()) link["remote_pci_bus_id"] = l.remote_pci_bus_id;
    if (l.speed_gb_per_s) link["speed_gb_per_s"] = *l.speed_gb_per_s;  // from nvidia-smi nvlink -s
    out.push_back(std::move(link));
  }
  return out;
}

// Null where nothing reports a fabric (a PCIe card, an old driver).
nlohmann::ordered_json FabricToJson(const std::optional<GpuFabric>& fabric) {
  if (!fabric) return nullptr;
  const GpuFabric& f = *fabric;
  auto text = [](const std::string& t) {
    return t.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t);
  };
  return {{"state", FabricStateName(f.state)},
          {"status", text(f.status)},
          {"status_code", StatusOrNull(f.status_code)},
          {"clique_id", StatusOrNull(f.clique_id)},
          {"cluster_uuid", text(f.cluster_uuid)},
          {"health_mask", StatusOrNull(f.health_mask)},
          {"degraded_bandwidth", StatusOrNull(f.degraded_bandwidth)},
          {"route_recovery", StatusOrNull(f.route_recovery)},
          {"route_unhealthy", StatusOrNull(f.route_unhealthy)},
          {"access_timeout_recovery", StatusOrNull(f.access_timeout_recovery)},
          {"health_summary", f.health_summary ? nlohmann::ordered_json(FabricHealthSummaryName(*f.health_summary))
                                              : nlohmann::ordered_json(nullptr)}};
}

nlohmann::ordered_json NvLinkPeersToJson(const std::vector<NvLinkPeer>& peers) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const NvLinkPeer& p : peers) {
    out.push_back({{"peer_index", p.peer_index},
                   {"peer_pci_bus_id", p.peer_pci_bus_id},
                   {"status", P2PStatusName(p.status)}});
  }
  return out;
}

nlohmann::ordered_json ProcessesToJson(const std::optional<std::vector<GpuProcess>>& processes) {
  if (!processes) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& p : *processes) {
    auto text = [](const std::string& t) {
      return t.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t);
    };
    out.push_back({{"pid", p.pid},
                   {"name", p.name},
                   {"used_memory_bytes", StatusOrNull(p.used_memory_bytes)},
                   {"sm_util_percent", StatusOrNull(p.sm_util_percent)},
                   {"memory_util_percent", StatusOrNull(p.memory_util_percent)},
                   {"gpu_instance_id", StatusOrNull(p.gpu_instance_id)},
                   {"compute_instance_id", StatusOrNull(p.compute_instance_id)},
                   {"user", text(p.user)},
                   {"container_id", text(p.container_id)},
                   {"container_name", text(p.container_name)},
                   {"pod_uid", text(p.pod_uid)},
                   {"pod_name", text(p.pod_name)},
                   {"pod_namespace", text(p.pod_namespace)}});
  }
  return out;
}

// A MIG device: its ids, uuid, memory and its GPU instance's GPM metrics
// (the other fields NVML does not answer per MIG device).
nlohmann::ordered_json MigDevicesToJson(const std::vector<MigDeviceStatus>& devices) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& m : devices) {
    nlohmann::ordered_json j = {{"gpu_instance_id", m.gpu_instance_id},
                                {"compute_instance_id", StatusOrNull(m.compute_instance_id)},
                                {"uuid", m.status.uuid},
                                {"name", m.status.name},
                                {"profile", MigProfileOfName(m.status.name)},
                                {"state", GpuStateName(m.status.state)}};
    for (const auto& field : ScalarGpuFields()) {
      if (!field.name.starts_with("memory_") && !field.name.starts_with("gpm_")) continue;
      std::visit([&](auto member) { j[std::string(field.name)] = StatusOrNull(m.status.*member); },
                 field.member);
    }
    j["field_errors"] = m.status.field_errors;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

nlohmann::ordered_json GpuToJson(const GpuStatus& gpu) {
  nlohmann::ordered_json j = {{"index", gpu.index},
                      {"name", gpu.name},
                      {"uuid", gpu.uuid},
                      {"pci_bus_id", gpu.pci_bus_id},
                      {"state", GpuStateName(gpu.state)}};
  if (!gpu.state_detail.empty()) j["state_detail"] = gpu.state_detail;
  for (const auto& field : ScalarGpuFields()) {
    std::visit([&](auto member) { j[std::string(field.name)] = StatusOrNull(gpu.*member); },
               field.member);
  }
  j["pstate"] = gpu.pstate ? nlohmann::ordered_json("P" + std::to_string(*gpu.pstate))
                           : nlohmann::ordered_json(nullptr);
  if (gpu.clock_event_reasons_mask) {
    j["clock_event_reasons"] = ClockReasonNames(*gpu.clock_event_reasons_mask);
    j["clock_event_reasons_mask"] = *gpu.clock_event_reasons_mask;
  } else {
    j["clock_event_reasons"] = nullptr;
    j["clock_event_reasons_mask"] = nullptr;
  }
  j["fan_speeds_percent"] = gpu.fan_speeds_percent;
  j["nvlinks"] = NvLinksToJson(gpu.nvlinks);
  if (gpu.nvlinks_all_inactive) j["nvlinks_all_inactive"] = true;
  j["fabric"] = FabricToJson(gpu.fabric);
  j["nvlink_peers"] = NvLinkPeersToJson(gpu.nvlink_peers);
  j["processes"] = ProcessesToJson(gpu.processes);
  j["mig_devices"] = MigDevicesToJson(gpu.mig_devices);
  j["field_errors"] = gpu.field_errors;
  return j;
}

nlohmann::ordered_json StatusToJson(const SystemStatus& status) {
  nlohmann::ordered_json j = {{"schema", "gpudoctor.status/v1"},
                      {"nvml_loaded", status.nvml_loaded},
                      {"driver_version", StatusOrNull(status.driver_version)}};
  j["cuda_driver_version"] =
      status.cuda_driver_version
          ? nlohmann::ordered_json(CudaVersionText(*status.cuda_driver_version))
          : nlohmann::ordered_json(nullptr);
  j["nvml_version"] = StatusOrNull(status.nvml_version);
  if (!status.nvml_loaded) j["error"] = status.nvml_error;
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const auto& g : status.gpus) gpus.push_back(GpuToJson(g));
  j["gpus"] = std::move(gpus);
  return j;
}

}  // namespace gpudoctor
