// gpu.implausible_reading: the driver handed back a reading no GPU can have
// (a temperature of 255 °C or 0 °C, a draw far above every power limit, more
// memory used than the board has). The NVML reader drops such values as
// field errors ending in "implausible reading ..." so that no other rule
// judges them; this rule says so, since a sensor or driver fault is worth
// knowing about in itself.
#include <fmt/format.h>

#include <map>
#include <string_view>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace gpu_implausible_reading_rule {

// The marker src/nvml/gpu_reader.cpp puts in such a field error.
constexpr std::string_view kImplausibleMarker = "implausible reading";

struct DroppedField {
  std::size_t readings = 0;
  std::string latest_error;
};

std::map<std::string, DroppedField> DroppedFields(const GpuSeries& gpu) {
  std::map<std::string, DroppedField> out;
  for (const GpuStatus& s : gpu.readings) {
    for (const auto& [field, error] : s.field_errors) {
      if (error.find(kImplausibleMarker) == std::string::npos) continue;
      DroppedField& d = out[field];
      ++d.readings;
      d.latest_error = error;
    }
  }
  return out;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const auto dropped = DroppedFields(gpu);
    if (dropped.empty()) continue;
    std::string fields;
    for (const auto& [field, d] : dropped) fields += (fields.empty() ? "" : ", ") + field;
    const std::string label = GpuLabel(gpu.latest());
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.key);
    f.title = Text{fmt::format("{} reports impossible readings ({}): sensor or driver fault, "
                               "ignored",
                               label, fields),
                   fmt::format("{} 报告了不可能的读数（`{}`）：传感器或驱动故障，已忽略", label,
                               fields)};
    f.explanation = Text{
        "The driver returned values no GPU can have, such as a temperature of 255 °C or 0 °C, a "
        "power draw far above every power limit, or more memory used than the board has. "
        "gpudoctor ignored them, so the rules about that quantity judged this GPU without them. "
        "A sensor that reads nonsense can also hide a real problem: the driver's own thermal or "
        "power protection relies on it. Once is a glitch worth watching; if it persists, the "
        "sensor, the board or the driver is at fault.",
        "驱动返回了 GPU 不可能出现的数值，例如 255 °C 或 0 °C 的温度、远超所有功率上限的功耗、"
        "或超过显存总量的已用显存。gpudoctor 已忽略这些数值，因此相关规则在判断该 GPU 时没有使用它们。"
        "读数错误的传感器还可能掩盖真实问题：驱动自身的温度和功率保护依赖这些传感器。"
        "偶尔一次可能只是瞬时故障，值得关注；如果持续出现，则是传感器、板卡或驱动有故障。"};
    for (const auto& [field, d] : dropped) {
      f.evidence.push_back(Measured(
          Text{fmt::format("{} in {} of {} readings: {}", field, d.readings, gpu.readings.size(),
                           d.latest_error),
               fmt::format("`{}` 在 {} 次读数中有 {} 次异常：`{}`", field, gpu.readings.size(),
                           d.readings, d.latest_error)},
          static_cast<double>(d.readings), "count"));
    }
    const unsigned index = gpu.latest().index;
    f.actions.push_back(Action{
        Text{"Read the same values again with nvidia-smi and compare them with the other GPUs.",
             "用 `nvidia-smi` 再次读取这些数值，并与其他 GPU 比较。"},
        fmt::format("nvidia-smi -q -i {} -d TEMPERATURE,POWER,MEMORY", index)});
    f.actions.push_back(ResetGpuAction(gpu.latest()));
    f.actions.push_back(RebootAction());
    f.actions.push_back(ReplaceGpuAction());
  }
}

}  // namespace gpu_implausible_reading_rule
}  // namespace

const Rule kGpuImplausibleReadingRule{
    "gpu.implausible_reading", "gpu",
    "Readings no GPU can have (sensor or driver fault), which the other rules ignore",
    kNeedsGpuReadings, gpu_implausible_reading_rule::Evaluate};

}  // namespace gpudoctor
