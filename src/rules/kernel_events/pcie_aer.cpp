// pcie.aer: PCIe Advanced Error Reporting messages about NVIDIA devices (or
// the port above one, in the same burst), one finding per device:
// uncorrected fatal, Surprise Down, "can't recover" or "device recovery
// failed" -> critical; uncorrected non-fatal or a link reset -> warning;
// corrected -> info unless many (then a warning: a marginal slot, riser or
// cable corrects errors until it drops the GPU). Field notes: "replay
// counters and AER correctable errors rising before it drops". When the GPU
// then falls off the bus, xid.fallen_off_bus tells the one story with these
// lines as its evidence, and this rule stays quiet for that GPU.
#include <fmt/format.h>

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

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList aer = events::EventsOfKind(input, {KernelEventKind::kPcieAer});
  for (const auto& [bus, group] : events::ByGpu(aer)) {
    if (ExplainedByLoss(input, group)) continue;
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
                        "failed recovery",
                        kNeedsKernelLog, pcie_aer_rule::Evaluate};

}  // namespace gpudoctor
