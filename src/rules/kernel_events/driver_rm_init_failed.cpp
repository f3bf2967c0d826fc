// driver.rm_init_failed: the driver could not initialise a GPU
// ("RmInitAdapter failed!", "Cannot initialize GSP firmware RM", the kernel's
// "probe ... failed", "The NVIDIA probe routine failed"). Critical: the GPU
// is unusable until fixed. Says what the log shows before it: a loss from
// the bus, GSP failures, or a GPU the driver does not support. Lines that
// name no GPU belong to the one GPU the other failures name, when they name
// one only.
#include <fmt/format.h>

#include <algorithm>

#include "parse/kernel_events.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace driver_rm_init_failed_rule {

using events::EventList;

bool Any(const EventList& group, std::string_view detail) {
  for (const KernelEvent* e : group) {
    if (e->detail == detail) return true;
  }
  return false;
}

// What the log shows of the same GPU besides the failures.
struct Context {
  bool lost = false;
  bool gsp = false;
};

Context ContextOf(const DiagnosisInput& input, const std::string& bus) {
  Context c;
  if (bus.empty()) return c;
  for (const KernelEvent& e : events::AllEvents(input)) {
    if (e.pci_bus_id != bus) continue;
    c.lost = c.lost || IndicatesGpuLost(e);
    c.gsp = c.gsp || e.kind == KernelEventKind::kGspTimeout ||
            e.kind == KernelEventKind::kGspHeartbeat ||
            (e.code && (*e.code == 119 || *e.code == 120));
  }
  return c;
}

void Explain(const EventList& group, Context c, Finding& f) {
  f.explanation = Text{
      "The driver could not initialise the GPU, so it is unusable: nvidia-smi does not list it or "
      "fails. Common causes: the GPU fell off the bus, GSP firmware failed to start, PCI resources "
      "(BARs) could not be assigned, or the driver does not support this GPU.",
      "驱动无法初始化该 GPU，因此它不可用：`nvidia-smi` 不显示它或直接报错。常见原因：GPU "
      "已从总线掉线、"
      "GSP 固件启动失败、无法分配 PCI 资源（BAR），或驱动不支持该 GPU。"};
  if (c.lost) {
    f.explanation.en +=
        " The log shows the same GPU falling off the bus: that is the cause to chase.";
    f.explanation.zh += "日志显示同一 GPU 曾从总线掉线：这才是需要追查的原因。";
  }
  if (c.gsp || Any(group, "GSP firmware init")) {
    f.explanation.en += " GSP firmware errors are logged for it: see the GSP finding.";
    f.explanation.zh += "日志中有该 GPU 的 GSP 固件错误：请参见 GSP 相关发现。";
  }
  if (Any(group, "unsupported GPU")) {
    f.explanation.en +=
        " The driver says it does not support this GPU: install a driver that does.";
    f.explanation.zh += "驱动表示不支持该 GPU：请安装支持它的驱动版本。";
  }
}

void AddActions(Finding& f) {
  f.actions.push_back(Action{
      Text{"Check that the GPU still answers on the bus: a line ending in (rev ff) means it does "
           "not.",
           "检查 GPU 是否仍响应总线访问：设备行以 `(rev ff)` 结尾表示已无响应。"},
      "lspci -d 10de: -nn"});
  f.actions.push_back(Action{
      Text{"Read the kernel log around the failure for BAR assignment and firmware messages.",
           "查看失败前后的内核日志，寻找 BAR 分配和固件相关信息。"},
      "sudo dmesg | grep -i -E 'NVRM|BAR|nvidia'"});
  f.actions.push_back(Action{
      Text{"Check that the loaded kernel module matches the installed driver and the running "
           "kernel (rebuild it with DKMS after a kernel update).",
           "确认已加载的内核模块与安装的驱动及当前内核一致（内核升级后需用 DKMS 重新编译）。"},
      "cat /proc/driver/nvidia/version; modinfo nvidia | grep ^version"});
  f.actions.push_back(Action{
      Text{"Power the node fully off and on (a warm reboot may not reset the GPU); if it still "
           "fails, reseat the GPU or have it replaced.",
           "将节点完全断电后再开机（热重启可能无法复位 GPU）；若仍失败，请重新插拔或更换该 GPU。"},
      ""});
  f.actions.push_back(events::CollectBugReportAction());
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList failures =
      events::EventsOfKind(input, {KernelEventKind::kRmInitFailed, KernelEventKind::kProbeFailed});
  auto groups = events::ByGpu(failures);
  // "RmInitAdapter: Cannot initialize GSP firmware RM" names no GPU; the
  // "GPU 0000:01:00.0: RmInitAdapter failed!" after it does: one GPU's
  // failure when the log names no other.
  if (groups.size() == 2 && (groups[0].first.empty() || groups[1].first.empty())) {
    auto& named = groups[0].first.empty() ? groups[1] : groups[0];
    auto& unnamed = groups[0].first.empty() ? groups[0] : groups[1];
    named.second.insert(named.second.end(), unnamed.second.begin(), unnamed.second.end());
    std::stable_sort(named.second.begin(), named.second.end(),
                     [&failures](const KernelEvent* a, const KernelEvent* b) {
                       return std::find(failures.begin(), failures.end(), a) <
                              std::find(failures.begin(), failures.end(), b);
                     });
    groups.erase(groups[0].first.empty() ? groups.begin() : groups.begin() + 1);
  }
  for (const auto& [bus, group] : groups) {
    Finding& f = out.Add(Severity::kCritical);
    if (!bus.empty()) f.gpus.push_back(bus);
    Text label = events::GpuText(input, bus);
    std::size_t times = events::TotalCount(group);
    f.title = Text{fmt::format("The driver could not initialise {} ({} failures)", label.en, times),
                   fmt::format("驱动无法初始化 {}（失败 {} 次）", label.zh, times)};
    Explain(group, ContextOf(input, bus), f);
    events::AddEventEvidence(f, group);
    AddActions(f);
  }
}

}  // namespace driver_rm_init_failed_rule
}  // namespace

const Rule kDriverRmInitFailedRule{
    "driver.rm_init_failed", "driver",
    "The driver could not initialise a GPU (RmInitAdapter failed, probe failed)", kNeedsKernelLog,
    driver_rm_init_failed_rule::Evaluate};

}  // namespace gpudoctor
