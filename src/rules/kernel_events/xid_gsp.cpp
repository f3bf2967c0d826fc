// xid.gsp: the GPU System Processor firmware hung or faulted: Xid 119 (RPC
// timeout), Xid 120 (GSP error), RPC timeouts without an Xid, and heartbeat
// timeouts. Critical when repeated or together with a GPU error (Xid 120, a
// recovery action, a lost GPU, init failure, NVML errors); a single timeout is
// a warning. Gives NVIDIA's documented workaround (GSP off, proprietary module
// only) besides reset and driver update. MISSION row 13.
#include <fmt/format.h>

#include <algorithm>

#include "parse/kernel_events.h"
#include "rules/engine/gpu_broken.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace xid_gsp_rule {

using events::EventList;

constexpr const char* kGspOffCommand =
    "echo 'options nvidia NVreg_EnableGpuFirmware=0' | sudo tee /etc/modprobe.d/nvidia-gsp.conf "
    "&& sudo update-initramfs -u && sudo reboot";

// Another sign in the window that the GPU itself is in error.
bool GpuInError(const DiagnosisInput& input, const std::string& bus, const EventList& gsp) {
  if (events::HasCode(gsp, 120)) return true;
  for (const KernelEvent& e : events::AllEvents(input)) {
    // An event that names no GPU (heartbeat timeouts) is judged with the whole log.
    if (!bus.empty() && e.pci_bus_id != bus) continue;
    if (IndicatesGpuLost(e) || e.kind == KernelEventKind::kRecoveryAction ||
        e.kind == KernelEventKind::kRmInitFailed) {
      return true;
    }
  }
  if (const GpuSeries* gpu = FindGpu(input, bus)) {
    return gpu->latest().state != GpuState::kOk || AnswersMostlyWithErrors(gpu->latest());
  }
  return false;
}

// nullopt when the kernel module's flavour is unknown.
std::optional<bool> OpenModule(const DiagnosisInput& input) {
  if (!input.versions || !input.versions->driver.kernel_module) return std::nullopt;
  return input.versions->driver.kernel_module->open_module;
}

void AddGspState(const DiagnosisInput& input, const std::string& bus, Finding& f) {
  const GpuSeries* gpu = FindGpu(input, bus);
  if (!gpu || !gpu->latest().gsp_firmware_version) return;
  const std::string& version = *gpu->latest().gsp_firmware_version;
  f.evidence.push_back(
      EvidenceItem{Text{"GSP firmware version " + version, "GSP 固件版本 " + version}, std::nullopt,
                   "", std::nullopt, std::nullopt});
}

void AddActions(const DiagnosisInput& input, const std::string& bus, Finding& f) {
  f.actions.push_back(events::ResetGpuAction(bus));
  f.actions.push_back(Action{
      Text{"Update the driver to the newest release of its branch: many GSP timeouts are driver "
           "bugs fixed in later releases.",
           "将驱动更新到同一分支的最新版本：许多 GSP 超时是驱动缺陷，已在后续版本中修复。"},
      ""});
  if (OpenModule(input).value_or(false)) {
    f.actions.push_back(
        Action{Text{"This node runs the open kernel module, which requires GSP firmware: the "
                    "NVreg_EnableGpuFirmware=0 workaround does not apply here.",
                    "该节点使用开源内核模块，必须启用 GSP 固件：`NVreg_EnableGpuFirmware=0` "
                    "这一规避方法在此不适用。"},
               ""});
  } else {
    f.actions.push_back(Action{
        Text{"If it recurs, NVIDIA's documented workaround is to turn GSP firmware off. This works "
             "only with the proprietary kernel module (the open module and Blackwell GPUs require "
             "GSP); on RHEL-like systems use dracut -f instead of update-initramfs.",
             "若反复出现，NVIDIA 文档中的规避方法是关闭 GSP "
             "固件。此方法仅适用于闭源内核模块（开源模块和 "
             "Blackwell GPU 必须启用 GSP）；RHEL 类系统请用 `dracut -f` 代替 `update-initramfs`。"},
        kGspOffCommand});
  }
  f.actions.push_back(events::CollectBugReportAction());
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList gsp = events::WithDerived(
      input,
      events::WithDerived(input, events::XidEventsOwnedBy(input, events::XidOwner::kGsp),
                          KernelEventKind::kGspTimeout),
      KernelEventKind::kGspHeartbeat);
  for (const auto& [bus, group] : events::ByGpu(gsp)) {
    std::size_t times = events::TotalCount(group);
    bool error = GpuInError(input, bus, group);
    Finding& f = out.Add(times >= 2 || error ? Severity::kCritical : Severity::kWarning);
    if (!bus.empty()) f.gpus.push_back(bus);
    f.xids = events::CodesOf(group);
    Text label = events::GpuText(input, bus);
    f.title =
        Text{fmt::format("GSP firmware of {} timed out or failed ({} times)", label.en, times),
             fmt::format("{} 的 GSP 固件超时或出错（{} 次）", label.zh, times)};
    f.explanation = Text{
        "The GPU System Processor runs the driver's resource manager on the GPU. When it stops "
        "answering (Xid 119, RPC or heartbeat timeouts) or faults (Xid 120), NVML calls hang or "
        "fail and jobs on the GPU stall. NVIDIA's catalog asks for a GPU reset.",
        "GPU 系统处理器（GSP）在 GPU 上运行驱动的资源管理器。当它不再响应（Xid 119、RPC "
        "或心跳超时）"
        "或出错（Xid 120）时，NVML 调用会卡住或失败，GPU 上的任务停滞。NVIDIA 的 Xid 目录要求重置 "
        "GPU。"};
    if (error) {
      f.explanation.en +=
          " The log or the readings also show the GPU in error, so it will not "
          "recover by itself.";
      f.explanation.zh += "日志或读数同时显示该 GPU 处于错误状态，它不会自行恢复。";
    }
    events::AddEventEvidence(f, group);
    AddGspState(input, bus, f);
    AddActions(input, bus, f);
  }
}

}  // namespace xid_gsp_rule
}  // namespace

const Rule kXidGspRule{"xid.gsp", "xid",
                       "GSP firmware timeouts and errors (Xid 119/120, RPC and heartbeat "
                       "timeouts), with the GSP-off workaround",
                       kNeedsKernelLog, xid_gsp_rule::Evaluate};

}  // namespace gpudoctor
