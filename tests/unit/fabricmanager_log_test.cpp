#include "parse/fabricmanager_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "parse/dpkg_status.h"

namespace gpudoctor {
namespace {

TEST(FmLogLine, EntryFields) {
  auto e = ParseFmLogLine(
      "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on "
      "NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->time_text, "Jul 23 2024 07:53:55");
  EXPECT_EQ(e->level, "ERROR");
  EXPECT_EQ(e->tid, 841u);
  EXPECT_EQ(e->message.substr(0, 38), "detected NVSwitch fatal error 20034 on");
  auto info =
      ParseFmLogLine("[Feb 25 2025 13:59:45] [INFO] [tid 1803] multicast group 0 is freed.\r");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->level, "INFO");
  EXPECT_EQ(info->message, "multicast group 0 is freed.");
  auto notid = ParseFmLogLine("[Feb 25 2025 13:59:45] [WARNING] something");
  ASSERT_TRUE(notid);
  EXPECT_FALSE(notid->tid);
  EXPECT_FALSE(ParseFmLogLine("Message payload details:Team release request: Team Handle:99c9"));
  EXPECT_FALSE(ParseFmLogLine(""));
  EXPECT_FALSE(ParseFmLogLine("[  123.456] NVRM: Xid (PCI:0000:3b:00): 79"));
}

TEST(FmLogLine, VersionMismatchWordings) {
  auto old = ParseFmVersionMismatch(
      "nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 "
      "don't match with driver version 530.41.03. Please update with matching NVIDIA driver "
      "package.");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->fm_version, "530.30.02");
  EXPECT_EQ(old->driver_version, "530.41.03");
  auto newer = ParseFmVersionMismatch(
      "fabric manager NVIDIA GPU driver interface version 550.127.05 doesn't match with driver "
      "version 550.120. Please update with the matching NVIDIA driver package.");
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->driver_version, "550.120");
  EXPECT_FALSE(ParseFmVersionMismatch("successfully setup multicast team"));
}

TEST(FmVersionOutput, Parse) {
  EXPECT_EQ(ParseFmVersionOutput("\n\n\tFabric Manager version is : 535.161.08\n\n"), "535.161.08");
  EXPECT_EQ(ParseFmVersionOutput("Fabric Manager version is : 450.102.04"), "450.102.04");
  EXPECT_FALSE(ParseFmVersionOutput("nv-fabricmanager: command not found"));
}

TEST(FmConfig, LogPath) {
  EXPECT_EQ(FmLogPathFromConfig("LOG_LEVEL=4\nLOG_FILE_NAME=/var/log/fm/custom.log\n"),
            "/var/log/fm/custom.log");
  EXPECT_EQ(FmLogPathFromConfig("LOG_FILE_NAME=\n"), "/var/log/fabricmanager.log");
  EXPECT_EQ(FmLogPathFromConfig("# LOG_FILE_NAME=/x\n"), "/var/log/fabricmanager.log");
  EXPECT_EQ(FmLogPathFromConfig(""), "/var/log/fabricmanager.log");
}

TEST(FmLogScan, ContinuationLinesAndRing) {
  const char* text =
      "[Jan 01 2025 00:00:01] [INFO] [tid 1] start\n"
      "[Jan 01 2025 00:00:02] [ERROR] [tid 2] first error\n"
      "  continued detail\n"
      "[Jan 01 2025 00:00:03] [WARNING] [tid 3] warn\n"
      "[Jan 01 2025 00:00:04] [ERROR] [tid 4] second error\n"
      "[Jan 01 2025 00:00:05] [CRITICAL] [tid 5] third error\n";
  const auto s = ScanFabricManagerLog(text, 2);
  EXPECT_EQ(s.lines, 6u);
  EXPECT_EQ(s.entries, 5u);
  EXPECT_EQ(s.error_count, 3u);
  EXPECT_EQ(s.warning_count, 1u);
  ASSERT_EQ(s.last_errors.size(), 2u);
  EXPECT_EQ(s.last_errors[0].line_number, 5u);
  EXPECT_EQ(s.last_errors[0].entry.message, "second error");
  EXPECT_EQ(s.last_errors[1].entry.level, "CRITICAL");
  EXPECT_EQ(s.first_time_text, "Jan 01 2025 00:00:01");
  const auto all = ScanFabricManagerLog(text, 10);
  EXPECT_EQ(all.last_errors[0].entry.message, "first error continued detail");
}

std::string ReadFixture(const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(SHARED_DIR) / "fixtures/kernel" / name;
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FmLogScan, RealLogFromGpud) {
  const std::string text =
      ReadFixture("gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log");
  if (text.empty()) GTEST_SKIP() << "fixture not found below " << SHARED_DIR;
  const auto s = ScanFabricManagerLog(text, 20);
  EXPECT_EQ(s.error_count, 1u);
  EXPECT_EQ(s.warning_count, 0u);
  ASSERT_EQ(s.last_errors.size(), 1u);
  const auto& e = s.last_errors[0];
  EXPECT_EQ(e.entry.time_text, "Feb 27 2025 15:10:02");
  EXPECT_EQ(e.entry.tid, 12727u);
  EXPECT_NE(e.entry.message.find("non-fatal error 12028"), std::string::npos);
  EXPECT_NE(e.entry.message.find("00000000:86:00.0"), std::string::npos);
  // The error is the file's last non-empty line.
  std::string_view body = text;
  while (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  std::size_t last_line = 1;
  for (char c : body) last_line += c == '\n';
  EXPECT_EQ(e.line_number, last_line);
  EXPECT_EQ(s.first_time_text, "Feb 25 2025 13:59:45");
  EXPECT_GT(s.entries, 40u);  // multi-line payloads are not entries
  EXPECT_LT(s.entries, s.lines);
}

TEST(FmLogScan, JournalFixturesAreNotLogEntries) {
  const std::string text =
      ReadFixture("gpu-operator-issue-610-fabricmanager-nv-warn-nothing-to-do-a40.log");
  if (text.empty()) GTEST_SKIP() << "fixture not found below " << SHARED_DIR;
  // Journal lines belong to the kernel/journal parser, not to fabricmanager.log.
  const auto s = ScanFabricManagerLog(text, 20);
  EXPECT_EQ(s.entries, 0u);
  EXPECT_GT(s.lines, 0u);
}

TEST(DpkgStatus, InstalledPackagesOnly) {
  const char* status =
      "Package: nvidia-fabricmanager-535\n"
      "Status: install ok installed\n"
      "Priority: optional\n"
      "Version: 535.183.01-1\n"
      "Description: Fabric Manager for NVSwitch based systems.\n"
      " continuation line: Version: 1.0\n"
      "\n"
      "Package: nvidia-fabricmanager-550\n"
      "Status: deinstall ok config-files\n"
      "Version: 550.54.15-1\n"
      "\n"
      "Package: libc6\n"
      "Status: install ok installed\n"
      "Version: 2.36-9\n";
  const auto pkgs = FindInstalledDpkgPackages(status, "nvidia-fabricmanager");
  ASSERT_EQ(pkgs.size(), 1u);
  EXPECT_EQ(pkgs[0].name, "nvidia-fabricmanager-535");
  EXPECT_EQ(pkgs[0].upstream_version, "535.183.01");
  EXPECT_EQ(DpkgUpstreamVersion("1:535.183.01-0ubuntu1"), "535.183.01");
  EXPECT_EQ(DpkgUpstreamVersion("535.183.01"), "535.183.01");
  EXPECT_EQ(FindInstalledDpkgPackages(status, "libc").size(), 1u);
}

}  // namespace
}  // namespace gpudoctor
