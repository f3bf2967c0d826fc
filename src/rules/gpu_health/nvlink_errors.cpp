// nvlink.errors: NVLink links down on a GPU whose other links (or whose
// peers' links) are up, a GPU with NVLink and no link up on an NVSwitch
// system or among peers whose links are up (critical: its collectives fall
// back to PCIe or fail), links slower than the node's others, and link error
// counters growing. On HGX boards every link of every GPU goes to an
// NVSwitch, so a link down is a fault; a link that recovers (retrains) or
// replays stalls the traffic on it; CRC errors matter only at high rates
// (NVIDIA: 100 or more per second, the DCGM limit).
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

// A link slower than the node's fastest by more than this share is slow
// (nvidia-smi prints every healthy link of a generation at the same speed).
constexpr double kSlowLinkShare = 0.99;

struct LinkCounts {
  std::size_t links = 0;
  std::size_t active = 0;
  std::vector<unsigned> inactive;
  bool all_inactive = false;  // NVLink present, no link up (listed or as the driver said)
};

LinkCounts CountLinks(const GpuStatus& g) {
  LinkCounts c;
  for (const NvLinkStatus& l : g.nvlinks) {
    if (!l.active) continue;
    ++c.links;
    if (*l.active) ++c.active; else c.inactive.push_back(l.link);
  }
  c.all_inactive = c.active == 0 && (!c.inactive.empty() || g.nvlinks_all_inactive);
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

// Every link down, where the GPU should have them up: an NVSwitch system,
// a GPU on the NVLink fabric, or peers whose links are all up.
void AllInactive(const GpuSeries& gpu, const LinkCounts& c, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  Finding& f = out.Add(Severity::kCritical);
  f.gpus.push_back(gpu.key);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} has no NVLink link up", label),
                 fmt::format("{} 没有任何连通的 NVLink 链路", label)};
  f.explanation = Text{
      "This GPU has NVLink, and on this system (an NVSwitch board, or peers whose links are all "
      "up) its links should be up. Without them its GPU-to-GPU traffic (NCCL all-reduce) falls "
      "back to PCIe at a fraction of the speed or fails, and on NVSwitch systems CUDA may refuse "
      "to start. Causes: the GPU's NVLink or its NVSwitch ports, the fabric manager, or a bridge "
      "that is not seated; a GPU reset or a reboot retrains the links.",
      "该 GPU 具备 NVLink，在本系统上（NVSwitch 主板，或其他 GPU 的链路全部连通）它的链路应当连通。"
      "没有这些链路，它与其他 GPU 之间的通信（NCCL `all-reduce`）会退回 PCIe、速度大降，或直接失败；"
      "在 NVSwitch 系统上 CUDA 可能无法启动。原因可能是该 GPU 的 NVLink 或 NVSwitch 端口、"
      "`nvidia-fabricmanager`，或 NVLink 桥未插好；GPU 重置或重启会重新训练链路。"};
  if (c.links > 0) {
    f.evidence.push_back(Measured(Text{fmt::format("links down: all {}", c.links),
                                       fmt::format("未连通的链路：全部 {} 条", c.links)},
                                  static_cast<double>(c.links), "count"));
  } else {
    EvidenceItem e;
    e.text = Text{"the driver reports every NVLink link inactive (nvidia-smi: \"all links are inActive\")",
                  "驱动报告所有 NVLink 链路均未激活（nvidia-smi：\"all links are inActive\"）"};
    f.evidence.push_back(std::move(e));
  }
  AddActions(f, g);
}

void Inactive(const GpuSeries& gpu, bool expected_up, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  LinkCounts c = CountLinks(g);
  if (c.all_inactive) {
    if (expected_up) AllInactive(gpu, c, out);
    return;
  }
  if (c.inactive.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  f.gpus.push_back(gpu.key);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} has {} of {} NVLink links down", label, c.inactive.size(), c.links),
                 fmt::format("{} 的 {} 条 NVLink 链路中有 {} 条未连通", label, c.links, c.inactive.size())};
  f.explanation = Text{
      "The other NVLink links of this GPU are up, so these should be too. With links down, "
      "GPU-to-GPU traffic (NCCL all-reduce) runs slower or falls back to PCIe, and on NVSwitch "
      "systems CUDA may refuse to start. Causes: a link or NVSwitch fault, the fabric manager, "
      "or a bridge that is not seated.",
      "该 GPU 的其他 NVLink 链路是连通的，因此这些链路也应连通。链路断开后，GPU 之间的通信（NCCL `all-reduce`）"
      "会变慢或退回 PCIe，在 NVSwitch 系统上 CUDA 可能无法启动。原因可能是链路或 NVSwitch 故障、"
      "`nvidia-fabricmanager` 问题，或 NVLink 桥未插好。"};
  f.evidence.push_back(Measured(
      Text{fmt::format("links down: {} ({} of {} up)", LinkList(c.inactive), c.active, c.links),
           fmt::format("未连通的链路：{}（{} 条中 {} 条连通）", LinkList(c.inactive), c.links, c.active)},
      static_cast<double>(c.inactive.size()), "count"));
  AddActions(f, g);
}

// The fastest speed of any up link on the node (nvidia-smi nvlink -s);
// null when no speed is known.
std::optional<double> FastestLink(const DiagnosisInput& input) {
  std::optional<double> fastest;
  for (const GpuSeries& gpu : input.gpus) {
    for (const NvLinkStatus& l : gpu.latest().nvlinks) {
      if (l.active == true && l.speed_gb_per_s) fastest = std::max(fastest.value_or(0), *l.speed_gb_per_s);
    }
  }
  return fastest;
}

// Up links that trained slower than the node's fastest.
void Slow(const GpuSeries& gpu, double fastest, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  std::vector<unsigned> slow;
  double slowest = fastest;
  for (const NvLinkStatus& l : g.nvlinks) {
    if (l.active != true || !l.speed_gb_per_s || *l.speed_gb_per_s >= fastest * kSlowLinkShare) continue;
    slow.push_back(l.link);
    slowest = std::min(slowest, *l.speed_gb_per_s);
  }
  if (slow.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  f.gpus.push_back(gpu.key);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} has {} NVLink links slower than the others", label, slow.size()),
                 fmt::format("{} 有 {} 条 NVLink 链路比其他链路慢", label, slow.size())};
  f.explanation = Text{
      "NVLink links of one generation run at one speed; a link that trained slower carries less, "
      "and collectives that spread over all links wait for it. Causes: a link or NVSwitch port "
      "going bad, or a bridge not fully seated.",
      "同一代 NVLink 链路的速率相同；训练到较低速率的链路传输更少，分布在所有链路上的集合通信会等待它。"
      "原因可能是链路或 NVSwitch 端口劣化，或 NVLink 桥未完全插好。"};
  std::string speed = FormatNumber(slowest, 3), top = FormatNumber(fastest, 3);
  f.evidence.push_back(Measured(
      Text{fmt::format("links {} at down to {} GB/s, others at {} GB/s", LinkList(slow), speed, top),
           fmt::format("链路 {} 低至 {} GB/s，其他链路为 {} GB/s", LinkList(slow), speed, top)},
      slowest, "GB/s"));
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
  f.gpus.push_back(gpu.key);
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

bool OnFabric(const GpuStatus& g) {
  return g.fabric && g.fabric->state != FabricState::kNotSupported;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  std::size_t gpus_with_active = 0;
  for (const GpuSeries& gpu : input.gpus) {
    if (CountLinks(gpu.latest()).active > 0) ++gpus_with_active;
  }
  const bool nvswitch = NvSwitchSystem(input);
  const std::optional<double> fastest = FastestLink(input);
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    bool self_active = CountLinks(g).active > 0;
    std::size_t peers = input.gpus.size() - 1;
    bool peers_all_active = !self_active && peers >= kPeersForWholeGpuDown && gpus_with_active == peers;
    Inactive(gpu, peers_all_active || nvswitch || OnFabric(g), out);
    if (fastest) Slow(gpu, *fastest, out);
    Counters(gpu, out);
  }
}

}  // namespace nvlink_errors_rule
}  // namespace

const Rule kNvlinkErrorsRule{"nvlink.errors", "nvlink",
                             "NVLink links down where others are up, a GPU without a link up on an NVSwitch system, "
                             "slow links, or link error counters growing",
                             kNeedsGpuReadings, nvlink_errors_rule::Evaluate};

}  // namespace gpudoctor
