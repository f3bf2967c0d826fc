#include "collect/host_cpu.h"

#include <gtest/gtest.h>

#include <chrono>

#include "collect/host_facts.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

using std::chrono::seconds;

std::string PidStat(int pid, const std::string& comm, unsigned utime, unsigned stime,
                    unsigned start = 5000) {
  return std::to_string(pid) + " (" + comm + ") R 1 1 1 0 -1 0 0 0 0 0 " + std::to_string(utime) +
         " " + std::to_string(stime) + " 0 0 20 0 1 0 " + std::to_string(start) + " 100 10\n";
}

// Reads a snapshot of `root` and pretends it was taken at `at`.
CpuSnapshot SnapshotAt(const test::TempDir& root, seconds at) {
  CollectContext ctx;
  ctx.root = root.path();
  CpuSnapshot snap = ReadCpu(ctx);
  snap.taken = std::chrono::steady_clock::time_point(at);
  return snap;
}

TEST(HostCpu, SaturatedCpuAndTopProcesses) {
  test::TempDir root;
  root.Write("proc/stat",
             "cpu  1000 0 500 8000 0 0 0 0 0 0\ncpu0 500 0 250 4000 0 0 0 0 0 0\n"
             "cpu1 500 0 250 4000 0 0 0 0 0 0\n");
  root.Write("proc/100/stat", PidStat(100, "python3", 100, 10));
  root.Write("proc/100/cmdline", std::string("python3\0train.py\0", 17));
  root.Write("proc/200/stat", PidStat(200, "tmux: server", 5, 5));
  root.Write("proc/300/stat", PidStat(300, "idle one", 1, 1));
  root.Write("proc/self/cgroup", "0::/\n");
  auto a = SnapshotAt(root, seconds(0));
  // 2 s later at USER_HZ 100: 400 jiffies over 2 cores; only 4 idle.
  root.Write("proc/stat",
             "cpu  1346 0 550 8004 0 0 0 0 0 0\ncpu0 698 0 250 4002 0 0 0 0 0 0\n"
             "cpu1 648 0 300 4002 0 0 0 0 0 0\n");
  root.Write("proc/100/stat", PidStat(100, "python3", 270, 20));     // 180 ticks
  root.Write("proc/200/stat", PidStat(200, "tmux: server", 25, 5));  // 20 ticks
  root.Write("proc/300/stat", PidStat(300, "idle one", 1, 1));       // 0 ticks
  root.Write("proc/400/stat", PidStat(400, "newcomer", 900, 0));     // no baseline
  auto b = SnapshotAt(root, seconds(2));

  CpuUsage usage = Diff(a, b, 5);
  ASSERT_TRUE(usage.available);
  EXPECT_DOUBLE_EQ(usage.window_s, 2.0);
  EXPECT_NEAR(usage.total.total_percent, 99.0, 1e-9);
  EXPECT_GT(usage.total.total_percent, 95.0);
  ASSERT_EQ(usage.cores.size(), 2u);
  EXPECT_EQ(usage.cores[0].cpu, 0u);
  EXPECT_NEAR(usage.cores[0].usage.user_percent, 99.0, 1e-9);
  EXPECT_NEAR(usage.cores[1].usage.system_percent, 25.0, 1e-9);
  ASSERT_EQ(usage.top_processes.size(), 2u);
  EXPECT_EQ(usage.top_processes[0].pid, 100);
  EXPECT_NEAR(usage.top_processes[0].cpu_percent, 90.0, 1e-9);  // 180 of 200 ticks per core
  EXPECT_EQ(usage.top_processes[1].comm, "tmux: server");
  EXPECT_NEAR(usage.top_processes[1].cpu_percent, 10.0, 1e-9);

  CollectContext ctx;
  ctx.root = root.path();
  ReadCmdlines(ctx, usage.top_processes);
  EXPECT_EQ(usage.top_processes[0].cmdline, "python3 train.py");
}

TEST(HostCpu, IowaitAndSteal) {
  test::TempDir root;
  root.Write("proc/stat", "cpu 0 0 0 0 0 0 0 0 0 0\n");
  auto a = SnapshotAt(root, seconds(0));
  // 100 jiffies: 10 user, 5 system, 5 idle, 50 iowait, 30 steal.
  root.Write("proc/stat", "cpu 10 0 5 5 50 0 0 30 0 0\n");
  auto b = SnapshotAt(root, seconds(1));
  auto usage = Diff(a, b);
  ASSERT_TRUE(usage.available);
  EXPECT_NEAR(usage.total.iowait_percent, 50.0, 1e-9);
  EXPECT_NEAR(usage.total.steal_percent, 30.0, 1e-9);
  EXPECT_NEAR(usage.total.total_percent, 45.0, 1e-9);  // user + system + steal
  EXPECT_NEAR(usage.total.idle_percent, 5.0, 1e-9);
}

TEST(HostCpu, MissingProcStatIsReported) {
  test::TempDir root;
  auto a = SnapshotAt(root, seconds(0));
  auto b = SnapshotAt(root, seconds(1));
  auto usage = Diff(a, b);
  EXPECT_FALSE(usage.available);
  EXPECT_NE(usage.why.find("/proc/stat"), std::string::npos);
  EXPECT_NE(usage.why.find("No such file"), std::string::npos);
}

TEST(HostCpu, InfoOnlineCoresQuotaAndCoresPerGpu) {
  test::TempDir root;
  root.Write("proc/loadavg", "31.90 30.10 28.00 33/900 4242\n");
  root.Write("sys/devices/system/cpu/online", "0-3,8-11\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto info = ReadCpuInfo(ctx, 6.0);
  EXPECT_EQ(info.online_cores, 8u);
  EXPECT_EQ(info.online_list, "0-3,8-11");
  ASSERT_TRUE(info.load.has_value());
  EXPECT_DOUBLE_EQ(info.load->load1, 31.9);
  EXPECT_DOUBLE_EQ(info.effective_cores.value_or(0), 6.0);  // quota tighter than 8 online
  EXPECT_DOUBLE_EQ(CoresPerGpu(info.effective_cores, 4).value_or(0), 1.5);
  EXPECT_EQ(CoresPerGpu(info.effective_cores, 0), std::nullopt);
  auto no_quota = ReadCpuInfo(ctx, std::nullopt);
  EXPECT_DOUBLE_EQ(no_quota.effective_cores.value_or(0), 8.0);
}

TEST(HostFacts, CombinesCgroupGpuCountAndMemory) {
  test::TempDir root;
  root.Write("proc/stat", "cpu 1 0 0 1 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n");
  root.Write("sys/devices/system/cpu/online", "0-15\n");
  root.Write("proc/meminfo", "MemTotal: 67108864 kB\nMemAvailable: 33554432 kB\n");
  root.Write("proc/self/cgroup", "0::/\n");
  root.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  root.Write("sys/fs/cgroup/cpu.max", "800000 100000\n");
  root.Write("sys/fs/cgroup/memory.max", "34359738368\n");  // 32 GiB, below 64 GiB RAM
  CollectContext ctx;
  ctx.root = root.path();
  HostGpuSummary gpus;
  gpus.gpu_count = 2;
  gpus.gpu_memory_total_bytes = 2ull * 80 * 1024 * 1024 * 1024;  // 2 x 80 GiB
  auto facts = CollectHost(ctx, std::chrono::milliseconds(0), gpus);
  EXPECT_DOUBLE_EQ(facts.cpu.effective_cores.value_or(0), 8.0);
  EXPECT_DOUBLE_EQ(facts.cores_per_gpu.value_or(0), 4.0);
  ASSERT_TRUE(facts.ram_to_gpu.has_value());
  EXPECT_NEAR(facts.ram_to_gpu->ratio, 32.0 / 160.0, 1e-9);  // the cgroup limit counts
  EXPECT_EQ(facts.ram_to_gpu->verdict, "low");
  EXPECT_EQ(facts.memory.total_bytes, 67108864ull * 1024);
}

}  // namespace
}  // namespace gpudoctor
