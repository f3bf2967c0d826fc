// clocks.hw_slowdown: the HW slowdown reason without the thermal or power
// brake reasons, and without a high temperature, that would explain it. The
// hardware cut its clocks (by half or more) on an external signal: the power
// supply, or a thermal sensor of the board or system (field notes: "HW
// Slowdown without high temperature").
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace clocks_hw_slowdown_rule {

// Readings with HW slowdown that nothing else explains, and readings with a mask.
struct Counts {
  std::size_t unexplained = 0;
  std::size_t with_mask = 0;
};

Counts CountUnexplained(const GpuSeries& gpu, double high_c) {
  const std::uint64_t hw = ClockReasonBit("hw_slowdown");
  const std::uint64_t explained = ClockReasonBit("hw_thermal_slowdown") |
                                  ClockReasonBit("sw_thermal_slowdown") |
                                  ClockReasonBit("hw_power_brake_slowdown");
  Counts c;
  for (const GpuStatus& r : gpu.readings) {
    if (!r.clock_event_reasons_mask) continue;
    ++c.with_mask;
    std::uint64_t mask = *r.clock_event_reasons_mask;
    bool hot = r.temperature_c && static_cast<double>(*r.temperature_c) >= high_c;
    if ((mask & hw) != 0 && (mask & explained) == 0 && !hot) ++c.unexplained;
  }
  return c;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const double high_c = input.config.thresholds.temperature_high_c;
  for (const GpuSeries& gpu : input.gpus) {
    Counts c = CountUnexplained(gpu, high_c);
    if (c.unexplained == 0) continue;
    double share = static_cast<double>(c.unexplained) / static_cast<double>(c.with_mask);
    // One reading in a longer window may be a P-state change (NVML notes it
    // can show then); repeated or sustained is a real slowdown.
    bool repeated = c.unexplained >= 2 || share >= input.config.sustained_fraction;
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(repeated ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{}: the hardware cut its clocks (HW slowdown)", label),
                   fmt::format("{}：硬件强制降频（HW Slowdown）", label)};
    f.explanation = Text{
        "HW slowdown means the hardware itself cut the clocks, by half or more, on a signal from "
        "outside the GPU's own thermal control: usually the power supply or a thermal sensor of "
        "the board or the system. The GPU was not hot enough to explain it, and no power brake "
        "was reported with it." +
            std::string(repeated ? ""
                                 : " A single occurrence can also come from a P-state change."),
        "HW Slowdown 表示硬件自身将频率降低一半或更多，信号来自 GPU 自身温控之外：通常是电源，"
        "或板卡、系统上的温度传感器。GPU 的温度不足以解释这次降频，同时也没有功率刹车信号。" +
            std::string(repeated ? "" : "仅出现一次时，也可能来自 P-state 切换。")};
    f.evidence.push_back(perf::ReasonShareEvidence(share, c.with_mask, "HW slowdown (unexplained)",
                                                   "无其他原因的硬件降频"));
    if (g.clocks_sm_mhz && g.clocks_max_sm_mhz) {
      f.evidence.push_back(perf::Measured(
          fmt::format("SM clock {} MHz of {} MHz max", *g.clocks_sm_mhz, *g.clocks_max_sm_mhz),
          fmt::format("SM 频率 {} MHz，最高 {} MHz", *g.clocks_sm_mhz, *g.clocks_max_sm_mhz),
          static_cast<double>(*g.clocks_sm_mhz), "megahertz"));
    }
    f.actions.push_back(Action{
        Text{"Check the GPU's power cables and the power supply (capacity, redundancy, faults).",
             "检查 GPU 的供电线缆和电源（容量、冗余、故障）。"},
        ""});
    f.actions.push_back(Action{
        Text{"Read the system's sensors and event log on the BMC for power or thermal events.",
             "通过 BMC 查看系统传感器和事件日志中的电源或温度事件。"},
        "sudo ipmitool sdr elist && sudo ipmitool sel elist"});
    f.actions.push_back(Action{
        Text{"On a cloud instance, report the host to the provider with the times of the slowdown.",
             "云服务器上请向云厂商报告该宿主机，并附上降频发生的时间。"},
        ""});
  }
}

}  // namespace clocks_hw_slowdown_rule
}  // namespace

const Rule kHwSlowdownRule{"clocks.hw_slowdown", "clocks",
                           "HW slowdown with no thermal or power-brake reason or high temperature "
                           "to explain it",
                           kNeedsGpuReadings, clocks_hw_slowdown_rule::Evaluate};

}  // namespace gpudoctor
