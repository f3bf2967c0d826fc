// One real Xid 79 line (akash-network/support#209, in ../shared/fixtures,
// read at test time) wrapped the way dmesg, syslog, journalctl and log
// pipelines write it: each wrapper must yield the Xid with its bus id, and
// the time the wrapper states. Expected times are written out by hand from
// the stamp each case puts in front of the line.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "parse/kernel_events.h"
#include "parse/log_record.h"
#include "support/fixtures.h"

namespace gpudoctor {
namespace {

using namespace std::chrono;

// 2024-04-05 21:29:39 UTC plus `micros`.
WallTime At(long long micros = 0) {
  return time_point_cast<system_clock::duration>(sys_days{year{2024} / April / 5} + hours{21} +
                                                 minutes{29} + seconds{39}) +
         microseconds{micros};
}

// The message of the fixture's Xid 79 line, from "NVRM:" on.
std::string FixtureXidMessage() {
  std::istringstream in(test::ReadFixtureFile(
      "kernel", "akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log"));
  for (std::string line; std::getline(in, line);) {
    if (line.find("Xid (") != std::string::npos) return line.substr(line.find("NVRM:"));
  }
  return {};
}

std::string JsonBytes(const std::string& s) {
  std::string out = "[";
  for (unsigned char c : s) out += (out.size() > 1 ? "," : "") + std::to_string(c);
  return out + "]";
}

struct Wrapped {
  const char* name;
  std::string text;  // one or more lines
  std::optional<WallTime> time;
  std::optional<double> monotonic_s;
};

std::vector<Wrapped> Cases(const std::string& m) {
  const std::string sys = " node1 kernel: " + m;  // after a syslog stamp
  return {
      {"dmesg", "[ 3605.123456] " + m, std::nullopt, 3605.123456},
      {"dmesg -T / --time-format ctime", "[Fri Apr  5 21:29:39 2024] " + m, At(), std::nullopt},
      {"dmesg -H / --time-format reltime", "[Apr05 21:29] " + m, At(-39000000), std::nullopt},
      {"dmesg -H, relative line", "[Apr05 21:29] usb 1-1: new device\n[  +39.000000] " + m, At(),
       std::nullopt},
      {"dmesg -r", "<3>[ 3605.123456] " + m, std::nullopt, 3605.123456},
      {"dmesg -x", "kern  :err   : [ 3605.123456] " + m, std::nullopt, 3605.123456},
      {"dmesg -x -T", "kern  :err   : [Fri Apr  5 21:29:39 2024] " + m, At(), std::nullopt},
      {"dmesg --time-format iso", "2024-04-05T21:29:39,123456+00:00 " + m, At(123456), std::nullopt},
      {"dmesg --time-format delta", "[<    0.000123>] " + m, std::nullopt, std::nullopt},
      {"dmesg -d", "[ 3605.123456 <    0.000123>] " + m, std::nullopt, 3605.123456},
      {"/dev/kmsg", "3,1234,3605123456,-;" + m, std::nullopt, 3605.123456},
      {"/dev/kmsg with caller", "3,1234,3605123456,-,caller=T42;" + m, std::nullopt, 3605.123456},
      {"RFC 3164", "Apr  5 21:29:39" + sys, At(), std::nullopt},
      {"RFC 3164 without host", "Apr  5 21:29:39 kernel: " + m, At(), std::nullopt},
      {"RFC 3164 with priority", "<4>Apr  5 21:29:39" + sys, At(), std::nullopt},
      {"RFC 3164 indented paste", "    Apr  5 21:29:39" + sys, At(), std::nullopt},
      {"RFC 3164 with kernel stamp", "Apr  5 21:29:39 node1 kernel: [ 3605.123456] " + m, At(),
       3605.123456},
      {"CRLF", "Apr  5 21:29:39" + sys + "\r", At(), std::nullopt},
      {"de", "Apr  5 21:29:39" + sys, At(), std::nullopt},
      {"fr", "avril  5 21:29:39" + sys, At(), std::nullopt},
      {"fr abbreviated", "avr.  5 21:29:39" + sys, At(), std::nullopt},
      {"es / pt", "abr  5 21:29:39" + sys, At(), std::nullopt},
      {"it", "apr  5 21:29:39" + sys, At(), std::nullopt},
      {"pl", "kwi  5 21:29:39" + sys, At(), std::nullopt},
      {"ru", "апр  5 21:29:39" + sys, At(), std::nullopt},
      {"zh", "4月  5 21:29:39" + sys, At(), std::nullopt},
      {"ja (space-padded)", " 4月  5 21:29:39" + sys, At(), std::nullopt},
      {"ko (space-padded)", " 4월  5 21:29:39" + sys, At(), std::nullopt},
      {"unknown month: no time, still the event", "Xyz  5 21:29:39" + sys, std::nullopt,
       std::nullopt},
      {"RFC 5424", "<3>1 2024-04-05T21:29:39.123456Z node1 kernel - - - " + m, At(123456),
       std::nullopt},
      {"RFC 5424 with structured data",
       "<3>1 2024-04-05T21:29:39.123456+00:00 node1 kernel - - [meta seq=\"1\"] " + m, At(123456),
       std::nullopt},
      {"journalctl short-precise", "Apr 05 21:29:39.123456" + sys, At(123456), std::nullopt},
      {"journalctl short-iso", "2024-04-05T21:29:39+0000" + sys, At(), std::nullopt},
      {"journalctl short-iso-precise", "2024-04-05T21:29:39.123456+00:00" + sys, At(123456),
       std::nullopt},
      {"journalctl short-full", "Fri 2024-04-05 21:29:39 UTC" + sys, At(), std::nullopt},
      {"journalctl short-monotonic", "[ 3605.123456]" + sys, std::nullopt, 3605.123456},
      {"journalctl short-unix", "1712352579.123456" + sys, At(123456), std::nullopt},
      {"journalctl cat", m, std::nullopt, std::nullopt},
      {"journalctl -o json",
       R"({"__REALTIME_TIMESTAMP":"1712352579123456","__MONOTONIC_TIMESTAMP":"3605123456","_HOSTNAME":"node1","SYSLOG_IDENTIFIER":"kernel","MESSAGE":")" +
           m + "\"}",
       At(123456), 3605.123456},
      {"journalctl -o json, MESSAGE as bytes",
       R"({"__REALTIME_TIMESTAMP":"1712352579123456","MESSAGE":)" + JsonBytes(m) + "}",
       At(123456), std::nullopt},
      {"fluent-bit tail", R"({"date":1712352579.123456,"log":"Apr  5 21:29:39)" + sys + "\"}",
       At(), std::nullopt},
      {"fluent-bit kmsg", R"({"priority":3,"sequence":1234,"sec":3605,"usec":123456,"msg":")" + m +
                              "\"}",
       std::nullopt, 3605.123456},
      {"Vector", R"({"host":"node1","message":")" + m + R"(","timestamp":"2024-04-05T21:29:39.123456Z"})",
       At(123456), std::nullopt},
      {"Elasticsearch / OpenSearch hit",
       R"({"_index":"logs-2024.04.05","_id":"x1","_source":{"@timestamp":"2024-04-05T21:29:39.123Z","message":")" +
           m + R"(","host":{"name":"node1"}}})",
       At(123000), std::nullopt},
      {"Loki (logcli --output jsonl)",
       R"({"labels":{"job":"kernel"},"line":")" + m + R"(","timestamp":"2024-04-05T21:29:39.123456Z"})",
       At(123456), std::nullopt},
      {"CloudWatch event", R"({"logStreamName":"i-0abc","timestamp":1712352579123,"message":")" + m +
                               R"(","ingestionTime":1712352580000})",
       At(123000), std::nullopt},
      {"Docker json-file", R"({"log":")" + m + R"(\n","stream":"stdout","time":"2024-04-05T21:29:39.123456Z"})",
       At(123456), std::nullopt},
      {"logfmt", "ts=2024-04-05T21:29:39.123456Z level=error host=node1 msg=\"" + m + "\"",
       At(123456), std::nullopt},
      {"node-problem-detector log",
       "I0405 21:29:39.123456    2345 log_monitor.go:160] New status generated: "
       "&{Source:kernel-monitor Events:[{Severity:warn Timestamp:2024-04-05 21:29:39.123 +0000 "
       "UTC Reason:XidError Message:" +
           m + "}] Conditions:[]}",
       At(123456), std::nullopt},
      {"Kubernetes CRI", "2024-04-05T21:29:39.123456Z stdout F " + m, At(123456), std::nullopt},
      {"unknown wrapper with a stamp", "node1 | 2024-04-05 21:29:39.123456 | kern.err | " + m,
       At(123456), std::nullopt},
      {"unknown wrapper, no stamp", "node1/kern.err: " + m, std::nullopt, std::nullopt},
  };
}

TEST(KernelLineWrappers, EveryWrapperYieldsTheXidAndItsTime) {
  const std::string m = FixtureXidMessage();
  if (m.empty()) GTEST_SKIP() << "shared fixtures not found at " << SHARED_DIR;
  ASSERT_NE(m.find("79, pid="), std::string::npos) << m;
  for (const Wrapped& w : Cases(m)) {
    SCOPED_TRACE(w.name);
    ExtractOptions opts;
    opts.time.year = 2024;
    KernelEventScanner scanner(opts);
    ScanKernelLogBuffer(w.text + "\n", "wrapped.log", 1, scanner);
    std::vector<KernelEvent> events = scanner.Finish();
    const KernelEvent* xid = nullptr;
    for (const auto& e : events) {
      if (e.kind == KernelEventKind::kXid) xid = &e;
    }
    ASSERT_NE(xid, nullptr) << w.text;
    EXPECT_EQ(xid->code, 79);
    EXPECT_EQ(xid->pci_bus_id, "0000:a1:00.0");
    EXPECT_EQ(xid->message.substr(0, 23), "GPU has fallen off the ") << xid->message;
    EXPECT_EQ(xid->time.has_value(), w.time.has_value());
    if (xid->time && w.time) {
      EXPECT_LE(std::abs(duration_cast<microseconds>(*xid->time - *w.time).count()), 2)
          << duration_cast<microseconds>(*xid->time - *w.time).count() << " µs off";
    }
    EXPECT_EQ(xid->monotonic_s.has_value(), w.monotonic_s.has_value());
    if (xid->monotonic_s && w.monotonic_s) {
      EXPECT_NEAR(*xid->monotonic_s, *w.monotonic_s, 1e-6);
    }
    EXPECT_EQ(scanner.gpu_line_stats().undecoded, 0u);
  }
}

// Every fixture line that mentions NVRM, wrapped as journalctl -o json and
// as logfmt, gives the same events as the file itself.
TEST(KernelLineWrappers, WrappedFixtureFilesGiveTheSameEvents) {
  for (const char* name : {"akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log",
                           "gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log",
                           "open-gpu-kernel-modules-issue-1151-rtx5080-rminitadapter-failed-after-xid79-journal.log"}) {
    SCOPED_TRACE(name);
    std::string text = test::ReadFixtureFile("kernel", name);
    if (text.empty()) GTEST_SKIP() << "shared fixtures not found at " << SHARED_DIR;
    std::string json_lines, logfmt;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::size_t at = line.find("NVRM:");
      if (at == std::string::npos) continue;
      std::string msg = line.substr(at);
      json_lines += R"({"MESSAGE":)" + nlohmann::json(msg).dump() + "}\n";
      logfmt += "level=info msg=" + nlohmann::json(msg).dump() + "\n";
    }
    auto scan = [](const std::string& t) {
      KernelEventScanner s;
      ScanKernelLogBuffer(t, "x", 1, s);
      std::multiset<std::pair<int, int>> kinds;
      for (const auto& e : s.Finish()) kinds.insert({static_cast<int>(e.kind), e.code.value_or(-1)});
      return kinds;
    };
    // Lines without "NVRM:" (a shell prompt, lsmod) hold no event in these files.
    auto plain = scan(text);
    EXPECT_FALSE(plain.empty());
    EXPECT_EQ(scan(json_lines), plain);
    EXPECT_EQ(scan(logfmt), plain);
  }
}

TEST(KernelLineWrappers, UndecodedNvrmLinesAreCounted) {
  KernelEventScanner scanner;
  ScanKernelLogBuffer(
      "Apr  5 21:29:39 node1 kernel: NVRM: something this version does not know\n"
      "Apr  5 21:29:40 node1 kernel: usb 1-1: new device\n"
      "Apr  5 21:29:41 node1 kernel: NVRM: another unknown line\n",
      "odd.log", 1, scanner);
  EXPECT_TRUE(scanner.Finish().empty());
  const GpuLineStats& s = scanner.gpu_line_stats();
  EXPECT_EQ(s.decoded, 0u);
  EXPECT_EQ(s.undecoded, 2u);
  EXPECT_EQ(s.first_undecoded.line, 1u);
  EXPECT_EQ(s.first_undecoded_text, "NVRM: something this version does not know");
}

}  // namespace
}  // namespace gpudoctor
