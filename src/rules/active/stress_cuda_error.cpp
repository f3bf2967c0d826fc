// stress.cuda_error: a CUDA call failed on a GPU that NVML still reads as
// present. gpudoctor's kernels are small and checked, so an unspecified
// launch failure or an illegal address under them points to the GPU or the
// driver, not to the program. A failure to set up (no memory, a PTX the
// driver refused) is a warning: the GPU was not tested.
#include <fmt/format.h>

#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_cuda_error_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    if (gpu.cuda_error.empty() || active::LostAtS(input, gpu)) continue;
    bool setup = gpu.cuda_error_test == "setup";
    Finding& f = out.Add(setup ? Severity::kWarning : Severity::kCritical);
    f.gpus.push_back(gpu.pci_bus_id);
    std::string label = active::Label(gpu);
    f.title = setup ? Text{fmt::format("{} could not be tested: {}", label, gpu.cuda_error),
                           fmt::format("{} 无法测试：`{}`", label, gpu.cuda_error)}
                    : Text{fmt::format("{}: CUDA failed in the {} test: {}", label, gpu.cuda_error_test,
                                       gpu.cuda_error),
                           fmt::format("{}：`{}` 测试中 CUDA 出错：`{}`", label, gpu.cuda_error_test,
                                       gpu.cuda_error)};
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} at {} s into the run", gpu.cuda_error,
                         FormatNumber(gpu.cuda_error_at_s.value_or(0), 1)),
             fmt::format("运行第 {} 秒：`{}`", FormatNumber(gpu.cuda_error_at_s.value_or(0), 1),
                         gpu.cuda_error)},
        gpu.cuda_error_at_s.value_or(0), "seconds"));
    f.explanation =
        setup ? Text{"The driver refused what the test needs on this GPU (its context, memory or "
                     "kernels), so nothing was measured on it.",
                     "驱动拒绝了测试在该 GPU 上所需的资源（上下文、显存或内核），因此未能测量。"}
              : Text{"A kernel that is known to be correct failed on this GPU. That is a fault of the "
                     "GPU (memory, SM) or the driver, and jobs on it fail the same way.",
                     "已知正确的内核在该 GPU 上执行失败，说明 GPU（显存、SM）或驱动有故障，作业在其上同样会失败。"};
    f.actions.push_back(Action{
        Text{"Read the kernel log for an Xid at the same time (13, 31, 43, 48, 94 or 95 name the cause).",
             "查看同一时刻内核日志中的 Xid（13、31、43、48、94 或 95 指明原因）。"},
        "sudo dmesg -T | grep -i xid"});
    f.actions.push_back(Action{
        Text{"Reset the GPU (or reboot) and run the test again on it alone; if it fails again, drain "
             "the node and RMA the GPU.",
             "复位 GPU（或重启）后单独再次测试；仍然失败则将节点下线并返修 GPU。"},
        fmt::format("sudo gpudoctor stress --gpu {} --duration 60s", gpu.index)});
  }
}

}  // namespace stress_cuda_error_rule
}  // namespace

const Rule kStressCudaErrorRule{"stress.cuda_error", "xid",
                                "A CUDA call failed under gpudoctor stress on a GPU still present",
                                kNeedsActive, stress_cuda_error_rule::Evaluate};

}  // namespace gpudoctor
