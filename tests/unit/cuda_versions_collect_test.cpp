#include <gtest/gtest.h>

#include <filesystem>

#include "collect/cuda_versions.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

TEST(CudaVersionsCollect, ToolkitsRuntimesAgainstDriver) {
  test::TempDir root;
  root.Write("usr/local/cuda-12.4/version.json",
             R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}})");
  root.Write("usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", "");
  root.Write("usr/local/cuda-11.8/version.json",
             R"({"cuda": {"name": "CUDA SDK", "version": "11.8.0"}})");
  root.Write("usr/local/cuda-10.1/version.txt", "CUDA Version 10.1.243\n");
  root.Write("usr/local/cuda-broken/README", "no version file");
  std::filesystem::create_symlink("cuda-12.4", root.path() / "usr/local/cuda");
  // SONAME links are skipped; the real file is reported once.
  std::filesystem::create_symlink("libcudart.so.12.4.127",
                                  root.path() / "usr/local/cuda-12.4/lib64/libcudart.so.12");
  root.Write("opt/app/lib/libcudart.so.11.8.89", "");
  root.Write("etc/ld.so.conf.d/app.conf", "/opt/app/lib\n");
  root.Write("etc/ld.so.conf", "include ld.so.conf.d/*.conf\n");  // relative include

  CudaCollectOptions opts;
  opts.driver = ParseDriverVersion("535.183.01");
  const CudaFacts f = CollectCudaVersions(CollectContext{root.path()}, opts);

  EXPECT_EQ(f.driver_max_cuda->ToString(), "12.2");
  ASSERT_EQ(f.toolkits.size(), 3u);
  EXPECT_EQ(f.toolkits[0].path, "/usr/local/cuda-10.1");
  EXPECT_EQ(f.toolkits[0].version.ToString(), "10.1.243");
  EXPECT_EQ(f.toolkits[0].on_driver->support, CudaSupport::kSupported);
  EXPECT_EQ(f.toolkits[2].version.ToString(), "12.4.1");
  EXPECT_EQ(f.toolkits[2].path, "/usr/local/cuda-12.4");  // not the /usr/local/cuda link
  EXPECT_TRUE(f.toolkits[2].is_default);
  EXPECT_FALSE(f.toolkits[1].is_default);
  EXPECT_EQ(f.toolkits[2].on_driver->support, CudaSupport::kMinorCompatOnly);
  EXPECT_EQ(f.toolkits[2].on_driver->min_driver->ToString(), "550.54.15");

  bool broken_recorded = false;
  for (const auto& s : f.sources) {
    if (s.source == "/usr/local/cuda-broken") broken_recorded = !s.available;
  }
  EXPECT_TRUE(broken_recorded);
  EXPECT_FALSE(f.nvcc);  // never run under a fake root

  ASSERT_EQ(f.runtimes.size(), 2u);
  EXPECT_EQ(f.runtimes[0].path, "/opt/app/lib/libcudart.so.11.8.89");
  EXPECT_EQ(f.runtimes[0].origin, "/etc/ld.so.conf.d/app.conf");
  EXPECT_EQ(f.runtimes[0].on_driver->support, CudaSupport::kSupported);
  EXPECT_EQ(f.runtimes[1].path, "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127");
  EXPECT_EQ(f.runtimes[1].origin, "toolkit");
  EXPECT_EQ(f.runtimes[1].on_driver->support, CudaSupport::kMinorCompatOnly);
}

TEST(CudaVersionsCollect, WheelBuiltToolkitAndDirectoryName) {
  test::TempDir root;
  // CUDA 13 toolkits assembled from wheels have dist-info, no version.json.
  root.Write("usr/local/cuda-13.0/dist-info/nvidia_cuda_runtime-13.0.96.dist-info/RECORD", "");
  root.Write("usr/local/cuda-13.0/dist-info/nvidia_cufft-12.0.0.61.dist-info/RECORD", "");
  root.Write("usr/local/cuda-12.6/bin/README", "");
  CudaCollectOptions opts;
  opts.driver = ParseDriverVersion("575.57.08");
  const CudaFacts f = CollectCudaVersions(CollectContext{root.path()}, opts);
  ASSERT_EQ(f.toolkits.size(), 2u);
  EXPECT_EQ(f.toolkits[0].version.ToString(), "12.6");
  EXPECT_EQ(f.toolkits[0].version_file, "directory name");
  EXPECT_EQ(f.toolkits[1].version.ToString(), "13.0");
  EXPECT_EQ(f.toolkits[1].version_file,
            "/usr/local/cuda-13.0/dist-info/nvidia_cuda_runtime-13.0.96.dist-info");
  EXPECT_EQ(f.toolkits[1].on_driver->support, CudaSupport::kDriverTooOld);  // 13.x needs >= 580
}

TEST(CudaVersionsCollect, NothingInstalledIsRecorded) {
  test::TempDir root;
  const CudaFacts f = CollectCudaVersions(CollectContext{root.path()}, {});
  EXPECT_TRUE(f.toolkits.empty());
  EXPECT_TRUE(f.runtimes.empty());
  EXPECT_FALSE(f.driver_max_cuda);
  int unavailable = 0;
  for (const auto& s : f.sources) unavailable += s.available ? 0 : 1;
  EXPECT_GE(unavailable, 3);  // toolkits, nvcc, libcudart
}

TEST(CudaVersionsCollect, DriverCudaFromNvmlWins) {
  test::TempDir root;
  root.Write("usr/local/cuda-12.7/version.json", R"({"cuda": {"version": "12.7.0"}})");
  CudaCollectOptions opts;
  opts.driver = ParseDriverVersion("565.57.01");
  opts.driver_cuda = CudaFromEncoded(12070);
  const CudaFacts f = CollectCudaVersions(CollectContext{root.path()}, opts);
  ASSERT_EQ(f.toolkits.size(), 1u);
  EXPECT_EQ(f.driver_max_cuda->ToString(), "12.7");
  EXPECT_EQ(f.toolkits[0].on_driver->support, CudaSupport::kSupported);
}

}  // namespace
}  // namespace gpudoctor
