// Our own declarations of the part of the NVML C ABI that gpudoctor uses,
// written from NVIDIA's documented layouts (see shared/facts/nvml-facts.md).
// We never include NVIDIA's nvml.h and never link libnvidia-ml: the library is
// opened with dlopen and every function below is looked up with dlsym.
//
// NVML_FUNCTIONS lists every symbol with its exact C signature. The loader
// turns it into function pointers; the fake NVML used by the tests turns it
// into prototypes, so both sides are checked against one list.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlEventSet_st* nvmlEventSet_t;
typedef int nvmlEnableState_t;
typedef int nvmlTemperatureSensors_t;
typedef int nvmlTemperatureThresholds_t;
typedef int nvmlClockType_t;
typedef int nvmlPstates_t;
typedef int nvmlPerfPolicyType_t;
typedef int nvmlComputeMode_t;
typedef int nvmlMemoryErrorType_t;
typedef int nvmlEccCounterType_t;
typedef int nvmlPageRetirementCause_t;
typedef int nvmlPcieUtilCounter_t;
typedef int nvmlNvLinkErrorCounter_t;
typedef int nvmlInforomObject_t;
typedef int nvmlGpuP2PCapsIndex_t;
typedef int nvmlGpuP2PStatus_t;

enum : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_DEPRECATED = 26,
  NVML_ERROR_NOT_READY = 27,
  NVML_ERROR_GPU_NOT_FOUND = 28,
  NVML_ERROR_INVALID_STATE = 29,
  NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
  NVML_ERROR_UNKNOWN = 999,
};

enum : int {
  NVML_FEATURE_DISABLED = 0,
  NVML_FEATURE_ENABLED = 1,
  NVML_TEMPERATURE_GPU = 0,
  NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
  NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
  NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
  NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_PERF_POLICY_POWER = 0,
  NVML_PERF_POLICY_THERMAL = 1,
  NVML_COMPUTEMODE_DEFAULT = 0,
  NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
  NVML_COMPUTEMODE_PROHIBITED = 2,
  NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
  NVML_VOLATILE_ECC = 0,
  NVML_AGGREGATE_ECC = 1,
  NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
  NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
  NVML_PCIE_UTIL_TX_BYTES = 0,
  NVML_PCIE_UTIL_RX_BYTES = 1,
  NVML_NVLINK_ERROR_DL_REPLAY = 0,
  NVML_NVLINK_ERROR_DL_RECOVERY = 1,
  NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
  NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
  NVML_PSTATE_UNKNOWN = 32,
};

// Field ids for nvmlDeviceGetFieldValues.
enum : unsigned {
  // Violation counters in ns (nvml.h 13.x: the replacements of
  // nvmlDeviceGetViolationStatus). 74 is NVML_FI_DEV_PERF_POLICY_POWER, alias
  // NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP, in every header we know.
  // The SW thermal slowdown counter (the header's translation of
  // NVML_PERF_POLICY_THERMAL) moved: it is 251 in the headers of 575.51.02
  // to 580.76.05, where 269 is NVML_FI_PWR_SMOOTHING_PRESET_PROFILE (a small
  // profile number, not nanoseconds), and 269 from 580.82 on; older drivers
  // have neither. Which id a driver answers is chosen from its version
  // (nvml/field_ids.h), never from this header alone.
  NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP = 74,
  NVML_FI_DEV_SW_THERM_SLOWDOWN_575 = 251,
  NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN = 269,
  NVML_FI_PWR_SMOOTHING_PRESET_PROFILE_575 = 269,
  NVML_FI_DEV_MEMORY_TEMP = 82,
  NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT = 193,
  NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT = 194,
  NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT = 195,
  NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT = 196,
  // nvmlDeviceGpuRecoveryAction_t (R570+); field ids are append-only.
  NVML_FI_DEV_GET_GPU_RECOVERY_ACTION = 230,
};

enum : int {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};

constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x8ULL;
constexpr unsigned kNvmlNvLinkMaxLinks = 36;  // 13.3 header value; we probe.
constexpr unsigned kNvmlStringBufferSize = 96;
constexpr unsigned kNvmlGspFirmwareVersionBufferSize = 64;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;

constexpr unsigned int nvmlMemory_v2 =
    static_cast<unsigned int>(sizeof(nvmlMemory_v2_t)) | (2u << 24);

typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

// Running-process records. Each call writes its own layout; what a driver
// really writes is decided per call (nvml/process_records.h), never assumed:
//   nvmlDeviceGetComputeRunningProcesses (v1)  nvmlProcessInfo_v1_t, 16 bytes,
//       except in the headers of 450.66 to 465.31, which declare it with
//       nvmlProcessInfo_t (24 bytes); probed like _v3
//   ..._v2 (from 450.66)                       nvmlProcessInfo_t, 24 bytes
//   ..._v3 (from R510)                         24 bytes, except on 535.43.02,
//       535.54.03 and 535.86.05, whose nvml.h added usedGpuCcProtectedMemory
//       at offset 24 (32 bytes; nvmlProcessInfoCc_t below)
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

// Our name for the 32-byte _v3 record of those three drivers.
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessInfoCc_t;

// nvmlDeviceGetTemperatureV (from 565.57): sensorType in, temperature out.
typedef struct {
  unsigned int version;
  nvmlTemperatureSensors_t sensorType;
  int temperature;
} nvmlTemperature_v1_t;

constexpr unsigned int nvmlTemperature_v1 =
    static_cast<unsigned int>(sizeof(nvmlTemperature_v1_t)) | (1u << 24);

typedef struct {
  unsigned long long referenceTime;
  unsigned long long violationTime;
} nvmlViolationTime_t;

typedef union {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

// GPM, GPU performance monitoring (nvml.h 11.8 / R520 on; Hopper and later).
// Layouts from NVIDIA/go-nvml's copies of nvml.h: the first with GPM (11.8)
// and the current one (13.x); they agree on every struct below.
// Two samples taken at least 100 ms apart (nvml.h: the driver refreshes its
// counters no faster) give metrics averaged between them. nvmlGpmMigSampleGet
// is R525 on (12.0 header).
typedef struct nvmlGpmSample_st* nvmlGpmSample_t;

// nvmlGpmMetricId_t: the metrics gpudoctor reads (values since 11.8, but
// for DMMA, which gpudoctor does not ask for). Per-
// cent metrics are 0.0-100.0; the PCIe and NVLink rates are MiB per second.
enum : unsigned {
  NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
  NVML_GPM_METRIC_SM_UTIL = 2,  // share of SMs busy: "SM activity"
  NVML_GPM_METRIC_SM_OCCUPANCY = 3,
  NVML_GPM_METRIC_INTEGER_UTIL = 4,
  NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
  NVML_GPM_METRIC_DFMA_TENSOR_UTIL = 6,
  NVML_GPM_METRIC_HMMA_TENSOR_UTIL = 7,
  NVML_GPM_METRIC_DMMA_TENSOR_UTIL = 8,  // in the headers from R595 only
  NVML_GPM_METRIC_IMMA_TENSOR_UTIL = 9,
  NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
  NVML_GPM_METRIC_FP64_UTIL = 11,
  NVML_GPM_METRIC_FP32_UTIL = 12,
  NVML_GPM_METRIC_FP16_UTIL = 13,
  NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20,
  NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
  NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60,
  NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61,
};

// NVML_GPM_METRIC_MAX, the length of nvmlGpmMetricsGet_t::metrics, grew with
// the headers: 98 (11.8 to 12.x), 210, 333 (13.x). The driver touches only
// metrics[0, numMetrics), so any length that holds what we ask for is right;
// ours is the largest, and we ask for fewer than 98 metrics.
constexpr unsigned kNvmlGpmMetricMax = 333;

typedef struct {
  char* shortName;
  char* longName;
  char* unit;
} nvmlGpmMetricInfo_t;  // nvml.h declares it inline, unnamed

typedef struct {
  unsigned int metricId;    // in
  nvmlReturn_t nvmlReturn;  // out: value is valid only when NVML_SUCCESS
  double value;             // out
  nvmlGpmMetricInfo_t metricInfo;  // out: names and unit, may be NULL
} nvmlGpmMetric_t;

typedef struct {
  unsigned int version;     // NVML_GPM_METRICS_GET_VERSION
  unsigned int numMetrics;  // in: metrics[0, numMetrics) are asked for
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[kNvmlGpmMetricMax];
} nvmlGpmMetricsGet_t;

constexpr unsigned int NVML_GPM_METRICS_GET_VERSION = 1;

typedef struct {
  unsigned int version;            // NVML_GPM_SUPPORT_VERSION
  unsigned int isSupportedDevice;  // out
} nvmlGpmSupport_t;

constexpr unsigned int NVML_GPM_SUPPORT_VERSION = 1;

// Per-process utilisation. nvmlDeviceGetProcessUtilization (every driver
// gpudoctor supports) writes these; values are percent over the driver's
// last sample period, timeStamp in microseconds (CPU clock).
typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

// nvmlDeviceGetProcessesUtilizationInfo (12.4 header, R550) writes these.
typedef struct {
  unsigned long long timeStamp;
  unsigned int pid;
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
  unsigned int jpgUtil;
  unsigned int ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct {
  unsigned int version;              // nvmlProcessesUtilizationInfo_v1
  unsigned int processSamplesCount;  // in: array length; out: records written
  unsigned long long lastSeenTimeStamp;
  nvmlProcessUtilizationInfo_v1_t* procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;

constexpr unsigned int nvmlProcessesUtilizationInfo_v1 =
    static_cast<unsigned int>(sizeof(nvmlProcessesUtilizationInfo_v1_t)) | (1u << 24);

// NVLink fabric registration (nvml.h from 12.0 / R525; the versioned call
// from 12.4 / R550). On NVSwitch and multi-node NVLink systems the GPU
// registers with Fabric Manager; `status` is meaningful once `state` is
// COMPLETED. Other GPUs answer NOT_SUPPORTED, or state NOT_SUPPORTED.
enum : unsigned char {
  NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0,
  NVML_GPU_FABRIC_STATE_NOT_STARTED = 1,
  NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2,
  NVML_GPU_FABRIC_STATE_COMPLETED = 3,
};
constexpr unsigned kNvmlGpuFabricUuidLen = 16;

// nvmlDeviceGetGpuFabricInfo (deprecated in 13.0; still exported).
typedef struct {
  unsigned char clusterUuid[kNvmlGpuFabricUuidLen];
  nvmlReturn_t status;
  unsigned int cliqueId;
  unsigned char state;
} nvmlGpuFabricInfo_t;

// nvmlDeviceGetGpuFabricInfoV: version 2 (12.4 on) adds `version` first and
// `healthMask` last; version 3 (13.0 on, the header's nvmlGpuFabricInfoV_t)
// adds `healthSummary`. The driver writes the version the caller names; we
// ask for 2, which every driver with the call answers, into the larger
// struct.
typedef struct {
  unsigned int version;
  unsigned char clusterUuid[kNvmlGpuFabricUuidLen];
  nvmlReturn_t status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;

typedef struct {
  unsigned int version;
  unsigned char clusterUuid[kNvmlGpuFabricUuidLen];
  nvmlReturn_t status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
  unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;

typedef nvmlGpuFabricInfo_v3_t nvmlGpuFabricInfoV_t;

constexpr unsigned int nvmlGpuFabricInfo_v2 =
    static_cast<unsigned int>(sizeof(nvmlGpuFabricInfo_v2_t)) | (2u << 24);
constexpr unsigned int nvmlGpuFabricInfo_v3 =
    static_cast<unsigned int>(sizeof(nvmlGpuFabricInfoV_t)) | (3u << 24);

// healthMask: 2-bit fields, each NOT_SUPPORTED 0, TRUE 1 (the condition
// holds), FALSE 2. Degraded bandwidth from 12.4 (whose headers, to 12.6,
// give its width as 0x11, a typo for 0x3); the other three from 12.8 (R570).
enum : unsigned {
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW = 0,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY = 2,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY = 4,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY = 6,
  NVML_GPU_FABRIC_HEALTH_MASK_WIDTH = 0x3,  // each of the four above
  NVML_GPU_FABRIC_HEALTH_MASK_NOT_SUPPORTED = 0,
  NVML_GPU_FABRIC_HEALTH_MASK_TRUE = 1,
  NVML_GPU_FABRIC_HEALTH_MASK_FALSE = 2,
};

// healthSummary (version 3, 13.0 / R580 on): the fabric's verdict on the GPU.
enum : unsigned char {
  NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED = 0,
  NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY = 1,
  NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY = 2,
  NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY = 3,
};

// nvmlDeviceGetP2PStatus (every header from 11.0): whether two GPUs can
// talk peer to peer, over the path the caps index names.
enum : int {
  NVML_P2P_CAPS_INDEX_READ = 0,
  NVML_P2P_CAPS_INDEX_WRITE = 1,
  NVML_P2P_CAPS_INDEX_NVLINK = 2,
  NVML_P2P_CAPS_INDEX_ATOMICS = 3,
  NVML_P2P_CAPS_INDEX_PCI = 4,
  NVML_P2P_STATUS_OK = 0,
  NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1,
  NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
  NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
  NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
  NVML_P2P_STATUS_NOT_SUPPORTED = 5,
  NVML_P2P_STATUS_UNKNOWN = 6,
};

static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");
static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t layout");
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t layout");
static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t layout");
static_assert(sizeof(nvmlProcessInfoCc_t) == 32, "nvmlProcessInfoCc_t layout");
static_assert(offsetof(nvmlProcessInfoCc_t, usedGpuCcProtectedMemory) == 24,
              "nvmlProcessInfoCc_t layout");
static_assert(sizeof(nvmlTemperature_v1_t) == 12 && nvmlTemperature_v1 == 0x0100000Cu,
              "nvmlTemperature_v1_t layout");
static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t layout");
static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t layout");
static_assert(sizeof(nvmlGpmMetric_t) == 40 && offsetof(nvmlGpmMetric_t, value) == 8,
              "nvmlGpmMetric_t layout");
static_assert(offsetof(nvmlGpmMetricsGet_t, sample1) == 8 &&
                  offsetof(nvmlGpmMetricsGet_t, metrics) == 24,
              "nvmlGpmMetricsGet_t layout");
static_assert(sizeof(nvmlGpmSupport_t) == 8, "nvmlGpmSupport_t layout");
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32 &&
                  offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16,
              "nvmlProcessUtilizationSample_t layout");
static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40 &&
                  offsetof(nvmlProcessUtilizationInfo_v1_t, pid) == 8,
              "nvmlProcessUtilizationInfo_v1_t layout");
static_assert(sizeof(nvmlProcessesUtilizationInfo_v1_t) == 24 &&
                  nvmlProcessesUtilizationInfo_v1 == 0x01000018u,
              "nvmlProcessesUtilizationInfo_v1_t layout");
static_assert(sizeof(nvmlGpuFabricInfo_t) == 28 && offsetof(nvmlGpuFabricInfo_t, status) == 16 &&
                  offsetof(nvmlGpuFabricInfo_t, state) == 24,
              "nvmlGpuFabricInfo_t layout");
static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36 && nvmlGpuFabricInfo_v2 == 0x02000024u &&
                  offsetof(nvmlGpuFabricInfo_v2_t, clusterUuid) == 4 &&
                  offsetof(nvmlGpuFabricInfo_v2_t, state) == 28 &&
                  offsetof(nvmlGpuFabricInfo_v2_t, healthMask) == 32,
              "nvmlGpuFabricInfo_v2_t layout");
static_assert(sizeof(nvmlGpuFabricInfoV_t) == 40 && nvmlGpuFabricInfo_v3 == 0x03000028u &&
                  offsetof(nvmlGpuFabricInfoV_t, healthSummary) == 36,
              "nvmlGpuFabricInfo_v3_t layout");

}  // extern "C"

// X(symbol, parameter list). Every function returns nvmlReturn_t except
// nvmlErrorString, which is declared separately.
#define NVML_FUNCTIONS(X)                                                      \
  X(nvmlInit_v2, (void))                                                       \
  X(nvmlInit, (void))                                                          \
  X(nvmlShutdown, (void))                                                      \
  X(nvmlSystemGetDriverVersion, (char* version, unsigned int length))          \
  X(nvmlSystemGetNVMLVersion, (char* version, unsigned int length))            \
  X(nvmlSystemGetCudaDriverVersion_v2, (int* cudaDriverVersion))               \
  X(nvmlSystemGetCudaDriverVersion, (int* cudaDriverVersion))                  \
  X(nvmlSystemGetProcessName, (unsigned int pid, char* name, unsigned int length)) \
  X(nvmlDeviceGetCount_v2, (unsigned int* deviceCount))                        \
  X(nvmlDeviceGetCount, (unsigned int* deviceCount))                           \
  X(nvmlDeviceGetHandleByIndex_v2, (unsigned int index, nvmlDevice_t* device)) \
  X(nvmlDeviceGetHandleByIndex, (unsigned int index, nvmlDevice_t* device))    \
  X(nvmlDeviceGetName, (nvmlDevice_t device, char* name, unsigned int length)) \
  X(nvmlDeviceGetUUID, (nvmlDevice_t device, char* uuid, unsigned int length)) \
  X(nvmlDeviceGetSerial, (nvmlDevice_t device, char* serial, unsigned int length)) \
  X(nvmlDeviceGetBoardPartNumber, (nvmlDevice_t device, char* partNumber, unsigned int length)) \
  X(nvmlDeviceGetVbiosVersion, (nvmlDevice_t device, char* version, unsigned int length)) \
  X(nvmlDeviceGetInforomImageVersion, (nvmlDevice_t device, char* version, unsigned int length)) \
  X(nvmlDeviceGetPciInfo_v3, (nvmlDevice_t device, nvmlPciInfo_t* pci))        \
  X(nvmlDeviceGetGspFirmwareMode, (nvmlDevice_t device, unsigned int* isEnabled, unsigned int* defaultMode)) \
  X(nvmlDeviceGetGspFirmwareVersion, (nvmlDevice_t device, char* version))     \
  X(nvmlDeviceGetUtilizationRates, (nvmlDevice_t device, nvmlUtilization_t* utilization)) \
  X(nvmlDeviceGetEncoderUtilization, (nvmlDevice_t device, unsigned int* utilization, unsigned int* samplingPeriodUs)) \
  X(nvmlDeviceGetDecoderUtilization, (nvmlDevice_t device, unsigned int* utilization, unsigned int* samplingPeriodUs)) \
  X(nvmlDeviceGetMemoryInfo_v2, (nvmlDevice_t device, nvmlMemory_v2_t* memory)) \
  X(nvmlDeviceGetMemoryInfo, (nvmlDevice_t device, nvmlMemory_t* memory))      \
  X(nvmlDeviceGetTemperatureV, (nvmlDevice_t device, nvmlTemperature_v1_t* temperature)) \
  X(nvmlDeviceGetTemperature, (nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int* temp)) \
  X(nvmlDeviceGetTemperatureThreshold, (nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType, unsigned int* temp)) \
  X(nvmlDeviceGetFieldValues, (nvmlDevice_t device, int valuesCount, nvmlFieldValue_t* values)) \
  X(nvmlDeviceGetNumFans, (nvmlDevice_t device, unsigned int* numFans))        \
  X(nvmlDeviceGetFanSpeed_v2, (nvmlDevice_t device, unsigned int fan, unsigned int* speed)) \
  X(nvmlDeviceGetFanSpeed, (nvmlDevice_t device, unsigned int* speed))         \
  X(nvmlDeviceGetPowerUsage, (nvmlDevice_t device, unsigned int* power))       \
  X(nvmlDeviceGetPowerManagementLimit, (nvmlDevice_t device, unsigned int* limit)) \
  X(nvmlDeviceGetPowerManagementLimitConstraints, (nvmlDevice_t device, unsigned int* minLimit, unsigned int* maxLimit)) \
  X(nvmlDeviceGetPowerManagementDefaultLimit, (nvmlDevice_t device, unsigned int* defaultLimit)) \
  X(nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t device, unsigned int* limit)) \
  X(nvmlDeviceGetTotalEnergyConsumption, (nvmlDevice_t device, unsigned long long* energy)) \
  X(nvmlDeviceGetClockInfo, (nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock)) \
  X(nvmlDeviceGetMaxClockInfo, (nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock)) \
  X(nvmlDeviceGetApplicationsClock, (nvmlDevice_t device, nvmlClockType_t clockType, unsigned int* clockMHz)) \
  X(nvmlDeviceGetDefaultApplicationsClock, (nvmlDevice_t device, nvmlClockType_t clockType, unsigned int* clockMHz)) \
  X(nvmlDeviceGetPerformanceState, (nvmlDevice_t device, nvmlPstates_t* pState)) \
  X(nvmlDeviceGetCurrentClocksEventReasons, (nvmlDevice_t device, unsigned long long* reasons)) \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, (nvmlDevice_t device, unsigned long long* reasons)) \
  X(nvmlDeviceGetViolationStatus, (nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType, nvmlViolationTime_t* violTime)) \
  X(nvmlDeviceGetPersistenceMode, (nvmlDevice_t device, nvmlEnableState_t* mode)) \
  X(nvmlDeviceGetComputeMode, (nvmlDevice_t device, nvmlComputeMode_t* mode))  \
  X(nvmlDeviceGetMigMode, (nvmlDevice_t device, unsigned int* currentMode, unsigned int* pendingMode)) \
  X(nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t device, unsigned int* count)) \
  X(nvmlDeviceGetMigDeviceHandleByIndex, (nvmlDevice_t device, unsigned int index, nvmlDevice_t* migDevice)) \
  X(nvmlDeviceGetGpuInstanceId, (nvmlDevice_t device, unsigned int* id))       \
  X(nvmlDeviceGetComputeInstanceId, (nvmlDevice_t device, unsigned int* id))   \
  X(nvmlDeviceGetEccMode, (nvmlDevice_t device, nvmlEnableState_t* current, nvmlEnableState_t* pending)) \
  X(nvmlDeviceGetTotalEccErrors, (nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, unsigned long long* eccCounts)) \
  X(nvmlDeviceGetRetiredPages, (nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int* pageCount, unsigned long long* addresses)) \
  X(nvmlDeviceGetRetiredPagesPendingStatus, (nvmlDevice_t device, nvmlEnableState_t* isPending)) \
  X(nvmlDeviceGetRemappedRows, (nvmlDevice_t device, unsigned int* corrRows, unsigned int* uncRows, unsigned int* isPending, unsigned int* failureOccurred)) \
  X(nvmlDeviceGetCurrPcieLinkGeneration, (nvmlDevice_t device, unsigned int* currLinkGen)) \
  X(nvmlDeviceGetCurrPcieLinkWidth, (nvmlDevice_t device, unsigned int* currLinkWidth)) \
  X(nvmlDeviceGetMaxPcieLinkGeneration, (nvmlDevice_t device, unsigned int* maxLinkGen)) \
  X(nvmlDeviceGetMaxPcieLinkWidth, (nvmlDevice_t device, unsigned int* maxLinkWidth)) \
  X(nvmlDeviceGetPcieThroughput, (nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int* value)) \
  X(nvmlDeviceGetPcieReplayCounter, (nvmlDevice_t device, unsigned int* value)) \
  X(nvmlDeviceGetNvLinkState, (nvmlDevice_t device, unsigned int link, nvmlEnableState_t* isActive)) \
  X(nvmlDeviceGetNvLinkErrorCounter, (nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter, unsigned long long* counterValue)) \
  X(nvmlDeviceGetNvLinkVersion, (nvmlDevice_t device, unsigned int link, unsigned int* version)) \
  X(nvmlDeviceGetNvLinkRemotePciInfo_v2, (nvmlDevice_t device, unsigned int link, nvmlPciInfo_t* pci)) \
  X(nvmlDeviceGetGpuFabricInfoV, (nvmlDevice_t device, nvmlGpuFabricInfoV_t* gpuFabricInfo)) \
  X(nvmlDeviceGetGpuFabricInfo, (nvmlDevice_t device, nvmlGpuFabricInfo_t* gpuFabricInfo)) \
  X(nvmlDeviceGetP2PStatus, (nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t* p2pStatus)) \
  X(nvmlDeviceGetComputeRunningProcesses_v3, (nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_t* infos)) \
  X(nvmlDeviceGetComputeRunningProcesses_v2, (nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_t* infos)) \
  X(nvmlDeviceGetComputeRunningProcesses, (nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v1_t* infos)) \
  X(nvmlDeviceGetProcessesUtilizationInfo, (nvmlDevice_t device, nvmlProcessesUtilizationInfo_v1_t* procesesUtilInfo)) \
  X(nvmlDeviceGetProcessUtilization, (nvmlDevice_t device, nvmlProcessUtilizationSample_t* utilization, unsigned int* processSamplesCount, unsigned long long lastSeenTimeStamp)) \
  X(nvmlGpmQueryDeviceSupport, (nvmlDevice_t device, nvmlGpmSupport_t* gpmSupport)) \
  X(nvmlGpmSampleAlloc, (nvmlGpmSample_t* gpmSample))                          \
  X(nvmlGpmSampleFree, (nvmlGpmSample_t gpmSample))                            \
  X(nvmlGpmSampleGet, (nvmlDevice_t device, nvmlGpmSample_t gpmSample))        \
  X(nvmlGpmMigSampleGet, (nvmlDevice_t device, unsigned int gpuInstanceId, nvmlGpmSample_t gpmSample)) \
  X(nvmlGpmMetricsGet, (nvmlGpmMetricsGet_t* metricsGet))                      \
  X(nvmlEventSetCreate, (nvmlEventSet_t* set))                                 \
  X(nvmlDeviceGetSupportedEventTypes, (nvmlDevice_t device, unsigned long long* eventTypes)) \
  X(nvmlDeviceRegisterEvents, (nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set)) \
  X(nvmlEventSetWait_v2, (nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeoutms)) \
  X(nvmlEventSetFree, (nvmlEventSet_t set))                                    \
  X(nvmlDeviceSetPersistenceMode, (nvmlDevice_t device, nvmlEnableState_t mode)) \
  X(nvmlDeviceSetPowerManagementLimit, (nvmlDevice_t device, unsigned int limit)) \
  X(nvmlDeviceSetApplicationsClocks, (nvmlDevice_t device, unsigned int memClockMHz, unsigned int graphicsClockMHz)) \
  X(nvmlDeviceResetApplicationsClocks, (nvmlDevice_t device))                  \
  X(nvmlDeviceSetComputeMode, (nvmlDevice_t device, nvmlComputeMode_t mode))

using nvmlErrorString_fn = const char* (*)(nvmlReturn_t);
