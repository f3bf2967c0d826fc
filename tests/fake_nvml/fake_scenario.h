// The fake NVML's scenario: the GPUs it pretends to have, how their values
// move over time and which faults strike them. Loaded from the file named by
// FAKE_NVML_SCENARIO (an nvidia-smi -q -x XML or a JSON scenario, see
// README.md in this folder).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/gpu_status.h"
#include "nvml/nvml_api.h"

namespace fake {

// How one numeric field moves with time (seconds since init).
struct Timeline {
  enum class Kind { kValues, kRamp, kSteps };
  Kind kind = Kind::kValues;
  std::vector<double> values;  // kValues: cycled, each held period_s
  double period_s = 1.0;
  double from = 0, to = 0, seconds = 0;          // kRamp
  std::vector<std::pair<double, double>> steps;  // kSteps: (at_s, value)

  // The value at time t; nullopt means "the base value" (before the first
  // step).
  std::optional<double> At(double t) const;
};

enum class FaultKind { kLost, kHang, kXid, kSlow, kError, kLinkDown };

struct Fault {
  FaultKind kind = FaultKind::kLost;
  double at_s = 0;
  unsigned long long xid = 0;         // kXid
  int delay_ms = 0;                   // kSlow
  std::string field;                  // kError: the field or setter it breaks
  nvmlReturn_t error = NVML_SUCCESS;  // kError
  unsigned link = 0;                  // kLinkDown: the NVLink link that goes inactive
  bool delivered = false;             // kXid: handed out by nvmlEventSetWait_v2
  // kLost: the handle and nvmlDeviceGetPciInfo_v3 still answer, as for a GPU
  // the driver attached before it fell off the bus.
  bool keeps_pci_info = false;
};

struct FakeGpu {
  gpudoctor::GpuStatus status;  // base state; the setters change it
  unsigned pci_device_id = 0x20B010DE;
  std::map<std::string, Timeline> metrics;
  std::vector<Fault> faults;
  // nvmlValueType_t of every field value served (-1: each field's usual one).
  int field_value_type = -1;
  // `status` with the metrics applied at scenario time applied_t (see
  // EnterGpu); reset when a setter changes `status`.
  std::optional<gpudoctor::GpuStatus> applied;
  double applied_t = 0;
  // "under_load": what a load from the fake libcuda (tests/fake_cuda) does to
  // this GPU, in seconds since that load began (fake_load_hook.cpp).
  std::map<std::string, Timeline> load_metrics;
  std::vector<Fault> load_faults;
  std::optional<double> load_start_t;  // scenario time the first load began
  double load_last_t = 0;              // scenario time of the latest load call
  // "nvlink_p2p": what nvmlDeviceGetP2PStatus(NVLINK) answers towards each
  // peer index, else the default (NVML_P2P_STATUS_*); without a default, OK
  // when the GPU has an active NVLink link, else NOT_SUPPORTED.
  std::map<unsigned, int> nvlink_p2p;
  std::optional<int> nvlink_p2p_default;
};

struct Scenario {
  std::string path;
  std::string driver_version = "535.104.05";
  std::optional<int> cuda_driver_version = 12020;
  std::string nvml_version;  // "12." + driver_version when not given
  nvmlReturn_t init_error = NVML_SUCCESS;
  int init_delay_ms = 0;
  std::vector<FakeGpu> gpus;
  // Driver generation (fake_profiles.cpp): "" for none, which serves every
  // function as the newest driver does.
  std::string driver_profile;
  // NVML function name -> what it answers instead of serving (the profile's
  // FUNCTION_NOT_FOUND for what its generation lacks, then "function_errors").
  std::map<std::string, nvmlReturn_t, std::less<>> function_errors;
  // Bytes per record that nvmlDeviceGetComputeRunningProcesses_v3 and the
  // legacy v1 write (v1: 24 on 450.66 to 465.31, whose nvml.h declares it so).
  std::size_t process_record_bytes_v3 = sizeof(nvmlProcessInfo_t);
  std::size_t process_record_bytes_v1 = sizeof(nvmlProcessInfo_v1_t);
  // The field id that answers the SW thermal slowdown counter: 269 (580.82
  // on, and without a profile), 251 (575.51.02 to 580.76.05), 0 for none.
  unsigned thermal_violation_field = 269;
  // Field 269 answers the power smoothing preset profile (575.51.02 to
  // 580.76.05): kPowerSmoothingPresetProfile, an unsigned int.
  bool power_smoothing_profile_field = false;
  // libcuda is installed: nvmlSystemGetCudaDriverVersion_v2 can answer.
  bool libcuda = true;
  // The fabric health mask has its route recovery, route unhealthy and
  // access timeout recovery fields (R570 on); degraded bandwidth is there
  // wherever the versioned fabric call is.
  bool fabric_health_r570 = true;
};

// Applies the driver profile `version` ("535.54.03"; any driver from 450 to
// 699): driver, NVML and CUDA versions, the functions its generation lacks,
// the _v3 process record layout and field 269. Returns "" or why `version` is
// no profile.
std::string ApplyDriverProfile(const std::string& version, Scenario& s);
// The symbols a profile can lack, and the first driver that exports each
// (major.minor: 450.66 for _v2; a whole branch is {branch, 0}).
struct ProfileSymbol {
  const char* name;
  int first_major;
  int first_minor;
};
// What field 269 answers where it is the power smoothing preset profile.
constexpr unsigned kPowerSmoothingPresetProfile = 2;
const std::vector<ProfileSymbol>& ProfileSymbols();
// True for a name in NVML_FUNCTIONS.
bool IsNvmlFunctionName(std::string_view name);

constexpr unsigned kMaxGpus = 64;
constexpr unsigned kMaxMigSlots = 8;  // MIG devices per GPU

// Reads a scenario file. On failure returns nullopt and a one-line message
// naming the file (and the offending key for unknown keys).
std::optional<Scenario> LoadScenario(const std::string& path,
                                     std::string* error);

// Sets a numeric field by its status --json name: any numeric scalar field,
// "pstate" or "clock_event_reasons" (a bit mask). False for other names.
bool SetMetricField(gpudoctor::GpuStatus& gpu, std::string_view name,
                    double value);
bool IsMetricField(std::string_view name);
// True for the names an "error" fault may target.
bool IsFaultableField(std::string_view name);

// NVML return code names ("NVML_ERROR_NO_PERMISSION") and texts.
std::optional<nvmlReturn_t> ReturnCodeByName(std::string_view name);
const char* ReturnCodeText(nvmlReturn_t code);

}  // namespace fake
