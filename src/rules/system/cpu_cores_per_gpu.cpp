// cpu.cores_per_gpu: too few usable CPU cores per GPU to feed them (data
// loading, augmentation, the launch threads themselves). Practitioners size
// 4-8 cores per GPU.
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace cpu_cores_per_gpu_rule {

constexpr double kRecommendedMinCoresPerGpu = 4;
constexpr double kTooFewCoresPerGpu = 2;

bool AnyGpuHasWork(const DiagnosisInput& input) {
  for (const GpuSeries& gpu : input.gpus) {
    if (GpuHasProcesses(gpu)) return true;
  }
  return false;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const HostFacts& host = *input.host;
  if (input.gpus.empty()) return;  // no GPU listed: nothing to share the cores with
  if (!host.cpu.effective_cores) {
    out.NotCheckedBecause(
        Text{"the number of usable CPU cores could not be read", "无法读取可用的 CPU 核数"});
    return;
  }
  const double cores = *host.cpu.effective_cores;
  const auto gpu_count = static_cast<double>(input.gpus.size());
  const double per_gpu = cores / gpu_count;
  if (per_gpu >= kRecommendedMinCoresPerGpu) return;

  // Below 2 cores a GPU that works is almost always starved; while no GPU has
  // work it costs nothing yet, so it stays worth knowing.
  bool severe = per_gpu < kTooFewCoresPerGpu && AnyGpuHasWork(input);
  Finding& f = out.Add(severe ? Severity::kWarning : Severity::kInfo);
  std::string ratio = FormatNumber(per_gpu);
  f.title = Text{fmt::format("Only {} usable CPU cores per GPU (recommended 4-8)", ratio),
                 fmt::format("每块 GPU 仅有 {} 个可用 CPU 核（建议 4-8 个）", ratio)};
  f.explanation = Text{
      "Each GPU needs CPU cores for data loading, preprocessing and launching its work. With "
      "fewer than 4 cores per GPU the input pipeline easily becomes the bottleneck and the GPUs "
      "wait, most of all with several data-loader workers per GPU.",
      "每块 GPU 都需要 CPU 核来加载和预处理数据、提交计算任务。每块 GPU 少于 4 "
      "个核时，数据输入很容易成为瓶颈，"
      "GPU 只能等待；每块 GPU 配多个数据加载进程时尤其如此。"};
  f.evidence.push_back(NumberEvidence(fmt::format("{} usable CPU cores for {} GPUs: {} per GPU",
                                                  FormatNumber(cores), input.gpus.size(), ratio),
                                      fmt::format("{} 块 GPU 共有 {} 个可用 CPU 核：每块 {} 个",
                                                  input.gpus.size(), FormatNumber(cores), ratio),
                                      per_gpu, "cores"));
  bool quota = host.cpu.cgroup_quota_cores && host.cpu.online_cores &&
               *host.cpu.cgroup_quota_cores < *host.cpu.online_cores;
  if (quota) {
    std::string q = FormatNumber(*host.cpu.cgroup_quota_cores);
    f.evidence.push_back(NumberEvidence(
        fmt::format("limited by a cgroup CPU quota of {} cores ({} cores online)", q,
                    *host.cpu.online_cores),
        fmt::format("受 cgroup CPU 配额 {} 核限制（在线 {} 核）", q, *host.cpu.online_cores),
        *host.cpu.cgroup_quota_cores, "cores"));
    f.actions.push_back(Action{
        Text{"Raise the container's CPU limit (Kubernetes resources.limits.cpu, docker --cpus) to "
             "4-8 cores per GPU.",
             "提高容器的 CPU 限额（Kubernetes 的 resources.limits.cpu 或 docker 的 "
             "--cpus），达到每块 GPU "
             "4-8 个核。"},
        ""});
  }
  f.actions.push_back(Action{
      Text{"Use an instance type with 4-8 vCPUs per GPU, or run fewer GPUs per job on this one.",
           "改用每块 GPU 配 4-8 个 vCPU 的实例规格，或在本机上让每个任务使用更少的 GPU。"},
      ""});
  f.actions.push_back(
      Action{Text{"Keep data-loader workers at or below the cores available per GPU.",
                  "每块 GPU 的数据加载进程数不要超过分给它的 CPU 核数。"},
             "nproc"});
}

}  // namespace cpu_cores_per_gpu_rule
}  // namespace

const Rule kCpuCoresPerGpuRule{"cpu.cores_per_gpu", "cpu",
                               "Fewer than 4 usable CPU cores per GPU (recommended 4-8)",
                               kNeedsHost | kNeedsGpuReadings, cpu_cores_per_gpu_rule::Evaluate};

}  // namespace gpudoctor
