// ECC, retired pages, remapped rows, PCIe, NVLink and processes.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "fake_state.h"

using fake::GpuCall;
using fake::PutEnabled;
using fake::PutUint;
using fake::PutUll;
using fake::WithGpu;
using gpudoctor::GpuStatus;

namespace {

const char* EccFieldName(int errorType, int counterType) {
  bool corrected = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED;
  if (counterType == NVML_VOLATILE_ECC) {
    return corrected ? "ecc_volatile_corrected" : "ecc_volatile_uncorrected";
  }
  return corrected ? "ecc_aggregate_corrected" : "ecc_aggregate_uncorrected";
}

const gpudoctor::NvLinkStatus* FindLink(const GpuStatus& g, unsigned link) {
  for (const auto& l : g.nvlinks) {
    if (l.link == link) return &l;
  }
  return nullptr;
}

// A call on one NVLink link: NOT_SUPPORTED for a GPU without links,
// INVALID_ARGUMENT for a link it does not have (as the driver probes end).
template <typename Fn>
nvmlReturn_t WithLink(const char* function, nvmlDevice_t device, unsigned link, Fn&& fn) {
  return WithGpu(function, device, {"nvlinks"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (c.now.nvlinks.empty()) return NVML_ERROR_NOT_SUPPORTED;
    const auto* l = FindLink(c.now, link);
    if (l == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    return fn(*l);
  });
}

// NVML's count-then-fill protocol for process lists, writing `record_bytes`
// per record (16 for v1, 24 for _v2, the profile's layout for _v3) as a
// driver does: it trusts *infoCount and writes through `infos` as bytes.
nvmlReturn_t GetProcesses(const char* function, nvmlDevice_t device,
                          unsigned* infoCount, void* infos,
                          std::size_t record_bytes) {
  return WithGpu(function, device, {"processes"}, [&](const GpuCall& c) -> nvmlReturn_t {
    if (infoCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (!c.now.processes) return NVML_ERROR_NOT_SUPPORTED;
    const auto& list = *c.now.processes;
    auto needed = static_cast<unsigned>(list.size());
    if (*infoCount < needed) {
      *infoCount = needed;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (needed > 0 && infos == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    auto* out = static_cast<unsigned char*>(infos);
    for (unsigned i = 0; i < needed; ++i) {
      nvmlProcessInfoCc_t record{};
      record.pid = list[i].pid;
      // NVML_VALUE_NOT_AVAILABLE when the usage is unknown (as under WDDM).
      record.usedGpuMemory =
          list[i].used_memory_bytes
              ? static_cast<unsigned long long>(*list[i].used_memory_bytes)
              : ~0ULL;
      record.gpuInstanceId = list[i].gpu_instance_id.value_or(0xFFFFFFFFu);
      record.computeInstanceId = list[i].compute_instance_id.value_or(0xFFFFFFFFu);
      record.usedGpuCcProtectedMemory = 0;
      std::memcpy(out + i * record_bytes, &record, record_bytes);
    }
    *infoCount = needed;
    return NVML_SUCCESS;
  });
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device,
                                         nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long* eccCounts) {
  return WithGpu(
      __func__, device, {EccFieldName(errorType, counterType)},
      [&](const GpuCall& c) -> nvmlReturn_t {
        const GpuStatus& g = c.now;
        bool corrected = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED;
        if (!corrected && errorType != NVML_MEMORY_ERROR_TYPE_UNCORRECTED) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        if (counterType == NVML_VOLATILE_ECC) {
          return PutUll(
              corrected ? g.ecc_volatile_corrected : g.ecc_volatile_uncorrected,
              eccCounts);
        }
        if (counterType == NVML_AGGREGATE_ECC) {
          return PutUll(corrected ? g.ecc_aggregate_corrected
                                  : g.ecc_aggregate_uncorrected,
                        eccCounts);
        }
        return NVML_ERROR_INVALID_ARGUMENT;
      });
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device,
                                       nvmlPageRetirementCause_t cause,
                                       unsigned int* pageCount,
                                       unsigned long long* addresses) {
  bool sbe = cause == NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS;
  return WithGpu(
      __func__, device, {sbe ? "retired_pages_sbe" : "retired_pages_dbe"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (!sbe && cause != NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        // nvml.h: INVALID_ARGUMENT when pageCount or addresses is NULL, so
        // a NULL "count query" is refused as well.
        if (pageCount == nullptr || addresses == nullptr) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        const auto& count =
            sbe ? c.now.retired_pages_sbe : c.now.retired_pages_dbe;
        if (!count) return NVML_ERROR_NOT_SUPPORTED;
        auto needed = static_cast<unsigned>(std::max<std::int64_t>(*count, 0));
        if (*pageCount < needed) {
          *pageCount = needed;
          return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        for (unsigned i = 0; i < needed; ++i) {
          // Synthetic page addresses, distinct per cause.
          addresses[i] =
              (sbe ? 0x100000000ULL : 0x200000000ULL) + 0x1000ULL * i;
        }
        *pageCount = needed;
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(
    nvmlDevice_t device, nvmlEnableState_t* isPending) {
  return WithGpu(__func__, device, {"retired_pages_pending"}, [&](const GpuCall& c) {
    return PutEnabled(c.now.retired_pages_pending, isPending);
  });
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device,
                                       unsigned int* corrRows,
                                       unsigned int* uncRows,
                                       unsigned int* isPending,
                                       unsigned int* failureOccurred) {
  return WithGpu(
      __func__, device,
      {"remapped_rows_corrected", "remapped_rows_uncorrected",
       "remapped_rows_pending", "remapped_rows_failure"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        const GpuStatus& g = c.now;
        if (!corrRows || !uncRows || !isPending || !failureOccurred) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        if (!g.remapped_rows_corrected || !g.remapped_rows_uncorrected ||
            !g.remapped_rows_pending || !g.remapped_rows_failure) {
          return NVML_ERROR_NOT_SUPPORTED;
        }
        PutUint(g.remapped_rows_corrected, corrRows);
        PutUint(g.remapped_rows_uncorrected, uncRows);
        *isPending = *g.remapped_rows_pending ? 1 : 0;
        *failureOccurred = *g.remapped_rows_failure ? 1 : 0;
        return NVML_SUCCESS;
      });
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device,
                                                 unsigned int* currLinkGen) {
  return WithGpu(__func__, device, {"pcie_link_gen_current"}, [&](const GpuCall& c) {
    return PutUint(c.now.pcie_link_gen_current, currLinkGen);
  });
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device,
                                            unsigned int* currLinkWidth) {
  return WithGpu(__func__, device, {"pcie_link_width_current"}, [&](const GpuCall& c) {
    return PutUint(c.now.pcie_link_width_current, currLinkWidth);
  });
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device,
                                                unsigned int* maxLinkGen) {
  return WithGpu(__func__, device, {"pcie_link_gen_max"}, [&](const GpuCall& c) {
    return PutUint(c.now.pcie_link_gen_max, maxLinkGen);
  });
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device,
                                           unsigned int* maxLinkWidth) {
  return WithGpu(__func__, device, {"pcie_link_width_max"}, [&](const GpuCall& c) {
    return PutUint(c.now.pcie_link_width_max, maxLinkWidth);
  });
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device,
                                         nvmlPcieUtilCounter_t counter,
                                         unsigned int* value) {
  bool tx = counter == NVML_PCIE_UTIL_TX_BYTES;
  return WithGpu(
      __func__, device, {tx ? "pcie_tx_bytes_per_s" : "pcie_rx_bytes_per_s"},
      [&](const GpuCall& c) -> nvmlReturn_t {
        if (!tx && counter != NVML_PCIE_UTIL_RX_BYTES) {
          return NVML_ERROR_INVALID_ARGUMENT;
        }
        const auto& bytes =
            tx ? c.now.pcie_tx_bytes_per_s : c.now.pcie_rx_bytes_per_s;
        if (!bytes) return PutUint(std::nullopt, value);
        return PutUint(*bytes / 1024, value);  // NVML's KB/s, read as KiB/s
      });
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device,
                                            unsigned int* value) {
  return WithGpu(__func__, device, {"pcie_replay_count"}, [&](const GpuCall& c) {
    return PutUint(c.now.pcie_replay_count, value);
  });
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t* isActive) {
  return WithLink(__func__, device, link, [&](const gpudoctor::NvLinkStatus& l) -> nvmlReturn_t {
    return PutEnabled(l.active, isActive);
  });
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device,
                                             unsigned int link,
                                             nvmlNvLinkErrorCounter_t counter,
                                             unsigned long long* counterValue) {
  return WithLink(__func__, device, link, [&](const gpudoctor::NvLinkStatus& l) -> nvmlReturn_t {
    switch (counter) {
      case NVML_NVLINK_ERROR_DL_REPLAY:
        return PutUll(l.replay_errors, counterValue);
      case NVML_NVLINK_ERROR_DL_RECOVERY:
        return PutUll(l.recovery_errors, counterValue);
      case NVML_NVLINK_ERROR_DL_CRC_FLIT:
        return PutUll(l.crc_flit_errors, counterValue);
      case NVML_NVLINK_ERROR_DL_CRC_DATA:
        return PutUll(l.crc_data_errors, counterValue);
      default:
        return NVML_ERROR_INVALID_ARGUMENT;
    }
  });
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
                                        unsigned int* version) {
  return WithLink(__func__, device, link, [&](const gpudoctor::NvLinkStatus& l) -> nvmlReturn_t {
    return PutUint(l.version, version);
  });
}

// The remote end's bus id as the driver writes it ("%08X:%02X:%02X.0").
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                 unsigned int link,
                                                 nvmlPciInfo_t* pci) {
  return WithLink(__func__, device, link, [&](const gpudoctor::NvLinkStatus& l) -> nvmlReturn_t {
    if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned domain = 0, bus = 0, dev = 0, function = 0;
    if (std::sscanf(l.remote_pci_bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus,
                    &dev, &function) != 4) {
      return NVML_ERROR_NOT_SUPPORTED;
    }
    *pci = nvmlPciInfo_t{};
    pci->domain = domain;
    pci->bus = bus;
    pci->device = dev;
    std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.%X", domain,
                  bus, dev, function);
    std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.%X",
                  domain, bus, dev, function);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                     unsigned int* infoCount,
                                                     nvmlProcessInfo_t* infos) {
  std::size_t record_bytes = sizeof(nvmlProcessInfo_t);
  {
    std::lock_guard<std::mutex> lock(fake::TheState().mu);
    record_bytes = fake::TheState().scenario.process_record_bytes_v3;
  }
  return GetProcesses(__func__, device, infoCount, infos, record_bytes);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
                                                     unsigned int* infoCount,
                                                     nvmlProcessInfo_t* infos) {
  return GetProcesses(__func__, device, infoCount, infos, sizeof(nvmlProcessInfo_t));
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                  unsigned int* infoCount,
                                                  nvmlProcessInfo_v1_t* infos) {
  std::size_t record_bytes = sizeof(nvmlProcessInfo_v1_t);
  {
    std::lock_guard<std::mutex> lock(fake::TheState().mu);
    record_bytes = fake::TheState().scenario.process_record_bytes_v1;
  }
  return GetProcesses(__func__, device, infoCount, infos, record_bytes);
}

}  // extern "C"
