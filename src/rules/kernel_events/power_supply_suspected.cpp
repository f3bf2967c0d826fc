// power.supply_suspected: two or more GPUs lost within a few seconds of each
// other (Xid 79, fallen off the bus, or NVML reporting them lost). GPUs
// rarely fail together; what they share is the power supply, so this points
// to the PSU and power delivery rather than to the GPUs. Stronger when the
// readings show high draw just before (three GPUs lost within one second
// under full load).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "parse/kernel_events.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace power_supply_suspected_rule {

using events::EventList;

// Losses this close together count as one event of the supply.
constexpr double kTogetherS = 5;
// Draw at or above this share of the limit just before the loss counts as high.
constexpr double kHighDrawRatio = 0.8;

struct Loss {
  std::string bus;
  double at_s = 0;                     // wall seconds since the epoch, or seconds since boot
  const KernelEvent* event = nullptr;  // null: NVML reported it lost
  std::optional<WallTime> time;
};

// The first loss of each GPU, split into those with wall times, those with
// only seconds since boot, and the bus ids of those with neither.
struct Losses {
  std::vector<Loss> wall, boot;
  std::set<std::string> untimed;
};

Losses CollectLosses(const DiagnosisInput& input) {
  Losses out;
  std::set<std::string> seen;
  // A loss event naming no GPU (NVML's for a GPU lost before it was first
  // seen) is kept aside: it is the loss that GPU's own readings show.
  std::vector<Loss> unnamed_events;
  for (const KernelEvent& e : events::AllEvents(input)) {
    if (!IndicatesGpuLost(e)) continue;
    if (e.pci_bus_id.empty() && e.time) {
      unnamed_events.push_back(
          {"", std::chrono::duration<double>(e.time->time_since_epoch()).count(), &e, e.time});
      continue;
    }
    if (!seen.insert(e.pci_bus_id).second) continue;
    if (e.time) {
      out.wall.push_back({e.pci_bus_id,
                          std::chrono::duration<double>(e.time->time_since_epoch()).count(), &e,
                          e.time});
    } else if (e.monotonic_s) {
      out.boot.push_back({e.pci_bus_id, *e.monotonic_s, &e, std::nullopt});
    } else {
      out.untimed.insert(e.pci_bus_id);
    }
  }
  for (const GpuSeries& gpu : input.gpus) {
    for (std::size_t i = 0; i < gpu.readings.size(); ++i) {
      if (gpu.readings[i].state != GpuState::kLost || !gpu.times[i]) continue;
      if (seen.insert(gpu.key).second) {
        double at = std::chrono::duration<double>(gpu.times[i]->time_since_epoch()).count();
        out.wall.push_back({gpu.key, at, nullptr, gpu.times[i]});
      }
      break;
    }
  }
  // Each unnamed event is one GPU: a GPU whose readings show a loss near it
  // that no event named (the agent wrote the event from those readings;
  // counted once, by its series), else a GPU of its own (one at most:
  // events that name no GPU cannot tell two apart).
  for (const Loss& e : unnamed_events) {
    const bool same = std::any_of(out.wall.begin(), out.wall.end(), [&](const Loss& l) {
      return l.event == nullptr && std::abs(l.at_s - e.at_s) <= kTogetherS;
    });
    if (!same && seen.insert("").second) out.wall.push_back(e);
  }
  return out;
}

// Groups of losses of two or more GPUs, each within kTogetherS of its first.
std::vector<std::vector<Loss>> Together(std::vector<Loss> losses) {
  std::sort(losses.begin(), losses.end(),
            [](const Loss& a, const Loss& b) { return a.at_s < b.at_s; });
  std::vector<std::vector<Loss>> groups;
  for (std::size_t i = 0; i < losses.size();) {
    std::size_t j = i;
    while (j < losses.size() && losses[j].at_s - losses[i].at_s <= kTogetherS) ++j;
    if (j - i >= 2) groups.emplace_back(losses.begin() + i, losses.begin() + j);
    i = j;
  }
  return groups;
}

// Evidence of each GPU's draw in its last reading before the loss; true when
// one of them drew a high share of its limit.
bool AddDraw(const DiagnosisInput& input, const std::vector<Loss>& group, Finding& f) {
  bool high = false;
  double total_w = 0;
  for (const Loss& loss : group) {
    const GpuSeries* gpu = FindGpu(input, loss.bus);
    if (!gpu) continue;
    auto at = events::LastReadingAtOrBefore(*gpu, loss.time);
    while (at && *at > 0 && !gpu->readings[*at].power_draw_w) at = *at - 1;
    if (!at || !gpu->readings[*at].power_draw_w) continue;
    const GpuStatus& r = gpu->readings[*at];
    double draw = *r.power_draw_w;
    total_w += draw;
    std::string limit = r.power_limit_w ? FormatNumber(*r.power_limit_w, 0) : "?";
    high = high || (r.power_limit_w && draw >= kHighDrawRatio * *r.power_limit_w);
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("{} drew {} W of its {} W limit just before it was lost", GpuLabel(r),
                         FormatNumber(draw, 0), limit),
             fmt::format("{} 掉线前功耗 {} W（上限 {} W）", GpuLabel(r), FormatNumber(draw, 0),
                         limit)},
        draw, "watts"));
  }
  if (total_w > 0 && input.config.psu_capacity_w) {
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("these GPUs drew {} W together; configured PSU capacity {} W",
                         FormatNumber(total_w, 0), FormatNumber(*input.config.psu_capacity_w, 0)),
             fmt::format("这些 GPU 合计功耗 {} W；配置的电源容量 {} W", FormatNumber(total_w, 0),
                         FormatNumber(*input.config.psu_capacity_w, 0))},
        total_w, "watts"));
  }
  return high;
}

void AddActions(Finding& f) {
  f.actions.push_back(Action{
      Text{"Compare the PSU capacity with the GPUs' total board power plus CPU and the rest, "
           "with at least 20 % headroom.",
           "核对电源容量是否不低于所有 GPU 的板卡功耗、CPU 及其他部件之和，并留出至少 20 % 余量。"},
      "nvidia-smi -q -d POWER"});
  f.actions.push_back(
      Action{Text{"Read the power supplies' and the board's event log in the BMC for PSU faults or "
                  "power-brake events.",
                  "在 BMC 中查看电源和主板的事件日志，寻找电源故障或功率制动事件。"},
             "sudo ipmitool sel list"});
  f.actions.push_back(Action{
      Text{"Check the GPUs' power cables and how they share rails; reproduce with a full load on "
           "all GPUs at once while recording power every second.",
           "检查 GPU 供电线缆及其共用供电路的情况；在所有 GPU 同时满载时复现，并每秒记录功耗。"},
      "nvidia-smi dmon -s pu -d 1"});
  f.actions.push_back(Action{
      Text{"Until the supply is fixed, lowering the GPUs' power limit can keep the node up; on a "
           "cloud instance report the host to the provider. Do not replace the GPUs first.",
           "在供电问题解决前，降低 GPU 功耗上限可维持节点运行；云服务器请向云厂商报告该宿主机。"
           "不要先更换 GPU。"},
      "sudo nvidia-smi -pl <W>"});
}

void Report(const DiagnosisInput& input, const std::vector<Loss>& group, RuleOutput& out) {
  Finding& f = out.Add(Severity::kCritical);
  for (const Loss& loss : group) {
    if (!loss.bus.empty()) f.gpus.push_back(loss.bus);
    if (loss.event && loss.event->code == 79) f.xids.push_back(79);
  }
  std::string span = FormatNumber(group.back().at_s - group.front().at_s, 1);
  f.title =
      Text{fmt::format("{} GPUs lost within {} s: suspect the power supply", group.size(), span),
           fmt::format("{} 块 GPU 在 {} 秒内相继掉线：怀疑电源供电问题", group.size(), span)};
  f.explanation = Text{
      "Several GPUs that drop at the same moment rarely all failed at once: what they share is the "
      "power supply. Typical causes are a PSU too small for the load step, a loose or shared power "
      "cable, or several GPUs on one rail.",
      "多块 GPU "
      "在同一时刻掉线，很少是它们同时损坏：它们共用的是电源。常见原因是电源容量不足以承受负载"
      "突增、供电线缆松动或共用，或多块 GPU 挂在同一供电路上。"};
  EventList lost;
  for (const Loss& loss : group) {
    if (loss.event) lost.push_back(loss.event);
  }
  events::AddEventEvidence(f, lost);
  if (AddDraw(input, group, f)) {
    f.explanation.en +=
        " The GPUs were drawing high power just before they dropped, the telltale "
        "of a supply that cannot hold the load.";
    f.explanation.zh += "这些 GPU 掉线前功耗很高，这正是电源扛不住负载的典型特征。";
  }
  AddActions(f);
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  Losses losses = CollectLosses(input);
  for (const auto& group : Together(losses.wall)) Report(input, group, out);
  for (const auto& group : Together(losses.boot)) Report(input, group, out);
  std::size_t lost = losses.wall.size() + losses.boot.size() + losses.untimed.size();
  if (!losses.untimed.empty() && lost >= 2) {
    out.NotCheckedBecause(
        Text{fmt::format("{} GPUs were lost, but the log gives no time for {} of them: cannot tell "
                         "whether they dropped together",
                         lost, losses.untimed.size()),
             fmt::format("共有 {} 块 GPU 掉线，但日志未给出其中 {} 块的时间：无法判断是否同时掉线",
                         lost, losses.untimed.size())});
  }
}

}  // namespace power_supply_suspected_rule
}  // namespace

const Rule kPowerSupplySuspectedRule{
    "power.supply_suspected", "power",
    "Two or more GPUs lost within a few seconds: the power supply, not the GPUs", kNeedsKernelLog,
    power_supply_suspected_rule::Evaluate};

}  // namespace gpudoctor
