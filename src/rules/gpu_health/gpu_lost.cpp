// gpu.lost: NVML lost the GPU (GPU_IS_LOST, "fallen off the bus"), the driver
// stopped answering for it (hung), or its handle could not be had; or so many
// of its fields fail with "unknown error" / "reset required" that the GPU is
// unusable (what nvidia-smi shows as ERR!).
#include <fmt/format.h>

#include <string_view>

#include "rules/engine/gpu_broken.h"
#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace gpu_lost_rule {

// The reading that shows the GPU broken: the latest one when it does,
// else the first one that did (the GPU came back later in the window).
const GpuStatus* BrokenReading(const GpuSeries& gpu, std::size_t& broken_readings) {
  const GpuStatus* first = nullptr;
  broken_readings = 0;
  for (const GpuStatus& s : gpu.readings) {
    if (s.state == GpuState::kOk && !AnswersMostlyWithErrors(s)) continue;
    ++broken_readings;
    if (!first) first = &s;
  }
  if (broken_readings == 0) return nullptr;
  const GpuStatus& latest = gpu.latest();
  bool latest_broken = latest.state != GpuState::kOk || AnswersMostlyWithErrors(latest);
  return latest_broken ? &latest : first;
}

Text StateText(const GpuStatus& g, const std::string& label) {
  switch (g.state) {
    case GpuState::kLost:
      return Text{fmt::format("{} is lost: it fell off the bus or cannot be reached", label),
                  fmt::format("{} 已丢失：从总线上掉线或无法访问", label)};
    case GpuState::kHung:
      return Text{fmt::format("{} does not answer: the driver hangs on it", label),
                  fmt::format("{} 无响应：驱动在该 GPU 上卡死", label)};
    case GpuState::kError:
      return Text{fmt::format("{} cannot be opened by NVML", label),
                  fmt::format("{} 无法被 NVML 打开", label)};
    case GpuState::kOk:
      break;
  }
  return Text{fmt::format("{} answers most queries with errors", label),
              fmt::format("{} 的大部分查询都返回错误", label)};
}

// The GPU is still reachable but the driver fails most queries on it (the
// ERR! picture): wedged rather than gone.
bool Wedged(const GpuStatus& g) { return g.state == GpuState::kOk; }

Text Explanation(const GpuStatus& g) {
  if (Wedged(g)) {
    return Text{
        "The GPU is still on the bus, but the driver fails most queries on it: it is wedged, and "
        "jobs on it fail or hang. This follows GSP firmware timeouts (Xid 119/120), "
        "uncorrectable memory errors and other faults that the kernel log names. A GPU reset "
        "usually clears it; when the reset fails, a reboot does.",
        "GPU 仍在总线上，但驱动对它的大部分查询都失败：GPU 已卡死，其上的任务会失败或挂起。"
        "这通常发生在 GSP 固件超时（Xid 119/120）、不可纠正的显存错误等故障之后，内核日志会指明原因。"
        "GPU 重置通常可以恢复；重置失败时需要重启。"};
  }
  return Text{
      "A lost GPU no longer answers over PCIe: every job on it has failed or hangs, and NCCL "
      "peers time out. The kernel log usually holds Xid 79 (GPU has fallen off the bus) at the "
      "same moment. Common causes are the power supply, the PCIe slot or riser, heat, and "
      "failing GPU hardware. A GPU reset rarely brings back a GPU that fell off the bus; a "
      "reboot usually does.",
      "丢失的 GPU 已无法通过 PCIe 访问：其上的任务都已失败或卡住，NCCL 通信对端会超时。"
      "内核日志中通常在同一时刻有 Xid 79（GPU 从总线掉线）。常见原因是供电、PCIe 插槽或转接卡、"
      "过热以及 GPU 硬件故障。GPU 重置很少能恢复已掉线的 GPU，通常需要重启。"};
}

void AddActions(Finding& f, const GpuStatus& g) {
  if (Wedged(g)) {
    f.actions.push_back(Action{
        Text{"Find what wedged it: Xid 119/120 (GSP), 48/63/94 (memory), 79 and other Xids of "
             "this GPU in the kernel log.",
             "查找卡死原因：内核日志中该 GPU 的 Xid 119/120（GSP）、48/63/94（显存）、79 及其他 Xid。"},
        "sudo dmesg -T | grep -i -E 'xid|NVRM'"});
  } else {
    f.actions.push_back(Action{
        Text{"Look for Xid 79 (fallen off the bus) and other Xids of this GPU in the kernel log.",
             "在内核日志中查找该 GPU 的 Xid 79（从总线掉线）及其他 Xid。"},
        "sudo dmesg -T | grep -i -E 'xid|fallen off'"});
  }
  f.actions.push_back(Action{
      Text{"Drain the node: stop scheduling jobs on it and let running jobs end or move.",
           "将节点下线（排空）：停止向其调度任务，让正在运行的任务结束或迁移。"},
      ""});
  f.actions.push_back(ResetGpuAction(g));
  f.actions.push_back(RebootAction());
  f.actions.push_back(Action{
      Text{"If it happens again: check the power cables and supply, reseat the GPU and its riser; "
           "if it still recurs, return the GPU for repair (RMA) or ask the cloud provider to "
           "replace the host.",
           "如果再次发生：检查供电线缆和电源，重新插拔 GPU 及其转接卡；仍然复现则返修 GPU（RMA），"
           "或请云厂商更换宿主机。"},
      ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    std::size_t broken_readings = 0;
    const GpuStatus* bad = BrokenReading(gpu, broken_readings);
    if (!bad) continue;
    const GpuStatus& g = *bad;
    std::string label = GpuLabel(g);
    Finding& f = out.Add(Severity::kCritical);
    f.gpus.push_back(gpu.key);
    f.title = StateText(g, label);
    f.explanation = Explanation(g);
    if (!g.state_detail.empty()) {
      f.evidence.push_back(EvidenceItem{
          Text{fmt::format("NVML: {}", g.state_detail), fmt::format("NVML 返回：`{}`", g.state_detail)},
          std::nullopt, "", std::nullopt, std::nullopt});
    }
    std::size_t broken_fields = BrokenFieldCount(g);
    if (broken_fields > 0) {
      f.evidence.push_back(Measured(
          Text{fmt::format("{} fields fail with unknown, lost, reset-required or timeout errors "
                           "(ERR! in nvidia-smi)",
                           broken_fields),
               fmt::format("{} 个字段读取失败（未知错误、GPU 丢失、需要重置或超时；nvidia-smi 显示 ERR!）",
                           broken_fields)},
          static_cast<double>(broken_fields), "count"));
    }
    f.evidence.push_back(Measured(
        Text{fmt::format("broken in {} of {} readings", broken_readings, gpu.readings.size()),
             fmt::format("{} 次读数中有 {} 次异常", gpu.readings.size(), broken_readings)},
        static_cast<double>(broken_readings), "count"));
    AddActions(f, g);
  }
}

}  // namespace gpu_lost_rule
}  // namespace

const Rule kGpuLostRule{"gpu.lost", "gpu",
                        "GPU lost, hung or unreachable through NVML, or answering with errors "
                        "on most fields",
                        kNeedsGpuReadings, gpu_lost_rule::Evaluate};

}  // namespace gpudoctor
