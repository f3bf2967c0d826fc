// The NVML reader against what drivers from R450 to R610 export and answer,
// through NvmlSession on the fake NVML: per-call fallbacks to older calls,
// both _v3 process layouts, retired pages with a real buffer, every field
// value type, NVML's own "used" memory, and a GPU lost on its first call.
#include <cstdlib>

#include "nvml/nvml_session.h"
#include "unit/fake_nvml_client.h"

namespace fake_test {
namespace {

using gpudoctor::GpuState;
using gpudoctor::GpuStatus;
using gpudoctor::NvmlOptions;
using gpudoctor::NvmlSession;
using gpudoctor::SystemStatus;

constexpr const char* kEightProcesses = R"("processes": [
    {"pid": 1101, "name": "trainer-0", "used_memory_bytes": 1073741824},
    {"pid": 1102, "name": "trainer-1", "used_memory_bytes": 2147483648},
    {"pid": 1103, "name": "trainer-2", "used_memory_bytes": 3221225472},
    {"pid": 1104, "name": "trainer-3", "used_memory_bytes": null},
    {"pid": 1105, "name": "trainer-4", "used_memory_bytes": 5368709120},
    {"pid": 1106, "name": "trainer-5", "used_memory_bytes": 6442450944},
    {"pid": 1107, "name": "trainer-6", "used_memory_bytes": 7516192768},
    {"pid": 1108, "name": "trainer-7", "used_memory_bytes": 8589934592}])";

class NvmlDriverCompatTest : public FakeNvmlTest {
 protected:
  // One sample of a one-GPU scenario: `top` are extra top-level keys (each
  // followed by a comma), `gpu` the GPU's keys.
  SystemStatus SampleOf(const std::string& top, const std::string& gpu,
                        const char* library = FAKE_NVML_LIBRARY) {
    const std::string text = "{" + top + R"("gpus": [{"name": "G", "pci_bus_id": "0000:3b:00.0", )" +
                             gpu + "}]}";
    setenv("FAKE_NVML_SCENARIO", WriteFile("compat.json", text).c_str(), 1);
    NvmlOptions options;
    options.library_path = library;
    options.call_deadline = std::chrono::milliseconds(5000);
    auto session = NvmlSession::Open(options);
    SystemStatus status = session->Sample();
    EXPECT_TRUE(status.nvml_loaded) << status.nvml_error;
    EXPECT_EQ(status.gpus.size(), 1u);
    return status;
  }

  const GpuStatus& Gpu(const SystemStatus& s) { return s.gpus.at(0); }

  static void ExpectEightProcesses(const GpuStatus& g) {
    ASSERT_TRUE(g.processes.has_value()) << "no process list";
    ASSERT_EQ(g.processes->size(), 8u);
    for (unsigned i = 0; i < 8; ++i) {
      const auto& p = (*g.processes)[i];
      EXPECT_EQ(p.pid, 1101 + i) << "process " << i;
      EXPECT_EQ(p.name, "trainer-" + std::to_string(i)) << "process " << i;
      if (i == 3) {
        EXPECT_FALSE(p.used_memory_bytes.has_value());
      } else {
        EXPECT_EQ(p.used_memory_bytes, static_cast<std::int64_t>(i + 1) << 30) << "process " << i;
      }
    }
  }
};

// ---- processes ---------------------------------------------------------

TEST_F(NvmlDriverCompatTest, ThirtyTwoByteV3RecordsOf535_54AreReadCorrectly) {
  for (const char* driver : {"535.43.02", "535.54.03", "535.86.05"}) {
    SCOPED_TRACE(driver);
    auto s = SampleOf(std::string(R"("driver_profile": ")") + driver + "\", ", kEightProcesses);
    ExpectEightProcesses(Gpu(s));
  }
}

TEST_F(NvmlDriverCompatTest, TwentyFourByteV3RecordsOfOtherDriversAreReadCorrectly) {
  for (const char* driver : {"535.104.05", "550.163.01", "610.43.02"}) {
    SCOPED_TRACE(driver);
    auto s = SampleOf(std::string(R"("driver_profile": ")") + driver + "\", ", kEightProcesses);
    ExpectEightProcesses(Gpu(s));
  }
}

TEST_F(NvmlDriverCompatTest, ProcessCallsFallBackToV2AndV1) {
  // 470 lacks _v3 (FUNCTION_NOT_FOUND); 450.51 lacks _v2 too: v1's 16 bytes.
  ExpectEightProcesses(Gpu(SampleOf(R"("driver_profile": "470.256.02", )", kEightProcesses)));
  ExpectEightProcesses(Gpu(SampleOf(R"("driver_profile": "450.51.06", )", kEightProcesses)));
  // A newest driver whose _v3 answers DEPRECATED or NOT_SUPPORTED.
  for (const char* answer : {"NVML_ERROR_DEPRECATED", "NVML_ERROR_NOT_SUPPORTED"}) {
    SCOPED_TRACE(answer);
    ExpectEightProcesses(Gpu(SampleOf(
        std::string(R"("function_errors": {"nvmlDeviceGetComputeRunningProcesses_v3": ")") +
            answer + "\"}, ",
        kEightProcesses)));
  }
  // The r450 library does not export _v2/_v3 at all: v1 through dlsym.
  ExpectEightProcesses(Gpu(SampleOf("", kEightProcesses, FAKE_NVML_R450_LIBRARY)));
}

TEST_F(NvmlDriverCompatTest, V1FallbackReadsTheTwentyFourByteRecordsOf450_66To465_31) {
  // Those drivers' nvml.h declares the legacy call with 24-byte records; when
  // _v2 is not there to answer, v1's stride is probed, not assumed 16.
  for (const char* driver : {"450.66", "460.32.03", "465.31", "450.51.06", "470.57.02"}) {
    SCOPED_TRACE(driver);
    ExpectEightProcesses(Gpu(SampleOf(
        std::string(R"("driver_profile": ")") + driver +
            R"(", "function_errors": {"nvmlDeviceGetComputeRunningProcesses_v2": "NVML_ERROR_FUNCTION_NOT_FOUND",
                                    "nvmlDeviceGetComputeRunningProcesses_v3": "NVML_ERROR_FUNCTION_NOT_FOUND"}, )",
        kEightProcesses)));
  }
}

TEST_F(NvmlDriverCompatTest, AProcessErrorOtherThanFallbackAnswersIsReported) {
  auto s = SampleOf(R"("function_errors": {"nvmlDeviceGetComputeRunningProcesses_v3": "NVML_ERROR_NO_PERMISSION"}, )",
                    kEightProcesses);
  EXPECT_FALSE(Gpu(s).processes.has_value());
  ASSERT_TRUE(Gpu(s).field_errors.count("processes"));
  EXPECT_NE(Gpu(s).field_errors.at("processes").find("permission denied"), std::string::npos);
}

// ---- retired pages, memory, field values --------------------------------

TEST_F(NvmlDriverCompatTest, RetiredPagesAreCountedWithARealBuffer) {
  // The fake refuses a NULL buffer as nvml.h says; gpudoctor used to send one
  // and read the refusal as "not supported".
  auto s = SampleOf("", R"("retired_pages_sbe": 3, "retired_pages_dbe": 1)");
  EXPECT_EQ(Gpu(s).retired_pages_sbe, 3);
  EXPECT_EQ(Gpu(s).retired_pages_dbe, 1);
  // More pages than the first buffer holds: it grows.
  auto many = SampleOf("", R"("retired_pages_sbe": 200, "retired_pages_dbe": 0)");
  EXPECT_EQ(Gpu(many).retired_pages_sbe, 200);
  EXPECT_EQ(Gpu(many).retired_pages_dbe, 0);
  EXPECT_TRUE(Gpu(many).field_errors.empty());
}

TEST_F(NvmlDriverCompatTest, MemoryUsedIsNvmlsUsedNotADifferenceOfRoundedValues) {
  // The driver rounds: used is not total - free - reserved here.
  auto s = SampleOf("", R"("memory_total_bytes": 85520809984, "memory_reserved_bytes": 552599552,
                           "memory_free_bytes": 84414808064, "memory_used_bytes": 553648128)");
  EXPECT_EQ(Gpu(s).memory_used_bytes, 553648128);
  EXPECT_EQ(Gpu(s).memory_free_bytes, 84414808064);
  EXPECT_EQ(Gpu(s).memory_reserved_bytes, 552599552);
  // Without _v2 (R470): v1's used, which includes the reserved memory.
  auto v1 = SampleOf(R"("driver_profile": "470.256.02", )",
                     R"("memory_total_bytes": 85520809984, "memory_reserved_bytes": 552599552,
                        "memory_free_bytes": 84414808064, "memory_used_bytes": 553648128)");
  EXPECT_EQ(Gpu(v1).memory_used_bytes, 553648128 + 552599552);
  EXPECT_FALSE(Gpu(v1).memory_reserved_bytes.has_value());
}

TEST_F(NvmlDriverCompatTest, FieldValuesOfEveryTypeAreRead) {
  for (const char* type : {"double", "unsigned_int", "unsigned_long", "unsigned_long_long",
                           "signed_long_long", "signed_int", "unsigned_short"}) {
    SCOPED_TRACE(type);
    auto s = SampleOf("", std::string(R"("field_value_type": ")") + type +
                              R"(", "memory_temperature_c": 71, "violation_power_ns": 5000,
                                 "violation_thermal_ns": 700)");
    EXPECT_EQ(Gpu(s).memory_temperature_c, 71);
    EXPECT_EQ(Gpu(s).violation_power_ns, 5000);
    EXPECT_EQ(Gpu(s).violation_thermal_ns, 700);
  }
}

// ---- preferred calls and their fallbacks --------------------------------

TEST_F(NvmlDriverCompatTest, TemperatureVIsPreferredAndTheOldCallIsTheFallback) {
  // The old call deprecated away: the reading still comes, from ...V.
  auto v = SampleOf(R"("function_errors": {"nvmlDeviceGetTemperature": "NVML_ERROR_DEPRECATED"}, )",
                    R"("temperature_c": 61)");
  EXPECT_EQ(Gpu(v).temperature_c, 61);
  // ...V missing (R550), deprecated, or refusing our struct version.
  for (const char* top :
       {R"("driver_profile": "550.163.01", )",
        R"("function_errors": {"nvmlDeviceGetTemperatureV": "NVML_ERROR_DEPRECATED"}, )",
        R"("function_errors": {"nvmlDeviceGetTemperatureV": "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"}, )"}) {
    SCOPED_TRACE(top);
    auto s = SampleOf(top, R"("temperature_c": 62)");
    EXPECT_EQ(Gpu(s).temperature_c, 62);
    EXPECT_TRUE(Gpu(s).field_errors.empty());
  }
  auto absent = SampleOf("", R"("temperature_c": 63)", FAKE_NVML_R450_LIBRARY);
  EXPECT_EQ(Gpu(absent).temperature_c, 63);
}

TEST_F(NvmlDriverCompatTest, ViolationCountersComeFromFieldValuesFirst) {
  const std::string gpu = R"("violation_power_ns": 5000000000, "violation_thermal_ns": 42)";
  // GetViolationStatus deprecated away: both counters from fields 74 and 269.
  auto fields = SampleOf(
      R"("function_errors": {"nvmlDeviceGetViolationStatus": "NVML_ERROR_DEPRECATED"}, )", gpu);
  EXPECT_EQ(Gpu(fields).violation_power_ns, 5000000000LL);
  EXPECT_EQ(Gpu(fields).violation_thermal_ns, 42);
  // Before R575 there is no field 269: thermal from the old call.
  auto r550 = SampleOf(R"("driver_profile": "550.163.01", )", gpu);
  EXPECT_EQ(Gpu(r550).violation_power_ns, 5000000000LL);
  EXPECT_EQ(Gpu(r550).violation_thermal_ns, 42);
  auto r550_no_old = SampleOf(
      R"("driver_profile": "550.163.01", "function_errors": {"nvmlDeviceGetViolationStatus": "NVML_ERROR_DEPRECATED"}, )",
      gpu);
  EXPECT_EQ(Gpu(r550_no_old).violation_power_ns, 5000000000LL);
  EXPECT_FALSE(Gpu(r550_no_old).violation_thermal_ns.has_value());
}

TEST_F(NvmlDriverCompatTest, ThermalCounterFieldIsChosenByTheDriverVersion) {
  // 575.51.02 to 580.76.05 answer the counter as field 251 and the power
  // smoothing preset profile (2 here) as 269; from 580.82 the counter is 269.
  const std::string gpu = R"("violation_power_ns": 5000000000, "violation_thermal_ns": 123456789)";
  for (const char* driver : {"575.51.02", "575.64.05", "580.76.05", "580.82.07", "590.44.01"}) {
    SCOPED_TRACE(driver);
    // With the old call still there (it would answer 123456789 too) and without.
    for (const char* old_call :
         {"", R"("function_errors": {"nvmlDeviceGetViolationStatus": "NVML_ERROR_DEPRECATED"}, )"}) {
      auto s = SampleOf(std::string(R"("driver_profile": ")") + driver + "\", " + old_call, gpu);
      EXPECT_EQ(Gpu(s).violation_thermal_ns, 123456789) << old_call;
      EXPECT_EQ(Gpu(s).violation_power_ns, 5000000000LL);
    }
  }
}

TEST_F(NvmlDriverCompatTest, ClockReasonsFallBackToTheThrottleReasonsName) {
  const std::string gpu = R"("clock_event_reasons": ["sw_power_cap"])";
  for (const char* top :
       {R"("driver_profile": "525.147.05", )",
        R"("function_errors": {"nvmlDeviceGetCurrentClocksEventReasons": "NVML_ERROR_NOT_SUPPORTED"}, )"}) {
    SCOPED_TRACE(top);
    auto s = SampleOf(top, gpu);
    EXPECT_EQ(Gpu(s).clock_event_reasons_mask, 0x4u);
  }
  EXPECT_EQ(Gpu(SampleOf("", gpu, FAKE_NVML_R450_LIBRARY)).clock_event_reasons_mask, 0x4u);
}

TEST_F(NvmlDriverCompatTest, CudaVersionWithoutLibcudaComesFromVersionOne) {
  auto s = SampleOf(R"("libcuda": false, "cuda_driver_version": 12080, )", "\"temperature_c\": 40");
  EXPECT_EQ(s.cuda_driver_version, 12080);
  auto gone = SampleOf(
      R"("function_errors": {"nvmlSystemGetCudaDriverVersion_v2": "NVML_ERROR_FUNCTION_NOT_FOUND"}, "cuda_driver_version": 11040, )",
      "\"temperature_c\": 40");
  EXPECT_EQ(gone.cuda_driver_version, 11040);
  auto none = SampleOf(R"("cuda_driver_version": null, )", "\"temperature_c\": 40");
  EXPECT_FALSE(none.cuda_driver_version.has_value());
}

// ---- a GPU lost on its first call ---------------------------------------

TEST_F(NvmlDriverCompatTest, GpuLostOnItsFirstCallIsNamedByBusId) {
  auto s = SampleOf("", R"("faults": [{"kind": "lost", "keeps_pci_info": true}])");
  EXPECT_EQ(Gpu(s).state, GpuState::kLost);
  EXPECT_EQ(Gpu(s).pci_bus_id, "0000:3b:00.0");
  // A GPU whose handle cannot be had gives nothing to name it by.
  auto gone = SampleOf("", R"("faults": [{"kind": "lost"}])");
  EXPECT_EQ(Gpu(gone).state, GpuState::kLost);
  EXPECT_EQ(Gpu(gone).pci_bus_id, "");
}

}  // namespace
}  // namespace fake_test
