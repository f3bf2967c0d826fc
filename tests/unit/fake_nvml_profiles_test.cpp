// The fake NVML's driver profiles: which functions each generation lacks
// (from the first nvml.h copy that declares them), the _v3 process layout of
// 535.43.02/535.54.03/535.86.05, versions, and the r450 library that does not
// export what R450 lacks.
#include <dlfcn.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "unit/fake_nvml_client.h"

namespace fake_test {
namespace {

// The truth table this test holds the fake to (shared/facts/nvml-facts.md 1.1,
// and the first release whose nvml.h declares _v2 and TemperatureV).
struct FirstBranch {
  const char* symbol;
  int major;
  int minor;
};
constexpr FirstBranch kFirstBranches[] = {
    {"nvmlDeviceGetComputeRunningProcesses_v2", 450, 66},
    {"nvmlDeviceGetComputeRunningProcesses_v3", 510, 0},
    {"nvmlDeviceGetMemoryInfo_v2", 510, 0},
    {"nvmlDeviceGetGspFirmwareMode", 515, 0},
    {"nvmlDeviceGetGspFirmwareVersion", 515, 0},
    {"nvmlDeviceGetCurrentClocksEventReasons", 535, 0},
    {"nvmlDeviceGetTemperatureV", 565, 57},
    {"nvmlGpmQueryDeviceSupport", 520, 0},
    {"nvmlGpmSampleAlloc", 520, 0},
    {"nvmlGpmSampleFree", 520, 0},
    {"nvmlGpmSampleGet", 520, 0},
    {"nvmlGpmMetricsGet", 520, 0},
    {"nvmlGpmMigSampleGet", 525, 0},
    {"nvmlDeviceGetProcessesUtilizationInfo", 550, 0},
    {"nvmlDeviceGetGpuFabricInfo", 525, 0},
    {"nvmlDeviceGetGpuFabricInfoV", 550, 0},
};

// Calls `symbol` on `d` with null out-parameters: FUNCTION_NOT_FOUND when the
// profile lacks it, else the fake's answer to the null pointer.
nvmlReturn_t CallWithNulls(const NvmlApi& api, const std::string& symbol, nvmlDevice_t d) {
  if (symbol == "nvmlDeviceGetComputeRunningProcesses_v2")
    return api.nvmlDeviceGetComputeRunningProcesses_v2(d, nullptr, nullptr);
  if (symbol == "nvmlDeviceGetComputeRunningProcesses_v3")
    return api.nvmlDeviceGetComputeRunningProcesses_v3(d, nullptr, nullptr);
  if (symbol == "nvmlDeviceGetMemoryInfo_v2") return api.nvmlDeviceGetMemoryInfo_v2(d, nullptr);
  if (symbol == "nvmlDeviceGetGspFirmwareMode")
    return api.nvmlDeviceGetGspFirmwareMode(d, nullptr, nullptr);
  if (symbol == "nvmlDeviceGetGspFirmwareVersion")
    return api.nvmlDeviceGetGspFirmwareVersion(d, nullptr);
  if (symbol == "nvmlDeviceGetCurrentClocksEventReasons")
    return api.nvmlDeviceGetCurrentClocksEventReasons(d, nullptr);
  if (symbol == "nvmlDeviceGetTemperatureV") return api.nvmlDeviceGetTemperatureV(d, nullptr);
  if (symbol == "nvmlGpmQueryDeviceSupport") return api.nvmlGpmQueryDeviceSupport(d, nullptr);
  if (symbol == "nvmlGpmSampleAlloc") return api.nvmlGpmSampleAlloc(nullptr);
  if (symbol == "nvmlGpmSampleFree") return api.nvmlGpmSampleFree(nullptr);
  if (symbol == "nvmlGpmSampleGet") return api.nvmlGpmSampleGet(d, nullptr);
  if (symbol == "nvmlGpmMetricsGet") return api.nvmlGpmMetricsGet(nullptr);
  if (symbol == "nvmlGpmMigSampleGet") return api.nvmlGpmMigSampleGet(d, 0, nullptr);
  if (symbol == "nvmlDeviceGetProcessesUtilizationInfo")
    return api.nvmlDeviceGetProcessesUtilizationInfo(d, nullptr);
  if (symbol == "nvmlDeviceGetGpuFabricInfo") return api.nvmlDeviceGetGpuFabricInfo(d, nullptr);
  if (symbol == "nvmlDeviceGetGpuFabricInfoV") return api.nvmlDeviceGetGpuFabricInfoV(d, nullptr);
  ADD_FAILURE() << "no call for " << symbol;
  return NVML_SUCCESS;
}

class FakeNvmlProfileTest : public FakeNvmlTest {
 protected:
  nvmlReturn_t InitProfile(const std::string& profile, const std::string& extra = "") {
    return Init(WriteFile("profile.json", R"({"driver_profile": ")" + profile + "\", " + extra +
                                              R"("gpus": [{"processes": [
      {"pid": 11, "used_memory_bytes": 100}, {"pid": 22, "used_memory_bytes": 200}]}]})"));
  }

  // Calls a process-list function of GPU 0 (two processes, pids 11 and 22)
  // into a sentinel-filled buffer and checks that it wrote two records of
  // `stride` bytes and nothing past them. Returns the buffer.
  template <typename Info>
  std::vector<unsigned char> ExpectTwoRecords(nvmlReturn_t (*f)(nvmlDevice_t, unsigned*, Info*),
                                              std::size_t stride) {
    std::vector<unsigned char> buffer(4 * 32, 0xA5);
    unsigned count = 4;
    EXPECT_EQ(f(Handle(0), &count, reinterpret_cast<Info*>(buffer.data())), NVML_SUCCESS);
    EXPECT_EQ(count, 2u);
    unsigned pid = 0;
    std::memcpy(&pid, buffer.data() + stride, sizeof pid);
    EXPECT_EQ(pid, 22u) << "stride " << stride;
    EXPECT_EQ(buffer[2 * stride], 0xA5) << "wrote past its records";
    return buffer;
  }

  std::string SystemText(nvmlReturn_t (*f)(char*, unsigned)) {
    char text[96] = {};
    EXPECT_EQ(f(text, sizeof text), NVML_SUCCESS);
    return text;
  }
};

TEST_F(FakeNvmlProfileTest, EachGenerationLacksWhatLaterHeadersAdded) {
  const std::pair<int, int> drivers[] = {
      {450, 51}, {450, 66}, {455, 10}, {470, 10}, {510, 10}, {515, 10}, {520, 10}, {525, 10},
      {535, 10}, {550, 10}, {565, 10}, {565, 57}, {570, 10}, {580, 10}, {590, 10}, {610, 10}};
  for (const auto& [major, minor] : drivers) {
    const std::string driver = std::to_string(major) + "." + std::to_string(minor) + ".01";
    SCOPED_TRACE(driver);
    ASSERT_EQ(InitProfile(driver), NVML_SUCCESS);
    nvmlDevice_t d = Handle(0);
    for (const auto& [symbol, first_major, first_minor] : kFirstBranches) {
      const nvmlReturn_t rc = CallWithNulls(nvml(), symbol, d);
      if (std::pair(major, minor) < std::pair(first_major, first_minor)) {
        EXPECT_EQ(rc, NVML_ERROR_FUNCTION_NOT_FOUND) << symbol;
      } else {
        EXPECT_NE(rc, NVML_ERROR_FUNCTION_NOT_FOUND) << symbol;
      }
    }
    TearDown();
  }
}

TEST_F(FakeNvmlProfileTest, VersionsFollowTheProfileAndExplicitKeysWin) {
  ASSERT_EQ(InitProfile("535.54.03"), NVML_SUCCESS);
  EXPECT_EQ(SystemText(nvml().nvmlSystemGetDriverVersion), "535.54.03");
  EXPECT_EQ(SystemText(nvml().nvmlSystemGetNVMLVersion), "12.535.54.03");
  int cuda = 0;
  ASSERT_EQ(nvml().nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
  EXPECT_EQ(cuda, 12020);
  TearDown();
  ASSERT_EQ(InitProfile("580.95.05", R"("cuda_driver_version": 13010, "libcuda": false, )"),
            NVML_SUCCESS);
  EXPECT_EQ(SystemText(nvml().nvmlSystemGetNVMLVersion), "13.580.95.05");
  EXPECT_EQ(nvml().nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_ERROR_LIBRARY_NOT_FOUND);
  ASSERT_EQ(nvml().nvmlSystemGetCudaDriverVersion(&cuda), NVML_SUCCESS);
  EXPECT_EQ(cuda, 13010);
}

TEST_F(FakeNvmlProfileTest, V3WritesThirtyTwoByteRecordsOnlyOnThreeDrivers) {
  for (const char* driver : {"535.43.02", "535.54.03", "535.86.05", "535.104.05", "550.54.15"}) {
    SCOPED_TRACE(driver);
    ASSERT_EQ(InitProfile(driver), NVML_SUCCESS);
    const bool cc = std::strncmp(driver, "535.104", 7) != 0 && std::strncmp(driver, "550", 3) != 0;
    const auto buffer =
        ExpectTwoRecords(nvml().nvmlDeviceGetComputeRunningProcesses_v3, cc ? 32 : 24);
    if (cc) {
      unsigned long long protected_bytes = 1;
      std::memcpy(&protected_bytes, buffer.data() + 24, sizeof protected_bytes);
      EXPECT_EQ(protected_bytes, 0u) << "usedGpuCcProtectedMemory at offset 24";
    }
    // _v2 is 24 bytes on every driver.
    ExpectTwoRecords(nvml().nvmlDeviceGetComputeRunningProcesses_v2, 24);
    TearDown();
  }
}

TEST_F(FakeNvmlProfileTest, V1WritesTwentyFourByteRecordsOn45066To46531) {
  for (const char* driver : {"450.51.06", "450.66", "460.32.03", "465.31", "470.57.02"}) {
    SCOPED_TRACE(driver);
    ASSERT_EQ(InitProfile(driver), NVML_SUCCESS);
    const bool wide = std::strcmp(driver, "450.51.06") != 0 && std::strcmp(driver, "470.57.02") != 0;
    ExpectTwoRecords(nvml().nvmlDeviceGetComputeRunningProcesses, wide ? 24 : 16);
    TearDown();
  }
}

TEST_F(FakeNvmlProfileTest, ThermalSlowdownCounterIs251Then269) {
  struct Case {
    const char* driver;
    unsigned counter_field;  // 0: none
    bool profile_at_269;
  };
  for (const Case& c : {Case{"570.133.20", 0, false}, Case{"575.51.02", 251, true},
                        Case{"580.76.05", 251, true}, Case{"580.82.07", 269, false},
                        Case{"590.44.01", 269, false}}) {
    SCOPED_TRACE(c.driver);
    ASSERT_EQ(Init(WriteFile("f.json", std::string(R"({"driver_profile": ")") + c.driver +
                                           R"(", "gpus": [{"violation_thermal_ns": 123456789}]})")),
              NVML_SUCCESS);
    nvmlFieldValue_t values[2] = {};
    values[0].fieldId = 251;
    values[1].fieldId = 269;
    ASSERT_EQ(nvml().nvmlDeviceGetFieldValues(Handle(0), 2, values), NVML_SUCCESS);
    for (const nvmlFieldValue_t& v : values) {
      if (v.fieldId == c.counter_field) {
        EXPECT_EQ(v.nvmlReturn, NVML_SUCCESS) << v.fieldId;
        EXPECT_EQ(v.value.ullVal, 123456789u) << v.fieldId;
      } else if (v.fieldId == 269 && c.profile_at_269) {
        EXPECT_EQ(v.nvmlReturn, NVML_SUCCESS);
        EXPECT_EQ(v.valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
        EXPECT_EQ(v.value.uiVal, 2u);  // the fake's preset profile
      } else {
        EXPECT_EQ(v.nvmlReturn, NVML_ERROR_NOT_SUPPORTED) << v.fieldId;
      }
    }
    TearDown();
  }
}

TEST_F(FakeNvmlProfileTest, BadProfilesAndKeysAreRefused) {
  for (const char* bad : {"abc", "449.80.02", "700.1.1", "535", "535.54.03x", "535.54."}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(InitProfile(bad), NVML_ERROR_UNKNOWN);
  }
  EXPECT_EQ(Init(WriteFile("fe.json", R"({"function_errors": {"nvmlNoSuchCall": "NVML_ERROR_DEPRECATED"}})")),
            NVML_ERROR_UNKNOWN);
  EXPECT_EQ(Init(WriteFile("fe2.json", R"({"function_errors": {"nvmlDeviceGetTemperature": "NVML_SUCCESS"}})")),
            NVML_ERROR_UNKNOWN);
  EXPECT_EQ(Init(WriteFile("vt.json", R"({"gpus": [{"field_value_type": "float"}]})")),
            NVML_ERROR_UNKNOWN);
  EXPECT_EQ(Init(WriteFile("kp.json", R"({"gpus": [{"faults": [{"kind": "hang", "keeps_pci_info": true}]}]})")),
            NVML_ERROR_UNKNOWN);
}

TEST_F(FakeNvmlProfileTest, LostFaultCanKeepTheHandleAndPciInfo) {
  ASSERT_EQ(Init(WriteFile("lost.json", R"({"gpus": [{"pci_bus_id": "0000:3b:00.0",
      "temperature_c": 50, "faults": [{"kind": "lost", "keeps_pci_info": true}]}]})")),
            NVML_SUCCESS);
  nvmlDevice_t d = Handle(0);
  nvmlPciInfo_t pci{};
  ASSERT_EQ(nvml().nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  EXPECT_STREQ(pci.busId, "00000000:3B:00.0");
  unsigned temp = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_GPU_IS_LOST);
}

TEST(FakeNvmlR450Library, ExportsNothingR450Lacks) {
  void* r450 = dlopen(FAKE_NVML_R450_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(r450, nullptr) << dlerror();
  void* full = dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(full, nullptr) << dlerror();
  for (const auto& [symbol, first_major, first_minor] : kFirstBranches) {
    EXPECT_EQ(dlsym(r450, symbol), nullptr)
        << symbol << " (first in " << first_major << "." << first_minor << ")";
    EXPECT_NE(dlsym(full, symbol), nullptr) << symbol;
  }
  for (const char* always : {"nvmlInit_v2", "nvmlDeviceGetComputeRunningProcesses",
                             "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetTemperature",
                             "nvmlDeviceGetCurrentClocksThrottleReasons", "nvmlErrorString"}) {
    EXPECT_NE(dlsym(r450, always), nullptr) << always;
  }
  // The version script hides exactly the table above.
  std::ifstream map(FAKE_NVML_R450_MAP);
  std::stringstream text;
  text << map.rdbuf();
  std::size_t hidden = 0;
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("    nvml", 0) == 0) ++hidden;
  }
  EXPECT_EQ(hidden, std::size(kFirstBranches));
}

}  // namespace
}  // namespace fake_test
