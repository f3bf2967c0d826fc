// analyze: reading files of any kind into one DiagnosisInput (detection,
// gzip, bug-report sections, dump stamps, errors per file).
#include "analyze/analyze_input.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "analyze/bug_report.h"
#include "analyze/decode_ahead.h"
#include "analyze/dump_time.h"
#include "analyze/input_file.h"
#include "analyze/input_stream.h"
#include "core/time_format.h"
#include "support/temp_files.h"
#include "unit/analyze_samples.h"

namespace gpudoctor {
namespace {

using test::Gzip;
using test::kDmesgT;
using test::kSep;
using test::kSmiText;
using test::kXml;
using test::SyntheticBugReport;

TEST(AnalyzeDetect, TellsKindsFromContent) {
  EXPECT_EQ(DetectInputKind(kXml), InputKind::kNvidiaSmiXml);
  EXPECT_EQ(DetectInputKind("<nvidia_smi_log>\n<gpu id=\"0\"/></nvidia_smi_log>"),
            InputKind::kNvidiaSmiXml);  // no prolog, no DOCTYPE
  EXPECT_EQ(DetectInputKind(kSmiText), InputKind::kNvidiaSmiText);
  EXPECT_EQ(DetectInputKind(SyntheticBugReport(kSmiText)), InputKind::kBugReport);
  EXPECT_EQ(DetectInputKind(kDmesgT), InputKind::kKernelLog);
  EXPECT_EQ(DetectInputKind("Feb 15 17:37:45 host kernel: usb 1-1: new device\n"),
            InputKind::kKernelLog);
  EXPECT_EQ(DetectInputKind("\xEF\xBB\xBF" + std::string(kXml)), InputKind::kNvidiaSmiXml);
  // The default table, also when it shows ERR! and under a shell prompt.
  EXPECT_EQ(DetectInputKind("$ nvidia-smi\n"
                            "| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: "
                            "12.0     |\n"
                            "|   4  ERR!                On   | 00000000:83:00.0 Off |  ERR! |\n"),
            InputKind::kNvidiaSmiTable);
}

TEST(AnalyzeDetect, RefusesTextThatIsNoneOfThem) {
  EXPECT_EQ(DetectInputKind(""), InputKind::kUnknown);
  EXPECT_EQ(DetectInputKind("\n  \n"), InputKind::kUnknown);
  EXPECT_EQ(DetectInputKind(std::string("\x7f"
                                        "ELF\x02\x01\x01\0\0\0",
                                        10)),
            InputKind::kUnknown);
  EXPECT_EQ(DetectInputKind("hello world\nthis is a shopping list\n"), InputKind::kUnknown);
  EXPECT_EQ(DetectInputKind("<?xml version=\"1.0\"?>\n<project/>\n"), InputKind::kUnknown);
  // nvidia-smi -L: GPUs without links.
  EXPECT_EQ(DetectInputKind("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n"
                            "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n"),
            InputKind::kUnknown);
}

TEST(AnalyzeDetect, NvlinkStatusOutput) {
  EXPECT_EQ(DetectInputKind("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n"
                            "\t Link 0: 26.562 GB/s\n"),
            InputKind::kNvidiaSmiNvlink);
  EXPECT_EQ(DetectInputKind("$ nvidia-smi nvlink -s\nGPU 4: NVIDIA H100 80GB HBM3 (UUID: GPU-4)\n"
                            "\t NVML: Unable to retrieve Nvlink information as all links are inActive\n"),
            InputKind::kNvidiaSmiNvlink);
}

TEST(AnalyzeDetect, CrashDumpMessageNamingTheScriptIsStillAKernelLog) {
  // Xid 79 logs say "please run nvidia-bug-report.sh": not a bug report.
  std::string log = std::string(kDmesgT) +
                    "[Mon Mar  3 10:02:00 2025] NVRM: A GPU crash dump has been created. If "
                    "possible, please run\n"
                    "                           NVRM: nvidia-bug-report.sh as root to collect\n";
  EXPECT_EQ(DetectInputKind(log), InputKind::kKernelLog);
}

TEST(AnalyzeDetect, KindNames) {
  EXPECT_STREQ(InputKindName(InputKind::kNvidiaSmiXml), "nvidia-smi-xml");
  EXPECT_STREQ(InputKindName(InputKind::kNvidiaSmiText), "nvidia-smi-text");
  EXPECT_STREQ(InputKindName(InputKind::kNvidiaSmiTable), "nvidia-smi-table");
  EXPECT_STREQ(InputKindName(InputKind::kNvidiaSmiNvlink), "nvidia-smi-nvlink");
  EXPECT_STREQ(InputKindName(InputKind::kBugReport), "nvidia-bug-report");
  EXPECT_STREQ(InputKindName(InputKind::kKernelLog), "kernel-log");
  EXPECT_STREQ(InputKindName(InputKind::kUnknown), "unknown");
}

TEST(AnalyzeDumpTime, ReadsNvidiaSmiStamps) {
  auto t = ParseCtimeStamp("Thu Sep  1 15:20:22 2022");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatRfc3339(*t), "2022-09-01T15:20:22Z");
  EXPECT_EQ(FormatRfc3339(*XmlDumpTime(kXml)), "2025-03-03T10:05:00Z");
  EXPECT_EQ(FormatRfc3339(*TextDumpTime(kSmiText)), "2025-03-03T10:00:00Z");
  EXPECT_FALSE(ParseCtimeStamp("N/A").has_value());
  EXPECT_FALSE(ParseCtimeStamp("Thu Sep 41 15:20:22 2022").has_value());
  EXPECT_FALSE(TextDumpTime("Driver Version : 550.90.07\n").has_value());
  // The table's date line, above the table only (not a date inside or after it).
  EXPECT_EQ(FormatRfc3339(*TableDumpTime("\nFri Nov  3 10:54:52 2023       \r\n+---+\n")),
            "2023-11-03T10:54:52Z");
  EXPECT_FALSE(TableDumpTime("+---+\nFri Nov  3 10:54:52 2023\n").has_value());
  EXPECT_FALSE(TableDumpTime("| NVIDIA-SMI 525.60.13 |\n").has_value());
  EXPECT_EQ(YearInText(" Thu Oct 27 08:50:11 PM -03 2022"), 2022);
}

// Windows PowerShell 5.1 writes `nvidia-smi -q > out.txt` as UTF-16 with a
// byte-order mark.
TEST(AnalyzeUtf16, BomTextBecomesUtf8) {
  using namespace std::string_literals;
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE" "G\0P\0U\0\n\0"s), "GPU\n");                 // LE
  EXPECT_EQ(Utf16ToUtf8("\xFE\xFF" "\0G\0P\0U"s), "GPU");                          // BE
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE" "\xB0\x00\x2C\x6E"s), "\xC2\xB0\xE6\xB8\xAC");  // ° 測
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE" "\x3D\xD8\x00\xDE"s), "\xF0\x9F\x98\x80");      // U+1F600
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE" "\x3D\xD8" "A\0"s), "\xEF\xBF\xBD" "A");         // lone high
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE" "A\0B"s), "A");  // odd last byte
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE" "A\0\xFF\xFE" "B\0"s), "AB");  // two files appended
  EXPECT_EQ(Utf16ToUtf8("\xFF\xFE"s), "");
  EXPECT_FALSE(Utf16ToUtf8("GPU 0").has_value());
  EXPECT_FALSE(Utf16ToUtf8("\xEF\xBB\xBFGPU").has_value());  // UTF-8's mark
}

TEST(AnalyzeGzip, RoundTripAndMembers) {
  auto one = GunzipData(Gzip("abc\n"), "x.gz", 0);
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(*one, "abc\n");
  auto two = GunzipData(Gzip("abc\n") + Gzip("def\n"), "x.gz", 0);  // cat a.gz b.gz
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(*two, "abc\ndef\n");
  auto big = GunzipData(Gzip(std::string(5000, 'x')), "x.gz", 1000);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("once decompressed"), std::string::npos);
}

TEST(AnalyzeGzip, CorruptAndTruncatedNameTheFileAndByte) {
  std::string gz = Gzip(std::string(kDmesgT) + kDmesgT + kDmesgT);
  auto cut = GunzipData(gz.substr(0, gz.size() / 2), "r.gz", 0);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message,
            "r.gz: gzip data truncated at byte " + std::to_string(gz.size() / 2));
  std::string bad = std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + "\xff\xff\xff";
  auto corrupt = GunzipData(bad, "b.gz", 0);
  ASSERT_FALSE(corrupt.ok());
  const std::string& why = corrupt.error().message;
  EXPECT_EQ(why.rfind("b.gz: gzip data corrupt at byte ", 0), 0u) << why;
  EXPECT_NE(why.find("invalid block type"), std::string::npos) << why;
}

TEST(AnalyzeBugReport, SectionsOfASyntheticReport) {
  std::vector<LogLine> lines = SplitLogLines(SyntheticBugReport(kSmiText), "r.log");
  BugReportFacts facts = ReadBugReportFacts(lines);
  ASSERT_EQ(facts.smi_query_texts.size(), 1u);
  // The --query --unit output that follows in the same section is not part of it.
  EXPECT_EQ(facts.smi_query_texts[0].find("Attached Units"), std::string::npos);
  EXPECT_NE(facts.smi_query_texts[0].find("GPU 00000000:3B:00.0"), std::string::npos);
  EXPECT_EQ(facts.proc_driver_version, "550.90.07");
  EXPECT_EQ(facts.hostname, "gpu-node-7");
  EXPECT_EQ(facts.kernel_release, "5.15.0-97-generic");
  EXPECT_EQ(facts.date_year, 2025);
}

TEST(AnalyzeBugReport, HeaderOnlyReportHasNoSmiOutput) {
  std::string report = std::string(kSep) + "nvidia-bug-report.sh Version: 1\n\n" + kSep +
                       "Skipping nvidia-smi output (nvidia-smi not found)\n";
  BugReportFacts facts = ReadBugReportFacts(SplitLogLines(report, "r.log"));
  EXPECT_TRUE(facts.smi_query_texts.empty());
  EXPECT_FALSE(facts.proc_driver_version.has_value());
  EXPECT_TRUE(facts.hostname.empty());
}

}  // namespace
}  // namespace gpudoctor

namespace gpudoctor {
// Decompression ahead of the reader (analyze/decode_ahead.h) and the
// InputStream that uses it for compressed members: the bytes in order,
// an error after the bytes before it, the thread joined on every path
// (the end, an error, an exception, a reader that stops early), and a
// truncated .gz still named by the byte where it ends.
namespace decode_ahead_test_ns {

// A source of `total` bytes (byte i is i % 251) given out in pieces of
// uneven sizes, failing after `fail_after` bytes when set.
struct PatternSource {
  std::size_t total = 0;
  std::size_t given = 0;
  std::size_t calls = 0;
  std::size_t fail_after = static_cast<std::size_t>(-1);
  bool throw_instead = false;

  Result<std::size_t> operator()(char* buf, std::size_t size) {
    ++calls;
    if (given >= fail_after) {
      if (throw_instead) throw std::runtime_error("boom");
      return Error{ErrorCode::kCorrupt, "x.gz: gzip data corrupt at byte 77"};
    }
    std::size_t n = std::min({size, total - given, 1000 + (calls * 7919) % 300000,
                              fail_after - given});
    for (std::size_t i = 0; i < n; ++i) buf[i] = static_cast<char>((given + i) % 251);
    given += n;
    return n;
  }
};

// Everything Read gives, in reads of `piece` bytes, and the error that ended it.
std::pair<std::string, std::string> ReadAllOf(DecodeAhead& ahead, std::size_t piece) {
  std::string out, error;
  std::string buf(piece, '\0');
  for (;;) {
    auto n = ahead.Read(buf.data(), buf.size());
    if (!n) {
      error = n.error().message;
      break;
    }
    if (*n == 0) break;
    out.append(buf.data(), *n);
  }
  return {out, error};
}

bool IsPattern(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != static_cast<char>(i % 251)) return false;
  }
  return true;
}

TEST(DecodeAhead, GivesEveryByteInOrder) {
  for (std::size_t piece : {std::size_t{1} << 20, std::size_t{4093}, std::size_t{3} << 20}) {
    PatternSource src;
    src.total = 9'000'001;  // more than the ring holds
    DecodeAhead ahead([&src](char* b, std::size_t n) { return src(b, n); });
    auto [out, error] = ReadAllOf(ahead, piece);
    EXPECT_EQ(out.size(), src.total) << piece;
    EXPECT_TRUE(IsPattern(out)) << piece;
    EXPECT_EQ(error, "");
    EXPECT_TRUE(ahead.finished());
    std::string more(16, '\0');
    EXPECT_EQ(*ahead.Read(more.data(), more.size()), 0u);  // and stays at its end
  }
}

TEST(DecodeAhead, AnErrorComesAfterTheBytesBeforeIt) {
  PatternSource src;
  src.total = 5'000'000;
  src.fail_after = 2'500'017;
  DecodeAhead ahead([&src](char* b, std::size_t n) { return src(b, n); });
  auto [out, error] = ReadAllOf(ahead, 65536);
  EXPECT_EQ(out.size(), 2'500'017u);
  EXPECT_TRUE(IsPattern(out));
  EXPECT_EQ(error, "x.gz: gzip data corrupt at byte 77");
  std::string more(16, '\0');
  auto again = ahead.Read(more.data(), more.size());
  ASSERT_TRUE(again.ok());  // given once, then the end
  EXPECT_EQ(*again, 0u);
}

TEST(DecodeAhead, AnExceptionInTheThreadIsAnError) {
  PatternSource src;
  src.total = 3'000'000;
  src.fail_after = 1'000'000;
  src.throw_instead = true;
  DecodeAhead ahead([&src](char* b, std::size_t n) { return src(b, n); });
  auto [out, error] = ReadAllOf(ahead, 1 << 20);
  EXPECT_EQ(out.size(), 1'000'000u);
  EXPECT_EQ(error, "decompressing failed: boom");
}

TEST(DecodeAhead, AReaderThatStopsEarlyStopsTheThread) {
  std::atomic<std::size_t> produced{0};
  {
    // An endless source: the producer fills the ring and waits; the
    // destructor must wake it and join it.
    DecodeAhead ahead([&produced](char* buf, std::size_t size) -> Result<std::size_t> {
      std::fill(buf, buf + size, 'x');
      produced += size;
      return size;
    });
    std::string buf(100, '\0');
    ASSERT_EQ(*ahead.Read(buf.data(), buf.size()), 100u);
    EXPECT_FALSE(ahead.finished());
  }
  // Bounded: the ring and the slot being filled, never more.
  EXPECT_LE(produced.load(), (kDecodeAheadSlots + 1) * kDecodeAheadSlotBytes);
}

// A log large enough for several of the ring's slots, gzipped and cut in
// the middle: analysed up to where it ends, with the note naming the byte.
TEST(DecodeAhead, ATruncatedGzipThroughTheThreadNamesTheByte) {
  std::string log;
  for (int i = 0; i < 120000; ++i) {
    log += "Feb 15 17:37:45 gpu-node-07 kernel: [80000.001000] NVRM: Xid (PCI:0000:3b:00): 79, pid=" +
           std::to_string(10000 + i % 4096) + ", name=python3, GPU has fallen off the bus.\n";
  }
  ASSERT_GT(log.size(), 2 * kDecodeAheadSlots * kDecodeAheadSlotBytes);
  std::string gz = test::Gzip(log);
  const std::size_t cut = gz.size() * 3 / 4;
  test::TempDir dir;
  const std::string path = dir.Write("kern.log.gz", gz.substr(0, cut));

  InputStream in;
  ASSERT_TRUE(in.Open(path).ok());
  std::string got;
  auto r = StreamLines(in, [&](std::string_view chunk) { got.append(chunk); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(got.size(), kDecodeAheadSlots * kDecodeAheadSlotBytes);
  EXPECT_LT(got.size(), log.size());
  EXPECT_EQ(got, log.substr(0, got.size()));
  EXPECT_EQ(in.note(), "gzip data truncated at byte " + std::to_string(cut) +
                           " (the input ends there): analysed as far as it decompresses");

  // The same through analyze: the events up to the cut, and the note.
  auto a = AnalyzeFiles({path}, Config{});
  ASSERT_EQ(a.files.size(), 1u);
  EXPECT_TRUE(a.files[0].ok) << a.files[0].error;
  ASSERT_EQ(a.files[0].notes.size(), 1u);
  EXPECT_EQ(a.files[0].notes[0], in.note());
  ASSERT_TRUE(a.input.kernel.has_value());
  std::size_t xid_lines = 0;
  for (const KernelEvent& e : a.input.kernel->events) {
    if (e.kind == KernelEventKind::kXid) xid_lines += e.count;
  }
  const std::size_t whole_lines = static_cast<std::size_t>(std::count(got.begin(), got.end(), '\n'));
  EXPECT_GE(xid_lines, whole_lines);  // the last, partial line may still read as one
  EXPECT_LE(xid_lines, whole_lines + 1);
}

// A reader that leaves a compressed member before its end (an archive's
// next member, a stream closed early) joins the thread.
TEST(DecodeAhead, AStreamClosedBeforeItsEndJoinsTheThread) {
  std::string log(6 * kDecodeAheadSlotBytes, 'a');
  for (std::size_t i = 80; i < log.size(); i += 81) log[i] = '\n';
  test::TempDir dir;
  const std::string path = dir.Write("big.log.gz", test::Gzip(log));
  for (int i = 0; i < 20; ++i) {
    InputStream in;
    ASSERT_TRUE(in.Open(path).ok());
    std::string buf(4096, '\0');
    auto n = in.Read(buf.data(), buf.size());
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, buf.size());
    EXPECT_EQ(in.note(), "");
    // Destroyed here with the thread still filling or waiting.
  }
}

// A reader that gives up on a member (the JSON-records reader, on a log
// whose head looked like a JSON document) stops its thread at once, not
// when the stream is destroyed.
TEST(DecodeAhead, AMemberLeftStopsItsThreadAtOnce) {
  std::string log(6 * kDecodeAheadSlotBytes, 'a');
  for (std::size_t i = 80; i < log.size(); i += 81) log[i] = '\n';
  test::TempDir dir;
  const std::string path = dir.Write("big.log.gz", test::Gzip(log));
  InputStream in;
  ASSERT_TRUE(in.Open(path).ok());
  std::string buf(4096, '\0');
  ASSERT_TRUE(in.Read(buf.data(), buf.size()).ok());
  EXPECT_TRUE(in.decoding_ahead());
  in.LeaveMember();
  EXPECT_FALSE(in.decoding_ahead());
  EXPECT_EQ(in.note(), "");
}

// The same through analyze: a gzipped log whose head reads as the start of
// a JSON document but is none is read again as lines, every Xid counted.
TEST(DecodeAhead, AGzippedLogThatIsNoJsonAfterAllIsReadAsLines) {
  std::string log = "{ not json\n";
  const int lines = 40000;
  for (int i = 0; i < lines; ++i) {
    log += "Feb 15 17:37:45 gpu-node-07 kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=" +
           std::to_string(1000 + i % 300) + ", name=python3, Graphics Exception\n";
  }
  ASSERT_GT(log.size(), kDecodeAheadSlotBytes);
  test::TempDir dir;
  const std::string path = dir.Write("kern.log.gz", test::Gzip(log));
  auto a = AnalyzeFiles({path}, Config{});
  ASSERT_EQ(a.files.size(), 1u);
  EXPECT_TRUE(a.files[0].ok) << a.files[0].error;
  ASSERT_TRUE(a.input.kernel.has_value());
  std::size_t xid_lines = 0;
  for (const KernelEvent& e : a.input.kernel->events) {
    if (e.kind == KernelEventKind::kXid) xid_lines += e.count;
  }
  EXPECT_EQ(xid_lines, static_cast<std::size_t>(lines));
}

// The same log cut short: read as lines after all, it still carries the
// note naming the byte where the gzip data ends.
TEST(DecodeAhead, ACutGzippedLogThatIsNoJsonAfterAllKeepsItsNote) {
  std::string log = "{ not json\n";
  for (int i = 0; i < 40000; ++i) {
    log += "Feb 15 17:37:45 gpu-node-07 kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=" +
           std::to_string(1000 + i % 300) + ", name=python3, Graphics Exception\n";
  }
  std::string gz = test::Gzip(log);
  gz.resize(gz.size() / 2);
  test::TempDir dir;
  const std::string path = dir.Write("kern.log.gz", gz);
  auto a = AnalyzeFiles({path}, Config{});
  ASSERT_EQ(a.files.size(), 1u);
  EXPECT_TRUE(a.files[0].ok) << a.files[0].error;
  bool noted = false;
  for (const std::string& n : a.files[0].notes) {
    noted = noted || n.find("truncated at byte " + std::to_string(gz.size())) != std::string::npos;
  }
  EXPECT_TRUE(noted) << ::testing::PrintToString(a.files[0].notes);
}

}  // namespace decode_ahead_test_ns
}  // namespace gpudoctor
