// gpu.dcgm_health: NVIDIA DCGM's own health checks failing or warning on a
// GPU, as dcgm-exporter serves them (DCGM_EXP_GPU_HEALTH_STATUS, read back
// from Prometheus by `fleet` and `report --prometheus`). Only a node's
// dcgm-exporter series carry it; the agent's own findings replace its dcgm
// names. The watches named are DCGM's (PCIE, NVLINK, MEM, THERMAL, ...).
#include <fmt/format.h>

#include "knowledge/dcgm_health_watch.h"
#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace gpu_dcgm_health_rule {

std::string WatchNames(std::uint32_t mask) {
  std::string out;
  const auto watches = DcgmHealthWatches();
  for (std::size_t i = 0; i < watches.size(); ++i) {
    if ((mask & (1u << i)) == 0) continue;
    out += (out.empty() ? "" : ", ") + std::string(watches[i]);
  }
  return out;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    const std::uint32_t fail = g.dcgm_health_fail_watches.value_or(0);
    const std::uint32_t warn = g.dcgm_health_warn_watches.value_or(0) & ~fail;
    if (fail == 0 && warn == 0) continue;
    Finding& f = out.Add(fail != 0 ? Severity::kCritical : Severity::kWarning);
    f.gpus.push_back(gpu.key);
    const std::string label = GpuLabel(g);
    const std::string failing = WatchNames(fail), warning = WatchNames(warn);
    const std::string what = fail != 0 ? failing : warning;
    f.title = Text{fmt::format("DCGM's health check {} on {}: {}", fail != 0 ? "fails" : "warns",
                               label, what),
                   fmt::format("DCGM 健康检查在 {} 上{}：{}", label, fail != 0 ? "失败" : "告警", what)};
    f.explanation = Text{
        "NVIDIA DCGM watches each GPU's subsystems (PCIe, NVLink, memory, thermals, power, "
        "driver, ...) and dcgm-exporter serves the result per subsystem. A failing watch means "
        "DCGM found a fault there (for example uncorrectable memory errors or a GPU off the "
        "bus); a warning, a condition to look at.",
        "NVIDIA DCGM 监测每块 GPU 的各子系统（PCIe、NVLink、显存、温度、功耗、驱动等），"
        "dcgm-exporter 按子系统发布结果。失败表示 DCGM 在该子系统发现故障（如不可纠正的显存错误或 "
        "GPU 掉卡）；告警表示需要关注的状况。"};
    f.evidence.push_back(Measured(
        Text{fmt::format("DCGM_EXP_GPU_HEALTH_STATUS: failing {}; warning {}",
                         failing.empty() ? "none" : failing, warning.empty() ? "none" : warning),
             fmt::format("DCGM_EXP_GPU_HEALTH_STATUS：失败 {}；告警 {}", failing.empty() ? "无" : failing,
                         warning.empty() ? "无" : warning)},
        fail != 0 ? kDcgmHealthFail : kDcgmHealthWarn, "dcgm_health_result"));
    f.actions.push_back(Action{
        Text{"Ask DCGM for the details of each incident on that node.",
             "在该节点上向 DCGM 查询每个事件的详情。"},
        fmt::format("dcgmi health -c -j -g 0  # or: dcgmi diag -r 1 -i {}", g.index)});
  }
}

}  // namespace gpu_dcgm_health_rule
}  // namespace

const Rule kGpuDcgmHealthRule{"gpu.dcgm_health", "gpu",
                              "DCGM's health checks (from dcgm-exporter) failing or warning on a GPU",
                              kNeedsGpuReadings, gpu_dcgm_health_rule::Evaluate};

}  // namespace gpudoctor
