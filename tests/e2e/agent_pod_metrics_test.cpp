// End-to-end: `gpudoctor agent` on the fake NVML with a fake /proc (cgroup
// paths of containerd containers in two pods) and the kubelet's
// /var/log/pods and /var/log/containers trees: /metrics serves per-process
// series with pid, process, container (the kubelet's name where a link names
// it, else the id), container_id, pod and namespace for the top N processes
// of each GPU, and the
// series of a GPU that one pod has to itself carry that pod; the limit comes
// from the command line or the config file.
#include <gtest/gtest.h>
#include <signal.h>

#include <sstream>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

constexpr const char* kPodTrainUid = "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d";
constexpr const char* kInferUid = "9f8e7d6c-5b4a-4392-8170-a1b2c3d4e5f6";

// GPU 0: a pod's training run, a notebook outside any pod, and a small
// helper; GPU 1: one inference pod's server alone.
const char* kPodScenario = R"({"gpus": [
  {"name": "NVIDIA H100 80GB HBM3", "temperature_c": 61,
   "processes": [
     {"pid": 4242, "name": "python3", "used_memory_bytes": 42949672960,
      "sm_util_percent": 55, "memory_util_percent": 30},
     {"pid": 5151, "name": "jupyter-kernel", "used_memory_bytes": 8589934592},
     {"pid": 6262, "name": "helper", "used_memory_bytes": 1048576}]},
  {"name": "NVIDIA H100 80GB HBM3", "temperature_c": 58,
   "processes": [{"pid": 7070, "name": "tritonserver", "used_memory_bytes": 21474836480,
                  "sm_util_percent": 40, "memory_util_percent": 20}]}
]})";

// An H100 in MIG mode: the training pod's process in GPU instance 1, the
// inference pod's in GPU instance 2, nothing in GPU instance 3.
const char* kMigPodScenario = R"({"gpus": [
  {"name": "NVIDIA H100 80GB HBM3", "gpm_supported": true, "mig_mode_enabled": true,
   "mig_devices": [
     {"gpu_instance_id": 1, "compute_instance_id": 0, "uuid": "MIG-11111111-1111-1111-1111-111111111111",
      "name": "NVIDIA H100 80GB HBM3 MIG 3g.40gb", "memory_total_bytes": 42949672960,
      "memory_used_bytes": 32212254720, "memory_free_bytes": 10737418240,
      "gpm_graphics_activity_percent": 70},
     {"gpu_instance_id": 2, "compute_instance_id": 0, "uuid": "MIG-22222222-2222-2222-2222-222222222222",
      "name": "NVIDIA H100 80GB HBM3 MIG 2g.20gb", "memory_total_bytes": 21474836480,
      "memory_used_bytes": 1073741824, "memory_free_bytes": 20401094656,
      "gpm_graphics_activity_percent": 20},
     {"gpu_instance_id": 3, "compute_instance_id": 0, "uuid": "MIG-33333333-3333-3333-3333-333333333333",
      "name": "NVIDIA H100 80GB HBM3 MIG 1g.10gb", "memory_total_bytes": 10737418240,
      "memory_used_bytes": 0, "memory_free_bytes": 10737418240,
      "gpm_graphics_activity_percent": 0}],
   "processes": [
     {"pid": 4242, "name": "python3", "used_memory_bytes": 32212254720,
      "gpu_instance_id": 1, "compute_instance_id": 0},
     {"pid": 7070, "name": "tritonserver", "used_memory_bytes": 1073741824,
      "gpu_instance_id": 2, "compute_instance_id": 0}]}
]})";

std::string PodCgroup(const std::string& uid, char container_digit) {
  std::string slice_uid = uid;
  for (char& c : slice_uid) c = c == '-' ? '_' : c;
  return "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + slice_uid +
         ".slice/cri-containerd-" + std::string(64, container_digit) + ".scope\n";
}

void WritePodHost(const TempDir& root) {
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  const std::pair<const char*, std::string> cgroups[] = {
      {"4242", PodCgroup(kPodTrainUid, 'a')},
      {"5151", "0::/user.slice/user-1001.slice/session-3.scope\n"},
      {"6262", "0::/system.slice/helper.service\n"},
      {"7070", PodCgroup(kInferUid, 'b')}};
  for (const auto& [pid, cgroup] : cgroups) {
    const std::string dir = std::string("proc/") + pid + "/";
    root.Write(dir + "status", "Name:\tx\nUid:\t0\t0\t0\t0\n");
    root.Write(dir + "cgroup", cgroup);
  }
  root.Write(std::string("var/log/pods/ml-team_trainer-0_") + kPodTrainUid + "/trainer/0.log", "");
  root.Write(std::string("var/log/pods/serving_triton-7d9f_") + kInferUid + "/triton/0.log", "");
  // The training container's link; the inference one has none.
  root.Write("var/log/containers/trainer-0_ml-team_trainer-" + std::string(64, 'a') + ".log", "");
}

// /metrics once it shows `needle`, bounded; the last body otherwise.
std::string MetricsShowing(int port, const std::string& needle) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(5);
  std::string body;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = c.Get("/metrics"); r && r->status == 200) {
      body = r->body;
      if (body.find(needle) != std::string::npos) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return body;
}

std::vector<std::string> FamilyLines(const std::string& text, const std::string& family) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(family + "{", 0) == 0) out.push_back(l);
  }
  return out;
}

class AgentPodMetrics : public ::testing::Test {
 protected:
  void SetUp() override { WritePodHost(root_); }
  BackgroundProcess StartAgent(int port, std::vector<std::string> extra,
                               const char* scenario = kPodScenario) {
    std::vector<std::string> args = {
        "agent", "--data-dir", data_.path().string(), "--root", root_.path().string(),
        "--interval", "200ms", "--facts-every", "1h", "--no-kernel-log", "--run-for", "60s",
        "--listen", "127.0.0.1:" + std::to_string(port)};
    args.insert(args.end(), extra.begin(), extra.end());
    return BackgroundProcess(GpudoctorArgv(args), FakeNvmlEnv(data_.Write("s.json", scenario)),
                             (data_.path() / "agent.log").string());
  }
  TempDir root_, data_;
};

TEST_F(AgentPodMetrics, ProcessSeriesNameTheirContainerAndPod) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  BackgroundProcess agent = StartAgent(port, {"--metrics-top-processes", "2"});
  ASSERT_TRUE(agent.started());
  const std::string text = MetricsShowing(port, "pod=\"triton-7d9f\"");
  const auto memory = FamilyLines(text, "gpudoctor_process_gpu_memory_bytes");
  // Two of GPU 0's three processes (the largest), GPU 1's one.
  ASSERT_EQ(memory.size(), 3u) << text;
  EXPECT_NE(memory[0].find(",pid=\"4242\",process=\"python3\",container=\"trainer\","
                           "container_id=\"aaaaaaaaaaaa\",pod=\"trainer-0\",namespace=\"ml-team\"} "
                           "42949672960"),
            std::string::npos)
      << memory[0];
  EXPECT_NE(memory[0].find("gpu=\"0\","), std::string::npos) << memory[0];
  EXPECT_NE(memory[1].find(",pid=\"5151\",process=\"jupyter-kernel\",container=\"\","
                           "container_id=\"\",pod=\"\",namespace=\"\"} 8589934592"),
            std::string::npos)
      << memory[1];
  EXPECT_NE(memory[2].find(",pid=\"7070\",process=\"tritonserver\",container=\"bbbbbbbbbbbb\","
                           "container_id=\"bbbbbbbbbbbb\",pod=\"triton-7d9f\",namespace=\"serving\"} "
                           "21474836480"),
            std::string::npos)
      << memory[2];
  EXPECT_EQ(text.find("pid=\"6262\""), std::string::npos);
  const auto sm = FamilyLines(text, "gpudoctor_process_sm_utilization_ratio");
  // The notebook is listed without a sample: it used none of the last period.
  ASSERT_EQ(sm.size(), 3u) << text;
  EXPECT_TRUE(sm[0].ends_with("pod=\"trainer-0\",namespace=\"ml-team\"} 0.55")) << sm[0];
  EXPECT_TRUE(sm[1].ends_with(",pid=\"5151\",process=\"jupyter-kernel\",container=\"\","
                              "container_id=\"\",pod=\"\",namespace=\"\"} 0"))
      << sm[1];
  EXPECT_TRUE(sm[2].ends_with("pod=\"triton-7d9f\",namespace=\"serving\"} 0.4")) << sm[2];
  // GPU 1 belongs to one pod: its readings say so; GPU 0 is shared: they do not.
  const auto temps = FamilyLines(text, "gpudoctor_gpu_temperature_celsius");
  ASSERT_EQ(temps.size(), 2u) << text;
  EXPECT_EQ(temps[0].find("pod="), std::string::npos) << temps[0];
  EXPECT_TRUE(temps[1].ends_with(",pod=\"triton-7d9f\",namespace=\"serving\"} 58")) << temps[1];
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

TEST_F(AgentPodMetrics, ConfigFileSetsTheLimitAndWithoutPodDirsPodsStayUnnamed) {
  std::filesystem::remove_all(root_.path() / "var/log/pods");
  std::filesystem::remove_all(root_.path() / "var/log/containers");
  const std::string config = data_.Write("config.toml", "[metrics]\ntop_processes = 1\n");
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  BackgroundProcess agent = StartAgent(port, {"--config", config});
  ASSERT_TRUE(agent.started());
  const std::string text = MetricsShowing(port, "pid=\"7070\"");
  const auto memory = FamilyLines(text, "gpudoctor_process_gpu_memory_bytes");
  ASSERT_EQ(memory.size(), 2u) << text;
  EXPECT_NE(memory[0].find(",pid=\"4242\",process=\"python3\",container=\"aaaaaaaaaaaa\","
                           "container_id=\"aaaaaaaaaaaa\",pod=\"\",namespace=\"\"}"),
            std::string::npos)
      << memory[0];
  EXPECT_EQ(text.find(",pod=\"triton"), std::string::npos);
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

// dcgm-exporter 3.x labels each GPU instance's series with the pod that
// uses that MIG device; so do both namings here, from NVML's process
// records (their GPU instance) and the pods of those processes.
TEST_F(AgentPodMetrics, OnMigEachInstancesSeriesNameThePodRunningInIt) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  BackgroundProcess agent = StartAgent(port, {"--metrics-names", "both"}, kMigPodScenario);
  ASSERT_TRUE(agent.started());
  const std::string text = MetricsShowing(port, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{");
  const auto active = FamilyLines(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
  ASSERT_EQ(active.size(), 3u) << text;
  auto instance = [&](const std::vector<std::string>& lines, const std::string& id) {
    for (const auto& l : lines) {
      if (l.find(id) != std::string::npos) return l;
    }
    return std::string();
  };
  const std::string one = instance(active, "GPU_I_ID=\"1\"");
  EXPECT_NE(one.find("container=\"trainer\",namespace=\"ml-team\",pod=\"trainer-0\"} 0.7"),
            std::string::npos)
      << one;
  const std::string two = instance(active, "GPU_I_ID=\"2\"");
  EXPECT_NE(two.find("namespace=\"serving\",pod=\"triton-7d9f\"} 0.2"), std::string::npos) << two;
  const std::string three = instance(active, "GPU_I_ID=\"3\"");
  ASSERT_FALSE(three.empty()) << text;
  EXPECT_EQ(three.find("pod="), std::string::npos) << three;
  // The Xid series per instance, and gpudoctor's own MIG series.
  const std::string xid = instance(FamilyLines(text, "DCGM_FI_DEV_XID_ERRORS"), "GPU_I_ID=\"1\"");
  EXPECT_NE(xid.find("pod=\"trainer-0\""), std::string::npos) << text;
  const auto mig = FamilyLines(text, "gpudoctor_mig_graphics_activity_ratio");
  const std::string own = instance(mig, "gpu_instance=\"2\"");
  EXPECT_NE(own.find("pod=\"triton-7d9f\",namespace=\"serving\""), std::string::npos) << text;
  agent.Signal(SIGTERM);
  EXPECT_NE(agent.Wait(std::chrono::seconds(20)), -1);
}

}  // namespace
}  // namespace gpudoctor::test
