#include "render/report_active.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/clock_reasons.h"
#include "core/time_format.h"
#include "knowledge/pcie_link_rates.h"

namespace gpudoctor {
namespace {

using J = nlohmann::ordered_json;

J ActiveNumber(const std::optional<double>& v) {
  if (!v) return nullptr;
  return std::round(*v * 1000) / 1000;
}

J ActiveInt(const std::optional<std::int64_t>& v) { return v ? J(*v) : J(nullptr); }

// The burn's samples of one GPU, summarised.
struct BurnSummary {
  std::size_t samples = 0;
  std::optional<double> power_peak_w, power_avg_w, power_limit_w;
  std::optional<std::int64_t> temperature_max_c, sm_clock_min_mhz, sm_clock_max_mhz, sm_clock_limit_mhz;
  std::set<std::string> reasons;
  std::optional<double> lost_at_s;
};

BurnSummary SummarizeBurn(const DiagnosisInput& input, const ActiveGpuResult& gpu) {
  BurnSummary s;
  const GpuSeries* series = FindGpu(input, gpu.pci_bus_id);
  if (series == nullptr || !input.active) return s;
  double power_sum = 0;
  std::size_t power_n = 0;
  for (std::size_t i = 0; i < series->readings.size(); ++i) {
    const GpuStatus& r = series->readings[i];
    if (!series->times[i]) continue;
    double at = std::chrono::duration<double>(*series->times[i] - input.active->started_at).count();
    if (r.state == GpuState::kLost && !s.lost_at_s) s.lost_at_s = at;
    if (!gpu.burn_started_s || at < *gpu.burn_started_s || at > gpu.burn_ended_s.value_or(at)) continue;
    if (r.state != GpuState::kOk) continue;
    ++s.samples;
    if (r.power_draw_w) {
      s.power_peak_w = std::max(s.power_peak_w.value_or(0), *r.power_draw_w);
      power_sum += *r.power_draw_w;
      ++power_n;
    }
    if (r.power_limit_w) s.power_limit_w = r.power_limit_w;
    if (r.temperature_c) s.temperature_max_c = std::max(s.temperature_max_c.value_or(-300), *r.temperature_c);
    if (r.clocks_sm_mhz) {
      s.sm_clock_min_mhz = std::min(s.sm_clock_min_mhz.value_or(*r.clocks_sm_mhz), *r.clocks_sm_mhz);
      s.sm_clock_max_mhz = std::max(s.sm_clock_max_mhz.value_or(0), *r.clocks_sm_mhz);
    }
    if (r.clocks_max_sm_mhz) s.sm_clock_limit_mhz = r.clocks_max_sm_mhz;
    if (r.clock_event_reasons_mask) {
      for (const std::string& name : ClockReasonNames(*r.clock_event_reasons_mask)) {
        if (name != "gpu_idle") s.reasons.insert(name);
      }
    }
  }
  if (power_n > 0) s.power_avg_w = power_sum / static_cast<double>(power_n);
  return s;
}

J MemoryJson(const MemoryTestResult& m) {
  J addresses = J::array();
  for (std::uint64_t a : m.mismatch_addresses) addresses.push_back(fmt::format("0x{:x}", a));
  return J{{"tested_bytes", m.tested_bytes},
           {"patterns", m.patterns},
           {"mismatches", m.mismatches},
           {"mismatch_addresses", std::move(addresses)},
           {"buffer_address", fmt::format("0x{:x}", m.buffer_address)},
           {"ecc_uncorrected", {{"before", ActiveInt(m.ecc_uncorrected_before)}, {"after", ActiveInt(m.ecc_uncorrected_after)}}},
           {"ecc_corrected", {{"before", ActiveInt(m.ecc_corrected_before)}, {"after", ActiveInt(m.ecc_corrected_after)}}},
           {"retired_pages", {{"before", ActiveInt(m.retired_pages_before)}, {"after", ActiveInt(m.retired_pages_after)}}},
           {"remapped_rows", {{"before", ActiveInt(m.remapped_rows_before)}, {"after", ActiveInt(m.remapped_rows_after)}}}};
}

// The link's theoretical one-direction GB/s, when its generation is known.
std::optional<double> LinkTheoreticalGbps(const ActiveGpuResult& gpu) {
  if (!gpu.pcie_link_gen || !gpu.pcie_link_width) return std::nullopt;
  auto lane = PcieLaneGbps(static_cast<long>(*gpu.pcie_link_gen));
  if (!lane) return std::nullopt;
  return *lane * static_cast<double>(*gpu.pcie_link_width);
}

J PcieJson(const ActiveGpuResult& gpu) {
  auto theoretical = LinkTheoreticalGbps(gpu);
  auto share = [&](const std::optional<double>& v) -> std::optional<double> {
    if (!v || !theoretical) return std::nullopt;
    return *v / *theoretical;
  };
  return J{{"h2d_gbps", ActiveNumber(gpu.pcie_h2d_gbps)},
           {"d2h_gbps", ActiveNumber(gpu.pcie_d2h_gbps)},
           {"bidir_gbps", ActiveNumber(gpu.pcie_bidir_gbps)},
           {"link_gen", ActiveInt(gpu.pcie_link_gen)},
           {"link_width", ActiveInt(gpu.pcie_link_width)},
           {"link_gen_max", ActiveInt(gpu.pcie_link_gen_max)},
           {"link_width_max", ActiveInt(gpu.pcie_link_width_max)},
           {"link_theoretical_gbps", ActiveNumber(theoretical)},
           {"achievable_share", kPcieAchievableShare},
           {"h2d_share_of_link", ActiveNumber(share(gpu.pcie_h2d_gbps))},
           {"d2h_share_of_link", ActiveNumber(share(gpu.pcie_d2h_gbps))}};
}

J GpuJson(const DiagnosisInput& input, const ActiveGpuResult& gpu) {
  BurnSummary burn = SummarizeBurn(input, gpu);
  J j{{"index", gpu.index}, {"pci_bus_id", gpu.pci_bus_id}, {"name", gpu.name},
      {"load_started_s", ActiveNumber(gpu.load_started_s)}, {"lost_at_s", ActiveNumber(burn.lost_at_s)}};
  if (gpu.burn_started_s) {
    j["power"] = J{{"burn_tflops", ActiveNumber(gpu.burn_tflops)},
                   {"started_s", ActiveNumber(gpu.burn_started_s)},
                   {"ended_s", ActiveNumber(gpu.burn_ended_s)},
                   {"samples", burn.samples},
                   {"power_peak_w", ActiveNumber(burn.power_peak_w)},
                   {"power_avg_w", ActiveNumber(burn.power_avg_w)},
                   {"power_limit_w", ActiveNumber(burn.power_limit_w)},
                   {"temperature_max_c", ActiveInt(burn.temperature_max_c)},
                   {"sm_clock_min_mhz", ActiveInt(burn.sm_clock_min_mhz)},
                   {"sm_clock_max_mhz", ActiveInt(burn.sm_clock_max_mhz)},
                   {"sm_clock_limit_mhz", ActiveInt(burn.sm_clock_limit_mhz)},
                   {"clock_event_reasons", std::vector<std::string>(burn.reasons.begin(), burn.reasons.end())}};
  }
  if (gpu.hbm_gbps || gpu.hbm_peak_gbps) {
    std::optional<double> share;
    if (gpu.hbm_gbps && gpu.hbm_peak_gbps) share = *gpu.hbm_gbps / *gpu.hbm_peak_gbps;
    j["hbm"] = J{{"gbps", ActiveNumber(gpu.hbm_gbps)},
                 {"published_peak_gbps", ActiveNumber(gpu.hbm_peak_gbps)},
                 {"share_of_peak", ActiveNumber(share)},
                 {"peak_source", gpu.hbm_peak_source.empty() ? J(nullptr) : J(gpu.hbm_peak_source)}};
  }
  if (gpu.memory) j["memory"] = MemoryJson(*gpu.memory);
  if (gpu.pcie_started_s) j["pcie"] = PcieJson(gpu);
  J xids = J::array();
  for (const ActiveXid& x : gpu.xids) xids.push_back(J{{"xid", x.xid}, {"at_s", ActiveNumber(x.at_s)}});
  j["xids"] = std::move(xids);
  j["cuda_error"] = gpu.cuda_error.empty()
                        ? J(nullptr)
                        : J{{"message", gpu.cuda_error}, {"test", gpu.cuda_error_test},
                            {"at_s", ActiveNumber(gpu.cuda_error_at_s)}};
  return j;
}

std::string Opt(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "?";
}

}  // namespace

nlohmann::ordered_json ActiveRunJson(const DiagnosisInput& input) {
  const ActiveRun& run = *input.active;
  J gpus = J::array();
  for (const ActiveGpuResult& gpu : run.gpus) gpus.push_back(GpuJson(input, gpu));
  J p2p = J::array();
  for (const ActivePeerCopy& p : run.p2p) {
    p2p.push_back(J{{"src_index", p.src_index}, {"dst_index", p.dst_index}, {"src_pci_bus_id", p.src_bus},
                    {"dst_pci_bus_id", p.dst_bus}, {"peer_access", p.peer_access}, {"gbps", ActiveNumber(p.gbps)}});
  }
  return J{{"tests", run.tests},
           {"duration_s", ActiveNumber(run.duration_s)},
           {"start", run.start},
           {"memory_fraction", ActiveNumber(run.memory_fraction)},
           {"sample_interval_ms", 100},
           {"started_at", FormatRfc3339(run.started_at)},
           {"ran_s", ActiveNumber(run.ran_s)},
           {"interrupted", run.interrupted},
           {"gpus", std::move(gpus)},
           {"p2p", std::move(p2p)}};
}

std::string ActiveRunText(const DiagnosisInput& input, Lang lang) {
  const ActiveRun& run = *input.active;
  const bool zh = lang == Lang::kZh;
  std::string out = fmt::format(fmt::runtime(zh ? "\n测量结果（{}，运行 {:.1f} 秒{}）\n" : "\nMeasurements ({}, ran {:.1f} s{})\n"),
                                fmt::join(run.tests, ", "), run.ran_s,
                                run.interrupted ? (zh ? "，被中断" : ", interrupted") : "");
  for (const ActiveGpuResult& gpu : run.gpus) {
    out += fmt::format("  GPU {} ({}) {}\n", gpu.index, gpu.pci_bus_id, gpu.name);
    if (gpu.hbm_gbps) {
      std::string peak = gpu.hbm_peak_gbps
                             ? fmt::format(fmt::runtime(zh ? "，官方峰值 {:.0f} GB/s 的 {:.0f} %" : ", {1:.0f} % of the published {0:.0f} GB/s"),
                                           *gpu.hbm_peak_gbps, 100 * *gpu.hbm_gbps / *gpu.hbm_peak_gbps)
                             : "";
      out += fmt::format(fmt::runtime(zh ? "    显存带宽：{:.0f} GB/s{}\n" : "    hbm: {:.0f} GB/s{}\n"), *gpu.hbm_gbps, peak);
    }
    if (gpu.memory) {
      const MemoryTestResult& m = *gpu.memory;
      out += fmt::format(fmt::runtime(zh ? "    显存测试：{:.1f} GiB，{} 种模式，{} 处不一致\n"
                            : "    memory: {:.1f} GiB, {} patterns, {} mismatches\n"),
                         static_cast<double>(m.tested_bytes) / (1ull << 30), m.patterns.size(), m.mismatches);
    }
    if (gpu.pcie_h2d_gbps || gpu.pcie_d2h_gbps) {
      auto theoretical = LinkTheoreticalGbps(gpu);
      std::string link = theoretical ? fmt::format(fmt::runtime(zh ? "，链路 Gen{} x{} 理论 {:.1f} GB/s（健康链路约可达 {:.0f} %）"
                                                                   : ", link Gen{} x{} {:.1f} GB/s in theory (a healthy link gives about {:.0f} %)"),
                                                   *gpu.pcie_link_gen, *gpu.pcie_link_width, *theoretical,
                                                   100 * kPcieAchievableShare)
                                     : "";
      out += fmt::format(fmt::runtime(zh ? "    PCIe：主机到设备 {} GB/s，设备到主机 {} GB/s，双向 {} GB/s{}\n"
                                         : "    pcie: host to device {} GB/s, device to host {} GB/s, both {} GB/s{}\n"),
                         Opt(gpu.pcie_h2d_gbps, 1), Opt(gpu.pcie_d2h_gbps, 1), Opt(gpu.pcie_bidir_gbps, 1), link);
    }
    if (gpu.burn_started_s) {
      BurnSummary b = SummarizeBurn(input, gpu);
      out += fmt::format(fmt::runtime(zh ? "    功耗测试：{} TFLOPS，功耗峰值 {} W / 平均 {} W（上限 {} W），最高 {} °C，SM 频率 {}-{} MHz\n"
                            : "    power: {} TFLOPS, power peak {} W / avg {} W (limit {} W), max {} °C, SM clock {}-{} MHz\n"),
                         Opt(gpu.burn_tflops, 1), Opt(b.power_peak_w, 0), Opt(b.power_avg_w, 0),
                         Opt(b.power_limit_w, 0),
                         b.temperature_max_c ? std::to_string(*b.temperature_max_c) : "?",
                         b.sm_clock_min_mhz ? std::to_string(*b.sm_clock_min_mhz) : "?",
                         b.sm_clock_max_mhz ? std::to_string(*b.sm_clock_max_mhz) : "?");
    }
    if (!gpu.cuda_error.empty()) {
      out += fmt::format(fmt::runtime(zh ? "    CUDA 错误（{} 测试）：{}\n" : "    CUDA error ({} test): {}\n"), gpu.cuda_error_test,
                         gpu.cuda_error);
    }
  }
  for (const ActivePeerCopy& p : run.p2p) {
    out += fmt::format(fmt::runtime(zh ? "  p2p GPU {} → GPU {}：{} GB/s{}\n" : "  p2p GPU {} → GPU {}: {} GB/s{}\n"),
                       p.src_index, p.dst_index, Opt(p.gbps, 1),
                       p.peer_access ? "" : (zh ? "（经主机中转）" : " (staged through the host)"));
  }
  return out;
}

}  // namespace gpudoctor
