#include <gtest/gtest.h>

#include "core/clock_reasons.h"
#include "parse/kernel_events.h"
#include "rules/kernel_events/group.h"
#include "unit/rule_events_testing.h"

namespace gpudoctor::testing {
namespace {

const std::string kBus = "0000:1b:00.0";  // HealthyGpu(3)

std::vector<KernelEvent> Xid79At(double seconds) {
  KernelEvent xid = XidEvent(79, kBus, "GPU has fallen off the bus.", TestTime(seconds));
  KernelEvent derived = xid;  // what the parser adds beside each Xid 79
  derived.kind = KernelEventKind::kFallenOffBus;
  derived.detail = "Xid 79";
  return {xid, derived};
}

TEST(XidFallenOffBusRule, Xid79IsCriticalOnce) {
  auto d = RunRule(kXidFallenOffBusRule, WithEvents(Xid79At(5)));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "xid.fallen_off_bus");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.gpus, std::vector<std::string>{kBus});
  EXPECT_EQ(f.xids, std::vector<int>{79});
  ASSERT_EQ(f.evidence.size(), 1u);  // the derived copy is not a second event
  EXPECT_EQ(f.evidence[0].source->line, 1u);
  EXPECT_EQ(f.actions.front().text.en.find("Drain"), 0u);
  ExpectBilingual(d);
}

TEST(XidFallenOffBusRule, HeatBeforeTheLossIsNamed) {
  std::vector<std::vector<GpuStatus>> readings(10, {HealthyGpu(3)});
  readings[8][0].temperature_c = 91;
  readings[8][0].clock_event_reasons_mask = ClockReasonBit("hw_thermal_slowdown");
  auto d = RunRule(kXidFallenOffBusRule, WithEvents(Xid79At(28), InputFromReadings(readings)));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  bool heat = false;
  for (const auto& e : f.evidence) heat = heat || (e.unit == "celsius" && e.value == 91);
  EXPECT_TRUE(heat);
  EXPECT_NE(f.explanation.en.find("91 °C 20 s before"), std::string::npos) << f.explanation.en;
  EXPECT_NE(f.title.en.find("GPU 3 (0000:1b:00.0)"), std::string::npos);
  ExpectBilingual(d);
}

TEST(XidFallenOffBusRule, AerOnTheSameBusPointsToTheSlot) {
  auto events = Xid79At(5);
  KernelEvent aer =
      MakeEvent(KernelEventKind::kPcieAer, std::nullopt, kBus, "AER: error", TestTime(1));
  aer.detail = "corrected";
  events.insert(events.begin(), aer);
  auto d = RunRule(kXidFallenOffBusRule, WithEvents(events));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].explanation.en.find("slot, riser or cable"), std::string::npos);
}

TEST(XidFallenOffBusRule, UncorrectedAerThenXid79IsOneLinkLossStory) {
  auto events = Xid79At(5);
  KernelEvent fatal = MakeEvent(KernelEventKind::kPcieAer, std::nullopt, kBus,
                                "pcieport 0000:00:03.0: AER: Uncorrected (Fatal) error received: "
                                "0000:00:03.0",
                                TestTime(4));
  fatal.detail = "uncorrected fatal, surprise down";
  KernelEvent failed = MakeEvent(KernelEventKind::kPcieAer, std::nullopt, kBus,
                                 "pcieport 0000:00:03.0: AER: device recovery failed", TestTime(4));
  failed.detail = "recovery failed";
  events.insert(events.begin(), {fatal, failed});
  auto d = RunRule(kXidFallenOffBusRule, WithEvents(events));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NE(f.title.en.find("The PCIe link to"), std::string::npos) << f.title.en;
  EXPECT_NE(f.title.en.find("slot, riser, cable or power"), std::string::npos);
  EXPECT_NE(f.explanation.en.find("Surprise Down"), std::string::npos);
  std::size_t aer_lines = 0;
  for (const auto& e : f.evidence) aer_lines += e.text.en.find("pcieport") != std::string::npos;
  EXPECT_EQ(aer_lines, 2u);
  ExpectBilingual(d);
  // The same errors on another GPU tell nothing about this loss.
  for (auto& e : events) {
    if (e.kind == KernelEventKind::kPcieAer) e.pci_bus_id = "0000:3b:00.0";
  }
  auto other = RunRule(kXidFallenOffBusRule, WithEvents(events));
  ASSERT_EQ(other.findings.size(), 1u);
  EXPECT_EQ(other.findings[0].title.en.find("The PCIe link"), std::string::npos);
}

TEST(XidFallenOffBusRule, ProbeTimeLossWithoutXid) {
  KernelEvent probe =
      MakeEvent(KernelEventKind::kFallenOffBus, std::nullopt, kBus, "The NVIDIA GPU");
  probe.detail = "probe";
  auto d = RunRule(kXidFallenOffBusRule, WithEvents({probe}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_TRUE(d.findings[0].xids.empty());
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
}

TEST(XidFallenOffBusRule, QuietOnHealthyGpusAndOtherEvents) {
  auto input = WithEvents({XidEvent(13, kBus, "Graphics Exception")},
                          RepeatedReadings({HealthyGpu(0), HealthyGpu(3)}, 5));
  auto d = RunRule(kXidFallenOffBusRule, input);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.verdict, Severity::kOk);
}

TEST(XidFallenOffBusRule, NotCheckedWithoutKernelLog) {
  auto d = RunRule(kXidFallenOffBusRule, RepeatedReadings({HealthyGpu(0)}, 3));
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
}

}  // namespace
}  // namespace gpudoctor::testing

namespace gpudoctor::testing {
namespace {

// The port's lines of rwth-i6/returnn#1500's burst (see kernel_events_test):
// the root port 0000:00:03.0 loses its link (Surprise Down); no line of the
// burst names the GPU. Stamps added to place them in time.
std::vector<std::string> PortBurstAt(const std::string& stamp) {
  return {
      stamp +
          " pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: "
          "0000:00:03.0",
      stamp +
          " pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
          "type=Transaction Layer, (Requester ID)",
      stamp + " pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000",
      stamp + " pcieport 0000:00:03.0:    [ 5] SDES                  ",
      stamp + " pcieport 0000:00:03.0: AER: Root Port link has been reset (0)",
      stamp + " pcieport 0000:00:03.0: AER: device recovery failed",
  };
}

std::vector<KernelEvent> PortTestEvents(const std::vector<std::string>& texts) {
  std::vector<LogLine> lines;
  for (const auto& t : texts)
    lines.push_back(LogLine{t, SourceRef{"dmesg", lines.size() + 1}, {}, {}});
  return ExtractKernelEvents(lines, {});
}

// Main dropped a port burst that named no NVIDIA device: no finding at all.
TEST(PcieAerRule, APortsLinkLossIsCriticalEvenWithNoGpuNamed) {
  auto d = RunRule(kPcieAerRule, WithEvents(PortTestEvents(PortBurstAt("[74889.101000]"))));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_TRUE(f.gpus.empty());  // host-wide
  EXPECT_NE(f.title.en.find("port 0000:00:03.0"), std::string::npos) << f.title.en;
  EXPECT_NE(f.title.en.find("Surprise Down"), std::string::npos) << f.title.en;
  ExpectBilingual(d);
}

// Then a GPU falls off the bus within minutes: one finding naming both.
TEST(XidFallenOffBusRule, APortsLinkLossThenXid79IsOneFindingNamingBoth) {
  auto texts = PortBurstAt("[74889.101000]");
  texts.push_back(
      "[74950.548779] NVRM: Xid (PCI:0000:03:00): 79, pid='<unknown>', "
      "name=<unknown>, GPU has fallen off the bus.");
  DiagnosisInput input = WithEvents(PortTestEvents(texts));
  auto loss = RunRule(kXidFallenOffBusRule, input);
  ASSERT_EQ(loss.findings.size(), 1u);
  const std::string& title = loss.findings[0].title.en;
  EXPECT_NE(title.find("The link above GPU 0000:03:00.0 failed at 74889 s"), std::string::npos)
      << title;
  EXPECT_NE(title.find("port 0000:00:03.0"), std::string::npos) << title;
  EXPECT_NE(title.find("fell off the bus"), std::string::npos) << title;
  ExpectBilingual(loss);
  EXPECT_TRUE(RunRule(kPcieAerRule, input).findings.empty());  // told once, by the loss
  // An hour later it is another story: both findings.
  texts.back().replace(1, 5, "78889");
  DiagnosisInput later = WithEvents(PortTestEvents(texts));
  EXPECT_EQ(RunRule(kXidFallenOffBusRule, later).findings.at(0).title.en.find("The link above"),
            std::string::npos);
  EXPECT_EQ(RunRule(kPcieAerRule, later).findings.size(), 1u);
}

}  // namespace
}  // namespace gpudoctor::testing
