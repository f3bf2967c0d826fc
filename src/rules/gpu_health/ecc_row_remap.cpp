// ecc.row_remap: row remapping (Ampere and later), which replaced page
// retirement. A remap is recorded when a memory row fails and becomes active
// at the next GPU reset (pending); a remap failure means a bank ran out of
// spare rows, which NVIDIA treats as a reason to replace the GPU. Rows already
// remapped after uncorrectable errors are evidence of past damage.
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace ecc_row_remap_rule {

void Describe(Finding& f, const GpuStatus& g, bool failure, bool pending) {
  std::string label = GpuLabel(g);
  if (failure) {
    f.title = Text{fmt::format("{} failed to remap a bad memory row: replace the GPU", label),
                   fmt::format("{} 显存坏行重映射失败：需要更换 GPU", label)};
  } else if (pending) {
    f.title = Text{fmt::format("{} has a memory row remap waiting for a GPU reset", label),
                   fmt::format("{} 有待 GPU 重置后生效的显存行重映射", label)};
  } else {
    f.title = Text{fmt::format("{} has memory rows remapped after uncorrectable errors", label),
                   fmt::format("{} 有因不可纠正错误而被重映射的显存行", label)};
  }
  f.explanation = Text{
      "When a row of GPU memory produces errors, the GPU maps it to a spare row. The new mapping "
      "is used only after the GPU is reset; until then the bad row stays in use and can corrupt "
      "data again. When no spare row is left the remap fails, and NVIDIA's guidance is to "
      "replace the GPU (RMA).",
      "当 GPU 显存的某一行出错时，GPU 会将其映射到备用行。新的映射只有在 GPU 重置后才生效；"
      "在此之前坏行仍在使用，可能再次损坏数据。备用行耗尽时重映射会失败，NVIDIA 建议更换该 GPU（RMA）。"};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    bool failure = g.remapped_rows_failure.value_or(false);
    bool pending = g.remapped_rows_pending.value_or(false);
    std::int64_t uncorrectable = g.remapped_rows_uncorrected.value_or(0);
    if (!failure && !pending && uncorrectable <= 0) continue;
    Severity severity = failure ? Severity::kCritical : pending ? Severity::kWarning : Severity::kInfo;
    Finding& f = out.Add(severity);
    f.gpus.push_back(gpu.key);
    Describe(f, g, failure, pending);
    f.evidence.push_back(Measured(
        Text{fmt::format("remapped rows: {} after uncorrectable errors, {} after correctable ones; "
                         "pending {}, failure {}",
                         uncorrectable, g.remapped_rows_corrected.value_or(0), pending ? "yes" : "no",
                         failure ? "yes" : "no"),
             fmt::format("已重映射的行：不可纠正错误 {} 行，可纠正错误 {} 行；{}，{}", uncorrectable,
                         g.remapped_rows_corrected.value_or(0), pending ? "有待生效的重映射" : "无待生效的重映射",
                         failure ? "曾发生重映射失败" : "未发生重映射失败")},
        static_cast<double>(uncorrectable), "count"));
    if (pending) {
      f.actions.push_back(ResetGpuAction(g));
      f.actions.push_back(RebootAction());
    }
    if (failure) {
      f.actions.push_back(ReplaceGpuAction());
    }
    f.actions.push_back(Action{
        Text{"Check the remap state and the spare rows left per bank (the histogram).",
             "查看重映射状态及各存储体剩余的备用行（直方图）。"},
        fmt::format("nvidia-smi -q -i {} -d ROW_REMAPPER", g.index)});
  }
}

}  // namespace ecc_row_remap_rule
}  // namespace

const Rule kEccRowRemapRule{"ecc.row_remap", "ecc",
                            "Memory row remap pending a GPU reset, or failed (RMA)",
                            kNeedsGpuReadings, ecc_row_remap_rule::Evaluate};

}  // namespace gpudoctor
