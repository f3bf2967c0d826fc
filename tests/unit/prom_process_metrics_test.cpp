// The per-process series of /metrics and the pod labels of the per-GPU
// series: top N by memory per GPU, the process's labels, and pod/namespace on
// a GPU's series only while one pod runs all of its processes.
#include <gtest/gtest.h>

#include <sstream>

#include "render/prometheus_metrics.h"
#include "render/prometheus_processes.h"

namespace gpudoctor {
namespace {

GpuProcess Proc(std::uint32_t pid, std::string name, std::optional<std::int64_t> bytes) {
  return GpuProcess(pid, std::move(name), bytes);
}

GpuProcess InPod(GpuProcess p, std::string pod, std::string ns, std::string uid) {
  p.container_id = "0123456789ab";
  p.pod_uid = std::move(uid);
  p.pod_name = std::move(pod);
  p.pod_namespace = std::move(ns);
  return p;
}

AgentLiveSnapshot TwoGpusWithProcesses() {
  AgentLiveSnapshot s;
  s.status.nvml_loaded = true;
  GpuStatus shared;
  shared.index = 0;
  shared.name = "NVIDIA H100";
  shared.uuid = "GPU-0";
  shared.pci_bus_id = "0000:18:00.0";
  shared.temperature_c = 60;
  shared.processes = std::vector<GpuProcess>{
      InPod(Proc(4242, "python3", 40LL << 30), "trainer-0", "ml", "uid-a"),
      Proc(5151, "jupyter", 8LL << 30), Proc(7070, "tiny", 1LL << 20), Proc(8080, "unknown", {})};
  (*shared.processes)[0].sm_util_percent = 55;
  (*shared.processes)[0].memory_util_percent = 30;
  GpuStatus single = shared;
  single.index = 1;
  single.uuid = "GPU-1";
  single.pci_bus_id = "0000:19:00.0";
  single.processes = std::vector<GpuProcess>{
      InPod(Proc(9000, "server", 2LL << 30), "infer-1", "serving", "uid-b"),
      InPod(Proc(9001, "worker", 1LL << 30), "infer-1", "serving", "uid-b")};
  s.status.gpus = {shared, single};
  return s;
}

std::vector<std::string> MatchingLines(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  }
  return out;
}

TEST(PromProcesses, TopNByMemoryUnknownMemoryLast) {
  const auto s = TwoGpusWithProcesses();
  auto top = TopProcessesByMemory(s.status.gpus[0], 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0]->pid, 4242u);
  EXPECT_EQ(top[1]->pid, 5151u);
  EXPECT_EQ(top[2]->pid, 7070u);
  auto all = TopProcessesByMemory(s.status.gpus[0], 10);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[3]->pid, 8080u);
  EXPECT_TRUE(TopProcessesByMemory(s.status.gpus[0], 0).empty());
  EXPECT_TRUE(TopProcessesByMemory(GpuStatus{}, 5).empty());
}

TEST(PromProcesses, SeriesCarryTheProcessAndItsPod) {
  MetricsRenderOptions o;
  o.top_processes = 2;
  const std::string text = RenderPrometheusMetrics(TwoGpusWithProcesses(), ExpositionFormat::kPrometheusText, o);
  const std::string gpu0 = "gpu=\"0\",uuid=\"GPU-0\",pci_bus_id=\"0000:18:00.0\",model=\"NVIDIA H100\"";
  const auto memory = MatchingLines(text, "gpudoctor_process_gpu_memory_bytes{");
  // Two per GPU: GPU 0's two largest, GPU 1's two.
  ASSERT_EQ(memory.size(), 4u) << text;
  EXPECT_EQ(memory[0], "gpudoctor_process_gpu_memory_bytes{" + gpu0 +
                           ",pid=\"4242\",process=\"python3\",container=\"0123456789ab\","
                           "container_id=\"0123456789ab\",pod=\"trainer-0\",namespace=\"ml\"} "
                           "42949672960");
  EXPECT_EQ(memory[1], "gpudoctor_process_gpu_memory_bytes{" + gpu0 +
                           ",pid=\"5151\",process=\"jupyter\",container=\"\",container_id=\"\","
                           "pod=\"\",namespace=\"\"} 8589934592");
  EXPECT_EQ(text.find("pid=\"7070\""), std::string::npos);
  const auto sm = MatchingLines(text, "gpudoctor_process_sm_utilization_ratio{");
  ASSERT_EQ(sm.size(), 1u) << text;  // only 4242 has a share
  EXPECT_TRUE(sm[0].ends_with("pid=\"4242\",process=\"python3\",container=\"0123456789ab\","
                              "container_id=\"0123456789ab\",pod=\"trainer-0\",namespace=\"ml\"} 0.55"))
      << sm[0];
  const auto mem_util = MatchingLines(text, "gpudoctor_process_memory_utilization_ratio{");
  ASSERT_EQ(mem_util.size(), 1u);
  EXPECT_TRUE(mem_util[0].ends_with("} 0.3")) << mem_util[0];
}

TEST(PromProcesses, ContainerIsTheKubeletsNameWhenKnownAndTheIdStaysBeside) {
  auto s = TwoGpusWithProcesses();
  (*s.status.gpus[0].processes)[0].container_name = "trainer";
  MetricsRenderOptions o;
  o.top_processes = 1;
  const auto memory =
      MatchingLines(RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText, o),
                    "gpudoctor_process_gpu_memory_bytes{");
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_NE(memory[0].find(",container=\"trainer\",container_id=\"0123456789ab\","),
            std::string::npos)
      << memory[0];
}

TEST(PromProcesses, ZeroTopProcessesServesNoProcessFamily) {
  MetricsRenderOptions o;
  o.top_processes = 0;
  const std::string text = RenderPrometheusMetrics(TwoGpusWithProcesses(), ExpositionFormat::kPrometheusText, o);
  EXPECT_EQ(text.find("gpudoctor_process_"), std::string::npos);
}

TEST(PromProcesses, GpuSeriesNameTheirPodOnlyWhenOnePodRunsEverything) {
  const std::string text = RenderPrometheusMetrics(TwoGpusWithProcesses(), ExpositionFormat::kPrometheusText);
  const auto temps = MatchingLines(text, "gpudoctor_gpu_temperature_celsius{");
  ASSERT_EQ(temps.size(), 2u);
  // GPU 0 is shared with processes outside the pod: no pod label.
  EXPECT_EQ(temps[0].find("pod="), std::string::npos) << temps[0];
  EXPECT_EQ(temps[1],
            "gpudoctor_gpu_temperature_celsius{gpu=\"1\",uuid=\"GPU-1\",pci_bus_id=\"0000:19:00.0\","
            "model=\"NVIDIA H100\",pod=\"infer-1\",namespace=\"serving\"} 60");
  // A pod whose name is unknown (no /var/log/pods) gives no pod label either.
  auto s = TwoGpusWithProcesses();
  for (auto& p : *s.status.gpus[1].processes) p.pod_name.clear(), p.pod_namespace.clear();
  const std::string unnamed = RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText);
  EXPECT_EQ(unnamed.find(",pod=\"infer-1\""), std::string::npos);
  EXPECT_EQ(MatchingLines(unnamed, "gpudoctor_gpu_temperature_celsius{")[1].find("pod="),
            std::string::npos);
}

}  // namespace
}  // namespace gpudoctor
