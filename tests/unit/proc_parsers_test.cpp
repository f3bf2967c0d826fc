#include <gtest/gtest.h>

#include <string>

#include "parse/proc_meminfo.h"
#include "parse/proc_pid.h"
#include "parse/proc_stat.h"
#include "parse/proc_text.h"
#include "parse/proc_vmstat.h"

namespace gpudoctor {
namespace {

TEST(ProcText, Numbers) {
  EXPECT_EQ(ParseUnsigned(" 42\n"), 42u);
  EXPECT_EQ(ParseUnsigned("4 2"), std::nullopt);
  EXPECT_EQ(ParseUnsigned("-1"), std::nullopt);
  EXPECT_EQ(ParseSigned("-1\n"), -1);
  EXPECT_EQ(ParseHex("0x10de\n"), 0x10deu);
  EXPECT_EQ(ParseHex("ff"), 0xffu);
  EXPECT_EQ(ParseHex("0x"), std::nullopt);
  EXPECT_DOUBLE_EQ(*ParseDouble("16.0"), 16.0);
  EXPECT_EQ(Split("a,,b", ',').size(), 3u);
  EXPECT_EQ(SplitLines("a\nb\n").size(), 2u);
}

constexpr const char* kStat =
    "cpu  100 10 50 800 20 5 5 10 0 0\n"
    "cpu0 50 5 25 400 10 3 2 5 0 0\n"
    "cpu1 50 5 25 400 10 2 3 5 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";

TEST(ProcStat, ParsesTotalAndCores) {
  auto stat = ParseProcStat(kStat);
  ASSERT_TRUE(stat.ok()) << stat.error().message;
  EXPECT_EQ(stat->total.user, 100u);
  EXPECT_EQ(stat->total.steal, 10u);
  EXPECT_EQ(stat->total.Total(), 1000u);
  EXPECT_EQ(stat->total.Busy(), 180u);
  ASSERT_EQ(stat->cores.size(), 2u);
  EXPECT_EQ(stat->cores[1].cpu, 1u);
  EXPECT_EQ(stat->cores[1].times.softirq, 3u);
}

TEST(ProcStat, OldKernelWithFourFields) {
  auto stat = ParseProcStat("cpu 1 2 3 4\n");
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat->total.idle, 4u);
  EXPECT_EQ(stat->total.steal, 0u);
}

TEST(ProcStat, Errors) {
  EXPECT_FALSE(ParseProcStat("intr 1 2\n").ok());
  EXPECT_FALSE(ParseProcStat("cpu 1 x 3 4\n").ok());
  EXPECT_FALSE(ParseProcStat("cpu 1 2 3 4\ncpuX 1 2 3 4\n").ok());
}

TEST(ProcStat, PercentBetween) {
  CpuTimes a{100, 0, 50, 800, 20, 0, 0, 10};
  CpuTimes b{160, 0, 70, 810, 50, 0, 0, 20};  // +60 user +20 sys +10 idle +30 iowait +10 steal
  auto p = CpuPercentBetween(a, b);
  EXPECT_NEAR(p.total_percent, 100.0 * 90 / 130, 1e-9);
  EXPECT_NEAR(p.user_percent, 100.0 * 60 / 130, 1e-9);
  EXPECT_NEAR(p.iowait_percent, 100.0 * 30 / 130, 1e-9);
  EXPECT_NEAR(p.steal_percent, 100.0 * 10 / 130, 1e-9);
  EXPECT_NEAR(p.idle_percent, 100.0 * 10 / 130, 1e-9);
  // Counters going backwards and no time passing give zeros, not garbage.
  auto back = CpuPercentBetween(b, a);
  EXPECT_EQ(back.total_percent, 0.0);
}

TEST(ProcStat, LoadAvg) {
  auto load = ParseLoadAvg("12.50 8.25 4.00 17/2345 67890\n");
  ASSERT_TRUE(load.ok());
  EXPECT_DOUBLE_EQ(load->load1, 12.5);
  EXPECT_DOUBLE_EQ(load->load15, 4.0);
  EXPECT_EQ(load->runnable, 17u);
  EXPECT_EQ(load->threads, 2345u);
  EXPECT_FALSE(ParseLoadAvg("1 2\n").ok());
  EXPECT_FALSE(ParseLoadAvg("1 2 3 4\n").ok());
}

TEST(ProcStat, CpuList) {
  struct CpuListCase {
    const char* text;
    std::vector<unsigned> ids;
  } cases[] = {
      {"0-3,8-11\n", {0, 1, 2, 3, 8, 9, 10, 11}}, {"0", {0}}, {"", {}}, {"5,1-2", {1, 2, 5}}};
  for (const auto& c : cases) {
    auto ids = ParseCpuList(c.text);
    ASSERT_TRUE(ids.ok()) << c.text;
    EXPECT_EQ(*ids, c.ids) << c.text;
  }
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("a").ok());
}

TEST(ProcStat, PidStatWithAwkwardComm) {
  const std::string tail = " S 1 1 1 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 1 0 123456 1000 10";
  struct PidStatCase {
    std::string line;
    std::string comm;
  } cases[] = {{"42 (python3)" + tail, "python3"},
               {"42 (tmux: server)" + tail, "tmux: server"},
               {"42 (a) b)" + tail, "a) b"},
               {"42 ()" + tail, ""}};
  for (const auto& c : cases) {
    auto stat = ParsePidStat(c.line);
    ASSERT_TRUE(stat.ok()) << c.line << ": " << stat.error().message;
    EXPECT_EQ(stat->pid, 42);
    EXPECT_EQ(stat->comm, c.comm);
    EXPECT_EQ(stat->state, 'S');
    EXPECT_EQ(stat->utime_ticks, 250u);
    EXPECT_EQ(stat->stime_ticks, 75u);
    EXPECT_EQ(stat->starttime_ticks, 123456u);
  }
  EXPECT_FALSE(ParsePidStat("42 python3 S 1").ok());
  EXPECT_FALSE(ParsePidStat("42 (x) S 1 2").ok());
}

TEST(ProcMeminfo, BytesAndAvailable) {
  auto m = ParseMeminfo(
      "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    4000000 kB\n"
      "Buffers:          100 kB\nCached:          200 kB\nSwapTotal:       2000000 kB\n"
      "SwapFree:        500000 kB\nHugePages_Total:       4\n");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->total_bytes(), 16000000ull * 1024);
  EXPECT_EQ(m->available_bytes(), 4000000ull * 1024);
  EXPECT_EQ(m->swap_free_bytes(), 500000ull * 1024);
  EXPECT_EQ(m->Get("HugePages_Total"), 4u);
  auto old = ParseMeminfo("MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 5 kB\nCached: 20 kB\n");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->available_bytes(), 35u * 1024);
  EXPECT_FALSE(ParseMeminfo("MemFree: 10 kB\n").ok());
}

TEST(ProcVmstat, CountersAndRates) {
  auto a = ParseVmstat("pswpin 100\npswpout 50\npgmajfault 7\nbogus\n");
  auto b = ParseVmstat("pswpin 1100\npswpout 40\npgmajfault 27\n");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->Get("pswpin"), 100u);
  EXPECT_EQ(CounterRatePerSecond(*a, *b, "pswpin", 2.0), 500.0);
  EXPECT_EQ(CounterRatePerSecond(*a, *b, "pswpout", 2.0), 0.0);  // went backwards
  EXPECT_EQ(CounterRatePerSecond(*a, *b, "pgmajfault", 0.0), std::nullopt);
  EXPECT_EQ(CounterRatePerSecond(*a, *b, "nope", 1.0), std::nullopt);
  EXPECT_FALSE(ParseVmstat("").ok());
}

TEST(ProcPid, StatusCmdlinePasswd) {
  EXPECT_EQ(ParseStatusUid("Name:\tpython\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\n"), 1000u);
  EXPECT_EQ(ParseStatusUid("Name:\tx\n"), std::nullopt);
  EXPECT_EQ(CmdlineToString(std::string("python\0train.py\0--bs\0"
                                        "32\0",
                                        24)),
            "python train.py --bs 32");
  EXPECT_EQ(CmdlineToString(""), "");
  auto users = ParsePasswd(
      "# comment\nroot:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\nbad\n");
  EXPECT_EQ(users.size(), 2u);
  EXPECT_EQ(users.at(1000), "alice");
  EXPECT_EQ(users.at(0), "root");
}

}  // namespace
}  // namespace gpudoctor
