// pcie.transfer_bound: utilisation below the normal minimum while PCIe
// traffic runs at half or more of the link's bandwidth in one direction: the
// GPU waits for host <-> device copies. The traffic is GPM's
// PCIe rates where the GPU has them, else NVML's throughput counters.
#include <fmt/format.h>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace pcie_transfer_bound_rule {

void AddActions(Finding& f) {
  const std::pair<const char*, const char*> steps[] = {
      {"Overlap copies with compute: asynchronous copies on separate CUDA streams "
       "(cudaMemcpyAsync; in PyTorch .to(device, non_blocking=True)).",
       "让数据拷贝与计算重叠：在独立的 CUDA stream 上进行异步拷贝（`cudaMemcpyAsync`；PyTorch "
       "中使用 "
       "`.to(device, non_blocking=True)`）。"},
      {"Copy from pinned (page-locked) host memory (cudaHostAlloc; DataLoader pin_memory=True).",
       "从锁页内存拷贝数据（`cudaHostAlloc`；DataLoader 中设置 `pin_memory=True`）。"},
      {"Send fewer, larger transfers instead of many small ones.",
       "减少传输次数、增大单次传输量，避免大量小块拷贝。"},
      {"Keep data on the GPU between steps instead of moving it back and forth.",
       "在各步骤之间把数据保留在 GPU 上，避免来回搬运。"},
  };
  for (const auto& [en, zh] : steps) f.actions.push_back(Action{Text{en, zh}, ""});
}

void AddLinkEvidence(const GpuSeries& gpu, Finding& f) {
  const GpuStatus& g = gpu.latest();
  auto link = perf::PcieLinkBytesPerS(g);
  auto ratio = Summarize(ValuesOf(gpu, perf::PcieTrafficRatio));
  // GPM's rates where the GPU has them: averaged over each whole interval,
  // not NVML's 20 ms throughput window.
  const bool gpm = perf::PcieTrafficFromGpm(g);
  auto tx = Summarize(perf::IntSeries(
      gpu, gpm ? &GpuStatus::gpm_pcie_tx_bytes_per_s : &GpuStatus::pcie_tx_bytes_per_s));
  auto rx = Summarize(perf::IntSeries(
      gpu, gpm ? &GpuStatus::gpm_pcie_rx_bytes_per_s : &GpuStatus::pcie_rx_bytes_per_s));
  if (link && tx && rx && ratio) {
    auto gbs = [](double bytes) { return FormatNumber(bytes / 1e9, 1); };
    f.evidence.push_back(perf::Measured(
        fmt::format("PCIe tx avg {} GB/s, rx avg {} GB/s{}: {} % of the link's {} GB/s per "
                    "direction (Gen{} x{})",
                    gbs(tx->avg), gbs(rx->avg), gpm ? " (GPM)" : "",
                    FormatNumber(ratio->avg * 100, 0), gbs(*link), *g.pcie_link_gen_current,
                    *g.pcie_link_width_current),
        fmt::format(
            "PCIe 发送平均 {} GB/s，接收平均 {} GB/s{}：为链路单向带宽 {} GB/s（Gen{} x{}）的 {} %",
            gbs(tx->avg), gbs(rx->avg), gpm ? "（GPM）" : "", gbs(*link),
            *g.pcie_link_gen_current, *g.pcie_link_width_current,
            FormatNumber(ratio->avg * 100, 0)),
        tx->avg + rx->avg, "bytes_per_second"));
  }
  bool below_max = (g.pcie_link_gen_max && g.pcie_link_gen_current &&
                    *g.pcie_link_gen_current < *g.pcie_link_gen_max) ||
                   (g.pcie_link_width_max && g.pcie_link_width_current &&
                    *g.pcie_link_width_current < *g.pcie_link_width_max);
  if (below_max) {
    f.evidence.push_back(perf::Measured(
        fmt::format("the link runs at Gen{} x{}, below its maximum Gen{} x{}",
                    g.pcie_link_gen_current.value_or(0), g.pcie_link_width_current.value_or(0),
                    g.pcie_link_gen_max.value_or(0), g.pcie_link_width_max.value_or(0)),
        fmt::format("链路运行在 Gen{} x{}，低于其最高规格 Gen{} x{}",
                    g.pcie_link_gen_current.value_or(0), g.pcie_link_width_current.value_or(0),
                    g.pcie_link_gen_max.value_or(0), g.pcie_link_width_max.value_or(0)),
        static_cast<double>(g.pcie_link_width_current.value_or(0)), "lanes"));
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const Thresholds& t = input.config.thresholds;
  for (const GpuSeries& gpu : input.gpus) {
    if (!perf::PcieTransferBound(gpu, input.config)) continue;
    auto util = perf::IntSeries(gpu, &GpuStatus::utilization_gpu_percent);
    bool wasted =
        SustainedBelow(util, t.utilization_wasted_below_percent, input.config.sustained_fraction);
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(wasted ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} waits for PCIe transfers", label),
                   fmt::format("{} 在等待 PCIe 数据传输", label)};
    f.explanation = Text{
        "PCIe traffic runs at half or more of the link's bandwidth while the GPU computes only "
        "part of the time: moving data between host and GPU, not computing, limits the job.",
        "PCIe 流量达到链路带宽的一半以上，而 GPU 只有部分时间在计算：限制任务的是主机与 GPU 之间的"
        "数据搬运，而不是计算。"};
    auto stats = Summarize(util);
    f.evidence.push_back(perf::Measured(
        fmt::format("utilisation avg {} % (normal from {} %)", FormatNumber(stats->avg),
                    FormatNumber(t.utilization_normal_min_percent)),
        fmt::format("利用率平均 {} %（正常应不低于 {} %）", FormatNumber(stats->avg),
                    FormatNumber(t.utilization_normal_min_percent)),
        stats->avg, "percent"));
    AddLinkEvidence(gpu, f);
    AddActions(f);
  }
}

}  // namespace pcie_transfer_bound_rule
}  // namespace

const Rule kPcieTransferBoundRule{"pcie.transfer_bound", "pcie",
                                  "Low utilisation while PCIe traffic uses half or more of the "
                                  "link's bandwidth",
                                  kNeedsGpuReadings, pcie_transfer_bound_rule::Evaluate};

}  // namespace gpudoctor
