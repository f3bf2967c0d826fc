// The host.* rules over kernel-log events, fed through the real extractor:
// severity by whose task hung, whether a reboot is advised (after an NVIDIA
// task in D state, never for a file server), a file server still down at
// the end of the log against one that came back, firmware reports that are
// not memory, full kernel tables; host.limits on the live readings with
// gpud's 80 % / 95 % thresholds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parse/kernel_events.h"
#include "rules/kernel_events/group.h"
#include "rules/system/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {
namespace host_fault_rules_local {

DiagnosisInput FromLines(const std::vector<std::string>& lines) {
  std::vector<LogLine> log;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LogLine line;
    line.text = lines[i];
    line.ref = SourceRef{"k.log", i + 1};
    log.push_back(std::move(line));
  }
  return WithEvents(ExtractKernelEvents(log));
}

bool HasCommand(const Finding& f, std::string_view command) {
  for (const Action& a : f.actions) {
    if (a.command.find(command) != std::string::npos) return true;
  }
  return false;
}

bool Advises(const Finding& f, std::string_view words) {
  for (const Action& a : f.actions) {
    if (a.text.en.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(HostHungTask, AnNvidiaTaskIsCriticalAndNeedsAReboot) {
  auto d = RunRule(kHostHungTaskRule,
                   FromLines({"[ 721.028170] INFO: task nvidia-smi:5403 blocked for more than 120 "
                              "seconds."}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.hung_task");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_TRUE(HasCommand(d.findings[0], "sudo reboot"));
  EXPECT_NE(d.findings[0].title.en.find("`nvidia-smi`"), std::string::npos);
}

TEST(HostHungTask, ATrainingTaskIsCriticalWithoutAReboot) {
  auto d = RunRule(kHostHungTaskRule,
                   FromLines({"INFO: task pt_main_thread:811 blocked for more than 241 seconds."}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.hung_task");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_FALSE(HasCommand(d.findings[0], "sudo reboot"));
  EXPECT_NE(d.findings[0].title.en.find("more than 241 s"), std::string::npos);
}

TEST(HostHungTask, AnOtherTaskIsAWarning) {
  auto d = RunRule(kHostHungTaskRule,
                   FromLines({"INFO: task kworker/12:4:2320 blocked for more than 122 seconds."}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.hung_task");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
}

TEST(HostHungTask, BehindAFileServerThatStoppedItSaysDoNotReboot) {
  auto d = RunRule(kHostHungTaskRule,
                   FromLines({"nfs: server 10.0.0.5 not responding, still trying",
                              "INFO: task python3:4821 blocked for more than 120 seconds."}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.hung_task");
  EXPECT_NE(d.findings[0].explanation.en.find("host.network_fs"), std::string::npos);
  EXPECT_TRUE(Advises(d.findings[0], "do not reboot"));
  EXPECT_FALSE(HasCommand(d.findings[0], "sudo reboot"));
}

TEST(HostCpuStall, HardLockupsAndTheDriversLockupsAreCritical) {
  auto soft =
      RunRule(kHostCpuStallRule,
              FromLines({"watchdog: BUG: soft lockup - CPU#7 stuck for 23s! [pytest:25222]"}));
  ASSERT_EQ(soft.findings.size(), 1u);
  EXPECT_EQ(soft.findings[0].id, "host.cpu_stall");
  EXPECT_EQ(soft.findings[0].severity, Severity::kWarning);
  auto hard = RunRule(kHostCpuStallRule,
                      FromLines({"NMI watchdog: Watchdog detected hard LOCKUP on cpu 5"}));
  ASSERT_EQ(hard.findings.size(), 1u);
  EXPECT_EQ(hard.findings[0].id, "host.cpu_stall");
  EXPECT_EQ(hard.findings[0].severity, Severity::kCritical);
  auto nv = RunRule(kHostCpuStallRule, FromLines({"watchdog: BUG: soft lockup - CPU#3 stuck for "
                                                  "26s! [nvidia-smi:9911]"}));
  ASSERT_EQ(nv.findings.size(), 1u);
  EXPECT_EQ(nv.findings[0].id, "host.cpu_stall");
  EXPECT_EQ(nv.findings[0].severity, Severity::kCritical);
  EXPECT_NE(nv.findings[0].explanation.en.find("NVIDIA driver"), std::string::npos);
}

TEST(HostKernelCrash, AnOopsInTheNvidiaModuleNamesTheDriverAndTheTask) {
  auto d =
      RunRule(kHostKernelCrashRule,
              FromLines({"BUG: kernel NULL pointer dereference, address: 0000000000000008",
                         "#PF: supervisor read access in kernel mode", "PGD 0 P4D 0 ",
                         "Oops: 0000 [#1] SMP PTI",
                         "CPU: 19 PID: 3230 Comm: python3 Tainted: P           O      5.15.0 #1",
                         "Hardware name: Amazon EC2 p4d.24xlarge/, BIOS 1.0 10/16/2017",
                         "RIP: 0010:_nv011397rm+0x1a/0x30 [nvidia]"}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.kernel_crash");
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NE(f.title.en.find("in the NVIDIA driver"), std::string::npos) << f.title.en;
  EXPECT_NE(f.title.en.find("NULL pointer dereference"), std::string::npos);
  EXPECT_EQ(f.title.en.find("oops"), std::string::npos);  // the BUG names it; the oops repeats it
  EXPECT_NE(f.title.en.find("`python3`"), std::string::npos);
  EXPECT_TRUE(HasCommand(f, "nvidia-bug-report.sh"));
  EXPECT_TRUE(HasCommand(f, "sudo reboot"));
}

TEST(HostKernelCrash, APanicDoesNotAdviseTheRebootThatHappened) {
  auto d =
      RunRule(kHostKernelCrashRule,
              FromLines({"Kernel panic - not syncing: softlockup: hung tasks",
                         "CPU: 3 PID: 0 Comm: swapper/3 Tainted: G             L     6.5.3 #1"}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.kernel_crash");
  EXPECT_FALSE(HasCommand(d.findings[0], "sudo reboot"));
  EXPECT_TRUE(HasCommand(d.findings[0], "journalctl -k -b -1"));
  EXPECT_NE(d.findings[0].title.en.find("`swapper/3`"), std::string::npos);
}

TEST(HostStorage, TimeoutsAloneWarnAndLostDataIsCritical) {
  auto stalls = RunRule(kHostStorageRule, FromLines({"nvme nvme1: I/O 775 QID 2 timeout, aborting",
                                                     "nvme nvme1: Abort status: 0x6"}));
  ASSERT_EQ(stalls.findings.size(), 1u);
  EXPECT_EQ(stalls.findings[0].id, "host.storage");
  EXPECT_EQ(stalls.findings[0].severity, Severity::kWarning);
  EXPECT_TRUE(HasCommand(stalls.findings[0], "nvme smart-log /dev/nvme1"));
  auto lost = RunRule(kHostStorageRule,
                      FromLines({"nvme nvme0: controller is down; will reset: CSTS=0xffffffff",
                                 "I/O error, dev nvme0n1, sector 32545872 op 0x0:(READ) flags "
                                 "0x80700 phys_seg 1 prio class 2"}));
  ASSERT_EQ(lost.findings.size(), 1u);
  EXPECT_EQ(lost.findings[0].id, "host.storage");
  EXPECT_EQ(lost.findings[0].severity, Severity::kCritical);
  auto ro =
      RunRule(kHostStorageRule, FromLines({"EXT4-fs (sda1): Remounting filesystem read-only"}));
  ASSERT_EQ(ro.findings.size(), 1u);
  EXPECT_EQ(ro.findings[0].id, "host.storage");
  EXPECT_TRUE(HasCommand(ro.findings[0], "findmnt"));
}

TEST(HostStorage, AHealthyBootIsNoFinding) {
  auto d = RunRule(kHostStorageRule,
                   FromLines({"nvme nvme0: pci function 0000:c3:00.0",
                              "nvme nvme0: 32/0/0 default/read/poll queues", " nvme0n1: p1 p2",
                              "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode.",
                              "XFS (md0): Mounting V5 Filesystem", "XFS (md0): Ending clean mount",
                              "md/raid0:md0: md_size is 30005772288 sectors."}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(HostNetworkFs, StillDownIsCriticalRecoveredIsAWarningAndOkAloneIsNothing) {
  auto down = RunRule(kHostNetworkFsRule,
                      FromLines({"[   10.000000] nfs: server fs1 not responding, still trying",
                                 "[   20.000000] nfs: server fs1 OK",
                                 "[   30.000000] nfs: server fs1 not responding, still trying"}));
  ASSERT_EQ(down.findings.size(), 1u);
  EXPECT_EQ(down.findings[0].id, "host.network_fs");
  EXPECT_EQ(down.findings[0].severity, Severity::kCritical);
  EXPECT_NE(down.findings[0].title.en.find("`nfs fs1` is not answering"), std::string::npos);
  EXPECT_FALSE(HasCommand(down.findings[0], "reboot"));
  auto back = RunRule(kHostNetworkFsRule,
                      FromLines({"[   10.000000] nfs: server fs1 not responding, still trying",
                                 "[   20.000000] nfs: server fs1 not responding, still trying",
                                 "[   30.000000] nfs: server fs1 OK"}));
  ASSERT_EQ(back.findings.size(), 1u);
  EXPECT_EQ(back.findings[0].id, "host.network_fs");
  EXPECT_EQ(back.findings[0].severity, Severity::kWarning);
  EXPECT_NE(back.findings[0].title.en.find("(2 reports), then recovered"), std::string::npos)
      << back.findings[0].title.en;
  auto ok = RunRule(kHostNetworkFsRule, FromLines({"nfs: server fs1 OK"}));
  EXPECT_TRUE(ok.findings.empty());
  auto evicted = RunRule(kHostNetworkFsRule,
                         FromLines({"LustreError: 167-0: fs-OST0000-osc-ffff88: This client was "
                                    "evicted by fs-OST0000; in progress operations using this "
                                    "service will fail."}));
  ASSERT_EQ(evicted.findings.size(), 1u);
  EXPECT_EQ(evicted.findings[0].id, "host.network_fs");
  EXPECT_EQ(evicted.findings[0].severity, Severity::kCritical);
}

TEST(HostMemoryErrors, CorrectedWarnsUncorrectedIsCriticalOtherFirmwareReportsAreNotMemory) {
  auto ce = RunRule(kHostMemoryErrorsRule,
                    FromLines({"EDAC MC0: 1 CE memory read error on DIMM_A1 (channel:0 slot:0 "
                               "page:0x1 offset:0x0 grain:32 syndrome:0x0)"}));
  ASSERT_EQ(ce.findings.size(), 1u);
  EXPECT_EQ(ce.findings[0].id, "host.memory_errors");
  EXPECT_EQ(ce.findings[0].severity, Severity::kWarning);
  EXPECT_NE(ce.findings[0].title.en.find("`DIMM_A1`"), std::string::npos);
  auto ue = RunRule(kHostMemoryErrorsRule,
                    FromLines({"{7}[Hardware Error]: Hardware error from APEI Generic Hardware "
                               "Error Source: 4",
                               "{7}[Hardware Error]: event severity: recoverable",
                               "{7}[Hardware Error]:   section_type: memory error",
                               "{7}[Hardware Error]:   DIMM location: CPU0_DIMM_G1"}));
  ASSERT_EQ(ue.findings.size(), 1u);
  EXPECT_EQ(ue.findings[0].id, "host.memory_errors");
  EXPECT_EQ(ue.findings[0].severity, Severity::kCritical);
  EXPECT_NE(ue.findings[0].title.en.find("`CPU0_DIMM_G1`"), std::string::npos);
  auto pcie = RunRule(kHostMemoryErrorsRule,
                      FromLines({"{1}[Hardware Error]: Hardware error from APEI Generic Hardware "
                                 "Error Source: 1",
                                 "{1}[Hardware Error]: event severity: corrected",
                                 "{1}[Hardware Error]:  section_type: PCIe error"}));
  EXPECT_TRUE(pcie.findings.empty());
}

TEST(HostLimitReached, PidsLimitIsCriticalAndNamesTheGroupConntrackWarns) {
  auto pids =
      RunRule(kHostLimitReachedRule, FromLines({"cgroup: fork rejected by pids controller in "
                                                "/kubepods.slice/kubepods-burstable.slice/pod1"}));
  ASSERT_EQ(pids.findings.size(), 1u);
  EXPECT_EQ(pids.findings[0].id, "host.limit_reached");
  EXPECT_EQ(pids.findings[0].severity, Severity::kCritical);
  EXPECT_TRUE(HasCommand(pids.findings[0],
                         "/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/pod1/pids.max"));
  auto conntrack =
      RunRule(kHostLimitReachedRule, FromLines({"nf_conntrack: table full, dropping packet"}));
  ASSERT_EQ(conntrack.findings.size(), 1u);
  EXPECT_EQ(conntrack.findings[0].id, "host.limit_reached");
  EXPECT_EQ(conntrack.findings[0].severity, Severity::kWarning);
}

DiagnosisInput WithLimits(KernelLimits limits) {
  DiagnosisInput input;
  input.host = HostFacts{};
  input.host->limits = std::move(limits);
  return input;
}

TEST(HostLimits, WarnsAt80AndIsCriticalAt95PercentOfTheLowerLimit) {
  KernelLimits l;
  l.open_files = 79'999;
  l.open_files_max = 100'000;
  l.threads = 3'000;
  l.pid_max = 4'194'304;
  l.threads_max = 1'000'000;
  EXPECT_TRUE(RunRule(kHostLimitsRule, WithLimits(l)).findings.empty());
  l.open_files = 80'000;
  auto warn = RunRule(kHostLimitsRule, WithLimits(l));
  ASSERT_EQ(warn.findings.size(), 1u);
  EXPECT_EQ(warn.findings[0].id, "host.limits");
  EXPECT_EQ(warn.findings[0].severity, Severity::kWarning);
  EXPECT_NE(warn.findings[0].title.en.find("fs.file-max"), std::string::npos);
  l.open_files = 1'000;
  l.threads = 31'200;
  l.pid_max = 32'768;  // below threads-max: the PID space is the limit
  auto crit = RunRule(kHostLimitsRule, WithLimits(l));
  ASSERT_EQ(crit.findings.size(), 1u);
  EXPECT_EQ(crit.findings[0].id, "host.limits");
  EXPECT_EQ(crit.findings[0].severity, Severity::kCritical);
  EXPECT_NE(crit.findings[0].title.en.find("kernel.pid_max"), std::string::npos);
}

TEST(HostLimits, UnreadableTablesAreNotChecked) {
  auto d = RunRule(kHostLimitsRule, WithLimits(KernelLimits{}));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_FALSE(d.not_checked.empty());
  EXPECT_EQ(d.not_checked[0].rule, "host.limits");
}

}  // namespace host_fault_rules_local
}  // namespace
}  // namespace gpudoctor::testing
