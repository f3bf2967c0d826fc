// pcie.aer: PCIe Advanced Error Reporting messages about NVIDIA devices (or
// the port above one, in the same burst), one finding per device:
// uncorrected fatal, Surprise Down, "can't recover" or "device recovery
// failed" -> critical; uncorrected non-fatal or a link reset -> warning;
// corrected -> info unless many (then a warning: a marginal slot, riser or
// cable corrects errors until it drops the GPU). Field notes: "replay
// counters and AER correctable errors rising before it drops". When the GPU
// then falls off the bus, xid.fallen_off_bus tells the one story with these
// lines as its evidence, and this rule stays quiet for that GPU. A port's own
// link loss (fatal or Surprise Down) that nothing ties to a GPU is a critical
// host-wide finding (the device below the port is gone), unless a GPU falls
// off the bus within minutes after it: xid.fallen_off_bus then names both.
#include <fmt/format.h>

#include <algorithm>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace pcie_aer_rule {

using events::EventList;

// Corrected errors this many times in the window are worth a warning.
constexpr std::size_t kManyCorrected = 10;

Severity SeverityOf(const EventList& group) {
  bool fatal = false, link_loss = false;
  for (const KernelEvent* e : group) {
    fatal = fatal || events::IsFatalAer(*e);
    link_loss = link_loss || events::IsLinkLossAer(*e);
  }
  if (fatal) return Severity::kCritical;
  if (link_loss || events::TotalCount(group) >= kManyCorrected) return Severity::kWarning;
  return Severity::kInfo;
}

// xid.fallen_off_bus explains the loss with these errors as its evidence:
// one finding for one cause.
bool ExplainedByLoss(const DiagnosisInput& input, const EventList& group) {
  EventList lost = events::EventsOfKind(input, {KernelEventKind::kFallenOffBus});
  for (const KernelEvent* aer : group) {
    if (!events::IsLinkLossAer(*aer)) continue;
    for (const KernelEvent* l : lost) {
      if (events::AerExplainsLoss(*aer, *l)) return true;
    }
  }
  return false;
}

void AddLink(const DiagnosisInput& input, const std::string& bus, Finding& f) {
  const GpuSeries* gpu = FindGpu(input, bus);
  if (!gpu) return;
  const GpuStatus& g = gpu->latest();
  if (g.pcie_replay_count.value_or(0) > 0) {
    f.evidence.push_back(
        events::NumberEvidence(Text{fmt::format("PCIe replay counter {}", *g.pcie_replay_count),
                                    fmt::format("PCIe 重传计数 {}", *g.pcie_replay_count)},
                               static_cast<double>(*g.pcie_replay_count), "count"));
  }
  if (g.pcie_link_width_current && g.pcie_link_width_max &&
      *g.pcie_link_width_current < *g.pcie_link_width_max) {
    f.evidence.push_back(events::NumberEvidence(
        Text{
            fmt::format("PCIe link x{} of x{}", *g.pcie_link_width_current, *g.pcie_link_width_max),
            fmt::format("PCIe 链路宽度 x{}（最大 x{}）", *g.pcie_link_width_current,
                        *g.pcie_link_width_max)},
        static_cast<double>(*g.pcie_link_width_current), "lanes"));
  }
}

// A GPU lost after this port's link loss: the loss finding names both.
bool PortLossExplainsLater(const DiagnosisInput& input, const EventList& port) {
  EventList lost = events::EventsOfKind(input, {KernelEventKind::kFallenOffBus});
  for (const KernelEvent* p : port) {
    for (const KernelEvent* l : lost) {
      if (events::PortLossPrecedes(*p, *l)) return true;
    }
  }
  return false;
}

void ReportPort(const std::string& port, const EventList& group, RuleOutput& out) {
  bool surprise = std::any_of(group.begin(), group.end(), [](const KernelEvent* e) {
    return e->detail.find("surprise down") != std::string::npos;
  });
  Finding& f = out.Add(Severity::kCritical);
  std::string what = surprise ? "Surprise Down" : "uncorrectable fatal error";
  f.title = Text{fmt::format("PCIe link lost on port {} (AER {}) at {}", port, what,
                             events::EventWhenText(*group.front())),
                 fmt::format("PCIe 端口 {} 的链路断开（AER {}），时间 {}", port,
                             surprise ? "Surprise Down" : "不可纠正的致命错误",
                             events::EventWhenText(*group.front()))};
  f.explanation = Text{
      "A PCIe port reported that the link below it failed and could not be recovered. Whatever "
      "sits below the port (a GPU, a switch with GPUs behind it, a NIC) is gone until the node "
      "reboots. Nothing in the log ties this port to a GPU: the PCI tree shows what is below it.",
      "一个 PCIe 端口报告其下方的链路失败且无法恢复。该端口下方的设备（GPU、带有 GPU 的 PCIe "
      "交换芯片或网卡）在节点重启前都不可用。日志中没有把该端口与某块 GPU 联系起来：请查看 PCI "
      "拓扑确认其下方的设备。"};
  events::AddEventEvidence(f, group);
  f.actions.push_back(Action{
      Text{"See which devices sit below the port.", "查看该端口下方有哪些设备。"}, "lspci -tv"});
  f.actions.push_back(
      Action{Text{"Read the port's AER and link status.", "查看该端口的 AER 与链路状态。"},
             "sudo lspci -vvv -s " + port});
  f.actions.push_back(Action{
      Text{"Reseat the card and check the riser, cable and power below the port (on a cloud "
           "instance, report the host to the provider); a reboot brings the link back.",
           "重新插拔该端口下方的卡并检查转接卡、线缆和供电（云服务器请向云厂商报告该宿主机）；"
           "重启可恢复链路。"},
      ""});
  f.actions.push_back(events::CollectBugReportAction());
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList aer = events::EventsOfKind(input, {KernelEventKind::kPcieAer});
  for (const auto& [bus, group] : events::ByGpu(aer)) {
    if (ExplainedByLoss(input, group)) continue;
    const bool port = std::all_of(group.begin(), group.end(), [&input](const KernelEvent* e) {
      return events::IsPortLinkLossAer(input, *e);
    });
    if (port) {
      if (!PortLossExplainsLater(input, group)) ReportPort(bus, group, out);
      continue;
    }
    Severity severity = SeverityOf(group);
    Finding& f = out.Add(severity);
    if (!bus.empty()) f.gpus.push_back(bus);
    Text label = events::GpuText(input, bus);
    std::size_t times = events::TotalCount(group);
    f.title = Text{fmt::format("PCIe errors reported for {} ({} times)", label.en, times),
                   fmt::format("{} 报告 PCIe 错误（{} 次）", label.zh, times)};
    f.explanation = Text{
        "The PCIe link to the device reported errors. Corrected errors cost retries (bandwidth); "
        "uncorrected ones lose transactions and can drop the GPU off the bus. Errors that keep "
        "coming point to the slot, riser or cable.",
        "到该设备的 PCIe 链路报告了错误。可纠正错误会导致重传（占用带宽）；不可纠正错误会丢失事务，"
        "可能导致 GPU 从总线掉线。持续出现的错误指向插槽、转接卡或线缆。"};
    events::AddEventEvidence(f, group);
    AddLink(input, bus, f);
    std::string target = events::SmiTarget(bus);
    f.actions.push_back(Action{
        Text{"Read the device's AER status and link state.", "查看该设备的 AER 状态和链路状态。"},
        "sudo lspci -vvv -s " + target});
    f.actions.push_back(Action{Text{"Watch the GPU's PCIe replay counter and link width.",
                                    "观察该 GPU 的 PCIe 重传计数和链路宽度。"},
                               "nvidia-smi -q -d PCIE -i " + target});
    f.actions.push_back(Action{
        Text{"If the errors continue, reseat the GPU and check its riser and cables (on a cloud "
             "instance, report it to the provider).",
             "若错误持续，请重新插拔 GPU 并检查其转接卡和线缆（云服务器请报告云厂商）。"},
        ""});
    if (severity == Severity::kCritical) f.actions.push_back(events::CollectBugReportAction());
  }
}

}  // namespace pcie_aer_rule
}  // namespace

const Rule kPcieAerRule{"pcie.aer", "pcie",
                        "PCIe AER errors on NVIDIA devices or the port above them: corrected "
                        "(info unless many), uncorrected non-fatal, fatal or Surprise Down, "
                        "failed recovery; a port's own link loss on any port",
                        kNeedsKernelLog, pcie_aer_rule::Evaluate};

}  // namespace gpudoctor
