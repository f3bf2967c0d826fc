#include "render/watch_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <optional>
#include <vector>

#include "core/clock_reasons.h"
#include "render/ansi.h"
#include "render/sparkline.h"
#include "status/anomalies.h"

namespace gpudoctor {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;
constexpr std::size_t kLabelWidth = 9;   // "  memory "
constexpr std::size_t kValueWidth = 25;  // "81559/81559 MiB (100.0%)"

// A value as text plus how it grades against the thresholds.
struct WatchCell {
  std::string text = "n/a";
  Level level = Level::kNone;
};

// Units are glued to numbers in the one-line form ("56C") and spaced out on
// the screen ("56 °C").
struct Units {
  const char* space;
  const char* degrees;
};
constexpr Units kLineUnits{"", "C"};
constexpr Units kScreenUnits{" ", " \u00b0C"};

WatchCell UtilizationCell(const GpuStatus& gpu, const Thresholds& t) {
  WatchCell cell;
  auto value = HistoryValue(gpu, HistoryMetric::kUtilization);
  if (value) cell.text = fmt::format("{}%", *gpu.utilization_gpu_percent);
  cell.level = GradeUtilization(value, t);
  return cell;
}

// GPM's SM activity with the tensor pipes and DRAM bandwidth beside it:
// "12.5% tensor 0% dram 20%".
WatchCell SmActivityCell(const GpuStatus& gpu) {
  WatchCell cell;
  if (!gpu.gpm_sm_activity_percent) {
    if (gpu.gpm_supported && !*gpu.gpm_supported) cell.text = "not supported";
    return cell;
  }
  cell.text = fmt::format("{:.0f}%", *gpu.gpm_sm_activity_percent);
  if (gpu.gpm_tensor_activity_percent) {
    cell.text += fmt::format(" tensor {:.0f}%", *gpu.gpm_tensor_activity_percent);
  }
  if (gpu.gpm_dram_bandwidth_percent) {
    cell.text += fmt::format(" dram {:.0f}%", *gpu.gpm_dram_bandwidth_percent);
  }
  // Busy by time but most SMs idle: the pattern gpu.sm_idle judges.
  if (gpu.utilization_gpu_percent && *gpu.utilization_gpu_percent >= 80 &&
      *gpu.gpm_sm_activity_percent < 40) {
    cell.level = Level::kWarning;
  } else {
    cell.level = Level::kNormal;
  }
  return cell;
}

WatchCell MemoryCell(const GpuStatus& gpu, const Thresholds& t, const Units& u) {
  WatchCell cell;
  if (!gpu.memory_used_bytes) return cell;
  std::int64_t used = *gpu.memory_used_bytes / kMiB;
  auto percent = HistoryValue(gpu, HistoryMetric::kMemoryPercent);
  if (!percent) {
    cell.text = fmt::format("{}{}MiB", used, u.space);
    return cell;
  }
  cell.text =
      fmt::format("{}/{}{}MiB{}({:.1f}%)", used, *gpu.memory_total_bytes / kMiB,
                  u.space, u.space, *percent);
  cell.level = GradeMemory(percent, t);
  return cell;
}

WatchCell TemperatureCell(const GpuStatus& gpu, const Thresholds& t,
                     const Units& u) {
  WatchCell cell;
  auto value = HistoryValue(gpu, HistoryMetric::kTemperature);
  if (!value) return cell;
  cell.text = fmt::format("{}{}", *gpu.temperature_c, u.degrees);
  std::optional<double> slowdown;
  if (gpu.temperature_slowdown_c) {
    slowdown = static_cast<double>(*gpu.temperature_slowdown_c);
  }
  cell.level = GradeTemperature(value, slowdown, t);
  return cell;
}

WatchCell PowerCell(const GpuStatus& gpu, const Thresholds& t, const Units& u) {
  WatchCell cell;
  if (!gpu.power_draw_w) return cell;
  if (gpu.power_limit_w) {
    cell.text = fmt::format("{:.1f}/{:.1f}{}W", *gpu.power_draw_w,
                            *gpu.power_limit_w, u.space);
  } else {
    cell.text = fmt::format("{:.1f}{}W", *gpu.power_draw_w, u.space);
  }
  cell.level = GradePower(gpu.power_draw_w, gpu.power_limit_w, t);
  return cell;
}

std::string MhzText(const std::optional<std::int64_t>& mhz, const Units& u) {
  return mhz ? fmt::format("{}{}MHz", *mhz, u.space) : "n/a";
}

std::string PstateText(const GpuStatus& gpu) {
  return gpu.pstate ? fmt::format("P{}", *gpu.pstate) : "n/a";
}

// Active slowdown reasons joined by commas; "none" or "n/a".
WatchCell ReasonsCell(const GpuStatus& gpu) {
  WatchCell cell;
  if (!gpu.clock_event_reasons_mask) return cell;
  std::string names;
  for (const auto& reason : AllClockReasons()) {
    if ((*gpu.clock_event_reasons_mask & reason.bit) == 0) continue;
    if (!IsSlowdownReason(reason.bit)) continue;
    if (!names.empty()) names += ',';
    names += reason.name;
  }
  cell.text = names.empty() ? "none" : names;
  cell.level = names.empty() ? Level::kNone : Level::kWarning;
  return cell;
}

Level StateLevel(GpuState state) {
  return state == GpuState::kOk ? Level::kNormal : Level::kCritical;
}

std::string PadRight(std::string text, std::size_t width) {
  std::size_t visible = VisibleWidth(text);
  if (visible < width) text.append(width - visible, ' ');
  return text;
}

std::string IntervalText(std::chrono::milliseconds interval) {
  if (interval.count() % 1000 == 0)
    return fmt::format("{}s", interval.count() / 1000);
  if (interval.count() < 1000) return fmt::format("{}ms", interval.count());
  return fmt::format("{:g}s", static_cast<double>(interval.count()) / 1000.0);
}

std::string HeaderLine(const SystemStatus& status, const WatchViewOptions& o) {
  std::string line = Bold("gpudoctor watch", o.color);
  line += "  every " + IntervalText(o.interval);
  line += "  " + FormatLocalTime(o.now, ' ');
  line += "  driver " + status.driver_version.value_or("n/a");
  std::string cuda = status.cuda_driver_version
                         ? CudaVersionText(*status.cuda_driver_version)
                         : std::string();
  line += "  CUDA " + (cuda.empty() ? std::string("n/a") : cuda);
  constexpr std::string_view kHint = "q: quit";
  std::size_t used = VisibleWidth(line);
  if (used + 2 + kHint.size() <= o.width) {
    line.append(o.width - used - kHint.size(), ' ');
    line += kHint;
  }
  return line;
}

std::string TitleLine(const GpuStatus& gpu, const WatchViewOptions& o) {
  std::string line = Bold(fmt::format("GPU {}", gpu.index), o.color);
  line += "  " + (gpu.name.empty() ? std::string("(unknown)") : gpu.name);
  // As status' State column: the reading's verdict, or why it is unreachable.
  const Level verdict = ReadingVerdict(gpu, o.thresholds);
  line += "  " + Colorize(gpu.state == GpuState::kOk ? ReadingVerdictName(verdict)
                                                     : GpuStateName(gpu.state),
                          verdict == Level::kInfo ? Level::kNormal : verdict, o.color);
  if (!gpu.pci_bus_id.empty()) line += "  " + gpu.pci_bus_id;
  return line;
}

struct SparkRange {
  double min;
  double max;
};

SparkRange RangeFor(const GpuStatus& gpu, HistoryMetric metric,
                    const std::vector<std::optional<double>>& values) {
  switch (metric) {
    case HistoryMetric::kUtilization:
    case HistoryMetric::kMemoryPercent:
    case HistoryMetric::kSmActivity:
      return {0, 100};
    case HistoryMetric::kSmClock: {
      double max = static_cast<double>(gpu.clocks_max_sm_mhz.value_or(0));
      for (const auto& v : values) {
        if (v && *v > max) max = *v;
      }
      return {0, max};
    }
    case HistoryMetric::kTemperature:
      return {20, 100};
    case HistoryMetric::kPower: {
      double max = gpu.power_limit_w.value_or(0);
      for (const auto& v : values) {
        if (v && *v > max) max = *v;
      }
      return {0, max};
    }
  }
  return {0, 100};
}

std::string MetricLine(const GpuStatus& gpu, const History& history,
                       HistoryMetric metric, const char* label,
                       const WatchCell& cell, const WatchViewOptions& o) {
  std::string line = PadRight(std::string("  ") + label, kLabelWidth);
  line += PadRight(Colorize(cell.text, cell.level, o.color), kValueWidth);
  std::size_t used = kLabelWidth + kValueWidth + 1;
  if (o.width <= used) return line;
  std::size_t cells = std::min(history.capacity(), o.width - used);
  auto values = history.Values(gpu.index, metric);
  SparkRange range = RangeFor(gpu, metric, values);
  return line + " " + Sparkline(values, range.min, range.max, cells);
}

// A clock held down by a slowdown reason grades like the reason.
Level ClockLevel(const GpuStatus& gpu) { return ReasonsCell(gpu).level; }

std::string DetailLine(const GpuStatus& gpu, const WatchViewOptions& o) {
  WatchCell reasons = ReasonsCell(gpu);
  std::string line = PadRight("  clock", kLabelWidth);
  line += Colorize(MhzText(gpu.clocks_graphics_mhz, kScreenUnits), ClockLevel(gpu), o.color);
  line += "  " + PstateText(gpu);
  line += "  slowdown: " + Colorize(reasons.text, reasons.level, o.color);
  return line;
}

void AppendGpuBlock(const GpuStatus& gpu, const History& history,
                    const WatchViewOptions& o,
                    std::vector<std::string>& lines) {
  const Thresholds& t = o.thresholds;
  lines.push_back(TitleLine(gpu, o));
  if (gpu.state != GpuState::kOk && !gpu.state_detail.empty()) {
    lines.push_back("  " +
                    Colorize(gpu.state_detail, Level::kCritical, o.color));
  }
  lines.push_back(MetricLine(gpu, history, HistoryMetric::kUtilization, "util",
                             UtilizationCell(gpu, t), o));
  if (gpu.gpm_supported.value_or(false)) {
    lines.push_back(MetricLine(gpu, history, HistoryMetric::kSmActivity, "SM act",
                               SmActivityCell(gpu), o));
  }
  lines.push_back(MetricLine(gpu, history, HistoryMetric::kMemoryPercent,
                             "memory", MemoryCell(gpu, t, kScreenUnits), o));
  lines.push_back(MetricLine(gpu, history, HistoryMetric::kTemperature, "temp",
                             TemperatureCell(gpu, t, kScreenUnits), o));
  lines.push_back(MetricLine(gpu, history, HistoryMetric::kPower, "power",
                             PowerCell(gpu, t, kScreenUnits), o));
  lines.push_back(DetailLine(gpu, o));
  // MIG devices, one line each: ids, their GPU instance's SM activity, memory.
  for (const MigDeviceStatus& m : gpu.mig_devices) {
    const GpuStatus& ms = m.status;
    std::string ids = fmt::format("  MIG {}/{}", m.gpu_instance_id,
                                  m.compute_instance_id ? std::to_string(*m.compute_instance_id)
                                                        : std::string("-"));
    lines.push_back(PadRight(std::move(ids), kLabelWidth) + "SM act " +
                    (ms.gpm_sm_activity_percent
                         ? fmt::format("{:.0f}%", *ms.gpm_sm_activity_percent)
                         : std::string("n/a")) +
                    "  memory " + MemoryCell(ms, t, kScreenUnits).text);
  }
}

// --- compact layout: one row per GPU ---

struct CompactColumn {
  const char* title;
  std::size_t value_width;
};
// util, SM activity, memory, temperature, power, SM clock.
constexpr CompactColumn kCompactColumns[] = {{"util", 4}, {"SM act", 4}, {"mem", 4},
                                             {"temp", 4}, {"power", 5}, {"clock", 4}};
constexpr std::size_t kIndexWidth = 3;
constexpr std::size_t kMinReasonsWidth = 8;

// Columns the slowdown reasons of any GPU take (at least kMinReasonsWidth),
// so that the sparklines leave room for the longest reason names.
std::size_t ReasonsWidth(const SystemStatus& status) {
  std::size_t widest = kMinReasonsWidth;
  for (const auto& gpu : status.gpus) widest = std::max(widest, VisibleWidth(ReasonsCell(gpu).text));
  return widest;
}

// Sparkline cells per column for this width.
std::size_t CompactSparkCells(const WatchViewOptions& o, const History& history, std::size_t reasons_width) {
  std::size_t fixed = kIndexWidth + 2 + reasons_width;
  for (const auto& c : kCompactColumns) fixed += 2 + c.value_width;
  if (o.width <= fixed) return 0;
  return std::min(history.capacity(), (o.width - fixed) / std::size(kCompactColumns));
}

std::string PadLeft(std::string text, std::size_t width) {
  std::size_t visible = VisibleWidth(text);
  if (visible < width) text.insert(0, width - visible, ' ');
  return text;
}

std::string CompactHeader(std::size_t cells) {
  std::string line = PadRight("GPU", kIndexWidth);
  for (const auto& c : kCompactColumns) {
    line += " " + PadRight(c.title, c.value_width + (cells > 0 ? 1 + cells : 0));
  }
  return line + "  slowdown";
}

// "8 x NVIDIA H100 80GB HBM3, 1 x NVIDIA A100": the models, in index order.
std::string ModelsLine(const SystemStatus& status) {
  std::vector<std::pair<std::string, std::size_t>> models;
  for (const auto& gpu : status.gpus) {
    std::string name = gpu.name.empty() ? std::string("(unknown)") : gpu.name;
    auto it = std::find_if(models.begin(), models.end(),
                           [&](const auto& m) { return m.first == name; });
    if (it == models.end()) {
      models.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  std::string line;
  for (const auto& [name, count] : models) {
    if (!line.empty()) line += ", ";
    line += fmt::format("{} x {}", count, name);
  }
  return line;
}

std::string CompactCell(const GpuStatus& gpu, const History& history, HistoryMetric metric,
                        const WatchCell& cell, std::size_t value_width, std::size_t cells,
                        const WatchViewOptions& o) {
  std::string out = " " + PadLeft(Colorize(cell.text, cell.level, o.color), value_width);
  if (cells == 0) return out;
  auto values = history.Values(gpu.index, metric);
  SparkRange range = RangeFor(gpu, metric, values);
  return out + " " + Sparkline(values, range.min, range.max, cells);
}

std::string CompactRow(const GpuStatus& gpu, const History& history, std::size_t cells,
                       const WatchViewOptions& o) {
  const Thresholds& t = o.thresholds;
  std::string line = PadLeft(std::to_string(gpu.index), kIndexWidth);
  if (gpu.state != GpuState::kOk) {
    std::string why = gpu.state_detail.empty() ? "" : ": " + gpu.state_detail;
    return line + " " +
           Colorize(std::string(GpuStateName(gpu.state)) + why, StateLevel(gpu.state), o.color);
  }
  WatchCell util = UtilizationCell(gpu, t);
  WatchCell sm = SmActivityCell(gpu);
  if (!gpu.gpm_sm_activity_percent) sm.text = "-";  // no GPM: nothing to show
  WatchCell mem;
  if (auto percent = HistoryValue(gpu, HistoryMetric::kMemoryPercent)) {
    mem.text = fmt::format("{:.0f}%", *percent);
    mem.level = GradeMemory(percent, t);
  }
  WatchCell temp = TemperatureCell(gpu, t, kLineUnits);
  WatchCell power;
  if (gpu.power_draw_w) {
    power.text = fmt::format("{:.0f}W", *gpu.power_draw_w);
    power.level = GradePower(gpu.power_draw_w, gpu.power_limit_w, t);
  }
  WatchCell clock;
  if (gpu.clocks_sm_mhz) clock.text = std::to_string(*gpu.clocks_sm_mhz);
  clock.level = ClockLevel(gpu);
  const std::pair<HistoryMetric, const WatchCell*> columns[] = {
      {HistoryMetric::kUtilization, &util}, {HistoryMetric::kSmActivity, &sm},
      {HistoryMetric::kMemoryPercent, &mem}, {HistoryMetric::kTemperature, &temp},
      {HistoryMetric::kPower, &power},       {HistoryMetric::kSmClock, &clock}};
  for (std::size_t i = 0; i < std::size(columns); ++i) {
    line += CompactCell(gpu, history, columns[i].first, *columns[i].second,
                        kCompactColumns[i].value_width, cells, o);
  }
  WatchCell reasons = ReasonsCell(gpu);
  return line + "  " + Colorize(reasons.text, reasons.level, o.color);
}

void AppendCompactRows(const SystemStatus& status, const History& history,
                       const WatchViewOptions& o, std::vector<std::string>& lines) {
  const std::size_t cells = CompactSparkCells(o, history, ReasonsWidth(status));
  lines.push_back(ModelsLine(status));
  lines.push_back(Bold(CompactHeader(cells), o.color));
  for (const auto& gpu : status.gpus) lines.push_back(CompactRow(gpu, history, cells, o));
}

// --- processes, below either layout ---

constexpr const char* kProcessRowFormat = "{:>3}  {:>7}  {:<10} {:>4} {:>4}  {:>9}  {}";

struct ProcessRow {
  unsigned gpu;
  const GpuProcess* process;
};

std::string ProcessOwner(const GpuProcess& p) {
  if (!p.user.empty()) return p.user;
  if (!p.pod_uid.empty()) return "pod";
  if (!p.container_id.empty()) return "container";
  return "-";
}

// At most `room` lines (unlimited when 0): a title, a column header and one
// row per process, the last row saying how many more there are when they do
// not all fit. Nothing when no GPU lists its processes.
void AppendProcesses(const SystemStatus& status, std::size_t room, const WatchViewOptions& o,
                     std::vector<std::string>& lines) {
  std::vector<ProcessRow> rows;
  bool listed = false;
  for (const auto& gpu : status.gpus) {
    if (!gpu.processes) continue;
    listed = true;
    std::vector<ProcessRow> mine;
    for (const auto& p : *gpu.processes) mine.push_back({gpu.index, &p});
    std::stable_sort(mine.begin(), mine.end(), [](const ProcessRow& a, const ProcessRow& b) {
      const auto sa = a.process->sm_util_percent.value_or(-1);
      const auto sb = b.process->sm_util_percent.value_or(-1);
      if (sa != sb) return sa > sb;
      return a.process->used_memory_bytes.value_or(0) > b.process->used_memory_bytes.value_or(0);
    });
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  if (!listed || (room != 0 && room < 2)) return;
  lines.emplace_back();
  if (rows.empty()) {
    lines.push_back("processes: none");
    return;
  }
  lines.push_back(Bold(fmt::format(kProcessRowFormat, "GPU", "PID", "owner", "SM", "mem",
                                   "GPU mem", "process"),
                       o.color));
  std::size_t fit = rows.size();
  if (room != 0) {
    const std::size_t left = room - 2;  // the blank line and the column header
    // The last line says how many more.
    if (rows.size() > left) fit = left > 0 ? left - 1 : 0;
  }
  if (fit == 0) {
    lines.back() = fmt::format("{} processes (no room to list them)", rows.size());
    return;
  }
  auto percent = [](const std::optional<std::int64_t>& v) {
    return v ? fmt::format("{}%", *v) : std::string("-");
  };
  for (std::size_t i = 0; i < fit; ++i) {
    const GpuProcess& p = *rows[i].process;
    std::string owner = ProcessOwner(p);
    if (owner.size() > 10) owner = owner.substr(0, 9) + "~";
    lines.push_back(fmt::format(
        kProcessRowFormat, rows[i].gpu, p.pid, owner,
        percent(p.sm_util_percent), percent(p.memory_util_percent),
        p.used_memory_bytes ? fmt::format("{}MiB", *p.used_memory_bytes / kMiB) : std::string("-"),
        p.name.empty() ? std::string("(no name)") : p.name));
  }
  if (fit < rows.size()) lines.push_back(fmt::format("... {} more", rows.size() - fit));
}

// The full layout with the GPU blocks in 2 to 4 columns, each at least
// kMinBlockWidth wide, in the fewest columns whose rows fit `room`;
// nullopt when none does.
constexpr std::size_t kMinBlockWidth = 64;
constexpr std::size_t kBlockGap = 3;

std::optional<std::vector<std::string>> SideBySide(const SystemStatus& status, const History& history,
                                                   const WatchViewOptions& o, std::size_t room) {
  for (std::size_t k = 2; k <= 4 && k <= status.gpus.size(); ++k) {
    if (o.width < k * kMinBlockWidth + (k - 1) * kBlockGap) break;
    WatchViewOptions narrow = o;
    narrow.width = (o.width - (k - 1) * kBlockGap) / k;
    std::vector<std::vector<std::string>> blocks;
    std::size_t tallest = 0;
    for (const auto& gpu : status.gpus) {
      blocks.emplace_back();
      AppendGpuBlock(gpu, history, narrow, blocks.back());
      tallest = std::max(tallest, blocks.back().size());
    }
    const std::size_t groups = (blocks.size() + k - 1) / k;
    if (groups * (tallest + 1) > room) continue;
    std::vector<std::string> out;
    for (std::size_t g = 0; g < groups; ++g) {
      out.emplace_back();
      for (std::size_t row = 0; row < tallest; ++row) {
        std::string line;
        for (std::size_t i = g * k; i < std::min(blocks.size(), (g + 1) * k); ++i) {
          const std::string cell = row < blocks[i].size() ? ClipToWidth(blocks[i][row], narrow.width) : "";
          if (i > g * k) line += std::string(kBlockGap, ' ');
          line += PadRight(cell, narrow.width);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out.push_back(std::move(line));
      }
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::string RenderWatchFrame(const SystemStatus& status, const History& history,
                             const WatchViewOptions& options) {
  std::vector<std::string> lines = {HeaderLine(status, options)};
  if (!options.fabric_line.empty()) lines.push_back(options.fabric_line);
  if (!status.nvml_loaded) {
    lines.push_back(Colorize("NVML: " + status.nvml_error, Level::kCritical,
                             options.color));
  } else if (status.gpus.empty()) {
    lines.push_back("no NVIDIA GPU found");
  }
  std::vector<std::string> full;
  for (const auto& gpu : status.gpus) {
    full.emplace_back();
    AppendGpuBlock(gpu, history, options, full);
  }
  if (options.layout == WatchLayout::kAuto && options.height > 0 &&
      lines.size() + full.size() > options.height) {
    // A wide terminal takes the blocks side by side before it gives up the
    // full layout.
    if (auto columns = SideBySide(status, history, options, options.height - lines.size())) full = *columns;
  }
  const bool compact =
      !status.gpus.empty() &&
      (options.layout == WatchLayout::kCompact ||
       (options.layout == WatchLayout::kAuto && options.height > 0 &&
        lines.size() + full.size() > options.height));
  if (compact) {
    AppendCompactRows(status, history, options, lines);
  } else {
    lines.insert(lines.end(), full.begin(), full.end());
  }
  if (options.height == 0) {
    AppendProcesses(status, 0, options, lines);
  } else if (lines.size() < options.height) {
    AppendProcesses(status, options.height - lines.size(), options, lines);
  }
  if (options.height > 0 && lines.size() > options.height) lines.resize(options.height);
  std::string frame;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) frame += '\n';
    frame += ClipToWidth(lines[i], options.width);
  }
  return frame;
}

std::string RenderWatchLine(const GpuStatus& gpu,
                            std::chrono::system_clock::time_point now) {
  Thresholds t;
  std::string gpm;
  if (gpu.gpm_supported.value_or(false)) {
    gpm = " sm_active=" + (gpu.gpm_sm_activity_percent
                               ? fmt::format("{:.0f}%", *gpu.gpm_sm_activity_percent)
                               : std::string("n/a"));
  }
  return fmt::format(
      "{} gpu={} state={} util={} mem={} temp={} power={} sm={} pstate={} "
      "reasons={}{}",
      FormatLocalTime(now, 'T'), gpu.index, GpuStateName(gpu.state),
      UtilizationCell(gpu, t).text, MemoryCell(gpu, t, kLineUnits).text,
      TemperatureCell(gpu, t, kLineUnits).text,
      PowerCell(gpu, t, kLineUnits).text,
      MhzText(gpu.clocks_sm_mhz, kLineUnits), PstateText(gpu),
      ReasonsCell(gpu).text, gpm);
}

std::string FormatLocalTime(std::chrono::system_clock::time_point time,
                            char separator) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm local{};
  localtime_r(&seconds, &local);
  char buf[32];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &local);
  if (n > 10) buf[10] = separator;
  return std::string(buf, n);
}

std::string ClipToWidth(std::string_view line, std::size_t width) {
  std::string out;
  std::size_t visible = 0;
  bool escaped = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b) {  // copy a whole CSI sequence, it takes no columns
      std::size_t end = i + 1;
      while (end < line.size() &&
             !(line[end] >= '@' && line[end] <= '~' && line[end] != '[')) {
        ++end;
      }
      out.append(line.substr(i, end - i + 1));
      escaped = true;
      i = end;
      continue;
    }
    bool starts_char = (c & 0xC0) != 0x80;
    if (starts_char && visible == width) {
      if (escaped) out += Sgr("0");
      return out;
    }
    if (starts_char) ++visible;
    out += static_cast<char>(c);
  }
  return out;
}

}  // namespace gpudoctor
