// dcgm-exporter's names beyond the fields (--metrics-names dcgm|both):
// DCGM_FI_PROF_GR_ENGINE_ACTIVE per GPU instance on MIG, the video engines'
// utilisation, NVLink bandwidth, the DCGM_EXP_* series (windowed Xid and
// clock event counts, health per DCGM watch), err_msg in dcgm-exporter's
// words; checked against real dcgm-exporter captures (../shared/fixtures/
// dcgm-exporter) and the queries of NVIDIA's dcgm-exporter dashboard.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "agent/http_snapshot.h"
#include "knowledge/dcgm_xid_messages.h"
#include "knowledge/xid_catalog.h"
#include "prom/series_readings.h"
#include "rules/engine/engine.h"
#include "knowledge/dcgm_health_watch.h"
#include "render/prometheus_dcgm.h"
#include "render/prometheus_metrics.h"
#include "support/fixtures.h"

namespace gpudoctor {
namespace prom_dcgm_complete_test_ns {

constexpr const char* kBus = "0000:18:00.0";
constexpr const char* kIdentity =
    "gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia0\","
    "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-7\",DCGM_FI_DRIVER_VERSION=\"550.54.15\"";

AgentLiveSnapshot Snapshot() {
  AgentLiveSnapshot s;
  s.status.nvml_loaded = true;
  s.status.driver_version = "550.54.15";
  GpuStatus g;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-0";
  g.pci_bus_id = kBus;
  g.temperature_c = 70;
  g.utilization_encoder_percent = 12;
  g.utilization_decoder_percent = 34;
  g.gpm_graphics_activity_percent = 62.5;
  g.gpm_nvlink_tx_bytes_per_s = 1024000LL * 300;
  g.gpm_nvlink_rx_bytes_per_s = 1024000LL * 200;
  s.status.gpus.push_back(g);
  GpuCounters& c = s.gpus[kBus];
  c.labels = {0, g.uuid, g.pci_bus_id, g.name};
  c.seen = true;
  c.last_xid = 48;
  c.xids_in_window[48] = 2;
  c.clock_event_samples_in_window[0x40] = 3;  // hw_thermal
  FindingInterval hot;
  hot.finding_id = "thermal.slowdown";
  hot.severity = Severity::kCritical;
  hot.gpus = {kBus};
  s.active_findings.push_back(hot);
  return s;
}

std::string Render(const AgentLiveSnapshot& s,
                   ExpositionFormat format = ExpositionFormat::kPrometheusText) {
  MetricsRenderOptions o;
  o.names = MetricNames::kDcgm;
  o.hostname = "node-7";
  return RenderPrometheusMetrics(s, format, o);
}

bool HasLine(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

// Sample lines of an exposition: name -> label sets (name -> value).
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
};
std::vector<Sample> Samples(const std::string& text) {
  static const std::regex kLine(R"(^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}\s+\S+\s*$)");
  static const std::regex kLabel(R"re(\s*([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)",?)re");
  std::vector<Sample> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, kLine)) continue;
    Sample s;
    s.name = m[1];
    const std::string body = m[2];
    for (auto it = std::sregex_iterator(body.begin(), body.end(), kLabel); it != std::sregex_iterator();
         ++it) {
      s.labels[(*it)[1]] = (*it)[2];
    }
    out.push_back(std::move(s));
  }
  return out;
}

// "# TYPE name type" lines.
std::map<std::string, std::string> Types(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::istringstream words(l);
    std::string hash, type_word, name, type;
    if (words >> hash >> type_word >> name >> type && hash == "#" && type_word == "TYPE") out[name] = type;
  }
  return out;
}

TEST(PromDcgmComplete, GraphicsEngineVideoEnginesAndNvLinkBandwidth) {
  const std::string text = Render(Snapshot());
  const std::string l = std::string("{") + kIdentity + "}";
  EXPECT_TRUE(HasLine(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + l + " 0.625")) << text;
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_ENC_UTIL" + l + " 12")) << text;
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_DEC_UTIL" + l + " 34")) << text;
  // Both directions, in DCGM's unit: KiB/s / 1000.
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL" + l + " 500")) << text;
  EXPECT_TRUE(HasLine(text, "# TYPE DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL gauge"));
  EXPECT_TRUE(HasLine(text, "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge"));
  // gpudoctor's own names for the same readings.
  MetricsRenderOptions o;
  o.names = MetricNames::kGpudoctor;
  const std::string own = RenderPrometheusMetrics(Snapshot(), ExpositionFormat::kPrometheusText, o);
  EXPECT_NE(own.find("gpudoctor_gpu_graphics_activity_ratio{"), std::string::npos) << own;
  EXPECT_NE(own.find("gpudoctor_gpu_encoder_utilization_ratio{"), std::string::npos);
  EXPECT_NE(own.find("gpudoctor_gpu_decoder_utilization_ratio{"), std::string::npos);
}

TEST(PromDcgmComplete, ExpSeriesWithTheirWindowAndLabels) {
  const std::string text = Render(Snapshot());
  EXPECT_TRUE(HasLine(text, std::string("DCGM_EXP_XID_ERRORS_COUNT{") + kIdentity +
                                ",window_size_in_ms=\"300000\",xid=\"48\"} 2"))
      << text;
  EXPECT_TRUE(HasLine(text, std::string("DCGM_EXP_CLOCK_EVENTS_COUNT{") + kIdentity +
                                ",clock_event=\"hw_thermal\",window_size_in_ms=\"300000\"} 3"))
      << text;
  EXPECT_TRUE(HasLine(text, std::string("DCGM_EXP_GPU_HEALTH_STATUS{") + kIdentity +
                                ",health_watch=\"THERMAL\",health_error_code=\"DCGM_FR_CLOCK_THROTTLE_THERMAL\"} 20"))
      << text;
  EXPECT_TRUE(HasLine(text, std::string("DCGM_EXP_GPU_HEALTH_STATUS{") + kIdentity +
                                ",health_watch=\"MEM\",health_error_code=\"DCGM_FR_OK\"} 0"))
      << text;
  std::size_t watches = 0;
  for (const auto& s : Samples(text)) watches += s.name == "DCGM_EXP_GPU_HEALTH_STATUS";
  EXPECT_EQ(watches, DcgmHealthWatches().size());
  // Nothing in the window: one series per GPU at 0, without xid or clock_event.
  auto quiet = Snapshot();
  quiet.gpus[kBus].xids_in_window.clear();
  quiet.gpus[kBus].clock_event_samples_in_window.clear();
  const std::string q = Render(quiet);
  EXPECT_TRUE(HasLine(q, std::string("DCGM_EXP_XID_ERRORS_COUNT{") + kIdentity +
                             ",window_size_in_ms=\"300000\"} 0"))
      << q;
  EXPECT_TRUE(HasLine(q, std::string("DCGM_EXP_CLOCK_EVENTS_COUNT{") + kIdentity +
                             ",window_size_in_ms=\"300000\"} 0"))
      << q;
}

TEST(PromDcgmComplete, OnMigGraphicsActivityAndXidArePerGpuInstance) {
  auto s = Snapshot();
  GpuStatus& g = s.status.gpus[0];
  g.mig_mode_enabled = true;
  for (auto [gi, busy] : {std::pair{1u, 80.0}, std::pair{2u, 10.0}}) {
    MigDeviceStatus m;
    m.gpu_instance_id = gi;
    m.compute_instance_id = 0;
    m.status.name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
    m.status.gpm_graphics_activity_percent = busy;
    g.mig_devices.push_back(m);
  }
  const std::string text = Render(s);
  const std::string one = std::string(kIdentity) + ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"1\"";
  const std::string two = std::string(kIdentity) + ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"2\"";
  EXPECT_TRUE(HasLine(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + one + "} 0.8")) << text;
  EXPECT_TRUE(HasLine(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + two + "} 0.1")) << text;
  // The GPU's Xid on each of its instances, as dcgm-exporter 3.x serves it.
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_XID_ERRORS{" + one +
                                ",err_code=\"48\",err_msg=\"Double Bit ECC Error\"} 48"))
      << text;
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_XID_ERRORS{" + two +
                                ",err_code=\"48\",err_msg=\"Double Bit ECC Error\"} 48"));
  EXPECT_TRUE(HasLine(text, "DCGM_EXP_XID_ERRORS_COUNT{" + two +
                                ",window_size_in_ms=\"300000\",xid=\"48\"} 2"));
  EXPECT_FALSE(HasLine(text, std::string("DCGM_FI_DEV_XID_ERRORS{") + kIdentity +
                                 ",err_code=\"48\",err_msg=\"Double Bit ECC Error\"} 48"));
}

TEST(PromDcgmComplete, XidOfAGpuWithItsPodCarriesThePod) {
  auto s = Snapshot();
  GpuProcess p(4242, "python3", 1LL << 30);
  p.pod_uid = "uid-a";
  p.pod_name = "trainer-0";
  p.pod_namespace = "ml";
  p.container_name = "trainer";
  s.status.gpus[0].processes = std::vector<GpuProcess>{p};
  const std::string text = Render(s);
  EXPECT_TRUE(HasLine(text, std::string("DCGM_FI_DEV_XID_ERRORS{") + kIdentity +
                                ",container=\"trainer\",namespace=\"ml\",pod=\"trainer-0\","
                                "err_code=\"48\",err_msg=\"Double Bit ECC Error\"} 48"))
      << text;
}

// A MIG GPU with three GPU instances: instance 1 runs one pod's process,
// instance 2 two pods' (shared), instance 3 nothing.
AgentLiveSnapshot MigPodsSnapshot() {
  auto s = Snapshot();
  GpuStatus& g = s.status.gpus[0];
  g.mig_mode_enabled = true;
  for (unsigned gi : {1u, 2u, 3u}) {
    MigDeviceStatus m;
    m.gpu_instance_id = gi;
    m.compute_instance_id = 0;
    m.status.uuid = "MIG-" + std::to_string(gi);
    m.status.name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
    m.status.gpm_graphics_activity_percent = 10.0 * gi;
    m.status.memory_used_bytes = (1LL << 20) * gi;
    g.mig_devices.push_back(m);
  }
  auto process = [](std::uint32_t pid, unsigned gi, const std::string& pod) {
    GpuProcess p(pid, "python3", 1LL << 30);
    p.gpu_instance_id = gi;
    p.compute_instance_id = 0;
    p.pod_uid = "uid-" + pod;
    p.pod_name = pod;
    p.pod_namespace = "ml";
    p.container_name = "main";
    return p;
  };
  g.processes = std::vector<GpuProcess>{process(11, 1, "embedder-0"), process(21, 2, "a-0"),
                                        process(22, 2, "b-0")};
  return s;
}

TEST(PromDcgmComplete, OnMigEachInstanceCarriesThePodRunningInIt) {
  const std::string text = Render(MigPodsSnapshot());
  const std::string one = std::string(kIdentity) + ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"1\"";
  const std::string two = std::string(kIdentity) + ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"2\"";
  const std::string three = std::string(kIdentity) + ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"3\"";
  const std::string pod = ",container=\"main\",namespace=\"ml\",pod=\"embedder-0\"";
  EXPECT_TRUE(HasLine(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + one + pod + "} 0.1")) << text;
  // Shared by two pods, or idle: no pod, as dcgm-exporter leaves it.
  EXPECT_TRUE(HasLine(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + two + "} 0.2")) << text;
  EXPECT_TRUE(HasLine(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + three + "} 0.3")) << text;
  // The instance's memory and its Xid series carry the pod too.
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_FB_USED{" + one + pod + "} 1")) << text;
  EXPECT_TRUE(HasLine(text, "DCGM_FI_DEV_XID_ERRORS{" + one + pod +
                                ",err_code=\"48\",err_msg=\"Double Bit ECC Error\"} 48"))
      << text;
  EXPECT_TRUE(HasLine(text, "DCGM_EXP_XID_ERRORS_COUNT{" + one + pod +
                                ",window_size_in_ms=\"300000\",xid=\"48\"} 2"))
      << text;
}

TEST(PromDcgmComplete, OnMigGpudoctorsInstanceSeriesCarryThePodRunningInIt) {
  MetricsRenderOptions o;
  o.names = MetricNames::kGpudoctor;
  const std::string text =
      RenderPrometheusMetrics(MigPodsSnapshot(), ExpositionFormat::kPrometheusText, o);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("gpudoctor_mig_graphics_activity_ratio{", 0) == 0) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_NE(lines[0].find("pod=\"embedder-0\",namespace=\"ml\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("gpu_instance=\"1\""), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].find("pod="), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].find("pod="), std::string::npos) << lines[2];
}

TEST(DcgmXidMessages, AreDcgmExportersTexts) {
  EXPECT_EQ(DcgmXidErrorMessage(0), "No Error");
  EXPECT_EQ(DcgmXidErrorMessage(13), "Graphics Engine Exception");
  EXPECT_EQ(DcgmXidErrorMessage(45),
            "Preemptive cleanup, due to previous errors -- Most likely to see when running multiple cuda");
  EXPECT_EQ(DcgmXidErrorMessage(48), "Double Bit ECC Error");
  EXPECT_EQ(DcgmXidErrorMessage(79), "GPU has fallen off the bus");
  EXPECT_EQ(DcgmXidErrorMessage(94), "Contained ECC error");
  EXPECT_EQ(DcgmXidErrorMessage(119), "GSP RPC Timeout");
  EXPECT_EQ(DcgmXidErrorMessage(142), "Robust Channel NVENVC3 Error");  // sic
  EXPECT_EQ(DcgmXidErrorMessage(172), "Uncorrectable SRAM Error");
  EXPECT_EQ(DcgmXidErrorMessage(173), "Unknown Error");
  EXPECT_EQ(DcgmXidErrorMessage(-1), "Unknown Error");
  // Our catalog's meanings differ for many codes: the label must not use them.
  int differ = 0;
  for (int code = 1; code <= kDcgmXidMessageMaxCode; ++code) {
    differ += LookupXid(code).meaning != DcgmXidErrorMessage(code);
  }
  EXPECT_GT(differ, 0);
}

// The real captures, read in place.
std::vector<std::pair<std::string, std::string>> Captures() {
  std::vector<std::pair<std::string, std::string>> out;
  const auto dir = test::FixtureDir("dcgm-exporter");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".prom") continue;
    out.emplace_back(entry.path().filename().string(),
                     test::ReadFixtureFile("dcgm-exporter", entry.path().filename().string()));
  }
  return out;
}

TEST(PromDcgmComplete, ErrMsgAsInRealCaptures) {
  const auto captures = Captures();
  if (captures.empty()) GTEST_SKIP() << "no ../shared/fixtures/dcgm-exporter captures on this machine";
  int compared = 0;
  for (const auto& [file, text] : captures) {
    for (const auto& s : Samples(text)) {
      auto code = s.labels.find("err_code");
      auto msg = s.labels.find("err_msg");
      if (code == s.labels.end() || msg == s.labels.end()) continue;
      const int c = std::stoi(code->second);
      ++compared;
      if (c == 0 && msg->second == "Unknown Error") {
        // PR #326's build predates the 3.3.6 release, which says "No Error"
        // for 0 as every release since; we follow the releases.
        EXPECT_EQ(DcgmXidErrorMessage(0), "No Error");
        continue;
      }
      EXPECT_EQ(DcgmXidErrorMessage(c), msg->second) << file;
    }
  }
  EXPECT_GT(compared, 0);
}

// A snapshot that has every series dcgm-exporter's captures show.
AgentLiveSnapshot RichSnapshot() {
  auto s = Snapshot();
  GpuStatus& g = s.status.gpus[0];
  g.clocks_sm_mhz = 1980;
  g.clocks_memory_mhz = 2619;
  g.memory_temperature_c = 60;
  g.power_draw_w = 300;
  g.energy_total_j = 1000;
  g.pcie_replay_count = 0;
  g.utilization_gpu_percent = 40;
  g.power_limit_w = 700;
  g.memory_used_bytes = 1LL << 30;
  g.memory_free_bytes = 1LL << 30;
  g.gpm_tensor_activity_percent = 5;
  return s;
}

// The labels of a real dcgm-exporter 3.3's MIG instance series with a pod
// (capture 06: H100 in MIG mode, pods on GPU instances) are ours.
TEST(PromDcgmComplete, MigInstanceWithAPodHasTheLabelsOfTheRealCapture) {
  const auto captures = Captures();
  std::string capture;
  for (const auto& [file, text] : captures) {
    if (file.find("06_") != std::string::npos) capture = text;
  }
  if (capture.empty()) GTEST_SKIP() << "capture 06 of ../shared/fixtures/dcgm-exporter missing";
  std::set<std::string> theirs;
  for (const auto& s : Samples(capture)) {
    if (s.name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE" && s.labels.count("pod") != 0 &&
        s.labels.count("GPU_I_ID") != 0) {
      for (const auto& [k, v] : s.labels) theirs.insert(k);
      break;
    }
  }
  ASSERT_FALSE(theirs.empty()) << "capture 06 has a MIG instance series with a pod";
  std::set<std::string> ours;
  for (const auto& s : Samples(Render(MigPodsSnapshot()))) {
    if (s.name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE" && s.labels.count("pod") != 0) {
      for (const auto& [k, v] : s.labels) ours.insert(k);
    }
  }
  EXPECT_EQ(ours, theirs);
}

TEST(PromDcgmComplete, NamesLabelsAndTypesAsRealCapturesShowThem) {
  const auto captures = Captures();
  if (captures.empty()) GTEST_SKIP() << "no ../shared/fixtures/dcgm-exporter captures on this machine";
  const std::string ours = Render(RichSnapshot());
  std::map<std::string, std::set<std::string>> our_labels;
  for (const auto& s : Samples(ours)) {
    for (const auto& [k, v] : s.labels) our_labels[s.name].insert(k);
  }
  const auto our_types = Types(ours);
  // Labels a capture may have that depend on the machine, not the series:
  // the pod's (none runs here), a GPU instance's, and 2026's lowercase host.
  const std::set<std::string> situational = {"container", "namespace", "pod", "GPU_I_PROFILE",
                                             "GPU_I_ID", "hostname"};
  int checked = 0;
  for (const auto& [file, text] : captures) {
    for (const auto& s : Samples(text)) {
      auto ours_it = our_labels.find(s.name);
      if (ours_it == our_labels.end()) continue;  // a name we do not serve (PR #239's draft)
      for (const auto& [k, v] : s.labels) {
        if (situational.count(k) != 0) continue;
        EXPECT_TRUE(ours_it->second.count(k) != 0) << file << ": " << s.name << " lacks " << k;
      }
      ++checked;
    }
    for (const auto& [name, type] : Types(text)) {
      auto it = our_types.find(name);
      if (it == our_types.end()) continue;
      EXPECT_EQ(it->second, type) << file << ": # TYPE " << name;
    }
  }
  EXPECT_GT(checked, 20);
}

// What NVIDIA's dcgm-exporter Grafana dashboard (grafana/dcgm-exporter-
// dashboard.json: temperature, power, SM clock, utilisation, framebuffer,
// tensor core panels) and the newer dashboards and rules query.
TEST(PromDcgmComplete, NvidiaDashboardQueriesAnswerFromOurNames) {
  const char* kQueried[] = {
      "DCGM_FI_DEV_GPU_TEMP",          "DCGM_FI_DEV_POWER_USAGE",
      "DCGM_FI_DEV_SM_CLOCK",          "DCGM_FI_DEV_GPU_UTIL",
      "DCGM_FI_DEV_FB_USED",           "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_ENC_UTIL",
      "DCGM_FI_DEV_DEC_UTIL",          "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
      "DCGM_FI_DEV_XID_ERRORS",        "DCGM_EXP_XID_ERRORS_COUNT",
      "DCGM_EXP_GPU_HEALTH_STATUS",    "DCGM_EXP_CLOCK_EVENTS_COUNT"};
  std::set<std::string> served;
  for (const auto& s : Samples(Render(RichSnapshot()))) {
    // The dashboard's selectors: instance (Prometheus adds it) and gpu.
    if (s.labels.count("gpu") != 0) served.insert(s.name);
  }
  for (const char* name : kQueried) EXPECT_TRUE(served.count(name) != 0) << name;
}

TEST(SnapshotBuilderDcgmWindows, CountXidsAndClockEventsOverTheLastFiveMinutes) {
  const WallTime start{};
  SnapshotBuilder b(start, std::chrono::seconds(1));
  SystemStatus s;
  s.nvml_loaded = true;
  GpuStatus g;
  g.pci_bus_id = kBus;
  g.state = GpuState::kOk;
  g.clock_event_reasons_mask = 0x40 | 0x1;  // hw_thermal and idle
  s.gpus = {g};
  for (int i = 0; i < 3; ++i) b.OnSample(s, start + std::chrono::seconds(i), 0.01);
  KernelEvent x;
  x.kind = KernelEventKind::kXid;
  x.code = 79;
  x.pci_bus_id = kBus;
  x.time = start + std::chrono::seconds(2);
  b.OnEvent(x);
  auto snap = b.Build(1, StoreStats{}, 3, 0);
  const GpuCounters& c = snap->gpus.at(kBus);
  EXPECT_EQ(c.xids_in_window, (std::map<int, std::uint64_t>{{79, 1}}));
  EXPECT_EQ(c.clock_event_samples_in_window,
            (std::map<std::uint64_t, std::uint64_t>{{0x1, 3}, {0x40, 3}}));
  // Five minutes later, quiet clocks: both have left the window.
  s.gpus[0].clock_event_reasons_mask = 0;
  b.OnSample(s, start + std::chrono::seconds(303), 0.01);
  snap = b.Build(1, StoreStats{}, 4, 0);
  EXPECT_TRUE(snap->gpus.at(kBus).xids_in_window.empty());
  EXPECT_TRUE(snap->gpus.at(kBus).clock_event_samples_in_window.empty());
  EXPECT_EQ(snap->gpus.at(kBus).last_xid, 79);  // the gauge keeps the last code
}

PromSeries HealthSeries(const std::string& watch, std::vector<std::pair<double, double>> points) {
  PromSeries s;
  s.labels = {{"Hostname", "n1"}, {"gpu", "1"}, {"pci_bus_id", "00000000:19:00.0"}, {"UUID", "GPU-1"},
              {"health_watch", watch}, {"health_error_code", "DCGM_FR_VOLATILE_DBE_DETECTED"}};
  for (auto [t, v] : points) s.points.push_back(PromPoint{t, v});
  return s;
}

// dcgm-exporter's health status read back (fleet, report --prometheus):
// a failing watch at the window's end is a critical finding on that GPU.
TEST(SeriesReadingsDcgmHealth, AFailingWatchIsACriticalFindingOnItsGpu) {
  SeriesReadings r;
  PromSeries temp = HealthSeries("MEM", {{100, 60}, {160, 61}});
  temp.labels.erase("health_watch");
  temp.labels.erase("health_error_code");
  r.AddFieldSeries(temp, "DCGM_FI_DEV_GPU_TEMP");
  r.AddDcgmHealthSeries(HealthSeries("MEM", {{100, 10}, {160, 20}}));
  r.AddDcgmHealthSeries(HealthSeries("PCIE", {{160, 10}}));
  r.AddDcgmHealthSeries(HealthSeries("NOT_A_WATCH", {{160, 20}}));
  const Diagnosis d = Diagnose(r.InputFor("n1", Config{}, WallTime{}, WallTime{}));
  const Finding* health = nullptr;
  for (const auto& f : d.findings) {
    if (f.id == "gpu.dcgm_health") health = &f;
  }
  ASSERT_NE(health, nullptr);
  EXPECT_EQ(health->severity, Severity::kCritical);
  EXPECT_EQ(health->gpus, (std::vector<std::string>{"0000:19:00.0"}));
  EXPECT_NE(health->title.en.find("MEM"), std::string::npos) << health->title.en;
  ASSERT_FALSE(health->evidence.empty());
  EXPECT_NE(health->evidence[0].text.en.find("warning PCIE"), std::string::npos);
  // Passing (the query drops 0s): no finding.
  SeriesReadings quiet;
  quiet.AddFieldSeries(temp, "DCGM_FI_DEV_GPU_TEMP");
  for (const auto& f : Diagnose(quiet.InputFor("n1", Config{}, WallTime{}, WallTime{})).findings) {
    EXPECT_NE(f.id, "gpu.dcgm_health");
  }
}

}  // namespace prom_dcgm_complete_test_ns
}  // namespace gpudoctor
