// fabricmanager.not_running: an NVSwitch system whose nvidia-fabricmanager
// service is not running. Without it the NVSwitch fabric is not set up: the
// GPUs cannot use NVLink and CUDA fails to start with error 802 ("system not
// yet initialized").
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace fabricmanager_not_running_rule {

std::string UnreadReason(const FabricManagerFacts& fm) {
  for (const SourceStatus& s : fm.sources) {
    if (!s.available && s.source.find("fabricmanager.service") != std::string::npos) return s.why;
  }
  return "no service manager was read";
}

void AddStateEvidence(const FabricManagerFacts& fm, Finding& f) {
  const ServiceState& s = *fm.service;
  std::string state =
      fmt::format("{} is {} ({}/{})", s.unit, s.load_state, s.active_state, s.sub_state);
  if (s.exec_main_status)
    state += fmt::format(", main process exited with status {}", *s.exec_main_status);
  f.evidence.push_back(TextEvidence(state, "服务状态：" + Backquoted(state)));
  if (fm.version_matches_driver == false && fm.version && fm.driver) {
    f.evidence.push_back(
        TextEvidence(fmt::format("Fabric Manager {} differs from driver {}: it exits at start",
                                 *fm.version, fm.driver->ToString()),
                     fmt::format("Fabric Manager {} 与驱动 {} 版本不同：启动时会退出", *fm.version,
                                 fm.driver->ToString())));
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const FabricManagerFacts& fm = input.versions->fabric_manager;
  if (!fm.nvswitch_present) return;  // PCIe boards and NVLink bridges do not need it
  if (!fm.service) {
    std::string why = UnreadReason(fm);
    out.NotCheckedBecause(
        Text{"the state of nvidia-fabricmanager.service could not be read: " + why,
             "无法读取 nvidia-fabricmanager.service 的状态：" + Backquoted(why)});
    return;
  }
  if (fm.service->Running()) return;

  // Not installed on the host: under the GPU Operator it runs in the driver
  // container, which this view cannot see, so it is a warning, not a verdict.
  const bool installed = fm.service->Installed();
  Finding& f = out.Add(installed ? Severity::kCritical : Severity::kWarning);
  for (const GpuSeries& gpu : input.gpus) f.gpus.push_back(gpu.key);
  f.title = installed ? Text{"NVSwitch system without a running Fabric Manager: NVLink and CUDA "
                             "cannot work",
                             "NVSwitch 系统上 Fabric Manager 未运行：NVLink 和 CUDA 无法工作"}
                      : Text{"NVSwitch system without the Fabric Manager service installed",
                             "NVSwitch 系统上未安装 Fabric Manager 服务"};
  f.explanation = Text{
      "On NVSwitch systems (HGX / DGX) nvidia-fabricmanager sets up the NVSwitch fabric. Until it "
      "runs, CUDA fails to initialise with error 802 (\"system not yet initialized\"), NCCL "
      "cannot use NVLink, and nvidia-smi -q shows the fabric state as not started or in "
      "progress.",
      "在 NVSwitch 系统（HGX / DGX）上，由 nvidia-fabricmanager 负责配置 NVSwitch "
      "互联。它运行之前，CUDA "
      "初始化会失败并报错误 802（`system not yet initialized`），NCCL 无法使用 NVLink，nvidia-smi "
      "-q "
      "显示的互联状态为未开始或进行中。"};
  if (!installed) {
    f.explanation.en +=
        " If the GPU Operator runs the driver in a container, Fabric Manager runs "
        "there: check it in that container instead.";
    f.explanation.zh +=
        "如果由 GPU Operator 在容器中运行驱动，Fabric Manager 也在该容器中运行，请在容器内检查。";
  }
  AddStateEvidence(fm, f);
  f.actions.push_back(Action{
      Text{"Start it and enable it at boot; install the nvidia-fabricmanager package of exactly "
           "the driver's version if it is missing.",
           "启动该服务并设为开机自启；如果未安装，请安装与驱动版本完全一致的 nvidia-fabricmanager "
           "软件包。"},
      "sudo systemctl enable --now nvidia-fabricmanager"});
  f.actions.push_back(Action{Text{"If it does not stay up, read why it stopped.",
                                  "如果服务无法保持运行，查看其停止的原因。"},
                             "journalctl -u nvidia-fabricmanager -b --no-pager | tail -50"});
  f.actions.push_back(Action{Text{"Then confirm the fabric is set up on every GPU.",
                                  "然后确认每块 GPU 的互联状态已完成配置。"},
                             "nvidia-smi -q | grep -A2 -i fabric"});
}

}  // namespace fabricmanager_not_running_rule
}  // namespace

const Rule kFabricManagerNotRunningRule{
    "fabricmanager.not_running", "fabricmanager",
    "NVSwitch present but the nvidia-fabricmanager service is not running", kNeedsVersions,
    fabricmanager_not_running_rule::Evaluate};

}  // namespace gpudoctor
