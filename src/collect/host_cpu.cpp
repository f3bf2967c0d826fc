#include "collect/host_cpu.h"

#include <algorithm>

#include "parse/proc_text.h"

namespace gpudoctor {

CpuSnapshot ReadCpu(const CollectContext& ctx, bool with_processes) {
  CpuSnapshot snap;
  snap.taken = std::chrono::steady_clock::now();
  auto text = ReadRootFile(ctx, "/proc/stat", 1 << 20);
  if (text.ok()) {
    auto stat = ParseProcStat(*text);
    snap.sources.push_back(StatusOf("/proc/stat", stat));
    if (stat.ok()) snap.stat = std::move(*stat);
  } else {
    snap.sources.push_back(StatusOf("/proc/stat", text));
  }
  if (with_processes) {
    auto procs = ReadProcessTicks(ctx);
    snap.sources.push_back(StatusOf("/proc/<pid>/stat", procs));
    if (procs.ok()) snap.processes = std::move(*procs);
  }
  return snap;
}

CpuUsage Diff(const CpuSnapshot& a, const CpuSnapshot& b, std::size_t top_n) {
  CpuUsage usage;
  usage.window_s = std::chrono::duration<double>(b.taken - a.taken).count();
  if (!a.stat || !b.stat) {
    usage.why = "/proc/stat not readable";
    for (const auto* snap : {&a, &b}) {
      for (const auto& s : snap->sources) {
        if (s.source == "/proc/stat" && !s.available) usage.why = "/proc/stat: " + s.why;
      }
    }
    return usage;
  }
  usage.available = true;
  usage.total = CpuPercentBetween(a.stat->total, b.stat->total);
  for (const auto& core : b.stat->cores) {
    auto before = std::find_if(a.stat->cores.begin(), a.stat->cores.end(),
                               [&](const CoreTimes& c) { return c.cpu == core.cpu; });
    if (before == a.stat->cores.end()) continue;
    usage.cores.push_back(CoreUsage{core.cpu, CpuPercentBetween(before->times, core.times)});
  }
  const std::uint64_t total_before = a.stat->total.Total();
  const std::uint64_t total_after = b.stat->total.Total();
  const auto cores = static_cast<unsigned>(b.stat->cores.size());
  if (total_after > total_before) {
    usage.top_processes =
        TopProcessesByCpu(a.processes, b.processes, total_after - total_before, cores, top_n);
  }
  return usage;
}

CpuInfo ReadCpuInfo(const CollectContext& ctx, std::optional<double> cgroup_quota_cores) {
  CpuInfo info;
  auto load_text = ReadRootFile(ctx, "/proc/loadavg", 4096);
  if (load_text.ok()) {
    auto load = ParseLoadAvg(*load_text);
    info.sources.push_back(StatusOf("/proc/loadavg", load));
    if (load.ok()) info.load = *load;
  } else {
    info.sources.push_back(StatusOf("/proc/loadavg", load_text));
  }
  auto online_text = ReadRootFile(ctx, "/sys/devices/system/cpu/online", 4096);
  if (online_text.ok()) {
    auto online = ParseCpuList(*online_text);
    info.sources.push_back(StatusOf("/sys/devices/system/cpu/online", online));
    if (online.ok()) {
      info.online_cores = static_cast<unsigned>(online->size());
      info.online_list = std::string(Trim(*online_text));
    }
  } else {
    info.sources.push_back(StatusOf("/sys/devices/system/cpu/online", online_text));
  }
  info.cgroup_quota_cores = cgroup_quota_cores;
  if (info.online_cores) info.effective_cores = static_cast<double>(*info.online_cores);
  if (cgroup_quota_cores &&
      (!info.effective_cores || *cgroup_quota_cores < *info.effective_cores)) {
    info.effective_cores = cgroup_quota_cores;
  }
  return info;
}

std::optional<double> CoresPerGpu(std::optional<double> effective_cores, unsigned gpu_count) {
  if (!effective_cores || gpu_count == 0) return std::nullopt;
  return *effective_cores / gpu_count;
}

}  // namespace gpudoctor
