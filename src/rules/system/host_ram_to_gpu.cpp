// host.ram_to_gpu: host RAM (or the container's memory limit, when tighter)
// against the total GPU memory. Pinned staging buffers, data-loader workers
// and checkpoint assembly all live in host RAM; practitioners size it 2-4x
// the GPU memory.
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace host_ram_to_gpu_rule {

constexpr double kRatioLow = 1;      // below: warning
constexpr double kRatioAdvised = 2;  // below: info

// Host RAM the job may use: MemTotal, or the cgroup limit when tighter.
std::optional<double> UsableRamBytes(const HostFacts& host, bool* limited_by_cgroup) {
  std::optional<std::uint64_t> ram = host.memory.total_bytes;
  *limited_by_cgroup = false;
  if (host.cgroup.memory_limit_bytes && (!ram || *host.cgroup.memory_limit_bytes < *ram)) {
    ram = host.cgroup.memory_limit_bytes;
    *limited_by_cgroup = true;
  }
  if (!ram || *ram == 0) return std::nullopt;
  return static_cast<double>(*ram);
}

// The sum of the GPUs' memory from their latest readings; nullopt when any
// GPU lacks it (a partial sum would flatter the ratio).
std::optional<double> GpuMemoryBytes(const DiagnosisInput& input) {
  if (input.gpus.empty()) return std::nullopt;
  double sum = 0;
  for (const GpuSeries& gpu : input.gpus) {
    if (!gpu.latest().memory_total_bytes) return std::nullopt;
    sum += static_cast<double>(*gpu.latest().memory_total_bytes);
  }
  return sum > 0 ? std::optional<double>(sum) : std::nullopt;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const HostFacts& host = *input.host;
  bool cgroup = false;
  auto ram = UsableRamBytes(host, &cgroup);
  auto gpu_mem = GpuMemoryBytes(input);
  std::optional<double> ratio;
  if (ram && gpu_mem) {
    ratio = *ram / *gpu_mem;
  } else if (host.ram_to_gpu) {
    ratio = host.ram_to_gpu->ratio;  // the collector's view, when the readings lack memory
  }
  if (!ratio) {
    if (!input.gpus.empty() || !ram) {
      out.NotCheckedBecause(
          Text{"host RAM or the GPUs' total memory is unknown", "主机内存或 GPU 显存总量未知"});
    }
    return;
  }
  if (*ratio >= kRatioAdvised) return;

  Finding& f = out.Add(*ratio < kRatioLow ? Severity::kWarning : Severity::kInfo);
  std::string r = FormatNumber(*ratio, 2);
  f.title = Text{fmt::format("Host RAM is only {}x the GPU memory (recommended 2-4x)", r),
                 fmt::format("主机内存仅为 GPU 显存的 {} 倍（建议 2-4 倍）", r)};
  f.explanation = Text{
      "Host RAM holds the data-loader workers, pinned staging buffers for copies to the GPUs and "
      "whole checkpoints while they are loaded or saved. Below the GPU memory, loading a model "
      "that fills the GPUs can exhaust host RAM and swap or be killed; below twice the GPU memory "
      "there is little room for the input pipeline.",
      "主机内存要容纳数据加载进程、向 GPU 拷贝数据用的锁页缓冲区，以及加载或保存时的完整检查点。"
      "主机内存小于 GPU 显存时，加载一个占满 GPU 的模型就可能耗尽主机内存，导致换页甚至进程被杀；"
      "小于显存的两倍时，留给数据输入流水线的空间也很少。"};
  f.evidence.push_back(NumberEvidence(fmt::format("host RAM / GPU memory = {}x", r),
                                      fmt::format("主机内存 / GPU 显存 = {} 倍", r), *ratio,
                                      "ratio"));
  if (ram && gpu_mem) {
    std::string ram_gib = GibText(*ram);
    std::string gpu_gib = GibText(*gpu_mem);
    f.evidence.push_back(NumberEvidence(
        fmt::format("{} GiB {} for {} GiB of memory on {} GPUs", ram_gib,
                    cgroup ? "container memory limit" : "host RAM", gpu_gib, input.gpus.size()),
        fmt::format("{}{} GiB，{} 块 GPU 显存共 {} GiB", cgroup ? "容器内存限额" : "主机内存",
                    ram_gib, input.gpus.size(), gpu_gib),
        *ram, "bytes"));
  }
  if (cgroup) {
    f.actions.push_back(Action{
        Text{"Raise the container's memory limit (Kubernetes resources.limits.memory, docker "
             "--memory) to 2-4x the GPU memory.",
             "提高容器的内存限额（Kubernetes 的 resources.limits.memory 或 docker 的 --memory），"
             "达到 GPU 显存的 2-4 倍。"},
        ""});
  }
  f.actions.push_back(
      Action{Text{"Use an instance with 2-4x as much RAM as GPU memory for large models.",
                  "运行大模型时，改用主机内存为 GPU 显存 2-4 倍的实例。"},
             "free -h"});
  f.actions.push_back(Action{
      Text{"Meanwhile load checkpoints shard by shard or memory-mapped (e.g. safetensors) and keep "
           "data-loader workers few.",
           "在此之前，分片或以内存映射方式加载检查点（例如 safetensors），并减少数据加载进程。"},
      ""});
}

}  // namespace host_ram_to_gpu_rule
}  // namespace

const Rule kHostRamToGpuRule{"host.ram_to_gpu", "host",
                             "Host RAM below 2x the total GPU memory (recommended 2-4x)",
                             kNeedsHost, host_ram_to_gpu_rule::Evaluate};

}  // namespace gpudoctor
