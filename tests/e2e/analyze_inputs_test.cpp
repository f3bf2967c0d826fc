// End-to-end: what `gpudoctor analyze` accepts. Standard input ("-") and
// pipes stream like files; NUL bytes a crash left do not make a log "not a
// log"; a truncated .gz is analysed as far as it decompresses, with a note;
// xz, bzip2 and zstd streams and tar, tar.gz, tar.xz and zip archives are
// read (each finding names the member); a format not read is named; a file
// is refused only when no line of it is recognised; a flood's JSON stays
// small; an XML dump too large to read whole is refused unread.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/analyze_json.h"
#include "support/fixtures.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace analyze_inputs_test_ns {

// A real Xid 79 line (the akash-network/support#209 fixture's shape).
const std::string kXid79 =
    "Apr  5 21:29:39 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
    "name=<unknown>, GPU has fallen off the bus.\n";

std::string SessionNoise(std::size_t lines) {
  std::string out;
  for (std::size_t i = 0; i < lines; ++i)
    out += "Apr  5 21:29:40 node1 systemd[1]: Started Session " + std::to_string(i) + " of user ubuntu.\n";
  return out;
}

struct ArchiveMember {
  std::string name;
  std::string data;
};

// Writes an archive (format: "tar", "zip") or, with format "raw", one
// compressed stream, through libarchive; filter: "gzip", "xz", "bzip2",
// "zstd" or "" for none.
void WriteArchive(const std::string& path, const std::string& format, const std::string& filter,
                  const std::vector<ArchiveMember>& members) {
  archive* a = archive_write_new();
  if (format == "tar") archive_write_set_format_pax_restricted(a);
  if (format == "zip") archive_write_set_format_zip(a);
  if (format == "raw") archive_write_set_format_raw(a);
  if (filter == "gzip") archive_write_add_filter_gzip(a);
  if (filter == "xz") archive_write_add_filter_xz(a);
  if (filter == "bzip2") archive_write_add_filter_bzip2(a);
  if (filter == "zstd") archive_write_add_filter_zstd(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
  for (const ArchiveMember& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
    archive_write_data(a, m.data.data(), m.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::string InputFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Analysed AnalysePaths(const std::vector<std::string>& paths, ProcessOptions options = EnglishOnly()) {
  std::vector<std::string> argv{GPUDOCTOR_BINARY, "analyze", "--format", "json"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  auto r = RunProcess(argv, options);
  Analysed a;
  a.exit_code = r.exit_code;
  a.err = r.err;
  if (!r.out.empty()) a.doc = json::parse(r.out);
  return a;
}

std::size_t XidCount(const json& doc, int code) {
  std::size_t n = 0;
  for (const auto& e : doc["events"]) {
    if (e["kind"] == "xid" && e["code"] == code) n += e["count"].get<std::size_t>();
  }
  return n;
}

TEST(AnalyzeInputs, StandardInputIsRead) {
  ProcessOptions o = EnglishOnly();
  o.stdin_text = SessionNoise(10) + kXid79 + SessionNoise(10);
  auto a = AnalysePaths({"-"}, o);
  ASSERT_EQ(a.exit_code, 2) << a.err;  // critical: a GPU fell off the bus
  EXPECT_EQ(XidCount(a.doc, 79), 1u);
  EXPECT_EQ(a.doc["inputs"][0]["path"], "-");
  EXPECT_EQ(a.doc["inputs"][0]["kind"], "kernel-log");
}

TEST(AnalyzeInputs, APipeStreamsLikeAFile) {
  // <(journalctl -k) hands analyze a pipe: a FIFO here, fed by a writer.
  TempDir dir;
  const std::string fifo = dir.path().string() + "/kern.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::signal(SIGPIPE, SIG_IGN);  // analyze may stop reading early: no signal, a failed write
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << SessionNoise(20000) << kXid79 << SessionNoise(20000);
    out.close();
    done = true;
  });
  auto a = AnalysePaths({fifo});
  // Should analyze have stopped early, let the writer finish: a reader of
  // our own drains the pipe.
  int drain = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  char sink[4096];
  while (!done) {
    if (drain >= 0 && ::read(drain, sink, sizeof sink) <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  writer.join();
  if (drain >= 0) ::close(drain);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(XidCount(a.doc, 79), 1u);
}

TEST(AnalyzeInputs, NulBytesOfACrashDoNotMakeALogNotALog) {
  // The file system zero-fills what a crash did not write: NULs at the
  // start (or anywhere), then the next boot's lines.
  std::string log(8192, '\0');
  log += SessionNoise(5) + kXid79;
  auto a = AnalyseText("syslog", log);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(XidCount(a.doc, 79), 1u);
}

TEST(AnalyzeInputs, ATruncatedGzipIsReadAsFarAsItGoesWithANote) {
  TempDir dir;
  const std::string gz = dir.path().string() + "/kern.log.gz";
  WriteArchive(gz, "raw", "gzip", {{"data", kXid79 + SessionNoise(200000)}});
  std::string bytes = InputFileBytes(gz);
  const std::string cut = dir.Write("cut.log.gz", bytes.substr(0, bytes.size() / 2));
  auto a = AnalysePaths({cut});
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(XidCount(a.doc, 79), 1u);
  ASSERT_TRUE(a.doc["inputs"][0].contains("notes")) << a.doc["inputs"].dump();
  const std::string note = a.doc["inputs"][0]["notes"][0];
  EXPECT_NE(note.find("truncated at byte " + std::to_string(bytes.size() / 2)), std::string::npos)
      << note;
}

TEST(AnalyzeInputs, XzBzip2AndZstdStreamsAreRead) {
  for (const std::string filter : {"xz", "bzip2", "zstd"}) {
    TempDir dir;
    const std::string path = dir.path().string() + "/kern.log.x";
    WriteArchive(path, "raw", filter, {{"data", SessionNoise(100) + kXid79}});
    auto a = AnalysePaths({path});
    EXPECT_EQ(a.exit_code, 2) << filter << ": " << a.err;
    EXPECT_EQ(XidCount(a.doc, 79), 1u) << filter;
  }
}

TEST(AnalyzeInputs, ArchivesAreReadMemberByMember) {
  const std::string smi_excerpt =
      "    Clocks Event Reasons\n"
      "        Idle                              : Not Active\n"
      "        HW Slowdown                       : Active\n"
      "        HW Power Brake Slowdown           : Active\n";
  for (const auto& [format, filter] : std::vector<std::pair<std::string, std::string>>{
           {"tar", ""}, {"tar", "gzip"}, {"tar", "xz"}, {"zip", ""}}) {
    TempDir dir;
    const std::string path = dir.path().string() + "/sosreport";
    WriteArchive(path, format, filter,
                 {{"sos_commands/README", "nothing here\n"},
                  {"var/log/kern.log", SessionNoise(50) + kXid79},
                  {"sos_commands/nvidia/nvidia-smi_-q", smi_excerpt}});
    auto a = AnalysePaths({path});
    ASSERT_EQ(a.exit_code, 2) << format << "+" << filter << ": " << a.err;
    EXPECT_EQ(XidCount(a.doc, 79), 1u);
    bool named = false;
    for (const auto& e : a.doc["events"]) {
      named = named || e["source"]["file"] == path + ":var/log/kern.log";
    }
    EXPECT_TRUE(named) << a.doc["events"].dump();
    EXPECT_NE(FindingOf(a.doc, "power.brake"), nullptr) << format << "+" << filter;
    EXPECT_EQ(a.doc["inputs"][0]["kind"], "archive");
  }
}

TEST(AnalyzeInputs, AFormatNotReadIsNamed) {
  auto a = AnalyseText("screenshot.log", std::string("\x89PNG\r\n\x1a\n", 8) + std::string(100, '\x01'));
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_NE(a.err.find("a PNG image"), std::string::npos) << a.err;
}

TEST(AnalyzeInputs, AnXmlDumpTooLargeToReadWholeIsRefusedUnread) {
  TempDir dir;
  const std::string path = dir.path().string() + "/huge.xml";
  {
    std::ofstream out(path, std::ios::binary);
    out << "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n";
  }
  std::filesystem::resize_file(path, 64ull << 30);  // sparse: 64 GiB never written
  auto a = AnalysePaths({path});
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_NE(a.err.find("refused unread: 65536 MiB"), std::string::npos) << a.err;
}

TEST(AnalyzeInputs, AFloodsJsonGrowsWithCausesNotLines) {
  // 200000 Xid 79 lines of one GPU from 4096 processes.
  std::string log;
  char buf[200];
  for (int i = 0; i < 200000; ++i) {
    std::snprintf(buf, sizeof buf,
                  "Feb 15 17:%02d:%02d node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=%d, "
                  "name=python3, GPU has fallen off the bus.\n",
                  (i / 60000) % 60, (i / 1000) % 60, 10000 + i % 4096);
    log += buf;
  }
  TempDir dir;
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", dir.Write("flood.log", log)},
                      EnglishOnly());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(r.out.size(), 256u << 10);
  json doc = json::parse(r.out);
  EXPECT_EQ(XidCount(doc, 79), 200000u);
}

// Issue: "a file is refused only when no line of it is recognised".
TEST(AnalyzeInputs, FabricManagerOutputWithoutStampsIsRead) {
  // `journalctl -u nvidia-fabricmanager -o cat`: the lines of the
  // cube-studio#29 fixture without their journal prefix.
  std::string fixture =
      ReadFixtureFile("kernel", "cube-studio-issue-29-fabricmanager-start-failed-rtx4090.log");
  if (fixture.empty()) GTEST_SKIP() << "shared fixtures not found";
  std::string cat;
  for (std::size_t pos = 0; pos < fixture.size();) {
    std::size_t nl = fixture.find('\n', pos);
    std::string line = fixture.substr(pos, nl - pos);
    pos = nl == std::string::npos ? fixture.size() : nl + 1;
    std::size_t colon = line.find("]: ");
    if (colon != std::string::npos) cat += line.substr(colon + 3) + "\n";
  }
  ASSERT_FALSE(cat.empty());
  auto a = AnalyseText("fm.txt", cat);
  ASSERT_NE(a.exit_code, 3) << a.err << "\n" << cat;
  bool fm = false;
  for (const auto& e : a.doc["events"]) fm = fm || e["kind"] == "fabricmanager_error";
  EXPECT_TRUE(fm) << a.doc["events"].dump();
}

TEST(AnalyzeInputs, AnNvidiaSmiExcerptInsideAGpuBlockIsRead) {
  // Only the Clocks Throttle Reasons section of `nvidia-smi -q`, as pasted
  // in forum threads (older drivers' name for Clocks Event Reasons).
  const std::string excerpt =
      "    Clocks Throttle Reasons\n"
      "        Idle                              : Not Active\n"
      "        Applications Clocks Setting       : Not Active\n"
      "        SW Power Cap                      : Not Active\n"
      "        HW Slowdown                       : Active\n"
      "            HW Thermal Slowdown           : Not Active\n"
      "            HW Power Brake Slowdown       : Active\n"
      "        Sync Boost                        : Not Active\n"
      "        SW Thermal Slowdown               : Not Active\n";
  auto a = AnalyseText("throttle.txt", excerpt);
  ASSERT_NE(a.exit_code, 3) << a.err;
  EXPECT_NE(FindingOf(a.doc, "power.brake"), nullptr) << a.doc["findings"].dump();
  // The reason lines alone, without the section's header.
  auto b = AnalyseText("brake.txt", "HW Power Brake Slowdown : Active\n");
  ASSERT_NE(b.exit_code, 3) << b.err;
  EXPECT_NE(FindingOf(b.doc, "power.brake"), nullptr) << b.doc["findings"].dump();
}

TEST(AnalyzeInputs, KindComesFromLinesNotTheFirst64KiB) {
  // 100 KiB of text no log has, then kernel lines.
  std::string text;
  while (text.size() < (100u << 10)) text += "col_a,col_b,col_c,1,2,3\n";
  text += kXid79;
  auto a = AnalyseText("mixed.txt", text);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(XidCount(a.doc, 79), 1u);
  // No line recognised at all: still refused, with the one-line error.
  auto none = AnalyseText("table.csv", "col_a,col_b\n1,2\n");
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_NE(none.err.find("not an nvidia-smi, bug report or kernel log file"), std::string::npos)
      << none.err;
}

}  // namespace
}  // namespace gpudoctor::test
