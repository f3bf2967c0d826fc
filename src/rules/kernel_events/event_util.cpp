#include "rules/kernel_events/event_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "core/time_format.h"
#include "knowledge/xid_catalog.h"
#include "parse/kernel_events.h"

namespace gpudoctor::events {

XidOwner XidOwnerOf(int code) {
  // Codes whose owner is not their catalog category: 79 is PCIe-bus in the
  // catalog but is the GPU-lost signal; 154 is "other" but has its own
  // remedy logic; 45 is "driver" but is cleanup after an application's or
  // another Xid's fault, judged with the application faults.
  switch (code) {
    case 79:
      return XidOwner::kFallenOffBus;
    case 154:
      return XidOwner::kRecoveryAction;
    case 45:
      return XidOwner::kApplication;
    default:
      break;
  }
  switch (LookupXid(code).category) {
    case XidCategory::kGsp:
      return XidOwner::kGsp;
    case XidCategory::kMemory:
      return XidOwner::kMemory;
    case XidCategory::kApplication:
      return XidOwner::kApplication;
    case XidCategory::kNvlink:
      return XidOwner::kNvlink;
    default:
      return XidOwner::kOther;
  }
}

Severity FromXidSeverity(XidSeverity severity) {
  switch (severity) {
    case XidSeverity::kInfo:
      return Severity::kInfo;
    case XidSeverity::kCritical:
      return Severity::kCritical;
    default:
      return Severity::kWarning;
  }
}

Severity XidPolicyFloor(const EventList& events) {
  Severity floor = Severity::kInfo;
  for (const KernelEvent* e : events) {
    if (!e->code || (e->kind != KernelEventKind::kXid && e->kind != KernelEventKind::kRecoveryAction))
      continue;
    floor = std::max(floor, FromXidSeverity(XidOccurrenceFloor(*e->code, e->detail)));
  }
  return floor;
}

const std::vector<KernelEvent>& AllEvents(const DiagnosisInput& input) {
  static const std::vector<KernelEvent> kNone;
  return input.kernel ? input.kernel->events : kNone;
}

EventList EventsOfKind(const DiagnosisInput& input, std::initializer_list<KernelEventKind> kinds) {
  EventList out;
  for (const KernelEvent& e : AllEvents(input)) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end()) out.push_back(&e);
  }
  return out;
}

EventList XidEventsOwnedBy(const DiagnosisInput& input, XidOwner owner) {
  EventList out;
  for (const KernelEvent* e : EventsOfKind(input, {KernelEventKind::kXid})) {
    if (e->code && XidOwnerOf(*e->code) == owner) out.push_back(e);
  }
  return out;
}

EventList WithDerived(const DiagnosisInput& input, EventList xids, KernelEventKind derived_kind) {
  std::set<std::pair<std::string, std::size_t>> xid_lines;
  for (const KernelEvent* e : xids) xid_lines.emplace(e->source.file, e->source.line);
  for (const KernelEvent* e : EventsOfKind(input, {derived_kind})) {
    // A derived event carries its Xid's code and source line; one without a
    // code (or from another line) is evidence of its own.
    bool copy = e->code && xid_lines.count({e->source.file, e->source.line}) > 0;
    if (!copy) xids.push_back(e);
  }
  // All point into the one event vector, so address order is log order.
  std::sort(xids.begin(), xids.end(), std::less<const KernelEvent*>());
  return xids;
}

std::vector<std::pair<std::string, EventList>> ByGpu(const EventList& events) {
  std::vector<std::pair<std::string, EventList>> out;
  for (const KernelEvent* e : events) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const auto& group) { return group.first == e->pci_bus_id; });
    if (it == out.end()) {
      out.emplace_back(e->pci_bus_id, EventList{});
      it = std::prev(out.end());
    }
    it->second.push_back(e);
  }
  return out;
}

std::vector<EventProcess> ProcessesOf(const KernelEvent& e) {
  std::vector<EventProcess> out;
  if (e.pid || !e.process.empty()) out.push_back(EventProcess{e.pid, e.process});
  out.insert(out.end(), e.other_processes.begin(), e.other_processes.end());
  return out;
}

std::string LeftOutText(std::size_t n, bool at_least, Lang lang) {
  if (lang == Lang::kZh) return (at_least ? "至少另有 " : "另有 ") + std::to_string(n) + " 个";
  return (at_least ? "and at least " : "and ") + std::to_string(n) + " more";
}

std::size_t TotalCount(const EventList& events) {
  std::size_t n = 0;
  for (const KernelEvent* e : events) n += e->count;
  return n;
}

std::vector<int> CodesOf(const EventList& events) {
  std::set<int> codes;
  for (const KernelEvent* e : events) {
    if (e->code && e->kind != KernelEventKind::kSxid) codes.insert(*e->code);
  }
  return {codes.begin(), codes.end()};
}

bool HasCode(const EventList& events, int code) {
  return std::any_of(events.begin(), events.end(), [code](const KernelEvent* e) {
    return e->kind == KernelEventKind::kXid && e->code == code;
  });
}

std::optional<double> SecondsBetween(const KernelEvent& a, const KernelEvent& b) {
  if (a.time && b.time) return std::chrono::duration<double>(*b.time - *a.time).count();
  if (a.monotonic_s && b.monotonic_s) return *b.monotonic_s - *a.monotonic_s;
  return std::nullopt;
}

bool IsLinkLossAer(const KernelEvent& e) {
  if (e.kind != KernelEventKind::kPcieAer) return false;
  const std::string& d = e.detail;
  return d.find("uncorrected") != std::string::npos || d.find("surprise down") != std::string::npos ||
         d == "can't recover" || d == "recovery failed" || d == "link reset";
}

bool IsFatalAer(const KernelEvent& e) {
  if (e.kind != KernelEventKind::kPcieAer) return false;
  const std::string& d = e.detail;
  return d.find("uncorrected fatal") != std::string::npos ||
         d.find("surprise down") != std::string::npos || d == "can't recover" ||
         d == "recovery failed";
}

bool AerExplainsLoss(const KernelEvent& aer, const KernelEvent& lost) {
  // The kernel may print the port's recovery lines just after the Xid 79.
  constexpr double kPrintedAfterS = 5;
  if (aer.pci_bus_id.empty() || aer.pci_bus_id != lost.pci_bus_id) return false;
  if (auto gap = SecondsBetween(aer, lost)) return *gap >= -kPrintedAfterS && *gap <= kAerBeforeLossS;
  return aer.source.file == lost.source.file && aer.source.line <= lost.source.line + 40;
}

bool IsPortLinkLossAer(const DiagnosisInput& input, const KernelEvent& e) {
  if (!IsFatalAer(e) || e.pci_bus_id.empty() || e.message.rfind("pcieport ", 0) != 0) return false;
  // "pcieport 0000:00:03.0: AER: ...": the line is the port's own.
  const std::size_t end = e.message.find(": ", 9);
  if (end == std::string::npos || NormalizePciBusId(e.message.substr(9, end - 9)) != e.pci_bus_id)
    return false;
  return FindGpu(input, e.pci_bus_id) == nullptr;
}

bool PortLossPrecedes(const KernelEvent& port, const KernelEvent& lost) {
  constexpr double kPrintedAfterS = 5;
  if (auto gap = SecondsBetween(port, lost))
    return *gap >= -kPrintedAfterS && *gap <= kAerBeforeLossS;
  return port.source.file == lost.source.file && port.source.line <= lost.source.line + 40 &&
         port.source.line + 400 >= lost.source.line;
}

std::string EventWhenText(const KernelEvent& e) {
  if (e.time) return FormatRfc3339(*e.time);
  if (e.monotonic_s) return fmt::format("{:.0f} s", *e.monotonic_s);
  return fmt::format("{}:{}", e.source.file, e.source.line);
}

std::map<std::string, std::string> UuidByBus(const DiagnosisInput& input) {
  return PciToUuid(AllEvents(input));
}

Text GpuText(const DiagnosisInput& input, const std::string& bus_id) {
  if (bus_id.empty()) return Text{"a GPU the log does not name", "日志未注明的 GPU"};
  if (const GpuSeries* gpu = FindGpu(input, bus_id)) {
    std::string label = GpuLabel(gpu->latest());
    return Text{label, label};
  }
  std::string label = "GPU " + bus_id;
  auto uuids = UuidByBus(input);
  if (auto it = uuids.find(bus_id); it != uuids.end()) label += " (" + it->second + ")";
  return Text{label, label};
}

std::string SmiTarget(const std::string& bus_id) { return bus_id.empty() ? "<N>" : bus_id; }

namespace {

// The log text as evidence: one line, bounded, without backquotes (the
// renderers quote it with them).
std::string Quoted(std::string_view message) {
  std::string s(message.substr(0, 200));
  std::replace(s.begin(), s.end(), '`', '\'');
  if (message.size() > 200) s += "...";
  return "`" + s + "`";
}

EvidenceItem EventItem(const KernelEvent& e) {
  // The item carries the line's file, line number and time, which every
  // renderer shows; the text adds only what they do not: seconds since boot
  // for a line without a date.
  std::string when = !e.time && e.monotonic_s ? fmt::format("[{:.1f} s] ", *e.monotonic_s) : "";
  std::string what;
  if (e.code)
    what = fmt::format("{} {} ", e.kind == KernelEventKind::kSxid ? "SXid" : "Xid", *e.code);
  if (!e.pci_bus_id.empty()) what += "(" + e.pci_bus_id + ") ";
  Text t{fmt::format("{}{}{}", when, what, Quoted(e.message)),
         fmt::format("{}{}{}", when, what, Quoted(e.message))};
  if (!e.pci_not_bus_id.empty()) {
    t.en += fmt::format(" ({} is not a PCI bus id: {})", e.pci_not_bus_id, e.pci_not_bus_id_why);
    t.zh += fmt::format("（{} 不是 PCI 总线地址：{}）", e.pci_not_bus_id, e.pci_not_bus_id_why);
  }
  if (!e.process.empty()) {
    std::string pid = e.pid ? fmt::format(" (pid {})", *e.pid) : "";
    t.en += fmt::format(", process {}{}", Quoted(e.process), pid);
    t.zh += fmt::format("，进程 {}{}", Quoted(e.process), pid);
  } else if (e.pid) {
    // The log named only the pid ("pid=123, name=<unknown>").
    t.en += fmt::format(", process pid {} (name not logged)", *e.pid);
    t.zh += fmt::format("，进程 pid {}（日志未记录名称）", *e.pid);
  }
  if (e.varied_count > 0) {
    // A flood: lines of this cause that differ from this one were counted in.
    t.en += fmt::format(" ({} times in all; {} of them from other lines of this kind)", e.count,
                        e.varied_count);
    t.zh += fmt::format("（共 {} 次，其中 {} 次来自同类的其他日志行）", e.count, e.varied_count);
  } else if (e.count > 1) {
    t.en += fmt::format(" (repeated {} times)", e.count);
    t.zh += fmt::format("（重复 {} 次）", e.count);
  }
  return EvidenceItem{std::move(t), static_cast<double>(e.count), "count", e.source, e.time};
}

}  // namespace

void AddEventEvidence(Finding& f, const EventList& events, std::size_t max_items) {
  for (std::size_t i = 0; i < events.size() && i < max_items; ++i) {
    f.evidence.push_back(EventItem(*events[i]));
  }
  if (events.size() > max_items) {
    std::size_t more = events.size() - max_items;
    f.evidence.push_back(
        NumberEvidence(Text{fmt::format("{} more such events in the log, not listed here", more),
                            fmt::format("日志中另有 {} 条同类事件，此处未列出", more)},
                       static_cast<double>(more), "count"));
  }
}

EvidenceItem NumberEvidence(Text text, double value, std::string unit) {
  return EvidenceItem{std::move(text), value, std::move(unit), std::nullopt, std::nullopt};
}

Action CollectBugReportAction() {
  return Action{Text{"Collect NVIDIA's bug report while the state is fresh (kernel log, NVML "
                     "state, PCI config) and keep it for support or an RMA.",
                     "趁现场仍在，收集 NVIDIA 的 bug 报告（内核日志、NVML 状态、PCI 配置），"
                     "留作技术支持或 RMA 之用。"},
                "sudo nvidia-bug-report.sh"};
}

Action DrainAction(const std::string& bus_id) {
  std::string gpu = bus_id.empty() ? "the GPU" : "GPU " + bus_id;
  std::string gpu_zh = bus_id.empty() ? "该 GPU" : "GPU " + bus_id;
  return Action{Text{fmt::format("Drain the node: stop scheduling new jobs on {} and move the "
                                 "running ones away (Kubernetes cordon/drain, Slurm drain).",
                                 gpu),
                     fmt::format("排空节点：停止向 {} 调度新任务，并迁走正在运行的任务"
                                 "（Kubernetes 的 `cordon`/`drain`，Slurm 的 `drain`）。",
                                 gpu_zh)},
                ""};
}

Action ResetGpuAction(const std::string& bus_id) {
  return Action{Text{"Reset the GPU once no process uses it (the reset is refused while one "
                     "does); if the reset fails, reboot the node.",
                     "在没有进程使用该 GPU 后重置它（仍有进程占用时重置会被拒绝）；"
                     "若重置失败，请重启节点。"},
                "sudo nvidia-smi -r -i " + SmiTarget(bus_id)};
}

Action RebootAction() {
  return Action{Text{"Reboot the node: the driver cannot bring this GPU back without it.",
                     "重启节点：不重启的话驱动无法恢复该 GPU。"},
                "sudo reboot"};
}

std::optional<std::size_t> LastReadingAtOrBefore(const GpuSeries& gpu,
                                                 std::optional<WallTime> when) {
  for (std::size_t i = gpu.readings.size(); i-- > 0;) {
    bool later = when && i < gpu.times.size() && gpu.times[i] && *gpu.times[i] > *when;
    if (!later) return i;
  }
  return std::nullopt;
}

}  // namespace gpudoctor::events
