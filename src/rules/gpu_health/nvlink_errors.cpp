// nvlink.errors: NVLink links down on a GPU whose other links (or whose
// peers' links) are up, and link error counters growing. On HGX boards every
// link of every GPU goes to an NVSwitch, so a link down is a fault; a link
// that recovers (retrains) or replays stalls the traffic on it; CRC errors
// matter only at high rates (NVIDIA: 100 or more per second, the DCGM limit).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace nvlink_errors_rule {

constexpr double kCrcPerSecondLimit = 100;
// A total from one reading has no time base; in the thousands it is worth
// knowing (captures of healthy H100 nodes show 0 on every link).
constexpr double kStaticTotalWorthTelling = 1000;

struct LinkCounts {
  std::size_t links = 0;
  std::size_t active = 0;
  std::vector<unsigned> inactive;
};

LinkCounts CountLinks(const GpuStatus& g) {
  LinkCounts c;
  for (const NvLinkStatus& l : g.nvlinks) {
    if (!l.active) continue;
    ++c.links;
    if (*l.active) ++c.active; else c.inactive.push_back(l.link);
  }
  return c;
}

std::optional<double> SumOf(const GpuStatus& g, std::optional<std::int64_t> NvLinkStatus::*field) {
  std::optional<double> sum;
  for (const NvLinkStatus& l : g.nvlinks) {
    if (l.*field) sum = sum.value_or(0) + static_cast<double>(*(l.*field));
  }
  return sum;
}

std::optional<double> CrcOf(const GpuStatus& g) {
  auto flit = SumOf(g, &NvLinkStatus::crc_flit_errors);
  auto data = SumOf(g, &NvLinkStatus::crc_data_errors);
  if (!flit && !data) return std::nullopt;
  return flit.value_or(0) + data.value_or(0);
}

std::string LinkList(const std::vector<unsigned>& links) {
  return fmt::format("{}", fmt::join(links, ", "));
}

void AddActions(Finding& f, const GpuStatus& g) {
  f.actions.push_back(Action{Text{"Show the error counters of this GPU's links.", "查看该 GPU 各链路的错误计数。"},
                             fmt::format("nvidia-smi nvlink -e -i {}", g.index)});
  f.actions.push_back(Action{Text{"Show the state and speed of every link.", "查看所有链路的状态和速率。"},
                             "nvidia-smi nvlink --status"});
  f.actions.push_back(Action{
      Text{"On NVSwitch systems (HGX), check that the fabric manager runs and look for SXid "
           "errors in the kernel log.",
           "在 NVSwitch 系统（HGX）上，确认 `nvidia-fabricmanager` 正在运行，并在内核日志中查找 SXid 错误。"},
      "systemctl status nvidia-fabricmanager"});
  f.actions.push_back(Action{
      Text{"Only if you need a clean baseline to see whether errors are still growing, reset the "
           "counters (this erases the history they hold).",
           "仅当需要一个干净的基线来判断错误是否仍在增长时，才重置计数（这会清除其中的历史记录）。"},
      fmt::format("sudo nvidia-smi nvlink -r -i {}", g.index)});
}

void Inactive(const GpuSeries& gpu, bool peers_all_active, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  LinkCounts c = CountLinks(g);
  if (c.inactive.empty() || (c.active == 0 && !peers_all_active)) return;
  Finding& f = out.Add(Severity::kWarning);
  f.gpus.push_back(gpu.pci_bus_id);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} has {} of {} NVLink links down", label, c.inactive.size(), c.links),
                 fmt::format("{} 的 {} 条 NVLink 链路中有 {} 条未连通", label, c.links, c.inactive.size())};
  f.explanation = Text{
      "The other NVLink links of this GPU, or of its peers, are up, so these should be too. "
      "With links down, "
      "GPU-to-GPU traffic (NCCL all-reduce) runs slower or falls back to PCIe, and on NVSwitch "
      "systems CUDA may refuse to start. Causes: a link or NVSwitch fault, the fabric manager, "
      "or a bridge that is not seated.",
      "该 GPU 的其他 NVLink 链路或同系统其他 GPU 的链路是连通的，因此这些链路也应连通。链路断开后，GPU 之间的通信（NCCL `all-reduce`）"
      "会变慢或退回 PCIe，在 NVSwitch 系统上 CUDA 可能无法启动。原因可能是链路或 NVSwitch 故障、"
      "`nvidia-fabricmanager` 问题，或 NVLink 桥未插好。"};
  f.evidence.push_back(Measured(
      Text{fmt::format("links down: {} ({} of {} up)", LinkList(c.inactive), c.active, c.links),
           fmt::format("未连通的链路：{}（{} 条中 {} 条连通）", LinkList(c.inactive), c.links, c.active)},
      static_cast<double>(c.inactive.size()), "count"));
  AddActions(f, g);
}

struct Growths {
  std::optional<CounterGrowth> crc, replay, recovery;
};

void Counters(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  Growths grow{GrowthOf(gpu, CrcOf),
               GrowthOf(gpu, [](const GpuStatus& s) { return SumOf(s, &NvLinkStatus::replay_errors); }),
               GrowthOf(gpu, [](const GpuStatus& s) { return SumOf(s, &NvLinkStatus::recovery_errors); })};
  double crc_rise = grow.crc ? grow.crc->increase : 0;
  double replay_rise = grow.replay ? grow.replay->increase : 0;
  double recovery_rise = grow.recovery ? grow.recovery->increase : 0;
  double crc_per_s = grow.crc ? crc_rise / std::max(grow.crc->seconds, 1.0) : 0;
  double total = CrcOf(g).value_or(0) + SumOf(g, &NvLinkStatus::replay_errors).value_or(0) +
                 SumOf(g, &NvLinkStatus::recovery_errors).value_or(0);
  bool rising = crc_rise + replay_rise + recovery_rise > 0;
  if (!rising && total < kStaticTotalWorthTelling) return;
  bool serious = replay_rise > 0 || recovery_rise > 0 || crc_per_s >= kCrcPerSecondLimit;
  Finding& f = out.Add(serious ? Severity::kWarning : Severity::kInfo);
  f.gpus.push_back(gpu.pci_bus_id);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} has NVLink errors", label), fmt::format("{} 出现 NVLink 错误", label)};
  f.explanation = Text{
      "Replays resend data that arrived damaged and recoveries retrain a link; both stall the "
      "traffic on the link while they happen. CRC errors are what triggers replays; NVIDIA "
      "considers them harmful from about 100 per second. Growing counters point to a link, cable "
      "or NVSwitch port going bad.",
      "replay 会重发到达时已损坏的数据，recovery 会重新训练链路，两者发生时都会阻塞该链路上的通信。"
      "CRC 错误会引发 replay；NVIDIA 认为每秒约 100 次以上才有害。计数持续增长说明链路、线缆或 NVSwitch 端口正在劣化。"};
  f.evidence.push_back(Measured(
      Text{fmt::format("in the window: CRC +{}, replay +{}, recovery +{}", FormatNumber(crc_rise, 0),
                       FormatNumber(replay_rise, 0), FormatNumber(recovery_rise, 0)),
           fmt::format("窗口内：CRC +{}，replay +{}，recovery +{}", FormatNumber(crc_rise, 0),
                       FormatNumber(replay_rise, 0), FormatNumber(recovery_rise, 0))},
      crc_rise + replay_rise + recovery_rise, "count"));
  f.evidence.push_back(Measured(
      Text{fmt::format("error counters now total {} over all links", FormatNumber(total, 0)),
           fmt::format("所有链路的错误计数目前合计 {}", FormatNumber(total, 0))},
      total, "count"));
  AddActions(f, g);
}

// A GPU with every link down is a fault only where its peers' links are up:
// on an HGX board all GPUs are wired alike. At least three peers, all with
// links up, so that a lone card beside a bridged pair is not taken for one.
constexpr std::size_t kPeersForWholeGpuDown = 3;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::size_t gpus_with_active = 0;
  for (const GpuSeries& gpu : input.gpus) {
    if (CountLinks(gpu.latest()).active > 0) ++gpus_with_active;
  }
  for (const GpuSeries& gpu : input.gpus) {
    bool self_active = CountLinks(gpu.latest()).active > 0;
    std::size_t peers = input.gpus.size() - 1;
    bool peers_all_active = !self_active && peers >= kPeersForWholeGpuDown && gpus_with_active == peers;
    Inactive(gpu, peers_all_active, out);
    Counters(gpu, out);
  }
}

}  // namespace nvlink_errors_rule
}  // namespace

const Rule kNvlinkErrorsRule{"nvlink.errors", "nvlink",
                             "NVLink links down where others are up, or link error counters growing",
                             kNeedsGpuReadings, nvlink_errors_rule::Evaluate};

}  // namespace gpudoctor
