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
    {NVML_GPM_METRIC_GRAPHICS_UTIL, &GpuStatus::gpm_graphics_activity_percent},
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

// A request for every metric gpudoctor shows, between two samples.
// Allocated per read: about 13 KiB, too much for a worker's stack.
std::unique_ptr<nvmlGpmMetricsGet_t> MetricsRequest(nvmlGpmSample_t first, nvmlGpmSample_t second) {
  auto got = std::make_unique<nvmlGpmMetricsGet_t>();
  got->version = NVML_GPM_METRICS_GET_VERSION;
  got->sample1 = first;
  got->sample2 = second;
  unsigned k = 0;
  for (const GpmPercent& m : kPercentMetrics) got->metrics[k++].metricId = m.id;
  for (const GpmRate& m : kRateMetrics) got->metrics[k++].metricId = m.id;
  got->numMetrics = k;
  return got;
}

// The end of one interval of a sample pair (GpmState's own, or a MIG GPU
// instance's): waits out kGpmMinInterval since the previous sample, takes
// the next into the other slot with take(slot), and returns the metrics
// request between the two; null (and no previous sample) when take failed.
template <typename Pair, typename Take>
std::unique_ptr<nvmlGpmMetricsGet_t> NextInterval(Pair& pair, Take take) {
  const auto ready = pair.previous_at + kGpmMinInterval;
  if (const auto now = std::chrono::steady_clock::now(); now < ready) {
    std::this_thread::sleep_for(ready - now);
  }
  const int slot = 1 - pair.previous;
  if (!take(slot)) {
    pair.previous = -1;
    return nullptr;
  }
  auto got = MetricsRequest(pair.samples[pair.previous], pair.samples[slot]);
  pair.previous = slot;
  pair.previous_at = std::chrono::steady_clock::now();
  return got;
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
  auto got = NextInterval(state, [&](int slot) { return TakeSample(r, dev, state, slot); });
  if (!got) return;
  if (!r.Get("nvmlGpmMetricsGet", kGpmField, r.fn().nvmlGpmMetricsGet, got.get())) return;
  ApplyMetrics(*got, g);
}

void FinishMigGpm(Reader& r, nvmlDevice_t dev, GpmState& state, GpuStatus& g) {
  const auto& f = r.fn();
  if (state.support != GpmState::Support::kYes || g.mig_devices.empty() ||
      f.nvmlGpmMigSampleGet == nullptr || r.stopped()) {
    return;
  }
  auto take = [&](unsigned gi, MigGpmSamples& s, int slot) {
    return r.Get("nvmlGpmMigSampleGet", "mig_devices", f.nvmlGpmMigSampleGet, dev, gi,
                 s.samples[slot]);
  };
  // Samples for the GPU instances that have none yet.
  std::vector<unsigned> instances;
  for (const MigDeviceStatus& m : g.mig_devices) {
    if (std::find(instances.begin(), instances.end(), m.gpu_instance_id) != instances.end()) {
      continue;
    }
    instances.push_back(m.gpu_instance_id);
    MigGpmSamples& s = state.mig[m.gpu_instance_id];
    for (nvmlGpmSample_t& sample : s.samples) {
      if (sample == nullptr && !r.Get("nvmlGpmSampleAlloc", "mig_devices", f.nvmlGpmSampleAlloc,
                                      &sample)) {
        sample = nullptr;
      }
    }
    if (s.previous < 0 && s.samples[0] != nullptr && s.samples[1] != nullptr &&
        take(m.gpu_instance_id, s, 0)) {
      s.previous = 0;
      s.previous_at = std::chrono::steady_clock::now();
    }
  }
  for (unsigned gi : instances) {
    MigGpmSamples& s = state.mig[gi];
    if (s.previous < 0 || r.stopped()) continue;
    auto got = NextInterval(s, [&](int slot) { return take(gi, s, slot); });
    if (!got) continue;
    if (!r.Get("nvmlGpmMetricsGet", "mig_devices", f.nvmlGpmMetricsGet, got.get())) continue;
    for (MigDeviceStatus& m : g.mig_devices) {
      if (m.gpu_instance_id != gi) continue;
      m.status.gpm_supported = true;
      ApplyMetrics(*got, m.status);
    }
  }
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
  auto free_all = [&](nvmlGpmSample_t (&samples)[2]) {
    for (nvmlGpmSample_t& sample : samples) {
      if (sample != nullptr && fn.nvmlGpmSampleFree != nullptr) fn.nvmlGpmSampleFree(sample);
      sample = nullptr;
    }
  };
  free_all(state.samples);
  state.previous = -1;
  for (auto& [gi, mig] : state.mig) free_all(mig.samples);
  state.mig.clear();
}

}  // namespace gpudoctor
