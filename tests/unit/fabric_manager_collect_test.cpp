#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "collect/fabric_manager.h"
#include "support/fake_service_state.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

ServiceState FmState(const char* active, const char* sub, int status) {
  ServiceState s;
  s.unit = "nvidia-fabricmanager.service";
  s.load_state = "loaded";
  s.active_state = active;
  s.sub_state = sub;
  s.exec_main_status = status;
  s.main_pid = 0;
  return s;
}

void WriteNvSwitch(const test::TempDir& root, const std::string& bdf) {
  root.Write("sys/bus/pci/devices/" + bdf + "/vendor", "0x10de\n");
  root.Write("sys/bus/pci/devices/" + bdf + "/class", "0x068000\n");
}

TEST(FabricManagerCollect, InactiveWithNvSwitchesPresent) {
  test::TempDir root;
  WriteNvSwitch(root, "0000:05:00.0");
  WriteNvSwitch(root, "0000:06:00.0");
  root.Write("sys/bus/pci/devices/0000:3b:00.0/vendor", "0x10de\n");  // a GPU
  root.Write("sys/bus/pci/devices/0000:3b:00.0/class", "0x030200\n");
  root.Write("sys/bus/pci/devices/0000:00:1f.0/vendor", "0x8086\n");
  root.Write("sys/bus/pci/devices/0000:00:1f.0/class", "0x068000\n");  // Intel bridge
  const CollectContext ctx{root.path()};
  auto count = CountNvSwitchesInSysfs(ctx);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 2);

  test::FakeServiceStateReader services;
  services.Set(FmState("failed", "failed", 1));
  FabricManagerOptions opts;
  opts.nvswitch_present = *count > 0;
  opts.services = &services;
  const FabricManagerFacts f = CollectFabricManager(ctx, opts);
  EXPECT_TRUE(f.nvswitch_present);
  ASSERT_TRUE(f.service);
  EXPECT_FALSE(f.service->Running());
  EXPECT_EQ(f.service->active_state, "failed");
  EXPECT_EQ(f.service->exec_main_status, 1);
  EXPECT_EQ(services.reads(), 1);
  // No log at the default path: recorded, not failed.
  EXPECT_EQ(f.log_path, "/var/log/fabricmanager.log");
  EXPECT_FALSE(f.log);
  bool log_recorded = false;
  for (const auto& s : f.sources)
    log_recorded |= s.source == "/var/log/fabricmanager.log" && !s.available;
  EXPECT_TRUE(log_recorded);
}

TEST(FabricManagerCollect, NotInstalledAndNoSysfs) {
  test::TempDir root;
  EXPECT_FALSE(CountNvSwitchesInSysfs(CollectContext{root.path()}).ok());
  test::FakeServiceStateReader services;  // answers "not-found"
  FabricManagerOptions opts;
  opts.services = &services;
  const FabricManagerFacts f = CollectFabricManager(CollectContext{root.path()}, opts);
  ASSERT_TRUE(f.service);
  EXPECT_FALSE(f.service->Installed());
  EXPECT_FALSE(f.version);
  EXPECT_FALSE(f.version_matches_driver);
}

TEST(FabricManagerCollect, VersionFromDpkgDiffersFromDriver) {
  test::TempDir root;
  root.Write("var/lib/dpkg/status",
             "Package: nvidia-fabricmanager-535\nStatus: install ok installed\n"
             "Version: 535.161.08-1\n\n");
  FabricManagerOptions opts;
  opts.nvswitch_present = true;
  opts.driver = ParseDriverVersion("535.183.01");
  const FabricManagerFacts f = CollectFabricManager(CollectContext{root.path()}, opts);
  EXPECT_EQ(f.version, "535.161.08");
  EXPECT_NE(f.version_source.find("nvidia-fabricmanager-535 535.161.08-1"), std::string::npos);
  EXPECT_EQ(f.version_matches_driver, false);
  EXPECT_FALSE(f.service);  // no reader: recorded as not available
  EXPECT_FALSE(f.sources.front().available);

  opts.driver = ParseDriverVersion("535.161.08");
  EXPECT_EQ(CollectFabricManager(CollectContext{root.path()}, opts).version_matches_driver, true);
}

TEST(FabricManagerCollect, LogErrorsWithConfiguredPath) {
  test::TempDir root;
  root.Write("usr/share/nvidia/nvswitch/fabricmanager.cfg",
             "LOG_LEVEL=4\nLOG_FILE_NAME=/var/log/fm/fm.log\n");
  root.Write(
      "var/log/fm/fm.log",
      "[Jul 09 2024 18:14:07] [INFO] [tid 12727] Fabric Manager starting\n"
      "[Jul 09 2024 18:14:08] [ERROR] [tid 12727] fabric manager NVIDIA GPU driver interface "
      "version 535.161.08 don't match with driver version 535.183.01. Please update with "
      "matching NVIDIA driver package.\n"
      "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 "
      "on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33\n");
  const FabricManagerFacts f = CollectFabricManager(CollectContext{root.path()}, {});
  EXPECT_EQ(f.log_path, "/var/log/fm/fm.log");
  ASSERT_TRUE(f.log);
  EXPECT_EQ(f.log->error_count, 2u);
  ASSERT_EQ(f.log->last_errors.size(), 2u);
  EXPECT_EQ(f.log->last_errors[1].line_number, 3u);
  EXPECT_EQ(f.log->last_errors[1].entry.tid, 841u);
  ASSERT_TRUE(f.log->version_mismatch);
  EXPECT_EQ(f.log->version_mismatch->fm_version, "535.161.08");
  EXPECT_EQ(f.log_skipped_bytes, 0u);
}

TEST(FabricManagerCollect, LargeLogScannedFromTail) {
  test::TempDir root;
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += "[Jan 01 2025 00:00:00] [ERROR] [tid " + std::to_string(i) + "] error " +
            std::to_string(i) + "\n";
  }
  root.Write("var/log/fabricmanager.log", text);
  FabricManagerOptions opts;
  opts.max_log_bytes = 1000;
  opts.max_log_errors = 3;
  const FabricManagerFacts f = CollectFabricManager(CollectContext{root.path()}, opts);
  ASSERT_TRUE(f.log);
  EXPECT_EQ(f.log_skipped_bytes, text.size() - 1000);
  EXPECT_LT(f.log->error_count, 25u);  // only the tail
  ASSERT_EQ(f.log->last_errors.size(), 3u);
  EXPECT_EQ(f.log->last_errors[2].entry.message, "error 199");
  // The cut first line of the tail is dropped, never half-parsed.
  EXPECT_EQ(f.log->lines, f.log->entries);
}

TEST(FabricManagerCollect, RealFabricManagerLogFixture) {
  const std::filesystem::path fixture =
      std::filesystem::path(SHARED_DIR) /
      "fixtures/kernel/gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log";
  std::ifstream in(fixture);
  if (!in) GTEST_SKIP() << "fixture not found: " << fixture;
  std::stringstream ss;
  ss << in.rdbuf();
  test::TempDir root;
  root.Write("var/log/fabricmanager.log", ss.str());
  const FabricManagerFacts f = CollectFabricManager(CollectContext{root.path()}, {});
  ASSERT_TRUE(f.log);
  ASSERT_EQ(f.log->last_errors.size(), 1u);
  EXPECT_NE(f.log->last_errors[0].entry.message.find("non-fatal error 12028"), std::string::npos);
  EXPECT_EQ(f.log->last_errors[0].entry.time_text, "Feb 27 2025 15:10:02");
}

}  // namespace
}  // namespace gpudoctor
