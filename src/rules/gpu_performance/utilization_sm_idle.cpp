// utilization.sm_idle: NVML's utilisation is high (a kernel ran most of the
// time) while GPM's SM activity stays low (few SMs were busy): tiny kernels,
// launch-bound or synchronising code keeps the GPU "busy" with most of it
// idle. Needs GPM (Hopper and later, driver R520 on); quiet without it.
#include <fmt/format.h>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace utilization_sm_idle_rule {

void AddActions(Finding& f) {
  const std::pair<const char*, const char*> steps[] = {
      {"Give each kernel more work: a larger batch (or micro-batch) per step.",
       "让每个 kernel 做更多工作：增大每一步的批大小（或微批大小）。"},
      {"Launch the step's kernels as one CUDA graph instead of one by one (PyTorch: "
       "torch.compile(mode=\"reduce-overhead\") or torch.cuda.CUDAGraph).",
       "把一步中的 kernel 作为一个 CUDA Graph 一次性启动，而不是逐个启动（PyTorch："
       "`torch.compile(mode=\"reduce-overhead\")` 或 `torch.cuda.CUDAGraph`）。"},
      {"Synchronise with the host less: no .item(), .cpu(), print of a GPU tensor or "
       "torch.cuda.synchronize() in every step; log every N steps.",
       "减少与主机的同步：不要在每一步都调用 `.item()`、`.cpu()`、打印 GPU 张量或 "
       "`torch.cuda.synchronize()`；每 N 步记录一次日志即可。"},
      {"Copy asynchronously on CUDA streams from pinned memory (cudaMemcpyAsync; in PyTorch "
       ".to(device, non_blocking=True) with pin_memory=True) so that copies overlap compute.",
       "在 CUDA stream 上从锁页内存异步拷贝（`cudaMemcpyAsync`；PyTorch 中配合 `pin_memory=True` "
       "使用 `.to(device, non_blocking=True)`），让拷贝与计算重叠。"},
      {"Check that the data loader keeps up: more workers, prefetching, data on fast local "
       "disk (PyTorch DataLoader: num_workers, prefetch_factor, persistent_workers=True).",
       "检查数据加载是否跟得上：增加加载进程、预取、数据放在高速本地盘上（PyTorch DataLoader："
       "`num_workers`、`prefetch_factor`、`persistent_workers=True`）。"},
  };
  for (const auto& [en, zh] : steps) f.actions.push_back(Action{Text{en, zh}, ""});
  f.actions.push_back(Action{
      Text{"See where the time goes between kernels with Nsight Systems.",
           "用 Nsight Systems 查看 kernel 之间的时间花在哪里。"},
      "nsys profile --trace=cuda,nvtx,osrt -o step python train.py"});
}

// True/false for a reading with both values: busy by time, few SMs active.
std::optional<bool> BusyButIdle(const GpuStatus& s) {
  if (!s.utilization_gpu_percent || !s.gpm_sm_activity_percent) return std::nullopt;
  return static_cast<double>(*s.utilization_gpu_percent) >= perf::kBusyUtilizationPercent &&
         *s.gpm_sm_activity_percent < perf::kSmIdleActivityPercent;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    auto share = perf::ShareOfReadings(gpu, BusyButIdle);
    if (!share || *share < input.config.sustained_fraction) continue;
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} looks busy but most of its SMs are idle", label),
                   fmt::format("{} 看似繁忙，但大部分 SM 处于空闲", label)};
    f.explanation = Text{
        "NVML's utilisation counts the time any kernel ran, however small; GPM's SM activity "
        "counts the share of the SMs that were busy. High utilisation with low SM activity means "
        "kernels too small to fill the GPU, or a GPU that waits between kernels for the host: "
        "launch-bound or synchronising code. The GPU is mostly idle although it looks busy.",
        "NVML 的利用率统计的是有任意 kernel 在运行的时间，无论 kernel 多小；GPM 的 SM 活跃度统计"
        "的是处于忙碌状态的 SM 所占比例。利用率高而 SM 活跃度低，说明 kernel 太小、填不满 GPU，"
        "或者 GPU 在 kernel 之间等待主机：受限于 kernel 启动开销或频繁同步。GPU 看似繁忙，实际上"
        "大部分时间空闲。"};
    auto util = Summarize(perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent));
    auto sm = Summarize(perf::RealSeries(gpu, &GpuStatus::gpm_sm_activity_percent));
    f.evidence.push_back(perf::Measured(
        fmt::format("utilisation avg {} % while SM activity (GPM) avg {} %, in {} % of the readings",
                    FormatNumber(util->avg), FormatNumber(sm->avg), FormatNumber(*share * 100, 0)),
        fmt::format("利用率平均 {} %，而 SM 活跃度（GPM）平均 {} %，占读数的 {} %",
                    FormatNumber(util->avg), FormatNumber(sm->avg), FormatNumber(*share * 100, 0)),
        sm->avg, "percent"));
    if (auto occupancy = Summarize(perf::RealSeries(gpu, &GpuStatus::gpm_sm_occupancy_percent))) {
      f.evidence.push_back(perf::Measured(
          fmt::format("SM occupancy (GPM) avg {} %", FormatNumber(occupancy->avg)),
          fmt::format("SM 占用率（GPM）平均 {} %", FormatNumber(occupancy->avg)), occupancy->avg,
          "percent"));
    }
    auto top = perf::TopProcesses(g, 3);
    if (!top.empty()) {
      std::string list = perf::ProcessListText(top);
      f.evidence.push_back(perf::Measured(fmt::format("processes on the GPU: {}", list),
                                          fmt::format("GPU 上的进程：{}", list),
                                          static_cast<double>(g.processes->size()), "count"));
    }
    AddActions(f);
  }
}

}  // namespace utilization_sm_idle_rule
}  // namespace

const Rule kSmIdleRule{"utilization.sm_idle", "utilization",
                       "Utilisation high while GPM SM activity stays low: launch-bound or "
                       "synchronising work (Hopper and later)",
                       kNeedsGpuReadings, utilization_sm_idle_rule::Evaluate};

}  // namespace gpudoctor
