// End-to-end: the agent's recorded history stays true through what a failing
// node does to it. A kill -9 in the middle of a finding, a store whose bytes
// were overwritten, a torn write-ahead log, a GPU lost before the agent
// started, and one Xid seen on two paths (the kernel log and NVML's events).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/fake_host.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/wait_until.h"

namespace gpudoctor::test {
namespace agent_crash_e2e {  // named: unity sources join test files

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Two GPUs at the fake's default bus ids; GPU 0 under the power brake
// (a finding that holds as long as the scenario runs).
constexpr const char* kBraking = R"({"gpus": [{"clock_event_reasons": 128}, {}]})";
// The same GPUs, GPU 1 lost before anything opened it: its handle fails.
constexpr const char* kSecondLostAtStart = R"({"gpus": [{}, {"faults": [{"kind": "lost"}]}]})";
constexpr const char* kHealthy = R"({"gpus": [{}, {}]})";

const json* Interval(const json& doc, const std::string& id) {
  for (const auto& row : doc["timeline"]) {
    if (row["type"] == "finding" && row["id"] == id) return &row;
  }
  return nullptr;
}

std::size_t EventsOf(const json& doc, const std::string& kind, int code = -1) {
  std::size_t n = 0;
  for (const auto& e : doc["events"]) {
    if (e["kind"] != kind) continue;
    if (code >= 0 && (e["code"].is_null() || e["code"].get<int>() != code)) continue;
    n += e.contains("count") && e["count"].is_number() ? e["count"].get<std::size_t>() : 1;
  }
  return n;
}

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AgentCrash : public ::testing::Test {
 protected:
  void SetUp() override {
    // Both GPUs on the PCI bus (sysfs), where a GPU NVML cannot open is found.
    WriteQuietHost(root_, {"0000:01:00.0", "0000:02:00.0"});
    root_.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000002\n");
  }
  std::string Scenario(const std::string& name, const char* text) const {
    return scenarios_.Write(name, text);
  }
  std::vector<std::string> Args(const std::string& run_for, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"agent", "--data-dir", data_.path().string(), "--root",
                                  root_.path().string(), "--interval", "100ms", "--window", "2s",
                                  "--evaluate-every", "300ms", "--facts-every", "1h",
                                  "--no-kernel-log", "--log-level", "debug"};
    if (!run_for.empty()) a.insert(a.end(), {"--run-for", run_for});
    if (extra.empty()) extra = {"--no-listen"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  json Report() const {
    auto r = RunGpudoctor({"report", "--data-dir", data_.path().string(), "--since", "10m",
                           "--format", "json", "--lang", "en"},
                          "");
    EXPECT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << r.exit_code << r.err;
    auto doc = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
    return doc;
  }
  // Runs the agent in the background on `scenario` until a report shows the
  // finding `id`, then kills it with SIGKILL.
  void RunUntilFindingThenKill(const std::string& scenario, const std::string& id) const {
    BackgroundProcess agent(GpudoctorArgv(Args("")), FakeNvmlEnv(scenario), Log());
    ASSERT_TRUE(agent.started());
    const auto until = std::chrono::steady_clock::now() + seconds(120);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(milliseconds(300));
      auto r = RunGpudoctor(
          {"report", "--data-dir", data_.path().string(), "--since", "10m", "--format", "json"}, "");
      auto doc = json::parse(r.out, nullptr, false);
      seen = !doc.is_discarded() && Interval(doc, id) != nullptr;
    }
    ASSERT_TRUE(seen) << id << " never recorded: " << FileText(Log());
    agent.Signal(SIGKILL);
    int status = agent.Wait(seconds(10));
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
  }
  std::string Db() const { return (data_.path() / "gpudoctor.db").string(); }
  std::string Log() const { return (data_.path() / "agent.log").string(); }

  TempDir root_, data_, scenarios_;
};

TEST_F(AgentCrash, KillNineMidFindingEndsItAtTheLastSampleAndOneGpuIsOneRow) {
  ASSERT_NO_FATAL_FAILURE(RunUntilFindingThenKill(Scenario("braking.json", kBraking), "power.brake"));
  // No agent holds the store now: the brake is not "still active".
  json killed = Report();
  const json* brake = Interval(killed, "power.brake");
  ASSERT_NE(brake, nullptr) << killed["timeline"].dump(1);
  EXPECT_FALSE((*brake)["end"].is_null()) << "no running agent holds it: " << brake->dump();
  EXPECT_EQ(EventsOf(killed, "agent_stopped"), 1u) << killed["events"].dump(1);

  // Restarted, with GPU 1 lost before the agent opened it.
  auto again = RunGpudoctor(Args("1500ms"), Scenario("lost.json", kSecondLostAtStart));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("without closing its records"), std::string::npos) << again.err;
  json after = Report();
  brake = Interval(after, "power.brake");
  ASSERT_NE(brake, nullptr) << after["timeline"].dump(1);
  ASSERT_FALSE((*brake)["end"].is_null()) << brake->dump();
  // The killed run's stop (found at the restart) and the clean one.
  EXPECT_EQ(EventsOf(after, "agent_stopped"), 2u) << after["events"].dump(1);
  // GPU 1 is one row, under its bus id (from sysfs), lost.
  ASSERT_EQ(after["gpus"].size(), 2u) << after["gpus"].dump(1);
  EXPECT_EQ(after["gpus"][1]["pci_bus_id"], "0000:02:00.0") << after["gpus"].dump(1);
  bool lost_named = false;
  for (const auto& f : after["findings"]) {
    if (f["id"] == "gpu.lost") lost_named = !f["gpus"].empty() && f["gpus"][0] == "0000:02:00.0";
  }
  EXPECT_TRUE(lost_named) << after["findings"].dump(1);
}

// A host whose PCI bus (sysfs) lists GPU 0 only: a GPU NVML cannot open is
// known by nothing but its index.
class AgentCrashUnnamedGpu : public AgentCrash {
 protected:
  void SetUp() override {
    WriteQuietHost(root_, {"0000:01:00.0"});
    root_.Write("proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000003\n");
  }
};

int SeverityRank(const json& name) {
  for (int i = 0; const char* s : {"ok", "info", "warning", "critical"}) {
    if (name == s) return i;
    ++i;
  }
  return -1;
}

// GPU 1 is lost before the agent first sees it, so the agent records it by
// its index; killed, the agent is started again once GPU 1 answers, under
// its bus id. The report shows GPU 1 once, under its bus id, and one lost
// GPU. (Before: three GPUs, GPU 1 twice, once "[lost]" with verdict OK
// beside a critical gpu.lost, and power.supply_suspected "2 GPUs lost
// within 0 s".)
TEST_F(AgentCrashUnnamedGpu, AGpuLostBeforeFirstSightIsOneGpuAfterARestart) {
  ASSERT_NO_FATAL_FAILURE(
      RunUntilFindingThenKill(Scenario("lost.json", kSecondLostAtStart), "gpu.lost"));
  auto again = RunGpudoctor(Args("1500ms"), Scenario("healthy.json", kHealthy));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  json doc = Report();
  ASSERT_EQ(doc["gpus"].size(), 2u) << doc["gpus"].dump(1);
  EXPECT_EQ(doc["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(doc["gpus"][1]["index"], 1);
  EXPECT_EQ(doc["gpus"][1]["pci_bus_id"], "0000:02:00.0") << doc["gpus"].dump(1);
  bool lost = false;
  for (const auto& f : doc["findings"]) {
    EXPECT_NE(f["id"], "power.supply_suspected") << f.dump(1);
    lost = lost || f["id"] == "gpu.lost";
    // Every GPU a finding names is a GPU of the report, whose verdict is at
    // least that finding's severity.
    for (const auto& g : f["gpus"]) {
      const json* gpu = nullptr;
      for (const auto& row : doc["gpus"]) {
        if (row["pci_bus_id"] == g) gpu = &row;
      }
      ASSERT_NE(gpu, nullptr) << f["id"] << " names " << g << ", not a GPU of the report";
      EXPECT_GE(SeverityRank((*gpu)["verdict"]), SeverityRank(f["severity"])) << f.dump(1);
    }
  }
  EXPECT_TRUE(lost) << "GPU 1 was lost in the window: " << doc["findings"].dump(1);
  for (const auto& row : doc["timeline"]) {
    for (const auto& g : row.value("gpus", json::array())) {
      EXPECT_EQ(g.get<std::string>().rfind("index:", 0), std::string::npos) << row.dump();
    }
  }
}

TEST_F(AgentCrash, TornWriteAheadLogIsANoteNotSilentLoss) {
  ASSERT_NO_FATAL_FAILURE(RunUntilFindingThenKill(Scenario("braking.json", kBraking), "power.brake"));
  const std::string wal = Db() + "-wal";
  ASSERT_TRUE(std::filesystem::exists(wal));
  const auto size = std::filesystem::file_size(wal);
  ASSERT_GT(size, 5000u);
  std::filesystem::resize_file(wal, size - 1000);  // cut inside the last frame
  json doc = Report();
  ASSERT_TRUE(doc.is_object());
  EXPECT_FALSE(doc["gpus"].empty()) << "what was committed before the cut is read";
  EXPECT_NE(doc.dump().find("ends inside a frame"), std::string::npos) << doc.dump(1).substr(0, 3000);
}

TEST_F(AgentCrash, DamagedStoreIsMovedAsideAndTheAgentKeepsServing) {
  auto first = RunGpudoctor(Args("1500ms"), Scenario("braking.json", kBraking));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_FALSE(std::filesystem::exists(Db() + "-wal")) << "a clean stop checkpoints the WAL";
  // Overwrite bytes in the middle of the file: every page after the first.
  const auto size = std::filesystem::file_size(Db());
  ASSERT_GE(size, 3 * 4096u);
  {
    const int fd = open(Db().c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const std::string junk(4096, '\xab');
    for (std::uintmax_t at = 4096; at + 4096 <= size; at += 2 * 4096) {
      ASSERT_EQ(pwrite(fd, junk.data(), junk.size(), static_cast<off_t>(at)), 4096);
    }
    close(fd);
  }
  // report says what it could not read, in one line, and does not crash.
  auto damaged = RunGpudoctor({"report", "--data-dir", data_.path().string(), "--since", "10m",
                               "--format", "json"},
                              "");
  EXPECT_TRUE(damaged.exit_code >= 0 && damaged.exit_code <= 3) << damaged.exit_code;
  if (damaged.exit_code == 3) {
    EXPECT_NE(damaged.err.find("damaged"), std::string::npos) << damaged.err;
    EXPECT_EQ(std::count(damaged.err.begin(), damaged.err.end(), '\n'), 1) << damaged.err;
  } else {
    EXPECT_NE(damaged.out.find("could not"), std::string::npos) << damaged.out.substr(0, 2000);
  }

  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(
      GpudoctorArgv(Args("60s", {"--listen", "127.0.0.1:" + std::to_string(port)})),
      FakeNvmlEnv(Scenario("healthy.json", kHealthy)), Log());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(10);
  std::string health;
  const auto until = std::chrono::steady_clock::now() + seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = c.Get("/healthz"); r && r->status == 200) {
      health = r->body;
      break;
    }
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_NE(health.find("store damaged"), std::string::npos) << health << FileText(Log());
  EXPECT_NE(health.find("corrupt-"), std::string::npos) << health;
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("gpudoctor_gpus_visible 2"), std::string::npos);
  agent.Signal(SIGTERM);
  ASSERT_TRUE(WIFEXITED(agent.Wait(seconds(15))));
  // The damaged file is kept beside the fresh store.
  bool kept = false;
  for (const auto& e : std::filesystem::directory_iterator(data_.path())) {
    kept = kept || e.path().filename().string().rfind("gpudoctor.db.corrupt-", 0) == 0;
  }
  EXPECT_TRUE(kept);
  EXPECT_FALSE(Report()["gpus"].empty()) << "the fresh store records";
}

TEST_F(AgentCrash, GpuLostBeforeTheAgentStartedIsLostFromTheFirstSample) {
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  ASSERT_GT(port, 0);
  BackgroundProcess agent(
      GpudoctorArgv(Args("60s", {"--listen", "127.0.0.1:" + std::to_string(port)})),
      FakeNvmlEnv(Scenario("lost.json", kSecondLostAtStart)), Log());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  c.set_read_timeout(10);
  const std::string lost = "\ngpudoctor_gpus_lost 1\n";
  const std::string verdict = "gpudoctor_gpu_verdict{gpu=\"1\",uuid=\"\",pci_bus_id=\"0000:02:00.0\"";
  std::string text;
  const auto until = std::chrono::steady_clock::now() + seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = c.Get("/metrics"); r && r->status == 200) {
      text = r->body;
      if (text.find(lost) != std::string::npos && text.find(verdict + ",model=\"\"} 3") != std::string::npos) break;
    }
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_NE(text.find(lost), std::string::npos) << text;
  EXPECT_NE(text.find(verdict + ",model=\"\"} 3"), std::string::npos) << text;
  EXPECT_NE(
      text.find(
          "gpudoctor_finding_active{id=\"gpu.lost\",severity=\"critical\",gpus=\"0000:02:00.0\",action=\"reboot_node\"} 1"),
      std::string::npos)
      << text;
  agent.Signal(SIGTERM);
  ASSERT_TRUE(WIFEXITED(agent.Wait(seconds(15))));
  json doc = Report();
  EXPECT_EQ(EventsOf(doc, "gpu_lost"), 1u) << doc["events"].dump(1);
}

TEST_F(AgentCrash, EveryXidCountedOnceNoneDropped) {
  // The kernel log gets GPU 0's Xid 48 once the agent has loaded NVML (the
  // fake marks that moment), stamped then; NVML delivers the same one 0.3 s
  // after it was loaded, and another Xid 48 five seconds later. The two
  // paths' copies are one Xid when they are at most 3 s apart, so however
  // slowly the agent starts there are two Xids, never three.
  const long long btime_s = static_cast<long long>(std::time(nullptr)) - 1000;
  root_.Write("proc/stat",
              "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime " + std::to_string(btime_s) + "\n");
  const std::string kmsg = root_.Write("dev/kmsg", "");
  const std::string scenario = Scenario(
      "xids.json", R"({"gpus": [{"faults": [{"kind": "xid", "code": 48, "at_s": 0.3},
                                            {"kind": "xid", "code": 48, "at_s": 5.3}]}, {}]})");
  std::vector<std::string> args = Args("8s");
  args.erase(std::find(args.begin(), args.end(), "--no-kernel-log"));
  const std::string mark = (scenarios_.path() / "nvml-initialised").string();
  auto env = FakeNvmlEnv(scenario);
  env["FAKE_NVML_INIT_MARK"] = mark;
  BackgroundProcess agent(GpudoctorArgv(args), env, Log());
  ASSERT_TRUE(agent.started());
  ASSERT_TRUE(WaitUntil([&] { return std::filesystem::exists(mark); }, seconds(120)))
      << FileText(Log());
  const auto since_boot = std::chrono::system_clock::now().time_since_epoch() -
                          std::chrono::seconds(btime_s);
  const long long monotonic_us =
      std::chrono::duration_cast<std::chrono::microseconds>(since_boot).count();
  {
    std::ofstream out(kmsg, std::ios::app);
    out << "4,2," << monotonic_us
        << ",-;NVRM: Xid (PCI:0000:01:00): 48, pid=4242, name=python3, An uncorrectable double "
           "bit error (DBE) has been detected on GPU in the framebuffer\n";
  }
  const int status = agent.Wait(seconds(180));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << FileText(Log());
  json doc = Report();
  EXPECT_EQ(EventsOf(doc, "xid", 48), 2u) << doc["events"].dump(1);
}

}  // namespace agent_crash_e2e
}  // namespace gpudoctor::test
