// The kernel-log messages of the host around the GPU, as the catalog's rows
// read them (kernel_catalog.cpp's kOtherMessages): tasks blocked in D state,
// CPUs locked up and RCU stalls, kernel crashes, storage errors, network
// file systems that stop answering, memory errors, kernel limits reached.
// Each function reads one family: the event's fields, or nullopt when the
// line is not one of its messages. The `detail` each gives is documented
// beside it; the host.* rules (rules/kernel_events/host_*.cpp) read it.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parse/kernel_catalog.h"

namespace gpudoctor::kevents {

// "INFO: task python3:4821 blocked for more than 120 seconds." (kernel/
// hung_task.c): the task's name and pid; detail "blocked".
std::optional<LineMatch> ReadHungTask(std::string_view s, std::string_view ident);

// kernel/watchdog.c and RCU: "watchdog: BUG: soft lockup - CPU#3 stuck for
// 23s! [python3:4821]" (detail "soft lockup", the task), "Watchdog detected
// hard LOCKUP on cpu 5" ("hard lockup"), "rcu: INFO: rcu_sched self-detected
// stall on CPU" / "rcu_preempt detected stalls on CPUs/tasks:" /
// "... detected expedited stalls ..." ("RCU stall").
std::optional<LineMatch> ReadCpuStall(std::string_view s, std::string_view ident);

// A crash: "Kernel panic - not syncing: REASON" ("panic: REASON"), "BUG:
// kernel NULL pointer dereference, address: ..." / "BUG: unable to handle
// page fault for address: ..." ("BUG: WHAT", the words before the first
// comma or " at"/" for"), "kernel BUG at mm/slub.c:305!" ("kernel BUG at
// FILE:LINE"), "general protection fault ..." ("general protection
// fault"), "Oops: 0000 [#1] SMP" ("oops").
std::optional<LineMatch> ReadKernelCrash(std::string_view s, std::string_view ident);

// The lines after a crash or a lockup that say where it happened: "CPU: 3
// PID: 4821 Comm: python3 Tainted: ...", "Hardware name: ...", "RIP:
// 0010:func+0x1a/0x30 [nvidia]".
bool CrashContinues(std::string_view line, const KernelEvent& open);
// The task a "CPU: N PID: N Comm: NAME ..." line names (name empty: none).
EventProcess CrashTask(std::string_view line);

// Storage: detail "DEVICE: WHAT". ReadStorage reads the block devices:
// WHAT "I/O timeout", "controller down", "reset failed", "removed",
// "disabled" (NVMe), "I/O error" (block layer, buffer cache, an NVMe
// command). ReadFilesystem reads the filesystems and arrays: "filesystem
// error" (EXT*-fs error, XFS metadata corruption), "I/O error" (XFS's),
// "remounted read-only", "filesystem shut down" (XFS), "disk DEV failed"
// (md RAID; DEVICE is the array, absent in the oldest format); "beyond end
// of device" alone (the device is on the next line).
std::optional<LineMatch> ReadStorage(std::string_view s, std::string_view ident);
// The NVMe rows alone: lines that begin with "nvme" (ReadStorage reads
// them too, for an NVMe command's "I/O Error").
std::optional<LineMatch> ReadNvmeController(std::string_view s, std::string_view ident);
std::optional<LineMatch> ReadFilesystem(std::string_view s, std::string_view ident);

// Network file systems: detail "FS SERVER: STATE" — "nfs 10.0.0.5: not
// responding", "... : timed out", "... : OK" (NFS and lockd), "nfs: lock
// reclaim failed", "lustre lustre-OST0001: evicted" / "connection lost" /
// "connection restored".
std::optional<LineMatch> ReadNetworkFs(std::string_view s, std::string_view ident);

// Memory hardware: detail "corrected: LABEL" / "uncorrected: LABEL" (EDAC's
// CE and UE reports, LABEL the DIMM as the firmware names it; "fatal: ..."
// for a UE EDAC calls fatal), "machine check" (mce's "Machine check events
// logged" and its per-bank lines), "uncorrected: memory (in user-access)"
// (mce's "Uncorrected hardware memory error in user-access at ...").
std::optional<LineMatch> ReadMemoryError(std::string_view s, std::string_view ident);

// The head of a firmware (APEI GHES) hardware error report: "{1}[Hardware
// Error]: Hardware error from APEI Generic Hardware Error Source: 0"
// (ReadMemoryError's detail kGhesReport); the report's "[Hardware Error]:"
// lines continue it. What it says once its lines are in: a memory error or
// not, its severity ("corrected", "recoverable", "fatal"), the DIMM
// ("DIMM location: ..." or, when "not present", "fru_text: ...").
inline constexpr std::string_view kGhesReport = "hardware error report";
bool GhesContinues(std::string_view line, const KernelEvent& open);
struct GhesMemoryError {
  bool memory = false;
  std::string severity;
  std::string dimm;
};
GhesMemoryError ReadGhesReport(const KernelEvent& e);

// Kernel limits: "VFS: file-max limit N reached" ("file-max"),
// "nf_conntrack: table full, dropping packet" ("conntrack table full"),
// "cgroup: fork rejected by pids controller in /path" ("pids limit: /path").
std::optional<LineMatch> ReadHostLimit(std::string_view s, std::string_view ident);

}  // namespace gpudoctor::kevents
