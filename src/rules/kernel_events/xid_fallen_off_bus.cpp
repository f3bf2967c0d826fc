// xid.fallen_off_bus: a GPU stopped answering on the PCIe bus (Xid 79, or the
// driver's "fallen off the bus" message, also at load time without an Xid).
// Always critical: the GPU is gone until the node reboots. When readings or
// other events allow, says which cause they point to: uncorrected PCIe AER
// errors on the GPU or its port just before (the link dropped: one finding,
// "the PCIe link to GPU X dropped", with those lines as evidence), heat just
// before the loss (an Xid 79 twenty seconds after 91 °C), or other PCIe errors
// on the same device (slot, riser, cable).
#include <fmt/format.h>

#include <algorithm>

#include "core/clock_reasons.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace xid_fallen_off_bus_rule {

using events::EventList;

// Readings older than this before the loss say nothing about its cause.
constexpr double kLookbackS = 600;

struct Hot {
  double temperature_c = 0;
  bool thermal_slowdown = false;
  std::optional<double> seconds_before;  // when both times are known
};

// The hottest reading of the GPU before `lost_at` that is at or above the
// high-temperature threshold, or shows thermal slowdown.
std::optional<Hot> HotBefore(const DiagnosisInput& input, const GpuSeries& gpu,
                             std::optional<WallTime> lost_at) {
  const std::uint64_t thermal_bits =
      ClockReasonBit("sw_thermal_slowdown") | ClockReasonBit("hw_thermal_slowdown");
  std::optional<Hot> best;
  for (std::size_t i = 0; i < gpu.readings.size(); ++i) {
    const GpuStatus& r = gpu.readings[i];
    std::optional<WallTime> t = gpu.times[i];
    std::optional<double> before;
    if (lost_at && t) {
      before = std::chrono::duration<double>(*lost_at - *t).count();
      if (*before < 0 || *before > kLookbackS) continue;
    }
    bool slowdown = r.clock_event_reasons_mask && (*r.clock_event_reasons_mask & thermal_bits);
    double temp = r.temperature_c ? static_cast<double>(*r.temperature_c) : 0;
    if (temp < input.config.thresholds.temperature_high_c && !slowdown) continue;
    if (!best || temp >= best->temperature_c) best = Hot{temp, slowdown, before};
  }
  return best;
}

void AddHeat(const DiagnosisInput& input, const std::string& bus, const KernelEvent& first,
             const Text& label, Finding& f) {
  const GpuSeries* gpu = FindGpu(input, bus);
  if (!gpu) return;
  auto hot = HotBefore(input, *gpu, first.time);
  if (!hot) return;
  std::string temp = FormatNumber(hot->temperature_c);
  std::string when_en = hot->seconds_before ? fmt::format(" {} s before it was lost",
                                                          FormatNumber(*hot->seconds_before, 0))
                                            : " in the readings before the loss";
  std::string when_zh = hot->seconds_before
                            ? fmt::format("在掉线前 {} 秒", FormatNumber(*hot->seconds_before, 0))
                            : "在掉线前的读数中";
  std::string slow_en = hot->thermal_slowdown ? " with thermal slowdown active" : "";
  std::string slow_zh = hot->thermal_slowdown ? "，且处于温度降频状态" : "";
  f.evidence.push_back(events::NumberEvidence(
      Text{fmt::format("{} reached {} °C{}{} (threshold {} °C)", label.en, temp, slow_en, when_en,
                       FormatNumber(input.config.thresholds.temperature_high_c)),
           fmt::format("{}{}温度达到 {} °C{}（阈值 {} °C）", label.zh, when_zh, temp, slow_zh,
                       FormatNumber(input.config.thresholds.temperature_high_c))},
      hot->temperature_c, "celsius"));
  f.explanation.en +=
      fmt::format(" {} reached {} °C{}: this points to cooling first.", label.en, temp, when_en);
  f.explanation.zh +=
      fmt::format("{}{}温度达到 {} °C：首先应怀疑散热问题。", label.zh, when_zh, temp);
}

// The AER reports of a failing link that come just before the loss.
EventList LinkLossBefore(const DiagnosisInput& input, const EventList& lost) {
  EventList out;
  for (const KernelEvent* e : events::EventsOfKind(input, {KernelEventKind::kPcieAer})) {
    if (!events::IsLinkLossAer(*e)) continue;
    const bool port = events::IsPortLinkLossAer(input, *e);
    for (const KernelEvent* l : lost) {
      bool loss = l->kind == KernelEventKind::kFallenOffBus || l->code == 79;
      if (loss && (port ? events::PortLossPrecedes(*e, *l) : events::AerExplainsLoss(*e, *l))) {
        out.push_back(e);
        break;
      }
    }
  }
  return out;
}

// Uncorrected AER errors on the GPU or its port, then the loss: the link
// dropped. Returns true when it told that story.
bool AddLinkLoss(const DiagnosisInput& input, const EventList& lost, const Text& label,
                 const std::string& tag, Finding& f) {
  EventList aer = LinkLossBefore(input, lost);
  if (aer.empty()) return false;
  bool surprise = std::any_of(aer.begin(), aer.end(), [](const KernelEvent* e) {
    return e->detail.find("surprise down") != std::string::npos;
  });
  f.title =
      Text{fmt::format("The PCIe link to {} dropped{}: slot, riser, cable or power", label.en, tag),
           fmt::format("到 {} 的 PCIe 链路断开{}：插槽、转接卡、线缆或供电问题", label.zh, tag)};
  // A port's own loss (no line ties the port to the GPU): name both.
  auto port = std::find_if(aer.begin(), aer.end(), [&input](const KernelEvent* e) {
    return events::IsPortLinkLossAer(input, *e);
  });
  if (port != aer.end()) {
    const KernelEvent& p = **port;
    std::string what =
        p.detail.find("surprise down") != std::string::npos ? "Surprise Down" : "fatal error";
    f.title =
        Text{fmt::format("The link above {} failed at {} (AER {} on port {}), then the GPU "
                         "fell off the bus{}",
                         label.en, events::EventWhenText(p), what, p.pci_bus_id, tag),
             fmt::format("{} 上方的链路在 {} 断开（端口 {} 报告 AER {}），随后 GPU 从总线掉线{}",
                         label.zh, events::EventWhenText(p), p.pci_bus_id,
                         what == "fatal error" ? "致命错误" : what, tag)};
  }
  f.explanation = Text{
      fmt::format("PCIe Advanced Error Reporting logged uncorrectable errors on the link to {}{} "
                  "and the kernel could not recover it; then the GPU fell off the bus. The link "
                  "itself failed, not the driver: the slot, the riser, the cable or the power to "
                  "the card, more rarely the GPU. A reboot brings it back until it drops again.",
                  label.en, surprise ? " (Surprise Down: the link went away)" : ""),
      fmt::format("PCIe 高级错误报告（AER）记录了到 {} 的链路上的不可纠正错误{}，内核无法恢复，"
                  "随后 GPU 从总线掉线。出故障的是链路本身而不是驱动：插槽、转接卡、线缆或该卡的供电，"
                  "较少是 GPU 本身。重启可以恢复，但会再次掉线。",
                  label.zh, surprise ? "（Surprise Down：链路突然断开）" : "")};
  events::AddEventEvidence(f, aer, 8);
  return true;
}

void AddPcie(const DiagnosisInput& input, const std::string& bus, Finding& f) {
  EventList aer;
  for (const KernelEvent* e : events::EventsOfKind(input, {KernelEventKind::kPcieAer})) {
    if (!bus.empty() && e->pci_bus_id == bus && !events::IsLinkLossAer(*e)) aer.push_back(e);
  }
  std::int64_t replays = 0;
  if (const GpuSeries* gpu = FindGpu(input, bus)) {
    for (const GpuStatus& r : gpu->readings)
      replays = std::max(replays, r.pcie_replay_count.value_or(0));
  }
  if (aer.empty() && replays == 0) return;
  events::AddEventEvidence(f, aer, 5);
  if (replays > 0) {
    f.evidence.push_back(
        events::NumberEvidence(Text{fmt::format("PCIe replay counter {} on the same GPU", replays),
                                    fmt::format("同一 GPU 的 PCIe 重传计数为 {}", replays)},
                               static_cast<double>(replays), "count"));
  }
  f.explanation.en +=
      " PCIe errors on the same device (AER reports, link replays) point to the slot, riser or "
      "cable.";
  f.explanation.zh += "同一设备上的 PCIe 错误（AER 报告、链路重传）指向插槽、转接卡或线缆。";
}

void AddActions(const std::string& bus, Finding& f) {
  f.actions.push_back(events::DrainAction(bus));
  f.actions.push_back(
      Action{Text{"Confirm the loss: an NVIDIA line ending in (rev ff) means the device no longer "
                  "answers on the bus.",
                  "确认掉卡：NVIDIA 设备行以 `(rev ff)` 结尾表示该设备已不再响应总线访问。"},
             "lspci -d 10de: -nn"});
  f.actions.push_back(events::CollectBugReportAction());
  f.actions.push_back(events::RebootAction());
  f.actions.push_back(Action{
      Text{"If it happens again, reseat the GPU and check its power cables, riser and slot (on a "
           "cloud instance, ask the provider to).",
           "若再次发生，请重新插拔该 "
           "GPU，并检查其供电线缆、转接卡和插槽（云服务器请让云厂商处理）。"},
      ""});
  f.actions.push_back(Action{Text{"If it still recurs, have the GPU replaced (RMA).",
                                  "若仍反复出现，请更换该 GPU（RMA）。"},
                             ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList lost =
      events::WithDerived(input, events::XidEventsOwnedBy(input, events::XidOwner::kFallenOffBus),
                          KernelEventKind::kFallenOffBus);
  for (const auto& [bus, group] : events::ByGpu(lost)) {
    Text label = events::GpuText(input, bus);
    bool xid =
        std::any_of(group.begin(), group.end(), [](const KernelEvent* e) { return e->code == 79; });
    Finding& f = out.Add(Severity::kCritical);
    if (!bus.empty()) f.gpus.push_back(bus);
    if (xid) f.xids.push_back(79);
    std::string tag = xid ? " (Xid 79)" : "";
    f.title = Text{fmt::format("{} has fallen off the bus{}", label.en, tag),
                   fmt::format("{} 已从总线掉线{}", label.zh, tag)};
    f.explanation = Text{
        "The GPU stopped answering on the PCIe bus: every job on it failed and NVML reports it "
        "lost. NVIDIA's catalog asks for a node reboot, as a GPU reset rarely works. The usual "
        "causes, most frequent first: power delivery, the PCIe slot, riser or cable, heat, then "
        "a failing GPU.",
        "GPU 已不再响应 PCIe 总线访问：其上所有任务失败，NVML 报告该 GPU 丢失。NVIDIA 的 Xid "
        "目录要求重启节点，重置 GPU 通常无效。常见原因按频率依次为：供电、PCIe 插槽/转接卡/线缆、"
        "过热，最后才是 GPU 本身故障。"};
    bool link = AddLinkLoss(input, group, label, tag, f);
    std::size_t times = events::TotalCount(group);
    if (times > 1) {
      f.explanation.en += fmt::format(
          " It happened {} times here: a recurring loss points to "
          "hardware.",
          times);
      f.explanation.zh += fmt::format("此处共发生 {} 次：反复掉卡指向硬件问题。", times);
    }
    events::AddEventEvidence(f, group);
    if (!link) AddHeat(input, bus, *group.front(), label, f);
    AddPcie(input, bus, f);
    AddActions(bus, f);
  }
}

}  // namespace xid_fallen_off_bus_rule
}  // namespace

const Rule kXidFallenOffBusRule{
    "xid.fallen_off_bus", "xid",
    "A GPU fell off the bus (Xid 79 or the driver's message), with PCIe link loss (AER), heat "
    "or PCIe correlations",
    kNeedsXidEvents, xid_fallen_off_bus_rule::Evaluate};

}  // namespace gpudoctor
