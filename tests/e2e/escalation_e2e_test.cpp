// End-to-end, the whole way from finding to fixed: Xid 79 on GPU 0, the
// node reboots (a new boot_id under --root) and it comes back, twice: the
// first two boots recommend a reboot, the third latches the GPU for
// hardware inspection. The latch survives an agent restart with a clean
// kernel log; `gpudoctor ack` (while the agent runs) clears it, /metrics
// follows, and the report keeps the audit: latched, acknowledged, by whom
// and why. The agent's API acknowledges only for an authenticated user.
#include <gtest/gtest.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/httplib_config.h"
#include "store/store.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace escalation_e2e_local {

using nlohmann::json;

const std::string kScenario = std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json";
constexpr const char* kGpu0 = "0000:18:00.0";

// The rules window is long (60 s): on a slow machine (ASan) the agent's
// first evaluation may come seconds after the Xid was written.
// A boot of the node: its boot_id, a boot time 1000 s ago, and a kernel log
// with (or without) an Xid 79 on GPU 0 half a second ago.
void Boot(const TempDir& root, const std::string& boot_id, bool xid) {
  const auto now = static_cast<long long>(std::time(nullptr));
  root.Write("proc/stat",
             "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime " + std::to_string(now - 1000) + "\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  root.Write("proc/sys/kernel/random/boot_id", boot_id + "\n");
  root.Write("dev/kmsg", std::string("6,1,1000,-;Linux version 6.1.0\n") +
                             (xid ? "3,2,999500000,-;NVRM: Xid (PCI:0000:18:00): 79, pid=0, "
                                    "name=python3, GPU has fallen off the bus.\n"
                                  : ""));
}

std::vector<std::string> AgentArgs(const TempDir& root, const TempDir& data, const TempDir& conf,
                                   const std::string& run_for, const std::string& listen = "") {
  std::vector<std::string> a = {"agent",
                                "--data-dir",
                                data.path().string(),
                                "--root",
                                root.path().string(),
                                "--interval",
                                "200ms",
                                "--window",
                                "60s",
                                "--evaluate-every",
                                "400ms",
                                "--facts-every",
                                "1h",
                                "--config",
                                (conf.path() / "c.toml").string(),
                                "--run-for",
                                run_for};
  if (listen.empty()) {
    a.emplace_back("--no-listen");
  } else {
    a.emplace_back("--listen");
    a.push_back(listen);
  }
  return a;
}

json Report(const TempDir& data) {
  auto r = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "1h", "--format",
                         "json", "--lang", "en"},
                        "");
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object()) << r.err << r.out.substr(0, 2000);
  return doc;
}

const json* FindingOf(const json& doc, const std::string& id) {
  if (!doc.is_object()) return nullptr;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) return &f;
  }
  return nullptr;
}

std::vector<std::string> Events(const json& doc, const std::string& kind) {
  std::vector<std::string> out;
  if (!doc.is_object()) return out;
  for (const auto& row : doc["timeline"]) {
    // "latched 79": the kind, then the Xid when there is one.
    if (row["type"] == "event" && row["event"].get<std::string>().rfind(kind, 0) == 0) {
      out.push_back(row["message"]);
    }
  }
  return out;
}

std::string Metrics(httplib::Client& c) {
  auto r = c.Get("/metrics");
  return r && r->status == 200 ? r->body : std::string();
}

// Waits (up to 15 s) until /metrics has `want` (true) or lacks it (false).
bool MetricsUntil(httplib::Client& c, const std::string& text, bool want) {
  for (int i = 0; i < 150; ++i) {
    if ((Metrics(c).find(text) != std::string::npos) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(EscalationE2E, Xid79AfterTwoRebootsLatchesUntilAcknowledged) {
  TempDir root, data, conf;
  // The three boots come seconds apart here: no dedup window beyond 1 s.
  conf.Write("c.toml", "[escalation]\ndedup = \"1s\"\n");
  const char* boots[] = {"6b1d0a0e-0000-4000-8000-0000000000a1",
                         "6b1d0a0e-0000-4000-8000-0000000000a2",
                         "6b1d0a0e-0000-4000-8000-0000000000a3"};
  for (int i = 0; i < 3; ++i) {
    Boot(root, boots[i], true);
    auto run = RunGpudoctor(AgentArgs(root, data, conf, "3s"), kScenario);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    json doc = Report(data);
    const json* xid = FindingOf(doc, "xid.fallen_off_bus");
    ASSERT_NE(xid, nullptr) << "boot " << i + 1 << ": " << doc["findings"].dump(1).substr(0, 2000);
    EXPECT_EQ((*xid)["recommended_action"], "reboot_node") << xid->dump();
    const json* latched = FindingOf(doc, "gpu.needs_inspection");
    if (i < 2) {
      EXPECT_EQ(latched, nullptr) << "boot " << i + 1 << ": not yet";
      EXPECT_EQ(doc["recommended_action"], "reboot_node") << "boot " << i + 1;
      continue;
    }
    ASSERT_NE(latched, nullptr) << "the third boot latches: " << run.err;
    EXPECT_EQ((*latched)["severity"], "critical");
    EXPECT_EQ((*latched)["recommended_action"], "hardware_inspection");
    EXPECT_NE((*latched)["title"].get<std::string>().find("failed again after 2 reboot(s)"),
              std::string::npos)
        << latched->dump();
    EXPECT_EQ(doc["recommended_action"], "hardware_inspection");
    auto events = Events(doc, "latched");
    ASSERT_EQ(events.size(), 1u) << doc["timeline"].dump(1);
    EXPECT_NE(events[0].find("GPU-00000000-0000-0000-0000-000000000000"), std::string::npos)
        << events[0];
    EXPECT_NE(run.err.find("latched for hardware inspection"), std::string::npos) << run.err;
  }

  // The agent starts again on the same boot, the kernel log clean: the
  // latch holds. `ack` while it runs clears it.
  Boot(root, boots[2], false);
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  BackgroundProcess agent(
      GpudoctorArgv(AgentArgs(root, data, conf, "60s", "127.0.0.1:" + std::to_string(port))),
      FakeNvmlEnv(kScenario), (data.path() / "agent.log").string());
  ASSERT_TRUE(agent.started());
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2);
  ASSERT_TRUE(MetricsUntil(c, "\ngpudoctor_latched_findings 1\n", true)) << Metrics(c);
  ASSERT_TRUE(MetricsUntil(c, "id=\"gpu.needs_inspection\"", true)) << Metrics(c);
  EXPECT_NE(Metrics(c).find("gpudoctor_latched_finding{pci_bus_id=\"0000:18:00.0\",uuid=\"GPU-"
                            "00000000-0000-0000-0000-000000000000\",cause=\"xid.fallen_off_bus\","
                            "xid=\"79\"} 1"),
            std::string::npos)
      << Metrics(c);

  // node-problem-detector's check sees it (the agent's state, written every 5 s).
  ProcessResult npd;
  for (int i = 0; i < 100; ++i) {
    npd = RunGpudoctor({"check", "--npd", "--data-dir", data.path().string()}, "");
    if (npd.exit_code == 1 && npd.out.find("gpu.needs_inspection") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(npd.exit_code, 1) << npd.out << npd.err;
  EXPECT_EQ(npd.out.rfind("gpu.needs_inspection: GPU 0 (0000:18:00.0)", 0), 0u) << npd.out;
  EXPECT_NE(npd.out.find("[action: hardware_inspection]"), std::string::npos) << npd.out;

  auto list = RunGpudoctor({"ack", "--list", "--data-dir", data.path().string()}, "");
  EXPECT_EQ(list.exit_code, 2) << list.err;
  EXPECT_NE(list.out.find("gpu.needs_inspection on GPU 0000:18:00.0"), std::string::npos)
      << list.out;
  auto listed = RunGpudoctor({"ack", "--list", "--json", "--data-dir", data.path().string()}, "");
  json latches = json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(latches.is_array()) << listed.out << listed.err;
  ASSERT_EQ(latches.size(), 1u);
  EXPECT_EQ(latches[0]["cause"], "xid.fallen_off_bus");
  EXPECT_EQ(latches[0]["xid"], 79);
  EXPECT_EQ(latches[0]["boots"], 3);
  auto no_reason = RunGpudoctor({"ack", "--data-dir", data.path().string(), "--gpu", "0"}, "");
  EXPECT_EQ(no_reason.exit_code, 3);
  EXPECT_NE(no_reason.err.find("--reason is required"), std::string::npos) << no_reason.err;
  auto wrong =
      RunGpudoctor({"ack", "--data-dir", data.path().string(), "--gpu", "1", "--reason", "x"}, "");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err;
  EXPECT_NE(wrong.err.find("no latched finding matches"), std::string::npos) << wrong.err;
  auto ack = RunGpudoctor({"ack", "gpu.needs_inspection", "--data-dir", data.path().string(),
                           "--gpu", kGpu0, "--reason", "board replaced, RMA 4711"},
                          "");
  ASSERT_EQ(ack.exit_code, 0) << ack.err;
  EXPECT_NE(ack.out.find("Acknowledged: gpu.needs_inspection on GPU 0000:18:00.0"),
            std::string::npos)
      << ack.out;
  EXPECT_TRUE(MetricsUntil(c, "\ngpudoctor_latched_findings 0\n", true)) << Metrics(c);
  EXPECT_TRUE(MetricsUntil(c, "id=\"gpu.needs_inspection\"", false)) << Metrics(c);
  // And the check clears with it.
  for (int i = 0; i < 100; ++i) {
    npd = RunGpudoctor({"check", "--npd", "--data-dir", data.path().string()}, "");
    if (npd.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(npd.exit_code, 0) << npd.out << npd.err;
  agent.Signal(SIGTERM);
  EXPECT_EQ(agent.Wait(std::chrono::seconds(20)), 0);

  json doc = Report(data);
  EXPECT_EQ(FindingOf(doc, "gpu.needs_inspection"), nullptr) << doc["findings"].dump(1);
  auto acks = Events(doc, "acknowledged");
  ASSERT_EQ(acks.size(), 1u) << doc["timeline"].dump(1);
  EXPECT_NE(acks[0].find("(via gpudoctor ack): board replaced, RMA 4711"), std::string::npos)
      << acks[0];
  // The finding's interval on the timeline ends (the history is kept).
  bool interval = false;
  for (const auto& row : doc["timeline"]) {
    if (row["type"] == "finding" && row["id"] == "gpu.needs_inspection") {
      interval = true;
      EXPECT_FALSE(row["end"].is_null()) << row.dump();
    }
  }
  EXPECT_TRUE(interval) << doc["timeline"].dump(1);
}

// bcrypt (cost 4) of "secret".
constexpr const char* kSecret = "$2b$04$smeUNCKiNpiDxKXLuDQY8evkDebDzcQZHVF6AHnF.RtW9kVO9JZi2";

TEST(EscalationE2E, TheApiAcknowledgesForAnAuthenticatedUserOnly) {
  TempDir data, conf;
  {
    StoreOptions o;
    o.data_dir = data.path().string();
    auto store = Store::Open(o);
    ASSERT_TRUE(store.ok()) << store.error().message;
    LatchedFinding l;
    l.finding_id = "xid.fallen_off_bus";
    l.xid = 79;
    l.gpu = kGpu0;
    l.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    l.boots = 3;
    l.after_reboots = 2;
    l.first_seen = std::chrono::system_clock::now() - std::chrono::hours(5);
    l.since = std::chrono::system_clock::now() - std::chrono::hours(1);
    ASSERT_TRUE(*(*store)->Latch(l));
  }
  auto start = [&](int port, const std::string& web) {
    std::vector<std::string> args = {"agent",
                                     "--data-dir",
                                     data.path().string(),
                                     "--interval",
                                     "200ms",
                                     "--no-kernel-log",
                                     "--evaluate-every",
                                     "400ms",
                                     "--run-for",
                                     "60s",
                                     "--listen",
                                     "127.0.0.1:" + std::to_string(port)};
    if (!web.empty()) {
      args.emplace_back("--web-config");
      args.push_back(web);
    }
    return std::make_unique<BackgroundProcess>(GpudoctorArgv(args), FakeNvmlEnv(kScenario),
                                               (data.path() / "agent.log").string());
  };
  const std::string query = "/api/v1/ack?gpu=0000:18:00.0&reason=reseated%20the%20board";
  {
    // Without users in a web config, nobody can be named: refused.
    BoundPort free_port;
    const int port = free_port.port;
    free_port.Close();
    auto agent = start(port, "");
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(10);
    ASSERT_TRUE(MetricsUntil(c, "gpudoctor_latched_findings 1", true));
    auto r = c.Post(query);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << r->body;
    EXPECT_NE(r->body.find("basic_auth_users"), std::string::npos) << r->body;
    agent->Signal(SIGTERM);
    EXPECT_EQ(agent->Wait(std::chrono::seconds(20)), 0);
  }
  BoundPort free_port;
  const int port = free_port.port;
  free_port.Close();
  auto agent = start(
      port, conf.Write("web.yml", std::string("basic_auth_users:\n  alice: ") + kSecret + "\n"));
  httplib::Client anonymous("127.0.0.1", port);
  anonymous.set_read_timeout(10);
  for (int i = 0; i < 100; ++i) {
    auto h = anonymous.Get("/healthz");
    if (h && h->status == 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto unauthenticated = anonymous.Post(query);
  ASSERT_TRUE(unauthenticated);
  EXPECT_EQ(unauthenticated->status, 401);
  httplib::Client alice("127.0.0.1", port);
  alice.set_read_timeout(10);
  alice.set_basic_auth("alice", "secret");
  auto get = alice.Get(query);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  auto with_body = alice.Post(query, "reason=x", "application/x-www-form-urlencoded");
  ASSERT_TRUE(with_body);
  EXPECT_EQ(with_body->status, 400) << with_body->body;
  auto no_reason = alice.Post("/api/v1/ack?gpu=0");
  ASSERT_TRUE(no_reason);
  EXPECT_EQ(no_reason->status, 400) << no_reason->body;
  auto other = alice.Post("/api/v1/ack?gpu=1&reason=x");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404) << other->body;
  auto acked = alice.Post(query);
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->status, 200) << acked->body;
  json doc = json::parse(acked->body, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << acked->body;
  EXPECT_EQ(doc["acknowledged_by"], "alice");
  ASSERT_EQ(doc["acknowledged"].size(), 1u);
  EXPECT_EQ(doc["acknowledged"][0]["pci_bus_id"], kGpu0);
  EXPECT_EQ(doc["acknowledged"][0]["xid"], 79);
  agent->Signal(SIGTERM);
  EXPECT_EQ(agent->Wait(std::chrono::seconds(20)), 0);
  auto report = Report(data);
  auto acks = Events(report, "acknowledged");
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_NE(acks[0].find("alice acknowledged gpu.needs_inspection on GPU 0000:18:00.0"),
            std::string::npos)
      << acks[0];
  EXPECT_NE(acks[0].find("(via the agent's API): reseated the board"), std::string::npos)
      << acks[0];
}

}  // namespace escalation_e2e_local
}  // namespace
}  // namespace gpudoctor::test
