// gpu.needs_inspection: the agent latched a cause that came back on the same
// physical GPU after the configured number of reboots (agent/escalation.h):
// rebooting has not fixed it, so the GPU goes for hardware inspection (on a
// cloud instance, to the provider). Critical. It stays until an operator
// acknowledges it with `gpudoctor ack`, whether or not the evidence that
// latched it is still in the window. One finding per GPU, naming every cause
// latched for it.
#include <fmt/format.h>

#include <algorithm>

#include "core/time_format.h"
#include "rules/gpu_health/gpu_health_util.h"
#include "rules/gpu_health/group.h"

namespace gpudoctor {
namespace {
namespace gpu_needs_inspection_rule {

std::string CauseName(const LatchedFinding& l) {
  return l.xid ? fmt::format("Xid {} ({})", *l.xid, l.finding_id) : l.finding_id;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  // The latches of each GPU, in the order they latched.
  std::vector<std::pair<std::string, std::vector<const LatchedFinding*>>> by_gpu;
  for (const LatchedFinding& l : input.latched) {
    auto it =
        std::find_if(by_gpu.begin(), by_gpu.end(), [&](const auto& g) { return g.first == l.gpu; });
    if (it == by_gpu.end()) it = by_gpu.insert(by_gpu.end(), {l.gpu, {}});
    it->second.push_back(&l);
  }
  for (const auto& [key, latches] : by_gpu) {
    const LatchedFinding& first = *latches.front();
    const GpuSeries* series = FindGpu(input, key);
    const std::string label =
        series != nullptr ? GpuLabel(series->latest()) : fmt::format("GPU {}", key);
    std::string causes;
    for (const auto* l : latches) causes += (causes.empty() ? "" : ", ") + CauseName(*l);
    Finding& f = out.Add(Severity::kCritical);
    f.gpus.push_back(key);
    f.recommended = RecoveryAction::kHardwareInspection;
    f.title = Text{fmt::format("{} failed again after {} reboot(s): {}; send it for hardware "
                               "inspection",
                               label, first.boots - 1, causes),
                   fmt::format("{} 在 {} 次重启后再次出现故障：{}；请送硬件检测", label,
                               first.boots - 1, causes)};
    const std::string board = first.uuid.empty() ? std::string("this GPU")
                              : first.serial.empty()
                                  ? first.uuid
                                  : fmt::format("{} (serial {})", first.uuid, first.serial);
    f.explanation = Text{
        fmt::format(
            "The same fault came back on {} in {} separate boots: a reboot does not fix it, so "
            "the board itself is suspect. The finding is latched: it stays, across agent "
            "restarts and reboots, until someone who has inspected or replaced the GPU "
            "acknowledges it.",
            board, first.boots),
        fmt::format(
            "同一故障在 {} 的 {} 次不同启动中再次出现：重启无法修复，板卡本身可疑。该结论已"
            "锁定：在有人检测或更换 GPU 并确认之前，它会一直保留，跨越 agent 重启和节点重启。",
            board, first.boots)};
    for (const auto* l : latches) {
      EvidenceItem e = Measured(
          Text{fmt::format("{} seen in {} boots from {} (threshold: recurs after {} reboots); "
                           "latched at {}: {}",
                           CauseName(*l), l->boots, FormatRfc3339(l->first_seen), l->after_reboots,
                           FormatRfc3339(l->since), l->title_en),
               fmt::format("{} 在自 {} 起的 {} 次启动中出现（阈值：{} 次重启后再次出现）；于 {} "
                           "锁定：{}",
                           CauseName(*l), FormatRfc3339(l->first_seen), l->boots, l->after_reboots,
                           FormatRfc3339(l->since),
                           l->title_zh.empty() ? l->title_en : l->title_zh)},
          static_cast<double>(l->boots), "boots");
      e.time = l->since;
      f.evidence.push_back(std::move(e));
    }
    f.actions = {
        Action{
            Text{"Drain the node and keep jobs off this GPU.", "排空节点，不再向该 GPU 调度任务。"},
            ""},
        ReplaceGpuAction(),
        Action{
            Text{"Once the GPU is inspected or replaced, clear the latch, saying why.",
                 "GPU 检测或更换完成后，解除锁定并说明原因。"},
            fmt::format("sudo gpudoctor ack gpu.needs_inspection --gpu {} --reason '...'", key)}};
  }
}

}  // namespace gpu_needs_inspection_rule
}  // namespace

const Rule kGpuNeedsInspectionRule{
    "gpu.needs_inspection", "gpu",
    "A fault came back on the same GPU after the configured reboots: latched for hardware "
    "inspection until acknowledged",
    kNeedsNothing, gpu_needs_inspection_rule::Evaluate};

}  // namespace gpudoctor
