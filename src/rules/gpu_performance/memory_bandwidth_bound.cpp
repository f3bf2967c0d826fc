// memory.bandwidth_bound: GPM's DRAM bandwidth near saturation for most of
// the window: the kernels wait on memory, not on the SMs. Information: it is
// how many workloads (LLM decoding, element-wise layers) run, and faster
// clocks or more SMs would not help. Quiet without GPM.
#include <fmt/format.h>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace memory_bandwidth_bound_rule {

void AddActions(Finding& f) {
  const std::pair<const char*, const char*> steps[] = {
      {"Fuse element-wise operations so that data is read once (torch.compile, fused "
       "optimisers such as torch.optim.AdamW(fused=True), FlashAttention).",
       "融合逐元素运算，让数据只读取一次（`torch.compile`、融合优化器如 "
       "`torch.optim.AdamW(fused=True)`、FlashAttention）。"},
      {"Move fewer bytes: BF16/FP16 (or FP8) activations and weights halve the traffic.",
       "减少搬运的数据量：BF16/FP16（或 FP8）的激活值和权重可使流量减半。"},
      {"For inference, larger batches reuse each weight read for more requests.",
       "推理时增大批大小，让每次读取的权重服务更多请求。"},
  };
  for (const auto& [en, zh] : steps) f.actions.push_back(Action{Text{en, zh}, ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    auto dram = perf::RealSeries(gpu, &GpuStatus::gpm_dram_bandwidth_percent);
    if (!SustainedAtOrAbove(dram, perf::kDramSaturatedPercent, input.config.sustained_fraction)) {
      continue;
    }
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(Severity::kInfo);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} is limited by memory bandwidth", label),
                   fmt::format("{} 受限于显存带宽", label)};
    f.explanation = Text{
        "GPM shows the GPU's DRAM bandwidth near its peak for most of the window: the kernels "
        "spend their time waiting for memory, not computing. Higher clocks or more SMs would not "
        "make them faster; moving fewer bytes would.",
        "GPM 显示在窗口内大部分时间里显存带宽接近峰值：kernel 的时间花在等待显存上，而不是计算上。"
        "提高频率或增加 SM 不会让它们更快；减少搬运的数据量才会。"};
    auto stats = Summarize(dram);
    f.evidence.push_back(perf::Measured(
        fmt::format("DRAM bandwidth (GPM) avg {} %, max {} % of the peak over {} readings",
                    FormatNumber(stats->avg), FormatNumber(stats->max), stats->count),
        fmt::format("{} 次读数中显存带宽（GPM）平均为峰值的 {} %，最高 {} %", stats->count,
                    FormatNumber(stats->avg), FormatNumber(stats->max)),
        stats->avg, "percent"));
    if (auto sm = Summarize(perf::RealSeries(gpu, &GpuStatus::gpm_sm_activity_percent))) {
      f.evidence.push_back(perf::Measured(
          fmt::format("SM activity (GPM) avg {} %", FormatNumber(sm->avg)),
          fmt::format("SM 活跃度（GPM）平均 {} %", FormatNumber(sm->avg)), sm->avg, "percent"));
    }
    AddActions(f);
  }
}

}  // namespace memory_bandwidth_bound_rule
}  // namespace

const Rule kMemoryBandwidthBoundRule{"memory.bandwidth_bound", "memory",
                                     "DRAM bandwidth near saturation (GPM), as information",
                                     kNeedsGpuReadings, memory_bandwidth_bound_rule::Evaluate};

}  // namespace gpudoctor
