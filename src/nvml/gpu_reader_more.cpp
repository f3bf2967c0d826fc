// Clocks, performance state, modes, memory errors, PCIe, NVLink and processes.
#include <vector>

#include "nvml/field_reader.h"

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

std::optional<std::int64_t> RetiredPages(Reader& r, nvmlDevice_t dev, int cause,
                                         const char* field) {
  unsigned count = 0;
  const auto f = r.fn().nvmlDeviceGetRetiredPages;
  if (f == nullptr || r.stopped()) return std::nullopt;
  // A count query: NVML answers INSUFFICIENT_SIZE with the count filled in.
  nvmlReturn_t rc = NVML_ERROR_TIMEOUT;
  std::vector<unsigned long long> addresses;
  for (int attempt = 0; attempt < 3; ++attempt) {
    addresses.assign(count, 0);
    unsigned asked = count;
    rc = CallTrackerOf(r).Call("nvmlDeviceGetRetiredPages",
                               [&] { return f(dev, cause, &count, addresses.data()); },
                               NVML_ERROR_TIMEOUT);
    if (rc == NVML_SUCCESS) return static_cast<std::int64_t>(count);
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE || count <= asked || count > 1u << 20) break;
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

}  // namespace

void ReadClocksAndPerformance(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
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
  unsigned long long reasons = 0;
  if (r.Get("nvmlDeviceGetCurrentClocksEventReasons", "clock_event_reasons",
            f.nvmlDeviceGetCurrentClocksEventReasons, dev, &reasons)) {
    g.clock_event_reasons_mask = reasons;
  }
  nvmlViolationTime_t v{};
  if (r.Get("nvmlDeviceGetViolationStatus", "violation_power_ns",
            f.nvmlDeviceGetViolationStatus, dev, NVML_PERF_POLICY_POWER, &v)) {
    g.violation_power_ns = static_cast<std::int64_t>(v.violationTime);
  }
  if (r.Get("nvmlDeviceGetViolationStatus", "violation_thermal_ns",
            f.nvmlDeviceGetViolationStatus, dev, NVML_PERF_POLICY_THERMAL, &v)) {
    g.violation_thermal_ns = static_cast<std::int64_t>(v.violationTime);
  }
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

void ReadNvLinks(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
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
    g.nvlinks.push_back(s);
  }
}

void ReadProcesses(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto f = r.fn().nvmlDeviceGetComputeRunningProcesses_v3;
  if (f == nullptr || r.stopped()) return;
  std::vector<nvmlProcessInfo_t> infos(8);
  nvmlReturn_t rc = NVML_ERROR_TIMEOUT;
  unsigned count = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    count = static_cast<unsigned>(infos.size());
    rc = CallTrackerOf(r).Call("nvmlDeviceGetComputeRunningProcesses_v3",
                               [&] { return f(dev, &count, infos.data()); }, NVML_ERROR_TIMEOUT);
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE || count > 65536) break;
    infos.resize(count + 8);  // headroom: processes may start meanwhile
  }
  if (!r.Check(rc, "nvmlDeviceGetComputeRunningProcesses_v3", "processes")) return;
  std::vector<GpuProcess> processes;
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    GpuProcess p;
    p.pid = infos[i].pid;
    if (infos[i].usedGpuMemory != ~0ULL) {
      p.used_memory_bytes = static_cast<std::int64_t>(infos[i].usedGpuMemory);
    }
    char name[256] = {};
    if (r.Get("nvmlSystemGetProcessName", "processes", r.fn().nvmlSystemGetProcessName,
              p.pid, name, static_cast<unsigned>(sizeof name))) {
      name[sizeof name - 1] = '\0';
      p.name = name;
    }
    processes.push_back(std::move(p));
  }
  g.processes = std::move(processes);
}

}  // namespace gpudoctor::nvml_detail
