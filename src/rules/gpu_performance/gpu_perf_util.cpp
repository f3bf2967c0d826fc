#include "rules/gpu_performance/gpu_perf_util.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/engine/window_stats.h"

namespace gpudoctor::perf {

std::vector<double> IntSeries(const GpuSeries& gpu, std::optional<std::int64_t> GpuStatus::*field) {
  return ValuesOf(gpu, [field](const GpuStatus& s) -> std::optional<double> {
    const auto& v = s.*field;
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  });
}

std::vector<double> RealSeries(const GpuSeries& gpu, std::optional<double> GpuStatus::*field) {
  return ValuesOf(gpu, [field](const GpuStatus& s) { return s.*field; });
}

std::optional<double> ShareOfReadings(const GpuSeries& gpu, const ReadingTest& test) {
  std::size_t known = 0;
  std::size_t yes = 0;
  for (const GpuStatus& r : gpu.readings) {
    std::optional<bool> v = test(r);
    if (!v) continue;
    ++known;
    if (*v) ++yes;
  }
  if (known == 0) return std::nullopt;
  return static_cast<double>(yes) / static_cast<double>(known);
}

EvidenceItem Measured(std::string en, std::string zh, double value, std::string unit) {
  return EvidenceItem{Text{std::move(en), std::move(zh)}, value, std::move(unit), std::nullopt,
                      std::nullopt};
}

EvidenceItem ReasonShareEvidence(double share, std::size_t readings, std::string_view reason_en,
                                 std::string_view reason_zh) {
  std::string pct = FormatNumber(share * 100, 0);
  return Measured(fmt::format("{} active in {} % of {} readings", reason_en, pct, readings),
                  fmt::format("{} 次读数中有 {} % 处于{}状态", readings, pct, reason_zh),
                  share * 100, "percent");
}

std::optional<double> PowerLimitW(const GpuStatus& gpu) {
  if (gpu.power_enforced_limit_w && *gpu.power_enforced_limit_w > 0) {
    return gpu.power_enforced_limit_w;
  }
  if (gpu.power_limit_w && *gpu.power_limit_w > 0) return gpu.power_limit_w;
  return std::nullopt;
}

bool HoldsWork(const GpuStatus& gpu) {
  if (gpu.processes && !gpu.processes->empty()) return true;
  auto used = MemoryUsedPercent(gpu);
  return used && *used >= kHeldMemoryMinPercent;
}

std::string GiBText(double bytes) {
  return FormatNumber(bytes / static_cast<double>(1LL << 30)) + " GiB";
}

std::vector<GpuProcess> TopProcesses(const GpuStatus& gpu, std::size_t count) {
  if (!gpu.processes) return {};
  std::vector<GpuProcess> top = *gpu.processes;
  std::stable_sort(top.begin(), top.end(), [](const GpuProcess& a, const GpuProcess& b) {
    return a.used_memory_bytes.value_or(-1) > b.used_memory_bytes.value_or(-1);
  });
  if (top.size() > count) top.resize(count);
  return top;
}

std::string OwnerText(const GpuProcess& process) {
  std::string out;
  if (!process.user.empty()) out += fmt::format(", `{}`", process.user);
  if (!process.pod_uid.empty()) {
    out += fmt::format(", pod `{}`", process.pod_uid);
  } else if (!process.container_id.empty()) {
    out += fmt::format(", container `{}`", process.container_id);
  }
  return out;
}

std::string ProcessText(const GpuProcess& process) {
  std::string name = process.name.empty() ? std::string("?") : process.name;
  if (!process.used_memory_bytes) {
    return fmt::format("`{}` (pid {}{})", name, process.pid, OwnerText(process));
  }
  return fmt::format("`{}` (pid {}, {}{})", name, process.pid,
                     GiBText(static_cast<double>(*process.used_memory_bytes)), OwnerText(process));
}

std::string ProcessListText(const std::vector<GpuProcess>& processes) {
  std::string out;
  for (const GpuProcess& p : processes) {
    if (!out.empty()) out += ", ";
    out += ProcessText(p);
  }
  return out;
}

namespace {

// Usable bandwidth of one lane in one direction, GB/s (10^9 bytes), after
// line encoding: 8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT for Gen6.
std::optional<double> PerLaneGBs(std::int64_t gen) {
  switch (gen) {
    case 1:
      return 0.25;
    case 2:
      return 0.5;
    case 3:
      return 0.985;
    case 4:
      return 1.969;
    case 5:
      return 3.938;
    case 6:
      return 7.563;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<double> PcieLinkBytesPerS(const GpuStatus& gpu) {
  if (!gpu.pcie_link_gen_current || !gpu.pcie_link_width_current) return std::nullopt;
  if (*gpu.pcie_link_width_current <= 0) return std::nullopt;
  auto lane = PerLaneGBs(*gpu.pcie_link_gen_current);
  if (!lane) return std::nullopt;
  return *lane * 1e9 * static_cast<double>(*gpu.pcie_link_width_current);
}

bool PcieTrafficFromGpm(const GpuStatus& gpu) {
  return gpu.gpm_pcie_tx_bytes_per_s.has_value() && gpu.gpm_pcie_rx_bytes_per_s.has_value();
}

std::optional<double> PcieTrafficBytesPerS(const GpuStatus& gpu) {
  if (PcieTrafficFromGpm(gpu)) {
    return static_cast<double>(*gpu.gpm_pcie_tx_bytes_per_s + *gpu.gpm_pcie_rx_bytes_per_s);
  }
  if (!gpu.pcie_tx_bytes_per_s || !gpu.pcie_rx_bytes_per_s) return std::nullopt;
  return static_cast<double>(*gpu.pcie_tx_bytes_per_s + *gpu.pcie_rx_bytes_per_s);
}

std::optional<double> PcieTrafficRatio(const GpuStatus& gpu) {
  auto link = PcieLinkBytesPerS(gpu);
  auto traffic = PcieTrafficBytesPerS(gpu);
  if (!link || !traffic) return std::nullopt;
  return *traffic / *link;
}

bool PcieTransferBound(const GpuSeries& gpu, const Config& config) {
  const double normal_min = config.thresholds.utilization_normal_min_percent;
  auto share = ShareOfReadings(gpu, [normal_min](const GpuStatus& s) -> std::optional<bool> {
    auto ratio = PcieTrafficRatio(s);
    if (!ratio || !s.utilization_gpu_percent) return std::nullopt;
    return *ratio >= kPcieBusyRatio && static_cast<double>(*s.utilization_gpu_percent) < normal_min;
  });
  return share && *share >= config.sustained_fraction;
}

}  // namespace gpudoctor::perf
