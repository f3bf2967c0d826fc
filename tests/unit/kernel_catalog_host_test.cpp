// The catalog's host rows (parse/kernel_catalog_host.h) on single lines:
// the fields each reads, the lines of healthy machines that hold the same
// words and are no event, and the order of rows where two could read a
// line. Lines quoted from tests/data/host_faults are real (SOURCES.md);
// those marked "format" are composed from the kernel's format string where
// no real post was found.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parse/kernel_catalog.h"
#include "parse/kernel_catalog_host.h"
#include "parse/kernel_prefilter.h"

namespace gpudoctor {
namespace {
namespace kernel_catalog_host_local {

using kevents::MatchOther;

// "kind|detail|process|pid" of the event the line gives, "<none>" when none.
std::string Read(std::string_view line) {
  auto m = MatchOther(line, {});
  if (!m) return "<none>";
  return std::string(KernelEventKindName(m->kind)) + "|" + m->detail + "|" + m->process + "|" +
         (m->pid ? std::to_string(*m->pid) : "");
}

TEST(HostRows, HungTasksNameTheTaskWhateverItsColons) {
  EXPECT_EQ(Read("INFO: task python:19772 blocked for more than 120 seconds."),
            "hung_task|blocked|python|19772");
  EXPECT_EQ(Read("INFO: task kworker/12:4:2320 blocked for more than 122 seconds."),
            "hung_task|blocked|kworker/12:4|2320");
  EXPECT_EQ(Read("INFO: task nvc:[driver]:5403 blocked for more than 120 seconds."),
            "hung_task|blocked|nvc:[driver]|5403");
}

TEST(HostRows, LockupsAndStallsAreNotCrashes) {
  EXPECT_EQ(Read("watchdog: BUG: soft lockup - CPU#7 stuck for 23s! [pytest:25222]"),
            "cpu_stall|soft lockup|pytest|25222");
  EXPECT_EQ(Read("NMI watchdog: BUG: soft lockup - CPU#2 stuck for 22s! [docker:1146]"),
            "cpu_stall|soft lockup|docker|1146");
  EXPECT_EQ(Read("BUG: soft lockup - CPU#3 stuck for 22s! [kworker/3:1:123]"),  // format (2.6.3x)
            "cpu_stall|soft lockup|kworker/3:1|123");
  EXPECT_EQ(Read("NMI watchdog: Watchdog detected hard LOCKUP on cpu 5"),  // format
            "cpu_stall|hard lockup||");
  EXPECT_EQ(Read("rcu: INFO: rcu_sched self-detected stall on CPU"), "cpu_stall|RCU stall||");
  EXPECT_EQ(Read("rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { P392 } 21382 "
                 "jiffies s: 117 root: 0x0/T"),
            "cpu_stall|RCU stall||");
}

TEST(HostRows, CrashesSayWhatCrashed) {
  EXPECT_EQ(Read("Kernel panic - not syncing: hung_task: blocked tasks"),
            "kernel_crash|panic: hung_task: blocked tasks||");
  EXPECT_EQ(Read("BUG: unable to handle kernel NULL pointer dereference at 0000000000000010"),
            "kernel_crash|BUG: NULL pointer dereference||");
  EXPECT_EQ(Read("BUG: kernel NULL pointer dereference, address: 0000000000000040"),
            "kernel_crash|BUG: NULL pointer dereference||");
  EXPECT_EQ(Read("BUG: unable to handle page fault for address: ffffb4c1c0e3f000"),  // format
            "kernel_crash|BUG: unable to handle page fault||");
  EXPECT_EQ(Read("kernel BUG at include/linux/swapops.h:88!"),
            "kernel_crash|kernel BUG at include/linux/swapops.h:88||");
  EXPECT_EQ(Read("general protection fault, probably for non-canonical address "
                 "0xdead000000000122: 0000 [#1] SMP NOPTI"),  // format
            "kernel_crash|general protection fault||");
  EXPECT_EQ(Read("Oops: 0000 [#1] SMP PTI"), "kernel_crash|oops||");
  // A protection fault in NCCL's library is NCCL's crash, read first.
  auto nccl = MatchOther(
      "traps: python[4821] general protection fault ip:7f3e2b9c1d2e sp:7ffd "
      "error:0 in libnccl.so.2.18.3[7f3e2b800000+1d00000]",
      {});
  ASSERT_TRUE(nccl);
  EXPECT_EQ(nccl->kind, KernelEventKind::kNcclSegfault);
}

TEST(HostRows, CrashLinesThatFollowNameTheTask) {
  EXPECT_TRUE(kevents::CrashContinues(
      "CPU: 19 PID: 3230 Comm: kvm Tainted: P           O      5.15.30-2-pve #1", {}));
  EXPECT_TRUE(kevents::CrashContinues("RIP: 0010:__gup_longterm_locked+0x128/0x430", {}));
  EXPECT_FALSE(kevents::CrashContinues("Call Trace:", {}));
  EventProcess p = kevents::CrashTask(
      "CPU: 0 UID: 992 PID: 24017 Comm: python3 Not tainted 6.12.55-74.119.amzn2023.aarch64 #1");
  EXPECT_EQ(p.name, "python3");
  EXPECT_EQ(p.pid, 24017);
}

TEST(HostRows, StorageErrorsNameTheDevice) {
  EXPECT_EQ(Read("nvme nvme1: I/O 775 QID 2 timeout, aborting"),
            "storage_error|nvme1: I/O timeout||");
  EXPECT_EQ(Read("nvme nvme2: I/O 0 QID 0 timeout, reset controller"),
            "storage_error|nvme2: I/O timeout||");
  EXPECT_EQ(Read("nvme nvme0: I/O tag 12 (a00c) opcode 0x1 (Write) QID 4 timeout, aborting "
                 "req_op:WRITE(1) size:4096"),  // format (6.x)
            "storage_error|nvme0: I/O timeout||");
  EXPECT_EQ(Read("nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0x10"),
            "storage_error|nvme0: controller down||");
  EXPECT_EQ(Read("nvme nvme2: Device not ready; aborting reset"),
            "storage_error|nvme2: reset failed||");
  EXPECT_EQ(Read("nvme nvme2: Removing after probe failure status: -19"),
            "storage_error|nvme2: removed||");
  EXPECT_EQ(Read("nvme0n1: I/O Cmd(0x2) @ LBA 32545872, 8 blocks, I/O Error (sct 0x3 / sc 0x71) "),
            "storage_error|nvme0n1: I/O error||");
  EXPECT_EQ(Read("blk_update_request: I/O error, dev nvme1n1, sector 823872 op 0x0:(READ) flags "
                 "0x80700 phys_seg 1 prio class 0"),
            "storage_error|nvme1n1: I/O error||");
  EXPECT_EQ(Read("blk_update_request: critical medium error, dev sda, sector 5117604744 op "
                 "0x0:(READ) flags 0x80700 phys_seg 1 prio class 0"),
            "storage_error|sda: I/O error||");
  EXPECT_EQ(Read("print_req_error: I/O error, dev sdc, sector 1098288304 flags 0"),
            "storage_error|sdc: I/O error||");
  EXPECT_EQ(Read("Buffer I/O error on dev cas1-1, logical block 8132691575, lost async page write"),
            "storage_error|cas1-1: I/O error||");
  EXPECT_EQ(Read("Buffer I/O error on device dm-0, logical block 2477053"),
            "storage_error|dm-0: I/O error||");
  EXPECT_EQ(Read("EXT4-fs error (device sda1): ext4_journal_check_start:83: Detected aborted "
                 "journal"),
            "storage_error|sda1: filesystem error||");
  EXPECT_EQ(Read("EXT4-fs (sda1): Remounting filesystem read-only"),
            "storage_error|sda1: remounted read-only||");
  EXPECT_EQ(Read("XFS (dm-11): Corruption of in-memory data detected.  Shutting down filesystem"),
            "storage_error|dm-11: filesystem shut down||");
  EXPECT_EQ(Read("XFS (sdb6): Filesystem has been shut down due to log error (0x2)."),
            "storage_error|sdb6: filesystem shut down||");
  EXPECT_EQ(Read("md/raid1:md126: Disk failure on sdb, disabling device."),
            "storage_error|md126: disk sdb failed||");
  EXPECT_EQ(Read("raid5: Disk failure on sdd1, disabling device."),
            "storage_error|disk sdd1 failed||");
  EXPECT_EQ(Read("kworker/u65:1: attempt to access beyond end of device"),
            "storage_error|beyond end of device||");
}

TEST(HostRows, HealthyStorageLinesAndApplicationWordsAreNoEvent) {
  for (std::string_view line : {
           "nvme nvme0: pci function 0000:c3:00.0",
           "nvme nvme0: 32/0/0 default/read/poll queues",
           "nvme 0000:01:00.0: enabling device (0000 -> 0002)",
           "nvme nvme1: Abort status: 0x6",
           "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: (null)",
           "EXT4-fs (dm-25): previous I/O error to superblock detected",
           "XFS (sda1): Mounting V5 Filesystem",
           "XFS (sda1): Ending clean mount",
           "python[812]: OSError: [Errno 5] Input/output error",
           "dataloader: I/O error while reading shard 12, retrying",
       }) {
    EXPECT_EQ(Read(line), "<none>") << line;
  }
}

TEST(HostRows, NetworkFileSystemsNameTheServerAndItsState) {
  EXPECT_EQ(Read("nfs: server 192.168.0.1 not responding, still trying"),
            "network_fs|nfs 192.168.0.1: not responding||");
  EXPECT_EQ(Read("nfs: server thinkcentre not responding, timed out"),
            "network_fs|nfs thinkcentre: timed out||");
  EXPECT_EQ(Read("nfs: server 192.168.0.1 OK"), "network_fs|nfs 192.168.0.1: OK||");
  EXPECT_EQ(Read("lockd: server fileserver not responding, still trying"),
            "network_fs|nfs fileserver: not responding||");
  EXPECT_EQ(Read("NFS: nfs4_reclaim_open_state: Lock reclaim failed!"),  // format
            "network_fs|nfs: lock reclaim failed||");
  EXPECT_EQ(Read("LustreError: 167-0: fs-OST0000-osc-ffff88: This client was evicted by "
                 "fs-OST0000; in progress operations using this service will fail."),  // format
            "network_fs|lustre fs-OST0000: evicted||");
  EXPECT_EQ(Read("LustreError: 11-0: jmain01-MDT0000-mdc-ffff88203810d800: operation obd_ping to "
                 "node 172.31.126.88@o2ib failed: rc = -107"),
            "network_fs|lustre 172.31.126.88@o2ib: connection lost||");
  EXPECT_EQ(Read("Lustre: fs-OST0001-osc-ffff88: Connection restored to fs-OST0001 (at "
                 "10.0.0.1@o2ib)"),  // format
            "network_fs|lustre fs-OST0001: connection restored||");
  EXPECT_EQ(Read("nfs: server 10.0.0.5 is shutting down"), "<none>");
}

TEST(HostRows, MemoryErrorsNameTheDimm) {
  EXPECT_EQ(Read("EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#2_DIMM#0 (channel:2 "
                 "slot:0 page:0x849923 offset:0x380 grain:32 syndrome:0x0 -  area:DRAM "
                 "err_code:0001:0092 socket:0 ha:0 channel_mask:4 rank:0)"),
            "memory_error|corrected: CPU_SrcID#0_Ha#0_Chan#2_DIMM#0||");
  EXPECT_EQ(Read("EDAC MC3: 1 UE memory read error on CPU_SrcID#0_MC#3_Chan#0_DIMM#0 (channel:0 "
                 "slot:0 page:0x7e025e offset:0x400 grain:32)"),
            "memory_error|uncorrected: CPU_SrcID#0_MC#3_Chan#0_DIMM#0||");
  EXPECT_EQ(Read("mce: [Hardware Error]: Machine check events logged"),
            "memory_error|machine check||");
  EXPECT_EQ(Read("mce: Uncorrected hardware memory error in user-access at 7e025e400"),
            "memory_error|uncorrected: memory (in user-access)||");
  EXPECT_EQ(Read("{7}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 4"),
            "memory_error|hardware error report||");
  for (std::string_view line : {
           "EDAC MC: Ver: 3.0.0",
           "EDAC sbridge MC0: HANDLING MCE MEMORY ERROR",
           "EDAC sbridge MC0: CPU 0: Machine Check Event: 0 Bank 5: 8c00004000010092",
           "mce: CPU0: Thermal monitoring enabled (TM1)",
           "MCE: In-kernel MCE decoding enabled.",
       }) {
    EXPECT_EQ(Read(line), "<none>") << line;
  }
}

TEST(HostRows, GhesReportSaysMemoryOrNotItsSeverityAndDimm) {
  KernelEvent e;
  e.detail = std::string(kevents::kGhesReport);
  for (const char* line :
       {"{7}[Hardware Error]: event severity: recoverable", "{7}[Hardware Error]:  fru_text: B2",
        "{7}[Hardware Error]:   section_type: memory error",
        "{7}[Hardware Error]:   DIMM location: not present. DMI handle: 0x0000"}) {
    ASSERT_TRUE(kevents::GhesContinues(line, e)) << line;
    e.continuation.emplace_back(line);
  }
  auto g = kevents::ReadGhesReport(e);
  EXPECT_TRUE(g.memory);
  EXPECT_EQ(g.severity, "recoverable");
  EXPECT_EQ(g.dimm, "B2");  // the DIMM location is "not present": the FRU names it
  KernelEvent pcie;
  pcie.detail = std::string(kevents::kGhesReport);
  pcie.continuation = {"{1}[Hardware Error]: event severity: corrected",
                       "{1}[Hardware Error]:  section_type: PCIe error"};
  EXPECT_FALSE(kevents::ReadGhesReport(pcie).memory);
}

TEST(HostRows, FullTablesNameTheLimit) {
  EXPECT_EQ(Read("VFS: file-max limit 1000000 reached"), "host_limit|file-max||");
  EXPECT_EQ(Read("nf_conntrack: nf_conntrack: table full, dropping packet"),
            "host_limit|conntrack table full||");
  EXPECT_EQ(Read("nf_conntrack: table full, dropping packet"), "host_limit|conntrack table full||");
  EXPECT_EQ(Read("cgroup: fork rejected by pids controller in /system.slice/icinga2.service"),
            "host_limit|pids limit: /system.slice/icinga2.service||");
}

// The prefilter's two sets of eight buckets: every needle, of either set,
// is found where it stands at every alignment of the 32-byte search, and
// the healthy mount line of an NVMe disk holds none.
TEST(HostRows, EveryNeedleIsFoundAtEveryAlignment) {
  const std::vector<std::string_view> needles = KernelNeedles();
  ASSERT_GT(needles.size(), 40u);
  for (std::string_view n : needles) {
    for (std::size_t pad = 0; pad < 40; pad += 13) {
      std::string text = std::string(pad + 40, 'z') + std::string(n) + std::string(40, 'y');
      EXPECT_EQ(NextKernelNeedle(text), pad + 40) << n;
    }
  }
  EXPECT_FALSE(LineMayMatter(
      "Feb 15 17:37:45 gpu-node-07 kernel: [80000.001000] EXT4-fs (nvme0n1p2): mounted filesystem "
      "with ordered data mode. Quota mode: none."));
}

}  // namespace kernel_catalog_host_local
}  // namespace
}  // namespace gpudoctor
