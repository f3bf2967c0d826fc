#include "render/prometheus_metrics.h"

#include <fmt/format.h>

#include <cmath>

#include "core/clock_reasons.h"
#include "core/utf8.h"
#include "render/exposition.h"
#include "render/prometheus_dcgm.h"
#include "render/prometheus_processes.h"
#include "render/prometheus_rdma.h"

namespace gpudoctor {
namespace {

using MetricGetter = std::optional<double> (*)(const GpuStatus&);

std::optional<double> D(const std::optional<std::int64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}
std::optional<double> D(const std::optional<double>& v) { return v; }
std::optional<double> D(const std::optional<bool>& v) {
  return v ? std::optional<double>(*v ? 1.0 : 0.0) : std::nullopt;
}
std::optional<double> Scaled(const std::optional<std::int64_t>& v, double scale) {
  return v ? std::optional<double>(static_cast<double>(*v) * scale) : std::nullopt;
}
// Without it a real field would convert to optional<int64_t> and lose its
// fraction.
std::optional<double> Scaled(const std::optional<double>& v, double scale) {
  return v ? std::optional<double>(*v * scale) : std::nullopt;
}

// One per-GPU series read straight from the latest sample: metrics as data.
struct GpuMetric {
  const char* name;
  const char* type;
  const char* help;
  MetricGetter get;
  // Also served per MIG device (as gpudoctor_mig_*), from its own status.
  bool per_mig = false;
};

const GpuMetric kGpuMetrics[] = {
    {"gpudoctor_gpu_utilization_ratio", "gauge", "Share of time a kernel ran on the GPU (0-1)",
     [](const GpuStatus& g) { return Scaled(g.utilization_gpu_percent, 0.01); }},
    {"gpudoctor_gpu_memory_utilization_ratio", "gauge",
     "Share of time GPU memory was read or written (0-1)",
     [](const GpuStatus& g) { return Scaled(g.utilization_memory_percent, 0.01); }},
    {"gpudoctor_gpu_encoder_utilization_ratio", "gauge",
     "Share of time the video encoder was busy (0-1)",
     [](const GpuStatus& g) { return Scaled(g.utilization_encoder_percent, 0.01); }},
    {"gpudoctor_gpu_decoder_utilization_ratio", "gauge",
     "Share of time the video decoder was busy (0-1)",
     [](const GpuStatus& g) { return Scaled(g.utilization_decoder_percent, 0.01); }},
    {"gpudoctor_gpu_memory_total_bytes", "gauge", "GPU memory installed",
     [](const GpuStatus& g) { return D(g.memory_total_bytes); },
     true},
    {"gpudoctor_gpu_memory_used_bytes", "gauge", "GPU memory in use",
     [](const GpuStatus& g) { return D(g.memory_used_bytes); },
     true},
    {"gpudoctor_gpu_memory_free_bytes", "gauge", "GPU memory free",
     [](const GpuStatus& g) { return D(g.memory_free_bytes); }},
    {"gpudoctor_gpu_memory_reserved_bytes", "gauge", "GPU memory reserved by the driver",
     [](const GpuStatus& g) { return D(g.memory_reserved_bytes); }},
    {"gpudoctor_gpu_temperature_celsius", "gauge", "GPU core temperature",
     [](const GpuStatus& g) { return D(g.temperature_c); }},
    {"gpudoctor_gpu_memory_temperature_celsius", "gauge", "GPU memory (HBM) temperature",
     [](const GpuStatus& g) { return D(g.memory_temperature_c); }},
    {"gpudoctor_gpu_slowdown_temperature_celsius", "gauge",
     "Temperature at which the GPU slows its clocks",
     [](const GpuStatus& g) { return D(g.temperature_slowdown_c); }},
    {"gpudoctor_gpu_shutdown_temperature_celsius", "gauge",
     "Temperature at which the GPU shuts down",
     [](const GpuStatus& g) { return D(g.temperature_shutdown_c); }},
    {"gpudoctor_gpu_fan_speed_ratio", "gauge",
     "Speed of the first fan relative to its maximum (0-1)",
     [](const GpuStatus& g) { return Scaled(g.fan_speed_percent, 0.01); }},
    {"gpudoctor_gpu_power_draw_watts", "gauge", "Power drawn by the GPU",
     [](const GpuStatus& g) { return D(g.power_draw_w); }},
    {"gpudoctor_gpu_power_limit_watts", "gauge", "Power limit set on the GPU",
     [](const GpuStatus& g) { return D(g.power_limit_w); }},
    {"gpudoctor_gpu_power_enforced_limit_watts", "gauge", "Power limit the GPU enforces",
     [](const GpuStatus& g) { return D(g.power_enforced_limit_w); }},
    {"gpudoctor_gpu_energy_joules_total", "counter",
     "Energy used by the GPU since the driver loaded",
     [](const GpuStatus& g) { return D(g.energy_total_j); }},
    {"gpudoctor_gpu_graphics_clock_hertz", "gauge", "Graphics clock",
     [](const GpuStatus& g) { return Scaled(g.clocks_graphics_mhz, 1e6); }},
    {"gpudoctor_gpu_sm_clock_hertz", "gauge", "SM clock",
     [](const GpuStatus& g) { return Scaled(g.clocks_sm_mhz, 1e6); }},
    {"gpudoctor_gpu_memory_clock_hertz", "gauge", "Memory clock",
     [](const GpuStatus& g) { return Scaled(g.clocks_memory_mhz, 1e6); }},
    {"gpudoctor_gpu_sm_clock_max_hertz", "gauge", "Highest SM clock",
     [](const GpuStatus& g) { return Scaled(g.clocks_max_sm_mhz, 1e6); }},
    {"gpudoctor_gpu_pstate", "gauge", "Performance state (0 = P0, fastest)",
     [](const GpuStatus& g) { return D(g.pstate); }},
    {"gpudoctor_gpu_power_violation_seconds_total", "counter",
     "Time the driver held the clocks down for power since it loaded",
     [](const GpuStatus& g) { return Scaled(g.violation_power_ns, 1e-9); }},
    {"gpudoctor_gpu_thermal_violation_seconds_total", "counter",
     "Time the driver held the clocks down for temperature since it loaded",
     [](const GpuStatus& g) { return Scaled(g.violation_thermal_ns, 1e-9); }},
    {"gpudoctor_gpu_persistence_mode", "gauge", "1 when persistence mode is on",
     [](const GpuStatus& g) { return D(g.persistence_mode); }},
    {"gpudoctor_gpu_ecc_mode", "gauge", "1 when ECC is on",
     [](const GpuStatus& g) { return D(g.ecc_mode_enabled); }},
    {"gpudoctor_gpu_ecc_mode_pending", "gauge", "1 when ECC is to change at the next GPU reset",
     [](const GpuStatus& g) { return D(g.ecc_mode_pending); }},
    {"gpudoctor_gpu_mig_mode", "gauge", "1 when MIG mode is on",
     [](const GpuStatus& g) { return D(g.mig_mode_enabled); }},
    {"gpudoctor_gpu_mig_mode_pending", "gauge", "1 when MIG mode is to change at the next GPU reset",
     [](const GpuStatus& g) { return D(g.mig_mode_pending); }},
    {"gpudoctor_gpu_ecc_corrected_errors_total", "counter",
     "Corrected ECC errors since the driver loaded (volatile)",
     [](const GpuStatus& g) { return D(g.ecc_volatile_corrected); }},
    {"gpudoctor_gpu_ecc_uncorrected_errors_total", "counter",
     "Uncorrected ECC errors since the driver loaded (volatile)",
     [](const GpuStatus& g) { return D(g.ecc_volatile_uncorrected); }},
    {"gpudoctor_gpu_retired_pages", "gauge", "Memory pages retired (single and double bit)",
     [](const GpuStatus& g) {
       if (!g.retired_pages_sbe && !g.retired_pages_dbe) return std::optional<double>();
       return std::optional<double>(
           static_cast<double>(g.retired_pages_sbe.value_or(0) + g.retired_pages_dbe.value_or(0)));
     }},
    {"gpudoctor_gpu_retired_pages_pending", "gauge",
     "1 when a page retirement waits for a GPU reset",
     [](const GpuStatus& g) { return D(g.retired_pages_pending); }},
    {"gpudoctor_gpu_remapped_rows", "gauge", "Memory rows remapped (correctable and uncorrectable)",
     [](const GpuStatus& g) {
       if (!g.remapped_rows_corrected && !g.remapped_rows_uncorrected) {
         return std::optional<double>();
       }
       return std::optional<double>(static_cast<double>(g.remapped_rows_corrected.value_or(0) +
                                                        g.remapped_rows_uncorrected.value_or(0)));
     }},
    {"gpudoctor_gpu_remapped_rows_pending", "gauge", "1 when a row remap waits for a GPU reset",
     [](const GpuStatus& g) { return D(g.remapped_rows_pending); }},
    {"gpudoctor_gpu_remapped_rows_failure", "gauge", "1 when a row remap failed",
     [](const GpuStatus& g) { return D(g.remapped_rows_failure); }},
    {"gpudoctor_gpu_pcie_link_generation", "gauge", "Current PCIe link generation",
     [](const GpuStatus& g) { return D(g.pcie_link_gen_current); }},
    {"gpudoctor_gpu_pcie_link_generation_max", "gauge", "Highest PCIe link generation",
     [](const GpuStatus& g) { return D(g.pcie_link_gen_max); }},
    {"gpudoctor_gpu_pcie_link_width", "gauge", "Current PCIe link width (lanes)",
     [](const GpuStatus& g) { return D(g.pcie_link_width_current); }},
    {"gpudoctor_gpu_pcie_link_width_max", "gauge", "Widest PCIe link (lanes)",
     [](const GpuStatus& g) { return D(g.pcie_link_width_max); }},
    {"gpudoctor_gpu_pcie_tx_bytes_per_second", "gauge", "PCIe transmit throughput",
     [](const GpuStatus& g) { return D(g.pcie_tx_bytes_per_s); }},
    {"gpudoctor_gpu_pcie_rx_bytes_per_second", "gauge", "PCIe receive throughput",
     [](const GpuStatus& g) { return D(g.pcie_rx_bytes_per_s); }},
    {"gpudoctor_gpu_pcie_replays_total", "counter", "PCIe replays since the driver loaded",
     [](const GpuStatus& g) { return D(g.pcie_replay_count); }},
    {"gpudoctor_gpu_gpm_supported", "gauge",
     "1 when the GPU supports GPM (SM activity and the other profiling metrics), 0 when not",
     [](const GpuStatus& g) { return D(g.gpm_supported); }},
    {"gpudoctor_gpu_sm_activity_ratio", "gauge",
     "GPM: share of SMs busy, averaged since the previous sample (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_sm_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_sm_occupancy_ratio", "gauge",
     "GPM: warps resident on the SMs relative to the maximum (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_sm_occupancy_percent, 0.01); },
     true},
    {"gpudoctor_gpu_tensor_pipe_activity_ratio", "gauge",
     "GPM: share of time the SMs' tensor pipes were busy (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_tensor_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_fp64_pipe_activity_ratio", "gauge",
     "GPM: share of time the SMs did non-tensor FP64 math (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_fp64_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_fp32_pipe_activity_ratio", "gauge",
     "GPM: share of time the SMs did non-tensor FP32 math (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_fp32_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_fp16_pipe_activity_ratio", "gauge",
     "GPM: share of time the SMs did non-tensor FP16 math (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_fp16_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_integer_pipe_activity_ratio", "gauge",
     "GPM: share of time the SMs did integer math (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_integer_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_dram_bandwidth_ratio", "gauge",
     "GPM: DRAM bandwidth used relative to the peak (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_dram_bandwidth_percent, 0.01); },
     true},
    {"gpudoctor_gpu_graphics_activity_ratio", "gauge",
     "GPM: share of time the graphics engine was busy (0-1)",
     [](const GpuStatus& g) { return Scaled(g.gpm_graphics_activity_percent, 0.01); },
     true},
    {"gpudoctor_gpu_gpm_pcie_tx_bytes_per_second", "gauge",
     "GPM: PCIe traffic from the GPU, averaged since the previous sample",
     [](const GpuStatus& g) { return D(g.gpm_pcie_tx_bytes_per_s); },
     true},
    {"gpudoctor_gpu_gpm_pcie_rx_bytes_per_second", "gauge",
     "GPM: PCIe traffic to the GPU, averaged since the previous sample",
     [](const GpuStatus& g) { return D(g.gpm_pcie_rx_bytes_per_s); },
     true},
    {"gpudoctor_gpu_nvlink_tx_bytes_per_second", "gauge", "GPM: NVLink writes, all links",
     [](const GpuStatus& g) { return D(g.gpm_nvlink_tx_bytes_per_s); },
     true},
    {"gpudoctor_gpu_nvlink_rx_bytes_per_second", "gauge", "GPM: NVLink reads, all links",
     [](const GpuStatus& g) { return D(g.gpm_nvlink_rx_bytes_per_s); },
     true},
    {"gpudoctor_gpu_processes", "gauge", "Compute processes on the GPU",
     [](const GpuStatus& g) {
       return g.processes ? std::optional<double>(static_cast<double>(g.processes->size()))
                          : std::nullopt;
     }},
};

// The GPU's identity and, while a single pod uses it (the GPU instance
// `gpu_instance_id` on MIG), that pod: the series read from the latest
// sample say whose work they measure.
std::string GpuSeriesLabels(const AgentLiveSnapshot& s, const GpuStatus& g,
                            std::optional<unsigned> gpu_instance_id = std::nullopt) {
  MetricGpuLabels scratch;
  std::string labels = GpuLabelText(LabelsOf(s, g, scratch));
  if (const GpuProcess* pod = SinglePodOf(g, gpu_instance_id)) {
    labels += "," + PromLabel("pod", pod->pod_name) + "," + PromLabel("namespace", pod->pod_namespace);
  }
  return labels;
}

// The MIG devices' memory and their GPU instances' GPM metrics: the GPU's
// labels plus gpu_instance, compute_instance and mig_uuid.
void WriteMigMetrics(const AgentLiveSnapshot& s, Exposition& e) {
  for (const auto& m : kGpuMetrics) {
    if (!m.per_mig) continue;
    bool family = false;
    const std::string name = "gpudoctor_mig_" + std::string(m.name).substr(14);
    for (const auto& g : s.status.gpus) {
      for (const auto& mig : g.mig_devices) {
        auto v = m.get(mig.status);
        if (!v) continue;
        if (!family) e.Family(name, m.type, std::string("MIG device: ") + m.help);
        family = true;
        std::string labels =
            JoinLabels(GpuSeriesLabels(s, g, mig.gpu_instance_id),
                 PromLabel("gpu_instance", std::to_string(mig.gpu_instance_id)) + "," +
                     PromLabel("compute_instance", mig.compute_instance_id
                                                   ? std::to_string(*mig.compute_instance_id)
                                                   : std::string()) +
                     "," + PromLabel("mig_uuid", mig.status.uuid));
        e.Sample(labels, *v);
      }
    }
  }
}

// The NVLink fabric registration, its health fields and the NVLink P2P
// matrix, for GPUs that report a fabric.
void WriteFabricMetrics(const AgentLiveSnapshot& s, Exposition& e) {
  e.Family("gpudoctor_gpu_fabric_state", "gauge",
           "NVLink fabric registration: 0 not supported, 1 not started, 2 in progress, "
           "3 completed");
  for (const auto& g : s.status.gpus) {
    if (g.fabric) e.Sample(GpuSeriesLabels(s, g), static_cast<double>(static_cast<int>(g.fabric->state)));
  }
  e.Family("gpudoctor_gpu_fabric_status_ok", "gauge",
           "1 when the fabric registration completed successfully, 0 when it completed with an "
           "error");
  for (const auto& g : s.status.gpus) {
    if (g.fabric && g.fabric->state == FabricState::kCompleted && !g.fabric->status.empty()) {
      e.Sample(GpuSeriesLabels(s, g), g.fabric->status_code == 0 ? 1 : 0);
    }
  }
  e.Family("gpudoctor_gpu_fabric_health", "gauge",
           "1 while the fabric reports the condition (degraded_bandwidth, route_recovery, "
           "route_unhealthy, access_timeout_recovery), 0 when not; absent when not reported");
  for (const auto& g : s.status.gpus) {
    if (!g.fabric) continue;
    const std::pair<const char*, const std::optional<bool>*> conditions[] = {
        {"degraded_bandwidth", &g.fabric->degraded_bandwidth},
        {"route_recovery", &g.fabric->route_recovery},
        {"route_unhealthy", &g.fabric->route_unhealthy},
        {"access_timeout_recovery", &g.fabric->access_timeout_recovery}};
    for (const auto& [name, value] : conditions) {
      if (*value) e.Sample(JoinLabels(GpuSeriesLabels(s, g), PromLabel("condition", name)), **value ? 1 : 0);
    }
  }
  e.Family("gpudoctor_gpu_nvlink_peers_unreachable", "gauge",
           "Other GPUs this GPU cannot reach peer-to-peer over NVLink (read where it has NVLink "
           "links or a fabric)");
  for (const auto& g : s.status.gpus) {
    if (g.nvlink_peers.empty()) continue;
    double n = 0;
    for (const NvLinkPeer& p : g.nvlink_peers) n += p.status != 0 ? 1 : 0;
    e.Sample(GpuSeriesLabels(s, g), n);
  }
}

// dcgm_named: the fields dcgm-exporter has a name for are served in its
// names instead (--metrics-names dcgm), so leave them out here.
void WriteGpuMetrics(const AgentLiveSnapshot& s, bool dcgm_named, Exposition& e) {
  for (const auto& m : kGpuMetrics) {
    if (dcgm_named && HasDcgmName(m.name)) continue;
    e.Family(m.name, m.type, m.help);
    for (const auto& g : s.status.gpus) {
      if (auto v = m.get(g)) e.Sample(GpuSeriesLabels(s, g), *v);
    }
  }
  WriteMigMetrics(s, e);
  e.Family("gpudoctor_gpu_state", "gauge",
           "1 for the GPU's state in the latest sample (ok, lost, hung, error), 0 for the others");
  for (const auto& g : s.status.gpus) {
    const std::string labels = GpuSeriesLabels(s, g);
    for (GpuState st : {GpuState::kOk, GpuState::kLost, GpuState::kHung, GpuState::kError}) {
      e.Sample(JoinLabels(labels, PromLabel("state", GpuStateName(st))), g.state == st ? 1 : 0);
    }
  }
  e.Family("gpudoctor_gpu_clock_event_reason_active", "gauge",
           "1 while the clock event (throttle) reason holds the clocks down");
  for (const auto& g : s.status.gpus) {
    if (!g.clock_event_reasons_mask) continue;
    const std::string labels = GpuSeriesLabels(s, g);
    for (const auto& r : AllClockReasons()) {
      e.Sample(JoinLabels(labels, PromLabel("reason", r.name)),
               (*g.clock_event_reasons_mask & r.bit) != 0 ? 1 : 0);
    }
  }
  e.Family("gpudoctor_gpu_nvlink_active", "gauge", "1 when the NVLink link is up");
  for (const auto& g : s.status.gpus) {
    const std::string labels = GpuSeriesLabels(s, g);
    for (const auto& l : g.nvlinks) {
      if (l.active)
        e.Sample(JoinLabels(labels, PromLabel("link", std::to_string(l.link))), *l.active ? 1 : 0);
    }
  }
  WriteFabricMetrics(s, e);
  if (dcgm_named) return;  // DCGM_FI_DEV_NVLINK_*_ERROR_COUNT_L<n>
  e.Family("gpudoctor_gpu_nvlink_errors_total", "counter",
           "NVLink errors per link and kind (crc_flit, crc_data, replay, recovery)");
  for (const auto& g : s.status.gpus) {
    const std::string labels = GpuSeriesLabels(s, g);
    for (const auto& l : g.nvlinks) {
      const std::pair<const char*, const std::optional<std::int64_t>*> kinds[] = {
          {"crc_flit", &l.crc_flit_errors},
          {"crc_data", &l.crc_data_errors},
          {"replay", &l.replay_errors},
          {"recovery", &l.recovery_errors}};
      for (const auto& [kind, value] : kinds) {
        if (*value) {
          e.Sample(JoinLabels(labels, PromLabel("link", std::to_string(l.link)) + "," + PromLabel("kind", kind)),
                   static_cast<double>(**value));
        }
      }
    }
  }
}

void WriteCounters(const AgentLiveSnapshot& s, Exposition& e) {
  e.Family("gpudoctor_gpu_throttle_seconds_total", "counter",
           "Time the agent saw each clock event (throttle) reason active since it started");
  for (const auto& [bus, c] : s.gpus) {
    for (const auto& [reason, seconds] : c.throttle_seconds_by_reason) {
      e.Sample(JoinLabels(GpuLabelText(c.labels), PromLabel("reason", reason)), seconds);
    }
  }
  e.Family("gpudoctor_xid_events_total", "counter",
           "Xid events per GPU and code since the agent started");
  for (const auto& [bus, c] : s.gpus) {
    for (const auto& [code, n] : c.xid_events_by_code) {
      e.Sample(JoinLabels(GpuLabelText(c.labels), PromLabel("xid", std::to_string(code))),
               static_cast<double>(n));
    }
  }
  e.Family("gpudoctor_sxid_events_total", "counter",
           "NVSwitch SXid events per switch and code since the agent started");
  for (const auto& [key, n] : s.sxid_events) {
    e.Sample(PromLabel("pci_bus_id", key.first) + "," + PromLabel("sxid", std::to_string(key.second)),
             static_cast<double>(n));
  }
  e.Family("gpudoctor_gpu_verdict", "gauge",
           "Worst active finding on the GPU: 0 ok, 1 info, 2 warning, 3 critical");
  for (const auto& [bus, c] : s.gpus) {
    if (c.seen) e.Sample(GpuLabelText(c.labels), static_cast<double>(c.verdict));
  }
  e.Family("gpudoctor_recommended_action", "gauge",
           "Recovery action the GPU's active findings need: 0 none, 1 restart_application, "
           "2 reset_gpu, 3 drain_and_reset, 4 reboot_node, 5 hardware_inspection, "
           "6 contact_provider");
  for (const auto& [bus, c] : s.gpus) {
    if (c.seen) {
      e.Sample(JoinLabels(GpuLabelText(c.labels),
                          PromLabel("action", RecoveryActionName(c.recommended))),
               RecoveryActionCode(c.recommended));
    }
  }
  RecoveryAction node = RecoveryAction::kNone;
  for (const auto& f : s.active_findings)
    node = Stricter(node, f.recommended.value_or(RecoveryAction::kNone));
  e.Family("gpudoctor_node_recommended_action", "gauge",
           "Recovery action the node's active findings need, host-wide ones included (codes as "
           "gpudoctor_recommended_action)");
  e.Sample(PromLabel("action", RecoveryActionName(node)), RecoveryActionCode(node));
  e.Family("gpudoctor_finding_active", "gauge",
           "1 per finding the agent's rules report now (gpus: bus ids, empty host-wide; action: "
           "its recovery action)");
  for (const auto& f : s.active_findings) {
    std::string gpus;
    for (const auto& g : f.gpus) gpus += (gpus.empty() ? "" : ",") + g;
    e.Sample(
        PromLabel("id", f.finding_id) + "," + PromLabel("severity", SeverityName(f.severity)) +
            "," + PromLabel("gpus", gpus) + "," +
            PromLabel("action", RecoveryActionName(f.recommended.value_or(RecoveryAction::kNone))),
        1);
  }
}

void WriteAgentMetrics(const AgentLiveSnapshot& s, Exposition& e) {
  const std::pair<const char*, const char*> counts[] = {
      {"gpudoctor_gpus_expected", "GPUs this machine should have (configuration; 0: not set)"},
      {"gpudoctor_gpus_visible", "GPUs answering NVML in the latest sample"},
      {"gpudoctor_gpus_lost", "GPUs seen in this run that are now lost, hung or gone"}};
  const unsigned values[] = {s.gpus_expected, s.gpus_visible, s.gpus_lost};
  for (std::size_t i = 0; i < 3; ++i) {
    e.Family(counts[i].first, "gauge", counts[i].second);
    e.Sample("", values[i]);
  }
  e.Family("gpudoctor_nvml_up", "gauge", "1 when NVML is loaded and initialised");
  e.Sample("", s.status.nvml_loaded ? 1 : 0);
  e.Family("gpudoctor_nvml_sample_duration_seconds", "histogram",
           "Time one sample of every GPU through NVML took");
  for (std::size_t i = 0; i < kSampleLatencyBuckets.size(); ++i) {
    e.Sample(PromLabel("le", ExpositionNumber(kSampleLatencyBuckets[i])),
             static_cast<double>(s.sample_latency.cumulative[i]), "_bucket");
  }
  e.Sample(PromLabel("le", "+Inf"), static_cast<double>(s.sample_latency.count), "_bucket");
  e.Sample("", s.sample_latency.sum_seconds, "_sum");
  e.Sample("", static_cast<double>(s.sample_latency.count), "_count");
  e.Family(
      "gpudoctor_node_reboots", "gauge",
      "Reboots of the node the agent recorded over the last 3 days (a new boot_id at its start)");
  e.Sample("", static_cast<double>(s.reboots_recorded));
  e.Family("gpudoctor_latched_findings", "gauge",
           "Faults latched for hardware inspection (they came back after the configured "
           "reboots) and not yet acknowledged with gpudoctor ack");
  e.Sample("", static_cast<double>(s.latched.size()));
  e.Family("gpudoctor_latched_finding", "gauge",
           "1 for each latched fault: the GPU (bus id, UUID), the cause that recurred and its Xid");
  for (const auto& l : s.latched) {
    e.Sample(JoinLabels(JoinLabels(PromLabel("pci_bus_id", l.gpu), PromLabel("uuid", l.uuid)),
                        JoinLabels(PromLabel("cause", l.finding_id),
                                   PromLabel("xid", l.xid ? std::to_string(*l.xid) : ""))),
             1);
  }
  e.Family("gpudoctor_nvml_timeouts_total", "counter",
           "GPU samples abandoned because a driver call did not return in time");
  e.Sample("", static_cast<double>(s.nvml_timeouts));
  e.Family("gpudoctor_agent_samples_total", "counter", "Samples taken, by store result");
  e.Sample(PromLabel("result", "written"), static_cast<double>(s.samples_written));
  e.Sample(PromLabel("result", "failed"), static_cast<double>(s.samples_failed));
  const auto seconds = [](WallTime t) {
    return std::chrono::duration<double>(t.time_since_epoch()).count();
  };
  e.Family("gpudoctor_last_sample_timestamp_seconds", "gauge",
           "Unix time of the latest sample (0: none yet)");
  e.Sample("", s.last_sample_at ? seconds(*s.last_sample_at) : 0);
  e.Family("gpudoctor_agent_start_time_seconds", "gauge", "Unix time the agent started");
  e.Sample("", seconds(s.started_at));
  e.Family("gpudoctor_agent_cpu_seconds_total", "counter", "CPU time the agent used");
  e.Sample("", s.agent_cpu_seconds);
  e.Family("gpudoctor_agent_resident_memory_bytes", "gauge", "The agent's resident memory");
  e.Sample("", static_cast<double>(s.agent_resident_bytes));
  e.Family("gpudoctor_store_size_bytes", "gauge", "The history store on disk (database and WAL)");
  e.Sample("", static_cast<double>(s.store.file_bytes));
  e.Family("gpudoctor_store_writes_stopped", "gauge",
           "1 when the store stopped writing (disk full or size bound)");
  e.Sample("", s.store.writes_stopped ? 1 : 0);
}

}  // namespace

ExpositionFormat ChooseExposition(std::string_view accept_header) {
  return accept_header.find("application/openmetrics-text") != std::string_view::npos
             ? ExpositionFormat::kOpenMetrics
             : ExpositionFormat::kPrometheusText;
}

const char* ExpositionContentType(ExpositionFormat format) {
  return format == ExpositionFormat::kOpenMetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

std::string EscapeLabelValue(std::string_view value) {
  // Prometheus rejects a whole scrape over one label value that is not UTF-8.
  const std::string text = ToValidUtf8(value);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderPrometheusMetrics(const AgentLiveSnapshot& snapshot, ExpositionFormat format,
                                    const MetricsRenderOptions& options) {
  Exposition e(format);
  const bool dcgm = options.names != MetricNames::kGpudoctor;
  WriteGpuMetrics(snapshot, options.names == MetricNames::kDcgm, e);
  if (dcgm) WriteDcgmMetrics(snapshot, options, e);
  WriteProcessMetrics(snapshot, options.top_processes, e);
  WriteCounters(snapshot, e);
  WriteRdmaMetrics(snapshot, e);
  WriteAgentMetrics(snapshot, e);
  return e.Finish();
}

}  // namespace gpudoctor
