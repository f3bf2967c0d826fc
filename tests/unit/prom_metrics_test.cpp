// The agent's Prometheus exposition of a synthetic snapshot: HELP and TYPE
// per family, label escaping, the OpenMetrics variant, and promtool's lint.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "render/prometheus_metrics.h"
#include "support/run_process.h"

namespace gpudoctor {
namespace {

AgentLiveSnapshot Synthetic() {
  AgentLiveSnapshot s;
  s.started_at = WallTime(std::chrono::seconds(1700000000));
  s.published_at = s.started_at + std::chrono::seconds(60);
  s.last_sample_at = s.published_at;
  s.status.nvml_loaded = true;
  GpuStatus g;
  g.index = 0;
  g.name = "NVIDIA \"H100\"\\80GB\nHBM3";  // quote, backslash and newline to escape
  g.uuid = "GPU-0";
  g.pci_bus_id = "0000:18:00.0";
  g.utilization_gpu_percent = 75;
  g.temperature_c = 70;
  g.power_draw_w = 420.5;
  g.memory_used_bytes = 1LL << 30;
  g.clock_event_reasons_mask = 0x40;
  g.nvlinks.push_back(NvLinkStatus{0, true, 3, 0, 0, 0, std::nullopt, "", std::nullopt});
  s.status.gpus.push_back(g);
  GpuStatus lost;
  lost.index = 1;
  lost.state = GpuState::kLost;
  lost.pci_bus_id = "0000:19:00.0";
  s.status.gpus.push_back(lost);
  GpuCounters& c = s.gpus["0000:18:00.0"];
  c.labels = {0, g.uuid, g.pci_bus_id, g.name};
  c.seen = true;
  c.throttle_seconds_by_reason["hw_thermal_slowdown"] = 12.5;
  c.xid_events_by_code[79] = 2;
  c.verdict = Severity::kCritical;
  c.recommended = RecoveryAction::kHardwareInspection;
  s.sxid_events[{"0000:05:00.0", 12028}] = 1;
  FindingInterval f;
  f.finding_id = "thermal.slowdown";
  f.severity = Severity::kCritical;
  f.gpus = {"0000:18:00.0"};
  f.recommended = RecoveryAction::kHardwareInspection;
  s.active_findings.push_back(f);
  FindingInterval edac;  // host-wide: the node's action, not a GPU's
  edac.finding_id = "host.memory_edac";
  edac.severity = Severity::kCritical;
  edac.recommended = RecoveryAction::kContactProvider;
  s.active_findings.push_back(edac);
  s.gpus_expected = 2;
  s.gpus_visible = 1;
  s.gpus_lost = 1;
  s.sample_latency.Observe(0.003);
  s.sample_latency.Observe(0.2);
  s.agent_resident_bytes = 50 << 20;
  RdmaPort port;
  port.port = 1;
  port.state = IbPortState{1, "DOWN"};
  port.phys_state = IbPortState{2, "Polling"};
  port.rate_gbps = 400;
  port.link_layer = "InfiniBand";
  port.counters = {RdmaCounter{"link_downed", false, 255}, RdmaCounter{"symbol_error", false, 7},
                   RdmaCounter{"port_xmit_data", false, 123456},
                   RdmaCounter{"rnr_nak_retry_err", true, 2}};
  s.rdma.devices.push_back(RdmaDevice{"mlx5_0", "", {port}});
  return s;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool Has(const std::string& text, const std::string& line) {
  for (const auto& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

TEST(PromExposition, EveryFamilyHasHelpAndTypeOnceBeforeItsSamples) {
  const std::string text = RenderPrometheusMetrics(Synthetic(), ExpositionFormat::kPrometheusText);
  std::set<std::string> helped, typed;
  std::string current;
  for (const auto& l : Lines(text)) {
    ASSERT_FALSE(l.empty());
    if (l.rfind("# HELP ", 0) == 0) {
      current = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_TRUE(helped.insert(current).second) << "second HELP for " << current;
    } else if (l.rfind("# TYPE ", 0) == 0) {
      EXPECT_EQ(l.substr(7, l.find(' ', 7) - 7), current);
      EXPECT_TRUE(typed.insert(current).second);
    } else {
      const std::string name = l.substr(0, l.find_first_of("{ "));
      EXPECT_EQ(name.rfind(current, 0), 0u) << l << " outside family " << current;
      EXPECT_EQ(name.rfind("gpudoctor_", 0), 0u) << l;
    }
  }
  EXPECT_EQ(helped, typed);
  EXPECT_GT(helped.size(), 40u);
}

TEST(PromExposition, SeriesCarryGpuLabelsAndBaseUnits) {
  const std::string text = RenderPrometheusMetrics(Synthetic(), ExpositionFormat::kPrometheusText);
  const std::string labels =
      "gpu=\"0\",uuid=\"GPU-0\",pci_bus_id=\"0000:18:00.0\",model=\"NVIDIA "
      "\\\"H100\\\"\\\\80GB\\nHBM3\"";
  EXPECT_TRUE(Has(text, "gpudoctor_gpu_utilization_ratio{" + labels + "} 0.75")) << text;
  EXPECT_TRUE(Has(text, "gpudoctor_gpu_power_draw_watts{" + labels + "} 420.5"));
  EXPECT_TRUE(Has(text, "gpudoctor_gpu_memory_used_bytes{" + labels + "} 1073741824"));
  EXPECT_TRUE(Has(text, "gpudoctor_xid_events_total{" + labels + ",xid=\"79\"} 2"));
  EXPECT_TRUE(Has(text, "gpudoctor_gpu_throttle_seconds_total{" + labels +
                            ",reason=\"hw_thermal_slowdown\"} 12.5"));
  EXPECT_TRUE(Has(text, "gpudoctor_gpu_verdict{" + labels + "} 3"));
  EXPECT_TRUE(
      Has(text, "gpudoctor_sxid_events_total{pci_bus_id=\"0000:05:00.0\",sxid=\"12028\"} 1"));
  EXPECT_TRUE(Has(text,
                  "gpudoctor_finding_active{id=\"thermal.slowdown\",severity=\"critical\","
                  "gpus=\"0000:18:00.0\",action=\"hardware_inspection\"} 1"));
  EXPECT_TRUE(
      Has(text, "gpudoctor_recommended_action{" + labels + ",action=\"hardware_inspection\"} 5"))
      << text;
  EXPECT_TRUE(Has(text, "gpudoctor_node_recommended_action{action=\"contact_provider\"} 6"))
      << text;
  EXPECT_TRUE(Has(text, "gpudoctor_gpus_lost 1"));
  const std::string port = "device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"";
  EXPECT_TRUE(Has(text, "gpudoctor_ib_port_state{" + port + "} 1"));
  EXPECT_TRUE(Has(text, "gpudoctor_ib_port_physical_state{" + port + "} 2"));
  EXPECT_TRUE(Has(text, "gpudoctor_ib_port_rate_gbps{" + port + "} 400"));
  EXPECT_TRUE(Has(text, "gpudoctor_ib_port_errors_total{" + port + ",counter=\"symbol_error\"} 7"));
  EXPECT_TRUE(Has(text, "gpudoctor_ib_port_errors_total{" + port + ",counter=\"rnr_nak_retry_err\"} 2"));
  EXPECT_TRUE(Has(text, "gpudoctor_ib_port_errors_saturated{" + port + ",counter=\"link_downed\"} 1"));
  EXPECT_EQ(text.find("counter=\"port_xmit_data\""), std::string::npos);  // traffic, not errors
  EXPECT_TRUE(Has(text, "gpudoctor_nvml_sample_duration_seconds_bucket{le=\"0.005\"} 1"));
  EXPECT_TRUE(Has(text, "gpudoctor_nvml_sample_duration_seconds_bucket{le=\"+Inf\"} 2"));
  // The lost GPU has a state but no readings.
  EXPECT_NE(text.find("pci_bus_id=\"0000:19:00.0\",model=\"\",state=\"lost\"} 1"),
            std::string::npos);
  EXPECT_EQ(text.find("gpudoctor_gpu_temperature_celsius{gpu=\"1\""), std::string::npos);
  EXPECT_EQ(text.find("# EOF"), std::string::npos);
}

TEST(PromExposition, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
}

TEST(PromExposition, OpenMetricsNamesCounterFamiliesWithoutTotalAndEndsWithEof) {
  EXPECT_EQ(ChooseExposition("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
            ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(ChooseExposition("text/plain"), ExpositionFormat::kPrometheusText);
  EXPECT_EQ(ChooseExposition(""), ExpositionFormat::kPrometheusText);
  const std::string text = RenderPrometheusMetrics(Synthetic(), ExpositionFormat::kOpenMetrics);
  EXPECT_TRUE(text.ends_with("\n# EOF\n"));
  EXPECT_TRUE(Has(text, "# TYPE gpudoctor_xid_events counter"));
  EXPECT_TRUE(Has(text, "# TYPE gpudoctor_gpus_lost gauge"));
  EXPECT_EQ(text.find("# TYPE gpudoctor_xid_events_total"), std::string::npos);
  EXPECT_NE(text.find("gpudoctor_xid_events_total{"), std::string::npos);
  EXPECT_STREQ(ExpositionContentType(ExpositionFormat::kOpenMetrics),
               "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

TEST(PromExposition, PromtoolFindsNoProblem) {
  if (!std::filesystem::exists("/usr/bin/promtool")) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  }
  test::ProcessOptions o;
  o.stdin_text = RenderPrometheusMetrics(Synthetic(), ExpositionFormat::kPrometheusText);
  auto r = test::RunProcess({"/usr/bin/promtool", "check", "metrics"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out + r.err, "");
}

}  // namespace
}  // namespace gpudoctor
