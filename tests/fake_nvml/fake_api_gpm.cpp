// GPM: support, samples and metrics. A GPU supports GPM when its
// "gpm_supported" key is true and it is Hopper or later (by name; the
// default "Fake GPU" counts as one); a sample records the GPU and its gpm_*
// values at the sample's time, and nvmlGpmMetricsGet serves the second
// sample's values, refusing two samples of different GPUs or taken less than
// 100 ms apart (nvml.h: the driver's counters refresh no faster).
#include <array>
#include <set>
#include <string>

#include "fake_state.h"

struct nvmlGpmSample_st {
  int gpu = -1;  // -1 until nvmlGpmSampleGet filled it
  int gpu_instance = -1;  // the MIG GPU instance of nvmlGpmMigSampleGet; -1: the whole GPU
  double steady_s = 0;
  gpudoctor::GpuStatus values;
};

namespace {
namespace fake_gpm {

using gpudoctor::GpuStatus;

// Samples handed out and not yet freed (the state lock guards it).
std::set<nvmlGpmSample_t>& LiveSamples() {
  static auto* samples = new std::set<nvmlGpmSample_t>;  // never destroyed
  return *samples;
}

bool HopperOrLater(const std::string& name) {
  if (name == "Fake GPU") return true;
  for (const char* family : {"H100", "H200", "H800", "H20", "GH200", "B100", "B200", "GB200",
                             "B300", "GB300"}) {
    if (name.find(family) != std::string::npos) return true;
  }
  return false;
}

bool Supports(const GpuStatus& g) { return g.gpm_supported.value_or(false) && HopperOrLater(g.name); }

struct PercentMetric {
  unsigned id;
  std::optional<double> GpuStatus::*member;
  const char* name;
};
struct RateMetric {
  unsigned id;
  std::optional<std::int64_t> GpuStatus::*member;
  const char* name;
};

const std::array<PercentMetric, 9> kPercent = {{
    {NVML_GPM_METRIC_SM_UTIL, &GpuStatus::gpm_sm_activity_percent, "SM_UTIL"},
    {NVML_GPM_METRIC_SM_OCCUPANCY, &GpuStatus::gpm_sm_occupancy_percent, "SM_OCCUPANCY"},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, &GpuStatus::gpm_tensor_activity_percent, "ANY_TENSOR_UTIL"},
    {NVML_GPM_METRIC_FP64_UTIL, &GpuStatus::gpm_fp64_activity_percent, "FP64_UTIL"},
    {NVML_GPM_METRIC_FP32_UTIL, &GpuStatus::gpm_fp32_activity_percent, "FP32_UTIL"},
    {NVML_GPM_METRIC_FP16_UTIL, &GpuStatus::gpm_fp16_activity_percent, "FP16_UTIL"},
    {NVML_GPM_METRIC_INTEGER_UTIL, &GpuStatus::gpm_integer_activity_percent, "INTEGER_UTIL"},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, &GpuStatus::gpm_dram_bandwidth_percent, "DRAM_BW_UTIL"},
    {NVML_GPM_METRIC_GRAPHICS_UTIL, &GpuStatus::gpm_graphics_activity_percent, "GRAPHICS_UTIL"},
}};
const std::array<RateMetric, 4> kRates = {{
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, &GpuStatus::gpm_pcie_tx_bytes_per_s, "PCIE_TX_PER_SEC"},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, &GpuStatus::gpm_pcie_rx_bytes_per_s, "PCIE_RX_PER_SEC"},
    {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, &GpuStatus::gpm_nvlink_tx_bytes_per_s,
     "NVLINK_TOTAL_TX_PER_SEC"},
    {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, &GpuStatus::gpm_nvlink_rx_bytes_per_s,
     "NVLINK_TOTAL_RX_PER_SEC"},
}};

char* Static(const char* text) { return const_cast<char*>(text); }

void Serve(const GpuStatus& g, nvmlGpmMetric_t& m) {
  m.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  m.value = 0;
  m.metricInfo = {nullptr, nullptr, nullptr};
  for (const PercentMetric& p : kPercent) {
    if (p.id != m.metricId) continue;
    m.metricInfo = {Static(p.name), Static(p.name), Static("%")};
    if (const auto& v = g.*p.member) {
      m.value = *v;
      m.nvmlReturn = NVML_SUCCESS;
    }
    return;
  }
  for (const RateMetric& r : kRates) {
    if (r.id != m.metricId) continue;
    m.metricInfo = {Static(r.name), Static(r.name), Static("MiB/sec")};
    if (const auto& v = g.*r.member) {
      m.value = static_cast<double>(*v) / (1024.0 * 1024.0);
      m.nvmlReturn = NVML_SUCCESS;
    }
    return;
  }
}

// The GPM fields a GPU's faults may name.
constexpr std::string_view kFaultField = "gpm_supported";

// Init and the function's own answer, for the calls that take no device.
nvmlReturn_t EnterLibrary(std::string_view function) {
  if (fake::TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  return fake::FunctionAnswerLocked(function);
}

}  // namespace fake_gpm
}  // namespace

extern "C" {

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t* gpmSupport) {
  return fake::WithGpu(__func__, device, {fake_gpm::kFaultField},
                       [&](const fake::GpuCall& c) -> nvmlReturn_t {
                         if (gpmSupport == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                         if (gpmSupport->version != NVML_GPM_SUPPORT_VERSION) {
                           return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
                         }
                         gpmSupport->isSupportedDevice = fake_gpm::Supports(c.now) ? 1 : 0;
                         return NVML_SUCCESS;
                       });
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* gpmSample) {
  std::lock_guard<std::mutex> lock(fake::TheState().mu);
  if (nvmlReturn_t rc = fake_gpm::EnterLibrary(__func__); rc != NVML_SUCCESS) return rc;
  if (gpmSample == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *gpmSample = new nvmlGpmSample_st;
  fake_gpm::LiveSamples().insert(*gpmSample);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample) {
  std::lock_guard<std::mutex> lock(fake::TheState().mu);
  if (nvmlReturn_t rc = fake_gpm::EnterLibrary(__func__); rc != NVML_SUCCESS) return rc;
  if (fake_gpm::LiveSamples().erase(gpmSample) == 0) return NVML_ERROR_INVALID_ARGUMENT;
  delete gpmSample;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample) {
  return fake::WithGpu(__func__, device, {fake_gpm::kFaultField},
                       [&](const fake::GpuCall& c) -> nvmlReturn_t {
                         if (fake_gpm::LiveSamples().count(gpmSample) == 0) {
                           return NVML_ERROR_INVALID_ARGUMENT;
                         }
                         if (!fake_gpm::Supports(c.now)) return NVML_ERROR_NOT_SUPPORTED;
                         gpmSample->gpu = static_cast<int>(c.index);
                         gpmSample->gpu_instance = -1;
                         gpmSample->steady_s = fake::SteadySeconds();
                         gpmSample->values = c.now;
                         return NVML_SUCCESS;
                       });
}

// A GPU instance's sample holds the gpm_* values of its first MIG device in
// the scenario ("mig_devices" of the GPU; MIG mode must be on).
nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId,
                                 nvmlGpmSample_t gpmSample) {
  return fake::WithGpu(__func__, device, {fake_gpm::kFaultField},
                       [&](const fake::GpuCall& c) -> nvmlReturn_t {
                         if (fake_gpm::LiveSamples().count(gpmSample) == 0) {
                           return NVML_ERROR_INVALID_ARGUMENT;
                         }
                         if (!fake_gpm::Supports(c.now)) return NVML_ERROR_NOT_SUPPORTED;
                         if (!c.now.mig_mode_enabled.value_or(false)) {
                           return NVML_ERROR_NOT_SUPPORTED;
                         }
                         for (const auto& mig : c.now.mig_devices) {
                           if (mig.gpu_instance_id != gpuInstanceId) continue;
                           gpmSample->gpu = static_cast<int>(c.index);
                           gpmSample->gpu_instance = static_cast<int>(gpuInstanceId);
                           gpmSample->steady_s = fake::SteadySeconds();
                           gpmSample->values = mig.status;
                           return NVML_SUCCESS;
                         }
                         return NVML_ERROR_INVALID_ARGUMENT;  // no such GPU instance
                       });
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* metricsGet) {
  std::lock_guard<std::mutex> lock(fake::TheState().mu);
  if (nvmlReturn_t rc = fake_gpm::EnterLibrary(__func__); rc != NVML_SUCCESS) return rc;
  if (metricsGet == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (metricsGet->version != NVML_GPM_METRICS_GET_VERSION) {
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  }
  // 98 is NVML_GPM_METRIC_MAX of the oldest GPM header (11.8).
  if (metricsGet->numMetrics == 0 || metricsGet->numMetrics > 98) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  auto& live = fake_gpm::LiveSamples();
  nvmlGpmSample_t first = metricsGet->sample1;
  nvmlGpmSample_t second = metricsGet->sample2;
  if (live.count(first) == 0 || live.count(second) == 0 || first->gpu < 0 ||
      first->gpu != second->gpu || first->gpu_instance != second->gpu_instance ||
      second->steady_s - first->steady_s < 0.1) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  for (unsigned i = 0; i < metricsGet->numMetrics; ++i) {
    fake_gpm::Serve(second->values, metricsGet->metrics[i]);
  }
  return NVML_SUCCESS;
}

}  // extern "C"
