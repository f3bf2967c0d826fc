#include "render/active_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "knowledge/hbm_peaks.h"
#include "knowledge/nvlink_rates.h"
#include "knowledge/pcie_link_rates.h"
#include "render/active_summary.h"
#include "render/report_text.h"

namespace gpudoctor {
namespace {

constexpr const char* kUnknownCell = "?";

ActiveCell ActiveNumCell(const std::optional<double>& v, int decimals, bool below = false) {
  if (!v) return {kUnknownCell, false};
  return {fmt::format("{:.{}f}", *v, decimals), below};
}

ActiveCell ActiveIntCell(const std::optional<std::int64_t>& v) {
  return {v ? std::to_string(*v) : std::string(kUnknownCell), false};
}

ActiveCell ActivePercentCell(const std::optional<double>& share, bool below) {
  if (!share) return {kUnknownCell, false};
  return {fmt::format("{:.0f} %", 100 * *share), below};
}

std::string ActiveGpuName(unsigned index) { return fmt::format("GPU {}", index); }

bool ActiveRan(const ActiveRun& run, const char* test) {
  return std::find(run.tests.begin(), run.tests.end(), test) != run.tests.end();
}

ActiveTable PcieTable(const ActiveRun& run, Lang l) {
  ActiveTable t{"pcie", Pick(l, "PCIe (pinned copies)", "PCIe（锁页内存拷贝）"),
                {"GPU", Pick(l, "host→device GB/s", "主机→设备 GB/s"), Pick(l, "device→host GB/s", "设备→主机 GB/s"),
                 Pick(l, "both GB/s", "双向 GB/s"), Pick(l, "link", "链路"), Pick(l, "link GB/s", "链路 GB/s"),
                 Pick(l, "share", "占比")},
                {},
                fmt::format(fmt::runtime(Pick(l, "link GB/s: one direction in theory (PCI-SIG); a healthy link gives about {:.0f} %; {} below {:.0f} %",
                                              "链路 GB/s：理论单向带宽（PCI-SIG）；健康链路约可达 {:.0f} %；{} 表示低于 {:.0f} %")),
                            100 * kPcieAchievableShare, kActiveBelowMark, 100 * kPcieFlagBelowShare)};
  for (const ActiveGpuResult& g : run.gpus) {
    if (!g.pcie_started_s) continue;
    auto theoretical = PcieLinkTheoreticalGbps(g);
    std::optional<double> share;
    if (theoretical && (g.pcie_h2d_gbps || g.pcie_d2h_gbps)) {
      share = std::min(g.pcie_h2d_gbps.value_or(1e18), g.pcie_d2h_gbps.value_or(1e18)) / *theoretical;
    }
    bool below = share && *share < kPcieFlagBelowShare;
    auto below_link = [&](const std::optional<double>& gbps) {
      return theoretical && gbps && *gbps < kPcieFlagBelowShare * *theoretical;
    };
    std::string link = g.pcie_link_gen && g.pcie_link_width
                           ? fmt::format("Gen{} x{}", *g.pcie_link_gen, *g.pcie_link_width)
                           : kUnknownCell;
    t.rows.push_back({{ActiveGpuName(g.index)}, ActiveNumCell(g.pcie_h2d_gbps, 1, below_link(g.pcie_h2d_gbps)),
                      ActiveNumCell(g.pcie_d2h_gbps, 1, below_link(g.pcie_d2h_gbps)), ActiveNumCell(g.pcie_bidir_gbps, 1), {link}, ActiveNumCell(theoretical, 1),
                      ActivePercentCell(share, below)});
  }
  return t;
}

bool PairBelow(const ActivePeerCopy& p) {
  return p.gbps && p.expected && p.expected->theoretical_gbps > 0 &&
         *p.gbps < kP2pFlagBelowShare * p.expected->theoretical_gbps;
}

ActiveTable P2pMatrix(const ActiveRun& run, Lang l) {
  ActiveTable t{"p2p", Pick(l, "GPU to GPU copies (GB/s, one direction)", "GPU 间拷贝（GB/s，单向）"),
                {Pick(l, "from \\ to", "源 \\ 目标")},
                {},
                fmt::format(fmt::runtime(Pick(l, "{} below {:.0f} % of what the pair's path carries (next table)",
                                              "{} 表示低于该 GPU 对通路应有带宽的 {:.0f} %（见下表）")),
                            kActiveBelowMark, 100 * kP2pFlagBelowShare)};
  std::vector<unsigned> indices;
  for (const ActiveGpuResult& g : run.gpus) indices.push_back(g.index);
  for (unsigned dst : indices) t.headings.push_back(ActiveGpuName(dst));
  for (unsigned src : indices) {
    std::vector<ActiveCell> row{{ActiveGpuName(src)}};
    for (unsigned dst : indices) {
      if (src == dst) {
        row.push_back({"–"});
        continue;
      }
      auto p = std::find_if(run.p2p.begin(), run.p2p.end(),
                            [&](const ActivePeerCopy& c) { return c.src_index == src && c.dst_index == dst; });
      row.push_back(p == run.p2p.end() ? ActiveCell{kUnknownCell} : ActiveNumCell(p->gbps, 1, PairBelow(*p)));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string PathName(const ActivePeerCopy& p, Lang l) {
  if (!p.expected) return p.peer_access ? Pick(l, "peer access", "点对点访问") : Pick(l, "staged via host", "经主机中转");
  const std::string& path = p.expected->path;
  if (path == "nvlink") return "NVLink";
  if (path == "nvswitch") return "NVSwitch";
  return p.peer_access ? Pick(l, "PCIe (peer)", "PCIe（点对点）") : Pick(l, "PCIe (staged via host)", "PCIe（经主机中转）");
}

std::string ExpectedText(const PeerExpectation& e, Lang l) {
  if (e.path == "pcie") {
    bool staged = e.theoretical_gbps < e.link_gbps;
    return fmt::format("{} {:.1f}{}", e.link_name, e.link_gbps, staged ? Pick(l, " ÷ 2", " ÷ 2") : "");
  }
  std::string text = fmt::format("{} × {} {:.0f}", e.links, e.link_name, e.link_gbps);
  if (e.links_active < e.links) {
    text += fmt::format(fmt::runtime(Pick(l, " ({} up)", "（{} 条活动）")), e.links_active);
  }
  return text;
}

ActiveTable P2pPaths(const ActiveRun& run, Lang l) {
  ActiveTable t{"p2p_paths", Pick(l, "Each pair against its path", "各 GPU 对与其通路的对比"),
                {Pick(l, "pair", "GPU 对"), Pick(l, "path", "通路"), Pick(l, "links × GB/s", "链路 × GB/s"),
                 Pick(l, "expected GB/s", "应有 GB/s"), Pick(l, "measured GB/s", "实测 GB/s"), Pick(l, "share", "占比")},
                {},
                fmt::format(fmt::runtime(Pick(l, "expected: NVLink links between the pair (or to the NVSwitch fabric) × the generation's per-link rate, or the PCIe link; a healthy path gives about {:.0f} % (NVLink) or {:.0f} % (PCIe)",
                                              "应有带宽：GPU 对之间（或到 NVSwitch）的 NVLink 链路数 × 该代每条链路速率，或 PCIe 链路；健康通路约可达 {:.0f} %（NVLink）或 {:.0f} %（PCIe）")),
                            100 * kNvLinkAchievableShare, 100 * kPcieAchievableShare)};
  for (const ActivePeerCopy& p : run.p2p) {
    std::optional<double> expected, share;
    if (p.expected) expected = p.expected->theoretical_gbps;
    if (expected && p.gbps && *expected > 0) share = *p.gbps / *expected;
    bool below = PairBelow(p);
    ActiveCell share_cell = ActivePercentCell(share, below);
    // Above what the path can carry: the expectation is wrong, not the pair
    // (stress.peer_pair_above_links); never shown as a healthy share.
    if (share && *share > kP2pAboveShare) share_cell.text += Pick(l, " (above the links: expectation wrong)", "（超过链路：预期有误）");
    t.rows.push_back({{fmt::format("GPU {} → GPU {}", p.src_index, p.dst_index)},
                      {PathName(p, l)},
                      {p.expected ? ExpectedText(*p.expected, l) : std::string(kUnknownCell)},
                      ActiveNumCell(expected, 1),
                      ActiveNumCell(p.gbps, 1, below),
                      std::move(share_cell)});
  }
  return t;
}

ActiveTable HbmTable(const ActiveRun& run, Lang l) {
  ActiveTable t{"hbm", Pick(l, "Device memory bandwidth (copy kernel)", "显存带宽（拷贝内核）"),
                {"GPU", "GB/s", Pick(l, "published peak GB/s", "官方峰值 GB/s"), Pick(l, "share", "占比")},
                {},
                ""};
  std::set<std::string> sources;
  for (const ActiveGpuResult& g : run.gpus) {
    if (!g.hbm_gbps && !g.hbm_peak_gbps) continue;
    std::optional<double> share;
    if (g.hbm_gbps && g.hbm_peak_gbps && *g.hbm_peak_gbps > 0) share = *g.hbm_gbps / *g.hbm_peak_gbps;
    bool below = share && *share < kHbmFlagBelowShare;
    t.rows.push_back({{ActiveGpuName(g.index)}, ActiveNumCell(g.hbm_gbps, 0, below), ActiveNumCell(g.hbm_peak_gbps, 0), ActivePercentCell(share, below)});
    if (!g.hbm_peak_source.empty()) sources.insert(g.hbm_peak_source);
  }
  t.note = fmt::format(fmt::runtime(Pick(l, "read + write bytes a second, median of the repetitions; {} below {:.0f} % of the peak{}{}",
                                         "读 + 写字节每秒，多次重复的中位数；{} 表示低于峰值的 {:.0f} %{}{}")),
                       kActiveBelowMark, 100 * kHbmFlagBelowShare, sources.empty() ? "" : Pick(l, "; peaks: ", "；峰值来源："),
                       fmt::join(sources, "; "));
  return t;
}

ActiveCell BeforeAfter(const std::optional<std::int64_t>& before, const std::optional<std::int64_t>& after) {
  if (!before && !after) return {kUnknownCell};
  auto text = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(kUnknownCell); };
  bool grew = before && after && *after > *before;
  return {text(before) + " → " + text(after), grew};
}

ActiveTable MemoryTable(const ActiveRun& run, Lang l) {
  ActiveTable t{"memory", Pick(l, "Memory patterns", "显存模式测试"),
                {"GPU", Pick(l, "tested GiB", "测试 GiB"), Pick(l, "patterns", "模式"), Pick(l, "mismatches", "不一致"),
                 Pick(l, "first addresses", "首批地址"), Pick(l, "ECC uncorrected", "ECC 不可纠正"),
                 Pick(l, "ECC corrected", "ECC 已纠正"), Pick(l, "retired pages", "退役页"),
                 Pick(l, "remapped rows", "重映射行")},
                {},
                Pick(l, "counters: NVML's aggregate counts before → after the run; ▼ a mismatch, or a counter that grew",
                     "计数：运行前 → 运行后的 NVML 累计值；▼ 表示存在不一致或计数增加")};
  for (const ActiveGpuResult& g : run.gpus) {
    if (!g.memory) continue;
    const MemoryTestResult& m = *g.memory;
    std::vector<std::string> addresses;
    for (std::size_t i = 0; i < m.mismatch_addresses.size() && i < 4; ++i) {
      addresses.push_back(fmt::format("0x{:x}", m.mismatch_addresses[i]));
    }
    if (m.mismatch_addresses.size() > 4) addresses.push_back("…");
    t.rows.push_back({{ActiveGpuName(g.index)},
                      {fmt::format("{:.2f}", static_cast<double>(m.tested_bytes) / (1ull << 30))},
                      {std::to_string(m.patterns.size())},
                      {std::to_string(m.mismatches), m.mismatches > 0},
                      {addresses.empty() ? "–" : fmt::format("{}", fmt::join(addresses, " "))},
                      BeforeAfter(m.ecc_uncorrected_before, m.ecc_uncorrected_after),
                      BeforeAfter(m.ecc_corrected_before, m.ecc_corrected_after),
                      BeforeAfter(m.retired_pages_before, m.retired_pages_after),
                      BeforeAfter(m.remapped_rows_before, m.remapped_rows_after)});
  }
  return t;
}

ActiveTable PowerTable(const DiagnosisInput& input, Lang l) {
  ActiveTable t{"power", Pick(l, "Power burn (NVML every 100 ms)", "满功耗测试（NVML 每 100 ms 采样）"),
                {"GPU", "TFLOPS", Pick(l, "peak W", "峰值 W"), Pick(l, "avg W", "平均 W"), Pick(l, "limit W", "上限 W"),
                 Pick(l, "to 90 % of limit", "达到上限 90 %"), Pick(l, "max °C", "最高 °C"),
                 Pick(l, "min SM MHz", "最低 SM MHz"), Pick(l, "reasons seen", "降频原因")},
                {},
                Pick(l, "to 90 % of limit: seconds from the first launch to the first reading at 90 % of the power limit",
                     "达到上限 90 %：从首次启动内核到首次读到功耗达上限 90 % 的秒数")};
  for (const ActiveGpuResult& g : input.active->gpus) {
    if (!g.burn_started_s) continue;
    BurnSummary b = SummarizeBurn(input, g);
    ActiveCell to90 = b.to_90pct_limit_s ? ActiveCell{fmt::format("{:.1f} s", *b.to_90pct_limit_s)}
                                         : ActiveCell{Pick(l, "never", "未达到"), b.power_limit_w.has_value()};
    std::string reasons = b.reasons.empty() ? "–" : fmt::format("{}", fmt::join(b.reasons, ", "));
    t.rows.push_back({{ActiveGpuName(g.index)}, ActiveNumCell(g.burn_tflops, 1), ActiveNumCell(b.power_peak_w, 0), ActiveNumCell(b.power_avg_w, 0),
                      ActiveNumCell(b.power_limit_w, 0), to90, ActiveIntCell(b.temperature_max_c), ActiveIntCell(b.sm_clock_min_mhz),
                      {reasons, !b.reasons.empty()}});
  }
  return t;
}

ActiveTable CudaErrorTable(const ActiveRun& run, Lang l) {
  ActiveTable t{"cuda_errors", Pick(l, "CUDA errors", "CUDA 错误"),
                {"GPU", Pick(l, "test", "测试"), Pick(l, "at", "时间"), Pick(l, "error", "错误")}, {}, ""};
  for (const ActiveGpuResult& g : run.gpus) {
    if (g.cuda_error.empty()) continue;
    t.rows.push_back({{ActiveGpuName(g.index)}, {g.cuda_error_test}, ActiveNumCell(g.cuda_error_at_s, 1), {g.cuda_error, true}});
  }
  return t;
}

}  // namespace

std::string ActiveRunHeading(const DiagnosisInput& input, Lang l) {
  const ActiveRun& run = *input.active;
  return fmt::format(fmt::runtime(Pick(l, "Measurements ({}; ran {:.1f} s{})", "测量结果（{}；运行 {:.1f} 秒{}）")),
                     fmt::join(run.tests, ", "), run.ran_s,
                     run.interrupted ? Pick(l, ", interrupted", "，被中断") : "");
}

std::vector<ActiveTable> ActiveRunTables(const DiagnosisInput& input, Lang l) {
  const ActiveRun& run = *input.active;
  std::vector<ActiveTable> out;
  if (ActiveRan(run, "pcie")) out.push_back(PcieTable(run, l));
  if (ActiveRan(run, "p2p") && !run.p2p.empty()) {
    out.push_back(P2pMatrix(run, l));
    out.push_back(P2pPaths(run, l));
  }
  if (ActiveRan(run, "hbm")) out.push_back(HbmTable(run, l));
  if (ActiveRan(run, "memory")) out.push_back(MemoryTable(run, l));
  if (ActiveRan(run, "power")) out.push_back(PowerTable(input, l));
  ActiveTable errors = CudaErrorTable(run, l);
  if (!errors.rows.empty()) out.push_back(std::move(errors));
  return out;
}

}  // namespace gpudoctor
