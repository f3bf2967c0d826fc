// Kernel-log evidence: the lines a source yields, and the events extracted
// from them (Xid, SXid, fallen off the bus, GSP timeouts, NCCL errors, ...).
// The field names follow the report's `events` list (gpudoctor.report/v1).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

using WallTime = std::chrono::system_clock::time_point;

// Where a piece of evidence came from: a file and 1-based line, or a live
// source such as "/dev/kmsg" or "journal" (line 0 then).
struct SourceRef {
  std::string file;
  std::size_t line = 0;
};

// One line as a source yields it, before any parsing. `time` is set when the
// source itself knows the time (journal entries, /dev/kmsg records); for
// plain files the parser reads it from the line's prefix.
struct LogLine {
  std::string text;
  SourceRef ref;
  std::optional<WallTime> time;
  std::optional<double> monotonic_s;  // seconds since boot when known
};

enum class KernelEventKind {
  kXid,
  kSxid,
  kFallenOffBus,
  kRmInitFailed,
  kGspTimeout,
  kGspHeartbeat,
  kRecoveryAction,  // Xid 154 text
  kNcclTimeout,
  kNcclSegfault,
  kPcieBandwidthLimited,
  kDriverLoaded,
  kGpuUuid,  // "NVRM: GPU at PCI:...: GPU-<uuid>"
  kPcieAer,
  kFabricManagerError,
  kOomKill,
  kProbeFailed,  // "probe of ... failed", "probe routine failed"
  kGpuLost,      // the agent saw NVML lose a GPU (lost, hung or gone); source "nvml"
  // The agent stopped recording (cleanly, or killed: then found at its next
  // start, or by `report` when no agent holds the store); at its last
  // sample. Source "agent". Nothing was recorded until the next start.
  kAgentStopped,
  kPeermemError,    // "nvidia-peermem ... ERROR ..." (GPUDirect RDMA)
  kMlx5,            // mlx5_core (ConnectX NIC) trouble: command timeout, health, power, module heat
  kNvlinkRxDetect,  // NVRM failed to update the NVLink post-Rx-detect link mask (peers not set up)
  kNcclNetwork,     // NCCL lost its network: an IB completion error, a closed or refused connection
  // The host around the GPU (parse/kernel_catalog_host.h): a task blocked
  // in D state, a CPU locked up or an RCU stall, a kernel crash (panic,
  // BUG, oops), a storage error, a network file system that stopped
  // answering, a memory error (EDAC, machine check), a kernel limit reached.
  kHungTask,
  kCpuStall,
  kKernelCrash,
  kStorageError,
  kNetworkFs,
  kMemoryError,
  kHostLimit,
  // The node booted again since the agent last ran (a new boot_id): at the
  // boot's time; `detail` the new boot_id. Source "agent".
  kReboot,
  // The audit log of latched findings (facts/latch.h), source "agent": the
  // agent latched a recurring fault for hardware inspection; an operator
  // acknowledged it (who, why and how in the message: `gpudoctor ack` or the
  // agent's API). `detail` the finding id; `code` the Xid, if any.
  kLatched,
  kAcknowledged,
};

// The last enumerator, for code that walks every kind.
inline constexpr KernelEventKind kLastKernelEventKind = KernelEventKind::kAcknowledged;

// The `detail` of the mlx5 (ConnectX NIC) events.
inline constexpr std::string_view kMlx5CommandTimeout = "command timeout";
inline constexpr std::string_view kMlx5HealthPoll = "health poll failed";
inline constexpr std::string_view kMlx5Unrecoverable = "unrecoverable";
inline constexpr std::string_view kMlx5InsufficientPower = "insufficient PCIe slot power";
inline constexpr std::string_view kMlx5ModuleHighTemperature = "module high temperature";

// "xid", "sxid", "fallen_off_bus", "rm_init_failed", "gsp_timeout", ...
const char* KernelEventKindName(KernelEventKind kind);

// A process a log line names (pid and name as printed; either may be absent).
struct EventProcess {
  std::optional<std::int64_t> pid;
  std::string name;
  bool operator==(const EventProcess&) const = default;
};

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::kXid;
  std::optional<WallTime> time;           // absolute time when known
  std::optional<double> monotonic_s;      // seconds since boot when known
  std::optional<int> code;                // Xid / SXid number
  std::string pci_bus_id;                 // "0000:3b:00.0"; empty if none
  // When the line names an address that is not a PCI bus id (a device above
  // 0x1f, a function above 7): the address as printed ("0000:3a:25") and why
  // ("device 0x25 is above 0x1f"), said in the evidence; pci_bus_id stays empty.
  std::string pci_not_bus_id;
  std::string pci_not_bus_id_why;
  std::optional<int> gpu_number;          // the driver's "GPU4" (its instance number) when printed
  std::optional<std::int64_t> pid;
  std::string process;
  std::string message;                    // first line, prefix stripped
  std::vector<std::string> continuation;  // following lines of the same message
  std::size_t count = 1;                  // identical repeats folded into one
  std::optional<WallTime> last_time;      // time of the last repeat (count > 1)
  std::optional<double> last_monotonic_s;
  SourceRef source;                       // first occurrence
  std::string detail;                     // kind-specific: UUID, driver version, action...
  // A flood: occurrences of the same cause (kind, code, GPU, detail) whose
  // lines differ from this one (another process, another message), counted
  // into `count` once the cause has its share of separate events
  // (parse/kernel_events.h). How many of the count they are, their distinct
  // processes other than this event's own (at most kMaxOtherProcesses), and
  // how many distinct ones more there were (at least that many when
  // other_processes_left_out_is_floor).
  std::size_t varied_count = 0;
  std::vector<EventProcess> other_processes;
  std::size_t other_processes_left_out = 0;
  bool other_processes_left_out_is_floor = false;
  std::size_t continuation_left_out = 0;  // lines of the message beyond the kept ones
};

// How many other processes an event lists before it only counts them.
inline constexpr std::size_t kMaxOtherProcesses = 32;

}  // namespace gpudoctor
