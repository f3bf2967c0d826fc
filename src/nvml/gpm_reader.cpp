#include "nvml/gpm_reader.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

#include "nvml/field_reader.h"

namespace gpudoctor {
namespace nvml_detail {
namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

using PercentMember = std::optional<double> GpuStatus::*;
using RateMember = std::optional<std::int64_t> GpuStatus::*;

struct GpmPercent {
  unsigned id;
  PercentMember member;
};
struct GpmRate {
  unsigned id;
  RateMember member;
};

constexpr GpmPercent kPercentMetrics[] = {
    {NVML_GPM_METRIC_SM_UTIL, &GpuStatus::gpm_sm_activity_percent},
    {NVML_GPM_METRIC_SM_OCCUPANCY, &GpuStatus::gpm_sm_occupancy_percent},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, &GpuStatus::gpm_tensor_activity_percent},
    {NVML_GPM_METRIC_FP64_UTIL, &GpuStatus::gpm_fp64_activity_percent},
    {NVML_GPM_METRIC_FP32_UTIL, &GpuStatus::gpm_fp32_activity_percent},
    {NVML_GPM_METRIC_FP16_UTIL, &GpuStatus::gpm_fp16_activity_percent},
    {NVML_GPM_METRIC_INTEGER_UTIL, &GpuStatus::gpm_integer_activity_percent},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, &GpuStatus::gpm_dram_bandwidth_percent},
};
// MiB per second in NVML; bytes per second here.
constexpr GpmRate kRateMetrics[] = {
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, &GpuStatus::gpm_pcie_tx_bytes_per_s},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, &GpuStatus::gpm_pcie_rx_bytes_per_s},
    {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, &GpuStatus::gpm_nvlink_tx_bytes_per_s},
    {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, &GpuStatus::gpm_nvlink_rx_bytes_per_s},
};

constexpr const char* kGpmField = "gpm_sm_activity_percent";

void QuerySupport(Reader& r, nvmlDevice_t dev, GpmState& state) {
  const auto& f = r.fn();
  nvmlGpmSupport_t support{};
  support.version = NVML_GPM_SUPPORT_VERSION;
  const nvmlReturn_t rc =
      r.Call("nvmlGpmQueryDeviceSupport", f.nvmlGpmQueryDeviceSupport, dev, &support);
  if (rc == Reader::kStoppedAnswer && r.stopped()) return;  // ask again next time
  state.support = GpmState::Support::kNo;
  if (rc != NVML_SUCCESS) {
    // FUNCTION_NOT_FOUND before R520; anything else but "not supported" is
    // said once, on the field.
    r.Check(rc, "nvmlGpmQueryDeviceSupport", "gpm_supported");
    return;
  }
  state.device_supported = support.isSupportedDevice != 0;
  if (!*state.device_supported || f.nvmlGpmSampleAlloc == nullptr ||
      f.nvmlGpmSampleGet == nullptr || f.nvmlGpmMetricsGet == nullptr) {
    return;
  }
  for (nvmlGpmSample_t& sample : state.samples) {
    if (sample != nullptr) continue;
    if (!r.Get("nvmlGpmSampleAlloc", kGpmField, f.nvmlGpmSampleAlloc, &sample)) {
      sample = nullptr;
      return;  // FreeGpm frees what was allocated
    }
  }
  state.support = GpmState::Support::kYes;
}

// Takes a sample into samples[slot]; false (and no previous sample) when the
// driver refused.
bool TakeSample(Reader& r, nvmlDevice_t dev, GpmState& state, int slot) {
  const auto& f = r.fn();
  if (!r.Get("nvmlGpmSampleGet", kGpmField, f.nvmlGpmSampleGet, dev, state.samples[slot])) {
    state.previous = -1;
    return false;
  }
  return true;
}

void ApplyMetrics(const nvmlGpmMetricsGet_t& got, GpuStatus& g) {
  unsigned k = 0;
  for (const GpmPercent& m : kPercentMetrics) {
    const nvmlGpmMetric_t& metric = got.metrics[k++];
    if (metric.nvmlReturn != NVML_SUCCESS || !std::isfinite(metric.value)) continue;
    g.*m.member = std::clamp(metric.value, 0.0, 100.0);
  }
  for (const GpmRate& m : kRateMetrics) {
    const nvmlGpmMetric_t& metric = got.metrics[k++];
    if (metric.nvmlReturn != NVML_SUCCESS || !std::isfinite(metric.value) || metric.value < 0) {
      continue;
    }
    g.*m.member = static_cast<std::int64_t>(std::llround(metric.value * kBytesPerMiB));
  }
}

}  // namespace

void BeginGpm(Reader& r, nvmlDevice_t dev, GpmState& state, GpuStatus& g) {
  if (state.support == GpmState::Support::kUnknown) QuerySupport(r, dev, state);
  g.gpm_supported = state.device_supported;
  if (state.support != GpmState::Support::kYes || state.previous >= 0) return;
  if (TakeSample(r, dev, state, 0)) {
    state.previous = 0;
    state.previous_at = std::chrono::steady_clock::now();
  }
}

void FinishGpm(Reader& r, nvmlDevice_t dev, GpmState& state, GpuStatus& g) {
  if (state.support != GpmState::Support::kYes || state.previous < 0 || r.stopped()) return;
  const auto ready = state.previous_at + kGpmMinInterval;
  const auto now = std::chrono::steady_clock::now();
  if (now < ready) std::this_thread::sleep_for(ready - now);
  const int slot = 1 - state.previous;
  if (!TakeSample(r, dev, state, slot)) return;
  const auto taken = std::chrono::steady_clock::now();

  // Allocated per read: about 13 KiB, too much for a worker's stack.
  auto got = std::make_unique<nvmlGpmMetricsGet_t>();
  got->version = NVML_GPM_METRICS_GET_VERSION;
  got->sample1 = state.samples[state.previous];
  got->sample2 = state.samples[slot];
  unsigned k = 0;
  for (const GpmPercent& m : kPercentMetrics) got->metrics[k++].metricId = m.id;
  for (const GpmRate& m : kRateMetrics) got->metrics[k++].metricId = m.id;
  got->numMetrics = k;
  state.previous = slot;
  state.previous_at = taken;
  if (!r.Get("nvmlGpmMetricsGet", kGpmField, r.fn().nvmlGpmMetricsGet, got.get())) return;
  ApplyMetrics(*got, g);
}

}  // namespace nvml_detail

void PrimeGpm(const NvmlFunctions& fn, unsigned index, CallTracker& tracker, GpmState& state,
              GpuStatus& out) {
  out.index = index;
  if (fn.nvmlGpmQueryDeviceSupport == nullptr) {
    state.support = GpmState::Support::kNo;
    return;
  }
  nvmlDevice_t dev = nullptr;
  nvmlReturn_t rc = tracker.Call(
      "nvmlDeviceGetHandleByIndex_v2",
      [&] { return fn.nvmlDeviceGetHandleByIndex_v2(index, &dev); }, NVML_ERROR_TIMEOUT);
  if (rc != NVML_SUCCESS) return;  // the read after says why
  nvml_detail::Reader r(fn, tracker, out);
  nvml_detail::BeginGpm(r, dev, state, out);
}

void FreeGpm(const NvmlFunctions& fn, GpmState& state) {
  for (nvmlGpmSample_t& sample : state.samples) {
    if (sample != nullptr && fn.nvmlGpmSampleFree != nullptr) fn.nvmlGpmSampleFree(sample);
    sample = nullptr;
  }
  state.previous = -1;
}

}  // namespace gpudoctor
