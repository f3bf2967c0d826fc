// Test support for the fake NVML tests: the library opened with dlopen once
// per process (as gpudoctor does), every symbol resolved from the one list
// in nvml_api.h, and a fixture that points FAKE_NVML_SCENARIO at a file and
// shuts the library down after each test.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "nvml/nvml_api.h"

namespace fake_test {

struct NvmlApi {
#define FAKE_TEST_POINTER(name, params) nvmlReturn_t(*name) params = nullptr;
  NVML_FUNCTIONS(FAKE_TEST_POINTER)
#undef FAKE_TEST_POINTER
  nvmlErrorString_fn nvmlErrorString = nullptr;
  std::string error;  // why loading failed; empty when every symbol resolved
};

inline NvmlApi LoadApi() {
  NvmlApi api;
  void* lib = dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    api.error = dlerror();
    return api;
  }
#define FAKE_TEST_RESOLVE(name, params)                               \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, #name)); \
  if (api.name == nullptr) api.error += " missing " #name;
  NVML_FUNCTIONS(FAKE_TEST_RESOLVE)
#undef FAKE_TEST_RESOLVE
  api.nvmlErrorString =
      reinterpret_cast<nvmlErrorString_fn>(dlsym(lib, "nvmlErrorString"));
  if (api.nvmlErrorString == nullptr) api.error += " missing nvmlErrorString";
  return api;
}

inline const NvmlApi& Api() {
  static const NvmlApi api = LoadApi();
  return api;
}

inline std::string DataPath(const std::string& name) {
  return std::string(TEST_DATA_DIR) + "/scenarios/" + name;
}

inline std::filesystem::path SharedXml(const std::string& name) {
  return std::filesystem::path(SHARED_DIR) / "fixtures" / "xml" / name;
}

class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Api().error.empty()) << "fake NVML: " << Api().error;
    unsetenv("FAKE_NVML_SCENARIO");
    unsetenv("FAKE_NVML_TIME_OFFSET_S");
    unsetenv("FAKE_NVML_CALL_LOG");
  }

  void TearDown() override {
    for (; inits_ > 0; --inits_) Api().nvmlShutdown();
  }

  // Points the fake at `path` and initialises it; counts successes so that
  // TearDown leaves the library uninitialised for the next test.
  nvmlReturn_t Init(const std::string& path, double time_offset_s = 0) {
    setenv("FAKE_NVML_SCENARIO", path.c_str(), 1);
    setenv("FAKE_NVML_TIME_OFFSET_S", std::to_string(time_offset_s).c_str(), 1);
    nvmlReturn_t rc = Api().nvmlInit_v2();
    if (rc == NVML_SUCCESS) ++inits_;
    return rc;
  }

  // Writes `text` to a fresh file in the test's temporary folder, one
  // folder per test: ctest runs tests in parallel processes, which must not
  // overwrite each other's scenarios.
  std::string WriteFile(const std::string& name, const std::string& text) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::filesystem::path dir =
        std::filesystem::path(::testing::TempDir()) / "fake_nvml_test" /
        (std::string(test->test_suite_name()) + "." + test->name());
    std::filesystem::create_directories(dir);
    std::filesystem::path path = dir / name;
    std::ofstream(path) << text;
    return path.string();
  }

  nvmlDevice_t Handle(unsigned index) {
    nvmlDevice_t device = nullptr;
    EXPECT_EQ(Api().nvmlDeviceGetHandleByIndex_v2(index, &device),
              NVML_SUCCESS);
    return device;
  }

  const NvmlApi& nvml() { return Api(); }

 private:
  int inits_ = 0;
};

}  // namespace fake_test
