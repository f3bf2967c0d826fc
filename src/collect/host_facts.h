// Everything gpudoctor knows about the host's CPU and memory, collected in
// one call that takes two readings `sample_window` apart. The `facts`
// command and the diagnosis rules read the result, HostFacts
// (facts/host.h); render it with ToJson(const HostFacts&) from
// render/facts_host_json.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/cgroup_limits.h"
#include "collect/collect_context.h"
#include "collect/host_cpu.h"
#include "collect/host_memory.h"
#include "facts/host.h"

namespace gpudoctor {

// What the caller knows about the GPUs (from NVML), for the per-GPU helpers.
struct HostGpuSummary {
  std::optional<unsigned> gpu_count;
  std::optional<std::uint64_t> gpu_memory_total_bytes;  // sum over GPUs
};

// The first number of /proc/uptime's text; nullopt when malformed.
std::optional<double> ParseUptimeSeconds(std::string_view text);

// Reads CPU, memory and cgroup evidence twice, sleeping `sample_window`
// between the readings (0 gives no rates: usage.available with zero
// percentages). Blocks for about sample_window. Never fails. The page size
// for swap rates is the running system's when ctx.root is "/", else 4096.
HostFacts CollectHost(const CollectContext& ctx, std::chrono::milliseconds sample_window,
                      const HostGpuSummary& gpus = {}, std::size_t top_processes = 5,
                      const std::vector<std::string>& dataset_mounts = {});

// The pure part of CollectHost, for tests and for callers that take the
// readings themselves.
HostFacts HostFactsFrom(const CollectContext& ctx, const CpuSnapshot& cpu_a,
                        const CpuSnapshot& cpu_b, const MemorySnapshot& mem_a,
                        const MemorySnapshot& mem_b, CgroupLimits cgroup,
                        const HostGpuSummary& gpus, std::uint64_t page_size_bytes,
                        std::size_t top_processes);

}  // namespace gpudoctor
