#include "render/report_active.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/time_format.h"
#include "knowledge/pcie_link_rates.h"
#include "render/active_summary.h"

namespace gpudoctor {
namespace {

using J = nlohmann::ordered_json;

J ActiveNumber(const std::optional<double>& v) {
  if (!v) return nullptr;
  return std::round(*v * 1000) / 1000;
}

J ActiveInt(const std::optional<std::int64_t>& v) { return v ? J(*v) : J(nullptr); }

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

J PcieJson(const ActiveGpuResult& gpu) {
  auto theoretical = PcieLinkTheoreticalGbps(gpu);
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
                   {"time_to_90pct_limit_s", ActiveNumber(burn.to_90pct_limit_s)},
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
  if (!gpu.nvlinks.empty()) {
    J links = J::array();
    for (const ActiveNvLink& l : gpu.nvlinks) {
      links.push_back(J{{"link", l.link}, {"active", l.active}, {"version", ActiveInt(l.version)},
                        {"remote_pci_bus_id", l.remote_pci_bus_id.empty() ? J(nullptr) : J(l.remote_pci_bus_id)},
                        {"remote", l.remote_pci_bus_id.empty() ? J(nullptr) : J(l.remote_is_gpu ? "gpu" : "nvswitch")}});
    }
    j["nvlinks"] = std::move(links);
  }
  J xids = J::array();
  for (const ActiveXid& x : gpu.xids) xids.push_back(J{{"xid", x.xid}, {"at_s", ActiveNumber(x.at_s)}});
  j["xids"] = std::move(xids);
  j["cuda_error"] = gpu.cuda_error.empty()
                        ? J(nullptr)
                        : J{{"message", gpu.cuda_error}, {"test", gpu.cuda_error_test},
                            {"at_s", ActiveNumber(gpu.cuda_error_at_s)}};
  return j;
}

}  // namespace

nlohmann::ordered_json ActiveRunJson(const DiagnosisInput& input) {
  const ActiveRun& run = *input.active;
  J gpus = J::array();
  for (const ActiveGpuResult& gpu : run.gpus) gpus.push_back(GpuJson(input, gpu));
  J p2p = J::array();
  for (const ActivePeerCopy& p : run.p2p) {
    J expected = nullptr;
    std::optional<double> share;
    if (p.expected) {
      const PeerExpectation& e = *p.expected;
      expected = J{{"path", e.path},
                   {"links", e.links},
                   {"links_active", e.links_active},
                   {"link", e.link_name},
                   {"link_gbps", ActiveNumber(e.link_gbps)},
                   {"theoretical_gbps", ActiveNumber(e.theoretical_gbps)},
                   {"achievable_share", e.achievable_share},
                   {"source", e.source}};
      if (p.gbps && e.theoretical_gbps > 0) share = *p.gbps / e.theoretical_gbps;
    }
    p2p.push_back(J{{"src_index", p.src_index}, {"dst_index", p.dst_index}, {"src_pci_bus_id", p.src_bus},
                    {"dst_pci_bus_id", p.dst_bus}, {"peer_access", p.peer_access}, {"gbps", ActiveNumber(p.gbps)},
                    {"expected", std::move(expected)}, {"share_of_expected", ActiveNumber(share)}});
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

}  // namespace gpudoctor
