// precision.tensor_idle: on a tensor-core GPU (GPM reports its tensor pipes,
// so Hopper or later) the FP32 pipe is busy while the tensor pipes stay
// idle: the math runs in full FP32 instead of on the tensor cores. Mixed
// precision (BF16/FP16, or TF32 for FP32 matrix products) moves it there.
// Quiet without GPM.
#include <fmt/format.h>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace precision_tensor_idle_rule {

void AddActions(Finding& f) {
  f.actions.push_back(Action{
      Text{"Train with automatic mixed precision in BF16 (or FP16 with a gradient scaler): in "
           "PyTorch wrap the forward pass in torch.autocast(device_type=\"cuda\", "
           "dtype=torch.bfloat16).",
           "使用 BF16 自动混合精度训练（或 FP16 配合梯度缩放）：PyTorch 中把前向计算放在 "
           "`torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16)` 中。"},
      ""});
  f.actions.push_back(Action{
      Text{"Let FP32 matrix products use TF32 on the tensor cores: "
           "torch.set_float32_matmul_precision(\"high\") in PyTorch; TensorFlow uses TF32 by "
           "default, and mixed_precision.set_global_policy(\"mixed_bfloat16\") goes further.",
           "让 FP32 矩阵乘在 Tensor Core 上以 TF32 运行：PyTorch 中调用 "
           "`torch.set_float32_matmul_precision(\"high\")`；TensorFlow 默认使用 TF32，"
           "`mixed_precision.set_global_policy(\"mixed_bfloat16\")` 更进一步。"},
      ""});
  f.actions.push_back(Action{
      Text{"Keep matrix dimensions (hidden sizes, batch, sequence length) multiples of 8 (16 for "
           "FP8) so that the libraries choose tensor-core kernels.",
           "让矩阵维度（隐藏层大小、批大小、序列长度）为 8 的倍数（FP8 为 16），以便库选用 "
           "Tensor Core 的 kernel。"},
      ""});
  f.actions.push_back(Action{
      Text{"If the job needs full FP32 accuracy (some scientific codes do), this is expected.",
           "如果任务确实需要完整的 FP32 精度（部分科学计算如此），这属于正常现象。"},
      ""});
}

std::optional<bool> Fp32WithoutTensors(const GpuStatus& s) {
  if (!s.gpm_tensor_activity_percent || !s.gpm_fp32_activity_percent) return std::nullopt;
  return *s.gpm_fp32_activity_percent >= perf::kFp32BusyPercent &&
         *s.gpm_tensor_activity_percent < perf::kTensorIdlePercent;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    auto share = perf::ShareOfReadings(gpu, Fp32WithoutTensors);
    if (!share || *share < input.config.sustained_fraction) continue;
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} computes in FP32 while its tensor cores stay idle", label),
                   fmt::format("{} 在用 FP32 计算，而 Tensor Core 处于空闲", label)};
    f.explanation = Text{
        "GPM shows the FP32 pipe busy and the tensor pipes almost idle: the work runs as plain "
        "FP32 math on a GPU whose tensor cores do matrix math many times faster in BF16, FP16 or "
        "TF32. Mixed precision usually speeds training up severalfold and halves the memory "
        "activations take.",
        "GPM 显示 FP32 管线繁忙，而 Tensor 管线几乎空闲：计算以普通 FP32 运算进行，而这块 GPU 的 "
        "Tensor Core 以 BF16、FP16 或 TF32 做矩阵运算要快很多倍。混合精度通常能让训练提速数倍，"
        "并让激活值占用的显存减半。"};
    auto fp32 = Summarize(perf::RealSeries(gpu, &GpuStatus::gpm_fp32_activity_percent));
    auto tensor = Summarize(perf::RealSeries(gpu, &GpuStatus::gpm_tensor_activity_percent));
    f.evidence.push_back(perf::Measured(
        fmt::format("FP32 pipe (GPM) avg {} %, tensor pipes avg {} %, in {} % of the readings",
                    FormatNumber(fp32->avg), FormatNumber(tensor->avg),
                    FormatNumber(*share * 100, 0)),
        fmt::format("FP32 管线（GPM）平均 {} %，Tensor 管线平均 {} %，占读数的 {} %",
                    FormatNumber(fp32->avg), FormatNumber(tensor->avg),
                    FormatNumber(*share * 100, 0)),
        tensor->avg, "percent"));
    if (auto fp16 = Summarize(perf::RealSeries(gpu, &GpuStatus::gpm_fp16_activity_percent))) {
      f.evidence.push_back(perf::Measured(
          fmt::format("FP16 pipe (GPM) avg {} %", FormatNumber(fp16->avg)),
          fmt::format("FP16 管线（GPM）平均 {} %", FormatNumber(fp16->avg)), fp16->avg,
          "percent"));
    }
    AddActions(f);
  }
}

}  // namespace precision_tensor_idle_rule
}  // namespace

const Rule kTensorIdleRule{"precision.tensor_idle", "precision",
                           "FP32 pipe busy while the tensor pipes stay idle on a tensor-core GPU "
                           "(GPM): mixed precision would use them",
                           kNeedsGpuReadings, precision_tensor_idle_rule::Evaluate};

}  // namespace gpudoctor
