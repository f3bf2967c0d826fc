#include "parse/kernel_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpudoctor {
namespace {

using namespace std::chrono;

// Seconds since the epoch for a UTC calendar time, for readable expectations.
double Utc(int y, int mo, int d, int h, int mi, double s) {
  auto t = sys_days{year{y} / mo / d} + hours{h} + minutes{mi};
  return static_cast<double>(duration_cast<seconds>(t.time_since_epoch()).count()) + s;
}

double Epoch(const std::optional<WallTime>& t) {
  return duration<double>(t->time_since_epoch()).count();
}

struct KernelLineCase {
  const char* name;
  const char* line;
  LinePrefix prefix;
  const char* message;
  double wall;  // < 0: no wall time expected
  double mono;  // < 0: no monotonic time expected
  const char* host = "";
  const char* ident = "";
};

const LineTimeContext kCtx{2025, seconds{0}};

const KernelLineCase kCases[] = {
    {"dmesg", "[  123.456789] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
     LinePrefix::kDmesgMonotonic, "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.", -1,
     123.456789},
    {"dmesg_T", "[Sun Feb 23 16:24:18 2025] NVRM: GPU Board Serial Number: 1650124014249",
     LinePrefix::kDmesgWall, "NVRM: GPU Board Serial Number: 1650124014249",
     Utc(2025, 2, 23, 16, 24, 18), -1},
    {"dmesg_T_padded_day", "[Fri Mar  3 04:23:22 2023] CPU: 72 PID: 1344368",
     LinePrefix::kDmesgWall, "CPU: 72 PID: 1344368", Utc(2023, 3, 3, 4, 23, 22), -1},
    {"dmesg_ctime", "[Fri Aug 30 11:43:14 2024] NVRM: Xid (PCI:0000:cb:00): 109, x",
     LinePrefix::kDmesgWall, "NVRM: Xid (PCI:0000:cb:00): 109, x", Utc(2024, 8, 30, 11, 43, 14),
     -1},
    {"dmesg_H_absolute", "[Feb23 16:24] NVRM: loading", LinePrefix::kDmesgHuman, "NVRM: loading",
     Utc(2025, 2, 23, 16, 24, 0), -1},
    {"dmesg_H_relative", "[  +0.000123] NVRM: x", LinePrefix::kDmesgRelative, "NVRM: x", -1, -1},
    {"dmesg_iso", "2024-08-01T12:34:56,123456+00:00 NVRM: x", LinePrefix::kIso, "NVRM: x",
     Utc(2024, 8, 1, 12, 34, 56.123456), -1},
    {"dmesg_iso_offset", "2024-08-01T14:34:56,5+02:00 NVRM: x", LinePrefix::kIso, "NVRM: x",
     Utc(2024, 8, 1, 12, 34, 56.5), -1},
    {"dmesg_decode_iso",
     "kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at 7f",
     LinePrefix::kIso, "pt_main_thread[2536443]: segfault at 7f", Utc(2025, 1, 21, 4, 41, 44.28506),
     -1},
    {"dmesg_decode_raw", "kern  :err   : [  123.4] NVRM: x", LinePrefix::kDmesgMonotonic, "NVRM: x",
     -1, 123.4},
    {"syslog", "Feb 15 17:37:45 Gipfeli kernel: [82659.755847] NVRM: Xid (PCI:0000:41:00): 13, G",
     LinePrefix::kSyslog, "NVRM: Xid (PCI:0000:41:00): 13, G", Utc(2025, 2, 15, 17, 37, 45),
     82659.755847, "Gipfeli", "kernel"},
    {"syslog_rfc3339", "2025-02-15T17:37:45.123456+00:00 host kernel: NVRM: x", LinePrefix::kIso,
     "NVRM: x", Utc(2025, 2, 15, 17, 37, 45.123456), -1, "host", "kernel"},
    {"journal_short", "May 18 19:02:39 host kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 5, 18, 19, 2, 39), -1, "host", "kernel"},
    {"journal_no_host", "Mar 29 15:38:59 kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 3, 29, 15, 38, 59), -1, "", "kernel"},
    {"journal_short_iso", "2025-05-18T19:02:39+0200 host kernel: NVRM: x", LinePrefix::kIso,
     "NVRM: x", Utc(2025, 5, 18, 17, 2, 39), -1, "host", "kernel"},
    {"journal_short_precise", "May 18 19:02:39.250000 host kernel: NVRM: x", LinePrefix::kSyslog,
     "NVRM: x", Utc(2025, 5, 18, 19, 2, 39.25), -1, "host", "kernel"},
    {"journal_other_ident",
     "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4753]: Detected Pre-NVL5 system",
     LinePrefix::kSyslog, "Detected Pre-NVL5 system", Utc(2025, 9, 18, 3, 19, 1), -1, "ubuntu2404",
     "nvidia-fabricmanager-start.sh[4753]"},
    {"journal_short_monotonic", "[  123.456789] host kernel: NVRM: x", LinePrefix::kDmesgMonotonic,
     "NVRM: x", -1, 123.456789, "host", "kernel"},
    {"month_chinese_numeric", "11月 15 14:15:47 leon-NF5468M6 systemd[1]: Starting",
     LinePrefix::kSyslog, "Starting", Utc(2025, 11, 15, 14, 15, 47), -1, "leon-NF5468M6",
     "systemd[1]"},
    {"month_chinese_words", "十二月 1 01:02:03 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 12, 1, 1, 2, 3), -1, "h", "kernel"},
    {"month_german", "Mär 03 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 3, 3, 10, 0, 0), -1, "h", "kernel"},
    {"month_german_dez", "Dez 24 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 12, 24, 10, 0, 0), -1, "h", "kernel"},
    {"month_french", "févr. 14 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 2, 14, 10, 0, 0), -1, "h", "kernel"},
    {"month_french_juil", "juil. 14 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 7, 14, 10, 0, 0), -1, "h", "kernel"},
    {"month_spanish", "ene 05 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 1, 5, 10, 0, 0), -1, "h", "kernel"},
    {"month_russian", "мая 09 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 5, 9, 10, 0, 0), -1, "h", "kernel"},
    {"month_korean", "3월 09 10:00:00 h kernel: NVRM: x", LinePrefix::kSyslog, "NVRM: x",
     Utc(2025, 3, 9, 10, 0, 0), -1, "h", "kernel"},
    {"dmesg_T_localised", "[Пт мар  3 04:23:22 2023] NVRM: x", LinePrefix::kDmesgWall, "NVRM: x",
     Utc(2023, 3, 3, 4, 23, 22), -1},
    {"kmsg", "4,9921,9370042162,-;NVRM: Xid (PCI:0000:01:00): 79, x", LinePrefix::kKmsg,
     "NVRM: Xid (PCI:0000:01:00): 79, x", -1, 9370.042162},
    {"fabricmanager_log", "[Feb 25 2025 13:59:45] [ERROR] [tid 1803] detected",
     LinePrefix::kFabricManager, "[ERROR] [tid 1803] detected", Utc(2025, 2, 25, 13, 59, 45), -1},
    {"glog_rank", "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog",
     LinePrefix::kGlog, "[Rank 1] Watchdog", Utc(2025, 6, 26, 6, 24, 44.903881913), -1},
    {"bare_kernel", "kernel: NVRM: Xid (PCI:0000:dc:00): 45, x", LinePrefix::kNone,
     "NVRM: Xid (PCI:0000:dc:00): 45, x", -1, -1, "", "kernel"},
    {"no_prefix", "NVRM: Xid (0000:01:00): 8, Channel 00000000", LinePrefix::kNone,
     "NVRM: Xid (0000:01:00): 8, Channel 00000000", -1, -1},
    {"old_nccl_not_a_stamp", "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog", LinePrefix::kNone,
     "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog", -1, -1},
    {"continuation", "               NVRM: (PCI ID: 10de:26b5) installed",
     LinePrefix::kContinuation, "NVRM: (PCI ID: 10de:26b5) installed", -1, -1},
    {"crlf", "[  1.5] NVRM: x\r", LinePrefix::kDmesgMonotonic, "NVRM: x", -1, 1.5},
    {"pci_message_keeps_words", "[   10.735323] pci 0000:04:00.0: 252.048 Gb/s available",
     LinePrefix::kDmesgMonotonic, "pci 0000:04:00.0: 252.048 Gb/s available", -1, 10.735323},
    {"iso_keeps_kernel_message", "2025-01-01T00:00:00,0+00:00 nvidia-nvswitch1: SXid (PCI:x)",
     LinePrefix::kIso, "nvidia-nvswitch1: SXid (PCI:x)", Utc(2025, 1, 1, 0, 0, 0), -1},
};

class KernelLineFormats : public ::testing::TestWithParam<KernelLineCase> {};

TEST_P(KernelLineFormats, Parses) {
  const KernelLineCase& c = GetParam();
  KernelLine k = ParseKernelLine(c.line, kCtx);
  EXPECT_EQ(k.prefix, c.prefix);
  EXPECT_EQ(k.message, c.message);
  EXPECT_EQ(k.host, c.host);
  EXPECT_EQ(k.ident, c.ident);
  if (c.wall < 0) {
    EXPECT_FALSE(k.time.has_value());
  } else {
    ASSERT_TRUE(k.time.has_value());
    EXPECT_NEAR(Epoch(k.time), c.wall, 1e-5);
  }
  if (c.mono < 0) {
    EXPECT_FALSE(k.monotonic_s.has_value());
  } else {
    ASSERT_TRUE(k.monotonic_s.has_value());
    EXPECT_NEAR(*k.monotonic_s, c.mono, 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(All, KernelLineFormats, ::testing::ValuesIn(kCases),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(KernelLine, RelativeAndLevels) {
  KernelLine rel = ParseKernelLine("[  +6.010643] NVRM: x", kCtx);
  ASSERT_TRUE(rel.relative_s.has_value());
  EXPECT_NEAR(*rel.relative_s, 6.010643, 1e-9);
  EXPECT_EQ(ParseKernelLine("kern  :err   : NVRM: x", kCtx).level, 3);
  EXPECT_EQ(ParseKernelLine("4,1,2,-;x", kCtx).level, 4);
  EXPECT_EQ(ParseKernelLine("12,1,2,-;x", kCtx).level, 4);  // facility 1, level 4
}

TEST(KernelLine, LocalOffsetAppliesToNaiveStamps) {
  LineTimeContext ctx{2025, hours{8}};  // UTC+8
  KernelLine k = ParseKernelLine("Feb 15 17:37:45 h kernel: x", ctx);
  EXPECT_NEAR(Epoch(k.time), Utc(2025, 2, 15, 9, 37, 45), 1e-6);
  // An explicit zone wins over the context offset.
  KernelLine iso = ParseKernelLine("2025-02-15T17:37:45+00:00 x", ctx);
  EXPECT_NEAR(Epoch(iso.time), Utc(2025, 2, 15, 17, 37, 45), 1e-6);
}

TEST(KernelLine, MonthNames) {
  std::size_t used = 0;
  EXPECT_EQ(ParseMonthName("sept. 3", &used), 9);
  EXPECT_EQ(used, 5u);
  EXPECT_EQ(ParseMonthName("十一月 3", &used), 11);
  EXPECT_EQ(ParseMonthName("Okt 3", &used), 10);
  EXPECT_FALSE(ParseMonthName("Markus", &used).has_value());
  EXPECT_FALSE(ParseMonthName("13月", &used).has_value());
}

TEST(KernelLine, UnknownYearGivesNoTimeForYearlessStamps) {
  LineTimeContext no_year;
  EXPECT_FALSE(ParseKernelLine("Feb 15 17:37:45 h kernel: x", no_year).time.has_value());
  EXPECT_TRUE(ParseKernelLine("[Sun Feb 23 16:24:18 2025] x", no_year).time.has_value());
}

TEST(KernelLine, InvalidDatesGiveNoTime) {
  EXPECT_FALSE(ParseKernelLine("Feb 31 10:00:00 h kernel: x", kCtx).time.has_value());
  EXPECT_FALSE(MakeWallTime(2025, 13, 1, 0, 0, 0, 0, seconds{0}).has_value());
}


void ExpectSameKernelLine(const KernelLine& a, const KernelLine& b) {
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.ident, b.ident);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.monotonic_s, b.monotonic_s);
  EXPECT_EQ(a.relative_s, b.relative_s);
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.prefix, b.prefix);
}

TEST(KernelLineParser, ReadsEveryLineAsParseKernelLineDoes) {
  std::vector<std::string> headers = {
      "Feb 15 17:37:45 gpu-node-07 kernel: ", "2025-02-15T17:37:45.123456+00:00 host kernel: ",
      "<3>Feb 15 17:37:45 host kernel: ",      "1739641065.123456 host kernel: ",
      "Feb 15 17:37:45 host containerd[2210]: ", "Feb 15 17:37:45 kernel: ",
      "Feb 15 17:37:46 gpu-node-07 kernel: ",  "kern  :err   : Feb 15 17:37:45 h kernel: "};
  std::vector<std::string> rests = {"[82659.755847] NVRM: Xid (PCI:0000:3b:00): 13, x",
                                    "NVRM: y", "[  +1.5] z", "[Feb23 16:24] w", "   indented",
                                    "[oops", ":", "x\r", "[ 1.5 <    0.000123>] d"};
  std::vector<std::string> by_header, by_rest;
  for (const std::string& h : headers) {
    for (const std::string& r : rests) by_header.push_back(h + r);
  }
  for (const std::string& r : rests) {
    for (const std::string& h : headers) by_rest.push_back(h + r);
  }
  for (const KernelLineCase& c : kCases) by_rest.push_back(c.line);
  KernelLineParser parser;
  for (const auto* lines : {&by_header, &by_rest, &by_header}) {
    for (const std::string& line : *lines) {
      SCOPED_TRACE(line);
      ExpectSameKernelLine(parser.Parse(line, kCtx), ParseKernelLine(line, kCtx));
    }
  }
  // Another year or zone: not the memo's.
  const LineTimeContext other{2024, seconds{3600}};
  ExpectSameKernelLine(parser.Parse(by_header[0], other), ParseKernelLine(by_header[0], other));
}

}  // namespace
}  // namespace gpudoctor
