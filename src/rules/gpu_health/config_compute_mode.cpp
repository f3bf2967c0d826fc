// config.compute_mode: a compute mode other than Default. Prohibited lets no
// CUDA process use the GPU (a warning: jobs fail now); Exclusive_Process (or
// the old Exclusive_Thread) lets one process at a time, so jobs that open the
// GPU from several processes (MPS aside) fail with "busy or unavailable":
// worth knowing.
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace config_compute_mode_rule {

void Describe(Finding& f, const GpuStatus& g, bool prohibited) {
  std::string label = GpuLabel(g);
  if (prohibited) {
    f.title = Text{fmt::format("{} is in compute mode Prohibited: no CUDA program can use it", label),
                   fmt::format("{} 处于 Prohibited 计算模式：任何 CUDA 程序都无法使用它", label)};
    f.explanation = Text{
        "In Prohibited mode the driver refuses every CUDA context on this GPU, so jobs fail "
        "with \"all CUDA-capable devices are busy or unavailable\".",
        "在 Prohibited 模式下，驱动拒绝在该 GPU 上创建任何 CUDA 上下文，任务会报错 "
        "`all CUDA-capable devices are busy or unavailable`。"};
  } else {
    f.title = Text{fmt::format("{} accepts only one process at a time ({})", label, *g.compute_mode),
                   fmt::format("{} 同一时间只允许一个进程使用（{}）", label, *g.compute_mode)};
    f.explanation = Text{
        "In exclusive mode a second process that opens the GPU fails with \"all CUDA-capable "
        "devices are busy or unavailable\". Jobs with several processes per GPU (data loaders "
        "that touch CUDA, some inference servers) break, unless they go through MPS.",
        "在独占模式下，第二个打开该 GPU 的进程会报错 `all CUDA-capable devices are busy or unavailable`。"
        "每个 GPU 上有多个进程的任务（使用 CUDA 的数据加载进程、部分推理服务）会失败，除非通过 MPS 运行。"};
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    if (!g.compute_mode || *g.compute_mode == "Default") continue;
    bool prohibited = *g.compute_mode == "Prohibited";
    Finding& f = out.Add(prohibited ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(gpu.key);
    Describe(f, g, prohibited);
    f.evidence.push_back(EvidenceItem{
        Text{fmt::format("compute mode {}", *g.compute_mode), fmt::format("计算模式 {}", *g.compute_mode)},
        std::nullopt, "", std::nullopt, std::nullopt});
    f.actions.push_back(Action{
        Text{"Set the compute mode back to Default, unless exclusive use is intended.",
             "除非有意独占使用，否则将计算模式恢复为 Default。"},
        fmt::format("sudo nvidia-smi -i {} -c DEFAULT", g.index)});
  }
}

}  // namespace config_compute_mode_rule
}  // namespace

const Rule kConfigComputeModeRule{"config.compute_mode", "config",
                                  "Compute mode Prohibited or exclusive instead of Default",
                                  kNeedsGpuReadings, config_compute_mode_rule::Evaluate};

}  // namespace gpudoctor
