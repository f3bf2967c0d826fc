// The fake NVML through its C API: lifetime, scenario loading, XML and JSON
// values, unsupported fields.
#include <cstring>

#include "unit/fake_nvml_client.h"

namespace fake_test {
namespace {

TEST_F(FakeNvmlTest, EveryCallBeforeInitIsUninitialized) {
  unsigned count = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
  nvmlDevice_t device = nullptr;
  EXPECT_EQ(nvml().nvmlDeviceGetHandleByIndex_v2(0, &device),
            NVML_ERROR_UNINITIALIZED);
  char text[96];
  EXPECT_EQ(nvml().nvmlSystemGetDriverVersion(text, sizeof text),
            NVML_ERROR_UNINITIALIZED);
  unsigned temp = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetTemperature(device, 0, &temp),
            NVML_ERROR_UNINITIALIZED);
}

TEST_F(FakeNvmlTest, WithoutScenarioBehavesLikeMachineWithoutDriver) {
  EXPECT_EQ(nvml().nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  EXPECT_EQ(nvml().nvmlInit(), NVML_ERROR_DRIVER_NOT_LOADED);
}

TEST_F(FakeNvmlTest, InitErrorFromScenario) {
  EXPECT_EQ(Init(DataPath("init_error.json")),
            NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  unsigned count = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
}

TEST_F(FakeNvmlTest, UnknownKeyMissingAndMalformedFilesFailInit) {
  EXPECT_EQ(Init(DataPath("typo.json")), NVML_ERROR_UNKNOWN);
  EXPECT_EQ(Init(DataPath("no-such-scenario.json")), NVML_ERROR_UNKNOWN);
  EXPECT_EQ(Init(WriteFile("broken.json", "{\"gpus\": [")), NVML_ERROR_UNKNOWN);
  EXPECT_EQ(Init(WriteFile("badfault.json",
                           R"({"gpus":[{"faults":[{"kind":"melt"}]}]})")),
            NVML_ERROR_UNKNOWN);
  EXPECT_EQ(
      Init(WriteFile("badmetric.json",
                     R"({"gpus":[{"metrics":{"name":{"values":[1]}}}]})")),
      NVML_ERROR_UNKNOWN);
}

// Whole-number keys refuse fractions and values past their range instead of
// converting them (a double past int's range was undefined behaviour, found
// by fuzz_scenario: "init_delay_ms": 511111111111111111111111111111).
TEST_F(FakeNvmlTest, OutOfRangeOrFractionalWholeNumbersFailInit) {
  const char* bad[] = {
      R"({"init_delay_ms": 511111111111111111111111111111, "gpus": []})",
      R"({"init_delay_ms": -1})",
      R"({"init_delay_ms": 1.5})",
      R"({"init_delay_ms": "10"})",
      R"({"cuda_driver_version": 1e30})",
      R"({"cuda_driver_version": 12.5})",
      R"({"gpus":[{"nvlinks":[{"link": 4294967296}]}]})",
      R"({"gpus":[{"nvlinks":[{"link": -1}]}]})",
  };
  int n = 0;
  for (const char* text : bad) {
    EXPECT_EQ(Init(WriteFile("bad" + std::to_string(n++) + ".json", text)),
              NVML_ERROR_UNKNOWN)
        << text;
  }
  // The same keys in range still load.
  ASSERT_EQ(Init(WriteFile("good.json",
                           R"({"init_delay_ms": 0, "cuda_driver_version": 12040,
                               "gpus":[{"nvlinks":[{"link": 3}]}]})")),
            NVML_SUCCESS);
  int cuda = 0;
  ASSERT_EQ(nvml().nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
  EXPECT_EQ(cuda, 12040);
}

TEST_F(FakeNvmlTest, InitIsReferenceCountedAndScenarioReloaded) {
  ASSERT_EQ(Init(DataPath("two_gpus.json")), NVML_SUCCESS);
  ASSERT_EQ(nvml().nvmlInit(), NVML_SUCCESS);
  EXPECT_EQ(nvml().nvmlShutdown(), NVML_SUCCESS);
  unsigned count = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(nvml().nvmlShutdown(), NVML_SUCCESS);
  EXPECT_EQ(nvml().nvmlDeviceGetCount(&count), NVML_ERROR_UNINITIALIZED);
  // A new scenario is read at the next first init.
  ASSERT_EQ(Init(WriteFile("one.json", R"({"gpus":[{}]})")), NVML_SUCCESS);
  ASSERT_EQ(nvml().nvmlDeviceGetCount(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 1u);
}

TEST_F(FakeNvmlTest, JsonScenarioValues) {
  ASSERT_EQ(Init(DataPath("two_gpus.json")), NVML_SUCCESS);
  char text[96];
  ASSERT_EQ(nvml().nvmlSystemGetDriverVersion(text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "550.54.15");
  ASSERT_EQ(nvml().nvmlSystemGetNVMLVersion(text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "12.550.54.15");
  int cuda = 0;
  ASSERT_EQ(nvml().nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
  EXPECT_EQ(cuda, 12040);

  nvmlDevice_t d = Handle(0);
  ASSERT_EQ(nvml().nvmlDeviceGetName(d, text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "NVIDIA A100-SXM4-80GB");
  nvmlPciInfo_t pci{};
  ASSERT_EQ(nvml().nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  EXPECT_STREQ(pci.busId, "00000000:3B:00.0");
  EXPECT_STREQ(pci.busIdLegacy, "0000:3B:00.0");
  EXPECT_EQ(pci.bus, 0x3Bu);
  EXPECT_EQ(pci.pciDeviceId, 0x20B210DEu);

  nvmlUtilization_t util{};
  ASSERT_EQ(nvml().nvmlDeviceGetUtilizationRates(d, &util), NVML_SUCCESS);
  EXPECT_EQ(util.gpu, 87u);
  EXPECT_EQ(util.memory, 41u);
  nvmlMemory_v2_t mem{};
  mem.version = nvmlMemory_v2;
  ASSERT_EQ(nvml().nvmlDeviceGetMemoryInfo_v2(d, &mem), NVML_SUCCESS);
  EXPECT_EQ(mem.total, 85899345920ULL);
  EXPECT_EQ(mem.reserved, 637534208ULL);
  mem.version = 2;  // the bare number, a classic binding mistake
  EXPECT_EQ(nvml().nvmlDeviceGetMemoryInfo_v2(d, &mem),
            NVML_ERROR_ARGUMENT_VERSION_MISMATCH);

  unsigned value = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetPowerUsage(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 312500u);
  unsigned min = 0, max = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetPowerManagementLimitConstraints(d, &min, &max),
            NVML_SUCCESS);
  EXPECT_EQ(min, 100000u);
  EXPECT_EQ(max, 400000u);
  unsigned long long energy = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetTotalEnergyConsumption(d, &energy),
            NVML_SUCCESS);
  EXPECT_EQ(energy, 123456789ULL);
  ASSERT_EQ(
      nvml().nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, &value),
      NVML_SUCCESS);
  EXPECT_EQ(value, 1024u);  // 1 MiB/s in KB/s
  ASSERT_EQ(nvml().nvmlDeviceGetCurrPcieLinkWidth(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 8u);
  int pstate = -1;
  ASSERT_EQ(nvml().nvmlDeviceGetPerformanceState(d, &pstate), NVML_SUCCESS);
  EXPECT_EQ(pstate, 0);
  unsigned long long reasons = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetCurrentClocksEventReasons(d, &reasons),
            NVML_SUCCESS);
  EXPECT_EQ(reasons, 0x4ULL | 0x20ULL);
  ASSERT_EQ(nvml().nvmlDeviceGetCurrentClocksThrottleReasons(d, &reasons),
            NVML_SUCCESS);
  EXPECT_EQ(reasons, 0x24ULL);
  int mode = -1;
  ASSERT_EQ(nvml().nvmlDeviceGetComputeMode(d, &mode), NVML_SUCCESS);
  EXPECT_EQ(mode, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
  unsigned current = 9, pending = 9;
  ASSERT_EQ(nvml().nvmlDeviceGetMigMode(d, &current, &pending), NVML_SUCCESS);
  EXPECT_EQ(current, 0u);
  EXPECT_EQ(pending, 1u);
}

TEST_F(FakeNvmlTest, TemperaturesFansAndFieldValues) {
  ASSERT_EQ(Init(DataPath("two_gpus.json")), NVML_SUCCESS);
  nvmlDevice_t d = Handle(0);
  unsigned value = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetTemperatureThreshold(
                d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &value),
            NVML_SUCCESS);
  EXPECT_EQ(value, 92u);
  ASSERT_EQ(nvml().nvmlDeviceGetTemperatureThreshold(
                d, NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &value),
            NVML_SUCCESS);
  EXPECT_EQ(value, 87u);
  nvmlFieldValue_t fields[3] = {};
  fields[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
  fields[1].fieldId = NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT;
  fields[2].fieldId = 9999;
  ASSERT_EQ(nvml().nvmlDeviceGetFieldValues(d, 3, fields), NVML_SUCCESS);
  EXPECT_EQ(fields[0].nvmlReturn, NVML_SUCCESS);
  EXPECT_EQ(fields[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
  EXPECT_EQ(fields[0].value.uiVal, 71u);
  EXPECT_EQ(fields[1].nvmlReturn, NVML_SUCCESS);
  EXPECT_EQ(fields[1].value.siVal, 95);
  EXPECT_EQ(fields[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(nvml().nvmlDeviceGetNumFans(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 2u);
  ASSERT_EQ(nvml().nvmlDeviceGetFanSpeed_v2(d, 1, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 45u);
  EXPECT_EQ(nvml().nvmlDeviceGetFanSpeed_v2(d, 2, &value),
            NVML_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(nvml().nvmlDeviceGetFanSpeed(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 40u);
}

TEST_F(FakeNvmlTest, NullAndAbsentFieldsAreNotSupported) {
  ASSERT_EQ(Init(DataPath("two_gpus.json")), NVML_SUCCESS);
  nvmlDevice_t d = Handle(1);
  unsigned value = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &value),
            NVML_SUCCESS);
  EXPECT_EQ(value, 35u);
  EXPECT_EQ(nvml().nvmlDeviceGetPowerUsage(d, &value),
            NVML_ERROR_NOT_SUPPORTED);
  int pstate = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetPerformanceState(d, &pstate),
            NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(nvml().nvmlDeviceGetNumFans(d, &value), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(nvml().nvmlDeviceGetNvLinkState(d, 0, &pstate),
            NVML_ERROR_NOT_SUPPORTED);
  unsigned long long count = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetTotalEccErrors(
                d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &count),
            NVML_ERROR_NOT_SUPPORTED);
  char text[96];
  EXPECT_EQ(nvml().nvmlDeviceGetSerial(d, text, sizeof text),
            NVML_ERROR_NOT_SUPPORTED);
  // Defaults of a JSON GPU.
  ASSERT_EQ(nvml().nvmlDeviceGetUUID(d, text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "GPU-00000000-0000-0000-0000-000000000002");
  nvmlPciInfo_t pci{};
  ASSERT_EQ(nvml().nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  EXPECT_STREQ(pci.busId, "00000000:02:00.0");
  EXPECT_EQ(pci.pciDeviceId, 0x20B010DEu);
  unsigned processes = 5;
  ASSERT_EQ(
      nvml().nvmlDeviceGetComputeRunningProcesses_v3(d, &processes, nullptr),
      NVML_SUCCESS);
  EXPECT_EQ(processes, 0u);
}

TEST_F(FakeNvmlTest, HandlesAndStringBuffers) {
  ASSERT_EQ(Init(DataPath("two_gpus.json")), NVML_SUCCESS);
  nvmlDevice_t d = nullptr;
  EXPECT_EQ(nvml().nvmlDeviceGetHandleByIndex_v2(2, &d),
            NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nvml().nvmlDeviceGetHandleByIndex(2, &d),
            NVML_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(nvml().nvmlDeviceGetHandleByIndex(0, &d), NVML_SUCCESS);
  EXPECT_EQ(d, Handle(0));
  EXPECT_NE(Handle(0), Handle(1));
  char small[8];
  EXPECT_EQ(nvml().nvmlDeviceGetName(d, small, sizeof small),
            NVML_ERROR_INSUFFICIENT_SIZE);
  unsigned value = 0;
  int bogus = 0;
  EXPECT_EQ(
      nvml().nvmlDeviceGetTemperature(reinterpret_cast<nvmlDevice_t>(&bogus),
                                      NVML_TEMPERATURE_GPU, &value),
      NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(nvml().nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
  EXPECT_STREQ(nvml().nvmlErrorString(12345), "Unknown Error");
}

TEST_F(FakeNvmlTest, ProcessesEccRetiredPagesRemappedRowsNvLinks) {
  ASSERT_EQ(Init(DataPath("two_gpus.json")), NVML_SUCCESS);
  nvmlDevice_t d = Handle(0);
  unsigned count = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetComputeRunningProcesses_v3(d, &count, nullptr),
            NVML_ERROR_INSUFFICIENT_SIZE);
  ASSERT_EQ(count, 2u);
  nvmlProcessInfo_t infos[2] = {};
  ASSERT_EQ(nvml().nvmlDeviceGetComputeRunningProcesses_v2(d, &count, infos),
            NVML_SUCCESS);
  EXPECT_EQ(infos[0].pid, 4242u);
  EXPECT_EQ(infos[0].usedGpuMemory, 40265318400ULL);
  EXPECT_EQ(infos[1].usedGpuMemory, ~0ULL);
  EXPECT_EQ(infos[0].gpuInstanceId, 0xFFFFFFFFu);
  char name[64];
  ASSERT_EQ(nvml().nvmlSystemGetProcessName(4242, name, sizeof name),
            NVML_SUCCESS);
  EXPECT_STREQ(name, "python3 train.py");
  EXPECT_EQ(nvml().nvmlSystemGetProcessName(1, name, sizeof name),
            NVML_ERROR_NOT_FOUND);

  unsigned long long ecc = 0;
  ASSERT_EQ(
      nvml().nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                         NVML_AGGREGATE_ECC, &ecc),
      NVML_SUCCESS);
  EXPECT_EQ(ecc, 1u);
  // nvml.h: a NULL address buffer is INVALID_ARGUMENT, even as a count query.
  unsigned pages = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetRetiredPages(
                d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                &pages, nullptr),
            NVML_ERROR_INVALID_ARGUMENT);
  unsigned long long addresses[2] = {};
  pages = 1;
  ASSERT_EQ(nvml().nvmlDeviceGetRetiredPages(
                d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                &pages, addresses),
            NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(pages, 2u);
  ASSERT_EQ(nvml().nvmlDeviceGetRetiredPages(
                d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                &pages, addresses),
            NVML_SUCCESS);
  EXPECT_NE(addresses[0], addresses[1]);
  unsigned corr = 0, unc = 0, pending = 0, failure = 9;
  ASSERT_EQ(
      nvml().nvmlDeviceGetRemappedRows(d, &corr, &unc, &pending, &failure),
      NVML_SUCCESS);
  EXPECT_EQ(corr, 4u);
  EXPECT_EQ(pending, 1u);
  EXPECT_EQ(failure, 0u);

  int active = -1;
  ASSERT_EQ(nvml().nvmlDeviceGetNvLinkState(d, 1, &active), NVML_SUCCESS);
  EXPECT_EQ(active, NVML_FEATURE_DISABLED);
  EXPECT_EQ(nvml().nvmlDeviceGetNvLinkState(d, 2, &active),
            NVML_ERROR_INVALID_ARGUMENT);
  unsigned long long errors = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetNvLinkErrorCounter(
                d, 0, NVML_NVLINK_ERROR_DL_CRC_DATA, &errors),
            NVML_SUCCESS);
  EXPECT_EQ(errors, 2u);
  EXPECT_EQ(nvml().nvmlDeviceGetNvLinkErrorCounter(
                d, 1, NVML_NVLINK_ERROR_DL_RECOVERY, &errors),
            NVML_ERROR_NOT_SUPPORTED);
}

TEST_F(FakeNvmlTest, XmlScenarioServesTheDocumentsValues) {
  auto xml = SharedXml("telegraf-rtx3060-570.124.04-v12.xml");
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << xml << " not found";
  ASSERT_EQ(Init(xml.string()), NVML_SUCCESS);
  char text[96];
  ASSERT_EQ(nvml().nvmlSystemGetDriverVersion(text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "570.124.04");
  int cuda = 0;
  ASSERT_EQ(nvml().nvmlSystemGetCudaDriverVersion(&cuda), NVML_SUCCESS);
  EXPECT_EQ(cuda, 12080);
  nvmlDevice_t d = Handle(0);
  nvmlMemory_v2_t mem{};
  mem.version = nvmlMemory_v2;
  ASSERT_EQ(nvml().nvmlDeviceGetMemoryInfo_v2(d, &mem), NVML_SUCCESS);
  EXPECT_EQ(mem.total, 12288ULL << 20);
  unsigned value = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetPowerManagementLimit(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 170000u);
  ASSERT_EQ(nvml().nvmlDeviceGetMaxPcieLinkGeneration(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 4u);
  ASSERT_EQ(
      nvml().nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, &value),
      NVML_SUCCESS);
  EXPECT_EQ(value, 550u);
  unsigned long long reasons = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetCurrentClocksEventReasons(d, &reasons),
            NVML_SUCCESS);
  EXPECT_EQ(reasons, 0x1ULL);
  nvmlPciInfo_t pci{};
  ASSERT_EQ(nvml().nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  EXPECT_STREQ(pci.busId, "00000000:2D:00.0");
  EXPECT_EQ(pci.pciDeviceId, 0x248710DEu);
  EXPECT_EQ(nvml().nvmlDeviceGetSerial(d, text, sizeof text),
            NVML_ERROR_NOT_SUPPORTED);
}

TEST_F(FakeNvmlTest, JsonGpuOnXmlBaseWithOverrides) {
  auto xml = SharedXml("telegraf-dual-rtxa5000-590.44.01-v13.xml");
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << xml << " not found";
  std::string path = WriteFile("xml_base.json", R"({"gpus": [
      {"xml": ")" + xml.string() + R"(", "xml_gpu": 1, "temperature_c": 88,
       "power_draw_w": null}]})");
  ASSERT_EQ(Init(path), NVML_SUCCESS);
  char text[96];
  ASSERT_EQ(nvml().nvmlSystemGetDriverVersion(text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "590.44.01");
  nvmlDevice_t d = Handle(0);
  nvmlPciInfo_t pci{};
  ASSERT_EQ(nvml().nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  EXPECT_STREQ(pci.busId, "00000000:C1:00.0");
  unsigned value = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &value),
            NVML_SUCCESS);
  EXPECT_EQ(value, 88u);
  EXPECT_EQ(nvml().nvmlDeviceGetPowerUsage(d, &value),
            NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(nvml().nvmlDeviceGetPowerManagementLimit(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 230000u);
}

}  // namespace
}  // namespace fake_test
