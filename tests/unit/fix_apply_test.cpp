// Applying a fix plan through a controller: order, audit entries, a failing
// step stopping the run, and the comparison with a later diagnosis. Also the
// audit log's line format and file.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fix/apply.h"
#include "fix/audit_log.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

struct Call {
  std::string bus;
  GpuSetting::Kind kind;
  std::uint32_t power_limit_mw;
};

class RecordingController : public GpuController {
 public:
  Status Apply(const std::string& bus, const GpuSetting& s) override {
    calls.push_back(Call{bus, s.kind, s.power_limit_mw});
    if (fail_kind && *fail_kind == s.kind) {
      return Error{ErrorCode::kPermission,
                   "nvmlDeviceSetPowerManagementLimit on GPU 0: Insufficient Permissions"};
    }
    return OkStatus();
  }
  std::vector<Call> calls;
  std::optional<GpuSetting::Kind> fail_kind;
};

class MemoryAudit : public AuditSink {
 public:
  Status Record(const AuditEntry& e) override {
    entries.push_back(e);
    return OkStatus();
  }
  std::vector<AuditEntry> entries;
};

FixStep Automatic(StepAction action, GpuSetting::Kind kind, const std::string& field,
                  const std::string& before, const std::string& target) {
  FixStep s;
  s.action = action;
  s.automatic = true;
  s.finding_id = "config." + field;
  s.gpu_index = 0;
  s.pci_bus_id = "0000:18:00.0";
  s.uuid = "GPU-0";
  s.field = field;
  s.before = before;
  s.target = target;
  s.setting.kind = kind;
  if (kind == GpuSetting::Kind::kPowerLimit) s.setting.power_limit_mw = 300000;
  return s;
}

FixPlan ThreeSteps() {
  FixPlan plan;
  plan.steps.push_back(Automatic(StepAction::kPersistenceModeOn, GpuSetting::Kind::kPersistenceMode,
                                 "persistence_mode", "off", "on"));
  plan.steps.push_back(Automatic(StepAction::kPowerLimit, GpuSetting::Kind::kPowerLimit,
                                 "power_limit_w", "250 W", "300 W"));
  plan.steps.push_back(Automatic(StepAction::kComputeModeDefault, GpuSetting::Kind::kComputeMode,
                                 "compute_mode", "Prohibited", "Default"));
  FixStep reset;
  reset.action = StepAction::kGpuReset;
  reset.pci_bus_id = "0000:18:00.0";
  plan.steps.push_back(reset);
  return plan;
}

ApplyEnv Env(GpuController& c, AuditSink& a) {
  return ApplyEnv{&c, &a, "node-7", [] { return WallTime(std::chrono::seconds(1700000000)); }};
}

TEST(FixApply, AppliesEveryStepInOrderAndAuditsEach) {
  RecordingController control;
  MemoryAudit audit;
  FixPlan plan = ThreeSteps();
  auto results = ApplyPlan(plan, Env(control, audit));
  ASSERT_EQ(control.calls.size(), 3u);
  EXPECT_EQ(control.calls[0].kind, GpuSetting::Kind::kPersistenceMode);
  EXPECT_EQ(control.calls[1].power_limit_mw, 300000u);
  EXPECT_EQ(control.calls[2].bus, "0000:18:00.0");
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].outcome, StepOutcome::kApplied);
  EXPECT_EQ(results[3].outcome, StepOutcome::kManual);
  EXPECT_FALSE(AnyFailedOrSkipped(results));
  ASSERT_EQ(audit.entries.size(), 3u);
  EXPECT_EQ(audit.entries[1].before, "250 W");
  EXPECT_EQ(audit.entries[1].after, "300 W");
  EXPECT_EQ(audit.entries[1].result, "ok");
  EXPECT_EQ(audit.entries[1].step, "power_limit");
  EXPECT_EQ(audit.entries[1].host, "node-7");
}

TEST(FixApply, AFailingStepStopsTheLaterOnes) {
  RecordingController control;
  control.fail_kind = GpuSetting::Kind::kPowerLimit;
  MemoryAudit audit;
  FixPlan plan = ThreeSteps();
  auto results = ApplyPlan(plan, Env(control, audit));
  EXPECT_EQ(control.calls.size(), 2u);  // compute mode never called
  EXPECT_EQ(results[0].outcome, StepOutcome::kApplied);
  EXPECT_EQ(results[1].outcome, StepOutcome::kFailed);
  EXPECT_NE(results[1].error.find("Insufficient Permissions"), std::string::npos);
  EXPECT_EQ(results[2].outcome, StepOutcome::kNotRun);
  EXPECT_TRUE(AnyFailedOrSkipped(results));
  ASSERT_EQ(audit.entries.size(), 2u);
  EXPECT_EQ(audit.entries[1].after, "250 W");  // unchanged
  EXPECT_EQ(audit.entries[1].result.rfind("failed: ", 0), 0u) << audit.entries[1].result;
}

TEST(FixApply, SkippedStepsAreNotCalledAndCount) {
  RecordingController control;
  MemoryAudit audit;
  FixPlan plan = ThreeSteps();
  plan.steps[0].skipped = true;
  auto results = ApplyPlan(plan, Env(control, audit));
  EXPECT_EQ(control.calls.size(), 2u);
  EXPECT_EQ(results[0].outcome, StepOutcome::kSkipped);
  EXPECT_EQ(results[1].outcome, StepOutcome::kApplied);
  EXPECT_TRUE(AnyFailedOrSkipped(results));
  EXPECT_EQ(audit.entries.size(), 2u);
}

TEST(FixApply, CompareAfterReadsValuesAndFindings) {
  RecordingController control;
  MemoryAudit audit;
  FixPlan plan = ThreeSteps();
  auto results = ApplyPlan(plan, Env(control, audit));
  GpuStatus after;
  after.pci_bus_id = "0000:18:00.0";
  after.persistence_mode = true;
  after.power_limit_w = 300;
  after.compute_mode = "Prohibited";
  Finding still;
  still.id = "config.compute_mode";
  still.gpus = {"0000:18:00.0"};
  Finding other_gpu;
  other_gpu.id = "config.persistence_mode";
  other_gpu.gpus = {"0000:19:00.0"};
  CompareAfter(plan, {after}, {still, other_gpu}, results);
  EXPECT_EQ(results[0].after, "on");
  EXPECT_EQ(results[0].finding_gone, true);
  EXPECT_EQ(results[1].after, "300 W");
  EXPECT_EQ(results[2].after, "Prohibited");
  EXPECT_EQ(results[2].finding_gone, false);
  EXPECT_FALSE(results[3].finding_gone.has_value());
}

TEST(FixAudit, LineIsOneJsonObjectWithEveryField) {
  AuditEntry e;
  e.time = WallTime(std::chrono::seconds(1700000000));
  e.host = "node-7";
  e.gpu_index = 0;
  e.pci_bus_id = "0000:18:00.0";
  e.uuid = "GPU-0";
  e.step = "power_limit";
  e.finding_id = "config.power_limit";
  e.field = "power_limit_w";
  e.before = "250 W";
  e.after = "300 W";
  e.result = "ok";
  std::string line = AuditLine(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["time"].get<std::string>().substr(0, 9), "2023-11-1");
  EXPECT_EQ(j["gpu"], 0);
  EXPECT_EQ(j["pci_bus_id"], "0000:18:00.0");
  EXPECT_EQ(j["uuid"], "GPU-0");
  EXPECT_EQ(j["finding"], "config.power_limit");
  EXPECT_EQ(j["before"], "250 W");
  EXPECT_EQ(j["after"], "300 W");
  EXPECT_EQ(j["result"], "ok");
}

TEST(FixAudit, FileAppendsOneLinePerRecord) {
  test::TempDir dir;
  dir.Write("fix-audit.log", "{\"earlier\":true}\n");
  auto log = AuditLogFile::Open(dir.path().string());
  ASSERT_TRUE(log.ok()) << log.error().message;
  AuditEntry e;
  e.step = "persistence_mode_on";
  ASSERT_TRUE((*log)->Record(e).ok());
  ASSERT_TRUE((*log)->Record(e).ok());
  std::ifstream in(dir.path() / "fix-audit.log");
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["step"], "persistence_mode_on");
}

TEST(FixAudit, UnwritableDirectoryIsAnErrorNamingTheFile) {
  auto log = AuditLogFile::Open("/nonexistent-gpudoctor-dir");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("/nonexistent-gpudoctor-dir/fix-audit.log"),
            std::string::npos);
}

}  // namespace
}  // namespace gpudoctor
