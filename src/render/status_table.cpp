#include "render/status_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/clock_reasons.h"
#include "render/ansi.h"
#include "status/anomalies.h"

namespace gpudoctor {
namespace {

constexpr const char* kNa = "n/a";

std::string Pad(const std::string& text, std::size_t width, bool right = false) {
  std::size_t visible = VisibleWidth(text);
  if (visible >= width) return text;
  std::string pad(width - visible, ' ');
  return right ? pad + text : text + pad;
}

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

std::string Row(const GpuStatus& g, const TableOptions& o) {
  std::string state = Colorize(GpuStateName(g.state),
                               g.state == GpuState::kOk ? Level::kNormal : Level::kCritical,
                               o.color);
  std::string name = g.name.size() > 26 ? g.name.substr(0, 25) + "~" : g.name;
  auto util = g.utilization_gpu_percent
                  ? std::optional<std::string>(fmt::format("{}%", *g.utilization_gpu_percent))
                  : std::nullopt;
  auto temp = g.temperature_c
                  ? std::optional<std::string>(fmt::format("{}C", *g.temperature_c))
                  : std::nullopt;
  auto sm = g.clocks_sm_mhz ? std::optional<std::string>(fmt::format("{} MHz", *g.clocks_sm_mhz))
                            : std::nullopt;
  std::string pstate = g.pstate ? fmt::format("P{}", *g.pstate) : kNa;
  std::string persist = g.persistence_mode ? (*g.persistence_mode ? "on" : "off") : kNa;
  return fmt::format(
      "{:>3}  {}  {}  {}  {}  {}  {}  {}  {}  {}  {}\n", g.index, Pad(name, 26),
      Pad(g.pci_bus_id.empty() ? kNa : g.pci_bus_id, 12), Pad(state, 5),
      Pad(Cell(util, GradeUtilization(AsDouble(g.utilization_gpu_percent), o.thresholds),
               o.color),
          4, true),
      Pad(MemoryCell(g, o), 22, true),
      Pad(Cell(temp,
               GradeTemperature(AsDouble(g.temperature_c), AsDouble(g.temperature_slowdown_c),
                                o.thresholds),
               o.color),
          4, true),
      Pad(PowerCell(g, o), 13, true), Pad(sm ? *sm : kNa, 9, true), Pad(pstate, 3),
      persist);
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

std::string Processes(const SystemStatus& s) {
  std::string out;
  for (const auto& g : s.gpus) {
    if (!g.processes) continue;
    for (const auto& p : *g.processes) {
      std::string line = fmt::format(
          "{:>3}  {:>8}  {}  {:>10}  {:>4}  {:>4}  {}", g.index, p.pid,
          Pad(p.name.empty() ? "?" : p.name, 40),
          p.used_memory_bytes ? fmt::format("{} MiB", *p.used_memory_bytes >> 20)
                              : std::string(kNa),
          PercentCell(p.sm_util_percent), PercentCell(p.memory_util_percent), OwnerCell(p));
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }
  return out.empty() ? out
                     : "\nProcesses:\nGPU       PID  Name                                      "
                       "GPU memory    SM   Mem  Owner\n" +
                           out;
}

std::string Percent(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", *v) : std::string(kNa);
}

std::string GbPerS(const std::optional<std::int64_t>& bytes) {
  return bytes ? fmt::format("{:.1f}", static_cast<double>(*bytes) / 1e9) : std::string(kNa);
}

// What the SMs did (GPM, Hopper and later), when any GPU has GPM; the others
// read "not supported".
std::string Gpm(const SystemStatus& s) {
  bool any = false;
  for (const auto& g : s.gpus) any |= g.gpm_supported.value_or(false);
  if (!any) return "";
  std::string out =
      "\nGPM (what the SMs did since the previous sample):\n"
      "GPU  SM active  SM occupancy  Tensor    FP64    FP32    FP16    DRAM bw  PCIe tx/rx GB/s\n";
  for (const auto& g : s.gpus) {
    if (!g.gpm_supported.value_or(false)) {
      out += fmt::format("{:>3}  not supported\n", g.index);
      continue;
    }
    out += fmt::format("{:>3}  {:>9}  {:>12}  {:>6}  {:>6}  {:>6}  {:>6}  {:>9}  {} / {}\n", g.index,
                       Percent(g.gpm_sm_activity_percent), Percent(g.gpm_sm_occupancy_percent),
                       Percent(g.gpm_tensor_activity_percent), Percent(g.gpm_fp64_activity_percent),
                       Percent(g.gpm_fp32_activity_percent), Percent(g.gpm_fp16_activity_percent),
                       Percent(g.gpm_dram_bandwidth_percent), GbPerS(g.gpm_pcie_tx_bytes_per_s),
                       GbPerS(g.gpm_pcie_rx_bytes_per_s));
  }
  return out;
}

// MIG devices of GPUs in MIG mode: ids, memory, and their GPU instance's
// GPM where there is one.
std::string MigDevices(const SystemStatus& s) {
  std::string out;
  for (const auto& g : s.gpus) {
    for (const auto& m : g.mig_devices) {
      if (out.empty()) {
        out = "\nMIG devices:\nGPU  GI  CI  UUID                                      Memory used / total"
              "      SM active  Tensor  DRAM bw\n";
      }
      const GpuStatus& ms = m.status;
      out += fmt::format("{:>3}  {:>2}  {:>2}  {:<40}  {:>9} / {:<11}  {:>9}  {:>6}  {:>7}\n",
                         g.index, m.gpu_instance_id,
                         m.compute_instance_id ? std::to_string(*m.compute_instance_id) : "-",
                         ms.uuid.empty() ? std::string(kNa) : ms.uuid,
                         FormatMiB(ms.memory_used_bytes), FormatMiB(ms.memory_total_bytes),
                         Percent(ms.gpm_sm_activity_percent),
                         Percent(ms.gpm_tensor_activity_percent),
                         Percent(ms.gpm_dram_bandwidth_percent));
    }
  }
  return out;
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
  out += Bold(fmt::format("{:>3}  {}  {}  {}  {:>4}  {:>22}  {:>4}  {:>13}  {:>9}  {}  {}\n",
                          "GPU", Pad("Name", 26), Pad("Bus-Id", 12), "State", "Util",
                          "Memory used / total", "Temp", "Power / limit", "SM clock", "P  ",
                          "Persist"),
              o.color);
  for (const auto& g : s.gpus) out += Row(g, o);
  if (s.gpus.empty()) out += "  (no GPUs found by the driver)\n";
  out += Gpm(s);
  out += MigDevices(s);
  out += Processes(s);
  out += Abnormal(s, o);
  return out;
}

}  // namespace gpudoctor
