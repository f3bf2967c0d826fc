#include "rules/gpu_health/gpu_health_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace gpudoctor {

std::optional<double> AsDouble(const std::optional<std::int64_t>& value) {
  if (!value) return std::nullopt;
  return static_cast<double>(*value);
}

std::optional<CounterGrowth> GrowthOf(const GpuSeries& gpu, const GpuGetter& get) {
  CounterGrowth growth;
  std::size_t seen = 0;
  std::optional<WallTime> first_time;
  std::optional<WallTime> last_time;
  for (std::size_t i = 0; i < gpu.readings.size(); ++i) {
    std::optional<double> value = get(gpu.readings[i]);
    if (!value) continue;
    if (seen == 0) {
      growth.first = *value;
    } else {
      // A drop is a reset: what the counter shows now accrued since then.
      growth.increase += *value >= growth.last ? *value - growth.last : *value;
    }
    growth.last = *value;
    ++seen;
    std::optional<WallTime> time = i < gpu.times.size() ? gpu.times[i] : std::nullopt;
    if (time && !first_time) first_time = time;
    if (time) last_time = time;
  }
  if (seen < 2) return std::nullopt;
  if (first_time && last_time && *last_time > *first_time) {
    growth.seconds = std::chrono::duration<double>(*last_time - *first_time).count();
  }
  return growth;
}

double PerMinute(const CounterGrowth& growth) {
  return growth.increase * 60.0 / std::max(growth.seconds, 60.0);
}

bool SustainedBusy(const GpuSeries& gpu, const DiagnosisInput& input) {
  auto util = ValuesOf(gpu, [](const GpuStatus& s) { return AsDouble(s.utilization_gpu_percent); });
  return SustainedAtOrAbove(util, input.config.thresholds.utilization_normal_min_percent,
                            input.config.sustained_fraction);
}

bool NvSwitchSystem(const DiagnosisInput& input) {
  if (input.versions && input.versions->fabric_manager.nvswitch_present) return true;
  return input.pci && !input.pci->nvswitches.empty();
}

EvidenceItem Measured(Text text, double value, std::string unit) {
  return EvidenceItem{std::move(text), value, std::move(unit), std::nullopt, std::nullopt};
}

Action ResetGpuAction(const GpuStatus& gpu) {
  return Action{
      Text{fmt::format("Stop every process on GPU {} (check with `nvidia-smi`), then reset it.",
                       gpu.index),
           fmt::format("停止 GPU {} 上的所有进程（用 `nvidia-smi` 确认），然后重置该 GPU。", gpu.index)},
      fmt::format("sudo nvidia-smi -r -i {}", gpu.index)};
}

Action RebootAction() {
  return Action{Text{"If the reset fails or cannot be done, reboot the node.",
                     "如果重置失败或无法重置，请重启节点。"},
                "sudo reboot"};
}

Action ReplaceGpuAction() {
  return Action{Text{"Take the GPU out of service and return it for replacement (RMA), or ask the "
                     "cloud provider to replace the host.",
                     "停用该 GPU 并返修更换（RMA），或请云厂商更换宿主机。"},
                ""};
}

}  // namespace gpudoctor
