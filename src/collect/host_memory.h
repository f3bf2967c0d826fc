// Host memory evidence: total / available / used RAM and swap from
// /proc/meminfo, swap-in/out and major-fault rates between two readings of
// /proc/vmstat, and the ratio of host RAM to total GPU memory.
//
// Use: a = ReadMemory(ctx); sleep; b = ReadMemory(ctx);
// MemoryBetween(a, b, page_size). Never fails; unreadable sources are listed.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "facts/host.h"
#include "parse/proc_meminfo.h"
#include "parse/proc_vmstat.h"

namespace gpudoctor {

struct MemorySnapshot {
  std::chrono::steady_clock::time_point taken;
  std::optional<MemInfo> meminfo;  // /proc/meminfo
  std::optional<VmStat> vmstat;    // /proc/vmstat
  std::vector<SourceStatus> sources;
};

MemorySnapshot ReadMemory(const CollectContext& ctx);

// `page_size_bytes` converts swapped pages to bytes (4096 unless the live
// system says otherwise).
MemoryFacts MemoryBetween(const MemorySnapshot& a, const MemorySnapshot& b,
                          std::uint64_t page_size_bytes = 4096);

// std::nullopt when either side is unknown or 0. Thresholds:
// < 1x warning, < 2x advisory; recommend 2-4x.
std::optional<RamToGpuRatio> HostRamToGpuMemory(std::optional<std::uint64_t> host_ram_bytes,
                                                std::optional<std::uint64_t> gpu_memory_bytes);

}  // namespace gpudoctor
