#include "collect/top_processes.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "parse/proc_pid.h"
#include "parse/proc_stat.h"

namespace gpudoctor {

namespace {

constexpr std::uint64_t kPfKthread = 0x00200000;  // include/linux/sched.h

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

}  // namespace

Result<std::vector<ProcessTicks>> ReadProcessTicks(const CollectContext& ctx) {
  auto names = ListRootDir(ctx, "/proc");
  if (!names.ok()) return names.error();
  std::vector<ProcessTicks> out;
  for (const auto& name : *names) {
    if (!AllDigits(name)) continue;
    auto text = ReadRootFile(ctx, "/proc/" + name + "/stat", 4096);
    if (!text.ok()) continue;
    auto stat = ParsePidStat(*text);
    if (!stat.ok()) continue;
    ProcessTicks p;
    p.pid = stat->pid;
    p.comm = std::move(stat->comm);
    p.cpu_ticks = stat->utime_ticks + stat->stime_ticks;
    p.starttime_ticks = stat->starttime_ticks;
    p.state = stat->state;
    p.ppid = stat->ppid;
    p.kernel_thread = (stat->flags & kPfKthread) != 0;
    if (p.state == 'D') {
      auto status = ReadRootFile(ctx, "/proc/" + name + "/status", 16384);
      if (status.ok()) p.context_switches = ParseStatusContextSwitches(*status);
    }
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(),
            [](const ProcessTicks& a, const ProcessTicks& b) { return a.pid < b.pid; });
  return out;
}

std::vector<ProcessCpu> TopProcessesByCpu(const std::vector<ProcessTicks>& earlier,
                                          const std::vector<ProcessTicks>& later,
                                          std::uint64_t total_jiffies_delta, unsigned cores,
                                          std::size_t limit) {
  std::vector<ProcessCpu> out;
  if (total_jiffies_delta == 0 || cores == 0) return out;
  const double per_core = static_cast<double>(total_jiffies_delta) / cores;
  auto it = earlier.begin();
  for (const auto& now : later) {
    while (it != earlier.end() && it->pid < now.pid) ++it;
    if (it == earlier.end() || it->pid != now.pid) continue;
    if (it->starttime_ticks != now.starttime_ticks || now.cpu_ticks < it->cpu_ticks) continue;
    const auto used = now.cpu_ticks - it->cpu_ticks;
    if (used == 0) continue;
    out.push_back(ProcessCpu{now.pid, now.comm, "", 100.0 * static_cast<double>(used) / per_core});
  }
  std::stable_sort(out.begin(), out.end(), [](const ProcessCpu& a, const ProcessCpu& b) {
    return a.cpu_percent > b.cpu_percent;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

void ReadCmdlines(const CollectContext& ctx, std::vector<ProcessCpu>& processes) {
  for (auto& p : processes) {
    auto text = ReadRootFile(ctx, "/proc/" + std::to_string(p.pid) + "/cmdline", 64 * 1024);
    if (text.ok()) p.cmdline = CmdlineToString(*text);
  }
}

}  // namespace gpudoctor
