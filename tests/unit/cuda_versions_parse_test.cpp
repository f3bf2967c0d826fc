#include <gtest/gtest.h>

#include "parse/cuda_versions.h"

namespace gpudoctor {
namespace {

TEST(CudaVersionFiles, VersionJson) {
  auto v = ParseCudaVersionJson(R"json({
   "cuda" : { "name" : "CUDA SDK", "version" : "12.2.2" },
   "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "12.2.140" }
})json");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->ToString(), "12.2.2");
  EXPECT_FALSE(ParseCudaVersionJson(R"({"cuda_cudart": {"version": "12.2.140"}})"));
  EXPECT_FALSE(ParseCudaVersionJson(R"({"cuda": {"version": 12}})"));
  EXPECT_FALSE(ParseCudaVersionJson("not json"));
}

TEST(CudaVersionFiles, VersionTxt) {
  EXPECT_EQ(ParseCudaVersionTxt("CUDA Version 10.1.243\n")->ToString(), "10.1.243");
  EXPECT_EQ(ParseCudaVersionTxt("CUDA Version 9.0.176")->patch, 176);
  EXPECT_FALSE(ParseCudaVersionTxt("CUDA 10.1"));
}

TEST(CudaVersionFiles, Nvcc) {
  auto v = ParseNvccVersion(
      "nvcc: NVIDIA (R) Cuda compiler driver\n"
      "Copyright (c) 2005-2023 NVIDIA Corporation\n"
      "Built on Tue_Aug_15_22:02:13_PDT_2023\n"
      "Cuda compilation tools, release 12.2, V12.2.140\n"
      "Build cuda_12.2.r12.2/compiler.33191640_0\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->release.ToString(), "12.2");
  EXPECT_EQ(v->build, "12.2.140");
  auto old = ParseNvccVersion("Cuda compilation tools, release 10.1, V10.1.243");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->build, "10.1.243");
  EXPECT_FALSE(ParseNvccVersion("bash: nvcc: command not found"));
}

TEST(CudaVersionFiles, CudartFileNames) {
  auto full = ParseCudartFileName("libcudart.so.12.2.140");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->major, 12);
  EXPECT_EQ(full->version->ToString(), "12.2.140");
  auto major = ParseCudartFileName("libcudart.so.12");
  ASSERT_TRUE(major);
  EXPECT_EQ(major->major, 12);
  EXPECT_FALSE(major->version);
  EXPECT_EQ(ParseCudartFileName("libcudart.so.11.0")->version->ToString(), "11.0");
  EXPECT_FALSE(ParseCudartFileName("libcudart.so"));
  EXPECT_FALSE(ParseCudartFileName("libcudart_static.a"));
  EXPECT_FALSE(ParseCudartFileName("libcudart.so.12.2.140.bak"));
}

}  // namespace
}  // namespace gpudoctor
