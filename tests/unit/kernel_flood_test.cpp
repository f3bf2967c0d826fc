// A flood of kernel-log lines costs time, not memory: the scanner keeps a
// few events per cause (kind, code, GPU, detail) with exact counts, first
// and last times, the distinct processes up to a cap and how many more, and
// cuts evidence lines longer than a few hundred bytes with their size.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "parse/kernel_events.h"
#include "render/events_json.h"

namespace gpudoctor {
namespace kernel_flood_test_ns {

// An Xid 13 storm as the driver prints it (line shape of the real Xid 13
// lines in ../shared/fixtures/kernel), one line a millisecond: `pids`
// distinct processes of five programs, the SM coordinates varying.
std::string Xid13Storm(std::size_t lines, int pids) {
  static const char* kPrograms[] = {"python3", "python", "pt_main_thread", "torchrun", "ray::train"};
  std::string text;
  char buf[320];
  for (std::size_t i = 0; i < lines; ++i) {
    const int pid = 10000 + static_cast<int>((i * 7919) % static_cast<std::size_t>(pids));
    std::snprintf(buf, sizeof buf,
                  "Feb 15 17:%02zu:%02zu gpu-node-07 kernel: [%zu.%03zu000] NVRM: Xid "
                  "(PCI:0000:3b:00): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %zu, "
                  "TPC %zu, SM %zu): Out Of Range Address\n",
                  (i / 60000) % 60, (i / 1000) % 60, 80000 + i / 1000, i % 1000, pid,
                  kPrograms[pid % 5], i % 8, (i / 8) % 9, (i / 72) % 2);
    text += buf;
  }
  return text;
}

std::vector<KernelEvent> ScanFlood(const std::string& text) {
  ExtractOptions opts;
  opts.time.year = 2025;
  KernelEventScanner scanner(opts);
  ScanKernelLogBuffer(text, "storm.log", 1, scanner);
  return scanner.Finish();
}

TEST(KernelFlood, XidStormIsAFewEventsWithExactCounts) {
  constexpr std::size_t kLines = 200000;
  constexpr int kPids = 5000;
  std::vector<KernelEvent> events = ScanFlood(Xid13Storm(kLines, kPids));
  ASSERT_FALSE(events.empty());
  EXPECT_LE(events.size(), kEventsPerCause);  // one cause: Xid 13 on 0000:3b:00.0
  std::size_t total = 0;
  std::set<std::pair<std::int64_t, std::string>> processes;
  std::size_t left_out = 0;
  for (const KernelEvent& e : events) {
    EXPECT_EQ(e.kind, KernelEventKind::kXid);
    EXPECT_EQ(e.code, 13);
    EXPECT_EQ(e.pci_bus_id, "0000:3b:00.0");
    total += e.count;
    if (e.pid) processes.emplace(*e.pid, e.process);
    for (const EventProcess& p : e.other_processes) processes.emplace(p.pid.value_or(-1), p.name);
    EXPECT_LE(e.other_processes.size(), kMaxOtherProcesses);
    EXPECT_FALSE(e.other_processes_left_out_is_floor);
    left_out += e.other_processes_left_out;
  }
  EXPECT_EQ(total, kLines);  // every line counted, none twice
  // Every distinct process listed or counted, exactly.
  EXPECT_EQ(processes.size() + left_out, static_cast<std::size_t>(kPids));
  // First and last time: the first line's and the last line's.
  ASSERT_TRUE(events.front().time);
  const KernelEvent& last = events.back();
  ASSERT_TRUE(last.last_time);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(*last.last_time - *events.front().time)
                .count(),
            199);  // 200000 lines a millisecond apart
  // The report's events stay small whatever the number of lines.
  EXPECT_LT(EventsToJson(events).dump().size(), 64u << 10);
}

TEST(KernelFlood, ManyCausesAreCappedAndCounted) {
  // Every line its own cause (an Xid code on a bus of its own): beyond
  // kMaxKernelEvents, new causes are counted, not kept.
  std::string text;
  char buf[200];
  std::size_t lines = 0;
  for (int bus = 0; bus < 256; ++bus) {
    for (int dev = 0; dev < 32; ++dev) {
      std::snprintf(buf, sizeof buf,
                    "[ 12.5] NVRM: Xid (PCI:0000:%02x:%02x): 62, pid=1, name=a, Internal micro-controller halt\n",
                    bus, dev);
      text += buf;
      ++lines;
    }
  }
  KernelEventScanner scanner;
  ScanKernelLogBuffer(text, "many.log", 1, scanner);
  std::vector<KernelEvent> events = scanner.Finish();
  const std::size_t left_out = scanner.events_left_out();
  EXPECT_LE(events.size(), kMaxKernelEvents);
  std::size_t total = 0;
  for (const KernelEvent& e : events) total += e.count;
  EXPECT_EQ(total + left_out, lines);
  EXPECT_GT(left_out, 0u);
}

TEST(KernelFlood, LongEvidenceLinesAreCutWithTheirSize) {
  std::string huge(100000, 'A');
  std::string text = "[ 12.5] NVRM: Xid (PCI:0000:3b:00): 31, pid=1, name=a, MMU Fault: " + huge +
                     "\n[ 12.5] NVRM:      " + huge + "\n";
  std::vector<KernelEvent> events = ScanFlood(text);
  ASSERT_EQ(events.size(), 1u);
  const KernelEvent& e = events[0];
  EXPECT_LT(e.message.size(), kMaxEvidenceLineBytes + 64);
  EXPECT_NE(e.message.find("cut: the line has 1000"), std::string::npos) << e.message.substr(0, 500);
  for (const std::string& c : e.continuation) EXPECT_LT(c.size(), kMaxEvidenceLineBytes + 64);
}

TEST(KernelFlood, CutNeverSplitsAUtf8Sequence) {
  std::string line(kMaxEvidenceLineBytes - 1, 'x');
  line += "\xE4\xB8\xAD\xE6\x96\x87";  // two CJK characters across the cut
  std::string cut = CutEvidenceLine(line);
  EXPECT_EQ(cut.substr(0, kMaxEvidenceLineBytes - 1), std::string(kMaxEvidenceLineBytes - 1, 'x'));
  EXPECT_EQ(cut.substr(kMaxEvidenceLineBytes - 1, 1), " ");  // the whole sequence went
  EXPECT_EQ(CutEvidenceLine("short"), "short");
}

TEST(KernelFlood, AMultiLineMessageKeepsItsFirstLines) {
  std::string text = "[ 12.5] NVRM: GPU4 RPC history (CPU -> GSP):\n";
  for (int i = 0; i < 5000; ++i) text += "[ 12.5] NVRM:     #" + std::to_string(i) + "   76   0x0\n";
  ExtractOptions opts;
  KernelEventScanner scanner(opts);
  ScanKernelLogBuffer(text, "gsp.log", 1, scanner);
  for (const KernelEvent& e : scanner.Finish()) {
    EXPECT_LE(e.continuation.size(), kMaxContinuationLines);
    if (e.continuation.size() == kMaxContinuationLines) {
      EXPECT_GT(e.continuation_left_out, 0u);
    }
  }
}

}  // namespace
}  // namespace gpudoctor
