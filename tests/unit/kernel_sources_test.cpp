// Kernel-log sources: files (plain, gzip, bug reports), /dev/kmsg under a
// fake root, and the journal's "not available" path.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>

#include "collect/journal.h"
#include "collect/kernel_log_files.h"
#include "collect/kmsg.h"
#include "parse/kernel_events.h"

namespace gpudoctor {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gpudoctor-klog-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void Write(const fs::path& p, const std::string& text, bool append = false) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, append ? std::ios::app : std::ios::trunc);
  out << text;
}

const char* kLog =
    "[  1.0] usb 1-1: new device\n"
    "[  2.0] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
    "[  2.1] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n";

TEST(KernelLogFiles, GzipIsRecognisedByMagicNotName) {
  TempDir dir;
  fs::path gz = dir.path() / "kern.log.1";  // no .gz suffix on purpose
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzputs(f, kLog);
  gzclose(f);
  auto lines = ReadLogFile(gz);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 3u);
  EXPECT_EQ((*lines)[1].text,
            "[  2.0] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
  EXPECT_EQ((*lines)[1].ref.line, 2u);
  EXPECT_EQ((*lines)[1].ref.file, gz.string());
  auto events = ExtractKernelEvents(*lines);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].code, 79);
}

TEST(KernelLogFiles, CorruptGzipAndMissingFilesNameTheFile) {
  TempDir dir;
  fs::path bad = dir.path() / "bad.gz";
  Write(bad, std::string("\x1f\x8b\x08\x00garbage-not-deflate", 23));
  auto r = ReadLogFile(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bad.gz"), std::string::npos) << r.error().message;
  auto missing = ReadLogFile(dir.path() / "nope.log");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("nope.log"), std::string::npos);
}

TEST(KernelLogFiles, TruncatedGzipIsAnError) {
  TempDir dir;
  fs::path whole = dir.path() / "whole.gz";
  gzFile f = gzopen(whole.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 2000; ++i) gzputs(f, kLog);
  gzclose(f);
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::path cut = dir.path() / "cut.gz";
  Write(cut, bytes.substr(0, bytes.size() - 8));  // the CRC and length trailer are gone
  auto r = ReadLogFile(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cut.gz: gzip data truncated"), std::string::npos)
      << r.error().message;
}

TEST(KernelLogFiles, ALogQuotingTheBugReportScriptIsStillALog) {
  // The Xid 79 crash-dump message asks the user to run nvidia-bug-report.sh;
  // that does not make the kernel log a bug report.
  TempDir dir;
  fs::path log = dir.path() / "dmesg.log";
  Write(log, std::string(kLog) +
                 "[  2.2] NVRM: A GPU crash dump has been created. If possible, please run\n"
                 "[  2.2] NVRM: nvidia-bug-report.sh as root to collect this data before\n");
  auto lines = ReadKernelLogFile(log);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  EXPECT_EQ(lines->size(), 5u);
  EXPECT_FALSE(ExtractKernelEvents(*lines).empty());
}

TEST(KernelLogFiles, SizeLimit) {
  TempDir dir;
  fs::path big = dir.path() / "big.log";
  Write(big, std::string(3u << 20, 'x') + "\n");
  auto r = ReadLogFile(big, 1u << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("big.log: larger than the 1 MiB limit"), std::string::npos)
      << r.error().message;
}

TEST(KernelLogFiles, StreamingKeepsLinesWholeAcrossSmallChunks) {
  TempDir dir;
  fs::path p = dir.path() / "k.log";
  std::string text;
  for (int i = 0; i < 500; ++i)
    text += "line " + std::to_string(i) + std::string(i % 37, '.') + "\n";
  text += std::string(300, 'L') + "\nlast line without newline";
  Write(p, text);
  std::string joined;
  std::size_t chunks = 0;
  std::size_t previous = 0;
  auto r = StreamLogFile(
      p,
      [&](std::string_view chunk) {
        ++chunks;
        // Whole lines, except the pieces of a line longer than a chunk,
        // which streams in pieces of a full buffer (the chunk and one byte).
        if (!joined.empty() && previous != 65) {
          EXPECT_EQ(joined.back(), '\n');
        }
        previous = chunk.size();
        joined.append(chunk);
      },
      0, 64);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, text.size());
  EXPECT_EQ(joined, text);
  EXPECT_GT(chunks, 10u);
}

TEST(KernelLogFiles, BugReportKernelSections) {
  TempDir dir;
  const std::string sep = "____________________________________________\n";
  std::string report = sep +
                       "\nStart of NVIDIA bug report log file.\n\n"
                       "nvidia-bug-report.sh Version: 31831145\n\n" +
                       sep +
                       "\n*** /etc/issue\n*** ls: -rw-r--r-- 1 root root 20 /etc/issue\n"
                       "NVRM: not a kernel section\n\n" +
                       sep + "\njournalctl -b -0 _COMM=Xorg\n\nNVRM: Xorg, not kernel\n\n" + sep +
                       "\nScanning kernel log files for NVIDIA kernel messages:\n\n"
                       "  journalctl -b -0:\n"
                       "May 18 19:02:39 host kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=5, "
                       "name=a, Graphics Exception\n\n" +
                       sep +
                       "\ndmesg:\n\n"
                       "[  5.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  x\n"
                       "[  9.0] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x40:894)\n\n" +
                       sep + "\n*** /proc/cmdline\nNVRM: also not kernel\n";
  fs::path p = dir.path() / "nvidia-bug-report.log.gz";
  gzFile f = gzopen(p.c_str(), "wb");
  gzwrite(f, report.data(), static_cast<unsigned>(report.size()));
  gzclose(f);
  auto lines = ReadKernelLogFile(p);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 3u);
  EXPECT_NE((*lines)[0].text.find("Xid"), std::string::npos);
  EXPECT_EQ((*lines)[0].ref.line, 24u);  // line numbers point into the report
  auto events = ExtractKernelEvents(*lines);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kXid);
  EXPECT_EQ(events[1].detail, "535.183.01");
  EXPECT_EQ(events[2].kind, KernelEventKind::kRmInitFailed);
  EXPECT_EQ(events[2].source.line, 31u);
}

TEST(KernelLogFiles, RealBugReportExcerpt) {
  fs::path p =
      fs::path(SHARED_DIR) / "fixtures/other/bugreport-rtx3060-laptop-arch-2022-header-excerpt.log";
  if (!fs::exists(p)) GTEST_SKIP() << "shared fixtures not found at " << p;
  auto all = ReadLogFile(p);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(LooksLikeBugReport(*all));
  // The excerpt holds only header sections and an Xorg journal section: no kernel lines.
  EXPECT_TRUE(BugReportKernelLines(*all).empty());
  EXPECT_FALSE(LooksLikeBugReport(std::vector<LogLine>{LogLine{kLog, {}, {}, {}}}));
}

CollectContext FakeRoot(const TempDir& dir) {
  Write(dir.path() / "proc/stat", "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n");
  CollectContext ctx;
  ctx.root = dir.path();
  return ctx;
}

TEST(Kmsg, ParsesRecordsSkipsDictionaryAndConvertsTimes) {
  TempDir dir;
  auto ctx = FakeRoot(dir);
  Write(dir.path() / "dev/kmsg",
        "6,100,5000000,-;usb 1-1: new device\n"
        " SUBSYSTEM=usb\n"
        " DEVICE=c189:1\n"
        "4,101,9370042162,-;NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n");
  KmsgFollower follower(ctx);
  auto batch = follower.Poll();
  EXPECT_TRUE(batch.status.available) << batch.status.why;
  ASSERT_EQ(batch.lines.size(), 2u);
  EXPECT_EQ(batch.lines[1].text, "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
  EXPECT_DOUBLE_EQ(*batch.lines[1].monotonic_s, 9370.042162);
  EXPECT_EQ(*batch.lines[1].time,
            WallTime(std::chrono::seconds(1700000000)) + std::chrono::microseconds(9370042162));
  EXPECT_EQ(follower.last_seq(), 101u);
  EXPECT_EQ(batch.lost, 0u);
}

TEST(Kmsg, FollowerNeverRereadsAndCountsGaps) {
  TempDir dir;
  auto ctx = FakeRoot(dir);
  fs::path kmsg = dir.path() / "dev/kmsg";
  Write(kmsg, "6,1,10,-;first\n6,2,20,-;second\n");
  KmsgFollower follower(ctx);
  EXPECT_EQ(follower.Poll().lines.size(), 2u);
  EXPECT_TRUE(follower.Poll().lines.empty());  // nothing new
  // A record split across two writes, then a jump from seq 3 to 7.
  Write(kmsg, "6,3,30,-;thi", true);
  EXPECT_TRUE(follower.Poll().lines.empty());
  Write(kmsg, "rd\n6,7,70,-;seventh\n", true);
  auto batch = follower.Poll();
  ASSERT_EQ(batch.lines.size(), 2u);
  EXPECT_EQ(batch.lines[0].text, "third");
  EXPECT_EQ(batch.lost, 3u);
  EXPECT_EQ(follower.lost_total(), 3u);
  EXPECT_EQ(follower.last_seq(), 7u);
}

TEST(Kmsg, MissingDeviceIsReportedNotThrown) {
  TempDir dir;
  CollectContext ctx;
  ctx.root = dir.path();
  auto batch = ReadKmsg(ctx);
  EXPECT_FALSE(batch.status.available);
  EXPECT_NE(batch.status.why.find("/dev/kmsg"), std::string::npos);
  EXPECT_EQ(batch.status.why.find(dir.path().string()), std::string::npos);  // no root prefix
}

TEST(Kmsg, RecordParser) {
  auto r = ParseKmsgRecord("12,9921,9370042162,-,caller=T1;NVRM: x");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->level, 4);
  EXPECT_EQ(r->seq, 9921u);
  EXPECT_EQ(r->message, "NVRM: x");
  EXPECT_FALSE(ParseKmsgRecord(" SUBSYSTEM=pci").has_value());
}

TEST(Journal, NotAvailableUnderAFakeRootWithoutJournal) {
  TempDir dir;
  CollectContext ctx;
  ctx.root = dir.path();
  auto batch = ReadJournalKernel(ctx);
  EXPECT_FALSE(batch.status.available);
  EXPECT_EQ(batch.status.source, "journal");
  EXPECT_NE(batch.status.why.find("not available"), std::string::npos);
  EXPECT_TRUE(batch.lines.empty());
}

TEST(Journal, EmptyJournalDirectoryReadsNothing) {
  TempDir dir;
  fs::create_directories(dir.path() / "var/log/journal");
  CollectContext ctx;
  ctx.root = dir.path();
  auto batch = ReadJournalKernel(ctx);
  EXPECT_TRUE(batch.status.available) << batch.status.why;
  EXPECT_TRUE(batch.lines.empty());
}

}  // namespace
}  // namespace gpudoctor
