// The host's CPU and memory as gpudoctor saw them over a sampling window:
// utilisation per core and the busiest processes, load, online cores and
// the cgroup quota, RAM and swap with their rates, the cgroup limits, and
// the ratios to the GPUs (HostFacts). The collectors (collect/host_*.h,
// collect/cgroup_limits.h) fill them; rules and renderers read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/processes.h"
#include "facts/source_status.h"

namespace gpudoctor {

// Percentages of the time between two readings of the same CPU (or total).
struct CpuPercent {
  double total_percent = 0;   // busy = everything but idle and iowait
  double user_percent = 0;    // user + nice
  double system_percent = 0;  // system + irq + softirq
  double iowait_percent = 0;
  double steal_percent = 0;
  double idle_percent = 0;
};

// /proc/loadavg.
struct LoadAvg {
  double load1 = 0;
  double load5 = 0;
  double load15 = 0;
  unsigned runnable = 0;  // "2/1234": currently runnable scheduling entities
  unsigned threads = 0;   // and the total
};

// One of the processes that used the most CPU over the window.
struct ProcessCpu {
  int pid = 0;
  std::string comm;
  std::string cmdline;  // filled by ReadCmdlines; empty for kernel threads
  // Share of one core over the window (200 = two cores busy).
  double cpu_percent = 0;
};

// CPU utilisation over the window, total and per core.
struct CoreUsage {
  unsigned cpu = 0;
  CpuPercent usage;
};

struct CpuUsage {
  bool available = false;  // false when either snapshot lacks /proc/stat
  std::string why;         // when not available
  double window_s = 0;     // b.taken - a.taken
  CpuPercent total;
  std::vector<CoreUsage> cores;           // cores present in both readings
  std::vector<ProcessCpu> top_processes;  // without cmdline (see ReadCmdlines)
};

// Everything about the host CPU that is not a rate.
struct CpuInfo {
  std::optional<LoadAvg> load;
  std::optional<unsigned> online_cores;      // /sys/devices/system/cpu/online
  std::string online_list;                   // as the kernel wrote it, "0-3,8-11"
  std::optional<double> cgroup_quota_cores;  // copied from CgroupLimits
  // min(online cores, cgroup quota): the cores this machine or container
  // may actually use.
  std::optional<double> effective_cores;
  std::vector<SourceStatus> sources;
};

// RAM and swap, and the swap and major-fault rates over the window.
struct MemoryFacts {
  // From the later snapshot's /proc/meminfo.
  std::optional<std::uint64_t> total_bytes;
  std::optional<std::uint64_t> available_bytes;
  std::optional<std::uint64_t> used_bytes;  // total - available
  std::optional<double> used_percent;
  std::optional<std::uint64_t> swap_total_bytes;
  std::optional<std::uint64_t> swap_used_bytes;
  // From the two /proc/vmstat readings (pswpin/pswpout in pages, pgmajfault).
  double window_s = 0;
  std::optional<double> swap_in_bytes_per_s;
  std::optional<double> swap_out_bytes_per_s;
  std::optional<double> major_faults_per_s;
  std::vector<SourceStatus> sources;
};

// Host RAM (or the cgroup limit, when tighter) against the sum of GPU memory.
struct RamToGpuRatio {
  double ratio = 0;            // host bytes / GPU bytes
  std::string verdict;         // "ok" (>= 2), "advisory" (1..2), "low" (< 1)
  std::string recommendation;  // one English line: "host RAM should be 2-4x GPU memory"
};

// How often the CFS quota stopped the group's tasks over a window.
struct CpuThrottling {
  double window_s = 0;
  std::uint64_t periods = 0;            // enforcement periods elapsed (100 ms each by default)
  std::uint64_t throttled_periods = 0;  // of them, periods whose quota ran out
  double throttled_s = 0;               // time the group's tasks were held back
  std::string file;                     // the cpu.stat read
};

// The CPU quota and memory limit that cgroups impose on a process (the
// tightest of its group and the groups above it).
struct CgroupLimits {
  std::string version;      // "v2", "v1", or "" when /proc/<pid>/cgroup was unreadable
  std::string cgroup_path;  // the v2 path, or the v1 cpu controller path
  // Effective CPU quota in cores (quota / period of the tightest group);
  // std::nullopt = no quota found (unlimited, or unreadable: see sources).
  std::optional<double> cpu_quota_cores;
  std::string cpu_quota_file;  // the file that set it, e.g. "/sys/fs/cgroup/x/cpu.max"
  // Tightest memory limit; std::nullopt = unlimited or unreadable.
  std::optional<std::uint64_t> memory_limit_bytes;
  std::string memory_limit_file;
  std::optional<ContainerRef> container;  // when the path names one
  // The CPU quota's throttling over the sampling window (cpu.stat beside
  // cpu_quota_file, read before and after); unset without a quota or when
  // unreadable.
  std::optional<CpuThrottling> throttling;
  std::vector<SourceStatus> sources;
};

// Kernel tables that fill up: open files (/proc/sys/fs/file-nr: allocated
// handles and the maximum) and threads against the PID space (threads:
// /proc/loadavg's total; pid_max and threads-max from /proc/sys/kernel).
// Each unset when its file could not be read.
struct KernelLimits {
  std::optional<std::uint64_t> open_files;
  std::optional<std::uint64_t> open_files_max;
  std::optional<std::uint64_t> threads;
  std::optional<std::uint64_t> pid_max;
  std::optional<std::uint64_t> threads_max;
  std::vector<SourceStatus> sources;
};

// Free space and inodes of one file system (collect/disk_space.h).
struct DiskSpace {
  std::string path;  // the path read ("/", "/tmp", "/dev/shm", ...)
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;               // available to unprivileged writers
  std::optional<std::uint64_t> inodes_total;  // unset: the file system has no inode count
  std::optional<std::uint64_t> inodes_free;
};

// A mount whose statvfs did not answer within the probe's timeout
// (collect/mount_probe.h): a file server or disk that stopped answering.
struct UnresponsiveMount {
  std::string path;
  std::string fs_type;   // from /proc/mounts: "nfs4", "lustre", "fuse.s3fs"; "" when not listed
  std::string source;    // "server:/export"
  bool dataset = false;  // named in the config's [storage] dataset_mounts
};

struct DiskSpaceFacts {
  std::vector<DiskSpace> disks;  // one per file system
  std::vector<UnresponsiveMount> unresponsive;
  std::size_t network_mounts = 0;  // network file systems probed (from /proc/mounts)
  double probe_timeout_s = 0;      // how long each probe was given
  std::vector<SourceStatus> sources;
};

// A process in uninterruptible sleep (D state) that made no progress: no
// context switch and no CPU time between consecutive checks
// (collect/process_states.h).
struct StuckProcess {
  int pid = 0;
  std::string comm;
  std::string cmdline;  // empty for kernel threads or when unreadable
  std::string wchan;    // the kernel function it waits in; empty when hidden
  bool kernel_thread = false;
  unsigned checks = 0;     // consecutive checks in D state without progress
  double stuck_for_s = 0;  // from the first of those checks to the last
};

// A process with zombie children it has not reaped.
struct ZombieParent {
  int pid = 0;
  std::string comm;
  std::uint64_t zombies = 0;
};

// Consecutive checks in D state without progress that make a process stuck.
inline constexpr unsigned kStuckChecks = 5;

// Process states over the checks of the window (diagnose) or of the agent.
struct ProcessStateFacts {
  unsigned checks = 0;  // process-table scans taken
  std::vector<StuckProcess> stuck;
  std::optional<std::uint64_t> zombies;      // unset when the process table was not read
  std::vector<ZombieParent> zombie_parents;  // most zombies first, at most 3
  std::vector<SourceStatus> sources;
};

// One memory module as the kernel's EDAC driver counts its errors
// (/sys/devices/system/edac/mc/mcN/dimmM or rankM, or csrowK/chJ on old
// drivers), since the counters were last reset (normally at boot).
struct EdacDimm {
  std::string controller;  // "mc0"
  std::string name;        // "dimm3", "rank1", "csrow0/ch1"
  std::string label;       // dimm_label: "CPU_SrcID#0_MC#0_Chan#1_DIMM#0", "DIMM_B1"
  std::uint64_t corrected = 0;
  std::optional<std::uint64_t> uncorrected;  // unset: counted per row, not per channel
};

struct EdacFacts {
  bool present = false;  // an EDAC memory controller is registered
  std::vector<EdacDimm> dimms;
  // Per controller: uncorrected errors no DIMM was named for, and the
  // seconds since its counters were reset.
  std::uint64_t uncorrected_unnamed = 0;
  std::optional<double> counting_for_s;
  std::vector<SourceStatus> sources;
};

struct HostFacts {
  CpuUsage cpu_usage;  // utilisation and top processes over the window
  CpuInfo cpu;         // load, online cores, quota, effective cores
  MemoryFacts memory;
  CgroupLimits cgroup;
  std::optional<double> cores_per_gpu;      // effective cores / GPU count
  std::optional<RamToGpuRatio> ram_to_gpu;  // host RAM (or cgroup limit) / GPU memory
  // Seconds since boot (/proc/uptime's first number); null when unreadable.
  std::optional<double> uptime_s;
  KernelLimits limits;
  DiskSpaceFacts disk_space;
  ProcessStateFacts processes;
  EdacFacts edac;
};

}  // namespace gpudoctor
