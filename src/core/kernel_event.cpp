#include "core/kernel_event.h"

namespace gpudoctor {

const char* KernelEventKindName(KernelEventKind kind) {
  switch (kind) {
    case KernelEventKind::kXid:
      return "xid";
    case KernelEventKind::kSxid:
      return "sxid";
    case KernelEventKind::kFallenOffBus:
      return "fallen_off_bus";
    case KernelEventKind::kRmInitFailed:
      return "rm_init_failed";
    case KernelEventKind::kGspTimeout:
      return "gsp_timeout";
    case KernelEventKind::kGspHeartbeat:
      return "gsp_heartbeat";
    case KernelEventKind::kRecoveryAction:
      return "recovery_action";
    case KernelEventKind::kNcclTimeout:
      return "nccl_timeout";
    case KernelEventKind::kNcclSegfault:
      return "nccl_segfault";
    case KernelEventKind::kPcieBandwidthLimited:
      return "pcie_bandwidth_limited";
    case KernelEventKind::kDriverLoaded:
      return "driver_loaded";
    case KernelEventKind::kGpuUuid:
      return "gpu_uuid";
    case KernelEventKind::kPcieAer:
      return "pcie_aer";
    case KernelEventKind::kFabricManagerError:
      return "fabricmanager_error";
    case KernelEventKind::kOomKill:
      return "oom_kill";
    case KernelEventKind::kProbeFailed:
      return "probe_failed";
    case KernelEventKind::kGpuLost:
      return "gpu_lost";
    case KernelEventKind::kAgentStopped:
      return "agent_stopped";
    case KernelEventKind::kPeermemError:
      return "peermem_error";
    case KernelEventKind::kMlx5:
      return "mlx5";
    case KernelEventKind::kNvlinkRxDetect:
      return "nvlink_rx_detect";
    case KernelEventKind::kNcclNetwork:
      return "nccl_network";
    case KernelEventKind::kHungTask:
      return "hung_task";
    case KernelEventKind::kCpuStall:
      return "cpu_stall";
    case KernelEventKind::kKernelCrash:
      return "kernel_crash";
    case KernelEventKind::kStorageError:
      return "storage_error";
    case KernelEventKind::kNetworkFs:
      return "network_fs";
    case KernelEventKind::kMemoryError:
      return "memory_error";
    case KernelEventKind::kHostLimit:
      return "host_limit";
    case KernelEventKind::kReboot:
      return "reboot";
    case KernelEventKind::kLatched:
      return "latched";
    case KernelEventKind::kAcknowledged:
      return "acknowledged";
  }
  return "unknown";
}

}  // namespace gpudoctor
