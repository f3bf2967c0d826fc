// Driver profiles: what each driver generation from R450 to R610 exports and
// answers, as far as gpudoctor's calls go. Sources: the first go-nvml copy of
// nvml.h that declares each symbol (shared/facts/nvml-facts.md 1.1; 11.0 =
// R450, 11.1 = R455, 11.6 = R510, 11.7 = R515, 12.2 = R535, 12.8 = R570,
// 12.9 = R575) or the first release whose nvml.h has it (_v2 450.66,
// TemperatureV 565.57), the 32-byte _v3 process records of 535.43.02,
// 535.54.03 and 535.86.05, v1's 24-byte records of 450.66 to 465.31, the SW
// thermal slowdown field (251 or 269) and the CUDA version each branch
// supports.
#include <array>
#include <cstdio>

#include "fake_scenario.h"

namespace fake {
namespace {

struct ProfileBranch {
  int branch;
  int cuda;  // 1000 * major + 10 * minor
};

// Each driver branch with the CUDA version its NVML reports.
constexpr std::array<ProfileBranch, 23> kProfileBranches = {{
    {450, 11000}, {455, 11010}, {460, 11020}, {465, 11030}, {470, 11040},
    {495, 11050}, {510, 11060}, {515, 11070}, {520, 11080}, {525, 12000},
    {530, 12010}, {535, 12020}, {545, 12030}, {550, 12040}, {555, 12050},
    {560, 12060}, {565, 12070}, {570, 12080}, {575, 12090}, {580, 13000},
    {590, 13010}, {595, 13020}, {610, 13030},
}};

// The SW thermal slowdown counter is field 251 in the headers of 575.51.02
// to 580.76.05, whose 269 is the power smoothing preset profile, and 269 from
// 580.82 on (the nvml.h of each release, issue-checked R450 to R610).
constexpr std::array<int, 3> kFirstField251 = {575, 51, 2};
constexpr std::array<int, 3> kFirstField269 = {580, 82, 0};

// v1's records are 24 bytes in the headers of 450.66 to 465.31.
constexpr std::array<int, 3> kFirstWideV1 = {450, 66, 0};
constexpr std::array<int, 3> kLastWideV1 = {465, 31, 0};

// major.minor of the drivers whose _v3 process records are 32 bytes.
constexpr std::array<std::pair<int, int>, 3> kCcProcessRecordDrivers = {{
    {535, 43}, {535, 54}, {535, 86}}};

#define FAKE_NVML_FUNCTION_NAME(name, params) #name,
constexpr const char* kNvmlFunctionNames[] = {NVML_FUNCTIONS(FAKE_NVML_FUNCTION_NAME)};
#undef FAKE_NVML_FUNCTION_NAME

}  // namespace

const std::vector<ProfileSymbol>& ProfileSymbols() {
  static const std::vector<ProfileSymbol> symbols = {
      {"nvmlDeviceGetComputeRunningProcesses_v2", 450, 66},
      {"nvmlDeviceGetComputeRunningProcesses_v3", 510, 0},
      {"nvmlDeviceGetMemoryInfo_v2", 510, 0},
      {"nvmlDeviceGetGspFirmwareMode", 515, 0},
      {"nvmlDeviceGetGspFirmwareVersion", 515, 0},
      {"nvmlDeviceGetCurrentClocksEventReasons", 535, 0},
      {"nvmlDeviceGetTemperatureV", 565, 57},
      // GPM: the 11.8 header (R520); MIG samples from the 12.0 header (R525).
      {"nvmlGpmQueryDeviceSupport", 520, 0},
      {"nvmlGpmSampleAlloc", 520, 0},
      {"nvmlGpmSampleFree", 520, 0},
      {"nvmlGpmSampleGet", 520, 0},
      {"nvmlGpmMetricsGet", 520, 0},
      {"nvmlGpmMigSampleGet", 525, 0},
      {"nvmlDeviceGetProcessesUtilizationInfo", 550, 0},
      // NVLink fabric: the 12.0 header (R525), the versioned call 12.4 (R550).
      {"nvmlDeviceGetGpuFabricInfo", 525, 0},
      {"nvmlDeviceGetGpuFabricInfoV", 550, 0},
  };
  return symbols;
}

bool IsNvmlFunctionName(std::string_view name) {
  for (const char* known : kNvmlFunctionNames) {
    if (name == known) return true;
  }
  return false;
}

std::string ApplyDriverProfile(const std::string& version, Scenario& s) {
  int major = 0, minor = 0, patch = 0, used = 0;
  const int fields =
      std::sscanf(version.c_str(), "%d.%d%n.%d%n", &major, &minor, &used, &patch, &used);
  if (fields < 2 || used != static_cast<int>(version.size()) || minor < 0 || patch < 0) {
    return "'" + version + "' is not a driver version such as 535.54.03";
  }
  if (major < 450 || major > 699) {
    return "'" + version + "': profiles cover drivers 450 to 699";
  }
  const ProfileBranch* branch = &kProfileBranches.front();
  for (const ProfileBranch& b : kProfileBranches) {
    if (b.branch <= major) branch = &b;
  }
  s.driver_profile = version;
  s.driver_version = version;
  s.cuda_driver_version = branch->cuda;
  s.nvml_version = std::to_string(branch->cuda / 1000) + "." + version;
  const std::array<int, 3> v = {major, minor, patch};
  for (const ProfileSymbol& symbol : ProfileSymbols()) {
    if (v < std::array<int, 3>{symbol.first_major, symbol.first_minor, 0}) {
      s.function_errors[symbol.name] = NVML_ERROR_FUNCTION_NOT_FOUND;
    }
  }
  s.process_record_bytes_v1 = v >= kFirstWideV1 && v <= kLastWideV1
                                  ? sizeof(nvmlProcessInfo_t)
                                  : sizeof(nvmlProcessInfo_v1_t);
  s.process_record_bytes_v3 = sizeof(nvmlProcessInfo_t);
  for (const auto& [cc_major, cc_minor] : kCcProcessRecordDrivers) {
    if (major == cc_major && minor == cc_minor) {
      s.process_record_bytes_v3 = sizeof(nvmlProcessInfoCc_t);
    }
  }
  s.thermal_violation_field = v >= kFirstField269 ? NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN
                              : v >= kFirstField251 ? NVML_FI_DEV_SW_THERM_SLOWDOWN_575
                                                    : 0u;
  s.fabric_health_r570 = major >= 570;
  s.power_smoothing_profile_field = v >= kFirstField251 && v < kFirstField269;
  return "";
}

}  // namespace fake
