#include "rules/engine/finding_fold.h"

#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "rules/gpu_health/group.h"
#include "rules/gpu_performance/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

GpuStatus FoldBraking(unsigned index) {
  GpuStatus g = HealthyGpu(index);
  g.clock_event_reasons_mask = ClockReasonBit("hw_power_brake_slowdown");
  g.power_draw_w = 600 + index;
  return g;
}

// A finding as a per-GPU rule writes one: the GPU's label in the title and
// in a command.
Finding PerGpu(const GpuStatus& g, Severity severity, const std::string& what, int value) {
  Finding f;
  f.id = "test.same";
  f.category = "test";
  f.severity = severity;
  f.gpus = {g.pci_bus_id};
  f.title = Text{GpuLabel(g) + " is " + what, GpuLabel(g) + " 出现" + what};
  f.explanation = Text{"Because of " + what + ".", "原因：" + what + "。"};
  f.evidence.push_back(EvidenceItem{Text{"value " + std::to_string(value), "数值 " + std::to_string(value)},
                                    value, "count", std::nullopt, std::nullopt});
  f.actions.push_back(Action{Text{"Look at it.", "检查。"}, ""});
  f.actions.push_back(Action{Text{"Reset " + GpuLabel(g) + ".", "重置 " + GpuLabel(g) + "。"},
                             "nvidia-smi -r -i " + g.pci_bus_id});
  return f;
}

TEST(FoldAcrossGpus, TheSameFindingOnEveryGpuBecomesOne) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 8; ++i) gpus.push_back(FoldBraking(i));
  auto input = RepeatedReadings(gpus, 10);
  Diagnosis d = RunRule(kPowerBrakeRule, input);
  ASSERT_EQ(d.findings.size(), 8u);  // the rule itself speaks per GPU
  const Severity severity = d.findings[0].severity;

  FoldAcrossGpus(d, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "power.brake");
  EXPECT_EQ(f.severity, severity);
  ASSERT_EQ(f.gpus.size(), 8u);
  ASSERT_EQ(f.per_gpu.size(), 8u);
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(f.gpus[i], gpus[i].pci_bus_id);
    EXPECT_EQ(f.per_gpu[i].gpu, gpus[i].pci_bus_id);
    EXPECT_EQ(f.per_gpu[i].label, GpuLabel(gpus[i]));
    EXPECT_NE(f.per_gpu[i].title.en.find(GpuLabel(gpus[i])), std::string::npos) << f.per_gpu[i].title.en;
    EXPECT_FALSE(f.per_gpu[i].evidence.empty());
  }
  EXPECT_EQ(f.title.en, "8 of 8 GPUs are slowed by the power brake of their power supply");
  EXPECT_EQ(f.title.zh.rfind("8 块 GPU 中的 8 块", 0), 0u) << f.title.zh;
  EXPECT_EQ(f.title.en.find("GPU 0 ("), std::string::npos) << f.title.en;
  // Every GPU's evidence is kept, in GPU order.
  std::size_t items = 0;
  for (const GpuShare& share : f.per_gpu) items += share.evidence.size();
  EXPECT_EQ(f.evidence.size(), items);
  EXPECT_FALSE(f.actions.empty());
}

TEST(FoldAcrossGpus, FindingsThatDifferInSubstanceStayApart) {
  const GpuStatus g0 = HealthyGpu(0), g1 = HealthyGpu(1), g2 = HealthyGpu(2), g3 = HealthyGpu(3);
  auto input = RepeatedReadings({g0, g1, g2, g3}, 2);
  Diagnosis d;
  d.findings.push_back(PerGpu(g0, Severity::kWarning, "hot", 1));
  d.findings.push_back(PerGpu(g1, Severity::kCritical, "hot", 2));  // another severity
  d.findings.push_back(PerGpu(g2, Severity::kWarning, "cold", 3));  // another title
  Finding host;
  host.id = "test.host";
  host.title = Text{"host", "主机"};
  d.findings.push_back(host);
  FoldAcrossGpus(d, input);
  ASSERT_EQ(d.findings.size(), 4u);
  for (const Finding& f : d.findings) EXPECT_TRUE(f.per_gpu.empty()) << f.title.en;
  EXPECT_EQ(d.findings[0].title.en, GpuLabel(g0) + " is hot");
  EXPECT_EQ(d.findings[3].id, "test.host");
}

TEST(FoldAcrossGpus, VerbsAfterTheGpusAgreeWithThem) {
  // power.cap's title on gpud's RTX 4090 x8 capture read "2 of 8 GPUs runs
  // at their power limit".
  const GpuStatus g0 = HealthyGpu(0), g1 = HealthyGpu(1), g2 = HealthyGpu(2);
  auto input = RepeatedReadings({g0, g1, g2}, 2);
  Diagnosis d;
  for (const GpuStatus& g : {g0, g1}) {
    Finding f = PerGpu(g, Severity::kInfo, "capped", 1);
    f.title = Text{GpuLabel(g) + " runs at its power limit", GpuLabel(g) + " 以功率上限运行"};
    d.findings.push_back(f);
  }
  FoldAcrossGpus(d, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].title.en, "2 of 3 GPUs run at their power limit");
}

TEST(FoldAcrossGpus, KeepsThePlaceOfTheFirstAndJoinsPerGpuCommands) {
  const GpuStatus g0 = HealthyGpu(0), g1 = HealthyGpu(1), g2 = HealthyGpu(2), g3 = HealthyGpu(3);
  auto input = RepeatedReadings({g0, g1, g2, g3}, 2);
  Diagnosis d;
  Finding before;
  before.id = "test.before";
  before.gpus = {g3.pci_bus_id};
  before.title = Text{"first", "第一"};
  d.findings.push_back(before);
  d.findings.push_back(PerGpu(g1, Severity::kWarning, "hot", 10));
  d.findings.push_back(PerGpu(g2, Severity::kWarning, "cold", 20));
  d.findings.push_back(PerGpu(g3, Severity::kWarning, "hot", 30));
  FoldAcrossGpus(d, input);
  ASSERT_EQ(d.findings.size(), 3u);
  EXPECT_EQ(d.findings[0].id, "test.before");
  const Finding& folded = d.findings[1];
  EXPECT_EQ(folded.title.en, "2 of 4 GPUs are hot");
  EXPECT_EQ(folded.title.zh, "4 块 GPU 中的 2 块 出现hot");
  EXPECT_EQ(folded.gpus, (std::vector<std::string>{g1.pci_bus_id, g3.pci_bus_id}));
  ASSERT_EQ(folded.evidence.size(), 2u);
  EXPECT_EQ(folded.evidence[0].value, 10);
  EXPECT_EQ(folded.evidence[1].value, 30);
  ASSERT_EQ(folded.actions.size(), 2u);
  EXPECT_EQ(folded.actions[0].text.en, "Look at it.");
  EXPECT_EQ(folded.actions[1].text.en, "Reset each of these GPUs.");
  EXPECT_EQ(folded.actions[1].command,
            "nvidia-smi -r -i " + g1.pci_bus_id + "\nnvidia-smi -r -i " + g3.pci_bus_id);
  EXPECT_EQ(d.findings[2].title.en, GpuLabel(g2) + " is cold");
}

TEST(FoldAcrossGpus, GpusTheReadingsDoNotKnowAreCountedWithoutATotal) {
  // analyze of a kernel log alone: GPUs named by bus id only, no readings.
  DiagnosisInput input;
  Diagnosis d;
  for (const char* bus : {"0000:3b:00.0", "0000:5e:00.0", "0000:86:00.0"}) {
    Finding f;
    f.id = "xid.fallen_off_bus";
    f.severity = Severity::kCritical;
    f.gpus = {bus};
    f.xids = {79};
    f.title = Text{std::string("GPU ") + bus + " has fallen off the bus (Xid 79)",
                   std::string("GPU ") + bus + " 已从总线上掉线（Xid 79）"};
    d.findings.push_back(f);
  }
  FoldAcrossGpus(d, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].title.en, "3 GPUs have fallen off the bus (Xid 79)");
  EXPECT_EQ(d.findings[0].per_gpu[1].label, "GPU 0000:5e:00.0");
  EXPECT_EQ(d.findings[0].xids, (std::vector<int>{79}));
}

// Issue: ECC mode pending on 8 GPUs was 8 findings (80 lines) on main: the
// remedy names each GPU by index ("Stop every process on GPU 3 ..."), which
// the fold did not take for the GPU's own name.
TEST(FoldAcrossGpus, PendingModeChangeOnEveryGpuIsOneFinding) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 8; ++i) {
    GpuStatus g = HealthyGpu(i);
    g.ecc_mode_enabled = false;
    g.ecc_mode_pending = true;
    gpus.push_back(g);
  }
  auto input = RepeatedReadings(gpus, 2);
  Diagnosis d = RunRule(kConfigPendingModeChangeRule, input);
  ASSERT_EQ(d.findings.size(), 8u);
  FoldAcrossGpus(d, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.gpus.size(), 8u);
  EXPECT_EQ(f.title.en.rfind("8 of 8 GPUs", 0), 0u) << f.title.en;
  // The per-GPU reset commands are all kept.
  bool all_resets = false;
  for (const Action& a : f.actions) {
    all_resets = all_resets || (a.command.find("-i 0") != std::string::npos &&
                                a.command.find("-i 7") != std::string::npos);
  }
  EXPECT_TRUE(all_resets);
}

TEST(FoldAcrossGpus, AnIndexNameIsWholeGpu1IsNotGpu12) {
  std::vector<GpuStatus> gpus;
  for (unsigned i = 0; i < 23; ++i) gpus.push_back(HealthyGpu(i));
  auto input = RepeatedReadings(gpus, 1);
  Diagnosis d;
  for (unsigned i : {1u, 2u}) {
    Finding f = PerGpu(gpus[i], Severity::kWarning, "odd", 1);
    // GPU 1's remedy names GPU 12, GPU 2's GPU 22: neither is a name of the
    // GPU itself, so the two remedies differ and the findings stay apart.
    f.actions.push_back(
        Action{Text{i == 1 ? "Compare with GPU 12." : "Compare with GPU 22.", "比较。"}, ""});
    d.findings.push_back(f);
  }
  FoldAcrossGpus(d, input);
  EXPECT_EQ(d.findings.size(), 2u);
}

}  // namespace
}  // namespace gpudoctor::testing
