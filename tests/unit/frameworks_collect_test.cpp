#include <gtest/gtest.h>

#include "collect/frameworks.h"
#include "parse/version_numbers.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

constexpr const char* kSite = "usr/local/lib/python3.10/dist-packages/";

std::string TorchVersionPy(const std::string& version, const std::string& cuda) {
  return "from typing import Optional\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', "
         "'hip']\n__version__ = '" +
         version + "'\ndebug = False\ncuda: Optional[str] = " + cuda +
         "\ngit_version = 'abc'\nhip: Optional[str] = None\n";
}

FrameworkCollectOptions Driver(const char* version) {
  FrameworkCollectOptions o;
  o.driver = ParseDriverVersion(version);
  return o;
}

const FrameworkInstall* FindFramework(const FrameworkFacts& f, const std::string& name) {
  for (const auto& env : f.environments) {
    for (const auto& fw : env.frameworks) {
      if (fw.name == name) return &fw;
    }
  }
  return nullptr;
}

bool Has(const std::vector<FrameworkIssueId>& ids, FrameworkIssueId id) {
  for (auto i : ids) {
    if (i == id) return true;
  }
  return false;
}

TEST(FrameworksCollect, TorchNewerThanDriverIsFlagged) {
  test::TempDir root;
  root.Write(std::string(kSite) + "torch/version.py", TorchVersionPy("2.4.0+cu124", "'12.4'"));
  const FrameworkFacts f = CollectFrameworks(CollectContext{root.path()}, Driver("525.60.13"));
  const FrameworkInstall* torch = FindFramework(f, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version, "2.4.0+cu124");
  EXPECT_EQ(torch->cuda->ToString(), "12.4");
  EXPECT_EQ(torch->source, "/usr/local/lib/python3.10/dist-packages/torch/version.py");
  ASSERT_TRUE(torch->check.verdict);
  EXPECT_EQ(torch->check.verdict->support, CudaSupport::kMinorCompatOnly);
  EXPECT_EQ(torch->check.verdict->driver_max_cuda.ToString(), "12.0");
  EXPECT_TRUE(Has(torch->check.issues, FrameworkIssueId::kMinorCompatOnly));

  // On a 470 driver the same build cannot run at all.
  const FrameworkFacts old = CollectFrameworks(CollectContext{root.path()}, Driver("470.82.01"));
  EXPECT_TRUE(Has(FindFramework(old, "torch")->check.issues, FrameworkIssueId::kDriverTooOld));
}

TEST(FrameworksCollect, TorchWithinDriverIsNotFlagged) {
  test::TempDir root;
  root.Write(std::string(kSite) + "torch/version.py", TorchVersionPy("2.3.1+cu121", "'12.1'"));
  root.Write(std::string(kSite) + "torch-2.3.1+cu121.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: torch\nVersion: 2.3.1+cu121\n\n");
  const FrameworkFacts f = CollectFrameworks(CollectContext{root.path()}, Driver("535.183.01"));
  ASSERT_EQ(f.environments.size(), 1u);
  EXPECT_EQ(f.environments[0].origin, "system");
  ASSERT_EQ(f.environments[0].frameworks.size(), 1u);  // dist-info and version.py are one torch
  const FrameworkInstall& torch = f.environments[0].frameworks[0];
  EXPECT_EQ(torch.check.verdict->support, CudaSupport::kSupported);
  EXPECT_TRUE(torch.check.issues.empty());
  EXPECT_TRUE(f.environments[0].issues.empty());
}

TEST(FrameworksCollect, CpuBuildAndDistInfoOnlyTag) {
  test::TempDir root;
  root.Write("opt/conda/lib/python3.11/site-packages/torch/version.py",
             TorchVersionPy("2.2.0+cpu", "None"));
  root.Write("root/.local/lib/python3.11/site-packages/torch-1.13.1+cu117.dist-info/RECORD", "");
  const FrameworkFacts f = CollectFrameworks(CollectContext{root.path()}, Driver("535.183.01"));
  ASSERT_EQ(f.environments.size(), 2u);
  EXPECT_EQ(f.environments[0].origin, "conda");
  const FrameworkInstall& cpu = f.environments[0].frameworks[0];
  EXPECT_TRUE(cpu.cpu_only);
  EXPECT_TRUE(Has(cpu.check.issues, FrameworkIssueId::kCpuOnlyBuild));
  EXPECT_EQ(f.environments[1].origin, "user");
  const FrameworkInstall& tagged = f.environments[1].frameworks[0];
  EXPECT_EQ(tagged.cuda->ToString(), "11.7");
  EXPECT_EQ(tagged.cuda_source, "+cu117 version tag");
  EXPECT_EQ(tagged.check.verdict->support, CudaSupport::kSupported);
}

TEST(FrameworksCollect, TensorflowAndMixedCudaWheels) {
  test::TempDir root;
  const std::string env = "srv/venvs/train/lib/python3.11/site-packages/";
  root.Write(
      env + "tensorflow/python/platform/build_info.py",
      "build_info = {'cuda_version': '12.3', 'cudnn_version': '8', 'is_cuda_build': True}\n");
  root.Write(env + "tensorflow-2.16.1.dist-info/METADATA", "Name: tensorflow\nVersion: 2.16.1\n\n");
  root.Write(env + "nvidia_cuda_runtime_cu12-12.3.101.dist-info/METADATA",
             "Name: nvidia-cuda-runtime-cu12\nVersion: 12.3.101\n\n");
  root.Write(env + "nvidia_cublas_cu11-11.11.3.6.dist-info/METADATA",
             "Name: nvidia-cublas-cu11\nVersion: 11.11.3.6\n\n");
  root.Write(env + "jax_cuda12_plugin-0.4.30.dist-info/RECORD", "");
  FrameworkCollectOptions opts = Driver("545.23.08");
  opts.python_envs = {"/srv/venvs/train", "/srv/venvs/missing"};
  const FrameworkFacts f = CollectFrameworks(CollectContext{root.path()}, opts);
  ASSERT_EQ(f.environments.size(), 1u);
  const PythonEnvironment& e = f.environments[0];
  EXPECT_EQ(e.origin, "option");
  const FrameworkInstall* tf = FindFramework(f, "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ(tf->version, "2.16.1");
  EXPECT_EQ(tf->cuda->ToString(), "12.3");
  EXPECT_EQ(tf->cudnn, "8");
  EXPECT_EQ(tf->check.verdict->support, CudaSupport::kSupported);
  const FrameworkInstall* jax = FindFramework(f, "jax");
  ASSERT_NE(jax, nullptr);
  EXPECT_EQ(jax->cuda_major, 12);
  ASSERT_EQ(e.cuda_wheels.size(), 3u);
  EXPECT_EQ(e.bundled_runtime->ToString(), "12.3");
  EXPECT_EQ(e.bundled_runtime_on_driver->support, CudaSupport::kSupported);
  EXPECT_EQ(e.cuda_majors, (std::vector<int>{11, 12}));
  EXPECT_TRUE(Has(e.issues, FrameworkIssueId::kMixedCudaMajors));
  bool missing_recorded = false;
  for (const auto& s : f.sources)
    missing_recorded |= s.source == "/srv/venvs/missing" && !s.available;
  EXPECT_TRUE(missing_recorded);
}

TEST(FrameworksCollect, Cuda13UnsuffixedRuntimeWheel) {
  test::TempDir root;
  const std::string site = "usr/lib/python3.12/site-packages/";
  root.Write(site + "torch/version.py", TorchVersionPy("2.9.0+cu130", "'13.0'"));
  root.Write(site + "nvidia_cuda_runtime-13.0.96.dist-info/METADATA",
             "Name: nvidia-cuda-runtime\nVersion: 13.0.96\n\n");
  root.Write(site + "nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA",
             "Name: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n\n");
  const FrameworkFacts f = CollectFrameworks(CollectContext{root.path()}, Driver("570.124.06"));
  ASSERT_EQ(f.environments.size(), 1u);
  const PythonEnvironment& e = f.environments[0];
  EXPECT_EQ(e.bundled_runtime->ToString(), "13.0");
  EXPECT_EQ(e.bundled_runtime_on_driver->support, CudaSupport::kDriverTooOld);
  EXPECT_EQ(e.cuda_majors, (std::vector<int>{13}));
  EXPECT_TRUE(e.issues.empty());
  EXPECT_TRUE(Has(e.frameworks[0].check.issues, FrameworkIssueId::kDriverTooOld));
}

TEST(FrameworksCollect, NoPythonIsRecorded) {
  test::TempDir root;
  const FrameworkFacts f = CollectFrameworks(CollectContext{root.path()}, {});
  EXPECT_TRUE(f.environments.empty());
  ASSERT_EQ(f.sources.size(), 1u);
  EXPECT_FALSE(f.sources[0].available);
}

TEST(FrameworkCompat, CatalogCoversEveryIssue) {
  for (auto id : {FrameworkIssueId::kDriverTooOld, FrameworkIssueId::kMinorCompatOnly,
                  FrameworkIssueId::kCpuOnlyBuild, FrameworkIssueId::kRocmBuild,
                  FrameworkIssueId::kMixedCudaMajors}) {
    EXPECT_EQ(FrameworkIssue(id).id, id);
    EXPECT_FALSE(FrameworkIssue(id).advice.empty());
  }
  // No driver known: build facts only, no verdict.
  const auto check = CheckFrameworkBuild(FrameworkBuild{ParseCudaVersionText("12.1"), false, true},
                                         std::nullopt, std::nullopt);
  EXPECT_FALSE(check.verdict);
  EXPECT_EQ(check.issues, (std::vector<FrameworkIssueId>{FrameworkIssueId::kRocmBuild}));
}

}  // namespace
}  // namespace gpudoctor
