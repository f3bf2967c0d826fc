// A flood of kernel-log lines costs time, not memory: the scanner keeps a
// few events per cause (kind, code, GPU, detail) with exact counts, first
// and last times, the distinct processes up to a cap and how many more, and
// cuts evidence lines longer than a few hundred bytes with their size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "analyze/kernel_scan_ahead.h"
#include "collect/kernel_log_files.h"
#include "core/gpu_status.h"
#include "parse/kernel_events.h"
#include "parse/kernel_text.h"
#include "parse/nvsmi_messages.h"
#include "render/events_json.h"
#include "support/kernel_scan_reference.h"

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


// A mixed log for comparing the production scan, with the flood's cheap
// paths, with the reference (support/kernel_scan_reference.h):
// Xid floods on two GPUs, interleaved causes (Xid 79 with its device line,
// Xid 154, Xid 119 RPC timeouts), repeats of one line near and far apart,
// indented follow-ups, noise, invalid UTF-8 in names and messages, a
// process renamed mid-flood, lines without a time, dmesg monotonic lines
// and lines longer than the evidence cut.
std::string MixedFlood(std::size_t lines, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  static const char* kNames[] = {"python3", "pt_main_thread", "caf\xe9", "\xff\xfe",
                                 "ray::train", "a|b", "\xc3"};
  static const char* kBuses[] = {"0000:3b:00", "0000:86:00", "0000:3a:25"};  // the last: no bus id
  std::string text;
  char buf[640];
  std::size_t second = 0;
  for (std::size_t i = 0; i < lines; ++i) {
    second += pick(50) == 0 ? 400 : (pick(4) == 0 ? 1 : 0);  // sometimes past the fold window
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "Feb %2zu %02zu:%02zu:%02zu gpu-node-07 kernel: ",
                  15 + second / 86400, (second / 3600) % 24, (second / 60) % 60, second % 60);
    const char* bus = kBuses[pick(10) == 0 ? 2 : pick(2)];
    // Half the processes from a small set, so that lines repeat exactly.
    const int pid = pick(2) == 0 ? 100 + static_cast<int>(pick(3)) : 1000 + static_cast<int>(pick(90));
    // Process 101 is renamed mid-flood.
    const char* name = pid == 101 ? (i < lines / 2 ? "python3" : "renamed") : kNames[pick(7)];
    std::size_t kind = pick(20);
    if (kind < 9) {
      std::snprintf(buf, sizeof buf,
                    "%sNVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC "
                    "%zu, TPC 1, SM 0): Out Of Range Address%s\n",
                    stamp, bus, pid, name, pick(3), pick(5) == 0 ? " \xe2\x82" : "");
    } else if (kind < 12) {
      std::snprintf(buf, sizeof buf,
                    "%sNVRM: Xid (PCI:%s): 79, pid=%d, name=%s, GPU has fallen off the bus.\n",
                    stamp, bus, pid, name);
      if (pick(3) == 0) {
        text += buf;
        std::snprintf(buf, sizeof buf, "%sNVRM: GPU %s.0: GPU has fallen off the bus.\n", stamp, bus);
      }
    } else if (kind == 12) {
      std::snprintf(buf, sizeof buf,
                    "%sNVRM: Xid (PCI:%s): 154, pid=%d, name=%s, GPU recovery action changed from "
                    "0x0 (None) to 0x%zx (x)\n",
                    stamp, bus, pid, name, 1 + pick(2));
    } else if (kind == 13) {
      std::snprintf(buf, sizeof buf,
                    "%sNVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for "
                    "RPC response from GPU0 GSP! Expected function %s (0x0 0x0).\n",
                    stamp, bus, pid, name, pick(2) ? "76 (GSP_RM_CONTROL)" : "103 (GSP_RM_ALLOC)");
    } else if (kind == 14) {
      std::snprintf(buf, sizeof buf, "%sNVRM:     entry function %zu\n", stamp, pick(4));
    } else if (kind == 15) {
      std::snprintf(buf, sizeof buf, "%ssystemd[1]: Started Session %zu of user ubuntu.\n", stamp,
                    pick(9));
    } else if (kind == 16) {  // no time at all
      std::snprintf(buf, sizeof buf, "NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics Exception\n",
                    bus, pid, name);
    } else if (kind == 17) {  // dmesg: monotonic seconds only
      std::snprintf(buf, sizeof buf,
                    "[%6zu.000000] NVRM: Xid (PCI:%s): 13, pid=%d, name=%s, Graphics Exception\n",
                    second, bus, pid, name);
    } else if (kind == 18) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (PCI:%s): 31, pid=%d, name=%s, MMU Fault %s\n",
                    stamp, bus, pid, name, std::string(450 + pick(3), 'F').c_str());
    } else {
      std::snprintf(buf, sizeof buf, "%sNVRM: GPU at PCI:%s: GPU-509665ad-b600-ac93-3616-d754b23d636d\n",
                    stamp, bus);
    }
    text += buf;
  }
  return text;
}

struct FloodScan {
  std::vector<KernelEvent> events;
  std::size_t left_out = 0;
  GpuLineStats gpu_lines;
  std::vector<std::string> nvsmi_messages;  // kind, line and text of each
};

std::vector<std::string> NvsmiMessagesOf(const std::vector<NvsmiMessage>& messages) {
  std::vector<std::string> out;
  for (const NvsmiMessage& m : messages) {
    out.push_back(std::to_string(static_cast<int>(m.kind)) + "|" + std::to_string(m.line) + "|" +
                  m.text + "|" + m.pci_bus_id + "|" + m.reason);
  }
  return out;
}

// What a scanner found, once it has been fed.
FloodScan FinishedScan(KernelEventScanner& scanner) {
  FloodScan out;
  out.events = scanner.Finish();
  out.left_out = scanner.events_left_out();
  out.gpu_lines = scanner.gpu_line_stats();
  out.nvsmi_messages = NvsmiMessagesOf(scanner.nvsmi_messages());
  return out;
}

// The production scan over the whole text at once.
FloodScan ScanWith(const std::string& text, bool fold = true) {
  ExtractOptions opts;
  opts.time.year = 2025;
  opts.fold_repeats = fold;
  KernelEventScanner scanner(opts);
  ScanKernelLogBuffer(text, "mixed.log", 1, scanner);
  return FinishedScan(scanner);
}

// The reference: every line fed to the scan's rules alone, nothing kept for speed.
FloodScan ReferenceScan(const std::string& text, bool fold = true) {
  ExtractOptions opts;
  opts.time.year = 2025;
  opts.fold_repeats = fold;
  test::KernelScanResult r = test::ReferenceKernelScan(text, "mixed.log", opts);
  FloodScan out;
  out.events = std::move(r.events);
  out.left_out = r.left_out;
  out.gpu_lines = r.gpu_lines;
  out.nvsmi_messages = NvsmiMessagesOf(r.nvsmi_messages);
  return out;
}

void ExpectSameEvent(const KernelEvent& a, const KernelEvent& b, std::size_t i) {
  SCOPED_TRACE("event " + std::to_string(i) + ": " + b.message);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.monotonic_s, b.monotonic_s);
  EXPECT_EQ(a.code, b.code);
  EXPECT_EQ(a.pci_bus_id, b.pci_bus_id);
  EXPECT_EQ(a.gpu_number, b.gpu_number);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.process, b.process);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.continuation, b.continuation);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.last_time, b.last_time);
  EXPECT_EQ(a.last_monotonic_s, b.last_monotonic_s);
  EXPECT_EQ(a.source.file, b.source.file);
  EXPECT_EQ(a.source.line, b.source.line);
  EXPECT_EQ(a.detail, b.detail);
  EXPECT_EQ(a.pci_not_bus_id, b.pci_not_bus_id);
  EXPECT_EQ(a.pci_not_bus_id_why, b.pci_not_bus_id_why);
  EXPECT_EQ(a.varied_count, b.varied_count);
  EXPECT_EQ(a.other_processes, b.other_processes);
  EXPECT_EQ(a.other_processes_left_out, b.other_processes_left_out);
  EXPECT_EQ(a.other_processes_left_out_is_floor, b.other_processes_left_out_is_floor);
  EXPECT_EQ(a.continuation_left_out, b.continuation_left_out);
}

void ExpectSameScans(const FloodScan& a, const FloodScan& b) {
  ASSERT_EQ(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) ExpectSameEvent(a.events[i], b.events[i], i);
  EXPECT_EQ(a.left_out, b.left_out);
  EXPECT_EQ(a.gpu_lines.decoded, b.gpu_lines.decoded);
  EXPECT_EQ(a.gpu_lines.undecoded, b.gpu_lines.undecoded);
  EXPECT_EQ(a.gpu_lines.first_undecoded.line, b.gpu_lines.first_undecoded.line);
  EXPECT_EQ(a.gpu_lines.first_undecoded_text, b.gpu_lines.first_undecoded_text);
  EXPECT_EQ(a.nvsmi_messages, b.nvsmi_messages);
}

void ExpectSameScan(const std::string& text, bool fold = true) {
  ExpectSameScans(ScanWith(text, fold), ReferenceScan(text, fold));
}

TEST(KernelFlood, CountsLikeTheReferenceOnMixedFloods) {
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string text = MixedFlood(30000, seed);
    ExpectSameScan(text);
    // The input is a flood: causes beyond their separate events were
    // counted into them (the cheap path's work), and repeats folded.
    FloodScan fast = ScanWith(text);
    std::size_t varied = 0, folded = 0;
    std::set<std::string> gpus;
    for (const KernelEvent& e : fast.events) {
      varied += e.varied_count;
      folded += e.count - e.varied_count - 1;
      gpus.insert(e.pci_bus_id);
    }
    EXPECT_GT(varied, 10000u);
    EXPECT_GT(folded, 100u);
    EXPECT_NE(text.find("pid=101, name=renamed"), std::string::npos);
    EXPECT_NE(text.find("pid=101, name=python3"), std::string::npos);
    EXPECT_TRUE(gpus.count("0000:3b:00.0") && gpus.count("0000:86:00.0"));
  }
}

TEST(KernelFlood, CountsLikeTheReferenceOnAStorm) {
  ExpectSameScan(Xid13Storm(50000, 5000));
  // Beyond kMaxLeftOutProcessesTracked processes the count is a floor in both.
  ExpectSameScan(Xid13Storm(150000, 100000));
}

// A flood whose Xid causes saturate early, so that their lines are read by
// the template of their constant bytes, mixed with lines that share a
// template's bytes but ask for the rules' general path: a pid that is no number,
// no name, no ", " after the name, no message, a message over the cut, a
// GPU number ("from GPU0 GSP"), MIG details, a follow-up line after an Xid
// ("PMU has halted", an indented line), CR line ends, nvidia-smi's words,
// JSON records, a process renamed mid-flood, and dmesg -H stamps at the end.
std::string TemplateFlood(std::size_t lines, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  static const char* kBuses[] = {"PCI:0000:3b:00", "PCI:0000:86:00", "PCI:0000:3b:00 GPU-I:01",
                                 "0000:3b:00"};
  static const char* kNames[] = {"python3", "<unknown>", "a, b", "torchrun", "\xff"};
  std::string text;
  char buf[700];
  std::size_t ms = 0;
  for (std::size_t i = 0; i < lines; ++i) {
    ms += pick(30) == 0 ? 400000 : pick(3);  // sometimes past the fold window
    const std::size_t second = ms / 1000;
    char stamp[80];
    std::snprintf(stamp, sizeof stamp, "Feb %2zu %02zu:%02zu:%02zu gpu-node-07 kernel: [%zu.%03zu000] ",
                  15 + second / 86400, (second / 3600) % 24, (second / 60) % 60, second % 60,
                  80000 + second, ms % 1000);
    const char* bus = kBuses[pick(4)];
    const int code = pick(3) == 0 ? 79 : (pick(5) == 0 ? 31 : 13);
    const int pid = 100 + static_cast<int>(pick(pick(2) ? 12 : 400));
    const char* name = pid == 101 && i > lines / 2 ? "renamed" : kNames[pick(3) ? 0 : pick(5)];
    const char* msg = code == 79 ? "GPU has fallen off the bus." : "Graphics Exception: ESR 0x1";
    // dmesg -H stamps put the scanner in relative time for good (every
    // line then takes the general path): only in the last lines.
    std::size_t shape = pick(40);
    if (shape == 36 && i < lines - lines / 50) shape = 0;
    if (shape < 28) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): %d, pid=%d, name=%s, %s%s\n", stamp, bus, code,
                    pid, name, msg, pick(4) == 0 ? " (x)" : "");
    } else if (shape == 28) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): %d, pid='<unknown>', name=<unknown>, %s\n",
                    stamp, bus, code, msg);
    } else if (shape == 29) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): %d, pid=%d, name=%s\n", stamp, bus, code, pid,
                    name);
    } else if (shape == 30) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): %d, pid=%d, name=%s, \n", stamp, bus, code, pid,
                    name);
    } else if (shape == 31) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): %d, pid=%d, name=%s, %s\n", stamp, bus, code,
                    pid, name, std::string(398 + pick(5), 'F').c_str());
    } else if (shape == 32) {
      std::snprintf(buf, sizeof buf,
                    "%sNVRM: Xid (%s): %d, pid=%d, name=%s, RPC response from GPU%zu GSP!\n", stamp,
                    bus, code, pid, name, pick(2));
    } else if (shape == 33) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): 13, pid=%d, name=%s, PMU has halted\n", stamp,
                    bus, pid, name);
    } else if (shape == 34) {
      std::snprintf(buf, sizeof buf, "%s    NVRM: Xid (%s): %d, pid=%d, name=%s, indented\n", stamp,
                    bus, code, pid, name);
    } else if (shape == 35) {
      std::snprintf(buf, sizeof buf, "%sNVRM: Xid (%s): %d, pid=%d, name=%s, %s\r\n", stamp, bus, code,
                    pid, name, msg);
    } else if (shape == 36) {
      std::snprintf(buf, sizeof buf, "[Feb15 17:%02zu] NVRM: Xid (%s): %d, pid=%d, name=%s, %s\n",
                    second % 60, bus, code, pid, name, msg);
    } else if (shape == 37) {
      std::snprintf(buf, sizeof buf,
                    "%sNVRM: Xid (%s): %d, pid=%d, name=%s, No devices were found\n", stamp, bus, code,
                    pid, name);
    } else if (shape == 38) {
      std::snprintf(buf, sizeof buf,
                    "{\"MESSAGE\":\"NVRM: Xid (%s): %d, pid=%d, name=%s, %s\","
                    "\"__REALTIME_TIMESTAMP\":\"1739641065%06zu\"}\n",
                    bus, code, pid, name, msg, ms % 1000000);
    } else {
      std::snprintf(buf, sizeof buf, "%sNVRM: GPU %s.0: GPU has fallen off the bus.\n", stamp,
                    "0000:3b:00");
    }
    text += buf;
  }
  return text;
}

TEST(KernelFlood, TemplatePathCountsLikeTheReference) {
  for (unsigned seed : {5u, 6u, 7u, 8u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string text = TemplateFlood(20000, seed);
    ExpectSameScan(text);
    // Saturated causes on several GPUs and codes, each with many lines.
    FloodScan fast = ScanWith(text);
    std::size_t varied = 0;
    for (const KernelEvent& e : fast.events) varied += e.varied_count;
    EXPECT_GT(varied, 8000u);
  }
  // Every other line a different cause, so that each line changes template.
  std::string alternating;
  for (int i = 0; i < 4000; ++i) {
    alternating += "Feb 15 17:37:45 gpu-node-07 kernel: NVRM: Xid (PCI:0000:" +
                   std::string(i % 2 ? "3b" : "86") + ":00): " + (i % 3 ? "13" : "79") +
                   ", pid=" + std::to_string(1000 + i % 50) + ", name=p" + std::to_string(i % 7) +
                   ", x\n";
  }
  ExpectSameScan(alternating);
}

// A template storm (its causes saturate early) with, here and there, lines
// that share a template's bytes but hold what only the rules' general path reads,
// and bytes of any kind: NUL, invalid UTF-8, CRLF, empty lines, follow-up
// and continuation lines, needles after the Xid (nvidia-smi's words, "Xid",
// "NCCL"), a GPU number in the name, "PMU has halted", a header that holds
// a needle, and no newline after the last line.
std::string EdgeFlood(std::size_t lines, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  static const std::string kNames[] = {"python3", "torchrun", std::string("a\0b", 3), "\xff\xfe",
                                       "x GPU3 GSP", "NVRM", "\xc3"};
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    const std::size_t ms = i * 2 + (i / 500) * 400000;  // some repeats past the fold window
    const std::size_t second = ms / 1000;
    char stamp[96];
    std::snprintf(stamp, sizeof stamp, "Feb 15 %02zu:%02zu:%02zu gpu-node-07 kernel: [%zu.%03zu000] ",
                  (second / 3600) % 24, (second / 60) % 60, second % 60, 80000 + second, ms % 1000);
    const std::string bus = pick(4) == 0 ? "PCI:0000:86:00" : "PCI:0000:3b:00";
    const std::string code = pick(3) == 0 ? "79" : "13";
    const std::string pid = std::to_string(100 + pick(pick(2) ? 10 : 300));
    std::string name = pick(6) == 0 ? kNames[pick(7)] : "python3";
    std::string msg = code == "79" ? "GPU has fallen off the bus." : "Graphics Exception: ESR 0x1";
    std::string head = stamp;
    std::string end = "\n";
    switch (pick(60)) {
      case 0: msg = std::string("Graphics\0Exception", 18); break;
      case 1: msg = "Graphics \xe2\x82 Exception \xff"; break;
      case 2: end = "\r\n"; break;
      case 3: msg = "Unable to determine the device handle for GPU0000:3b:00.0: Unknown Error"; break;
      case 4: msg = "No devices were found"; break;
      case 5: msg = "saw Xid 13 and NCCL WARN"; break;
      case 6: msg = "PMU has halted"; break;
      case 7: msg = "RPC response from GPU1 GSP!"; break;
      case 8: head = "Feb 15 17:37:45 fabric-node kernel: "; break;
      case 9: head = "Feb 15 17:37:45 gpu-node-07 NVRM[1]: "; break;
      case 10: text += "\n"; break;
      case 11: text += "\r\n"; break;
      case 12: text += std::string(stamp) + "NVRM:     entry function 0x1\n"; break;
      case 13: text += "    a continuation line\n"; break;
      case 14: text += std::string(stamp) + "usb 1-1: new high-speed USB device number 2\n"; break;
      case 15: text += std::string(stamp) + "NVRM: GPU at PCI:0000:3b:00: GPU-509665ad\n"; break;
      case 16: msg = std::string(420, 'M'); break;
      case 17: msg = "Graphics Exception, then oom-killer"; break;  // a needle ending the line
      case 18: msg = "Graphics Exception"; end = "\nNo devices were found\n"; break;  // in the next line
      default: break;
    }
    text += head + "NVRM: Xid (" + bus + "): " + code + ", pid=" + pid + ", name=" + name + ", " +
            msg + end;
  }
  text += std::string("Feb 15 17:37:45 gpu-node-07 kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=1, "
                      "name=last, no newline");
  return text;
}

// The production scan fed as StreamLines feeds ScanKernelLogBuffer (chunks
// of whole lines, cut at random), against the reference.
FloodScan ScanInChunks(const std::string& text, unsigned seed) {
  ExtractOptions opts;
  opts.time.year = 2025;
  KernelEventScanner scanner(opts);
  std::mt19937 rng(seed);
  std::size_t line_no = 1, pos = 0;
  while (pos < text.size()) {
    std::size_t cut = std::min(text.size(), pos + 1 + rng() % 5000);
    std::size_t nl = text.rfind('\n', cut - 1);
    std::size_t end = nl == std::string::npos || nl < pos ? text.size() : nl + 1;
    if (cut == text.size()) end = text.size();
    line_no += ScanKernelLogBuffer(std::string_view(text).substr(pos, end - pos), "mixed.log",
                                   line_no, scanner);
    pos = end;
  }
  return FinishedScan(scanner);
}

TEST(KernelFlood, ScanInChunksGivesTheReferencesEventsOnEdgeLines) {
  for (unsigned seed : {11u, 12u, 13u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string text = EdgeFlood(30000, seed);
    ExpectSameScan(text);
    FloodScan chunked = ScanInChunks(text, seed);
    FloodScan slow = ReferenceScan(text);
    ASSERT_EQ(chunked.events.size(), slow.events.size());
    for (std::size_t i = 0; i < slow.events.size(); ++i)
      ExpectSameEvent(chunked.events[i], slow.events[i], i);
    EXPECT_EQ(chunked.left_out, slow.left_out);
    EXPECT_EQ(chunked.gpu_lines.decoded, slow.gpu_lines.decoded);
    EXPECT_EQ(chunked.gpu_lines.undecoded, slow.gpu_lines.undecoded);
    // nvidia-smi's words in Xid lines are found by both.
    EXPECT_EQ(chunked.nvsmi_messages, slow.nvsmi_messages);
    EXPECT_FALSE(slow.nvsmi_messages.empty());
    // What the report writes of them, byte for byte.
    constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
    EXPECT_EQ(EventsToJson(chunked.events).dump(-1, ' ', false, kReplace),
              EventsToJson(slow.events).dump(-1, ' ', false, kReplace));
    // A flood indeed: most lines were counted into saturated causes.
    std::size_t varied = 0;
    for (const KernelEvent& e : slow.events) varied += e.varied_count;
    EXPECT_GT(varied, 15000u);
  }
}

TEST(KernelFlood, CountsLikeTheReferenceWithoutFolding) {
  ExpectSameScan(MixedFlood(6000, 4), /*fold=*/false);
}


// ScanKernelLogAhead (the scanner on a worker, the needle search and the
// lines' parse on the reading thread) against StreamLines feeding
// ScanKernelLogBuffer over the same reads: the same events, counts, line
// numbers and nvidia-smi messages, whatever the chunk size, however the
// reads cut the bytes, and when the log switches to relative stamps mid-way.

// Reads `text` in pieces of 1..max_read bytes (a pipe's reads); an error
// once fail_at bytes are read, when given.
struct PieceReader {
  const std::string& text;
  std::size_t max_read;
  std::size_t fail_at = std::string::npos;
  std::size_t pos = 0;
  std::mt19937 rng{7};
  Result<std::size_t> operator()(char* buf, std::size_t size) {
    if (pos >= fail_at) return Error{ErrorCode::kIo, "mixed.log: read error at byte " + std::to_string(pos)};
    std::size_t n = std::min({size, text.size() - pos, 1 + rng() % max_read});
    if (fail_at != std::string::npos) n = std::min(n, fail_at - pos);
    std::memcpy(buf, text.data() + pos, n);
    pos += n;
    return n;
  }
};

struct StreamedScan {
  FloodScan scan;
  Result<std::size_t> result = std::size_t{0};
};

// ahead: the threads ScanKernelLogAhead runs on (0: StreamLines instead).
StreamedScan ScanStreamed(const std::string& text, std::size_t chunk, std::size_t max_read,
                          std::size_t ahead, std::size_t fail_at = std::string::npos) {
  ExtractOptions opts;
  opts.time.year = 2025;
  KernelEventScanner scanner(opts);
  PieceReader reader{text, max_read, fail_at};
  auto read = [&](char* buf, std::size_t size) { return reader(buf, size); };
  StreamedScan out;
  const std::string name = "mixed.log";  // ScanWith's
  if (ahead) {
    out.result = ScanKernelLogAhead(read, name, scanner, {}, chunk, ahead);
  } else {
    std::size_t line = 1;
    out.result = StreamLines(
        read, [&](std::string_view piece) { line += ScanKernelLogBuffer(piece, name, line, scanner); },
        0, chunk, name);
  }
  out.scan = FinishedScan(scanner);
  return out;
}

TEST(KernelScanAhead, FeedsTheScannerAsTheLineByLineScanDoes) {
  // Templates, records, a process renamed and dmesg -H stamps at the end
  // (the reading thread leaves the rest to the scanner's own loop);
  // nvidia-smi's words, NUL and invalid UTF-8, CRLF, no final newline.
  const std::pair<std::string, std::string> logs[] = {
      {"template", TemplateFlood(8000, 21)}, {"edge", EdgeFlood(8000, 22)},
      {"mixed", MixedFlood(8000, 23)}, {"storm", Xid13Storm(8000, 700)}};
  for (const auto& [what, text] : logs) {
    for (std::size_t chunk : {std::size_t{512}, std::size_t{4096}, std::size_t{1} << 16}) {
      // One thread, two, and more finders than the buffers need.
      const std::size_t threads = chunk == 512 ? 3 : chunk == 4096 ? 1 : 2;
      SCOPED_TRACE(what + ", chunk " + std::to_string(chunk) + ", threads " + std::to_string(threads));
      StreamedScan ahead = ScanStreamed(text, chunk, 3 * chunk, threads);
      StreamedScan streamed = ScanStreamed(text, chunk, 3 * chunk, 0);
      ASSERT_TRUE(static_cast<bool>(ahead.result));
      EXPECT_EQ(*ahead.result, text.size());
      ExpectSameScans(ahead.scan, streamed.scan);
      // And as the scan of the whole text at once and the reference find
      // them, when no line is longer than a chunk (those are passed in pieces).
      if (chunk > 1024) {
        ExpectSameScans(ahead.scan, ScanWith(text));
        ExpectSameScans(ahead.scan, ReferenceScan(text));
      }
    }
  }
  // The template flood did switch to relative stamps, and its records were
  // read: both paths were taken.
  const std::string text = TemplateFlood(8000, 21);
  EXPECT_NE(text.find("\n[Feb15 17:"), std::string::npos);
  EXPECT_NE(text.find("\n{\"MESSAGE\""), std::string::npos);
}

TEST(KernelScanAhead, RelativeStampsFromTheFirstLineAndLongLines) {
  // dmesg -H from its first line: every line carries part of the time.
  std::string human = "[Feb15 17:37] usb 1-1: new device\n";
  for (int i = 0; i < 3000; ++i) {
    human += "[  +0.00" + std::to_string(1 + i % 9) + "000] " +
             (i % 3 ? "NVRM: Xid (PCI:0000:3b:00): 13, pid=" + std::to_string(100 + i % 40) +
                          ", name=python3, Graphics Exception\n"
                    : "eth0: link up\n");
    if (i % 700 == 0) human += "[Feb15 17:" + std::to_string(38 + i / 700) + "] next minute\n";
  }
  // Lines longer than a chunk (passed in pieces) amid a storm.
  std::string long_lines = Xid13Storm(3000, 50);
  for (std::size_t at : {std::size_t{1000}, std::size_t{90000}, std::size_t{200000}}) {
    const std::size_t nl = long_lines.find('\n', at) + 1;
    long_lines.insert(nl, "Feb 15 17:37:45 gpu-node-07 kernel: NVRM: " + std::string(9000, 'x') + "\n");
  }
  // A storm in syslog form, then dmesg -H lines: the switch mid-log.
  std::string switched = Xid13Storm(2000, 50) + human;
  for (const std::string* text : {&human, &switched, &long_lines}) {
    for (std::size_t chunk : {std::size_t{1000}, std::size_t{4096}}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk));
      StreamedScan ahead = ScanStreamed(*text, chunk, chunk, 2);
      StreamedScan streamed = ScanStreamed(*text, chunk, chunk, 0);
      ASSERT_TRUE(static_cast<bool>(ahead.result));
      ExpectSameScans(ahead.scan, streamed.scan);
      // Lines no longer than a chunk: as the reference finds them.
      if (text != &long_lines) ExpectSameScans(ahead.scan, ReferenceScan(*text));
      std::size_t xids = 0;
      for (const KernelEvent& e : ahead.scan.events) xids += e.kind == KernelEventKind::kXid ? e.count : 0;
      EXPECT_EQ(xids, text == &human ? 2000u : text == &switched ? 4000u : 3000u);
    }
  }
  // The relative stamps were added up: the last event is after the first.
  StreamedScan ahead = ScanStreamed(human, 4096, 4096, 2);
  ASSERT_FALSE(ahead.scan.events.empty());
  ASSERT_TRUE(ahead.scan.events.front().time && ahead.scan.events.back().time);
  EXPECT_GT(*ahead.scan.events.back().time, *ahead.scan.events.front().time);
}

TEST(KernelScanAhead, AReadErrorComesAfterTheLinesBeforeIt) {
  const std::string text = TemplateFlood(8000, 31);
  for (std::size_t fail_at : {std::size_t{0}, std::size_t{5000}, text.size() / 2, text.size() - 10}) {
    SCOPED_TRACE("fail at " + std::to_string(fail_at));
    StreamedScan ahead = ScanStreamed(text, 4096, 9000, 3, fail_at);
    StreamedScan streamed = ScanStreamed(text, 4096, 9000, 0, fail_at);
    ASSERT_FALSE(static_cast<bool>(ahead.result));
    EXPECT_EQ(ahead.result.error().message, "mixed.log: read error at byte " + std::to_string(fail_at));
    ExpectSameScans(ahead.scan, streamed.scan);
    if (fail_at > 5000) {
      EXPECT_FALSE(ahead.scan.events.empty());
    }
  }
}

TEST(KernelScanAhead, AnExceptionWhileReadingJoinsTheThreads) {
  const std::string text = Xid13Storm(20000, 300);
  ExtractOptions opts;
  opts.time.year = 2025;
  KernelEventScanner scanner(opts);
  PieceReader reader{text, 5000};
  std::size_t seen = 0;
  auto inspect = [&](std::string_view piece) {
    seen += piece.size();
    if (seen > text.size() / 2) throw std::runtime_error("inspect gave up");
  };
  EXPECT_THROW(ScanKernelLogAhead([&](char* b, std::size_t n) { return reader(b, n); }, "flood.log",
                                  scanner, inspect, 4096, 3),
               std::runtime_error);
  // The threads stopped there: the scanner holds at most the lines
  // inspected before the exception (about half the storm), and some.
  std::size_t xids = 0;
  for (const KernelEvent& e : scanner.Finish()) xids += e.count;
  EXPECT_GT(xids, 0u);
  EXPECT_LT(xids, 10100u);
}

TEST(KernelFlood, KernelPciIsWrittenAsNormalizePciBusIdWritesIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"0000:3b:00", "0000:3b:00.0"},         {"PCI:0000:3B:00", "0000:3b:00.0"},
      {"00000000:86:00.0", "0000:86:00.0"},   {"0001:ab:1f.7", "0001:ab:1f.7"},
      {"00001234:3b:00", "1234:3b:00.0"},     {"0000:3b:00:", "0000:3b:00.0"},
      {"000a:0B:0c.7", "000a:0b:0c.7"},       {"0000:3b:0", ""},
      {"3b:00.0", ""},                        {"zzzz:00:00", ""},
      // What NormalizePciBusId refuses: domain above 0xffff, device above
      // 0x1f, function above 7.
      {"12345678:00:00", ""},                 {"0000:3b:20", ""},
      {"0000:3b:00.8", ""}};
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(kevents::NormalizeKernelPci(text), want) << text;
    if (*want) {
      EXPECT_EQ(NormalizePciBusId(want), want);
    }
  }
}

}  // namespace
}  // namespace gpudoctor
