// nvlink.fabric_registration: a GPU of an NVSwitch or multi-node NVLink
// system that has not joined the NVLink fabric. Fabric Manager registers
// every GPU at boot (NOT_STARTED -> IN_PROGRESS -> COMPLETED, nvml.h's
// nvmlGpuFabricState_t); until it completes CUDA fails with error 802
// ("system not yet initialized"). Completed with an error status is a
// registration that failed. "Not supported" (PCIe cards, single GPUs, GH200
// without NVSwitch) is healthy and never reaches this rule. On GB200/GB300
// (multi-node NVLink) a completed GPU also belongs to a cluster: an all-zero
// cluster UUID there means it is in no NVLink domain.
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace fabric_registration_rule {

// Registration takes seconds to a few minutes after Fabric Manager starts;
// before this much uptime a GPU still registering is news, not a fault.
constexpr double kRegistrationGraceS = 600;
constexpr const char* kZeroUuid = "00000000-0000-0000-0000-000000000000";

void AddActions(Finding& f) {
  f.actions.push_back(Action{Text{"Check that Fabric Manager runs and read why it stopped or failed.",
                                  "确认 Fabric Manager 正在运行，并查看其停止或失败的原因。"},
                             "systemctl status nvidia-fabricmanager; journalctl -u nvidia-fabricmanager -b --no-pager | tail -50"});
  f.actions.push_back(Action{Text{"See each GPU's fabric state and status.",
                                  "查看每块 GPU 的互联（fabric）状态。"},
                             "nvidia-smi -q | grep -A6 -i '^ *fabric'"});
  f.actions.push_back(Action{Text{"If Fabric Manager runs but the GPUs stay unregistered, restart it; "
                                  "if that does not help, reboot the node.",
                                  "如果 Fabric Manager 在运行但 GPU 仍未注册，重启该服务；仍无效时重启节点。"},
                             "sudo systemctl restart nvidia-fabricmanager"});
}

bool MultiNodeNvlink(const GpuStatus& g) {
  return g.name.find("GB200") != std::string::npos || g.name.find("GB300") != std::string::npos;
}

void Unregistered(const GpuSeries& gpu, std::optional<double> uptime_s, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  const GpuFabric& fabric = *g.fabric;
  const bool started = fabric.state == FabricState::kInProgress;
  const bool early = uptime_s && *uptime_s < kRegistrationGraceS;
  Finding& f = out.Add(early ? Severity::kInfo : Severity::kCritical);
  f.gpus.push_back(gpu.key);
  const std::string label = GpuLabel(g);
  if (early) {
    f.title = Text{fmt::format("{} is still registering with the NVLink fabric", label),
                   fmt::format("{} 仍在向 NVLink 互联注册", label)};
  } else if (started) {
    f.title = Text{fmt::format("{} is stuck registering with the NVLink fabric", label),
                   fmt::format("{} 的 NVLink 互联注册停滞在进行中", label)};
  } else {
    f.title = Text{fmt::format("{} has not registered with the NVLink fabric: Fabric Manager has not "
                               "set it up",
                               label),
                   fmt::format("{} 尚未注册到 NVLink 互联：Fabric Manager 未完成配置", label)};
  }
  f.explanation = Text{
      "On NVSwitch systems Fabric Manager registers every GPU with the NVLink fabric after boot. "
      "Until the registration completes, CUDA fails to initialise with error 802 (\"system not "
      "yet initialized\") and NCCL cannot use NVLink. Not started means Fabric Manager is not "
      "running or has not reached this GPU; in progress minutes after boot means it is stuck.",
      "在 NVSwitch 系统上，Fabric Manager 会在开机后把每块 GPU 注册到 NVLink 互联。注册完成之前，CUDA "
      "初始化会失败并报错误 802（`system not yet initialized`），NCCL 无法使用 NVLink。"
      "未开始表示 Fabric Manager 未运行或尚未处理该 GPU；开机数分钟后仍在进行中表示注册已停滞。"};
  f.evidence.push_back(Measured(
      Text{fmt::format("fabric state: {}", FabricStateName(fabric.state)),
           fmt::format("互联状态：{}", FabricStateName(fabric.state))},
      static_cast<double>(static_cast<int>(fabric.state)), "state"));
  if (uptime_s) {
    f.evidence.push_back(Measured(Text{fmt::format("booted {} s ago", FormatNumber(*uptime_s, 0)),
                                       fmt::format("开机已 {} 秒", FormatNumber(*uptime_s, 0))},
                                  *uptime_s, "seconds"));
  }
  AddActions(f);
}

void Failed(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  const GpuFabric& fabric = *g.fabric;
  Finding& f = out.Add(Severity::kCritical);
  f.gpus.push_back(gpu.key);
  const std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} failed to register with the NVLink fabric", label),
                 fmt::format("{} 注册 NVLink 互联失败", label)};
  f.explanation = Text{
      "Fabric Manager finished registering this GPU with an error, so it is not part of the "
      "NVLink fabric: CUDA and NCCL cannot use NVLink to its peers. Fabric Manager's log says "
      "why (a version mismatch, an NVSwitch or link fault, a partition that is not set up).",
      "Fabric Manager 完成了该 GPU 的注册但返回错误，因此它不在 NVLink 互联中：CUDA 和 NCCL "
      "无法通过 NVLink 与其他 GPU 通信。Fabric Manager 的日志会说明原因（版本不一致、NVSwitch "
      "或链路故障、分区未配置等）。"};
  const std::string status = fabric.status.empty() ? "unknown" : fabric.status;
  f.evidence.push_back(Measured(Text{fmt::format("fabric state completed, status: {}", status),
                                     fmt::format("互联状态已完成，结果：{}", status)},
                                static_cast<double>(fabric.status_code.value_or(-1)), "code"));
  AddActions(f);
}

void NoCluster(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  Finding& f = out.Add(Severity::kWarning);
  f.gpus.push_back(gpu.key);
  const std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} is in no multi-node NVLink domain (cluster UUID is zero)", label),
                 fmt::format("{} 不属于任何多节点 NVLink 域（`cluster UUID` 为零）", label)};
  f.explanation = Text{
      "On GB200 and GB300 systems the GPUs of a rack share one NVLink domain, named by the cluster "
      "UUID and clique id the fabric gives each GPU. A registered GPU with an all-zero cluster "
      "UUID is outside any domain: multi-node NVLink (IMEX) jobs cannot use it.",
      "在 GB200 和 GB300 系统上，一个机柜的 GPU 共享一个 NVLink 域，由互联分配给每块 GPU 的 `cluster "
      "UUID` 和 `clique id` 标识。已注册但 `cluster UUID` 全为零的 GPU 不属于任何域：多节点 NVLink（IMEX）"
      "作业无法使用它。"};
  f.evidence.push_back(Measured(Text{fmt::format("cluster UUID {}, clique id {}", kZeroUuid,
                                                 g.fabric->clique_id.value_or(0)),
                                     fmt::format("`cluster UUID` {}，`clique id` {}", kZeroUuid,
                                                 g.fabric->clique_id.value_or(0))},
                                0, "count"));
  f.actions.push_back(Action{Text{"Check the NVLink domain's partition and the IMEX service.",
                                  "检查 NVLink 域的分区配置和 IMEX 服务。"},
                             "nvidia-smi -q | grep -A6 -i '^ *fabric'; systemctl status nvidia-imex"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const std::optional<double> uptime_s = input.host ? input.host->uptime_s : std::nullopt;
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    if (g.state != GpuState::kOk || !g.fabric) continue;
    switch (g.fabric->state) {
      case FabricState::kNotSupported: break;
      case FabricState::kNotStarted:
      case FabricState::kInProgress: Unregistered(gpu, uptime_s, out); break;
      case FabricState::kCompleted:
        if (g.fabric->status_code != 0 && !g.fabric->status.empty()) {
          Failed(gpu, out);
        } else if (MultiNodeNvlink(g) && g.fabric->cluster_uuid == kZeroUuid) {
          NoCluster(gpu, out);
        }
        break;
    }
  }
}

}  // namespace fabric_registration_rule
}  // namespace

const Rule kNvlinkFabricRegistrationRule{
    "nvlink.fabric_registration", "nvlink",
    "A GPU not registered with the NVLink fabric (not started, stuck, failed, or outside its "
    "multi-node domain)",
    kNeedsGpuReadings, fabric_registration_rule::Evaluate};

}  // namespace gpudoctor
