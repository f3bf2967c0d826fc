// src/cuda against the fake libcuda (tests/fake_cuda), in this process: the
// library loads through our declarations, devices come with their bus ids,
// the verify kernel reports the scenario's bad words, a launch error
// becomes a value naming the call and the driver's error, and the
// destructor gives back the device memory. The fake reads its scenario
// once per process, so every test here shares the one below.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cuda/cuda_gpu.h"
#include "cuda/stress_kernels.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

std::shared_ptr<const CudaLibrary> FakeCuda() {
  static test::TempDir* dir = new test::TempDir();
  static std::shared_ptr<const CudaLibrary> lib = [] {
    std::string path = dir->Write("scenario.json", R"({"gpus": [
      {"pci_bus_id": "0000:3B:00.0", "name": "Fake H100",
       "cuda": {"mismatch_offsets": [4096, 8200], "free_bytes": 1073741824}},
      {"cuda": {"launch_error": "CUDA_ERROR_ILLEGAL_ADDRESS"}}]})");
    setenv("FAKE_NVML_SCENARIO", path.c_str(), 1);
    auto loaded = LoadCudaLibrary(FAKE_CUDA_LIBRARY);
    return loaded ? *loaded : nullptr;
  }();
  return lib;
}

TEST(CudaGpuFake, MissingLibraryIsUnavailable) {
  auto lib = LoadCudaLibrary("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(lib.error().message.find("/nonexistent/libcuda.so.1"), std::string::npos);
}

TEST(CudaGpuFake, ListsDevicesWithNormalisedBusIds) {
  auto lib = FakeCuda();
  ASSERT_NE(lib, nullptr);
  auto devices = ListCudaDevices(*lib);
  ASSERT_TRUE(devices) << devices.error().message;
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ((*devices)[0].name, "Fake H100");
  EXPECT_EQ((*devices)[1].pci_bus_id, "0000:02:00.0");
}

TEST(CudaGpuFake, VerifyReportsTheBadWordsAndMemoryIsFreed) {
  auto lib = FakeCuda();
  ASSERT_NE(lib, nullptr);
  auto devices = ListCudaDevices(*lib);
  ASSERT_TRUE(devices);
  std::size_t free_before = 0;
  {
    auto gpu = CudaGpu::Open(lib, (*devices)[0]);
    ASSERT_TRUE(gpu) << gpu.error().message;
    free_before = (*gpu)->MemoryInfo()->first;
    constexpr std::uint64_t kWords = (64u << 20) / 8;
    auto buf = (*gpu)->Alloc(kWords * 8);
    auto result = (*gpu)->Alloc(kVerifyResultWords * 8);
    ASSERT_TRUE(buf && result);
    EXPECT_LT((*gpu)->MemoryInfo()->first, free_before);
    ASSERT_TRUE((*gpu)->Memset32(*result, 0, kVerifyResultWords * 2));
    CUdeviceptr b = *buf, r = *result;
    std::uint64_t words = kWords, pattern = 0xAAAAAAAAAAAAAAAAull;
    std::uint32_t mode = kPatternFixed;
    void* params[] = {&b, &words, &pattern, &mode, &r};
    ASSERT_TRUE((*gpu)->Launch(StressKernel::kVerify, 64, 256, params));
    std::vector<std::uint64_t> out(kVerifyResultWords);
    ASSERT_TRUE((*gpu)->CopyToHost(out.data(), r, out.size() * 8));
    EXPECT_EQ(out[0], 2u);
    EXPECT_EQ(out[1], b + 4096);
    EXPECT_EQ(out[2], b + 8200 - 8200 % 8);
  }
  auto again = CudaGpu::Open(lib, (*devices)[0]);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->MemoryInfo()->first, free_before);
}

TEST(CudaGpuFake, LaunchErrorNamesCallAndError) {
  auto lib = FakeCuda();
  ASSERT_NE(lib, nullptr);
  auto devices = ListCudaDevices(*lib);
  ASSERT_TRUE(devices);
  auto gpu = CudaGpu::Open(lib, (*devices)[1]);
  ASSERT_TRUE(gpu);
  auto out = (*gpu)->Alloc(4096);
  ASSERT_TRUE(out);
  CUdeviceptr o = *out;
  std::uint32_t iterations = 1;
  void* params[] = {&o, &iterations};
  auto launched = (*gpu)->Launch(StressKernel::kBurn, 1, 32, params);
  ASSERT_FALSE(launched);
  EXPECT_EQ(launched.error().message,
            "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
}

}  // namespace
}  // namespace gpudoctor
