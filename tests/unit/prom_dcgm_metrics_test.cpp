// /metrics in dcgm-exporter's names (--metrics-names dcgm|both): its metric
// names, its units (MiB, mJ, MHz, ns, percent, ratios for DCGM_FI_PROF_*),
// its labels (gpu, UUID, pci_bus_id in NVML's form, device, modelName,
// Hostname, DCGM_FI_DRIVER_VERSION, the pod), the Xid gauge of the last
// code, NVLink counters per link and in total, and a MIG GPU instance's
// series with GPU_I_PROFILE and GPU_I_ID.
#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

#include "render/prometheus_dcgm.h"
#include "render/prometheus_metrics.h"

namespace gpudoctor {
namespace {

constexpr const char* kDcgmLabels =
    "gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia0\","
    "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-7\",DCGM_FI_DRIVER_VERSION=\"550.54.15\"";

AgentLiveSnapshot DcgmSnapshot() {
  AgentLiveSnapshot s;
  s.status.nvml_loaded = true;
  s.status.driver_version = "550.54.15";
  GpuStatus g;
  g.index = 0;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-0";
  g.pci_bus_id = "0000:18:00.0";
  g.temperature_c = 70;
  g.power_draw_w = 420.5;
  g.memory_used_bytes = 2LL << 30;
  g.memory_free_bytes = 3LL << 29;
  g.energy_total_j = 5.25;
  g.clocks_sm_mhz = 1980;
  g.utilization_gpu_percent = 75;
  g.gpm_sm_activity_percent = 45;
  g.violation_power_ns = 1500;
  g.clock_event_reasons_mask = 0x48;
  g.pstate = 0;
  g.nvlinks.push_back(NvLinkStatus{0, true, 3, 0, 1, 0, {}, "", std::nullopt});
  g.nvlinks.push_back(NvLinkStatus{2, true, 4, 0, 5, 0, {}, "", std::nullopt});
  s.status.gpus.push_back(g);
  GpuCounters& c = s.gpus["0000:18:00.0"];
  c.labels = {0, g.uuid, g.pci_bus_id, g.name};
  c.seen = true;
  c.xid_events_by_code[79] = 2;
  c.last_xid = 79;
  GpuCounters& quiet = s.gpus["0000:19:00.0"];
  quiet.labels = {1, "GPU-1", "0000:19:00.0", g.name};
  quiet.seen = true;
  return s;
}

std::string RenderDcgmNames(const AgentLiveSnapshot& s, MetricNames names) {
  MetricsRenderOptions o;
  o.names = names;
  o.hostname = "node-7";
  return RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText, o);
}

bool HasDcgmLine(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

TEST(PromDcgm, PciBusIdInNvmlForm) {
  EXPECT_EQ(DcgmPciBusId("0000:3b:00.0"), "00000000:3B:00.0");
  EXPECT_EQ(DcgmPciBusId("0001:af:00.1"), "00000001:AF:00.1");
  EXPECT_EQ(DcgmPciBusId(""), "");
}

TEST(PromDcgm, FieldsInDcgmNamesUnitsAndLabels) {
  const std::string text = RenderDcgmNames(DcgmSnapshot(), MetricNames::kDcgm);
  const std::string l = std::string("{") + kDcgmLabels + "}";
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_GPU_TEMP" + l + " 70")) << text;
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_POWER_USAGE" + l + " 420.5"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FB_USED" + l + " 2048"));        // MiB
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FB_FREE" + l + " 1536"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + l + " 5250"));  // mJ
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_SM_CLOCK" + l + " 1980"));       // MHz
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_GPU_UTIL" + l + " 75"));         // percent
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_PROF_SM_ACTIVE" + l + " 0.45"));     // ratio
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_POWER_VIOLATION" + l + " 1500"));  // ns
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_PSTATE" + l + " 0"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS" + l + " 72"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS" + l + " 72"));  // older name
  EXPECT_TRUE(HasDcgmLine(text, "# TYPE DCGM_FI_DEV_POWER_VIOLATION counter"));
  EXPECT_TRUE(HasDcgmLine(text, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge"));
  // Unread fields have no series.
  EXPECT_EQ(text.find("DCGM_FI_DEV_MEMORY_TEMP{"), std::string::npos);
}

TEST(PromDcgm, XidIsAGaugeOfTheLastCodePerGpuSeen) {
  const std::string text = RenderDcgmNames(DcgmSnapshot(), MetricNames::kDcgm);
  EXPECT_TRUE(HasDcgmLine(text, std::string("DCGM_FI_DEV_XID_ERRORS{") + kDcgmLabels +
                                ",err_code=\"79\",err_msg=\"GPU has fallen off the bus\"} 79"))
      << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:19:00.0\""),
            std::string::npos);
  EXPECT_NE(text.find(",err_code=\"0\",err_msg=\"No Error\"} 0"), std::string::npos);
  EXPECT_TRUE(HasDcgmLine(text, "# TYPE DCGM_FI_DEV_XID_ERRORS gauge"));
  // The count per code stays in gpudoctor's name, which dcgm-exporter lacks.
  EXPECT_NE(text.find("gpudoctor_xid_events_total{"), std::string::npos);
}

TEST(PromDcgm, NvLinkCountersPerLinkAndInTotal) {
  const std::string text = RenderDcgmNames(DcgmSnapshot(), MetricNames::kDcgm);
  const std::string l = std::string("{") + kDcgmLabels + "}";
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL" + l + " 7")) << text;
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL" + l + " 6"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0" + l + " 3"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L2" + l + " 4"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L2" + l + " 5"));
  EXPECT_EQ(text.find("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L1{"), std::string::npos);
  EXPECT_EQ(text.find("gpudoctor_gpu_nvlink_errors_total{"), std::string::npos);
}

// DCGM's fabric fields 170, 171, 173, 174 and 175, valued as DCGM encodes
// them; gpudoctor's fabric series stay (their shape is not DCGM's).
TEST(PromDcgm, FabricFieldsInDcgmNamesAndEncodings) {
  auto s = DcgmSnapshot();
  GpuFabric f;
  f.state = FabricState::kCompleted;
  f.status_code = 0;
  f.clique_id = 7;
  f.health_mask = 0xAA;
  f.health_summary = FabricHealthSummary::kLimitedCapacity;
  s.status.gpus[0].fabric = f;
  const std::string l = std::string("{") + kDcgmLabels + "}";
  std::string text = RenderDcgmNames(s, MetricNames::kDcgm);
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_MANAGER_STATUS" + l + " 3")) << text;
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE" + l + " 0"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_CLIQUE_ID" + l + " 7"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_HEALTH_MASK" + l + " 170"));
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY" + l + " 3"));
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_FABRIC_MANAGER_STATUS gauge"), std::string::npos);
  EXPECT_NE(text.find("gpudoctor_gpu_fabric_state{"), std::string::npos);
  // A failed registration: status 4, and no error code (DCGM's own code for
  // NVML's error is not carried), no summary before version 3.
  s.status.gpus[0].fabric->status_code = 25;
  s.status.gpus[0].fabric->health_summary.reset();
  text = RenderDcgmNames(s, MetricNames::kDcgm);
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_MANAGER_STATUS" + l + " 4")) << text;
  EXPECT_EQ(text.find("DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE"), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY"), std::string::npos);
  for (auto [state, code] : {std::pair{FabricState::kNotSupported, 0}, std::pair{FabricState::kNotStarted, 1},
                             std::pair{FabricState::kInProgress, 2}}) {
    s.status.gpus[0].fabric->state = state;
    text = RenderDcgmNames(s, MetricNames::kDcgm);
    EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FABRIC_MANAGER_STATUS" + l + " " + std::to_string(code))) << text;
    EXPECT_EQ(text.find("DCGM_FI_DEV_FABRIC_CLIQUE_ID{") != std::string::npos, state != FabricState::kNotSupported);
  }
  // A GPU without a fabric reading, and gpudoctor's names only: none.
  s.status.gpus[0].fabric.reset();
  EXPECT_EQ(RenderDcgmNames(s, MetricNames::kDcgm).find("DCGM_FI_DEV_FABRIC"), std::string::npos);
}

TEST(PromDcgm, NamesChooseWhichSeriesAreServed) {
  const auto s = DcgmSnapshot();
  const std::string dcgm = RenderDcgmNames(s, MetricNames::kDcgm);
  // What dcgm-exporter names is served once, in its name...
  EXPECT_EQ(dcgm.find("gpudoctor_gpu_temperature_celsius"), std::string::npos);
  EXPECT_EQ(dcgm.find("gpudoctor_gpu_sm_activity_ratio"), std::string::npos);
  // ...and what it has no name for stays gpudoctor's.
  EXPECT_NE(dcgm.find("gpudoctor_gpu_graphics_clock_hertz"), std::string::npos);
  EXPECT_NE(dcgm.find("gpudoctor_gpu_state{"), std::string::npos);
  EXPECT_NE(dcgm.find("gpudoctor_gpu_verdict"), std::string::npos);
  const std::string both = RenderDcgmNames(s, MetricNames::kBoth);
  EXPECT_NE(both.find("gpudoctor_gpu_temperature_celsius{"), std::string::npos);
  EXPECT_NE(both.find("DCGM_FI_DEV_GPU_TEMP{"), std::string::npos);
  EXPECT_NE(both.find("gpudoctor_gpu_nvlink_errors_total{"), std::string::npos);
  const std::string own = RenderDcgmNames(s, MetricNames::kGpudoctor);
  EXPECT_EQ(own.find("DCGM_FI_"), std::string::npos);
}

TEST(PromDcgm, OpenMetricsServesCountersWithoutTotalAsUnknown) {
  MetricsRenderOptions o;
  o.names = MetricNames::kBoth;
  o.hostname = "node-7";
  const std::string text =
      RenderPrometheusMetrics(DcgmSnapshot(), ExpositionFormat::kOpenMetrics, o);
  // A counter's samples must end in _total in OpenMetrics; dcgm-exporter's
  // counters do not, so the family is "unknown" and keeps its samples' name.
  EXPECT_TRUE(HasDcgmLine(text, "# TYPE DCGM_FI_DEV_POWER_VIOLATION unknown")) << text;
  EXPECT_TRUE(HasDcgmLine(text, std::string("DCGM_FI_DEV_POWER_VIOLATION{") + kDcgmLabels + "} 1500"));
  EXPECT_TRUE(HasDcgmLine(text, "# TYPE gpudoctor_gpu_power_violation_seconds counter"));
  EXPECT_TRUE(text.ends_with("# EOF\n"));
}

TEST(PromDcgm, OnePodOnTheGpuBecomesItsPodNamespaceAndContainer) {
  auto s = DcgmSnapshot();
  GpuProcess p(4242, "python3", 1LL << 30);
  p.container_id = "0123456789ab";
  p.pod_uid = "uid-a";
  p.pod_name = "trainer-0";
  p.pod_namespace = "ml";
  s.status.gpus[0].processes = std::vector<GpuProcess>{p};
  MetricsRenderOptions o;
  o.names = MetricNames::kDcgm;
  o.hostname = "";  // unknown host: no Hostname label
  s.status.driver_version.reset();
  const std::string text = RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText, o);
  EXPECT_TRUE(HasDcgmLine(text,
                      "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:18:00.0\","
                      "device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",container=\"0123456789ab\","
                      "namespace=\"ml\",pod=\"trainer-0\"} 70"))
      << text;
  // The kubelet's container name, where known, as dcgm-exporter writes it.
  (*s.status.gpus[0].processes)[0].container_name = "trainer";
  const std::string named = RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText, o);
  EXPECT_NE(named.find(",container=\"trainer\",namespace=\"ml\",pod=\"trainer-0\"} 70"),
            std::string::npos)
      << named;
}

TEST(PromDcgm, OnceMigIsOnEveryFieldIsPerGpuInstanceAsDcgmExporterServesIt) {
  auto s = DcgmSnapshot();
  GpuStatus& g = s.status.gpus[0];
  g.mig_mode_enabled = true;
  GpuProcess p(4242, "python3", 1LL << 30);
  p.pod_uid = "uid-a";
  p.pod_name = "trainer-0";
  p.pod_namespace = "ml";
  g.processes = std::vector<GpuProcess>{p};
  // GPU instance 1 with two compute instances (the same memory), GPU
  // instance 2 with one; NVML's MIG device names end with the profile.
  for (auto [gi, ci, used_mib] : {std::tuple{1u, 0u, 30LL}, std::tuple{1u, 1u, 30LL},
                                  std::tuple{2u, 0u, 5LL}}) {
    MigDeviceStatus m;
    m.gpu_instance_id = gi;
    m.compute_instance_id = ci;
    m.status.name = gi == 1 ? "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb" : "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
    m.status.memory_used_bytes = used_mib << 20;
    m.status.gpm_sm_activity_percent = gi == 1 ? 80 : 10;
    g.mig_devices.push_back(m);
  }
  const std::string text = RenderDcgmNames(s, MetricNames::kDcgm);
  const std::string one = std::string(kDcgmLabels) + ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"}";
  const std::string two = std::string(kDcgmLabels) + ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"2\"}";
  // The instance's own memory and GPM figures.
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FB_USED{" + one + " 30")) << text;
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_FB_USED{" + two + " 5")) << text;
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_PROF_SM_ACTIVE{" + one + " 0.8")) << text;
  // The GPU's other fields, once per instance; no whole-GPU series.
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_GPU_TEMP{" + one + " 70")) << text;
  EXPECT_TRUE(HasDcgmLine(text, "DCGM_FI_DEV_GPU_TEMP{" + two + " 70")) << text;
  EXPECT_FALSE(HasDcgmLine(text, std::string("DCGM_FI_DEV_FB_USED{") + kDcgmLabels + "} 2048")) << text;
  EXPECT_FALSE(HasDcgmLine(text, std::string("DCGM_FI_DEV_GPU_TEMP{") + kDcgmLabels + "} 70")) << text;
  std::size_t instance_one = 0;
  for (std::size_t at = 0; (at = text.find("DCGM_FI_DEV_FB_USED{" + one, at)) != std::string::npos; ++at) {
    ++instance_one;
  }
  EXPECT_EQ(instance_one, 1u) << text;
  // The GPU's one pod is not said to run in every instance (the whole GPU's
  // NVLink series keep it).
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    if (l.find("GPU_I_ID=") != std::string::npos) {
      EXPECT_EQ(l.find("pod="), std::string::npos) << l;
    }
  }
  // Without a profile in the name, the instance keeps its id alone.
  for (auto& m : g.mig_devices) m.status.name = "NVIDIA H100 80GB HBM3";
  const std::string unnamed = RenderDcgmNames(s, MetricNames::kDcgm);
  EXPECT_TRUE(HasDcgmLine(unnamed, std::string("DCGM_FI_DEV_FB_USED{") + kDcgmLabels + ",GPU_I_ID=\"2\"} 5"))
      << unnamed;
}

TEST(MigProfile, IsTheWordAfterMigInTheDeviceName) {
  EXPECT_EQ(MigProfileOfName("NVIDIA H100 80GB HBM3 MIG 1g.10gb"), "1g.10gb");
  // A compute instance's name: its GPU instance's profile.
  EXPECT_EQ(MigProfileOfName("NVIDIA A100-SXM4-40GB MIG 1c.3g.20gb"), "3g.20gb");
  EXPECT_EQ(MigProfileOfName("NVIDIA A100-SXM4-40GB MIG 2c.4g.20gb"), "4g.20gb");
  EXPECT_EQ(MigProfileOfName("NVIDIA H100 80GB HBM3 MIG 1g.10gb+me "), "1g.10gb+me");
  EXPECT_EQ(MigProfileOfName("NVIDIA H100 80GB HBM3"), "");
  EXPECT_EQ(MigProfileOfName(""), "");
  EXPECT_EQ(MigProfileOfName("X MIG "), "");
  EXPECT_EQ(MigProfileOfName("X MIG two words"), "");
}

}  // namespace
}  // namespace gpudoctor
