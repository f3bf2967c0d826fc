// host.stuck_processes and host.zombies, with the tracker that feeds them
// (collect/process_states.h): a task in D state through 5 checks with no
// context switch and no CPU time is stuck; a busy writer that is in D state
// at every check but keeps switching is not; a reused pid starts again;
// NVIDIA tasks need a reboot, tasks waiting for NFS do not; more than 1,000
// zombies name the parent that holds them. The /proc lines are from a real
// machine (a process blocked in vfork, which the kernel shows as D).
#include <gtest/gtest.h>

#include "collect/process_states.h"
#include "parse/proc_pid.h"
#include "parse/proc_stat.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {
namespace rule_host_processes_local {

using std::chrono::seconds;
using TimePoint = StuckProcessTracker::TimePoint;

ProcessTicks Proc(int pid, const std::string& comm, char state, std::uint64_t switches = 10,
                  std::uint64_t cpu = 100, std::uint64_t start = 5000) {
  ProcessTicks p;
  p.pid = pid;
  p.comm = comm;
  p.state = state;
  p.cpu_ticks = cpu;
  p.starttime_ticks = start;
  p.ppid = 1;
  if (state == 'D') p.context_switches = switches;
  return p;
}

ProcessStateFacts Track(const std::vector<std::vector<ProcessTicks>>& scans) {
  StuckProcessTracker t;
  TimePoint at{};
  for (const auto& scan : scans) {
    t.Observe(scan, at);
    at += seconds(15);
  }
  return t.Facts();
}

TEST(ProcessStates, ParsesTheRealStatAndStatusLinesOfABlockedProcess) {
  // /proc/9095/stat and status of a process blocked in vfork (kernel 5.15).
  auto stat = ParsePidStat(
      "9095 (vf) D 1 9086 7503 0 -1 4194304 107 0 0 0 0 0 0 0 20 0 1 0 31853465 2678784 "
      "88 18446744073709551615 94299 94300 140727 0 0 0 0 0 0 1 0 0 17 1 0 0 0 0 0");
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat->state, 'D');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->flags, 4194304u);  // PF_RANDOMIZE only
  EXPECT_EQ(stat->flags & 0x00200000u, 0u);
  EXPECT_EQ(ParseStatusContextSwitches("Name:\tvf\nState:\tD (disk sleep)\n"
                                       "voluntary_ctxt_switches:\t1\n"
                                       "nonvoluntary_ctxt_switches:\t2\n"),
            3u);
  EXPECT_FALSE(ParseStatusContextSwitches("voluntary_ctxt_switches:\t1\n").has_value());
  EXPECT_FALSE(ParseStatusContextSwitches("voluntary_ctxt_switches:\tx\n"
                                          "nonvoluntary_ctxt_switches:\t2\n")
                   .has_value());
  // kthreadd: flags with PF_KTHREAD.
  auto kthread = ParsePidStat(
      "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 1 0 "
      "0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 0");
  ASSERT_TRUE(kthread.ok());
  EXPECT_NE(kthread->flags & 0x00200000u, 0u);
}

TEST(ProcessStates, FiveChecksWithoutProgressMakeAStuckProcess) {
  std::vector<std::vector<ProcessTicks>> scans(5, {Proc(10, "python3", 'D')});
  auto four = Track({scans.begin(), scans.begin() + 4});
  EXPECT_TRUE(four.stuck.empty());
  auto five = Track(scans);
  ASSERT_EQ(five.stuck.size(), 1u);
  EXPECT_EQ(five.stuck[0].pid, 10);
  EXPECT_EQ(five.stuck[0].checks, 5u);
  EXPECT_DOUBLE_EQ(five.stuck[0].stuck_for_s, 60.0);
  EXPECT_EQ(five.checks, 5u);
}

TEST(ProcessStates, ABusyWriterInDStateAtEveryCheckIsNotStuck) {
  // dd writing to a slow disk: D at every check, but it switches and runs.
  std::vector<std::vector<ProcessTicks>> scans;
  for (std::uint64_t i = 0; i < 8; ++i) scans.push_back({Proc(10, "dd", 'D', 10 + i * 40)});
  EXPECT_TRUE(Track(scans).stuck.empty());
  // Context switches unreadable: CPU time alone shows the progress.
  scans.clear();
  for (std::uint64_t i = 0; i < 8; ++i) {
    auto p = Proc(10, "dd", 'D', 0, 100 + i);
    p.context_switches.reset();
    scans.push_back({p});
  }
  EXPECT_TRUE(Track(scans).stuck.empty());
}

TEST(ProcessStates, AnInterruptionOrAReusedPidOrAFailedReadStartsAgain) {
  auto d = Proc(10, "python3", 'D');
  auto s = Proc(10, "python3", 'S');
  EXPECT_TRUE(Track({{d}, {d}, {d}, {s}, {d}, {d}, {d}, {d}}).stuck.empty());
  auto reused = Proc(10, "python3", 'D', 10, 100, 9999);
  EXPECT_TRUE(Track({{d}, {d}, {d}, {reused}, {reused}, {reused}, {reused}}).stuck.empty());
  StuckProcessTracker t;
  TimePoint at{};
  for (int i = 0; i < 3; ++i) t.Observe({d}, at);
  t.Failed(SourceStatus{"/proc/<pid>/stat", false, "Permission denied"});
  for (int i = 0; i < 4; ++i) t.Observe({d}, at);
  EXPECT_TRUE(t.Facts().stuck.empty());
  t.Observe({d}, at);
  EXPECT_EQ(t.Facts().stuck.size(), 1u);
}

TEST(ProcessStates, ChecksBackToBackProveNothingAndAFailedReadDropsTheZombies) {
  // Five checks within a second (an interrupted diagnosis): the span asked
  // for is not reached.
  StuckProcessTracker t;
  TimePoint at{};
  for (int i = 0; i < 5; ++i) {
    t.Observe({Proc(10, "python3", 'D'), Proc(11, "x", 'Z')}, at);
    at += std::chrono::milliseconds(200);
  }
  EXPECT_TRUE(t.Facts(3.2).stuck.empty());
  EXPECT_EQ(t.Facts(0.5).stuck.size(), 1u);
  EXPECT_EQ(t.Facts().zombies, 1u);
  t.Failed(SourceStatus{"/proc/<pid>/stat", false, "Permission denied"});
  EXPECT_FALSE(t.Facts().zombies.has_value());
  EXPECT_TRUE(t.Facts().zombie_parents.empty());
}

TEST(ProcessStates, ZombiesAreCountedByParent) {
  std::vector<ProcessTicks> scan = {Proc(1, "systemd", 'S'), Proc(200, "launcher", 'S'),
                                    Proc(300, "bash", 'S')};
  for (int i = 0; i < 7; ++i) {
    auto z = Proc(1000 + i, "python3", 'Z');
    z.ppid = i < 5 ? 200 : 300;
    scan.push_back(z);
  }
  auto z = Proc(2000, "x", 'Z');
  z.ppid = 4242;  // a parent not in the table
  scan.push_back(z);
  auto f = Track({scan});
  EXPECT_EQ(f.zombies, 8u);
  ASSERT_EQ(f.zombie_parents.size(), 3u);
  EXPECT_EQ(f.zombie_parents[0].pid, 200);
  EXPECT_EQ(f.zombie_parents[0].comm, "launcher");
  EXPECT_EQ(f.zombie_parents[0].zombies, 5u);
  EXPECT_EQ(f.zombie_parents[1].pid, 300);
  EXPECT_EQ(f.zombie_parents[2].comm, "");
}

DiagnosisInput With(ProcessStateFacts p) {
  DiagnosisInput input;
  input.host = HostFacts{};
  input.host->processes = std::move(p);
  return input;
}

ProcessStateFacts Stuck(std::vector<StuckProcess> stuck) {
  ProcessStateFacts p;
  p.checks = 5;
  p.zombies = 0;
  p.stuck = std::move(stuck);
  return p;
}

StuckProcess One(int pid, const std::string& comm, const std::string& wchan,
                 bool kernel_thread = false) {
  StuckProcess s;
  s.pid = pid;
  s.comm = comm;
  s.wchan = wchan;
  s.kernel_thread = kernel_thread;
  s.checks = 5;
  s.stuck_for_s = 60;
  return s;
}

bool HasCommand(const Finding& f, const std::string& part) {
  for (const auto& a : f.actions) {
    if (a.command.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(HostStuckProcesses, AnNvidiaTaskIsCriticalAndNeedsAReboot) {
  auto d = RunRule(kHostStuckProcessesRule, With(Stuck({One(4321, "nvidia-smi", "")})));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "host.stuck_processes");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NE(f.title.en.find("nvidia-smi (4321)"), std::string::npos) << f.title.en;
  EXPECT_TRUE(HasCommand(f, "reboot"));
  EXPECT_TRUE(HasCommand(f, "/proc/4321/stack"));
  // A python process whose wait channel is in the driver (os_acquire_mutex).
  auto in_driver =
      RunRule(kHostStuckProcessesRule, With(Stuck({One(7, "python3", "os_acquire_mutex")})));
  ASSERT_EQ(in_driver.findings.size(), 1u);
  EXPECT_TRUE(HasCommand(in_driver.findings[0], "reboot"));
  EXPECT_NE(in_driver.findings[0].evidence[0].text.en.find("in the NVIDIA driver"),
            std::string::npos);
}

TEST(HostStuckProcesses, WaitingForNfsIsNoRebootAndATrainingProcessIsCritical) {
  auto nfs =
      RunRule(kHostStuckProcessesRule, With(Stuck({One(88, "rsync", "rpc_wait_bit_killable")})));
  ASSERT_EQ(nfs.findings.size(), 1u);
  EXPECT_EQ(nfs.findings[0].severity, Severity::kWarning);
  EXPECT_FALSE(HasCommand(nfs.findings[0], "reboot"));
  EXPECT_TRUE(HasCommand(nfs.findings[0], "/proc/mounts"));
  EXPECT_NE(nfs.findings[0].evidence[0].text.en.find("network file system"), std::string::npos);
  auto train = RunRule(kHostStuckProcessesRule,
                       With(Stuck({One(90, "pt_main_thread", "folio_wait_bit_common")})));
  ASSERT_EQ(train.findings.size(), 1u);
  EXPECT_EQ(train.findings[0].severity, Severity::kCritical);
  EXPECT_FALSE(HasCommand(train.findings[0], "reboot"));
}

TEST(HostStuckProcesses, AnNvmeWaitIsADiskNotTheNvidiaDriver) {
  auto d = RunRule(kHostStuckProcessesRule,
                   With(Stuck({One(70, "nvme-cli", "nvme_submit_user_cmd"),
                               One(71, "kworker/u8:2", "nvme_timeout", true)})));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_FALSE(HasCommand(d.findings[0], "reboot"));
  EXPECT_EQ(d.findings[0].evidence.size(), 1u);  // the kworker is not the driver's
}

TEST(HostStuckProcesses, KernelThreadsCountOnlyWhenTheyAreTheDrivers) {
  auto kworker = RunRule(kHostStuckProcessesRule, With(Stuck({One(5, "kworker/3:1", "", true)})));
  EXPECT_TRUE(kworker.findings.empty());
  auto nv = RunRule(kHostStuckProcessesRule, With(Stuck({One(6, "nv_queue", "", true)})));
  ASSERT_EQ(nv.findings.size(), 1u);
  EXPECT_EQ(nv.findings[0].severity, Severity::kCritical);
}

TEST(HostStuckProcesses, FewerThanFiveChecksIsNotChecked) {
  ProcessStateFacts p = Stuck({});
  p.checks = 2;
  auto d = RunRule(kHostStuckProcessesRule, With(p));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("2 of 5 checks"), std::string::npos);
  EXPECT_NE(d.not_checked[0].reason.zh.find("已检查 2 次"), std::string::npos);
  ProcessStateFacts unread;
  unread.checks = 1;
  unread.sources = {SourceStatus{"/proc/<pid>/stat", false, "Permission denied"}};
  auto nc = RunRule(kHostStuckProcessesRule, With(unread));
  ASSERT_EQ(nc.not_checked.size(), 1u);
  EXPECT_NE(nc.not_checked[0].reason.zh.find("Permission denied"), std::string::npos);
  auto healthy = RunRule(kHostStuckProcessesRule, With(Stuck({})));
  EXPECT_TRUE(healthy.findings.empty());
  EXPECT_TRUE(healthy.not_checked.empty());
}

TEST(HostZombies, MoreThanAThousandWarnsAndNamesTheParent) {
  ProcessStateFacts p = Stuck({});
  p.zombies = 1000;
  p.zombie_parents = {ZombieParent{200, "launcher", 990}};
  EXPECT_TRUE(RunRule(kHostZombiesRule, With(p)).findings.empty());
  p.zombies = 1001;
  p.zombie_parents[0].zombies = 991;
  auto d = RunRule(kHostZombiesRule, With(p));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.zombies");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].title.en.find("`launcher` (pid 200) holds 991"), std::string::npos)
      << d.findings[0].title.en;
  EXPECT_TRUE(HasCommand(d.findings[0], "ps -o pid,etime,cmd -p 200"));
  ProcessStateFacts unread;
  unread.sources = {SourceStatus{"/proc/<pid>/stat", false, "Permission denied"}};
  auto nc = RunRule(kHostZombiesRule, With(unread));
  ASSERT_EQ(nc.not_checked.size(), 1u);
  EXPECT_NE(nc.not_checked[0].reason.en.find("Permission denied"), std::string::npos);
}

}  // namespace rule_host_processes_local
}  // namespace
}  // namespace gpudoctor::testing
