// Driver profiles: what each driver generation from R450 to R610 exports and
// answers, as far as gpudoctor's calls go. Sources: the first go-nvml copy of
// nvml.h that declares each symbol (shared/facts/nvml-facts.md 1.1; 11.0 =
// R450, 11.1 = R455, 11.6 = R510, 11.7 = R515, 12.2 = R535, 12.8 = R570,
// 12.9 = R575), the 32-byte _v3 process records of 535.43.02, 535.54.03 and
// 535.86.05, and the CUDA version each branch supports.
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

// Field 269 (NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN) is new in
// the 12.9 header.
constexpr int kThermalViolationFieldBranch = 575;

// major.minor of the drivers whose _v3 process records are 32 bytes.
constexpr std::array<std::pair<int, int>, 3> kCcProcessRecordDrivers = {{
    {535, 43}, {535, 54}, {535, 86}}};

#define FAKE_NVML_FUNCTION_NAME(name, params) #name,
constexpr const char* kNvmlFunctionNames[] = {NVML_FUNCTIONS(FAKE_NVML_FUNCTION_NAME)};
#undef FAKE_NVML_FUNCTION_NAME

}  // namespace

const std::vector<ProfileSymbol>& ProfileSymbols() {
  static const std::vector<ProfileSymbol> symbols = {
      {"nvmlDeviceGetComputeRunningProcesses_v2", 455},
      {"nvmlDeviceGetComputeRunningProcesses_v3", 510},
      {"nvmlDeviceGetMemoryInfo_v2", 510},
      {"nvmlDeviceGetGspFirmwareMode", 515},
      {"nvmlDeviceGetGspFirmwareVersion", 515},
      {"nvmlDeviceGetCurrentClocksEventReasons", 535},
      {"nvmlDeviceGetTemperatureV", 570},
      // GPM: the 11.8 header (R520); MIG samples from the 12.0 header (R525).
      {"nvmlGpmQueryDeviceSupport", 520},
      {"nvmlGpmSampleAlloc", 520},
      {"nvmlGpmSampleFree", 520},
      {"nvmlGpmSampleGet", 520},
      {"nvmlGpmMetricsGet", 520},
      {"nvmlGpmMigSampleGet", 525},
      {"nvmlDeviceGetProcessesUtilizationInfo", 550},
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
  for (const ProfileSymbol& symbol : ProfileSymbols()) {
    if (branch->branch < symbol.first_branch) {
      s.function_errors[symbol.name] = NVML_ERROR_FUNCTION_NOT_FOUND;
    }
  }
  s.process_record_bytes_v3 = sizeof(nvmlProcessInfo_t);
  for (const auto& [cc_major, cc_minor] : kCcProcessRecordDrivers) {
    if (major == cc_major && minor == cc_minor) {
      s.process_record_bytes_v3 = sizeof(nvmlProcessInfoCc_t);
    }
  }
  s.thermal_violation_field = branch->branch >= kThermalViolationFieldBranch;
  return "";
}

}  // namespace fake
