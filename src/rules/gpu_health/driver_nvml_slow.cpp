// driver.nvml_slow: the driver answers NVML slowly. A healthy driver answers
// most NVML calls in well under a millisecond; a driver whose GSP firmware is
// in trouble (the state that ends in Xid 119/120 and GPUs that need a reset)
// answers in tens to hundreds of milliseconds per call, which also makes
// nvidia-smi, DCGM and every monitoring agent crawl. Each reading carries the
// median time of its calls (GpuStatus::nvml_call_latency_ms); the rule takes
// the median over the window's readings of a GPU, so that one slow moment
// (a process list taken under load) is no finding.
#include <fmt/format.h>

#include <algorithm>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace driver_nvml_slow_rule {

// A median call this slow is a driver in trouble; ten times it, one that
// can barely serve a reading.
constexpr double kSlowCallMs = 50;
constexpr double kVerySlowCallMs = 500;

std::optional<double> MedianLatencyMs(const GpuSeries& gpu) {
  std::vector<double> values;
  for (const GpuStatus& r : gpu.readings) {
    if (r.nvml_call_latency_ms) values.push_back(*r.nvml_call_latency_ms);
  }
  if (values.empty()) return std::nullopt;
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const auto ms = MedianLatencyMs(gpu);
    if (!ms || *ms < kSlowCallMs) continue;
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(*ms >= kVerySlowCallMs ? Severity::kCritical : Severity::kWarning);
    f.gpus.push_back(gpu.key);
    const std::string label = GpuLabel(g);
    const std::string per_call = FormatNumber(*ms, 0);
    f.title = Text{fmt::format("NVML answers in {} ms per call on {}: the driver or its GSP "
                               "firmware is struggling",
                               per_call, label),
                   fmt::format("{} 上 NVML 每次调用需要 {} 毫秒：驱动或其 GSP 固件运行异常",
                               label, per_call)};
    f.explanation = Text{
        "A healthy driver answers NVML in well under a millisecond per call. Tens to hundreds "
        "of milliseconds mean the driver, or the GSP firmware that runs the GPU on recent "
        "drivers, is stalling: nvidia-smi and monitoring crawl, and this state often comes "
        "before GSP errors (Xid 119/120) and a GPU that needs a reset. Without persistence "
        "mode every query also pays for initialising the GPU.",
        "正常的驱动每次 NVML 调用远低于 1 毫秒即可返回。几十到几百毫秒意味着驱动，或新驱动中"
        "负责管理 GPU 的 GSP 固件，出现了停顿：nvidia-smi 和监控都会变得极慢，这种状态常出现在 "
        "GSP 错误（Xid 119/120）和需要重置 GPU 之前。未开启持久模式时，每次查询还要承担 GPU "
        "初始化的开销。"};
    f.evidence.push_back(Measured(
        Text{fmt::format("median NVML call took {} ms over {} reading(s) (healthy: under 1 ms; "
                         "finding from {} ms)",
                         FormatNumber(*ms, 1), gpu.readings.size(), FormatNumber(kSlowCallMs, 0)),
             fmt::format("{} 次读取中 NVML 调用耗时中位数为 {} 毫秒（正常：低于 1 毫秒；"
                         "{} 毫秒起报告）",
                         gpu.readings.size(), FormatNumber(*ms, 1), FormatNumber(kSlowCallMs, 0))},
        *ms, "ms"));
    f.actions.push_back(Action{
        Text{"Look for GSP and driver errors in the kernel log.",
             "在内核日志中查找 GSP 和驱动错误。"},
        "sudo dmesg -T | grep -i -E 'nvrm|xid|gsp' | tail -30"});
    f.actions.push_back(Action{
        Text{"Check persistence mode; without it every query initialises the GPU.",
             "检查持久模式；未开启时每次查询都会初始化 GPU。"},
        fmt::format("nvidia-smi -i {} -q | grep -i -E 'persistence|gsp'", g.index)});
    f.actions.push_back(ResetGpuAction(g));
  }
}

}  // namespace driver_nvml_slow_rule
}  // namespace

const Rule kDriverNvmlSlowRule{"driver.nvml_slow", "driver",
                               "NVML answers slowly (driver or GSP firmware struggling)",
                               kNeedsGpuReadings, driver_nvml_slow_rule::Evaluate};

}  // namespace gpudoctor
