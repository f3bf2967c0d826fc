// stress.hbm_below_peak: the copy kernel's device-memory bandwidth below
// 60 % of the model's published peak (knowledge/hbm_peaks.h). A plain copy
// kernel reaches about 80-90 % of the peak on HBM GPUs; well below that, the
// memory clock is held down or the GPU is degraded.
#include <fmt/format.h>

#include "knowledge/hbm_peaks.h"
#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_hbm_below_peak_rule {

constexpr double kMinShareOfPeak = kHbmFlagBelowShare;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    if (!gpu.hbm_gbps || !gpu.hbm_peak_gbps || *gpu.hbm_peak_gbps <= 0) continue;
    double share = *gpu.hbm_gbps / *gpu.hbm_peak_gbps;
    if (share >= kMinShareOfPeak) continue;
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    std::string label = active::Label(gpu);
    std::string pct = FormatNumber(100 * share, 0);
    f.title = Text{fmt::format("{}: memory copy bandwidth only {} % of the published peak", label, pct),
                   fmt::format("{}：显存拷贝带宽仅为官方峰值的 {} %", label, pct)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("copy kernel {} against a published peak of {} ({})", active::Bandwidth(*gpu.hbm_gbps),
                         active::Bandwidth(*gpu.hbm_peak_gbps), gpu.hbm_peak_source),
             fmt::format("拷贝内核 {}，官方峰值 {}（{}）", active::Bandwidth(*gpu.hbm_gbps),
                         active::Bandwidth(*gpu.hbm_peak_gbps), gpu.hbm_peak_source)},
        *gpu.hbm_gbps, "GB/s"));
    f.explanation = Text{
        "A copy kernel reads and writes device memory as fast as it goes, which on HBM GPUs is about "
        "80-90 % of the published peak. Far below that, the memory clock is held down (power or "
        "thermal limits, applications clocks) or the memory is degraded.",
        "拷贝内核以最快速度读写显存，在 HBM GPU 上通常可达官方峰值的 80-90 %。远低于此说明显存频率被压低"
        "（功耗或温度限制、应用时钟设置）或显存性能退化。"};
    f.actions.push_back(Action{
        Text{"Check the memory clock against its maximum, and the clock event reasons.",
             "检查显存频率是否达到最大值，以及降频原因。"},
        fmt::format("nvidia-smi -i {} -q -d CLOCK,PERFORMANCE", gpu.index)});
    f.actions.push_back(Action{
        Text{"Compare with the node's other GPUs of the same model; one GPU alone slow points to it.",
             "与同节点同型号的其他 GPU 对比；仅该 GPU 偏慢则问题在它本身。"},
        "sudo gpudoctor stress --tests hbm"});
  }
}

}  // namespace stress_hbm_below_peak_rule
}  // namespace

const Rule kStressHbmBelowPeakRule{
    "stress.hbm_below_peak", "memory",
    "HBM copy bandwidth under gpudoctor stress below 60 % of the model's published peak", kNeedsActive,
    stress_hbm_below_peak_rule::Evaluate};

}  // namespace gpudoctor
