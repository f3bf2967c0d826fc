// xid.gsp: the GPU System Processor firmware hung or faulted: Xid 119 (RPC
// timeout), Xid 120 (GSP error), and without an Xid: RPC timeouts, heartbeat
// timeouts, the "GSP Timeout" banner, memory-subsystem errors, the PMU
// halting, failed assertions in kernel_gsp.c (alone a warning however often). Lines that name the GPU only as "GPUn" are that GPU's when the
// log pairs n with a bus id (parse/kernel_events.h) or the readings index a
// GPU as n, else reported as "GPUn"; lines naming no GPU at all are the
// GPU's on a node whose readings and log name only one. Critical when
// repeated or together with a GPU error (Xid 120, a recovery action, a lost
// GPU, init failure, NVML errors); a single timeout without an Xid is a
// warning, a single Xid 119 or 120 critical (the one Xid severity policy,
// knowledge/xid_severity.h: DCGM treats both as fatal). Gives
// NVIDIA's documented workaround (GSP off, proprietary module only) besides
// reset and driver update.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

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

bool IsGspAssertion(const KernelEvent& e) {
  return e.kind == KernelEventKind::kGspTimeout && e.detail.rfind("assertion at ", 0) == 0;
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

// The events of one GPU: by bus id, or by the driver's GPU number when the
// log never paired it with a bus id.
struct GspGroup {
  std::string bus;
  std::optional<int> number;
  EventList events;
};

// The bus id of the GPU the readings index as `number`: nvidia-smi and NVML
// number the GPUs in PCI bus order, as the driver does.
std::string BusOfNumber(const DiagnosisInput& input, int number) {
  for (const GpuSeries& gpu : input.gpus) {
    if (static_cast<int>(gpu.latest().index) == number) return gpu.key;
  }
  return {};
}

// The one GPU that the readings and the log name, or "" when not exactly one.
std::string OnlyGpu(const DiagnosisInput& input) {
  std::set<std::string> buses;
  for (const GpuSeries& gpu : input.gpus) buses.insert(gpu.key);
  for (const KernelEvent& e : events::AllEvents(input)) {
    if (!e.pci_bus_id.empty()) buses.insert(e.pci_bus_id);
  }
  return buses.size() == 1 ? *buses.begin() : std::string();
}

std::vector<GspGroup> GroupByGpu(const DiagnosisInput& input, const EventList& gsp) {
  std::vector<GspGroup> groups;
  const std::string only = OnlyGpu(input);
  for (const KernelEvent* e : gsp) {
    std::string bus = e->pci_bus_id;
    std::optional<int> number;
    if (bus.empty() && e->gpu_number) {
      bus = BusOfNumber(input, *e->gpu_number);
      if (bus.empty()) number = e->gpu_number;
    } else if (bus.empty()) {
      bus = only;  // a heartbeat line names no GPU: on a one-GPU node it is that one
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const GspGroup& g) {
      return g.bus == bus && g.number == number;
    });
    if (it == groups.end()) {
      groups.push_back(GspGroup{bus, number, {}});
      it = std::prev(groups.end());
    }
    it->events.push_back(e);
  }
  return groups;
}

Text GroupLabel(const DiagnosisInput& input, const GspGroup& g) {
  if (g.number) {
    return Text{fmt::format("GPU{} (the driver's number; the log names no bus id for it)",
                            *g.number),
                fmt::format("GPU{}（驱动编号；日志中没有它的总线地址）", *g.number)};
  }
  return events::GpuText(input, g.bus);
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList gsp = events::WithDerived(
      input,
      events::WithDerived(input, events::XidEventsOwnedBy(input, events::XidOwner::kGsp),
                          KernelEventKind::kGspTimeout),
      KernelEventKind::kGspHeartbeat);
  for (const GspGroup& g : GroupByGpu(input, gsp)) {
    const std::string& bus = g.bus;
    const EventList& group = g.events;
    std::size_t times = events::TotalCount(group);
    bool error = GpuInError(input, bus, group);
    // A failed check in kernel_gsp.c alone says the driver saw GSP misbehave
    // (some recur on every runtime power-state wake): repeats of it alone
    // stay a warning; timeouts and faults repeated are critical.
    std::size_t failures = 0;
    for (const KernelEvent* e : group) {
      if (!IsGspAssertion(*e)) failures += e->count;
    }
    Severity severity = failures >= 2 || error ? Severity::kCritical : Severity::kWarning;
    Finding& f = out.Add(std::max(severity, events::XidPolicyFloor(group)));
    if (!bus.empty()) f.gpus.push_back(bus);
    f.xids = events::CodesOf(group);
    Text label = GroupLabel(input, g);
    f.title =
        Text{fmt::format("GSP firmware of {} timed out or failed ({} times)", label.en, times),
             fmt::format("{} 的 GSP 固件超时或出错（{} 次）", label.zh, times)};
    f.explanation = Text{
        "The GPU System Processor runs the driver's resource manager on the GPU. When it stops "
        "answering (Xid 119, RPC or heartbeat timeouts) or faults (Xid 120, a failed assertion in "
        "the driver's kernel_gsp.c), NVML calls hang or fail and jobs on the GPU stall. NVIDIA's "
        "catalog asks for a GPU reset.",
        "GPU 系统处理器（GSP）在 GPU 上运行驱动的资源管理器。当它不再响应（Xid 119、RPC "
        "或心跳超时）"
        "或出错（Xid 120、驱动 kernel_gsp.c 中的断言失败）时，NVML 调用会卡住或失败，GPU 上的任务停滞。NVIDIA 的 Xid 目录要求重置 "
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
                       kNeedsXidEvents, xid_gsp_rule::Evaluate};

}  // namespace gpudoctor
