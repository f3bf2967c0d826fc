#include "rules/active/active_util.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/engine/window_stats.h"

namespace gpudoctor::active {

std::string Label(const ActiveGpuResult& gpu) {
  return fmt::format("GPU {} ({})", gpu.index, gpu.pci_bus_id);
}

double SecondsIntoRun(const ActiveRun& run, WallTime time) {
  return std::chrono::duration<double>(time - run.started_at).count();
}

const GpuSeries* SeriesOf(const DiagnosisInput& input, const ActiveGpuResult& gpu) {
  return FindGpu(input, gpu.pci_bus_id);
}

std::optional<double> LostAtS(const DiagnosisInput& input, const ActiveGpuResult& gpu) {
  const GpuSeries* series = SeriesOf(input, gpu);
  if (series == nullptr || !input.active) return std::nullopt;
  for (std::size_t i = 0; i < series->readings.size(); ++i) {
    if (series->readings[i].state == GpuState::kLost && series->times[i]) {
      return SecondsIntoRun(*input.active, *series->times[i]);
    }
  }
  return std::nullopt;
}

std::optional<double> SecondsIntoLoad(const ActiveRun& run, const ActiveGpuResult& gpu,
                                      const std::optional<WallTime>& time) {
  if (!time || !gpu.load_started_s) return std::nullopt;
  double into = SecondsIntoRun(run, *time) - *gpu.load_started_s;
  if (into < 0) return std::nullopt;
  return into;
}

std::optional<ReasonUnderLoad> FindReasonUnderLoad(const DiagnosisInput& input,
                                                   const ActiveGpuResult& gpu, std::uint64_t mask) {
  const GpuSeries* series = SeriesOf(input, gpu);
  if (series == nullptr || !input.active) return std::nullopt;
  ReasonUnderLoad found;
  for (std::size_t i = 0; i < series->readings.size(); ++i) {
    const GpuStatus& r = series->readings[i];
    auto into = SecondsIntoLoad(*input.active, gpu, series->times[i]);
    if (!into || r.state != GpuState::kOk || !r.clock_event_reasons_mask) continue;
    ++found.load_samples;
    if ((*r.clock_event_reasons_mask & mask) == 0) continue;
    if (found.hits++ == 0) {
      found.first = &r;
      found.first_into_s = *into;
    }
  }
  if (found.hits == 0) return std::nullopt;
  return found;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

EvidenceItem Number(Text text, double value, std::string unit) {
  EvidenceItem e;
  e.text = std::move(text);
  e.value = value;
  e.unit = std::move(unit);
  return e;
}

std::string Bandwidth(double gbps) {
  if (gbps >= 1000) return FormatNumber(gbps / 1000, 2) + " TB/s";
  return FormatNumber(gbps, 1) + " GB/s";
}

void AddPeerPairActions(Finding& f, unsigned src_index, unsigned dst_index) {
  f.actions.push_back(Action{
      Text{"Show how each pair of GPUs is connected (NVLink count, PCIe switch, socket).",
           "查看每对 GPU 的连接方式（NVLink 数量、PCIe 交换芯片、CPU 插槽）。"},
      "nvidia-smi topo -m"});
  f.actions.push_back(Action{
      Text{"Read the NVLink state and error counters of both GPUs.", "查看两块 GPU 的 NVLink 状态和错误计数。"},
      fmt::format("nvidia-smi nvlink -s -i {} && nvidia-smi nvlink -e -i {}", src_index, dst_index)});
}

std::string PcieCause(const std::string& bus) { return "pcie " + bus; }

std::vector<std::string> PeerPairCauses(const ActivePeerCopy& p) {
  std::vector<std::string> causes{"p2p " + std::min(p.src_bus, p.dst_bus) + " " + std::max(p.src_bus, p.dst_bus)};
  // Without NVLink the copy crosses both GPUs' PCIe links (through the host
  // when peer access is off): a slow link of either is the pair's cause.
  if ((p.expected && p.expected->path == "pcie") || (!p.expected && !p.peer_access)) {
    causes.push_back(PcieCause(p.src_bus));
    causes.push_back(PcieCause(p.dst_bus));
  }
  return causes;
}

}  // namespace gpudoctor::active
