// Clocks, performance state, modes, memory errors, PCIe, NVLink and processes.
#include <algorithm>
#include <vector>

#include "nvml/field_reader.h"
#include "nvml/process_utilization.h"
#include "nvml/field_value.h"
#include "nvml/process_records.h"

namespace gpudoctor::nvml_detail {
namespace {

std::optional<std::int64_t> Clock(Reader& r, const char* call, const char* field,
                                  nvmlReturn_t (*f)(nvmlDevice_t, int, unsigned*),
                                  nvmlDevice_t dev, int type) {
  unsigned mhz = 0;
  if (!r.Get(call, field, f, dev, type, &mhz)) return std::nullopt;
  return static_cast<std::int64_t>(mhz);
}

std::optional<bool> Enabled(Reader& r, const char* call, const char* field,
                            nvmlReturn_t (*f)(nvmlDevice_t, int*), nvmlDevice_t dev) {
  int state = 0;
  if (!r.Get(call, field, f, dev, &state)) return std::nullopt;
  return state == NVML_FEATURE_ENABLED;
}

std::optional<std::int64_t> Ecc(Reader& r, nvmlDevice_t dev, int type, int counter,
                                const char* field) {
  unsigned long long count = 0;
  if (!r.Get("nvmlDeviceGetTotalEccErrors", field, r.fn().nvmlDeviceGetTotalEccErrors, dev,
             type, counter, &count)) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(count);
}

// nvml.h: a NULL address buffer is INVALID_ARGUMENT (which reads as "not
// supported"), so the first call already gets a real buffer; a driver that
// needs more answers INSUFFICIENT_SIZE with the count, and the buffer grows.
std::optional<std::int64_t> RetiredPages(Reader& r, nvmlDevice_t dev, int cause,
                                         const char* field) {
  const auto f = r.fn().nvmlDeviceGetRetiredPages;
  if (f == nullptr || r.stopped()) return std::nullopt;
  std::vector<unsigned long long> addresses(64);
  nvmlReturn_t rc = NVML_ERROR_TIMEOUT;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto room = static_cast<unsigned>(addresses.size());
    unsigned count = room;
    rc = r.Call("nvmlDeviceGetRetiredPages", f, dev, cause, &count, addresses.data());
    if (rc == NVML_SUCCESS) return static_cast<std::int64_t>(std::min(count, room));
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE || count <= room || count > 1u << 20) break;
    addresses.assign(count + 16, 0);  // headroom: pages may retire meanwhile
  }
  r.Check(rc, "nvmlDeviceGetRetiredPages", field);
  return std::nullopt;
}

const char* ComputeModeName(int mode) {
  switch (mode) {
    case NVML_COMPUTEMODE_DEFAULT: return "Default";
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD: return "Exclusive_Thread";
    case NVML_COMPUTEMODE_PROHIBITED: return "Prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return "Exclusive_Process";
    default: return "Unknown";
  }
}

// The violation counters: field values (nvml.h 13.x deprecates
// nvmlDeviceGetViolationStatus for removal in CUDA 14), and for a counter the
// driver does not answer as a field, the old call. The thermal counter's id
// depends on the driver (nvml/field_ids.h). A negative value cannot be a
// counter (a field that means something else on this driver): distrusted,
// the old call answers instead.
void ReadViolations(Reader& r, nvmlDevice_t dev, std::optional<unsigned> thermal_field,
                    GpuStatus& g) {
  const auto& f = r.fn();
  nvmlFieldValue_t values[2] = {};
  values[0].fieldId = NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP;
  values[1].fieldId = thermal_field.value_or(0);
  const int asked = thermal_field ? 2 : 1;
  const nvmlReturn_t rc = r.Call("nvmlDeviceGetFieldValues", f.nvmlDeviceGetFieldValues, dev,
                                 asked, values);
  if (rc == NVML_ERROR_GPU_IS_LOST) {
    r.Check(rc, "nvmlDeviceGetFieldValues", "violation_power_ns");
    return;
  }
  if (rc != NVML_SUCCESS) {
    for (auto& v : values) v.nvmlReturn = rc;
  }
  if (!thermal_field) values[1].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  const std::pair<int, std::optional<std::int64_t>*> wanted[2] = {
      {NVML_PERF_POLICY_POWER, &g.violation_power_ns},
      {NVML_PERF_POLICY_THERMAL, &g.violation_thermal_ns}};
  const char* names[2] = {"violation_power_ns", "violation_thermal_ns"};
  for (int i = 0; i < 2; ++i) {
    auto counter = FieldValueAsInt(values[i]);
    if (counter && *counter >= 0) {
      *wanted[i].second = counter;
      continue;
    }
    nvmlViolationTime_t v{};
    if (r.Get("nvmlDeviceGetViolationStatus", names[i], f.nvmlDeviceGetViolationStatus, dev,
              wanted[i].first, &v)) {
      *wanted[i].second = static_cast<std::int64_t>(v.violationTime);
    }
  }
}

}  // namespace

void ReadClocksAndPerformance(Reader& r, nvmlDevice_t dev, std::optional<unsigned> thermal_field,
                              GpuStatus& g) {
  const auto& f = r.fn();
  const auto cur = f.nvmlDeviceGetClockInfo;
  const auto max = f.nvmlDeviceGetMaxClockInfo;
  g.clocks_graphics_mhz = Clock(r, "nvmlDeviceGetClockInfo", "clocks_graphics_mhz", cur, dev, NVML_CLOCK_GRAPHICS);
  g.clocks_sm_mhz = Clock(r, "nvmlDeviceGetClockInfo", "clocks_sm_mhz", cur, dev, NVML_CLOCK_SM);
  g.clocks_memory_mhz = Clock(r, "nvmlDeviceGetClockInfo", "clocks_memory_mhz", cur, dev, NVML_CLOCK_MEM);
  g.clocks_max_graphics_mhz = Clock(r, "nvmlDeviceGetMaxClockInfo", "clocks_max_graphics_mhz", max, dev, NVML_CLOCK_GRAPHICS);
  g.clocks_max_sm_mhz = Clock(r, "nvmlDeviceGetMaxClockInfo", "clocks_max_sm_mhz", max, dev, NVML_CLOCK_SM);
  g.clocks_max_memory_mhz = Clock(r, "nvmlDeviceGetMaxClockInfo", "clocks_max_memory_mhz", max, dev, NVML_CLOCK_MEM);
  const auto app = f.nvmlDeviceGetApplicationsClock;
  const auto def = f.nvmlDeviceGetDefaultApplicationsClock;
  g.clocks_applications_graphics_mhz = Clock(r, "nvmlDeviceGetApplicationsClock", "clocks_applications_graphics_mhz", app, dev, NVML_CLOCK_GRAPHICS);
  g.clocks_applications_memory_mhz = Clock(r, "nvmlDeviceGetApplicationsClock", "clocks_applications_memory_mhz", app, dev, NVML_CLOCK_MEM);
  g.clocks_default_applications_graphics_mhz = Clock(r, "nvmlDeviceGetDefaultApplicationsClock", "clocks_default_applications_graphics_mhz", def, dev, NVML_CLOCK_GRAPHICS);
  g.clocks_default_applications_memory_mhz = Clock(r, "nvmlDeviceGetDefaultApplicationsClock", "clocks_default_applications_memory_mhz", def, dev, NVML_CLOCK_MEM);

  int pstate = NVML_PSTATE_UNKNOWN;
  if (r.Get("nvmlDeviceGetPerformanceState", "pstate", f.nvmlDeviceGetPerformanceState, dev,
            &pstate) && pstate >= 0 && pstate <= 15) {
    g.pstate = pstate;
  }
  // ...EventReasons (R535+), else the older name of the same bits.
  unsigned long long reasons = 0;
  nvmlReturn_t rc = r.Call("nvmlDeviceGetCurrentClocksEventReasons",
                           f.nvmlDeviceGetCurrentClocksEventReasons, dev, &reasons);
  if (AnswersWithOlderCall(rc)) {
    if (r.Get("nvmlDeviceGetCurrentClocksThrottleReasons", "clock_event_reasons",
              f.nvmlDeviceGetCurrentClocksThrottleReasons, dev, &reasons)) {
      g.clock_event_reasons_mask = reasons;
    }
  } else if (r.Check(rc, "nvmlDeviceGetCurrentClocksEventReasons", "clock_event_reasons")) {
    g.clock_event_reasons_mask = reasons;
  }
  ReadViolations(r, dev, thermal_field, g);
}

void ReadModesAndMemoryErrors(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  g.persistence_mode = Enabled(r, "nvmlDeviceGetPersistenceMode", "persistence_mode",
                               f.nvmlDeviceGetPersistenceMode, dev);
  int mode = 0;
  if (r.Get("nvmlDeviceGetComputeMode", "compute_mode", f.nvmlDeviceGetComputeMode, dev, &mode)) {
    g.compute_mode = ComputeModeName(mode);
  }
  unsigned mig_current = 0, mig_pending = 0;
  if (r.Get("nvmlDeviceGetMigMode", "mig_mode_enabled", f.nvmlDeviceGetMigMode, dev,
            &mig_current, &mig_pending)) {
    g.mig_mode_enabled = mig_current == 1;
    g.mig_mode_pending = mig_pending == 1;
  }
  int ecc_current = 0, ecc_pending = 0;
  if (r.Get("nvmlDeviceGetEccMode", "ecc_mode_enabled", f.nvmlDeviceGetEccMode, dev,
            &ecc_current, &ecc_pending)) {
    g.ecc_mode_enabled = ecc_current == NVML_FEATURE_ENABLED;
    g.ecc_mode_pending = ecc_pending == NVML_FEATURE_ENABLED;
  }
  if (g.ecc_mode_enabled.value_or(false)) {
    g.ecc_volatile_corrected = Ecc(r, dev, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, "ecc_volatile_corrected");
    g.ecc_volatile_uncorrected = Ecc(r, dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, "ecc_volatile_uncorrected");
    g.ecc_aggregate_corrected = Ecc(r, dev, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, "ecc_aggregate_corrected");
    g.ecc_aggregate_uncorrected = Ecc(r, dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, "ecc_aggregate_uncorrected");
  }
  g.retired_pages_sbe = RetiredPages(r, dev, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, "retired_pages_sbe");
  g.retired_pages_dbe = RetiredPages(r, dev, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, "retired_pages_dbe");
  g.retired_pages_pending = Enabled(r, "nvmlDeviceGetRetiredPagesPendingStatus", "retired_pages_pending",
                                    f.nvmlDeviceGetRetiredPagesPendingStatus, dev);
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  if (r.Get("nvmlDeviceGetRemappedRows", "remapped_rows_pending", f.nvmlDeviceGetRemappedRows,
            dev, &corr, &unc, &pending, &failure)) {
    g.remapped_rows_corrected = corr;
    g.remapped_rows_uncorrected = unc;
    g.remapped_rows_pending = pending != 0;
    g.remapped_rows_failure = failure != 0;
  }
}

void ReadPcie(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  g.pcie_link_gen_current = Uint(r, "nvmlDeviceGetCurrPcieLinkGeneration", "pcie_link_gen_current", f.nvmlDeviceGetCurrPcieLinkGeneration, dev);
  g.pcie_link_gen_max = Uint(r, "nvmlDeviceGetMaxPcieLinkGeneration", "pcie_link_gen_max", f.nvmlDeviceGetMaxPcieLinkGeneration, dev);
  g.pcie_link_width_current = Uint(r, "nvmlDeviceGetCurrPcieLinkWidth", "pcie_link_width_current", f.nvmlDeviceGetCurrPcieLinkWidth, dev);
  g.pcie_link_width_max = Uint(r, "nvmlDeviceGetMaxPcieLinkWidth", "pcie_link_width_max", f.nvmlDeviceGetMaxPcieLinkWidth, dev);
  unsigned kb = 0;
  // NVML reports KB/s (1 KB = 1024 bytes) over a 20 ms window.
  if (r.Get("nvmlDeviceGetPcieThroughput", "pcie_tx_bytes_per_s", f.nvmlDeviceGetPcieThroughput,
            dev, NVML_PCIE_UTIL_TX_BYTES, &kb)) {
    g.pcie_tx_bytes_per_s = static_cast<std::int64_t>(kb) * 1024;
  }
  if (r.Get("nvmlDeviceGetPcieThroughput", "pcie_rx_bytes_per_s", f.nvmlDeviceGetPcieThroughput,
            dev, NVML_PCIE_UTIL_RX_BYTES, &kb)) {
    g.pcie_rx_bytes_per_s = static_cast<std::int64_t>(kb) * 1024;
  }
  g.pcie_replay_count = Uint(r, "nvmlDeviceGetPcieReplayCounter", "pcie_replay_count", f.nvmlDeviceGetPcieReplayCounter, dev);
}

void ReadNvLinks(Reader& r, nvmlDevice_t dev, bool topology, GpuStatus& g) {
  const auto& f = r.fn();
  for (unsigned link = 0; link < kNvmlNvLinkMaxLinks && !r.stopped(); ++link) {
    int active = 0;
    // Links are probed until the driver says there is no such link.
    if (!r.Get("nvmlDeviceGetNvLinkState", "nvlinks", f.nvmlDeviceGetNvLinkState, dev, link, &active)) {
      break;
    }
    NvLinkStatus s;
    s.link = link;
    s.active = active == NVML_FEATURE_ENABLED;
    const std::pair<int, std::optional<std::int64_t>*> counters[] = {
        {NVML_NVLINK_ERROR_DL_CRC_FLIT, &s.crc_flit_errors},
        {NVML_NVLINK_ERROR_DL_CRC_DATA, &s.crc_data_errors},
        {NVML_NVLINK_ERROR_DL_REPLAY, &s.replay_errors},
        {NVML_NVLINK_ERROR_DL_RECOVERY, &s.recovery_errors}};
    for (const auto& [counter, slot] : counters) {
      unsigned long long value = 0;
      if (r.Get("nvmlDeviceGetNvLinkErrorCounter", "nvlinks", f.nvmlDeviceGetNvLinkErrorCounter,
                dev, link, counter, &value)) {
        *slot = static_cast<std::int64_t>(value);
      }
    }
    if (topology) {
      // An inactive link may not say where it leads; its silence is no
      // error of the GPU, so only an active link's failures are recorded.
      auto ask = [&](const char* call, auto fn, auto* out) {
        if (s.active == true) return r.Get(call, "nvlinks", fn, dev, link, out);
        return r.Call(call, fn, dev, link, out) == NVML_SUCCESS;
      };
      unsigned version = 0;
      if (ask("nvmlDeviceGetNvLinkVersion", f.nvmlDeviceGetNvLinkVersion, &version)) s.version = version;
      nvmlPciInfo_t remote{};
      if (ask("nvmlDeviceGetNvLinkRemotePciInfo_v2", f.nvmlDeviceGetNvLinkRemotePciInfo_v2, &remote)) {
        remote.busId[sizeof remote.busId - 1] = '\0';
        s.remote_pci_bus_id = NormalizePciBusId(remote.busId);
      }
    }
    g.nvlinks.push_back(s);
  }
}

namespace {

// One process call as a ProcessQuery; `Info` is the record type its
// prototype names (the records written may be longer: process_records.h).
template <typename Info>
ProcessQuery ProcessCall(Reader& r, const char* call,
                         nvmlReturn_t (*f)(nvmlDevice_t, unsigned*, Info*), nvmlDevice_t dev) {
  return [&r, call, f, dev](unsigned* count, unsigned char* buffer, std::size_t) {
    return r.Call(call, f, dev, count, reinterpret_cast<Info*>(buffer));
  };
}

}  // namespace

// _v3 (R510+; its layout probed), else _v2 (450.66+, 24 bytes), else v1 (16
// bytes, 24 on 450.66 to 465.31: probed too): each newer one skipped when
// missing or answering FUNCTION_NOT_FOUND, NOT_SUPPORTED or DEPRECATED.
void ReadProcesses(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  if (r.stopped()) return;
  struct Api {
    const char* call;
    ProcessQuery query;
    std::size_t record_bytes;  // or kProbeV3Records, kProbeV1Records
  };
  const Api apis[] = {
      {"nvmlDeviceGetComputeRunningProcesses_v3",
       ProcessCall(r, "nvmlDeviceGetComputeRunningProcesses_v3",
                   f.nvmlDeviceGetComputeRunningProcesses_v3, dev), kProbeV3Records},
      {"nvmlDeviceGetComputeRunningProcesses_v2",
       ProcessCall(r, "nvmlDeviceGetComputeRunningProcesses_v2",
                   f.nvmlDeviceGetComputeRunningProcesses_v2, dev), kProcessRecordBytes},
      {"nvmlDeviceGetComputeRunningProcesses",
       ProcessCall(r, "nvmlDeviceGetComputeRunningProcesses",
                   f.nvmlDeviceGetComputeRunningProcesses, dev), kProbeV1Records},
  };
  ProcessList list;
  const char* used = apis[0].call;
  for (const Api& api : apis) {
    used = api.call;
    list = QueryProcessRecords(api.query, api.record_bytes);
    if (!AnswersWithOlderCall(list.rc)) break;
  }
  if (!r.Check(list.rc, used, "processes")) return;
  std::vector<GpuProcess> processes;
  for (const ProcessRecord& record : list.records) {
    GpuProcess p;
    p.pid = record.pid;
    p.used_memory_bytes = record.used_memory_bytes;
    if (!g.mig_devices.empty() || g.mig_mode_enabled.value_or(false)) {
      p.gpu_instance_id = record.gpu_instance_id;
      p.compute_instance_id = record.compute_instance_id;
    }
    char name[256] = {};
    if (r.Get("nvmlSystemGetProcessName", "processes", f.nvmlSystemGetProcessName,
              p.pid, name, static_cast<unsigned>(sizeof name))) {
      name[sizeof name - 1] = '\0';
      p.name = name;
    }
    processes.push_back(std::move(p));
  }
  g.processes = std::move(processes);
  ReadProcessUtilization(r, dev, g);
}

}  // namespace gpudoctor::nvml_detail
