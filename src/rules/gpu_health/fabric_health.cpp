// nvlink.fabric_health: the health mask a registered GPU's NVLink fabric
// reports (nvmlGpuFabricInfo_v2_t.healthMask, R550 on; or the Health lines
// of nvidia-smi -q's Fabric block): degraded bandwidth (R550), route
// recovery in progress, an unhealthy route, access timeout recovery in
// progress (R570); and the health summary (nvmlGpuFabricInfo_v3_t,
// R580 on): unhealthy is critical, limited capacity a warning, found where
// no mask field already names the condition (the summary also covers
// conditions the mask fields do not). Fields the driver does not report
// are not judged.
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace fabric_health_rule {

struct Condition {
  std::optional<bool> GpuFabric::*field;
  Severity severity;
  const char* name;  // as nvml.h names the field
  Text title;        // "{}" is the GPU
  Text explanation;
};

const Condition kConditions[] = {
    {&GpuFabric::route_unhealthy, Severity::kCritical, "route unhealthy",
     {"{} has an unhealthy NVLink fabric route", "{} 的 NVLink 互联路由不健康"},
     {"The fabric reports a route from this GPU as unhealthy: traffic over it fails or stalls, "
      "so collectives that use this GPU hang or time out (NCCL).",
      "互联报告该 GPU 的一条路由不健康：经过它的通信会失败或停顿，使用该 GPU 的集合通信（NCCL）会挂起或超时。"}},
    {&GpuFabric::degraded_bandwidth, Severity::kWarning, "degraded bandwidth",
     {"{} runs on degraded NVLink fabric bandwidth", "{} 的 NVLink 互联带宽已降级"},
     {"The fabric reports this GPU's NVLink bandwidth as degraded: some of its links or NVSwitch "
      "ports are out, so GPU-to-GPU traffic runs slower while nothing errors.",
      "互联报告该 GPU 的 NVLink 带宽已降级：它的部分链路或 NVSwitch 端口不可用，GPU 之间的通信变慢，但不会报错。"}},
    {&GpuFabric::route_recovery, Severity::kWarning, "route recovery in progress",
     {"{} has NVLink fabric route recovery in progress", "{} 的 NVLink 互联正在进行路由恢复"},
     {"The fabric is recovering a route of this GPU after a link or NVSwitch fault; traffic over "
      "it stalls until the recovery ends. If it persists, the fault did not clear.",
      "互联正在链路或 NVSwitch 故障后恢复该 GPU 的一条路由；恢复结束前经过它的通信会停顿。如果一直持续，说明故障没有消除。"}},
    {&GpuFabric::access_timeout_recovery, Severity::kWarning, "access timeout recovery",
     {"{} is recovering from NVLink fabric access timeouts",
      "{} 正在从 NVLink 互联访问超时中恢复"},
     {"Accesses of this GPU over the fabric timed out and the fabric is recovering from it; "
      "peer-to-peer traffic stalls meanwhile. Repeated, it points at a failing link, NVSwitch or "
      "peer GPU.",
      "该 GPU 经互联的访问超时，互联正在恢复；期间点对点通信会停顿。反复出现说明链路、NVSwitch 或对端 GPU 有故障。"}},
};

// The summary's verdicts that make a finding of their own.
const Condition kUnhealthySummary{
    nullptr, Severity::kCritical, "summary unhealthy",
    {"{} is unhealthy on the NVLink fabric", "{} 在 NVLink 互联上处于不健康状态"},
    {"The fabric's health summary for this GPU is unhealthy: its NVLink traffic fails or stalls, "
     "so collectives that use it hang or time out (NCCL).",
     "互联对该 GPU 的健康总结为不健康：它的 NVLink 通信会失败或停顿，使用它的集合通信（NCCL）会挂起或超时。"}};
const Condition kLimitedSummary{
    nullptr, Severity::kWarning, "summary limited capacity",
    {"{} runs on limited NVLink fabric capacity", "{} 的 NVLink 互联容量受限"},
    {"The fabric's health summary for this GPU is limited capacity: part of its NVLink fabric "
     "(links or NVSwitch ports) is out, so GPU-to-GPU traffic runs slower while nothing errors.",
     "互联对该 GPU 的健康总结为容量受限：它的部分 NVLink 互联（链路或 NVSwitch 端口）不可用，"
     "GPU 之间的通信变慢，但不会报错。"}};

void Add(const GpuSeries& gpu, const Condition& c, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  Finding& f = out.Add(c.severity);
  f.gpus.push_back(gpu.key);
  const std::string label = GpuLabel(g);
  f.title = Text{fmt::format(fmt::runtime(c.title.en), label),
                 fmt::format(fmt::runtime(c.title.zh), label)};
  f.explanation = c.explanation;
  const std::string mask =
      g.fabric->health_mask ? fmt::format(" (health mask 0x{:x})", *g.fabric->health_mask) : "";
  f.evidence.push_back(Measured(Text{fmt::format("fabric health: {}{}", c.name, mask),
                                     fmt::format("互联健康状态：{}{}", c.name, mask)},
                                1, "count"));
  if (g.fabric->health_summary) {
    const char* summary = FabricHealthSummaryName(*g.fabric->health_summary);
    f.evidence.push_back(EvidenceItem{Text{fmt::format("fabric health summary: {}", summary),
                                           fmt::format("互联健康总结：{}", summary)},
                                      std::nullopt, "", std::nullopt, std::nullopt});
  }
  f.actions.push_back(Action{Text{"See the fabric state and health of every GPU.",
                                  "查看每块 GPU 的互联状态和健康状态。"},
                             "nvidia-smi -q | grep -A14 -i '^ *fabric'"});
  f.actions.push_back(Action{Text{"Look for NVSwitch (SXid) and NVLink (Xid 74) errors and in "
                                  "Fabric Manager's log for the failing link.",
                                  "在内核日志中查找 NVSwitch（SXid）和 NVLink（Xid 74）错误，并在 "
                                  "Fabric Manager 日志中查找故障链路。"},
                             "sudo dmesg -T | grep -iE 'sxid|xid'; sudo tail -100 /var/log/fabricmanager.log"});
  f.actions.push_back(Action{Text{"If it does not clear, drain the node and reboot it.",
                                  "如果状态不消失，排空节点上的作业后重启节点。"},
                             "sudo reboot"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    if (g.state != GpuState::kOk || !g.fabric || g.fabric->state != FabricState::kCompleted) continue;
    bool named = false;
    for (const Condition& c : kConditions) {
      if ((*g.fabric).*c.field != true) continue;
      Add(gpu, c, out);
      named = true;
    }
    if (named || !g.fabric->health_summary) continue;
    if (*g.fabric->health_summary == FabricHealthSummary::kUnhealthy) Add(gpu, kUnhealthySummary, out);
    if (*g.fabric->health_summary == FabricHealthSummary::kLimitedCapacity) Add(gpu, kLimitedSummary, out);
  }
}

}  // namespace fabric_health_rule
}  // namespace

const Rule kNvlinkFabricHealthRule{
    "nvlink.fabric_health", "nvlink",
    "The NVLink fabric reports degraded bandwidth, an unhealthy route, route or access "
    "timeout recovery, or an unhealthy or limited-capacity health summary for a GPU",
    kNeedsGpuReadings, fabric_health_rule::Evaluate};

}  // namespace gpudoctor
