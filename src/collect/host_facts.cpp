#include "collect/host_facts.h"

#include "collect/disk_space.h"
#include "collect/edac.h"
#include "collect/kernel_limits.h"
#include "collect/process_states.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

namespace gpudoctor {

HostFacts HostFactsFrom(const CollectContext& ctx, const CpuSnapshot& cpu_a,
                        const CpuSnapshot& cpu_b, const MemorySnapshot& mem_a,
                        const MemorySnapshot& mem_b, CgroupLimits cgroup,
                        const HostGpuSummary& gpus, std::uint64_t page_size_bytes,
                        std::size_t top_processes) {
  HostFacts facts;
  facts.cpu_usage = Diff(cpu_a, cpu_b, top_processes);
  ReadCmdlines(ctx, facts.cpu_usage.top_processes);
  facts.cpu = ReadCpuInfo(ctx, cgroup.cpu_quota_cores);
  for (const auto& s : cpu_b.sources) facts.cpu.sources.push_back(s);
  facts.memory = MemoryBetween(mem_a, mem_b, page_size_bytes);
  facts.cgroup = std::move(cgroup);
  if (gpus.gpu_count) facts.cores_per_gpu = CoresPerGpu(facts.cpu.effective_cores, *gpus.gpu_count);
  std::optional<std::uint64_t> host_ram = facts.memory.total_bytes;
  if (facts.cgroup.memory_limit_bytes) {
    host_ram = host_ram ? std::min(*host_ram, *facts.cgroup.memory_limit_bytes)
                        : *facts.cgroup.memory_limit_bytes;
  }
  facts.ram_to_gpu = HostRamToGpuMemory(host_ram, gpus.gpu_memory_total_bytes);
  return facts;
}

namespace {
namespace host_facts_impl {

void ObserveProcesses(const CpuSnapshot& snap, StuckProcessTracker& tracker) {
  for (const SourceStatus& s : snap.sources) {
    if (s.source != "/proc/<pid>/stat") continue;
    if (s.available) {
      tracker.Observe(snap.processes, snap.taken);
    } else {
      tracker.Failed(s);
    }
  }
}

}  // namespace host_facts_impl
}  // namespace

HostFacts CollectHost(const CollectContext& ctx, std::chrono::milliseconds sample_window,
                      const HostGpuSummary& gpus, std::size_t top_processes,
                      const std::vector<std::string>& dataset_mounts) {
  CgroupLimits cgroup = ReadCgroupLimits(ctx);
  std::optional<CpuStat> stat_a = ReadQuotaCpuStat(ctx, cgroup);
  const auto started = std::chrono::steady_clock::now();
  CpuSnapshot cpu_a = ReadCpu(ctx);
  MemorySnapshot mem_a = ReadMemory(ctx);
  // kStuckChecks process-table checks spread over the window: the first and
  // last are the CPU snapshots' own.
  StuckProcessTracker stuck;
  host_facts_impl::ObserveProcesses(cpu_a, stuck);
  const auto step = sample_window / static_cast<int>(kStuckChecks - 1);
  for (unsigned i = 1; i + 1 < kStuckChecks; ++i) {
    WaitSampleWindow(ctx, step);
    auto scan = ReadProcessTicks(ctx);
    if (scan.ok()) {
      stuck.Observe(*scan, std::chrono::steady_clock::now());
    } else {
      stuck.Failed(StatusOf("/proc/<pid>/stat", scan));
    }
  }
  WaitSampleWindow(ctx, sample_window - step * static_cast<int>(kStuckChecks - 2));
  CpuSnapshot cpu_b = ReadCpu(ctx);
  host_facts_impl::ObserveProcesses(cpu_b, stuck);
  MemorySnapshot mem_b = ReadMemory(ctx);
  std::optional<CpuStat> stat_b = ReadQuotaCpuStat(ctx, cgroup);
  if (stat_a && stat_b) {
    const double window_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string& quota = cgroup.cpu_quota_file;
    cgroup.throttling = ThrottlingBetween(*stat_a, *stat_b, window_s,
                                          quota.substr(0, quota.rfind('/') + 1) + "cpu.stat");
  }
  std::uint64_t page_size = 4096;
  if (ctx.root == std::filesystem::path("/")) {
    long live = ::sysconf(_SC_PAGESIZE);
    if (live > 0) page_size = static_cast<std::uint64_t>(live);
  }
  HostFacts facts = HostFactsFrom(ctx, cpu_a, cpu_b, mem_a, mem_b, std::move(cgroup), gpus,
                                  page_size, top_processes);
  if (auto uptime = ReadRootFile(ctx, "/proc/uptime", 4096); uptime.ok()) {
    facts.uptime_s = ParseUptimeSeconds(*uptime);
  }
  std::optional<std::uint64_t> threads;
  if (facts.cpu.load && facts.cpu.load->threads > 0) threads = facts.cpu.load->threads;
  facts.limits = ReadKernelLimits(ctx, threads);
  facts.disk_space = ReadDiskSpace(ctx, dataset_mounts);
  facts.edac = ReadEdac(ctx);
  // Four steps of the window, less a margin for a loaded machine.
  facts.processes =
      stuck.Facts(0.8 * std::chrono::duration<double>(step).count() * (kStuckChecks - 1));
  FillStuckDetails(ctx, facts.processes);
  return facts;
}

std::optional<double> ParseUptimeSeconds(std::string_view text) {
  std::string first(text.substr(0, std::min<std::size_t>(text.find_first_of(" \n"), 32)));
  char* end = nullptr;
  const double seconds = std::strtod(first.c_str(), &end);
  if (first.empty() || end != first.c_str() + first.size() || !(seconds >= 0) ||
      seconds > 1e10) {
    return std::nullopt;
  }
  return seconds;
}

}  // namespace gpudoctor
