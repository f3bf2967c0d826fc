// Library lifetime, system queries, device enumeration and identity.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "fake_state.h"

namespace fake {
namespace {

double TimeOffsetFromEnv() {
  const char* text = std::getenv("FAKE_NVML_TIME_OFFSET_S");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  double offset = std::strtod(text, &end);
  if (end == text || *end != '\0') {
    std::fprintf(stderr, "fake NVML: ignoring FAKE_NVML_TIME_OFFSET_S=%s\n",
                 text);
    return 0;
  }
  return offset;
}

nvmlReturn_t Init() {
  State& s = TheState();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.refcount > 0) {
      ++s.refcount;
      return NVML_SUCCESS;
    }
  }
  const char* path = std::getenv("FAKE_NVML_SCENARIO");
  if (path == nullptr || *path == '\0') return NVML_ERROR_DRIVER_NOT_LOADED;
  double start = SteadySeconds();
  std::string error;
  std::optional<Scenario> scenario = LoadScenario(path, &error);
  if (!scenario) {
    std::fprintf(stderr, "fake NVML: %s\n", error.c_str());
    return NVML_ERROR_UNKNOWN;
  }
  if (scenario->init_delay_ms > 0) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(scenario->init_delay_ms));
  }
  if (scenario->init_error != NVML_SUCCESS) return scenario->init_error;
  double offset = TimeOffsetFromEnv();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.refcount == 0) {
    s.scenario = std::move(*scenario);
    s.start_s = start;
    s.time_offset_s = offset;
  }
  ++s.refcount;
  // A test that must act once the program has loaded the driver (and is
  // about to take its first reading) waits for this file to appear.
  if (const char* mark = std::getenv("FAKE_NVML_INIT_MARK"); mark != nullptr && *mark != '\0') {
    if (std::FILE* f = std::fopen(mark, "w")) std::fclose(f);
  }
  return NVML_SUCCESS;
}

// Runs body(scenario) when initialised and `function` is served.
template <typename Body>
nvmlReturn_t WithSystem(std::string_view function, Body&& body) {
  std::lock_guard<std::mutex> lock(TheState().mu);
  if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (nvmlReturn_t rc = FunctionAnswerLocked(function); rc != NVML_SUCCESS) {
    return rc;
  }
  return body(TheState().scenario);
}

nvmlReturn_t GetCount(const char* function, unsigned* count) {
  return WithSystem(function, [&](const Scenario& s) -> nvmlReturn_t {
    if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *count = static_cast<unsigned>(s.gpus.size());
    return NVML_SUCCESS;
  });
}

nvmlReturn_t GetHandle(const char* function, unsigned index,
                       nvmlDevice_t* device) {
  std::unique_lock<std::mutex> lock(TheState().mu);
  if (TheState().refcount == 0) return NVML_ERROR_UNINITIALIZED;
  if (nvmlReturn_t rc = FunctionAnswerLocked(function); rc != NVML_SUCCESS) {
    return rc;
  }
  FakeGpu* gpu = nullptr;
  const gpudoctor::GpuStatus* now = nullptr;
  double t = 0;
  nvmlReturn_t rc = EnterGpu(function, index, lock, {}, &gpu, &now, &t);
  if (rc != NVML_SUCCESS) return rc;
  if (device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *device = HandleOf(index);
  return NVML_SUCCESS;
}

// `asks_libcuda`: _v2, which calls cuDriverGetVersion and so answers
// LIBRARY_NOT_FOUND without libcuda ("libcuda": false); version 1 answers
// the version this driver supports all the same.
nvmlReturn_t CudaVersion(const char* function, bool asks_libcuda, int* version) {
  return WithSystem(function, [&](const Scenario& s) -> nvmlReturn_t {
    if (version == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (!s.cuda_driver_version) return NVML_ERROR_LIBRARY_NOT_FOUND;
    if (asks_libcuda && !s.libcuda) return NVML_ERROR_LIBRARY_NOT_FOUND;
    *version = *s.cuda_driver_version;
    return NVML_SUCCESS;
  });
}

}  // namespace
}  // namespace fake

using fake::CopyString;
using fake::GpuCall;
using fake::WithGpu;

extern "C" {

nvmlReturn_t nvmlInit_v2(void) { return fake::Init(); }
nvmlReturn_t nvmlInit(void) { return fake::Init(); }

nvmlReturn_t nvmlShutdown(void) {
  std::lock_guard<std::mutex> lock(fake::TheState().mu);
  if (fake::TheState().refcount > 0) --fake::TheState().refcount;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  return fake::ReturnCodeText(result);
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  return fake::WithSystem(__func__, [&](const fake::Scenario& s) -> nvmlReturn_t {
    return CopyString(s.driver_version, version, length);
  });
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  return fake::WithSystem(__func__, [&](const fake::Scenario& s) -> nvmlReturn_t {
    return CopyString(s.nvml_version, version, length);
  });
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
  return fake::CudaVersion(__func__, true, cudaDriverVersion);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion) {
  return fake::CudaVersion(__func__, false, cudaDriverVersion);
}

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char* name,
                                      unsigned int length) {
  return fake::WithSystem(__func__, [&](const fake::Scenario& s) -> nvmlReturn_t {
    for (const fake::FakeGpu& gpu : s.gpus) {
      if (!gpu.status.processes) continue;
      for (const auto& p : *gpu.status.processes) {
        if (p.pid == pid) return CopyString(p.name, name, length);
      }
    }
    return NVML_ERROR_NOT_FOUND;
  });
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  return fake::GetCount(__func__, deviceCount);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int* deviceCount) {
  return fake::GetCount(__func__, deviceCount);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                           nvmlDevice_t* device) {
  return fake::GetHandle(__func__, index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index,
                                        nvmlDevice_t* device) {
  return fake::GetHandle(__func__, index, device);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name,
                               unsigned int length) {
  return WithGpu(__func__, device, {"name"}, [&](const GpuCall& c) -> nvmlReturn_t {
    return CopyString(c.now.name, name, length);
  });
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid,
                               unsigned int length) {
  return WithGpu(__func__, device, {"uuid"}, [&](const GpuCall& c) -> nvmlReturn_t {
    return CopyString(c.now.uuid, uuid, length);
  });
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char* serial,
                                 unsigned int length) {
  return WithGpu(__func__, device, {"serial"}, [&](const GpuCall& c) -> nvmlReturn_t {
    return CopyString(c.now.serial.value_or(""), serial, length);
  });
}

nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char* partNumber,
                                          unsigned int length) {
  return WithGpu(__func__, device, {"board_part_number"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   return CopyString(c.now.board_part_number.value_or(""),
                                     partNumber, length);
                 });
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char* version,
                                       unsigned int length) {
  return WithGpu(
      __func__, device, {"vbios_version"}, [&](const GpuCall& c) -> nvmlReturn_t {
        return CopyString(c.now.vbios_version.value_or(""), version, length);
      });
}

nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device,
                                              char* version,
                                              unsigned int length) {
  return WithGpu(__func__, device, {"inforom_image_version"},
                 [&](const GpuCall& c) -> nvmlReturn_t {
                   return CopyString(c.now.inforom_image_version.value_or(""),
                                     version, length);
                 });
}

nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int* isEnabled,
                                          unsigned int* defaultMode) {
  return WithGpu(__func__, device, {"gsp_firmware_enabled"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (isEnabled == nullptr || defaultMode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (!c.now.gsp_firmware_enabled) return NVML_ERROR_NOT_SUPPORTED;
    *isEnabled = *c.now.gsp_firmware_enabled ? 1 : 0;
    *defaultMode = *isEnabled;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetGspFirmwareVersion(nvmlDevice_t device, char* version) {
  return WithGpu(__func__, device, {"gsp_firmware_version"}, [&](const GpuCall& c) -> nvmlReturn_t {
    // NVML documents a buffer of at least NVML_GSP_FIRMWARE_VERSION_BUF_SIZE.
    return CopyString(c.now.gsp_firmware_version.value_or(""), version,
                      kNvmlGspFirmwareVersionBufferSize);
  });
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return WithGpu(__func__, device, {"pci_bus_id"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned domain = 0, bus = 0, dev = 0, function = 0;
    if (std::sscanf(c.now.pci_bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus,
                    &dev, &function) != 4) {
      return NVML_ERROR_NOT_SUPPORTED;
    }
    *pci = nvmlPciInfo_t{};
    pci->domain = domain;
    pci->bus = bus;
    pci->device = dev;
    pci->pciDeviceId = c.gpu->pci_device_id;
    std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain,
                  bus, dev);
    std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0",
                  domain, bus, dev);
    return NVML_SUCCESS;
  });
}

}  // extern "C"
