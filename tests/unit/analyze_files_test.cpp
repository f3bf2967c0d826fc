// AnalyzeFiles over real files in a temporary directory: mixes of dumps,
// logs and bug reports, gzip, and one clear error per unusable file while
// the others are still used.
#include <gtest/gtest.h>

#include <string>

#include "analyze/analyze_input.h"
#include "core/time_format.h"
#include "support/temp_files.h"
#include "unit/analyze_samples.h"

namespace gpudoctor {
namespace {

using test::Gzip;
using test::kDmesgT;
using test::kSmiText;
using test::kXml;
using test::SyntheticBugReport;
using test::TempDir;

const AnalyzedFile& FileOf(const AnalyzeResult& r, std::size_t i) { return r.files.at(i); }

TEST(AnalyzeFiles, XmlAndKernelLogFillGpusAndEvents) {
  TempDir dir;
  auto r = AnalyzeFiles({dir.Write("q.xml", kXml), dir.Write("dmesg.txt", kDmesgT)}, Config{});
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_TRUE(FileOf(r, 0).ok) << FileOf(r, 0).error;
  EXPECT_EQ(FileOf(r, 0).kind, InputKind::kNvidiaSmiXml);
  EXPECT_EQ(FileOf(r, 0).gpu_count, 1u);
  EXPECT_EQ(FileOf(r, 1).kind, InputKind::kKernelLog);
  EXPECT_EQ(FileOf(r, 1).event_count, 2u);  // Xid 79 and the derived fallen-off-the-bus
  EXPECT_FALSE(r.input.live);
  ASSERT_EQ(r.input.gpus.size(), 1u);
  EXPECT_EQ(r.input.gpus[0].key, "0000:3b:00.0");
  EXPECT_EQ(r.input.driver_version, "550.90.07");
  ASSERT_TRUE(r.input.kernel.has_value());
  ASSERT_EQ(r.input.kernel->events.size(), 2u);
  EXPECT_EQ(r.input.kernel->events[0].code, 79);
  EXPECT_EQ(r.input.kernel->events[0].pci_bus_id, "0000:3b:00.0");
  ASSERT_EQ(r.input.kernel->sources.size(), 1u);
  EXPECT_EQ(r.input.kernel->sources[0].source, FileOf(r, 1).path);
  // 10:02 (the Xid) to 10:05 (the dump).
  EXPECT_EQ(FormatRfc3339(*r.input.window_from), "2025-03-03T10:02:00Z");
  EXPECT_EQ(FormatRfc3339(*r.input.window_to), "2025-03-03T10:05:00Z");
}

TEST(AnalyzeFiles, SeveralDumpsFormAWindowInTimeOrder) {
  TempDir dir;
  // Given newest first: the series must still run oldest to newest.
  auto r = AnalyzeFiles({dir.Write("b.xml", kXml), dir.Write("a.txt", kSmiText)}, Config{});
  ASSERT_EQ(r.input.gpus.size(), 1u);
  const GpuSeries& s = r.input.gpus[0];
  ASSERT_EQ(s.readings.size(), 2u);
  EXPECT_EQ(s.readings[0].temperature_c, 45);
  EXPECT_EQ(s.readings[1].temperature_c, 47);
  EXPECT_EQ(FormatRfc3339(*s.times[0]), "2025-03-03T10:00:00Z");
  EXPECT_FALSE(r.input.kernel.has_value());  // no log was given
}

// Two runs of nvidia-smi in one file, each with its date line: two readings
// at their own times; an Xid pasted under the table is read as a log.
TEST(AnalyzeFiles, TablesOfOneFileAreReadingsAndPastedLogLinesEvents) {
  const std::string table = R"(+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A30          Off  | 00000000:3B:00.0 Off |                    0 |
| N/A   TEMPC    P0    92W / 165W |  16096MiB / 24576MiB |     88%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
)";
  auto run = [&](const std::string& date, const std::string& temp) {
    std::string t = table;
    t.replace(t.find("TEMPC"), 5, temp + "C");
    return date + "\n" + t;
  };
  TempDir dir;
  std::string two = run("Fri Mar  3 14:41:55 2023", "40") + "\n" +
                    run("Fri Mar  3 14:51:55 2023", "45") + "$ dmesg -T | grep Xid\n" + kDmesgT;
  auto r = AnalyzeFiles({dir.Write("smi.txt", two)}, Config{});
  ASSERT_TRUE(r.files.at(0).ok) << r.files.at(0).error;
  EXPECT_EQ(r.files.at(0).kind, InputKind::kNvidiaSmiTable);
  EXPECT_EQ(r.files.at(0).gpu_count, 1u);
  ASSERT_EQ(r.input.gpus.size(), 1u);
  const GpuSeries& g = r.input.gpus[0];
  ASSERT_EQ(g.readings.size(), 2u);
  EXPECT_EQ(g.readings[0].temperature_c, 40);
  EXPECT_EQ(g.readings[1].temperature_c, 45);
  EXPECT_EQ(FormatRfc3339(*g.times[0]), "2023-03-03T14:41:55Z");
  EXPECT_EQ(FormatRfc3339(*g.times[1]), "2023-03-03T14:51:55Z");
  ASSERT_TRUE(r.input.kernel.has_value());
  ASSERT_FALSE(r.input.kernel->events.empty());  // the Xid, and what it implies
  EXPECT_EQ(r.input.kernel->events[0].code, 79);
  EXPECT_EQ(r.files.at(0).event_count, r.input.kernel->events.size());
}

// The same -q text written as UTF-16 (and gzip-compressed on top) reads as
// the UTF-8 one does.
TEST(AnalyzeFiles, Utf16TextReadsLikeUtf8) {
  std::string utf16 = "\xFF\xFE";
  for (char c : std::string(kSmiText)) {
    utf16 += c;
    utf16 += '\0';
  }
  TempDir dir;
  auto r = AnalyzeFiles({dir.Write("ps.txt", utf16), dir.Write("ps.gz", Gzip(utf16))}, Config{});
  for (const AnalyzedFile& f : r.files) {
    EXPECT_TRUE(f.ok) << f.error;
    EXPECT_EQ(f.kind, InputKind::kNvidiaSmiText);
    EXPECT_EQ(f.gpu_count, 1u);
  }
  ASSERT_EQ(r.input.gpus.size(), 1u);
  EXPECT_EQ(r.input.gpus[0].readings.size(), 2u);
  // A byte-order mark and nothing else is an empty file.
  std::string bom_only = dir.Write("bom.txt", "\xFF\xFE");
  auto empty = AnalyzeFiles({bom_only}, Config{});
  EXPECT_EQ(empty.files.at(0).error, bom_only + ": empty file");
}

TEST(AnalyzeFiles, GzipRoundTripWhateverTheName) {
  TempDir dir;
  auto r = AnalyzeFiles({dir.Write("dump.bin", Gzip(kXml)), dir.Write("k.log.gz", Gzip(kDmesgT))},
                        Config{});
  EXPECT_EQ(FileOf(r, 0).kind, InputKind::kNvidiaSmiXml);
  EXPECT_EQ(FileOf(r, 0).gpu_count, 1u);
  EXPECT_EQ(FileOf(r, 1).kind, InputKind::kKernelLog);
  EXPECT_EQ(FileOf(r, 1).event_count, 2u);
}

TEST(AnalyzeFiles, EachBadFileGetsOneLineNamingItAndTheRestIsUsed) {
  TempDir dir;
  std::string gz = Gzip(std::string(kXml) + kXml);
  const std::vector<std::string> paths = {
      (dir.path() / "missing.log").string(),
      dir.path().string(),
      dir.Write("empty.log", ""),
      dir.Write("garbage.bin", std::string("\x00\x01\x02\xff\xfe binary", 12)),
      dir.Write("cut.xml.gz", gz.substr(0, gz.size() - 20)),
      dir.Write("table.txt", "+-----+\n| NVIDIA-SMI 550.90.07   Driver Version: 550.90.07 |\n"),
      dir.Write("bad.xml", "<nvidia_smi_log><gpu id=\"0\">"),
      dir.Write("good.xml", kXml),
  };
  auto r = AnalyzeFiles(paths, Config{});
  ASSERT_EQ(r.files.size(), paths.size());
  EXPECT_EQ(FileOf(r, 0).error, paths[0] + ": no such file");
  EXPECT_EQ(FileOf(r, 1).error, paths[1] + ": not a file (a directory)");
  EXPECT_EQ(FileOf(r, 2).error, paths[2] + ": empty file");
  EXPECT_EQ(FileOf(r, 3).error, paths[3] + ": not an nvidia-smi, bug report or kernel log file");
  // A dump read whole and cut short: what decompressed does not parse, and
  // the error says where the data ended.
  EXPECT_EQ(FileOf(r, 4).error.rfind(paths[4] + ": ", 0), 0u) << FileOf(r, 4).error;
  EXPECT_NE(FileOf(r, 4).error.find("gzip data truncated at byte "), std::string::npos)
      << FileOf(r, 4).error;
  // A table's banner without the GPU table under it.
  EXPECT_EQ(FileOf(r, 5).error,
            paths[5] + ": not an nvidia-smi table: no GPU table header ('| GPU  Name ... Bus-Id "
                       "... |') found");
  EXPECT_EQ(FileOf(r, 6).error.rfind(paths[6] + ": ", 0), 0u) << FileOf(r, 6).error;
  for (std::size_t i = 0; i + 1 < paths.size(); ++i) {
    EXPECT_FALSE(FileOf(r, i).ok) << paths[i];
    EXPECT_EQ(FileOf(r, i).error.find('\n'), std::string::npos) << FileOf(r, i).error;
  }
  EXPECT_TRUE(FileOf(r, 7).ok);
  EXPECT_TRUE(FileOf(r, 7).error.empty());
  EXPECT_EQ(r.input.gpus.size(), 1u);
}

TEST(AnalyzeFiles, BugReportGivesReadingEventsVersionAndHost) {
  TempDir dir;
  auto r = AnalyzeFiles({dir.Write("nvidia-bug-report.log.gz", Gzip(SyntheticBugReport(kSmiText)))},
                        Config{});
  const AnalyzedFile& f = FileOf(r, 0);
  ASSERT_TRUE(f.ok) << f.error;
  EXPECT_EQ(f.kind, InputKind::kBugReport);
  EXPECT_EQ(f.gpu_count, 1u);
  EXPECT_EQ(f.event_count, 1u);
  ASSERT_EQ(r.input.gpus.size(), 1u);
  EXPECT_EQ(r.input.gpus[0].latest().temperature_c, 45);
  EXPECT_TRUE(r.input.nvml_loaded);
  EXPECT_EQ(r.input.driver_version, "550.90.07");
  EXPECT_EQ(r.input.cuda_driver_version, 12040);
  ASSERT_TRUE(r.input.kernel.has_value());
  ASSERT_EQ(r.input.kernel->events.size(), 1u);
  EXPECT_EQ(r.input.kernel->events[0].code, 13);
  EXPECT_EQ(r.input.kernel->events[0].source.file, f.path);
  EXPECT_EQ(r.input.hostname, "gpu-node-7");
  EXPECT_EQ(r.input.kernel_release, "5.15.0-97-generic");
}

TEST(AnalyzeFiles, FailedNvidiaSmiInBugReportIsAReadingWithoutNvml) {
  TempDir dir;
  std::string failed =
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make "
      "sure that the latest NVIDIA driver is installed and running.\n";
  auto r = AnalyzeFiles({dir.Write("r.log", SyntheticBugReport(failed))}, Config{});
  ASSERT_TRUE(FileOf(r, 0).ok) << FileOf(r, 0).error;
  EXPECT_TRUE(r.input.gpu_readings);
  EXPECT_FALSE(r.input.nvml_loaded);
  EXPECT_EQ(r.input.nvml_error, failed.substr(0, failed.size() - 1));
  EXPECT_TRUE(r.input.gpus.empty());
  EXPECT_EQ(r.input.driver_version, "550.90.07");  // from /proc/driver/nvidia/version
}

TEST(AnalyzeFiles, YearlessLogStampsTakeTheDumpsYear) {
  TempDir dir;
  std::string syslog =
      "Mar  3 10:01:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', "
      "name=<unknown>, An uncorrectable double bit error (DBE) has been detected\n";
  auto r = AnalyzeFiles({dir.Write("kern.log", syslog), dir.Write("q.xml", kXml)}, Config{});
  ASSERT_TRUE(r.input.kernel.has_value());
  ASSERT_EQ(r.input.kernel->events.size(), 1u);
  ASSERT_TRUE(r.input.kernel->events[0].time.has_value());
  EXPECT_EQ(FormatRfc3339(*r.input.kernel->events[0].time), "2025-03-03T10:01:00Z");
}

TEST(AnalyzeFiles, EventsFromSeveralLogsAreMergedByTime) {
  TempDir dir;
  std::string later =
      "[Mon Mar  3 11:00:00 2025] NVRM: Xid (PCI:0000:3b:00): 31, pid=7, "
      "name=python3, Ch 00000010, MMU Fault\n";
  std::string undated = "NVRM: Xid (PCI:0000:3b:00): 43, pid=8, name=python3, Ch 00000010\n";
  auto r = AnalyzeFiles(
      {dir.Write("c.log", undated), dir.Write("b.log", later), dir.Write("a.log", kDmesgT)},
      Config{});
  ASSERT_TRUE(r.input.kernel.has_value());
  const auto& ev = r.input.kernel->events;
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].code, 79);
  EXPECT_EQ(ev[2].code, 31);
  EXPECT_EQ(ev[3].code, 43);  // no time: after those with one
  EXPECT_FALSE(ev[3].time.has_value());
  EXPECT_EQ(r.input.kernel->sources.size(), 3u);
}

}  // namespace
}  // namespace gpudoctor
