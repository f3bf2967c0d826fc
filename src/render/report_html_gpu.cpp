// The per-GPU section of the HTML report: five charts (six with GPM) and a
// min/avg/max table.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "core/gpu_status.h"
#include "core/time_format.h"
#include "render/html_escape.h"
#include "render/report_html_parts.h"
#include "render/report_text.h"
#include "render/svg_chart.h"

namespace gpudoctor {
namespace {

using SeriesGetter = std::function<std::optional<double>(const GpuStatus&)>;

// The chart line classes of report_html_style.cpp, one per MIG GPU instance.
constexpr const char* kMigSeriesClasses[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6"};

template <typename T>
std::optional<double> AsDouble(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

std::optional<double> MemoryUsedPercent(const GpuStatus& g) {
  if (!g.memory_used_bytes || !g.memory_total_bytes || *g.memory_total_bytes <= 0)
    return std::nullopt;
  return 100.0 * static_cast<double>(*g.memory_used_bytes) /
         static_cast<double>(*g.memory_total_bytes);
}

std::optional<double> PowerLimit(const GpuStatus& g) {
  return g.power_enforced_limit_w ? g.power_enforced_limit_w : g.power_limit_w;
}

ChartSeries MakeSeries(const GpuSeries& gpu, const ChartRange& range, const Text& label, Lang l,
                       const char* css_class, const SeriesGetter& get) {
  ChartSeries s{label.In(l), css_class, {}};
  for (std::size_t i = 0; i < gpu.readings.size(); ++i) {
    double x = static_cast<double>(i);
    if (range.time_axis) {
      if (i >= gpu.times.size() || !gpu.times[i]) continue;  // a reading with no time has no place
      x = UnixSeconds(*gpu.times[i]);
    }
    s.points.push_back(ChartPoint{x, get(gpu.readings[i])});
  }
  return s;
}

// The latest value a getter has over the window.
std::optional<double> Latest(const GpuSeries& gpu, const SeriesGetter& get) {
  for (auto it = gpu.readings.rbegin(); it != gpu.readings.rend(); ++it) {
    if (auto v = get(*it)) return v;
  }
  return std::nullopt;
}

bool Names(const std::vector<std::string>& gpus, const std::string& bus_id) {
  return gpus.empty() || std::find(gpus.begin(), gpus.end(), bus_id) != gpus.end();
}

struct Marks {
  std::vector<ChartMarker> markers;
  std::vector<ChartBand> bands;
  std::size_t events_left_out = 0;
};

// Kernel events of this GPU (or of no GPU), finding intervals from the
// timeline, or without a timeline the timed evidence of the findings.
Marks MarksFor(const ReportContext& r, const GpuSeries& gpu, const ChartRange& range) {
  Marks m;
  if (!range.time_axis) return m;
  const Lang l = r.lang;
  std::size_t events = 0;
  if (r.input->kernel) {
    for (const KernelEvent& e : r.input->kernel->events) {
      if (!e.time || (!e.pci_bus_id.empty() && NormalizePciBusId(e.pci_bus_id) != gpu.key))
        continue;
      double t = UnixSeconds(*e.time);
      if (t < range.from_s || t > range.to_s) continue;
      if (++events > kMaxMarkersPerGpu) {
        ++m.events_left_out;
        continue;
      }
      std::string code = e.code ? fmt::format(" {}", *e.code) : "";
      m.markers.push_back(ChartMarker{t,
                                      fmt::format("{}  {}{}: {}", FormatRfc3339(*e.time),
                                                  KernelEventKindName(e.kind), code, e.message),
                                      "event"});
    }
  }
  if (r.timeline) {
    for (const FindingInterval& f : r.timeline->findings) {
      // Host-wide intervals are the timeline's, once; not a band on every GPU.
      if (f.gpus.empty() || !Names(f.gpus, gpu.key)) continue;
      double end = f.end ? UnixSeconds(*f.end) : range.to_s;
      std::string until = f.end ? FormatRfc3339(*f.end) : Pick(l, "still active", "仍在持续");
      m.bands.push_back(ChartBand{UnixSeconds(f.start), end,
                                  fmt::format("{} ({}): {} – {}", f.title.In(l), f.finding_id,
                                              FormatRfc3339(f.start), until),
                                  std::string("band-") + SeverityName(f.severity)});
    }
    return m;
  }
  for (const Finding& f : r.diagnosis->findings) {
    if (!Names(f.gpus, gpu.key)) continue;
    const std::vector<EvidenceItem>* evidence = &f.evidence;
    for (const GpuShare& share : f.per_gpu) {  // folded across GPUs: this GPU's own
      if (share.gpu == gpu.key) evidence = &share.evidence;
    }
    for (const EvidenceItem& e : *evidence) {
      if (!e.time) continue;
      m.markers.push_back(
          ChartMarker{UnixSeconds(*e.time), fmt::format("{}: {}", f.id, e.text.In(l)), "finding"});
    }
  }
  return m;
}

struct Field {
  const char* name;  // status --json name, as SummarizeMetrics keys it
  Text label;
  const char* unit;
  double scale;
};

const Field kTableFields[] = {
    {"utilization_gpu_percent", {"GPU utilisation", "GPU 利用率"}, "%", 1},
    {"utilization_memory_percent", {"Memory controller utilisation", "显存控制器利用率"}, "%", 1},
    {"memory_used_bytes", {"Memory used", "显存已用"}, "GiB", 1.0 / (1024.0 * 1024 * 1024)},
    {"temperature_c", {"Temperature", "温度"}, "°C", 1},
    {"memory_temperature_c", {"HBM temperature", "显存 (HBM) 温度"}, "°C", 1},
    {"fan_speed_percent", {"Fan speed", "风扇转速"}, "%", 1},
    {"power_draw_w", {"Power draw", "功耗"}, "W", 1},
    {"clocks_sm_mhz", {"SM clock", "SM 时钟"}, "MHz", 1},
    {"clocks_memory_mhz", {"Memory clock", "显存时钟"}, "MHz", 1},
    {"gpm_sm_activity_percent", {"SM activity (GPM)", "SM 活跃度 (GPM)"}, "%", 1},
    {"gpm_sm_occupancy_percent", {"SM occupancy (GPM)", "SM 占用率 (GPM)"}, "%", 1},
    {"gpm_tensor_activity_percent", {"Tensor pipes (GPM)", "Tensor 管线 (GPM)"}, "%", 1},
    {"gpm_fp32_activity_percent", {"FP32 pipe (GPM)", "FP32 管线 (GPM)"}, "%", 1},
    {"gpm_dram_bandwidth_percent", {"DRAM bandwidth (GPM)", "显存带宽 (GPM)"}, "%", 1},
};

std::string MetricsTable(const GpuSeries& gpu, Lang l) {
  auto metrics = SummarizeMetrics(gpu);
  std::string rows;
  for (const Field& f : kTableFields) {
    auto it = metrics.find(f.name);
    if (it == metrics.end()) continue;
    const MetricSummary& s = it->second;
    rows += fmt::format(
        R"(<tr><td>{}</td><td class="num">{:.1f}</td><td class="num">{:.1f}</td><td class="num">{:.1f}</td><td>{}</td><td class="num">{}</td></tr>)",
        f.label.In(l), s.min * f.scale, s.avg * f.scale, s.max * f.scale, f.unit, s.count);
  }
  if (rows.empty())
    return fmt::format(R"(<p class="note">{}</p>)", Pick(l, "No readings.", "没有读数。"));
  return TableStart("metrics", {Pick(l, "Metric", "指标"), Pick(l, "min", "最小"),
                                Pick(l, "avg", "平均"), Pick(l, "max", "最大"),
                                Pick(l, "unit", "单位"), Pick(l, "readings", "读数")}) +
         rows + "</tbody></table>";
}

// Who ran on the GPU over the window and what each took.
std::string ProcessesTable(const GpuSeries& gpu, Lang l) {
  auto processes = SummarizeProcesses(gpu);
  if (processes.empty()) return "";
  std::string rows;
  auto percent = [](const std::optional<MetricSummary>& s) {
    return s ? fmt::format("{:.0f} / {:.0f}", s->avg, s->max) : std::string("–");
  };
  for (const ProcessSummary& p : processes) {
    std::string owner = p.user;
    if (!p.pod_uid.empty()) {
      owner += (owner.empty() ? "" : ", ") + std::string("pod ") + p.pod_uid;
    } else if (!p.container_id.empty()) {
      owner += (owner.empty() ? "" : ", ") + std::string("container ") + p.container_id;
    }
    rows += fmt::format(
        R"(<tr><td class="num">{}</td><td><code>{}</code></td><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>)",
        p.pid, HtmlEscape(p.name.empty() ? "?" : p.name), HtmlEscape(owner.empty() ? "–" : owner),
        percent(p.sm_util_percent), percent(p.memory_util_percent),
        p.used_memory_max_bytes
            ? fmt::format("{:.1f}", *p.used_memory_max_bytes / (1024.0 * 1024 * 1024))
            : std::string("–"),
        p.readings);
  }
  return fmt::format("<h3>{}</h3>", Pick(l, "Processes", "进程")) +
         TableStart("processes",
                    {Pick(l, "PID", "PID"), Pick(l, "Name", "名称"), Pick(l, "Owner", "归属"),
                     Pick(l, "SM % avg / max", "SM % 平均 / 最大"),
                     Pick(l, "Memory % avg / max", "显存 % 平均 / 最大"),
                     Pick(l, "GPU memory max (GiB)", "显存最大占用 (GiB)"),
                     Pick(l, "readings", "读数")}) +
         rows + "</tbody></table>";
}

std::string ThresholdLabel(const char* en, const char* zh, double value, const char* unit, Lang l) {
  return fmt::format("{} {:.0f} {}", Pick(l, en, zh), value, unit);
}

std::vector<ChartSpec> Charts(const ReportContext& r, const GpuSeries& gpu,
                              const ChartRange& range) {
  const Lang l = r.lang;
  auto spec = [&](const char* metric, const Text& title, const char* unit) {
    ChartSpec s;
    s.metric = metric;
    s.title = title.In(l);
    s.unit = unit;
    s.x_from_s = range.from_s;
    s.x_to_s = range.to_s;
    s.time_axis = range.time_axis;
    s.max_points = kMaxChartPoints;
    s.no_data_text = Pick(l, "no data", "无数据");
    return s;
  };
  auto series = [&](const Text& label, const char* cls, const SeriesGetter& get) {
    return MakeSeries(gpu, range, label, l, cls, get);
  };
  std::vector<ChartSpec> charts;

  ChartSpec util = spec("utilization", {"Utilisation", "利用率"}, "%");
  util.y_min = 0;
  util.y_max = 100;
  util.series.push_back(series({"GPU", "GPU"}, "s0", [](const GpuStatus& g) {
    return AsDouble(g.utilization_gpu_percent);
  }));
  util.series.push_back(series({"memory controller", "显存控制器"}, "s1", [](const GpuStatus& g) {
    return AsDouble(g.utilization_memory_percent);
  }));
  charts.push_back(std::move(util));

  // GPM's view of the same time: what share of the SMs, and of which pipes,
  // were busy (Hopper and later; no chart for a GPU that never had GPM).
  if (Latest(gpu, [](const GpuStatus& g) { return g.gpm_sm_activity_percent; })) {
    ChartSpec sm = spec("sm_activity", {"SM activity (GPM)", "SM 活跃度 (GPM)"}, "%");
    sm.y_min = 0;
    sm.y_max = 100;
    sm.series.push_back(series({"SM active", "SM 活跃"}, "s0",
                               [](const GpuStatus& g) { return g.gpm_sm_activity_percent; }));
    sm.series.push_back(series({"tensor pipes", "Tensor 管线"}, "s1",
                               [](const GpuStatus& g) { return g.gpm_tensor_activity_percent; }));
    sm.series.push_back(series({"FP32 pipe", "FP32 管线"}, "s2",
                               [](const GpuStatus& g) { return g.gpm_fp32_activity_percent; }));
    sm.series.push_back(series({"DRAM bandwidth", "显存带宽"}, "s3",
                               [](const GpuStatus& g) { return g.gpm_dram_bandwidth_percent; }));
    charts.push_back(std::move(sm));
  }

  // A GPU in MIG mode: SM activity per GPU instance (nvmlGpmMigSampleGet),
  // one line each, up to the seven instances a GPU can have.
  std::vector<unsigned> instances;
  for (const GpuStatus& reading : gpu.readings) {
    for (const MigDeviceStatus& m : reading.mig_devices) {
      if (!m.status.gpm_sm_activity_percent || instances.size() >= std::size(kMigSeriesClasses) ||
          std::find(instances.begin(), instances.end(), m.gpu_instance_id) != instances.end()) {
        continue;
      }
      instances.push_back(m.gpu_instance_id);
    }
  }
  if (!instances.empty()) {
    std::sort(instances.begin(), instances.end());
    ChartSpec mig = spec("mig_sm_activity",
                         {"SM activity per MIG GPU instance (GPM)", "各 MIG GPU 实例的 SM 活跃度 (GPM)"},
                         "%");
    mig.y_min = 0;
    mig.y_max = 100;
    for (std::size_t i = 0; i < instances.size(); ++i) {
      const unsigned gi = instances[i];
      mig.series.push_back(series(
          {fmt::format("GPU instance {}", gi), fmt::format("GPU 实例 {}", gi)},
          kMigSeriesClasses[i], [gi](const GpuStatus& g) -> std::optional<double> {
            for (const MigDeviceStatus& m : g.mig_devices) {
              if (m.gpu_instance_id == gi) return m.status.gpm_sm_activity_percent;
            }
            return std::nullopt;
          }));
    }
    charts.push_back(std::move(mig));
  }

  ChartSpec mem = spec("memory", {"Memory used", "显存占用"}, "%");
  mem.y_min = 0;
  mem.y_max = 100;
  mem.series.push_back(series({"used", "已用"}, "s0", MemoryUsedPercent));
  double high = r.input->config.thresholds.memory_high_percent;
  mem.thresholds.push_back(ChartThreshold{high, ThresholdLabel("high", "偏高", high, "%", l)});
  charts.push_back(std::move(mem));

  ChartSpec temp = spec("temperature", {"Temperature", "温度"}, "°C");
  temp.series.push_back(
      series({"core", "核心"}, "s0", [](const GpuStatus& g) { return AsDouble(g.temperature_c); }));
  temp.series.push_back(series(
      {"HBM", "HBM"}, "s1", [](const GpuStatus& g) { return AsDouble(g.memory_temperature_c); }));
  if (auto slowdown =
          Latest(gpu, [](const GpuStatus& g) { return AsDouble(g.temperature_slowdown_c); })) {
    temp.thresholds.push_back(
        ChartThreshold{*slowdown, ThresholdLabel("slowdown", "降频阈值", *slowdown, "°C", l)});
  } else {
    double t = r.input->config.thresholds.temperature_high_c;
    temp.thresholds.push_back(ChartThreshold{t, ThresholdLabel("high", "偏高", t, "°C", l)});
  }
  charts.push_back(std::move(temp));

  ChartSpec power = spec("power", {"Power", "功耗"}, "W");
  power.y_min = 0;
  power.series.push_back(
      series({"draw", "功耗"}, "s0", [](const GpuStatus& g) { return g.power_draw_w; }));
  power.series.push_back(series({"limit", "上限"}, "limit", PowerLimit));
  charts.push_back(std::move(power));

  ChartSpec clocks = spec("clocks", {"Clocks", "时钟频率"}, "MHz");
  clocks.y_min = 0;
  clocks.series.push_back(
      series({"SM", "SM"}, "s0", [](const GpuStatus& g) { return AsDouble(g.clocks_sm_mhz); }));
  clocks.series.push_back(series({"memory", "显存"}, "s1",
                                 [](const GpuStatus& g) { return AsDouble(g.clocks_memory_mhz); }));
  if (auto max_sm = Latest(gpu, [](const GpuStatus& g) { return AsDouble(g.clocks_max_sm_mhz); })) {
    clocks.thresholds.push_back(
        ChartThreshold{*max_sm, ThresholdLabel("SM max", "SM 最高", *max_sm, "MHz", l)});
  }
  charts.push_back(std::move(clocks));
  return charts;
}

}  // namespace

std::string TableStart(const char* css_class, std::initializer_list<const char*> headings) {
  std::string out = fmt::format(R"(<table class="{}"><thead><tr>)", css_class);
  for (const char* h : headings) out += fmt::format("<th>{}</th>", h);
  return out + "</tr></thead><tbody>";
}

double UnixSeconds(WallTime time) {
  return std::chrono::duration<double>(time.time_since_epoch()).count();
}

std::string SeverityBadge(Severity s, Lang l) {
  return fmt::format(R"(<span class="badge sev-{}">{}</span>)", SeverityName(s),
                     HtmlEscape(SeverityLabel(s, l)));
}

ChartRange ChartRangeFor(const DiagnosisInput& input) {
  std::optional<double> lo, hi;
  std::size_t most_readings = 0;
  for (const GpuSeries& g : input.gpus) {
    most_readings = std::max(most_readings, g.readings.size());
    for (const auto& t : g.times) {
      if (!t) continue;
      double s = UnixSeconds(*t);
      lo = lo ? std::min(*lo, s) : s;
      hi = hi ? std::max(*hi, s) : s;
    }
  }
  if (!lo) {
    double last = most_readings > 1 ? static_cast<double>(most_readings - 1) : 1.0;
    return ChartRange{0, last, false};
  }
  if (*hi - *lo < 1)
    return ChartRange{*lo - 30, *hi + 30, true};  // one instant: a minute around it
  return ChartRange{*lo, *hi, true};
}

std::string GpuSectionHtml(const ReportContext& r, const GpuSeries& gpu, const GpuVerdict* verdict,
                           const ChartRange& range) {
  const Lang l = r.lang;
  const GpuStatus* latest = gpu.readings.empty() ? nullptr : &gpu.latest();
  std::string index = verdict  ? std::to_string(verdict->index)
                      : latest ? std::to_string(latest->index)
                               : "?";
  std::string name = verdict ? verdict->name : latest ? latest->name : "";
  std::string out = fmt::format(
      R"(<section class="gpu" id="gpu-{}" data-gpu="{}"><h2 class="gpu-head">GPU {} <code>{}</code> {})",
      HtmlEscape(index), HtmlEscape(gpu.key), HtmlEscape(index), HtmlEscape(gpu.key),
      HtmlEscape(name));
  if (verdict) {
    out += " " + SeverityBadge(verdict->verdict, l);
    if (verdict->state != "ok")
      out +=
          fmt::format(R"( <span class="badge sev-critical">{}</span>)", HtmlEscape(verdict->state));
  }
  out += "</h2>";
  Marks marks = MarksFor(r, gpu, range);
  out += R"(<div class="charts">)";
  for (ChartSpec& c : Charts(r, gpu, range)) {
    c.markers = marks.markers;
    c.bands = marks.bands;
    out += RenderSvgChart(c);
  }
  out += "</div>";
  if (marks.events_left_out > 0) {
    out += fmt::format(
        R"(<p class="note">{}</p>)",
        fmt::format(
            fmt::runtime(
                Pick(l, "{} more kernel events are not marked on the charts; see the events table.",
                     "另有 {} 条内核事件未在图上标出，见事件表。")),
            marks.events_left_out));
  }
  out += fmt::format("<h3>{}</h3>", Pick(l, "Over the window", "窗口内统计"));
  out += MetricsTable(gpu, l);
  out += ProcessesTable(gpu, l);
  return out + "</section>";
}

}  // namespace gpudoctor
