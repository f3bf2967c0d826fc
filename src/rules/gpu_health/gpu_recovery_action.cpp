// gpu.recovery_action: what the driver itself says it takes to bring a GPU
// back (NVML field 230, nvidia-smi's "GPU Recovery Action", R570+). It stays
// set after the Xid that caused it scrolled out of the kernel log, so it
// speaks for a GPU whose log is gone. GPU Reset, Node Reboot and Drain and
// Reset -> critical; Drain P2P and Recover IMEX Domain -> warning; a value
// this build does not know -> warning, named. Its finding and an Xid 154's
// for the same GPU are one cause (one finding).
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace gpu_recovery_action_rule {

struct Request {
  Severity severity;
  Text meaning;
};

Request RequestFor(std::int64_t code) {
  switch (code) {
    case 1:
      return {
          Severity::kCritical,
          {"the GPU must be reset before it can run work again", "必须重置 GPU 后才能再运行任务"}};
    case 2:
      return {Severity::kCritical,
              {"the node must be rebooted; a GPU reset is not enough",
               "必须重启节点；仅重置 GPU 不够"}};
    case 3:
      return {Severity::kWarning,
              {"peer-to-peer (NVLink) traffic with this GPU must stop; the driver then says more",
               "必须停止与该 GPU 之间的点对点（NVLink）通信，之后驱动会给出进一步的操作"}};
    case 4:
      return {Severity::kCritical,
              {"the GPU runs at reduced capacity: let its jobs finish or move them, then reset it",
               "GPU 正以降级能力运行：先让其任务结束或迁走，再重置 GPU"}};
    case 5:
      return {Severity::kWarning,
              {"the IMEX domain (memory shared across nodes) must be recovered",
               "必须恢复 IMEX 域（跨节点共享内存）"}};
    default:
      return {
          Severity::kWarning,
          {fmt::format("the driver asks for an action this tool does not know (value {})", code),
           fmt::format("驱动要求的恢复操作本工具无法识别（值为 {}）", code)}};
  }
}

std::vector<Action> ActionsFor(std::int64_t code, const GpuStatus& g) {
  Action drain{
      Text{"Stop scheduling new jobs on this GPU and let the running ones finish or move them.",
           "停止向该 GPU 调度新任务，并让正在运行的任务结束或迁走。"},
      ""};
  switch (code) {
    case 1:
      return {ResetGpuAction(g), RebootAction()};
    case 2:
      return {drain, Action{Text{"Reboot the node.", "重启节点。"}, "sudo reboot"}};
    case 3:
      return {drain,
              Action{Text{"Read the action again once the traffic stopped.",
                          "通信停止后再次读取恢复操作。"},
                     fmt::format("nvidia-smi -q -i {} | grep -i 'recovery action'", g.index)}};
    case 4:
      return {drain, ResetGpuAction(g)};
    case 5:
      return {Action{Text{"Restart the IMEX service on the nodes of the domain.",
                          "在该域的各节点上重启 IMEX 服务。"},
                     "sudo systemctl restart nvidia-imex"}};
    default:
      return {Action{Text{"Read the driver's own words for it and keep them with a bug report.",
                          "查看驱动对它的描述，并随错误报告一并保留。"},
                     fmt::format("nvidia-smi -q -i {} | grep -i 'recovery action'", g.index)}};
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    if (gpu.readings.empty()) continue;
    const GpuStatus& g = gpu.latest();
    if (!g.recovery_action || *g.recovery_action == 0) continue;
    const std::int64_t code = *g.recovery_action;
    Request request = RequestFor(code);
    Finding& f = out.Add(request.severity);
    f.gpus.push_back(gpu.key);
    f.causes = {"recovery " + gpu.key};
    if (auto action = FromNvmlRecoveryAction(code)) {
      f.recommended = *action;
      f.recommended_by_driver = true;
    }
    const std::string label = GpuLabel(g);
    const std::string name = NvmlRecoveryActionName(code);
    f.title = Text{fmt::format("The driver asks for a recovery of {}: {}", label, name),
                   fmt::format("驱动要求恢复 {}：`{}`", label, name)};
    f.explanation = Text{
        fmt::format("NVML's GPU recovery action says {}. The driver sets it after a fault (see the "
                    "Xid in the kernel log, if it is still there) and keeps it until the recovery "
                    "is done.",
                    request.meaning.en),
        fmt::format(
            "NVML 的 GPU 恢复操作表明{}。驱动在故障后设置它（如内核日志中仍有记录，请查看对应的 "
            "Xid），并保持到恢复完成为止。",
            request.meaning.zh)};
    f.evidence.push_back(
        Measured(Text{fmt::format("GPU recovery action (NVML field 230): {} ({})", name, code),
                      fmt::format("GPU 恢复操作（NVML 字段 230）：`{}`（{}）", name, code)},
                 static_cast<double>(code), "code"));
    f.actions = ActionsFor(code, g);
  }
}

}  // namespace gpu_recovery_action_rule
}  // namespace

const Rule kGpuRecoveryActionRule{"gpu.recovery_action", "gpu",
                                  "The driver asks for a GPU reset, a reboot or a drain (NVML's "
                                  "GPU recovery action)",
                                  kNeedsGpuReadings, gpu_recovery_action_rule::Evaluate};

}  // namespace gpudoctor
