// utilization.low: a GPU that holds work (a process, or its memory in use)
// yet stays below the "wasted" utilisation (< 30 %). The usual
// limit is the input pipeline or the CPU (row 5, judged by cpu.bottleneck);
// a GPU waiting on PCIe transfers is pcie.transfer_bound's and left to it.
#include <fmt/format.h>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace utilization_low_rule {

void AddActions(Finding& f) {
  f.actions.push_back(Action{
      Text{"Check data loading: more loader workers, pinned memory and prefetching (in PyTorch "
           "DataLoader: num_workers, pin_memory=True, prefetch_factor), data on fast local disk.",
           "检查数据加载：增加加载进程数、使用锁页内存并预取（PyTorch 的 DataLoader 中设置 "
           "`num_workers`、`pin_memory=True`、`prefetch_factor`），数据放在高速本地盘上。"},
      ""});
  f.actions.push_back(
      Action{Text{"Check whether the CPU is saturated (see the CPU findings of this report).",
                  "检查 CPU 是否已满载（参见本报告中与 CPU 有关的结论）。"},
             "top -o %CPU"});
  f.actions.push_back(Action{
      Text{"Check which processes hold the GPU: an idle notebook kernel or a finished job that "
           "did not exit wastes it.",
           "查看哪些进程占用着 GPU：空闲的 Jupyter 内核或已结束却未退出的任务都会浪费 GPU。"},
      "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"});
  f.actions.push_back(
      Action{Text{"If the pipeline keeps up, a larger batch gives the GPU more work per step.",
                  "如果数据管道跟得上，可增大批大小，让 GPU 每一步有更多计算。"},
             ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const Thresholds& t = input.config.thresholds;
  const double fraction = input.config.sustained_fraction;
  for (const GpuSeries& gpu : input.gpus) {
    auto held = perf::ShareOfReadings(
        gpu, [](const GpuStatus& s) -> std::optional<bool> { return perf::HoldsWork(s); });
    if (!held || *held < fraction) continue;
    auto util = perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent);
    if (!SustainedBelow(util, t.utilization_wasted_below_percent, fraction)) continue;
    if (perf::PcieTransferBound(gpu, input.config)) continue;

    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(Severity::kInfo);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    std::string wasted = FormatNumber(t.utilization_wasted_below_percent);
    f.title =
        Text{fmt::format("{} is in use but mostly waiting (utilisation below {} %)", label, wasted),
             fmt::format("{} 被占用但大部分时间在等待（利用率低于 {} %）", label, wasted)};
    f.explanation = Text{
        "A process holds this GPU, yet the GPU computes only a small part of the time: it waits "
        "for its input. The data pipeline (loading, decoding, augmentation) or the CPU is the "
        "usual limit; the GPU is wasted meanwhile.",
        "有进程占用着这块 GPU，但 GPU 只有很少时间在计算：它在等待输入数据。瓶颈通常在数据管道"
        "（读取、解码、数据增强）或 CPU；与此同时 GPU 被浪费了。"};
    auto stats = Summarize(util);
    f.evidence.push_back(perf::Measured(
        fmt::format("utilisation avg {} %, max {} % over {} readings", FormatNumber(stats->avg),
                    FormatNumber(stats->max), stats->count),
        fmt::format("{} 次读数中利用率平均 {} %，最高 {} %", stats->count, FormatNumber(stats->avg),
                    FormatNumber(stats->max)),
        stats->avg, "percent"));
    auto top = perf::TopProcesses(g, 3);
    if (!top.empty()) {
      std::string list = perf::ProcessListText(top);
      f.evidence.push_back(perf::Measured(fmt::format("processes on the GPU: {}", list),
                                          fmt::format("GPU 上的进程：{}", list),
                                          static_cast<double>(g.processes->size()), "count"));
    } else if (g.memory_used_bytes) {
      std::string used = perf::GiBText(static_cast<double>(*g.memory_used_bytes));
      f.evidence.push_back(
          perf::Measured(fmt::format("{} of GPU memory in use (no process listed)", used),
                         fmt::format("显存已使用 {}（未列出进程）", used),
                         static_cast<double>(*g.memory_used_bytes), "bytes"));
    }
    AddActions(f);
  }
}

}  // namespace utilization_low_rule
}  // namespace

const Rule kLowUtilizationRule{"utilization.low", "utilization",
                               "GPU held by a process but utilisation below the wasted threshold",
                               kNeedsGpuReadings, utilization_low_rule::Evaluate};

}  // namespace gpudoctor
