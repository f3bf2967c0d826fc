// End-to-end: `gpudoctor analyze` on PCIe link loss in the kernel log (AER
// bursts of the port above a GPU, then Xid 79) and on GSP lines that name the
// GPU only by the driver's number. Real lines are quoted with their source.
#include <gtest/gtest.h>

#include <string>

#include "support/analyze_json.h"
#include "support/fixtures.h"

namespace gpudoctor::test {
namespace {

// dmesg -H of rwth-i6/returnn#1500 (2024-01-21), verbatim: the root port
// above GPU 0000:03:00.0 reports a fatal error with Surprise Down, recovery fails.
const char* kReturnnDmesg =
    "[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n"
    "[  +0.000001] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)\n"
    "[  +0.000008] pcieport 0000:00:03.0: AER: device recovery failed\n"
    "[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: "
    "0000:00:03.0\n"
    "[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
    "type=Transaction Layer, (Requester ID)\n"
    "[  +0.000898] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000\n"
    "[  +0.000889] pcieport 0000:00:03.0:    [ 5] SDES                  \n"
    "[  +0.000894] pcieport 0000:00:03.0:    [14] CmpltTO                (First)\n"
    "[  +0.000921] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n"
    "[  +0.000002] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)\n"
    "[  +1.050439] pcieport 0000:00:03.0: AER: Root Port link has been reset (0)\n"
    "[  +0.000041] pcieport 0000:00:03.0: AER: device recovery failed\n";

TEST(AnalyzeLinkLossE2E, PortAerBurstNamingTheGpuIsCritical) {
  auto a = AnalyseText("dmesg.txt", kReturnnDmesg);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  const json* f = FindingOf(a.doc, "pcie.aer");
  ASSERT_TRUE(f) << a.doc["findings"].dump(1);
  EXPECT_EQ((*f)["severity"], "critical");
  EXPECT_EQ((*f)["gpus"], json::array({"0000:03:00.0"}));
  EXPECT_NE((*f)["evidence"].dump().find("pcieport 0000:00:03.0"), std::string::npos);
}

TEST(AnalyzeLinkLossE2E, AerThenXid79IsOneExplanation) {
  // The Xid 79 line of the akash-network/support#209 fixture, on this GPU's bus.
  std::string xid79 =
      "[  +0.000100] NVRM: Xid (PCI:0000:03:00): 79, pid='<unknown>', name=<unknown>, GPU has "
      "fallen off the bus.\n";
  auto a = AnalyseText("dmesg.txt", std::string(kReturnnDmesg) + xid79);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  auto ids = IdSet(a.doc);
  EXPECT_FALSE(ids.count("pcie.aer")) << a.doc["findings"].dump(1);
  const json* f = FindingOf(a.doc, "xid.fallen_off_bus");
  ASSERT_TRUE(f);
  EXPECT_NE((*f)["title"].get<std::string>().find("The PCIe link to"), std::string::npos)
      << (*f)["title"];
  EXPECT_NE((*f)["explanation"].get<std::string>().find("Surprise Down"), std::string::npos);
  EXPECT_NE((*f)["evidence"].dump().find("device recovery failed"), std::string::npos);
  EXPECT_NE((*f)["evidence"].dump().find("Xid 79"), std::string::npos);
}

TEST(AnalyzeGspE2E, GpuNumberedLinesTakeTheBusIdOfTheirXid) {
  std::string log = ReadFixtureFile("kernel", "gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log");
  if (log.empty()) GTEST_SKIP() << "shared fixtures missing";
  // A PMU halt printed with the driver's number (kernel_gsp.c's form) after
  // the file, behind one of its clocksource lines so that it stands alone.
  auto a = AnalyseText(
      "gsp.log", log +
                     "[Sun Feb 23 16:40:00 2025] clocksource: Long readout interval, skipping "
                     "watchdog check: cs_nsec: 1584036171 wd_nsec: 1584036160\n"
                     "[Sun Feb 23 16:40:01 2025] NVRM: GPU4 _kgspRpcGspEventPmuHalted: Received "
                     "signal from GSP that PMU has halted.\n");
  ASSERT_EQ(a.exit_code, 2) << a.err;
  bool halted = false;
  for (const auto& e : a.doc["events"]) {
    if (e["message"].get<std::string>().find("PMU has halted") == std::string::npos) continue;
    halted = true;
    EXPECT_EQ(e["pci_bus_id"], "0000:9b:00.0");  // GPU4 is the GPU of the Xid 119 lines
    EXPECT_EQ(e["gpu_number"], 4);                 // and the driver's number is kept
  }
  EXPECT_TRUE(halted) << a.doc["events"].dump(1);
  std::size_t gsp_findings = 0;
  for (const auto& f : a.doc["findings"]) {
    if (f["id"] != "xid.gsp") continue;
    ++gsp_findings;
    EXPECT_EQ(f["gpus"], json::array({"0000:9b:00.0"}));
  }
  EXPECT_EQ(gsp_findings, 1u);  // not a second finding for "GPU4"
}

}  // namespace
}  // namespace gpudoctor::test
