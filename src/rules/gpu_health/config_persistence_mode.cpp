// config.persistence_mode: persistence mode off on Linux. Without it the
// driver tears the GPU's state down whenever no client holds it open, so each
// job start pays the initialisation again (seconds on a large GPU), and
// volatile ECC counts and application clocks are lost between jobs. NVIDIA
// recommends it (or the nvidia-persistenced service) on servers. Windows
// GPUs report no persistence mode (nullopt) and are left alone. In the
// first 5 minutes after boot it is not judged (nvidia-persistenced may still
// be starting); a failed nvidia-persistenced service makes it a warning.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace config_persistence_mode_rule {

// After boot, nvidia-persistenced takes a moment to start and turn
// persistence on; gpud gives it a grace period too.
constexpr double kBootGraceS = 300;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::vector<std::string> labels;
  std::vector<std::string> bus_ids;
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    if (g.persistence_mode.value_or(true)) continue;
    labels.push_back(GpuLabel(g));
    bus_ids.push_back(gpu.key);
  }
  if (labels.empty()) return;
  if (input.host && input.host->uptime_s && *input.host->uptime_s < kBootGraceS) {
    out.NotCheckedBecause(Text{
        fmt::format("the node booted {} s ago; nvidia-persistenced gets {} s to start",
                    static_cast<long>(*input.host->uptime_s), static_cast<long>(kBootGraceS)),
        fmt::format("节点 {} 秒前刚启动；nvidia-persistenced 有 {} 秒的启动时间",
                    static_cast<long>(*input.host->uptime_s), static_cast<long>(kBootGraceS))});
    return;
  }
  const PersistencedFacts* daemon = input.versions ? &input.versions->driver.persistenced : nullptr;
  const bool daemon_failed = daemon && daemon->active_state == "failed";
  // One finding for all GPUs: it is one setting of the node, fixed by one command.
  Finding& f = out.Add(daemon_failed ? Severity::kWarning : Severity::kInfo);
  f.gpus = bus_ids;
  std::string names = fmt::format("{}", fmt::join(labels, ", "));
  f.title = Text{fmt::format("Persistence mode is off on {}", names),
                 fmt::format("{} 未开启持久模式（Persistence Mode）", names)};
  f.explanation = Text{
      "With persistence mode off, the driver releases the GPU whenever no program uses it and "
      "sets it up again for the next one: every job start waits for that (several seconds on "
      "large GPUs), and volatile ECC counters and clock settings are lost in between. Servers "
      "should keep it on.",
      "持久模式关闭时，没有程序使用 GPU 驱动就会将其释放，下一个程序启动时再重新初始化：每次任务启动都要"
      "等待这一过程（大型 GPU 上需数秒），期间易失性 ECC 计数和时钟设置也会丢失。服务器应保持开启。"};
  f.evidence.push_back(Measured(
      Text{fmt::format("persistence mode disabled on {} of {} GPUs", labels.size(), input.gpus.size()),
           fmt::format("{} 个 GPU 中有 {} 个未开启持久模式", input.gpus.size(), labels.size())},
      static_cast<double>(labels.size()), "count"));
  if (daemon && daemon->running.has_value() && !*daemon->running) {
    const std::string state = daemon->active_state.empty()
                                  ? std::string("not running")
                                  : daemon->active_state + "/" + daemon->sub_state;
    EvidenceItem item;
    item.text = Text{fmt::format("nvidia-persistenced ({}): {}", daemon->source, state),
                     fmt::format("nvidia-persistenced（{}）：{}", daemon->source,
                                 daemon->active_state.empty() ? std::string("未运行") : state)};
    f.evidence.push_back(std::move(item));
  }
  if (daemon_failed) {
    f.actions.push_back(Action{
        Text{"The persistence daemon failed: read why before starting it again.",
             "持久化守护进程启动失败：重新启动前先查看原因。"},
        "systemctl status nvidia-persistenced; journalctl -u nvidia-persistenced -b | tail -20"});
  }
  f.actions.push_back(Action{Text{"Turn persistence mode on for all GPUs now.", "立即为所有 GPU 开启持久模式。"},
                             "sudo nvidia-smi -pm 1"});
  f.actions.push_back(Action{
      Text{"Keep it on across reboots with the persistence daemon (NVIDIA's recommended way).",
           "使用持久化守护进程使其在重启后仍然生效（NVIDIA 推荐的方式）。"},
      "sudo systemctl enable --now nvidia-persistenced"});
}

}  // namespace config_persistence_mode_rule
}  // namespace

const Rule kConfigPersistenceModeRule{"config.persistence_mode", "config",
                                      "Persistence mode off on Linux GPUs", kNeedsGpuReadings,
                                      config_persistence_mode_rule::Evaluate};

}  // namespace gpudoctor
