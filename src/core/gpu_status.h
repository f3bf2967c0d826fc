// The plain data model of one GPU's state and of the whole system, as read
// from NVML (or from an nvidia-smi XML document). Renderers, the fake NVML and
// later the rules all speak this model. A std::nullopt field means "not
// supported / not available on this GPU"; when a value could not be read for
// another reason the reason is kept in GpuStatus::field_errors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpudoctor {

enum class GpuState { kOk, kLost, kHung, kError };

const char* GpuStateName(GpuState state);

struct GpuProcess {
  GpuProcess() = default;
  // What NVML's process list gives; the rest stays unknown.
  GpuProcess(std::uint32_t pid_in, std::string name_in,
             std::optional<std::int64_t> used_memory_bytes_in)
      : pid(pid_in), name(std::move(name_in)), used_memory_bytes(used_memory_bytes_in) {}

  std::uint32_t pid = 0;
  std::string name;
  std::optional<std::int64_t> used_memory_bytes;
  // On a GPU in MIG mode, the GPU instance and compute instance it runs in
  // (NVML's process record; MigDeviceStatus's ids); nullopt otherwise.
  std::optional<unsigned> gpu_instance_id;
  std::optional<unsigned> compute_instance_id;
  // Its share of the driver's last sample period, in percent, of the SMs
  // (time any of its kernels ran) and of the memory interface
  // (nvmlDeviceGetProcessesUtilizationInfo, else ...GetProcessUtilization);
  // null when the driver gives none (MIG, older GPUs).
  std::optional<std::int64_t> sm_util_percent;
  std::optional<std::int64_t> memory_util_percent;
  // Who runs it, from /proc where the pid is visible (collect/process_owners.h);
  // empty when unknown.
  std::string user;
  std::string container_id;  // docker / containerd / cri-o id, 12 hex digits
  std::string pod_uid;       // Kubernetes pod uid
  // The pod's name and namespace, from the kubelet's /var/log/pods
  // directories, and the container's name, from its /var/log/containers
  // links (collect/kube_pods.h); empty when not found there.
  std::string pod_name;
  std::string pod_namespace;
  std::string container_name;
};

struct NvLinkStatus {
  unsigned link = 0;
  std::optional<bool> active;
  std::optional<std::int64_t> crc_flit_errors;
  std::optional<std::int64_t> crc_data_errors;
  std::optional<std::int64_t> replay_errors;
  std::optional<std::int64_t> recovery_errors;
  // Where an active link leads, read only when asked (NvmlOptions::
  // read_nvlink_topology): nvmlDeviceGetNvLinkVersion's answer (an encoding,
  // knowledge/nvlink_rates.h) and the remote end's PCI bus id (another GPU,
  // or an NVSwitch: a bus id that is no GPU's).
  std::optional<std::int64_t> version;
  std::string remote_pci_bus_id;  // empty when not read
  // The link's speed, one direction, as `nvidia-smi nvlink -s` prints it
  // (GB/s); null from NVML, which does not give it.
  std::optional<double> speed_gb_per_s;
};

// A GPU's registration in the NVLink fabric (NVSwitch and multi-node NVLink
// systems): nvmlDeviceGetGpuFabricInfoV, else ...GetGpuFabricInfo, or the
// Fabric block of nvidia-smi -q. Values as NVML numbers them.
enum class FabricState { kNotSupported = 0, kNotStarted = 1, kInProgress = 2, kCompleted = 3 };

// "not_supported", "not_started", "in_progress", "completed".
const char* FabricStateName(FabricState state);

// The fabric's own verdict on a GPU (nvmlGpuFabricInfo_v3_t.healthSummary,
// nvml.h 13.0 / R580 on: NVML_GPU_FABRIC_HEALTH_SUMMARY_*). It also covers
// conditions the four health-mask fields do not name.
enum class FabricHealthSummary { kNotSupported = 0, kHealthy = 1, kUnhealthy = 2, kLimitedCapacity = 3 };

// "not_supported", "healthy", "unhealthy", "limited_capacity".
const char* FabricHealthSummaryName(FabricHealthSummary summary);

struct GpuFabric {
  FabricState state = FabricState::kNotSupported;
  // Once completed: NVML's return code for the registration (0 = success)
  // and its text ("Success", or the error's); from nvidia-smi text only the
  // text, with the code when the text is "Success".
  std::optional<std::int64_t> status_code;
  std::string status;
  std::optional<std::uint32_t> clique_id;
  std::string cluster_uuid;  // "00000000-0000-..."; empty when unknown
  // The health mask as NVML gives it (versioned call only), and its 2-bit
  // fields read: true when the condition holds, false when it does not,
  // null when the driver does not report it.
  std::optional<std::uint32_t> health_mask;
  std::optional<bool> degraded_bandwidth;
  std::optional<bool> route_recovery;           // route recovery in progress
  std::optional<bool> route_unhealthy;
  std::optional<bool> access_timeout_recovery;  // access timeout recovery in progress
  // Null where the driver has no version 3 or reports NOT_SUPPORTED.
  std::optional<FabricHealthSummary> health_summary;
};

// Whether this GPU can reach a peer over NVLink (nvmlDeviceGetP2PStatus with
// the NVLink caps index): NVML_P2P_STATUS_* (0 ok, 5 not supported, ...).
struct NvLinkPeer {
  unsigned peer_index = 0;
  std::string peer_pci_bus_id;
  int status = 0;
};

// "ok", "chipset_not_supported", "gpu_not_supported",
// "topology_not_supported", "disabled_by_regkey", "not_supported", "unknown".
const char* P2PStatusName(int status);

struct MigDeviceStatus;

struct GpuStatus {
  unsigned index = 0;
  GpuState state = GpuState::kOk;
  std::string state_detail;  // why the state is not ok, one line

  std::string name;
  std::string uuid;
  std::optional<std::string> serial;
  std::string pci_bus_id;  // "0000:3b:00.0", lower case, 4-digit domain
  std::optional<std::string> board_part_number;
  std::optional<std::string> vbios_version;
  std::optional<std::string> inforom_image_version;
  std::optional<bool> gsp_firmware_enabled;
  std::optional<std::string> gsp_firmware_version;

  std::optional<std::int64_t> utilization_gpu_percent;
  std::optional<std::int64_t> utilization_memory_percent;
  // Video encoder and decoder busy, percent of the driver's sampling period
  // (nvmlDeviceGetEncoderUtilization / nvmlDeviceGetDecoderUtilization).
  std::optional<std::int64_t> utilization_encoder_percent;
  std::optional<std::int64_t> utilization_decoder_percent;

  std::optional<std::int64_t> memory_total_bytes;
  std::optional<std::int64_t> memory_used_bytes;
  std::optional<std::int64_t> memory_free_bytes;
  std::optional<std::int64_t> memory_reserved_bytes;

  std::optional<std::int64_t> temperature_c;
  std::optional<std::int64_t> memory_temperature_c;
  std::optional<std::int64_t> temperature_slowdown_c;
  std::optional<std::int64_t> temperature_shutdown_c;
  std::optional<std::int64_t> temperature_max_operating_c;
  std::optional<std::int64_t> temperature_memory_max_c;

  std::optional<std::int64_t> fan_speed_percent;  // first fan
  std::vector<std::int64_t> fan_speeds_percent;   // every fan

  std::optional<double> power_draw_w;
  std::optional<double> power_limit_w;
  std::optional<double> power_default_limit_w;
  std::optional<double> power_min_limit_w;
  std::optional<double> power_max_limit_w;
  std::optional<double> power_enforced_limit_w;
  std::optional<double> energy_total_j;

  std::optional<std::int64_t> clocks_graphics_mhz;
  std::optional<std::int64_t> clocks_sm_mhz;
  std::optional<std::int64_t> clocks_memory_mhz;
  std::optional<std::int64_t> clocks_max_graphics_mhz;
  std::optional<std::int64_t> clocks_max_sm_mhz;
  std::optional<std::int64_t> clocks_max_memory_mhz;
  std::optional<std::int64_t> clocks_applications_graphics_mhz;
  std::optional<std::int64_t> clocks_applications_memory_mhz;
  std::optional<std::int64_t> clocks_default_applications_graphics_mhz;
  std::optional<std::int64_t> clocks_default_applications_memory_mhz;

  std::optional<std::int64_t> pstate;  // 0..15; rendered "P0"
  std::optional<std::uint64_t> clock_event_reasons_mask;
  std::optional<std::int64_t> violation_power_ns;
  std::optional<std::int64_t> violation_thermal_ns;

  std::optional<bool> persistence_mode;
  std::optional<std::string> compute_mode;  // "Default", "Exclusive_Process", "Prohibited"
  std::optional<bool> mig_mode_enabled;
  std::optional<bool> mig_mode_pending;

  std::optional<bool> ecc_mode_enabled;
  std::optional<bool> ecc_mode_pending;
  std::optional<std::int64_t> ecc_volatile_corrected;
  std::optional<std::int64_t> ecc_volatile_uncorrected;
  std::optional<std::int64_t> ecc_aggregate_corrected;
  std::optional<std::int64_t> ecc_aggregate_uncorrected;

  std::optional<std::int64_t> retired_pages_sbe;
  std::optional<std::int64_t> retired_pages_dbe;
  std::optional<bool> retired_pages_pending;

  std::optional<std::int64_t> remapped_rows_corrected;
  std::optional<std::int64_t> remapped_rows_uncorrected;
  std::optional<bool> remapped_rows_pending;
  std::optional<bool> remapped_rows_failure;
  // What the driver says it takes to bring the GPU back (NVML field 230,
  // nvidia-smi's "GPU Recovery Action"; R570+): 0 None, 1 GPU Reset, 2 Node
  // Reboot, 3 Drain P2P, 4 Drain and Reset, 5 Recover IMEX Domain
  // (core/recovery_action.h).
  std::optional<std::int64_t> recovery_action;

  std::optional<std::int64_t> pcie_link_gen_current;
  std::optional<std::int64_t> pcie_link_gen_max;
  std::optional<std::int64_t> pcie_link_width_current;
  std::optional<std::int64_t> pcie_link_width_max;
  std::optional<std::int64_t> pcie_tx_bytes_per_s;
  std::optional<std::int64_t> pcie_rx_bytes_per_s;
  std::optional<std::int64_t> pcie_replay_count;

  // GPM (Hopper and later, driver R520 on): what the SMs did between this
  // reading's GPM sample and the previous one, as DCGM's profiling fields
  // show it. gpm_supported: nvmlGpmQueryDeviceSupport's answer (null when
  // the driver has no GPM); every metric is null where GPM is unsupported.
  std::optional<bool> gpm_supported;
  std::optional<double> gpm_sm_activity_percent;     // share of SMs busy
  std::optional<double> gpm_sm_occupancy_percent;    // warps resident / maximum
  std::optional<double> gpm_tensor_activity_percent; // any tensor pipe
  std::optional<double> gpm_fp64_activity_percent;   // non-tensor FP64 pipe
  std::optional<double> gpm_fp32_activity_percent;
  std::optional<double> gpm_fp16_activity_percent;
  std::optional<double> gpm_integer_activity_percent;
  std::optional<double> gpm_dram_bandwidth_percent;  // DRAM bandwidth used / peak
  std::optional<double> gpm_graphics_activity_percent;  // graphics engine busy
  std::optional<std::int64_t> gpm_pcie_tx_bytes_per_s;
  std::optional<std::int64_t> gpm_pcie_rx_bytes_per_s;
  std::optional<std::int64_t> gpm_nvlink_tx_bytes_per_s;  // all links
  std::optional<std::int64_t> gpm_nvlink_rx_bytes_per_s;

  // How long the driver took to answer one call while this reading was
  // taken: the median over the reading's calls (nvml_session.h), in
  // milliseconds. A healthy driver answers in well under a millisecond; tens
  // to hundreds point at a driver or GSP firmware in trouble. Null for
  // readings not taken through NVML (files).
  std::optional<double> nvml_call_latency_ms;

  // dcgm-exporter's DCGM_EXP_GPU_HEALTH_STATUS read back from Prometheus
  // (prom/series_readings.h), never from NVML: bit i stands for
  // DcgmHealthWatches()[i] (knowledge/dcgm_health_watch.h) warning / failing.
  std::optional<std::uint32_t> dcgm_health_warn_watches;
  std::optional<std::uint32_t> dcgm_health_fail_watches;

  std::vector<NvLinkStatus> nvlinks;  // links that exist on this GPU
  // The driver said the GPU has NVLink but every link is inactive, without
  // listing them (`nvidia-smi nvlink -s`: "Unable to retrieve NVLink
  // information as all links are inActive").
  bool nvlinks_all_inactive = false;
  // Null where nothing reports it (no such call on this driver, a file
  // without the block, or nvidia-smi's N/A).
  std::optional<GpuFabric> fabric;
  // NVLink P2P to every other GPU, read where this GPU has NVLink links or
  // a fabric state; empty otherwise.
  std::vector<NvLinkPeer> nvlink_peers;
  std::optional<std::vector<GpuProcess>> processes;
  // With MIG mode on: its MIG devices (one per compute instance), in the
  // driver's order; empty otherwise.
  std::vector<MigDeviceStatus> mig_devices;

  // Field name (as in status --json) -> why it could not be read, for
  // failures other than "not supported" (e.g. "permission denied").
  std::map<std::string, std::string> field_errors;
};

// One MIG device of a GPU in MIG mode: a compute instance of a GPU
// instance. `status` holds what NVML answers for the MIG device handle
// (uuid "MIG-...", name, memory) and the GPM metrics of its GPU instance
// (nvmlGpmMigSampleGet; every compute instance of a GPU instance shows the
// same); its other fields stay null.
struct MigDeviceStatus {
  unsigned gpu_instance_id = 0;
  std::optional<unsigned> compute_instance_id;
  GpuStatus status;
};

struct SystemStatus {
  bool nvml_loaded = false;
  std::string nvml_error;  // one line, empty when NVML initialised
  std::optional<std::string> driver_version;
  std::optional<std::int64_t> cuda_driver_version;  // 12020 = 12.2
  std::optional<std::string> nvml_version;
  std::vector<GpuStatus> gpus;
};

// The GPU instance profile a MIG device's name ends with: "1g.10gb" of
// "NVIDIA H100 80GB HBM3 MIG 1g.10gb" (the name NVML gives a MIG device
// handle); empty when the name has no " MIG " part.
std::string MigProfileOfName(std::string_view mig_device_name);

// "12.2" for 12020; empty when absent.
std::string CudaVersionText(std::int64_t encoded);
// "0000:3b:00.0" from "00000000:3B:00.0", "0000:3b:00.0", "3b:00.0" or the
// kernel log's "0000:3b:00" (function 0), with or without the driver's
// "PCI:" in front; empty if malformed (a device above 0x1f or a function
// above 7 is not a bus id: PciBusIdProblem says why).
std::string NormalizePciBusId(const std::string& text);
// Why `text` is not a PCI bus id ("device 0x3f is above 0x1f"), or empty
// when NormalizePciBusId accepts it.
std::string PciBusIdProblem(const std::string& text);

}  // namespace gpudoctor
