#include <gtest/gtest.h>

#include "collect/driver_versions.h"
#include "support/fake_service_state.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

constexpr const char* kProc535 =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";

bool HasSource(const DriverFacts& f, const std::string& source, bool available) {
  for (const auto& s : f.sources) {
    if (s.source == source) return s.available == available;
  }
  return false;
}

TEST(DriverVersions, KernelModuleVsLibraryMismatch) {
  test::TempDir root;
  root.Write("proc/driver/nvidia/version", kProc535);
  root.Write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", "");
  root.Write("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "");
  root.Write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "");  // SONAME: no version
  const CollectContext ctx{root.path()};

  const DriverFacts f = CollectDriverVersions(ctx, {});
  ASSERT_TRUE(f.kernel_module);
  EXPECT_EQ(f.kernel_module->version.ToString(), "535.183.01");
  ASSERT_EQ(f.libraries.size(), 2u);
  EXPECT_EQ(f.libraries[0].path, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15");
  EXPECT_EQ(f.libraries[1].library, "libnvidia-ml.so");
  EXPECT_EQ(f.libraries[1].version.ToString(), "550.54.15");
  EXPECT_FALSE(f.libraries[1].matches_kernel_module);
  EXPECT_TRUE(f.version_mismatch);
  ASSERT_EQ(f.mismatch_details.size(), 2u);
  EXPECT_NE(f.mismatch_details[1].find("550.54.15"), std::string::npos);
  EXPECT_EQ(f.effective_version->ToString(), "535.183.01");
  EXPECT_EQ(f.effective_source, "/proc/driver/nvidia/version");
  EXPECT_TRUE(HasSource(f, "/proc/driver/nvidia/version", true));
}

TEST(DriverVersions, MatchingVersionsAndNvml) {
  test::TempDir root;
  root.Write("proc/driver/nvidia/version", kProc535);
  root.Write("usr/lib64/libnvidia-ml.so.535.183.01", "");
  const CollectContext ctx{root.path()};
  DriverCollectOptions opts;
  opts.nvml_version = ParseDriverVersion("535.183.01");
  const DriverFacts ok = CollectDriverVersions(ctx, opts);
  EXPECT_FALSE(ok.version_mismatch);
  ASSERT_EQ(ok.libraries.size(), 1u);
  EXPECT_TRUE(ok.libraries[0].matches_kernel_module);

  opts.nvml_version = ParseDriverVersion("535.161.08");
  const DriverFacts bad = CollectDriverVersions(ctx, opts);
  EXPECT_TRUE(bad.version_mismatch);
  ASSERT_EQ(bad.mismatch_details.size(), 1u);
  EXPECT_NE(bad.mismatch_details[0].find("NVML reports 535.161.08"), std::string::npos);
}

TEST(DriverVersions, NoDriverLoadedIsRecordedNotFailed) {
  test::TempDir root;
  root.Write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.470.74", "");
  const DriverFacts f = CollectDriverVersions(CollectContext{root.path()}, {});
  EXPECT_FALSE(f.kernel_module);
  EXPECT_FALSE(f.version_mismatch);  // nothing to compare with
  EXPECT_EQ(f.effective_version->ToString(), "470.74");
  EXPECT_EQ(f.effective_source, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.470.74");
  ASSERT_FALSE(f.sources.empty());
  EXPECT_EQ(f.sources[0].source, "/proc/driver/nvidia/version");
  EXPECT_FALSE(f.sources[0].available);
  EXPECT_NE(f.sources[0].why.find("not loaded"), std::string::npos);
}

TEST(DriverVersions, LibrariesFromLdSoConfDirs) {
  test::TempDir root;
  root.Write("proc/driver/nvidia/version", kProc535);
  root.Write("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  root.Write("etc/ld.so.conf.d/nvidia.conf", "/opt/nvidia/lib\n");
  root.Write("opt/nvidia/lib/libnvidia-ml.so.535.161.08", "");
  const DriverFacts f = CollectDriverVersions(CollectContext{root.path()}, {});
  ASSERT_EQ(f.libraries.size(), 1u);
  EXPECT_EQ(f.libraries[0].path, "/opt/nvidia/lib/libnvidia-ml.so.535.161.08");
  EXPECT_TRUE(f.version_mismatch);
}

TEST(DriverVersions, GspParamAndFirmwareFiles) {
  test::TempDir root;
  root.Write("proc/driver/nvidia/version", kProc535);
  root.Write("proc/driver/nvidia/params", "Mobile: 4294967295\nEnableGpuFirmware: 0\n");
  root.Write("lib/firmware/nvidia/535.183.01/gsp_ga10x.bin", "x");
  root.Write("lib/firmware/nvidia/535.183.01/gsp_tu10x.bin", "x");
  root.Write("lib/firmware/nvidia/535.183.01/other.bin", "x");
  const DriverFacts f = CollectDriverVersions(CollectContext{root.path()}, {});
  ASSERT_TRUE(f.gsp.enable_gpu_firmware);
  EXPECT_EQ(f.gsp.enable_gpu_firmware->mode, GspMode::kDisabled);
  EXPECT_EQ(f.gsp.firmware_dir, "/lib/firmware/nvidia/535.183.01");
  ASSERT_EQ(f.gsp.firmware_files.size(), 2u);
  EXPECT_EQ(f.gsp.firmware_files[0], "gsp_ga10x.bin");
}

TEST(DriverVersions, PersistencedFromPidFile) {
  test::TempDir root;
  root.Write("var/run/nvidia-persistenced/nvidia-persistenced.pid", "4242\n");
  root.Write("proc/4242/comm", "nvidia-persiste\n");
  const DriverFacts live = CollectDriverVersions(CollectContext{root.path()}, {});
  EXPECT_EQ(live.persistenced.running, true);
  EXPECT_EQ(live.persistenced.pid, 4242u);

  test::TempDir stale;
  stale.Write("var/run/nvidia-persistenced/nvidia-persistenced.pid", "4242\n");
  EXPECT_EQ(CollectDriverVersions(CollectContext{stale.path()}, {}).persistenced.running, false);

  test::TempDir none;
  EXPECT_EQ(CollectDriverVersions(CollectContext{none.path()}, {}).persistenced.running, false);
}

TEST(DriverVersions, PersistencedFromServiceReader) {
  test::TempDir root;
  test::FakeServiceStateReader services;
  ServiceState s;
  s.unit = "nvidia-persistenced.service";
  s.load_state = "loaded";
  s.active_state = "failed";
  s.sub_state = "failed";
  s.exec_main_status = 1;
  services.Set(s);
  DriverCollectOptions opts;
  opts.services = &services;
  const DriverFacts f = CollectDriverVersions(CollectContext{root.path()}, opts);
  EXPECT_EQ(f.persistenced.source, "nvidia-persistenced.service");
  EXPECT_EQ(f.persistenced.running, false);
  EXPECT_EQ(f.persistenced.active_state, "failed");

  // No systemd: falls back to the pid file.
  services.FailWith(Error{ErrorCode::kUnavailable, "system bus: no such file"});
  const DriverFacts g = CollectDriverVersions(CollectContext{root.path()}, opts);
  EXPECT_EQ(g.persistenced.source, "/var/run/nvidia-persistenced/nvidia-persistenced.pid");
  EXPECT_TRUE(HasSource(g, "nvidia-persistenced.service", false));
}

}  // namespace
}  // namespace gpudoctor
