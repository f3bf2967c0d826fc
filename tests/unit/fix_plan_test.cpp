// The fix plan: which step each finding gets, from the GPUs' state now;
// power-limit bounds; processes and --force; GPU selection.
#include <gtest/gtest.h>

#include "fix/plan.h"

namespace gpudoctor {
namespace {

GpuStatus Misconfigured(unsigned index) {
  GpuStatus g;
  g.index = index;
  g.uuid = "GPU-" + std::to_string(index);
  g.pci_bus_id = "0000:1" + std::to_string(index) + ":00.0";
  g.persistence_mode = false;
  g.power_limit_w = 250;
  g.power_default_limit_w = 300;
  g.power_min_limit_w = 100;
  g.power_max_limit_w = 350;
  g.clocks_applications_graphics_mhz = 1200;
  g.clocks_applications_memory_mhz = 2619;
  g.clocks_default_applications_graphics_mhz = 1755;
  g.clocks_default_applications_memory_mhz = 2619;
  g.compute_mode = "Prohibited";
  g.processes = std::vector<GpuProcess>{};
  return g;
}

Finding On(const std::string& id, std::vector<std::string> gpus) {
  Finding f;
  f.id = id;
  f.gpus = std::move(gpus);
  return f;
}

FixPlan Build(const std::vector<Finding>& findings, const std::vector<GpuStatus>& gpus,
              const PlanOptions& options = {}) {
  auto plan = BuildFixPlan(findings, gpus, options);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().message);
  return plan.ok() ? *plan : FixPlan{};
}

TEST(FixPlan, ConfigFindingsGiveTheSettersWithValuesAndCommands) {
  GpuStatus g = Misconfigured(0);
  FixPlan plan = Build(
      {On("config.persistence_mode", {g.pci_bus_id}), On("config.power_limit", {g.pci_bus_id}),
       On("config.application_clocks", {g.pci_bus_id}), On("config.compute_mode", {g.pci_bus_id})},
      {g});
  ASSERT_EQ(plan.steps.size(), 4u);
  const FixStep& pm = plan.steps[0];
  EXPECT_EQ(pm.action, StepAction::kPersistenceModeOn);
  EXPECT_TRUE(pm.automatic);
  EXPECT_EQ(pm.command, "nvidia-smi -i 0 -pm 1");
  EXPECT_EQ(pm.before, "off");
  EXPECT_EQ(pm.target, "on");
  EXPECT_EQ(pm.setting.kind, GpuSetting::Kind::kPersistenceMode);
  EXPECT_TRUE(pm.setting.enable);
  const FixStep& pl = plan.steps[1];
  EXPECT_EQ(pl.finding_id, "config.power_limit");
  EXPECT_EQ(pl.command, "nvidia-smi -i 0 -pl 300");
  EXPECT_EQ(pl.before, "250 W");
  EXPECT_EQ(pl.target, "300 W");
  EXPECT_EQ(pl.setting.power_limit_mw, 300000u);
  EXPECT_EQ(plan.steps[2].command, "nvidia-smi -i 0 -rac");
  EXPECT_EQ(plan.steps[2].before, "1200/2619 MHz");
  EXPECT_EQ(plan.steps[2].target, "1755/2619 MHz");
  EXPECT_EQ(plan.steps[2].setting.kind, GpuSetting::Kind::kResetApplicationClocks);
  EXPECT_EQ(plan.steps[3].command, "nvidia-smi -i 0 -c DEFAULT");
  EXPECT_EQ(plan.steps[3].setting.compute_mode, 0);
  EXPECT_EQ(plan.steps[3].before, "Prohibited");
  EXPECT_EQ(ApplicableSteps(plan), 4u);
  for (const FixStep& s : plan.steps) EXPECT_FALSE(s.skipped) << s.field;
}

TEST(FixPlan, PowerCapAndPowerLimitFindingsShareOneStep) {
  GpuStatus g = Misconfigured(0);
  FixPlan plan =
      Build({On("power.cap", {g.pci_bus_id}), On("config.power_limit", {g.pci_bus_id})}, {g});
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].finding_id, "power.cap");
}

TEST(FixPlan, PowerLimitOptionIsUsedWithinTheGpusRange) {
  GpuStatus g = Misconfigured(0);
  PlanOptions o;
  o.power_limit_w = 320;
  FixPlan plan = Build({On("config.power_limit", {g.pci_bus_id})}, {g}, o);
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].setting.power_limit_mw, 320000u);
  EXPECT_EQ(plan.steps[0].command, "nvidia-smi -i 0 -pl 320");
}

TEST(FixPlan, PowerLimitOptionOutsideTheRangeIsAnErrorBeforeAnything) {
  GpuStatus g = Misconfigured(0);
  for (double w : {400.0, 50.0}) {
    PlanOptions o;
    o.power_limit_w = w;
    auto plan = BuildFixPlan({On("config.power_limit", {g.pci_bus_id})}, {g}, o);
    ASSERT_FALSE(plan.ok()) << w;
    EXPECT_EQ(plan.error().code, ErrorCode::kInvalid);
    EXPECT_NE(plan.error().message.find("--power-limit"), std::string::npos);
    EXPECT_NE(plan.error().message.find("100-350 W"), std::string::npos) << plan.error().message;
  }
}

TEST(FixPlan, PowerLimitOptionNeedsKnownConstraints) {
  GpuStatus g = Misconfigured(0);
  g.power_max_limit_w.reset();
  PlanOptions o;
  o.power_limit_w = 300;
  auto plan = BuildFixPlan({}, {g}, o);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("unknown"), std::string::npos) << plan.error().message;
}

TEST(FixPlan, PowerLimitOptionAlsoCoversGpusNoFindingNames) {
  GpuStatus a = Misconfigured(0);
  GpuStatus b = Misconfigured(1);
  b.power_limit_w = 300;
  PlanOptions o;
  o.power_limit_w = 200;
  FixPlan plan = Build({}, {a, b}, o);
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_EQ(plan.steps[1].pci_bus_id, b.pci_bus_id);
  EXPECT_TRUE(plan.steps[1].finding_id.empty());
  EXPECT_EQ(plan.steps[1].target, "200 W");
}

TEST(FixPlan, ComputeProcessesSkipTheGpuUnlessForced) {
  GpuStatus g = Misconfigured(0);
  g.processes = std::vector<GpuProcess>{{4242, "python3", std::nullopt}};
  FixPlan plan = Build({On("config.persistence_mode", {g.pci_bus_id})}, {g});
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_TRUE(plan.steps[0].skipped);
  EXPECT_NE(plan.steps[0].skip_reason.en.find("4242 python3"), std::string::npos);
  EXPECT_NE(plan.steps[0].skip_reason.en.find("--force"), std::string::npos);
  EXPECT_EQ(ApplicableSteps(plan), 0u);

  PlanOptions force;
  force.force = true;
  FixPlan forced = Build({On("config.persistence_mode", {g.pci_bus_id})}, {g}, force);
  ASSERT_EQ(forced.steps.size(), 1u);
  EXPECT_FALSE(forced.steps[0].skipped);
  EXPECT_EQ(forced.steps[0].processes.size(), 1u);
}

TEST(FixPlan, UnreadableProcessesOrALostGpuAreSkipped) {
  GpuStatus g = Misconfigured(0);
  g.processes.reset();
  FixPlan plan = Build({On("config.persistence_mode", {g.pci_bus_id})}, {g});
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_TRUE(plan.steps[0].skipped);
  EXPECT_NE(plan.steps[0].skip_reason.en.find("could not be read"), std::string::npos);

  GpuStatus lost = Misconfigured(1);
  lost.state = GpuState::kLost;
  PlanOptions force;
  force.force = true;
  FixPlan plan2 = Build({On("config.persistence_mode", {lost.pci_bus_id})}, {lost}, force);
  ASSERT_EQ(plan2.steps.size(), 1u);
  EXPECT_TRUE(plan2.steps[0].skipped);
}

TEST(FixPlan, SettingAlreadyFineNowGivesNoStep) {
  GpuStatus g = Misconfigured(0);
  g.persistence_mode = true;
  FixPlan plan = Build({On("config.persistence_mode", {g.pci_bus_id})}, {g});
  EXPECT_TRUE(plan.steps.empty());
  ASSERT_EQ(plan.unaddressed.size(), 1u);
  EXPECT_EQ(plan.unaddressed[0], "config.persistence_mode");
}

TEST(FixPlan, HardwareAndDriverFindingsArePrintedOnly) {
  GpuStatus g = Misconfigured(1);
  g.processes = std::vector<GpuProcess>{{7, "trainer", std::nullopt}};
  FixPlan plan = Build({On("gpu.lost", {g.pci_bus_id}), On("xid.gsp", {g.pci_bus_id}),
                        On("xid.gsp", {}), On("fabricmanager.not_running", {}),
                        On("memory.pressure", {g.pci_bus_id}), On("ecc.row_remap", {g.pci_bus_id})},
                       {g});
  std::vector<std::string> actions;
  for (const FixStep& s : plan.steps) {
    EXPECT_FALSE(s.automatic) << StepActionName(s.action);
    EXPECT_FALSE(s.safe_with_processes) << StepActionName(s.action);
    actions.push_back(StepActionName(s.action));
  }
  EXPECT_EQ(actions,
            (std::vector<std::string>{"gpu_reset", "reseat", "gsp_off", "restart_fabric_manager",
                                      "reload_nvidia_uvm", "rma"}));
  EXPECT_EQ(plan.steps[0].command, "nvidia-smi -r -i 1");
  EXPECT_NE(plan.steps[0].note.en.find("1 compute process"), std::string::npos)
      << plan.steps[0].note.en;
  EXPECT_EQ(plan.steps[0].risk, Risk::kHigh);
  EXPECT_TRUE(plan.steps[2].pci_bus_id.empty());  // GSP off is for the whole host
  EXPECT_NE(plan.steps[2].command.find("NVreg_EnableGpuFirmware=0"), std::string::npos);
  EXPECT_EQ(plan.steps[3].command, "systemctl restart nvidia-fabricmanager");
  EXPECT_EQ(plan.steps[4].command, "rmmod nvidia_uvm && modprobe nvidia_uvm");
  EXPECT_EQ(ApplicableSteps(plan), 0u);
}

TEST(FixPlan, GpuNotInNvmlKeepsItsBusIdInPrintedCommands) {
  FixPlan plan =
      Build({On("xid.fallen_off_bus", {"0000:3b:00.0"}), On("gpu.lost", {"0000:3b:00.0"})}, {});
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_EQ(plan.steps[0].action, StepAction::kReseat);
  EXPECT_EQ(plan.steps[1].command, "nvidia-smi -r -i 0000:3b:00.0");
}

TEST(FixPlan, AutomaticStepsComeFirstAndUnknownFindingsAreListed) {
  GpuStatus g = Misconfigured(0);
  FixPlan plan = Build({On("gpu.lost", {g.pci_bus_id}), On("thermal.slowdown", {g.pci_bus_id}),
                        On("config.compute_mode", {g.pci_bus_id}), On("thermal.slowdown", {})},
                       {g});
  ASSERT_EQ(plan.steps.size(), 3u);
  EXPECT_EQ(plan.steps[0].action, StepAction::kComputeModeDefault);
  EXPECT_EQ(plan.unaddressed, std::vector<std::string>{"thermal.slowdown"});
}

TEST(FixPlan, GpuSelectionRestrictsGpuSteps) {
  GpuStatus a = Misconfigured(0);
  GpuStatus b = Misconfigured(1);
  PlanOptions o;
  o.gpus = {b.pci_bus_id};
  FixPlan plan = Build({On("config.persistence_mode", {a.pci_bus_id, b.pci_bus_id}),
                        On("fabricmanager.not_running", {})},
                       {a, b}, o);
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_EQ(plan.steps[0].pci_bus_id, b.pci_bus_id);
  EXPECT_EQ(plan.steps[0].gpu_index, 1u);
  EXPECT_EQ(plan.steps[1].action, StepAction::kRestartFabricManager);
}

TEST(FixPlan, FieldValueTextReadsTheSettingBack) {
  GpuStatus g = Misconfigured(0);
  FixPlan plan = Build(
      {On("config.persistence_mode", {g.pci_bus_id}), On("config.power_limit", {g.pci_bus_id})},
      {g});
  g.persistence_mode = true;
  g.power_limit_w = 300;
  EXPECT_EQ(FieldValueText(plan.steps[0], g), "on");
  EXPECT_EQ(FieldValueText(plan.steps[1], g), "300 W");
}

}  // namespace
}  // namespace gpudoctor
