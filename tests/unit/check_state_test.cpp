// check's reading of the agent's state file: required fields, freshness by
// age and by pid, malformed and missing files.
#include "check/check_state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

const WallTime kNow =
    std::chrono::sys_days{std::chrono::year{2026} / 11 / 30} + std::chrono::hours{1};

json Gpu(unsigned index, const char* bus, const char* state, const char* detail) {
  return json{{"index", index}, {"pci_bus_id", bus}, {"uuid", "GPU-" + std::to_string(index)},
              {"name", "H100"}, {"state", state},    {"state_detail", detail}};
}

json StateJson(WallTime last_sample) {
  return json{
      {"schema", "gpudoctor.agent-state/v1"},
      {"pid", 4242},
      {"started_at", FormatRfc3339(kNow - std::chrono::hours{1})},
      {"last_sample_at", FormatRfc3339(last_sample)},
      {"interval_ms", 1000},
      {"nvml_loaded", true},
      {"nvml_error", ""},
      {"verdict", "critical"},
      {"gpus", json::array({Gpu(0, "0000:18:00.0", "ok", ""),
                            Gpu(1, "0000:19:00.0", "lost", "GPU is lost")})},
      {"active_findings", json::array({json{{"id", "gpu.lost"},
                                            {"severity", "critical"},
                                            {"gpus", json::array({"0000:19:00.0"})},
                                            {"title", "GPU 1 is lost"},
                                            {"since", FormatRfc3339(kNow - seconds{30})}}})}};
}

FreshnessPolicy Policy(bool alive = true) {
  FreshnessPolicy p;
  p.now = kNow;
  p.pid_alive = [alive](int pid) { return alive && pid == 4242; };
  return p;
}

TEST(CheckState, ParsesEveryField) {
  auto s = ParseAgentState(StateJson(kNow - seconds{2}).dump());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->pid, 4242);
  EXPECT_EQ(s->interval_ms, 1000);
  EXPECT_TRUE(s->nvml_loaded);
  EXPECT_EQ(s->last_sample_at, kNow - seconds{2});
  ASSERT_EQ(s->gpus.size(), 2u);
  EXPECT_EQ(s->gpus[1].pci_bus_id, "0000:19:00.0");
  EXPECT_EQ(s->gpus[1].state, "lost");
  EXPECT_EQ(s->gpus[1].state_detail, "GPU is lost");
  ASSERT_EQ(s->findings.size(), 1u);
  EXPECT_EQ(s->findings[0].id, "gpu.lost");
  EXPECT_EQ(s->findings[0].severity, Severity::kCritical);
  EXPECT_EQ(s->findings[0].gpus, std::vector<std::string>{"0000:19:00.0"});
  EXPECT_EQ(s->findings[0].title, "GPU 1 is lost");
  EXPECT_EQ(s->findings[0].recommended, RecoveryAction::kNone);  // an agent that did not say
}

TEST(CheckState, ReadsTheRecoveryActionAndRefusesAnUnknownOne) {
  json j = StateJson(kNow - seconds{2});
  j["active_findings"][0]["recommended_action"] = "reboot_node";
  auto s = ParseAgentState(j.dump());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->findings[0].recommended, RecoveryAction::kRebootNode);
  j["active_findings"][0]["recommended_action"] = "pray";
  auto bad = ParseAgentState(j.dump());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("active_findings[0].recommended_action 'pray' unknown"),
            std::string::npos)
      << bad.error().message;
}

TEST(CheckState, FreshWithinThreeIntervalsOrFifteenSeconds) {
  auto s = ParseAgentState(StateJson(kNow - seconds{14}).dump());
  ASSERT_TRUE(s);
  EXPECT_TRUE(CheckFreshness(*s, Policy()));
  s->last_sample_at = kNow - seconds{16};
  auto stale = CheckFreshness(*s, Policy());
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().message, "last sample 16 s ago (limit 15 s)");
  // A slow agent (10 s interval) is trusted for three of its intervals.
  s->interval_ms = 10000;
  s->last_sample_at = kNow - seconds{29};
  EXPECT_TRUE(CheckFreshness(*s, Policy()));
  s->last_sample_at = kNow - seconds{31};
  EXPECT_FALSE(CheckFreshness(*s, Policy()));
}

TEST(CheckState, MaxAgeOverridesTheDefault) {
  auto s = ParseAgentState(StateJson(kNow - seconds{10}).dump());
  ASSERT_TRUE(s);
  auto p = Policy();
  p.max_age = milliseconds{5000};
  auto r = CheckFreshness(*s, p);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("limit 5 s"), std::string::npos) << r.error().message;
  p.max_age = milliseconds{60000};
  EXPECT_TRUE(CheckFreshness(*s, p));
}

TEST(CheckState, DeadPidIsNotTrusted) {
  auto s = ParseAgentState(StateJson(kNow - seconds{1}).dump());
  ASSERT_TRUE(s);
  auto r = CheckFreshness(*s, Policy(false));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "agent pid 4242 is not running");
}

TEST(CheckState, ProcessAliveAsksTheKernel) {
  EXPECT_TRUE(ProcessAlive(::getpid()));
  EXPECT_FALSE(ProcessAlive(0));
  EXPECT_FALSE(ProcessAlive(-5));
}

TEST(CheckState, MalformedOrIncompleteFilesAreRejected) {
  EXPECT_FALSE(ParseAgentState("{not json"));
  EXPECT_FALSE(ParseAgentState("[1, 2]"));
  const std::vector<std::pair<std::string, std::string>> removals = {
      {"pid", "pid"},
      {"last_sample_at", "last_sample_at"},
      {"interval_ms", "interval_ms"},
      {"nvml_loaded", "nvml_loaded"},
      {"gpus", "gpus"},
      {"active_findings", "active_findings"}};
  for (const auto& [key, named] : removals) {
    json j = StateJson(kNow);
    j.erase(key);
    auto r = ParseAgentState(j.dump());
    ASSERT_FALSE(r) << key;
    EXPECT_EQ(r.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(r.error().message.find(named), std::string::npos) << r.error().message;
  }
  // A pid or GPU index past what Linux or any machine has is not truncated into a real one.
  json huge_pid = StateJson(kNow);
  huge_pid["pid"] = (1LL << 32) + 4242;
  EXPECT_FALSE(ParseAgentState(huge_pid.dump()));
  json huge_index = StateJson(kNow);
  huge_index["gpus"][1]["index"] = (1LL << 32) + 1;
  EXPECT_FALSE(ParseAgentState(huge_index.dump()));
  json never_sampled = StateJson(kNow);
  never_sampled["last_sample_at"] = nullptr;
  EXPECT_FALSE(ParseAgentState(never_sampled.dump()));
  never_sampled["written_at"] = FormatRfc3339(kNow);  // NVML loaded: it should have sampled
  EXPECT_FALSE(ParseAgentState(never_sampled.dump()));
  json bad_time = StateJson(kNow);
  bad_time["last_sample_at"] = "yesterday";
  EXPECT_FALSE(ParseAgentState(bad_time.dump()));
  json bad_gpu = StateJson(kNow);
  bad_gpu["gpus"][1].erase("pci_bus_id");
  auto g = ParseAgentState(bad_gpu.dump());
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("gpus[1].pci_bus_id"), std::string::npos) << g.error().message;
  json bad_severity = StateJson(kNow);
  bad_severity["active_findings"][0]["severity"] = "dire";
  auto f = ParseAgentState(bad_severity.dump());
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("active_findings[0].severity"), std::string::npos);
}

TEST(CheckState, LoadNamesTheFileAndTellsMissingApart) {
  test::TempDir dir;
  auto missing = LoadFreshAgentState((dir.path() / "agent-state.json").string(), Policy());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  std::string bad = dir.Write("bad.json", "{}");
  auto r = LoadFreshAgentState(bad, Policy());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kCorrupt);
  EXPECT_EQ(r.error().message.rfind(bad + ": ", 0), 0u) << r.error().message;
  std::string good = dir.Write("good.json", StateJson(kNow - seconds{3}).dump());
  auto ok = LoadFreshAgentState(good, Policy());
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->gpus.size(), 2u);
}

}  // namespace
// An agent running without NVML never samples; its state is not malformed:
// check answers "unknown" from it, as fresh as the agent wrote it.
TEST(CheckState, AgentWithoutNvmlIsNotMalformed) {
  json j = StateJson(kNow);
  j["last_sample_at"] = nullptr;
  j["written_at"] = FormatRfc3339(kNow - seconds{2});
  j["nvml_loaded"] = false;
  j["nvml_error"] = "cannot load libnvidia-ml.so.1";
  j["gpus"] = json::array();
  j["active_findings"] = json::array();
  auto s = ParseAgentState(j.dump());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE(s->nvml_loaded);
  EXPECT_EQ(s->nvml_error, "cannot load libnvidia-ml.so.1");
  EXPECT_TRUE(CheckFreshness(*s, Policy()));
  j["written_at"] = FormatRfc3339(kNow - seconds{600});
  EXPECT_FALSE(CheckFreshness(*ParseAgentState(j.dump()), Policy()));
}

}  // namespace gpudoctor
