// The fake NVML over time: metrics timelines, faults, events and setters.
#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "unit/fake_nvml_client.h"

namespace fake_test {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

unsigned Temperature(nvmlDevice_t d, nvmlReturn_t* rc) {
  unsigned value = 0;
  *rc = Api().nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &value);
  return value;
}

struct Sample {
  unsigned util = 0;
  unsigned temperature = 0;
  unsigned power_mw = 0;
  int pstate = -1;
};

class FakeNvmlMetricsTest : public FakeNvmlTest {
 protected:
  Sample At(double t) {
    Sample s;
    EXPECT_EQ(Init(DataPath("metrics.json"), t), NVML_SUCCESS);
    nvmlDevice_t d = Handle(0);
    nvmlUtilization_t u{};
    EXPECT_EQ(nvml().nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
    s.util = u.gpu;
    nvmlReturn_t rc;
    s.temperature = Temperature(d, &rc);
    EXPECT_EQ(rc, NVML_SUCCESS);
    EXPECT_EQ(nvml().nvmlDeviceGetPowerUsage(d, &s.power_mw), NVML_SUCCESS);
    if (nvml().nvmlDeviceGetPerformanceState(d, &s.pstate) != NVML_SUCCESS) {
      s.pstate = -1;  // no base pstate before its first step
    }
    TearDown();  // back to uninitialised so that the next At() re-reads
    return s;
  }
};

TEST_F(FakeNvmlMetricsTest, ValuesCycleRampAndSteps) {
  Sample s0 = At(0.5);
  EXPECT_EQ(s0.util, 10u);
  EXPECT_EQ(s0.temperature, 40u);
  EXPECT_EQ(s0.power_mw, 100000u);  // base value before the first step
  EXPECT_EQ(s0.pstate, -1);
  Sample s1 = At(3);
  EXPECT_EQ(s1.util, 90u);
  EXPECT_EQ(s1.pstate, -1);
  Sample s15 = At(15);
  EXPECT_EQ(s15.util, 90u);  // slot 7, 7 % 3 == 1
  EXPECT_EQ(s15.power_mw, 250000u);
  EXPECT_EQ(s15.pstate, 2);
  Sample s2 = At(50.2);
  EXPECT_EQ(s2.util, 90u);  // slot 25, 25 % 3 == 1
  EXPECT_EQ(s2.temperature, 65u);
  EXPECT_EQ(s2.power_mw, 120500u);
  Sample s3 = At(504.5);
  EXPECT_EQ(s3.util, 10u);  // slot 252, 252 % 3 == 0
  EXPECT_EQ(s3.temperature, 90u);
  EXPECT_EQ(s3.power_mw, 120500u);
}

TEST_F(FakeNvmlTest, LostFaultAfterItsTime) {
  ASSERT_EQ(Init(DataPath("faults.json"), 29), NVML_SUCCESS);
  nvmlReturn_t rc;
  EXPECT_EQ(Temperature(Handle(0), &rc), 91u);
  EXPECT_EQ(rc, NVML_SUCCESS);
  TearDown();
  ASSERT_EQ(Init(DataPath("faults.json"), 31), NVML_SUCCESS);
  nvmlDevice_t d = nullptr;
  EXPECT_EQ(nvml().nvmlDeviceGetHandleByIndex_v2(0, &d),
            NVML_ERROR_GPU_IS_LOST);
  unsigned count = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 3u);
}

TEST_F(FakeNvmlTest, HangBlocksOnlyThatGpu) {
  ASSERT_EQ(Init(DataPath("faults.json"), 4), NVML_SUCCESS);
  nvmlDevice_t hung = Handle(1);
  TearDown();
  ASSERT_EQ(Init(DataPath("faults.json"), 6), NVML_SUCCESS);
  auto blocked = std::async(std::launch::async, [hung] {
    nvmlReturn_t rc;
    return Temperature(hung, &rc);
  });
  // The call never returns: keep its future alive for the rest of the
  // process (reachable from a static, so leak checkers stay quiet), since
  // destroying it would wait forever.
  static auto* hung_call = new std::future<unsigned>(std::move(blocked));
  EXPECT_EQ(hung_call->wait_for(milliseconds(300)),
            std::future_status::timeout);
  nvmlReturn_t rc;
  EXPECT_EQ(Temperature(Handle(0), &rc), 91u);  // other GPUs still answer
  EXPECT_EQ(rc, NVML_SUCCESS);
}

TEST_F(FakeNvmlTest, SlowAndErrorFaults) {
  ASSERT_EQ(Init(DataPath("faults.json")), NVML_SUCCESS);
  nvmlDevice_t d = Handle(2);
  auto start = steady_clock::now();
  nvmlReturn_t rc;
  EXPECT_EQ(Temperature(d, &rc), 45u);
  EXPECT_EQ(rc, NVML_SUCCESS);
  EXPECT_GE(steady_clock::now() - start, milliseconds(45));
  unsigned value = 0;
  EXPECT_EQ(nvml().nvmlDeviceGetPowerUsage(d, &value),
            NVML_ERROR_NO_PERMISSION);
  EXPECT_EQ(nvml().nvmlDeviceGetPowerManagementLimit(d, &value), NVML_SUCCESS);
  EXPECT_EQ(nvml().nvmlDeviceSetPowerManagementLimit(d, 200000),
            NVML_ERROR_NO_PERMISSION);
}

TEST_F(FakeNvmlTest, XidDeliveredOnceThroughEvents) {
  ASSERT_EQ(Init(DataPath("faults.json"), 11.9), NVML_SUCCESS);
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(nvml().nvmlEventSetCreate(&set), NVML_SUCCESS);
  nvmlDevice_t d = Handle(0);
  unsigned long long types = 0;
  ASSERT_EQ(nvml().nvmlDeviceGetSupportedEventTypes(d, &types), NVML_SUCCESS);
  EXPECT_EQ(types, nvmlEventTypeXidCriticalError);
  EXPECT_EQ(nvml().nvmlDeviceRegisterEvents(d, 0x1, set),
            NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(nvml().nvmlDeviceRegisterEvents(d, types, set), NVML_SUCCESS);
  nvmlEventData_t data{};
  // Due at 12 s; we start at 11.9 s, so it arrives within a 1 s wait.
  ASSERT_EQ(nvml().nvmlEventSetWait_v2(set, &data, 1000), NVML_SUCCESS);
  EXPECT_EQ(data.device, d);
  EXPECT_EQ(data.eventType, nvmlEventTypeXidCriticalError);
  EXPECT_EQ(data.eventData, 79u);
  auto start = steady_clock::now();
  EXPECT_EQ(nvml().nvmlEventSetWait_v2(set, &data, 50), NVML_ERROR_TIMEOUT);
  EXPECT_GE(steady_clock::now() - start, milliseconds(45));
  EXPECT_EQ(nvml().nvmlEventSetFree(set), NVML_SUCCESS);
}

TEST_F(FakeNvmlTest, SettersChangeStateAndAreLogged) {
  std::string log = WriteFile("calls.log", "");
  setenv("FAKE_NVML_CALL_LOG", log.c_str(), 1);
  ASSERT_EQ(Init(DataPath("setters.json")), NVML_SUCCESS);
  nvmlDevice_t d = Handle(0);
  unsigned value = 0;
  EXPECT_EQ(nvml().nvmlDeviceSetPowerManagementLimit(d, 350000),
            NVML_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(nvml().nvmlDeviceSetPowerManagementLimit(d, 275000), NVML_SUCCESS);
  ASSERT_EQ(nvml().nvmlDeviceGetPowerManagementLimit(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 275000u);
  ASSERT_EQ(nvml().nvmlDeviceGetEnforcedPowerLimit(d, &value), NVML_SUCCESS);
  EXPECT_EQ(value, 275000u);

  ASSERT_EQ(nvml().nvmlDeviceSetPersistenceMode(d, NVML_FEATURE_ENABLED),
            NVML_SUCCESS);
  int mode = -1;
  ASSERT_EQ(nvml().nvmlDeviceGetPersistenceMode(d, &mode), NVML_SUCCESS);
  EXPECT_EQ(mode, NVML_FEATURE_ENABLED);
  ASSERT_EQ(nvml().nvmlDeviceSetComputeMode(d, NVML_COMPUTEMODE_PROHIBITED),
            NVML_SUCCESS);
  ASSERT_EQ(nvml().nvmlDeviceGetComputeMode(d, &mode), NVML_SUCCESS);
  EXPECT_EQ(mode, NVML_COMPUTEMODE_PROHIBITED);

  ASSERT_EQ(nvml().nvmlDeviceSetApplicationsClocks(d, 5001, 1500),
            NVML_SUCCESS);
  ASSERT_EQ(
      nvml().nvmlDeviceGetApplicationsClock(d, NVML_CLOCK_GRAPHICS, &value),
      NVML_SUCCESS);
  EXPECT_EQ(value, 1500u);
  EXPECT_EQ(nvml().nvmlDeviceSetApplicationsClocks(d, 5001, 2500),
            NVML_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(nvml().nvmlDeviceResetApplicationsClocks(d), NVML_SUCCESS);
  ASSERT_EQ(
      nvml().nvmlDeviceGetApplicationsClock(d, NVML_CLOCK_GRAPHICS, &value),
      NVML_SUCCESS);
  EXPECT_EQ(value, 1200u);

  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "nvmlDeviceSetPowerManagementLimit gpu=0 limit_mw=350000 -> 2\n"
            "nvmlDeviceSetPowerManagementLimit gpu=0 limit_mw=275000 -> 0\n"
            "nvmlDeviceSetPersistenceMode gpu=0 mode=1 -> 0\n"
            "nvmlDeviceSetComputeMode gpu=0 mode=2 -> 0\n"
            "nvmlDeviceSetApplicationsClocks gpu=0 mem_mhz=5001 "
            "graphics_mhz=1500 -> 0\n"
            "nvmlDeviceSetApplicationsClocks gpu=0 mem_mhz=5001 "
            "graphics_mhz=2500 -> 2\n"
            "nvmlDeviceResetApplicationsClocks gpu=0 -> 0\n");
}

}  // namespace
}  // namespace fake_test
