// fix --reset-gpu's preconditions (fix/reset_plan.h) and its run
// (fix/reset_run.h) with a scripted nvidia-smi: each obstacle blocks with
// what to do; persistence is turned off and restored in every path, a
// refused reset included; a GPU that does not come back, comes back in error
// or still asks for a recovery is a failure; the anti-storm limit turns the
// advice to support.
#include <gtest/gtest.h>

#include <map>

#include "fix/audit_log.h"
#include "fix/reset_plan.h"
#include "fix/reset_run.h"
#include "support/rule_testing.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {
namespace reset_plan_local {

GpuStatus Gpu() {
  GpuStatus g = testing::HealthyGpu(0);
  g.processes = std::vector<GpuProcess>{};
  g.persistence_mode = true;
  g.mig_mode_enabled = false;
  return g;
}

const ResetCheck* Check(const ResetPlan& p, const std::string& name) {
  for (const auto& c : p.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(ResetPlan, AnIdleGpuResetsWithPersistenceTurnedOffAndBack) {
  ResetFacts f;
  f.gpu = Gpu();
  ResetPlan p = PlanReset(f);
  EXPECT_FALSE(p.blocked);
  EXPECT_TRUE(p.persistence_on);
  ASSERT_NE(Check(p, "persistence"), nullptr);
  EXPECT_EQ(Check(p, "persistence")->state, CheckState::kNote);
  const std::string bus = f.gpu.pci_bus_id;
  EXPECT_EQ(ResetCommands(p, "nvidia-smi"),
            (std::vector<std::vector<std::string>>{{"nvidia-smi", "-i", bus, "-pm", "0"},
                                                   {"nvidia-smi", "--gpu-reset", "-i", bus},
                                                   {"nvidia-smi", "-i", bus, "-pm", "1"}}));
  f.gpu.persistence_mode = false;
  EXPECT_EQ(ResetCommands(PlanReset(f), "nvidia-smi").size(), 1u);
}

TEST(ResetPlan, EachObstacleBlocksAndSaysWhatToDo) {
  ResetFacts busy;
  busy.gpu = Gpu();
  GpuProcess p(4242, "python3", 1 << 30);
  p.pod_namespace = "ml";
  p.pod_name = "train-0";
  busy.gpu.processes = std::vector<GpuProcess>{p};
  const ResetPlan b = PlanReset(busy);
  EXPECT_TRUE(b.blocked);
  EXPECT_EQ(Check(b, "processes")->state, CheckState::kBlocks);
  EXPECT_NE(Check(b, "processes")->detail.find("pid 4242 python3 (pod ml/train-0)"),
            std::string::npos)
      << Check(b, "processes")->detail;

  ResetFacts mig;
  mig.gpu = Gpu();
  mig.gpu.mig_mode_enabled = true;
  mig.gpu.mig_devices.resize(2);
  EXPECT_EQ(Check(PlanReset(mig), "mig")->state, CheckState::kBlocks);
  mig.gpu.mig_devices.clear();
  EXPECT_EQ(Check(PlanReset(mig), "mig")->state, CheckState::kOk);

  ResetFacts volta;
  volta.gpu = Gpu();
  volta.gpu.name = "Tesla V100-SXM2-32GB";
  NvLinkStatus link;
  link.active = true;
  volta.gpu.nvlinks = {link};
  EXPECT_EQ(Check(PlanReset(volta), "nvlink_group")->state, CheckState::kBlocks);
  volta.gpu.nvlinks[0].active = false;  // a PCIe V100: resets alone
  EXPECT_EQ(Check(PlanReset(volta), "nvlink_group")->state, CheckState::kOk);

  ResetFacts a100;
  a100.gpu = Gpu();
  a100.gpu.name = "NVIDIA A100-SXM4-80GB";
  a100.nvswitch_system = true;
  EXPECT_EQ(Check(PlanReset(a100), "fabric_manager")->state, CheckState::kBlocks);
  a100.fabric_manager_running = true;
  EXPECT_EQ(Check(PlanReset(a100), "fabric_manager")->state, CheckState::kOk);
  a100.nvswitch_system = false;
  EXPECT_EQ(Check(PlanReset(a100), "fabric_manager"), nullptr) << "no NVSwitch: not asked";

  ResetFacts held;
  held.gpu = Gpu();
  held.holders = {NamedProcess{77, "nv-hostengine"}};
  const ResetPlan h = PlanReset(held);
  EXPECT_TRUE(h.blocked);
  EXPECT_NE(Check(h, "holders")->detail.find("nv-hostengine (pid 77)"), std::string::npos);
  EXPECT_EQ(h.instead, RecoveryAction::kRebootNode);
}

TEST(ResetPlan, PastTheAntiStormLimitSupportInsteadOfAnotherReset) {
  ResetFacts f;
  f.gpu = Gpu();
  f.recent_recoveries = 2;
  EXPECT_FALSE(PlanReset(f).blocked);
  f.recent_recoveries = 3;
  const ResetPlan p = PlanReset(f);
  EXPECT_TRUE(p.blocked);
  EXPECT_EQ(p.instead, RecoveryAction::kContactProvider);
  EXPECT_NE(Check(p, "recent_recoveries")
                ->detail.find("3 GPU reset(s) and reboot(s) of this node "
                              "in the last 24 h (limit 3)"),
            std::string::npos);
  f.max_recoveries = 0;  // no limit
  EXPECT_FALSE(PlanReset(f).blocked);
}

// A scripted nvidia-smi: the exit status per command (by its flag), and the
// commands it was given.
struct FakeSmi {
  std::map<std::string, int> exit;  // "-pm 0", "--gpu-reset", "-pm 1"
  std::vector<std::string> calls;
  RunCommand Runner() {
    return [this](const std::vector<std::string>& argv) {
      const std::string key = argv[1] == "--gpu-reset" ? "--gpu-reset" : argv[3] + " " + argv[4];
      calls.push_back(key);
      const int code = exit.contains(key) ? exit[key] : 0;
      return CommandResult{code, code == 0 ? "ok\n"
                                           : "Unable to reset GPU: In use by another "
                                             "client\n"};
    };
  }
};

ReadBack Returns(const std::optional<GpuStatus>& g) {
  return [g](const std::string&) { return g; };
}

TEST(ResetRun, ARefusedResetStillRestoresPersistence) {
  ResetFacts f;
  f.gpu = Gpu();
  const ResetPlan plan = PlanReset(f);
  FakeSmi smi;
  smi.exit["--gpu-reset"] = 255;
  ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(f.gpu));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(smi.calls, (std::vector<std::string>{"-pm 0", "--gpu-reset", "-pm 1"}));
  EXPECT_EQ(r.persistence_restored, true);
  EXPECT_EQ(r.verdict,
            "the reset failed (exit 255: Unable to reset GPU: In use by another client)");
}

TEST(ResetRun, SuccessFailuresAfterTheResetAndAFailedRestore) {
  ResetFacts f;
  f.gpu = Gpu();
  const ResetPlan plan = PlanReset(f);
  {
    FakeSmi smi;
    ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(f.gpu));
    EXPECT_TRUE(r.ok()) << r.verdict;
    EXPECT_EQ(r.verdict, "the GPU was reset and answers again");
  }
  {
    FakeSmi smi;
    smi.exit["-pm 0"] = 3;  // persistence cannot be turned off: no reset at all
    ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(f.gpu));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(smi.calls, std::vector<std::string>{"-pm 0"});
    EXPECT_FALSE(r.reset_done);
  }
  {
    FakeSmi smi;
    ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(std::nullopt));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.verdict.find("the GPU did not come back"), std::string::npos) << r.verdict;
    EXPECT_EQ(smi.calls.back(), "-pm 1") << "restored before the GPU is read back";
  }
  {
    GpuStatus lost = f.gpu;
    lost.state = GpuState::kLost;
    lost.state_detail = "GPU is lost";
    FakeSmi smi;
    ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(lost));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.verdict, "the GPU came back in error: GPU is lost");
  }
  {
    GpuStatus asks = f.gpu;
    asks.recovery_action = 2;
    FakeSmi smi;
    ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(asks));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.verdict.find("still asks for a recovery (recovery action 2)"), std::string::npos);
  }
  {
    FakeSmi smi;
    smi.exit["-pm 1"] = 1;
    ResetRun r = RunReset(plan, f.gpu, "nvidia-smi", smi.Runner(), Returns(f.gpu));
    EXPECT_FALSE(r.ok()) << "persistence left off is not done";
    EXPECT_EQ(r.persistence_restored, false);
    EXPECT_NE(r.verdict.find("persistence mode could not be turned back on"), std::string::npos);
  }
}

TEST(ResetRun, TheAuditLogCountsResetsInThePeriod) {
  test::TempDir dir;
  EXPECT_EQ(CountAuditSteps(dir.path().string(), "gpu_reset", WallTime{}), 0) << "no log";
  dir.Write("fix-audit.log",
            "{\"time\":\"2026-12-07T08:00:00Z\",\"step\":\"gpu_reset\"}\n"
            "{\"time\":\"2026-12-07T09:00:00Z\",\"step\":\"power_limit\"}\n"
            "not json\n"
            "{\"time\":\"2026-12-07T10:00:00Z\",\"step\":\"gpu_reset\"}\n"
            "{\"time\":\"2026-12-05T10:00:00Z\",\"step\":\"gpu_reset\"}\n");
  const WallTime since = WallTime(std::chrono::seconds(1796630400));  // 2026-12-07T08:00:00Z
  EXPECT_EQ(CountAuditSteps(dir.path().string(), "gpu_reset", since), 2);
}

}  // namespace reset_plan_local
}  // namespace
}  // namespace gpudoctor
