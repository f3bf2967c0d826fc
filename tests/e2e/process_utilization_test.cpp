// End-to-end: per-process utilisation on the fake NVML, with each process's
// user, container and pod from a fake /proc: in `status` (JSON and table),
// `facts`, the agent's store and `report`; nvmlDeviceGetProcessUtilization
// where nvmlDeviceGetProcessesUtilizationInfo is missing (before R550); and
// processes.competing in `diagnose`, naming both processes and their shares.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "support/background_process.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

// Two processes share GPU 0 (a training run in a pod and a forgotten
// notebook); GPU 1 has one process that used nothing in the last period.
std::string SharedScenario(const std::string& extra = "") {
  return R"({)" + extra + R"("gpus": [
    {"name": "NVIDIA H100 80GB HBM3", "utilization_gpu_percent": 92,
     "processes": [
       {"pid": 4242, "name": "python3", "used_memory_bytes": 42949672960,
        "sm_util_percent": 55, "memory_util_percent": 30},
       {"pid": 5151, "name": "jupyter-kernel", "used_memory_bytes": 8589934592,
        "sm_util_percent": 35, "memory_util_percent": 12}]},
    {"name": "NVIDIA H100 80GB HBM3", "utilization_gpu_percent": 0,
     "processes": [{"pid": 6262, "name": "idle", "used_memory_bytes": 1048576}]}
  ]})";
}

constexpr const char* kPodUid = "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d";

// A host whose /proc shows the three pids: 4242 alice's, in a pod's
// containerd container; 5151 bob's; 6262 root's.
void OwnersHost(const TempDir& root) {
  root.Write("proc/stat", "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  root.Write("etc/passwd",
             "root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n"
             "bob:x:1001:1001::/home/bob:/bin/bash\n");
  const std::pair<const char*, const char*> owners[] = {{"4242", "1000"}, {"5151", "1001"},
                                                        {"6262", "0"}};
  for (const auto& [pid, uid] : owners) {
    const std::string dir = std::string("proc/") + pid + "/";
    root.Write(dir + "status", std::string("Name:\tx\nUid:\t") + uid + "\t" + uid + "\t" + uid +
                                   "\t" + uid + "\n");
    root.Write(dir + "comm", "x\n");
    root.Write(dir + "cmdline", std::string("x\0", 2));
  }
  root.Write("proc/4242/cgroup",
             std::string("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod") +
                 "1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d.slice/cri-containerd-"
                 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n");
  root.Write("proc/5151/cgroup", "0::/user.slice/user-1001.slice/session-3.scope\n");
  root.Write("proc/6262/cgroup", "0::/system.slice/idle.service\n");
}

const json& ProcessOf(const json& gpu, std::uint32_t pid) {
  for (const auto& p : gpu["processes"]) {
    if (p["pid"] == pid) return p;
  }
  static const json kNone;
  ADD_FAILURE() << "pid " << pid << " not in " << gpu["processes"].dump();
  return kNone;
}

TEST(ProcessUtilizationE2E, StatusShowsEachProcessShareAndOwner) {
  TempDir dir, root;
  OwnersHost(root);
  auto r = RunGpudoctor({"status", "--json", "--root", root.path().string()},
                        dir.Write("s.json", SharedScenario()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json& train = ProcessOf(doc["gpus"][0], 4242);
  EXPECT_EQ(train["sm_util_percent"], 55);
  EXPECT_EQ(train["memory_util_percent"], 30);
  EXPECT_EQ(train["user"], "alice");
  EXPECT_EQ(train["container_id"], "0123456789ab");
  EXPECT_EQ(train["pod_uid"], kPodUid);
  const json& notebook = ProcessOf(doc["gpus"][0], 5151);
  EXPECT_EQ(notebook["sm_util_percent"], 35);
  EXPECT_EQ(notebook["user"], "bob");
  EXPECT_TRUE(notebook["container_id"].is_null());
  // Listed by the driver, no sample: it used nothing in the last period.
  const json& idle = ProcessOf(doc["gpus"][1], 6262);
  EXPECT_EQ(idle["sm_util_percent"], 0);
  EXPECT_EQ(idle["user"], "root");

  auto table = RunGpudoctor({"status", "--no-color", "--root", root.path().string()},
                            dir.Write("s.json", SharedScenario()));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(" SM  Mem  Owner"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(" 55%  30%  alice  pod 1b2c3d4e-"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(" 35%  12%  bob"), std::string::npos) << table.out;

  // On a Kubernetes node the kubelet's directories name the pod and the
  // container: status shows the names.
  EXPECT_TRUE(train["pod_name"].is_null());
  EXPECT_TRUE(train["container_name"].is_null());
  root.Write(std::string("var/log/pods/ml-team_trainer-0_") + kPodUid + "/trainer/0.log", "");
  root.Write("var/log/containers/trainer-0_ml-team_trainer-"
             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.log",
             "");
  auto named = RunGpudoctor({"status", "--json", "--root", root.path().string()},
                            dir.Write("s.json", SharedScenario()));
  ASSERT_EQ(named.exit_code, 0) << named.err;
  json named_doc = json::parse(named.out);
  const json& pod = ProcessOf(named_doc["gpus"][0], 4242);
  EXPECT_EQ(pod["pod_name"], "trainer-0");
  EXPECT_EQ(pod["pod_namespace"], "ml-team");
  EXPECT_EQ(pod["container_name"], "trainer");
  EXPECT_EQ(pod["container_id"], "0123456789ab");
  EXPECT_TRUE(ProcessOf(named_doc["gpus"][0], 5151)["pod_name"].is_null());
  auto named_table = RunGpudoctor({"status", "--no-color", "--root", root.path().string()},
                                  dir.Write("s.json", SharedScenario()));
  EXPECT_NE(named_table.out.find(" 55%  30%  alice  pod ml-team/trainer-0 (trainer)"),
            std::string::npos)
      << named_table.out;
}

TEST(ProcessUtilizationE2E, OlderDriversFallBackAndUnsupportedIsNull) {
  TempDir dir, root;
  OwnersHost(root);
  // R535: no nvmlDeviceGetProcessesUtilizationInfo; the older call answers.
  auto old = RunGpudoctor({"status", "--json", "--root", root.path().string()},
                          dir.Write("old.json", SharedScenario(R"("driver_profile": "535.104.05", )")));
  ASSERT_EQ(old.exit_code, 0) << old.err;
  json doc = json::parse(old.out);
  EXPECT_EQ(ProcessOf(doc["gpus"][0], 4242)["sm_util_percent"], 55);
  EXPECT_EQ(ProcessOf(doc["gpus"][0], 5151)["memory_util_percent"], 12);
  // The newer call answering NOT_SUPPORTED also falls back.
  auto refused = RunGpudoctor(
      {"status", "--json", "--root", root.path().string()},
      dir.Write("refused.json",
                SharedScenario(R"("function_errors": {"nvmlDeviceGetProcessesUtilizationInfo": "NVML_ERROR_NOT_SUPPORTED"}, )")));
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_EQ(ProcessOf(json::parse(refused.out)["gpus"][0], 4242)["sm_util_percent"], 55);
  // Neither: null, and no error (MIG GPUs answer so).
  auto none = RunGpudoctor(
      {"status", "--json", "--root", root.path().string()},
      dir.Write("none.json",
                SharedScenario(R"("function_errors": {"nvmlDeviceGetProcessesUtilizationInfo": "NVML_ERROR_NOT_SUPPORTED", "nvmlDeviceGetProcessUtilization": "NVML_ERROR_NOT_SUPPORTED"}, )")));
  ASSERT_EQ(none.exit_code, 0) << none.err;
  json none_doc = json::parse(none.out);
  EXPECT_TRUE(ProcessOf(none_doc["gpus"][0], 4242)["sm_util_percent"].is_null());
  EXPECT_TRUE(none_doc["gpus"][0]["field_errors"].empty()) << none_doc["gpus"][0]["field_errors"];
  EXPECT_EQ(ProcessOf(none_doc["gpus"][0], 4242)["user"], "alice");
}

TEST(ProcessUtilizationE2E, FactsCarryTheShares) {
  TempDir dir, root;
  OwnersHost(root);
  auto r = RunGpudoctor({"facts", "--json", "--root", root.path().string(), "--window", "100ms"},
                        dir.Write("s.json", SharedScenario()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json& train = ProcessOf(doc["nvml"]["gpus"][0], 4242);
  EXPECT_EQ(train["sm_util_percent"], 55);
  EXPECT_EQ(train["user"], "alice");
  EXPECT_EQ(train["pod_uid"], kPodUid);
}

TEST(ProcessUtilizationE2E, DiagnoseNamesTheCompetingProcesses) {
  TempDir dir, root;
  OwnersHost(root);
  ProcessOptions po;
  po.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "1500ms",
                         "--interval", "300ms", "--lang", "en", "--format", "json"},
                        dir.Write("s.json", SharedScenario()), po);
  ASSERT_TRUE(r.exit_code == 1 || r.exit_code == 2) << r.exit_code << r.err << r.out;
  json doc = json::parse(r.out);
  const json* competing = nullptr;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "processes.competing") competing = &f;
  }
  ASSERT_NE(competing, nullptr) << doc["findings"].dump(1);
  EXPECT_EQ((*competing)["gpus"], json::array({"0000:01:00.0"}));
  const std::string text = competing->dump();
  EXPECT_NE(text.find("`python3` (pid 4242, 40 GiB, `alice`, pod `1b2c3d4e-5f60-4a7b-8c9d-"
                      "0e1f2a3b4c5d`): SM 55 % avg"),
            std::string::npos)
      << competing->dump(1);
  EXPECT_NE(text.find("`jupyter-kernel` (pid 5151, 8 GiB, `bob`): SM 35 % avg"),
            std::string::npos)
      << competing->dump(1);
}

TEST(ProcessUtilizationE2E, AgentRecordsThemAndTheReportListsProcesses) {
  TempDir dir, root, data;
  OwnersHost(root);
  ProcessOptions po;
  po.timeout = std::chrono::seconds(60);
  auto run = RunGpudoctor({"agent", "--data-dir", data.path().string(), "--root",
                           root.path().string(), "--interval", "200ms", "--window", "2s",
                           "--evaluate-every", "400ms", "--facts-every", "1h", "--no-kernel-log",
                           "--no-listen", "--run-for", "3s"},
                          dir.Write("s.json", SharedScenario()), po);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto report = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                              "--format", "json", "--lang", "en"},
                             "");
  ASSERT_TRUE(report.exit_code >= 0 && report.exit_code <= 2) << report.err;
  json doc = json::parse(report.out);
  const json* gpu0 = nullptr;
  for (const auto& g : doc["gpus"]) {
    if (g["pci_bus_id"] == "0000:01:00.0") gpu0 = &g;
  }
  ASSERT_NE(gpu0, nullptr) << doc["gpus"].dump(1);
  ASSERT_EQ((*gpu0)["processes"].size(), 2u) << gpu0->dump(1);
  const json& first = (*gpu0)["processes"][0];
  EXPECT_EQ(first["pid"], 4242) << "most SM time first";
  EXPECT_EQ(first["user"], "alice");
  EXPECT_EQ(first["pod_uid"], kPodUid);
  EXPECT_DOUBLE_EQ(first["sm_util_percent"]["avg"].get<double>(), 55.0);
  EXPECT_GT(first["readings"].get<int>(), 3);
  bool competing = false;
  for (const auto& f : doc["findings"]) competing |= f["id"] == "processes.competing";
  EXPECT_TRUE(competing) << doc["findings"].dump(1);
  auto html = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                            "--format", "html", "--lang", "en"},
                           "");
  EXPECT_NE(html.out.find("<h3>Processes</h3>"), std::string::npos);
  EXPECT_NE(html.out.find("<code>jupyter-kernel</code></td><td>bob</td>"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::test
