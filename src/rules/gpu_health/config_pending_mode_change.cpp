// config.pending_mode_change: a MIG or ECC mode change that was requested but
// applies only after a GPU reset or reboot. MIG pending differs from current:
// a warning, because jobs expecting the new layout (MIG instances or the
// whole GPU) fail until then; ECC pending: worth knowing (the GPU works, in
// the old mode).
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace config_pending_mode_change_rule {

const char* OnOff(bool on) { return on ? "enabled" : "disabled"; }
const char* OnOffZh(bool on) { return on ? "开启" : "关闭"; }

bool Differs(const std::optional<bool>& current, const std::optional<bool>& pending) {
  return current && pending && *current != *pending;
}

void Report(RuleOutput& out, const GpuSeries& gpu, const char* mode, bool current, bool mig) {
  const GpuStatus& g = gpu.latest();
  Finding& f = out.Add(mig ? Severity::kWarning : Severity::kInfo);
  f.gpus.push_back(gpu.key);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{}: {} mode change is waiting for a GPU reset", label, mode),
                 fmt::format("{} 的 {} 模式变更需要重置 GPU 后才生效", label, mode)};
  f.explanation = Text{
      "The mode was changed, but the GPU keeps running in the old one until it is reset or "
      "the node reboots.",
      "模式已被修改，但在 GPU 重置或节点重启之前，GPU 仍以原模式运行。"};
  f.evidence.push_back(EvidenceItem{
      Text{fmt::format("{} mode {} now, {} after reset", mode, OnOff(current), OnOff(!current)),
           fmt::format("{} 模式当前为{}，重置后为{}", mode, OnOffZh(current), OnOffZh(!current))},
      std::nullopt, "", std::nullopt, std::nullopt});
  f.actions.push_back(ResetGpuAction(g));
  f.actions.push_back(RebootAction());
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    if (Differs(g.mig_mode_enabled, g.mig_mode_pending)) Report(out, gpu, "MIG", *g.mig_mode_enabled, true);
    if (Differs(g.ecc_mode_enabled, g.ecc_mode_pending)) Report(out, gpu, "ECC", *g.ecc_mode_enabled, false);
  }
}

}  // namespace config_pending_mode_change_rule
}  // namespace

const Rule kConfigPendingModeChangeRule{"config.pending_mode_change", "config",
                                        "MIG or ECC mode change pending a GPU reset or reboot",
                                        kNeedsGpuReadings, config_pending_mode_change_rule::Evaluate};

}  // namespace gpudoctor
