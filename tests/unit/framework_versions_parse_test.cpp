#include <gtest/gtest.h>

#include "parse/framework_versions.h"

namespace gpudoctor {
namespace {

constexpr const char* kTorchCuda =
    "from typing import Optional\n"
    "\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.3.1+cu121'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.1'\n"
    "git_version = '63d5e9221bedd1546b7d364b5ce4171547db12a9'\n"
    "hip: Optional[str] = None\n";

TEST(TorchVersionPy, CudaBuild) {
  auto t = ParseTorchVersionPy(kTorchCuda);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->version, "2.3.1+cu121");
  EXPECT_EQ(t->cuda, "12.1");
  EXPECT_FALSE(t->hip);
  EXPECT_EQ(t->git_version, "63d5e9221bedd1546b7d364b5ce4171547db12a9");
}

TEST(TorchVersionPy, OldStyleCpuAndRocm) {
  auto old = ParseTorchVersionPy("__version__ = '1.8.1'\ndebug = False\ncuda = '10.2'\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->cuda, "10.2");
  auto cpu = ParseTorchVersionPy(
      "__all__ = ['__version__', 'cuda', 'hip']\n__version__ = '2.2.0+cpu'\n"
      "cuda: Optional[str] = None\nhip: Optional[str] = None\n");
  ASSERT_TRUE(cpu);
  EXPECT_FALSE(cpu->cuda);
  EXPECT_FALSE(cpu->hip);
  auto rocm = ParseTorchVersionPy(
      "__version__ = '2.5.0+rocm6.2'\ncuda: Optional[str] = None\nhip: Optional[str] = "
      "'6.2.41133'\n");
  ASSERT_TRUE(rocm);
  EXPECT_EQ(rocm->hip, "6.2.41133");
  // A name listed in __all__ but never assigned is not a value.
  auto listed = ParseTorchVersionPy(
      "__all__ = ['__version__', 'cuda', 'git_version']\n"
      "__version__ = \"1.0\"\n");
  ASSERT_TRUE(listed);
  EXPECT_FALSE(listed->cuda);
  EXPECT_FALSE(ParseTorchVersionPy("cuda = '12.1'\n"));
}

TEST(TfBuildInfo, DictAndLegacyForms) {
  auto dict = ParseTfBuildInfo(
      "import collections\n"
      "build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), "
      "('cuda_compute_capabilities', ['sm_50', 'sm_60', 'compute_90']), ('cuda_version', '12.3'), "
      "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), "
      "('is_tensorrt_build', True)])\n");
  EXPECT_EQ(dict.cuda_version, "12.3");
  EXPECT_EQ(dict.cudnn_version, "8");
  EXPECT_EQ(dict.is_cuda_build, true);
  EXPECT_EQ(dict.is_rocm_build, false);

  auto braces = ParseTfBuildInfo(
      "build_info = {'cuda_version': '11.2', 'cudnn_version': '8', 'is_cuda_build': False}\n");
  EXPECT_EQ(braces.cuda_version, "11.2");
  EXPECT_EQ(braces.is_cuda_build, false);

  auto items = ParseTfBuildInfo("build_info = {}\nbuild_info['cuda_version'] = '12.2'\n");
  EXPECT_EQ(items.cuda_version, "12.2");

  auto legacy = ParseTfBuildInfo(
      "is_cuda_build = True\ncuda_version_number = '10.0'\ncudnn_version_number = '7'\n");
  EXPECT_EQ(legacy.cuda_version, "10.0");
  EXPECT_EQ(legacy.cudnn_version, "7");
  EXPECT_EQ(legacy.is_cuda_build, true);

  EXPECT_FALSE(ParseTfBuildInfo("build_info = {}\n").cuda_version);
}

TEST(DistInfo, NamesAndMetadata) {
  auto runtime = ParseDistInfoDirName("nvidia_cuda_runtime_cu12-12.1.105.dist-info");
  ASSERT_TRUE(runtime);
  EXPECT_EQ(runtime->name, "nvidia-cuda-runtime-cu12");
  EXPECT_EQ(runtime->version, "12.1.105");
  auto torch = ParseDistInfoDirName("torch-2.3.1+cu121.dist-info");
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->version, "2.3.1+cu121");
  EXPECT_FALSE(ParseDistInfoDirName("torch"));
  EXPECT_FALSE(ParseDistInfoDirName("-1.0.dist-info"));
  EXPECT_EQ(NormalizeDistName("Tensorflow_GPU"), "tensorflow-gpu");
  EXPECT_EQ(NormalizeDistName("jax_cuda12..plugin"), "jax-cuda12-plugin");

  auto meta = ParseDistMetadata(
      "Metadata-Version: 2.1\r\nName: tensorflow\r\nVersion: 2.15.0.post1\r\n\r\n"
      "Version: 9.9 in the description\n");
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->name, "tensorflow");
  EXPECT_EQ(meta->version, "2.15.0.post1");
  EXPECT_FALSE(ParseDistMetadata("Name: x\n"));
}

TEST(LocalBuildTag, Kinds) {
  EXPECT_EQ(ParseLocalBuildTag("2.3.1+cu121").cuda->ToString(), "12.1");
  EXPECT_EQ(ParseLocalBuildTag("1.12.0+cu113").cuda->ToString(), "11.3");
  EXPECT_EQ(ParseLocalBuildTag("1.4.0+cu92").cuda->ToString(), "9.2");
  EXPECT_EQ(ParseLocalBuildTag("1.8.0+cu102").cuda->ToString(), "10.2");
  EXPECT_EQ(ParseLocalBuildTag("2.9.0+cu130").cuda->ToString(), "13.0");
  EXPECT_EQ(ParseLocalBuildTag("2.2.0+cpu").kind, LocalBuildTag::Kind::kCpu);
  EXPECT_EQ(ParseLocalBuildTag("2.5.0+rocm6.2").kind, LocalBuildTag::Kind::kRocm);
  EXPECT_EQ(ParseLocalBuildTag("2.3.1").kind, LocalBuildTag::Kind::kNone);
  EXPECT_EQ(ParseLocalBuildTag("0.4.26+cuda12.cudnn89").kind, LocalBuildTag::Kind::kOther);
}

TEST(CudaWheelName, Families) {
  auto rt = ParseCudaWheelName("nvidia-cuda-runtime-cu12");
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->family, "nvidia-cuda-runtime");
  EXPECT_EQ(rt->cuda_major, 12);
  EXPECT_EQ(ParseCudaWheelName("nvidia-cublas-cu11")->cuda_major, 11);
  EXPECT_EQ(ParseCudaWheelName("nvidia-cudnn-cu13")->cuda_major, 13);
  auto jax = ParseCudaWheelName("jax-cuda12-plugin");
  ASSERT_TRUE(jax);
  EXPECT_EQ(jax->family, "jax-cuda-plugin");
  EXPECT_EQ(jax->cuda_major, 12);
  EXPECT_EQ(ParseCudaWheelName("jax-cuda12-pjrt")->family, "jax-cuda-pjrt");
  EXPECT_EQ(ParseCudaWheelName("cupy-cuda12x")->cuda_major, 12);
  EXPECT_FALSE(ParseCudaWheelName("nvidia-ml-py"));
  EXPECT_FALSE(ParseCudaWheelName("nvidia-nccl"));
  EXPECT_FALSE(ParseCudaWheelName("torch"));
  EXPECT_FALSE(ParseCudaWheelName("nvidia-cuda-runtime-cuxx"));
  // CUDA 13 component wheels drop the suffix; the version names the major.
  auto rt13 = ParseCudaWheelName("nvidia-cuda-runtime", "13.0.96");
  ASSERT_TRUE(rt13);
  EXPECT_EQ(rt13->family, "nvidia-cuda-runtime");
  EXPECT_EQ(rt13->cuda_major, 13);
  EXPECT_FALSE(ParseCudaWheelName("nvidia-cuda-runtime"));        // no version known
  EXPECT_FALSE(ParseCudaWheelName("nvidia-cufft", "12.0.0.61"));  // own versioning
  EXPECT_EQ(ParseCudaWheelName("nvidia-cudnn-cu13", "9.19.0.56")->cuda_major, 13);
}

}  // namespace
}  // namespace gpudoctor
