#include "collect/host_memory.h"

namespace gpudoctor {

MemorySnapshot ReadMemory(const CollectContext& ctx) {
  MemorySnapshot snap;
  snap.taken = std::chrono::steady_clock::now();
  auto meminfo_text = ReadRootFile(ctx, "/proc/meminfo", 1 << 20);
  if (meminfo_text.ok()) {
    auto meminfo = ParseMeminfo(*meminfo_text);
    snap.sources.push_back(StatusOf("/proc/meminfo", meminfo));
    if (meminfo.ok()) snap.meminfo = std::move(*meminfo);
  } else {
    snap.sources.push_back(StatusOf("/proc/meminfo", meminfo_text));
  }
  auto vmstat_text = ReadRootFile(ctx, "/proc/vmstat", 1 << 20);
  if (vmstat_text.ok()) {
    auto vmstat = ParseVmstat(*vmstat_text);
    snap.sources.push_back(StatusOf("/proc/vmstat", vmstat));
    if (vmstat.ok()) snap.vmstat = std::move(*vmstat);
  } else {
    snap.sources.push_back(StatusOf("/proc/vmstat", vmstat_text));
  }
  return snap;
}

MemoryFacts MemoryBetween(const MemorySnapshot& a, const MemorySnapshot& b,
                          std::uint64_t page_size_bytes) {
  MemoryFacts facts;
  facts.sources = b.sources;
  facts.window_s = std::chrono::duration<double>(b.taken - a.taken).count();
  if (b.meminfo) {
    const MemInfo& m = *b.meminfo;
    facts.total_bytes = m.total_bytes();
    facts.available_bytes = m.available_bytes();
    if (facts.total_bytes && facts.available_bytes &&
        *facts.available_bytes <= *facts.total_bytes) {
      facts.used_bytes = *facts.total_bytes - *facts.available_bytes;
      if (*facts.total_bytes > 0) {
        facts.used_percent = 100.0 * static_cast<double>(*facts.used_bytes) /
                             static_cast<double>(*facts.total_bytes);
      }
    }
    facts.swap_total_bytes = m.swap_total_bytes();
    auto swap_free = m.swap_free_bytes();
    if (facts.swap_total_bytes && swap_free && *swap_free <= *facts.swap_total_bytes) {
      facts.swap_used_bytes = *facts.swap_total_bytes - *swap_free;
    }
  }
  if (a.vmstat && b.vmstat && facts.window_s > 0) {
    const double page = static_cast<double>(page_size_bytes);
    if (auto in = CounterRatePerSecond(*a.vmstat, *b.vmstat, "pswpin", facts.window_s)) {
      facts.swap_in_bytes_per_s = *in * page;
    }
    if (auto out = CounterRatePerSecond(*a.vmstat, *b.vmstat, "pswpout", facts.window_s)) {
      facts.swap_out_bytes_per_s = *out * page;
    }
    facts.major_faults_per_s =
        CounterRatePerSecond(*a.vmstat, *b.vmstat, "pgmajfault", facts.window_s);
  }
  return facts;
}

std::optional<RamToGpuRatio> HostRamToGpuMemory(std::optional<std::uint64_t> host_ram_bytes,
                                                std::optional<std::uint64_t> gpu_memory_bytes) {
  if (!host_ram_bytes || !gpu_memory_bytes || *host_ram_bytes == 0 || *gpu_memory_bytes == 0) {
    return std::nullopt;
  }
  RamToGpuRatio r;
  r.ratio = static_cast<double>(*host_ram_bytes) / static_cast<double>(*gpu_memory_bytes);
  r.verdict = r.ratio < 1.0 ? "low" : r.ratio < 2.0 ? "advisory" : "ok";
  r.recommendation = "host RAM should be 2-4x the total GPU memory";
  return r;
}

}  // namespace gpudoctor
