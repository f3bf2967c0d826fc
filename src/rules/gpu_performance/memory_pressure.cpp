// memory.pressure: GPU memory use above the high threshold over the window
// (> 90 % means out-of-memory risk). Names the
// processes holding the most, the remedies for a job that needs less, and
// for an idle GPU whose memory is still held, how to find and free it.
#include <fmt/format.h>

#include "rules/engine/gpu_broken.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace memory_pressure_rule {

void AddBusyActions(Finding& f) {
  const std::pair<const char*, const char*> steps[] = {
      {"Use a smaller batch size.", "减小批大小（`batch_size`）。"},
      {"Keep the effective batch with gradient accumulation over several smaller steps.",
       "通过梯度累积，用多个较小的步骤保持等效批大小。"},
      {"Train in mixed precision (bf16 or fp16) to halve activations and gradients.",
       "使用混合精度（bf16 或 fp16）训练，使激活值和梯度占用减半。"},
      {"Use activation checkpointing (recompute activations in the backward pass).",
       "使用激活检查点（在反向传播时重新计算激活值）。"},
  };
  for (const auto& [en, zh] : steps) f.actions.push_back(Action{Text{en, zh}, ""});
  f.actions.push_back(Action{
      Text{"When several processes share the GPU, let PyTorch hand its cached, unused blocks back "
           "(it does not lower the memory the process itself needs).",
           "多个进程共用 GPU 时，可让 PyTorch "
           "释放其缓存中未使用的显存块（这不会降低进程本身所需的显存）。"},
      "torch.cuda.empty_cache()"});
}

void AddIdleActions(Finding& f) {
  f.actions.push_back(
      Action{Text{"The GPU is idle yet its memory is held: find the stale process and end it.",
                  "GPU 处于空闲状态但显存仍被占用：找出残留进程并结束它。"},
             "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"});
  f.actions.push_back(Action{
      Text{"If no process is listed and no CUDA program runs, reload the nvidia_uvm module to "
           "release the memory.",
           "如果没有列出任何进程且没有 CUDA 程序在运行，可重新加载 `nvidia_uvm` 模块以释放显存。"},
      "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const double high = input.config.thresholds.memory_high_percent;
  const double fraction = input.config.sustained_fraction;
  for (const GpuSeries& gpu : input.gpus) {
    // A GPU failing most queries keeps whatever memory its dead jobs held:
    // gpu.lost speaks of it, not batch sizes.
    if (AnswersMostlyWithErrors(gpu.latest())) continue;
    auto share = perf::ShareOfReadings(gpu, [high](const GpuStatus& s) -> std::optional<bool> {
      auto used = MemoryUsedPercent(s);
      if (!used) return std::nullopt;
      return *used > high;
    });
    if (!share || *share < fraction) continue;
    const GpuStatus& g = gpu.latest();
    auto used_pct = Summarize(ValuesOf(gpu, MemoryUsedPercent));
    auto util = perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent);
    bool idle = SustainedBelow(util, perf::kIdleUtilizationPercent, fraction);

    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    std::string pct = FormatNumber(used_pct->max, 0);
    f.title = Text{fmt::format("{}: GPU memory {} % full", label, pct),
                   fmt::format("{}：显存已用 {} %", label, pct)};
    f.explanation = Text{
        fmt::format("More than {} % of the GPU's memory is in use: the next allocation may fail "
                    "with out of memory. Frameworks that reserve memory up front (TensorFlow, "
                    "JAX) look like this without being short of memory.",
                    FormatNumber(high)),
        fmt::format("显存使用率超过 {} %：下一次分配可能因显存不足而失败。预先占用显存的框架"
                    "（TensorFlow、JAX）即使并不缺显存，看起来也是这样。",
                    FormatNumber(high))};
    if (g.memory_used_bytes && g.memory_total_bytes) {
      std::string used = perf::GiBText(static_cast<double>(*g.memory_used_bytes));
      std::string total = perf::GiBText(static_cast<double>(*g.memory_total_bytes));
      f.evidence.push_back(perf::Measured(fmt::format("memory used {} of {}", used, total),
                                          fmt::format("显存已用 {}，共 {}", used, total),
                                          static_cast<double>(*g.memory_used_bytes), "bytes"));
    }
    f.evidence.push_back(
        perf::Measured(fmt::format("above {} % in {} % of {} readings", FormatNumber(high),
                                   FormatNumber(*share * 100, 0), gpu.readings.size()),
                       fmt::format("{} 次读数中有 {} % 高于 {} %", gpu.readings.size(),
                                   FormatNumber(*share * 100, 0), FormatNumber(high)),
                       used_pct->max, "percent"));
    auto top = perf::TopProcesses(g, 3);
    if (!top.empty()) {
      std::string list = perf::ProcessListText(top);
      f.evidence.push_back(perf::Measured(
          fmt::format("holding the most: {}", list), fmt::format("占用显存最多的进程：{}", list),
          static_cast<double>(top.front().used_memory_bytes.value_or(0)), "bytes"));
    }
    if (idle) {
      AddIdleActions(f);
    } else {
      AddBusyActions(f);
    }
  }
}

}  // namespace memory_pressure_rule
}  // namespace

const Rule kMemoryPressureRule{"memory.pressure", "memory",
                               "GPU memory use above the high threshold over the window",
                               kNeedsGpuReadings, memory_pressure_rule::Evaluate};

}  // namespace gpudoctor
