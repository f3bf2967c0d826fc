#include "render/status_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/clock_reasons.h"
#include "render/ansi.h"
#include "render/fit_table.h"
#include "render/wrap_text.h"
#include "status/anomalies.h"

namespace gpudoctor {
namespace {

constexpr const char* kNa = "n/a";

std::optional<double> AsDouble(std::optional<std::int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

std::string Cell(std::optional<std::string> text, Level level, bool color) {
  return text ? Colorize(*text, level, color) : std::string(kNa);
}

std::string MemoryCell(const GpuStatus& g, const TableOptions& o) {
  if (!g.memory_total_bytes || !g.memory_used_bytes || *g.memory_total_bytes <= 0) {
    return kNa;
  }
  double pct = 100.0 * static_cast<double>(*g.memory_used_bytes) /
               static_cast<double>(*g.memory_total_bytes);
  return Colorize(fmt::format("{} / {} MiB {:3.0f}%", *g.memory_used_bytes >> 20,
                              *g.memory_total_bytes >> 20, pct),
                  GradeMemory(pct, o.thresholds), o.color);
}

std::string PowerCell(const GpuStatus& g, const TableOptions& o) {
  if (!g.power_draw_w) return kNa;
  std::string text = g.power_limit_w
                         ? fmt::format("{:.0f} / {:.0f} W", *g.power_draw_w, *g.power_limit_w)
                         : fmt::format("{:.0f} W", *g.power_draw_w);
  return Colorize(text, GradePower(g.power_draw_w, g.power_limit_w, o.thresholds), o.color);
}

// The cells of one GPU's row, in the order of kGpuColumns.
std::vector<std::string> Row(const GpuStatus& g, const TableOptions& o) {
  // A reachable GPU's state is its reading's verdict (the worst line it has
  // under "Abnormal"); an unreachable one's is why (lost, hung, ...).
  const Level verdict = ReadingVerdict(g, o.thresholds);
  std::string state = Colorize(
      g.state == GpuState::kOk ? ReadingVerdictName(verdict) : GpuStateName(g.state),
      verdict == Level::kInfo ? Level::kNormal : verdict, o.color);
  auto util = g.utilization_gpu_percent
                  ? std::optional<std::string>(fmt::format("{}%", *g.utilization_gpu_percent))
                  : std::nullopt;
  auto temp = g.temperature_c
                  ? std::optional<std::string>(fmt::format("{}C", *g.temperature_c))
                  : std::nullopt;
  std::string sm = g.clocks_sm_mhz ? fmt::format("{} MHz", *g.clocks_sm_mhz) : std::string(kNa);
  std::string pstate = g.pstate ? fmt::format("P{}", *g.pstate) : kNa;
  std::string persist = g.persistence_mode ? (*g.persistence_mode ? "on" : "off") : kNa;
  return {std::to_string(g.index),
          g.name,
          g.pci_bus_id.empty() ? kNa : g.pci_bus_id,
          state,
          Cell(util, GradeUtilization(AsDouble(g.utilization_gpu_percent), o.thresholds), o.color),
          MemoryCell(g, o),
          Cell(temp,
               GradeTemperature(AsDouble(g.temperature_c), AsDouble(g.temperature_slowdown_c),
                                o.thresholds),
               o.color),
          PowerCell(g, o),
          sm,
          pstate,
          persist};
}

// What gives way first on a narrow terminal: persistence, P-state, the SM
// clock, the bus id (the index still names the GPU), then the name shrinks;
// the index, state, utilisation, memory, temperature and power stay.
const std::vector<FitColumn> kGpuColumns = {
    {"GPU", true, 0, 0},         {"Name", false, 5, 12},          {"Bus-Id", false, 4, 0},
    {"State", false, 0, 0},      {"Util", true, 0, 0},            {"Memory used / total", true, 0, 0},
    {"Temp", true, 0, 0},        {"Power / limit", true, 0, 0},   {"SM clock", true, 3, 0},
    {"P", false, 2, 0},          {"Persist", false, 1, 0},
};

std::string DroppedNote(const std::vector<std::string>& dropped, const TableOptions& o) {
  if (dropped.empty()) return "";
  std::string names;
  for (const auto& d : dropped) names += (names.empty() ? "" : ", ") + d;
  const std::string note = fmt::format("(not shown to fit the terminal: {}; --wide shows every column)\n", names);
  return o.width ? WrapToWidth(note, *o.width) : note;
}

std::string PercentCell(const std::optional<std::int64_t>& v) {
  return v ? fmt::format("{}%", *v) : std::string(kNa);
}

// "alice", "alice  container 3f2a9c1b7d4e", "alice  pod 1b2c...", "alice
// pod ml/trainer-0 (trainer)": who runs it.
std::string OwnerCell(const GpuProcess& p) {
  std::string out = p.user;
  if (!p.pod_name.empty()) {
    out += (out.empty() ? "" : "  ") + fmt::format("pod {}/{}", p.pod_namespace, p.pod_name);
    if (!p.container_name.empty()) out += " (" + p.container_name + ")";
  } else if (!p.pod_uid.empty()) {
    out += (out.empty() ? "" : "  ") + std::string("pod ") + p.pod_uid;
  } else if (!p.container_id.empty()) {
    out += (out.empty() ? "" : "  ") + std::string("container ") + p.container_id;
  }
  return out;
}

std::string Processes(const SystemStatus& s, const TableOptions& o) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : s.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      rows.push_back({std::to_string(g.index), std::to_string(p.pid), p.name.empty() ? "(no name)" : p.name,
                      p.used_memory_bytes ? fmt::format("{} MiB", *p.used_memory_bytes >> 20) : std::string(kNa),
                      PercentCell(p.sm_util_percent), PercentCell(p.memory_util_percent), OwnerCell(p)});
    }
  }
  if (rows.empty()) return "";
  static const std::vector<FitColumn> kColumns = {
      {"GPU", true, 0, 0}, {"PID", true, 0, 0},   {"Name", false, 3, 12}, {"GPU memory", true, 0, 0},
      {"SM", true, 2, 0},  {"Mem", true, 1, 0},   {"Owner", false, 4, 10},
  };
  FitResult t = FitTable(kColumns, rows, o.width, false);
  return "\nProcesses:\n" + t.text + DroppedNote(t.dropped, o);
}

std::string Percent(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", *v) : std::string(kNa);
}

std::string GbPerS(const std::optional<std::int64_t>& bytes) {
  return bytes ? fmt::format("{:.1f}", static_cast<double>(*bytes) / 1e9) : std::string(kNa);
}

// What the SMs did (GPM, Hopper and later), when any GPU has GPM; the others
// read "not supported".
std::string Gpm(const SystemStatus& s, const TableOptions& o) {
  bool any = false;
  for (const auto& g : s.gpus) any |= g.gpm_supported.value_or(false);
  if (!any) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : s.gpus) {
    if (!g.gpm_supported.value_or(false)) {
      rows.push_back({std::to_string(g.index), "not supported"});
      continue;
    }
    rows.push_back({std::to_string(g.index), Percent(g.gpm_sm_activity_percent), Percent(g.gpm_sm_occupancy_percent),
                    Percent(g.gpm_tensor_activity_percent), Percent(g.gpm_fp64_activity_percent),
                    Percent(g.gpm_fp32_activity_percent), Percent(g.gpm_fp16_activity_percent),
                    Percent(g.gpm_dram_bandwidth_percent),
                    GbPerS(g.gpm_pcie_tx_bytes_per_s) + " / " + GbPerS(g.gpm_pcie_rx_bytes_per_s)});
  }
  static const std::vector<FitColumn> kColumns = {
      {"GPU", true, 0, 0},   {"SM active", true, 0, 0}, {"SM occupancy", true, 5, 0},
      {"Tensor", true, 6, 0}, {"FP64", true, 2, 0},     {"FP32", true, 3, 0},
      {"FP16", true, 1, 0},  {"DRAM bw", true, 7, 0},   {"PCIe tx/rx GB/s", true, 4, 0},
  };
  FitResult t = FitTable(kColumns, rows, o.width, false);
  return "\nGPM (what the SMs did since the previous sample):\n" + t.text + DroppedNote(t.dropped, o);
}

// MIG devices of GPUs in MIG mode: ids, memory, and their GPU instance's
// GPM where there is one.
std::string MigDevices(const SystemStatus& s, const TableOptions& o) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : s.gpus) {
    for (const auto& m : g.mig_devices) {
      const GpuStatus& ms = m.status;
      rows.push_back({std::to_string(g.index), std::to_string(m.gpu_instance_id),
                      m.compute_instance_id ? std::to_string(*m.compute_instance_id) : "-",
                      ms.uuid.empty() ? std::string(kNa) : ms.uuid,
                      FormatMiB(ms.memory_used_bytes) + " / " + FormatMiB(ms.memory_total_bytes),
                      Percent(ms.gpm_sm_activity_percent), Percent(ms.gpm_tensor_activity_percent),
                      Percent(ms.gpm_dram_bandwidth_percent)});
    }
  }
  if (rows.empty()) return "";
  static const std::vector<FitColumn> kColumns = {
      {"GPU", true, 0, 0},           {"GI", true, 0, 0},       {"CI", true, 0, 0},
      {"UUID", false, 2, 12},        {"Memory used / total", true, 0, 0},
      {"SM active", true, 4, 0},     {"Tensor", true, 1, 0},   {"DRAM bw", true, 3, 0},
  };
  FitResult t = FitTable(kColumns, rows, o.width, false);
  return "\nMIG devices:\n" + t.text + DroppedNote(t.dropped, o);
}

std::string Abnormal(const SystemStatus& s, const TableOptions& o) {
  std::vector<Anomaly> all;
  for (const auto& g : s.gpus) {
    auto found = FindAnomalies(g, o.thresholds);
    all.insert(all.end(), found.begin(), found.end());
  }
  std::stable_sort(all.begin(), all.end(), [](const Anomaly& a, const Anomaly& b) {
    return static_cast<int>(a.level) > static_cast<int>(b.level);
  });
  if (all.empty()) return "\nNothing abnormal in this reading.\n";
  std::string out = "\nAbnormal:\n";
  for (const auto& a : all) {
    const char* tag = a.level == Level::kCritical  ? "critical"
                      : a.level == Level::kWarning ? "warning"
                                                   : "info";
    out += fmt::format("  {} GPU {}: {}\n", Colorize(fmt::format("[{}]", tag), a.level, o.color),
                       a.gpu, a.text);
  }
  return out;
}

}  // namespace

std::string FormatMiB(std::optional<std::int64_t> bytes) {
  return bytes ? fmt::format("{} MiB", *bytes >> 20) : std::string(kNa);
}

std::string RenderStatusTable(const SystemStatus& s, const TableOptions& o) {
  std::string out = fmt::format(
      "Driver {}   CUDA {}   NVML {}   GPUs {}\n\n", s.driver_version.value_or(kNa),
      s.cuda_driver_version ? CudaVersionText(*s.cuda_driver_version) : kNa,
      s.nvml_version.value_or(kNa), s.gpus.size());
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : s.gpus) rows.push_back(Row(g, o));
  FitResult table = FitTable(kGpuColumns, rows, o.width, o.color);
  out += table.text;
  out += DroppedNote(table.dropped, o);
  if (s.gpus.empty()) out += "  (no GPUs found by the driver)\n";
  out += Gpm(s, o);
  out += MigDevices(s, o);
  out += Processes(s, o);
  out += o.width ? WrapToWidth(Abnormal(s, o), *o.width) : Abnormal(s, o);
  return out;
}

}  // namespace gpudoctor
