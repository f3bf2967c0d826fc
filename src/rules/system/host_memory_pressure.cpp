// host.memory_pressure: the host runs out of RAM: pages are swapped in (the
// job waits for the disk), little memory is left available (the OOM killer
// is near), or major page faults run high.
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace host_memory_pressure_rule {

// Swapping a little is harmless (idle pages leaving); a steady MiB per second
// means the working set no longer fits.
constexpr double kSwapHighBytesPerS = 1024.0 * 1024;
constexpr double kAvailableLowPercent = 5;
// Reading a memory-mapped data set also counts as major faults, so only a
// high rate is worth a note.
constexpr double kMajorFaultsHighPerS = 1000;

struct Pressure {
  bool swap_in = false;
  bool swap_out = false;
  bool available_low = false;
  bool faults = false;
  std::optional<double> available_percent;
};

Pressure Judge(const MemoryFacts& m) {
  Pressure p;
  p.swap_in = m.swap_in_bytes_per_s && *m.swap_in_bytes_per_s > kSwapHighBytesPerS;
  p.swap_out = m.swap_out_bytes_per_s && *m.swap_out_bytes_per_s > kSwapHighBytesPerS;
  if (m.total_bytes && *m.total_bytes > 0 && m.available_bytes) {
    p.available_percent =
        100.0 * static_cast<double>(*m.available_bytes) / static_cast<double>(*m.total_bytes);
    p.available_low = *p.available_percent < kAvailableLowPercent;
  }
  p.faults = m.major_faults_per_s && *m.major_faults_per_s > kMajorFaultsHighPerS;
  return p;
}

void AddEvidence(const MemoryFacts& m, const Pressure& p, Finding& f) {
  if (p.available_percent) {
    std::string avail = GibText(static_cast<double>(*m.available_bytes));
    std::string total = GibText(static_cast<double>(*m.total_bytes));
    std::string pct = FormatNumber(*p.available_percent);
    f.evidence.push_back(
        NumberEvidence(fmt::format("{} GiB of {} GiB available ({} %, low below {} %)", avail,
                                   total, pct, kAvailableLowPercent),
                       fmt::format("可用内存 {} GiB，共 {} GiB（{} %，低于 {} % 视为不足）", avail,
                                   total, pct, kAvailableLowPercent),
                       *p.available_percent, "percent"));
  }
  std::string window = FormatNumber(m.window_s);
  if (m.swap_in_bytes_per_s && m.swap_out_bytes_per_s) {
    std::string in = MibText(*m.swap_in_bytes_per_s);
    std::string swap_out = MibText(*m.swap_out_bytes_per_s);
    f.evidence.push_back(NumberEvidence(
        fmt::format("swap-in {} MiB/s, swap-out {} MiB/s over {} s", in, swap_out, window),
        fmt::format("{} 秒内换入 {} MiB/s，换出 {} MiB/s", window, in, swap_out),
        *m.swap_in_bytes_per_s, "bytes_per_second"));
  }
  if (m.swap_used_bytes && m.swap_total_bytes) {
    std::string used = GibText(static_cast<double>(*m.swap_used_bytes));
    std::string total = GibText(static_cast<double>(*m.swap_total_bytes));
    f.evidence.push_back(NumberEvidence(fmt::format("swap used {} of {} GiB", used, total),
                                        fmt::format("交换空间已用 {} GiB，共 {} GiB", used, total),
                                        static_cast<double>(*m.swap_used_bytes), "bytes"));
  }
  if (m.major_faults_per_s) {
    std::string rate = FormatNumber(*m.major_faults_per_s, 0);
    f.evidence.push_back(NumberEvidence(fmt::format("{} major page faults per second", rate),
                                        fmt::format("每秒 {} 次主缺页", rate),
                                        *m.major_faults_per_s, "per_second"));
  }
}

void AddActions(Finding& f) {
  f.actions.push_back(
      Action{Text{"See what holds the memory, and stop what does not belong to the job.",
                  "查看内存被哪些进程占用，停止与任务无关的进程。"},
             "ps aux --sort=-rss | head -15"});
  f.actions.push_back(Action{
      Text{"Lower the job's host memory: fewer data-loader workers or a smaller prefetch_factor, "
           "stream the data set instead of loading it whole, load checkpoints shard by shard.",
           "降低任务占用的主机内存：减少数据加载进程或调小 "
           "prefetch_factor，以流式读取代替整体载入数据集，"
           "分片加载检查点。"},
      ""});
  f.actions.push_back(Action{Text{"Use an instance with more RAM (2-4x the GPU memory).",
                                  "改用内存更大的实例（主机内存为 GPU 显存的 2-4 倍）。"},
                             "free -h"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const MemoryFacts& m = input.host->memory;
  if (!m.total_bytes && !m.swap_in_bytes_per_s && !m.major_faults_per_s) {
    out.NotCheckedBecause(Text{"host memory (/proc/meminfo, /proc/vmstat) could not be read",
                               "无法读取主机内存信息（/proc/meminfo、/proc/vmstat）"});
    return;
  }
  Pressure p = Judge(m);
  if (!p.swap_in && !p.swap_out && !p.available_low && !p.faults) return;

  bool harmful = p.swap_in || p.available_low;
  Finding& f = out.Add(harmful ? Severity::kWarning : Severity::kInfo);
  if (p.swap_in) {
    f.title = Text{"The host is swapping: the job waits for memory pages read back from disk",
                   "主机正在使用交换空间：任务在等待从磁盘换回的内存页"};
  } else if (p.available_low) {
    f.title = Text{"The host is almost out of memory", "主机内存即将耗尽"};
  } else {
    f.title =
        Text{"Host memory is under pressure (paging activity)", "主机内存有压力（存在换页活动）"};
  }
  f.explanation = Text{
      "When host RAM runs short, the kernel moves pages to swap and reads them back when they are "
      "touched: every such access waits for the disk, so data loading and the job stall. With "
      "almost no memory available the kernel's OOM killer ends processes, often the training "
      "job itself.",
      "主机内存不足时，内核会把内存页换出到交换空间，再次访问时再从磁盘读回：每次这样的访问都要等待"
      "磁盘，"
      "数据加载和任务因此停顿。可用内存几乎耗尽时，内核的 OOM "
      "机制会杀掉进程，往往正是训练任务本身。"};
  AddEvidence(m, p, f);
  AddActions(f);
}

}  // namespace host_memory_pressure_rule
}  // namespace

const Rule kHostMemoryPressureRule{
    "host.memory_pressure", "host",
    "Host swapping, available memory below 5 %, or a high major page fault rate", kNeedsHost,
    host_memory_pressure_rule::Evaluate};

}  // namespace gpudoctor
