// power.brake: the HW power brake slowdown reason. It is not the GPU's own
// choice: the board or the system (PSU, power delivery) asserts an external
// signal when its power budget is exceeded, and the GPU cuts its clocks hard.
// Field notes: the telltale of power is drops and brakes when load starts or
// peaks, often on several GPUs within the same second.
#include <fmt/format.h>

#include "core/clock_reasons.h"
#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace power_brake_rule {

std::uint64_t BrakeBit() { return ClockReasonBit("hw_power_brake_slowdown"); }

std::size_t GpusBraking(const DiagnosisInput& input) {
  std::size_t n = 0;
  for (const GpuSeries& gpu : input.gpus) {
    auto share = ClockReasonShare(gpu, BrakeBit());
    if (share && *share > 0) ++n;
  }
  return n;
}

void AddActions(const GpuStatus& g, Finding& f) {
  f.actions.push_back(Action{
      Text{"Check the power supply: PSU capacity against the sum of all boards' power plus the "
           "CPUs, with at least 20 % headroom; redundant PSUs all present and healthy.",
           "检查电源：电源容量应不低于所有 GPU 板卡功耗与 CPU 功耗之和，并留出至少 20 % 余量；"
           "冗余电源应全部在位且状态正常。"},
      "sudo ipmitool sdr type 'Power Supply'"});
  f.actions.push_back(Action{
      Text{"Look at the system event log of the BMC for power supply and power budget events.",
           "查看 BMC 的系统事件日志中与电源和功率预算有关的事件。"},
      "sudo ipmitool sel elist"});
  f.actions.push_back(Action{
      Text{"Check that the GPU's power cables are firmly seated and not shared between boards.",
           "检查 GPU 的供电线缆是否插紧，且没有多块板卡共用一根线缆。"},
      ""});
  std::string cmd;
  if (g.power_min_limit_w) {
    cmd =
        fmt::format("sudo nvidia-smi -i {} -pl {}", g.index, FormatNumber(*g.power_min_limit_w, 0));
  }
  f.actions.push_back(Action{
      Text{
          "Until the supply is fixed, a lower power limit keeps the load within the budget "
          "(the command sets the lowest allowed limit; choose a value between it and the default).",
          "在电源问题解决之前，调低功率上限可使负载保持在功率预算之内（该命令设为允许的最低值，"
          "可在其与默认值之间选择）。"},
      cmd});
  f.actions.push_back(Action{
      Text{"On a cloud instance, report the host to the provider: the power supply is theirs.",
           "云服务器上请向云厂商报告该宿主机：电源由云厂商负责。"},
      ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const std::size_t braking = GpusBraking(input);
  for (const GpuSeries& gpu : input.gpus) {
    auto share = ClockReasonShare(gpu, BrakeBit());
    if (!share || *share <= 0) continue;
    bool sustained = *share >= input.config.sustained_fraction &&
                     gpu.readings.size() >= kMinReadingsForSustained;
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(sustained ? Severity::kCritical : Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} is slowed by the power brake of its power supply", label),
                   fmt::format("{} 被电源的功率刹车信号降频", label)};
    f.explanation = Text{
        "HW power brake is an external signal: the board or the system's power supply asserts it "
        "when the power budget is exceeded, and the GPU cuts its clocks hard. It points to the "
        "power supply or power delivery (PSU too small or failing, cables), the same cause that "
        "makes GPUs drop off under load, often several within the same second.",
        "硬件功率刹车（HW Power Brake）是外部信号：当功率预算被超出时，由板卡或系统电源发出，GPU "
        "随即大幅降低频率。"
        "它指向电源或供电链路（电源容量不足或故障、线缆问题），这也是 GPU 在高负载下掉卡的原因，"
        "且常常是多块 GPU 在同一秒内掉卡。"};
    f.evidence.push_back(perf::ReasonShareEvidence(*share, gpu.readings.size(),
                                                   "HW power brake slowdown", "功率刹车降频"));
    auto draw = Summarize(perf::RealSeries(gpu, &GpuStatus::power_draw_w));
    if (draw) {
      auto limit = perf::PowerLimitW(g);
      std::string limit_text = limit ? FormatNumber(*limit, 0) : std::string("?");
      f.evidence.push_back(perf::Measured(
          fmt::format("power draw max {} W, avg {} W (limit {} W)", FormatNumber(draw->max, 0),
                      FormatNumber(draw->avg, 0), limit_text),
          fmt::format("功耗最高 {} W，平均 {} W（上限 {} W）", FormatNumber(draw->max, 0),
                      FormatNumber(draw->avg, 0), limit_text),
          draw->max, "watts"));
    }
    if (braking > 1) {
      f.evidence.push_back(perf::Measured(
          fmt::format("{} GPUs had the power brake active in this window: a shared supply",
                      braking),
          fmt::format("本时间窗口内有 {} 块 GPU 出现功率刹车：说明是共用的电源问题", braking),
          static_cast<double>(braking), "count"));
    }
    AddActions(g, f);
  }
}

}  // namespace power_brake_rule
}  // namespace

const Rule kPowerBrakeRule{"power.brake", "power",
                           "HW power brake slowdown: the power supply asserted its external brake",
                           kNeedsGpuReadings, power_brake_rule::Evaluate};

}  // namespace gpudoctor
