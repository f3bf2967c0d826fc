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

// ublue-os/bazzite#4449 (2025-03-21), the kernel buffer tail as the reporter
// pasted it: indented, from `journalctl --no-hostname -k` (no host name).
const char* kBazziteJournal =
    "     Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspProcessRpcEvent: Attempted to process RPC event "
    "from GPU0: 0x101a (PFM_REQ_HNDLR_STATE_SYNC_CALLBACK) during bootup without API lock\n"
    "     Mar 21 21:42:01 kernel: NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ "
    "kernel_gsp.c:1446\n"
    "     Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspIsHeartbeatTimedOut: Heartbeat timed out, "
    "currentTimeMs 322227881 heartbeat 0 heartbeatWithOffsetMs 318098841 diff 4129040 timeout 5200\n"
    "     Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out\n"
    "     Mar 21 21:43:00 kernel: nvidia 0000:05:00.0: Enabling HDA controller\n";

TEST(AnalyzeGspE2E, IndentedJournalPasteWithoutHostNameGivesTheHeartbeatAndTheAssertion) {
  auto a = AnalyseText("journal.txt", kBazziteJournal);
  // One heartbeat timeout (its two lines one event) and a failed check: a
  // warning, as one GSP timeout without an Xid is.
  ASSERT_EQ(a.exit_code, 1) << a.err;
  const json* f = FindingOf(a.doc, "xid.gsp");
  ASSERT_TRUE(f) << a.doc["findings"].dump(1);
  EXPECT_EQ((*f)["severity"], "warning");
  const std::string evidence = (*f)["evidence"].dump();
  EXPECT_NE(evidence.find("kernel_gsp.c:1446"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("Heartbeat timed out"), std::string::npos) << evidence;
  bool assertion = false;
  for (const auto& e : a.doc["events"]) {
    assertion = assertion || (e["kind"] == "gsp_timeout" &&
                              e["message"].get<std::string>().find("kernel_gsp.c") != std::string::npos);
  }
  EXPECT_TRUE(assertion) << a.doc["events"].dump(1);
}

TEST(AnalyzeGspE2E, KernelGspAssertionsAloneAreAWarning) {
  // NVIDIA/open-gpu-kernel-modules#1064 (2026-05-04): the pair printed on
  // every runtime D3 wake, bare as the reporter pasted it (4 spaces, no prefix),
  // twice; and #1045 (2025-06-12): a failed check in kernel_gsp.c.
  const std::string wake =
      "    NVRM: GPU0 _kgspProcessRpcEvent: Attempted to process RPC event from GPU0: 0x101a "
      "(PFM_REQ_HNDLR_STATE_SYNC_CALLBACK) during bootup without API lock\n"
      "    NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1447\n";
  auto a = AnalyseText("paste.txt", wake + wake +
                                        "Jun 12 16:30:53 fedora-box kernel: NVRM: GPU0 nvCheckFailedNoLog: "
                                        "Check failed: pKernelChannel != NULL @ kernel_gsp.c:640\n");
  ASSERT_EQ(a.exit_code, 1) << a.err << a.doc["findings"].dump(1);
  const json* f = FindingOf(a.doc, "xid.gsp");
  ASSERT_TRUE(f) << a.doc["findings"].dump(1);
  EXPECT_EQ((*f)["severity"], "warning");
  EXPECT_NE((*f)["evidence"].dump().find("kernel_gsp.c:640"), std::string::npos);
  EXPECT_FALSE(IdSet(a.doc).count("kernel_log.undecoded"));
}

// A device number above 0x1f (or a function above 7) is not a bus id: the
// evidence says so instead of treating the line as naming no GPU.
TEST(AnalyzeAddressE2E, AnAddressThatIsNotABusIdIsSaidToBeOne) {
  // The Xid 79 line of akash-network/support#209, its device number made 0x25.
  auto a = AnalyseText("dmesg.txt",
                       "[74880.123456] NVRM: Xid (PCI:0000:3a:25): 79, pid='<unknown>', "
                       "name=<unknown>, GPU has fallen off the bus.\n");
  ASSERT_EQ(a.exit_code, 2) << a.err;
  const json* f = FindingOf(a.doc, "xid.fallen_off_bus");
  ASSERT_TRUE(f) << a.doc["findings"].dump(1);
  EXPECT_TRUE((*f)["gpus"].empty());
  EXPECT_NE((*f)["evidence"].dump().find("0000:3a:25 is not a PCI bus id: device 0x25 is above 0x1f"),
            std::string::npos)
      << (*f)["evidence"].dump(1);
}

TEST(AnalyzeAddressE2E, AGpuBlockWhoseHeaderIsNotABusIdIsLeftOutAndSaidSo) {
  // gpud's H100 x8 capture with its second GPU's header made device 0x25:
  // that block is not read into the first GPU, and the input says why.
  std::string q = ReadFixtureFile("text", "gpud-h100x8-535.183.01-q-replays.txt");
  if (q.empty()) GTEST_SKIP() << "shared fixtures missing";
  const std::string header = "\nGPU 00000000:64:00.0\n";
  const std::size_t at = q.find(header);
  ASSERT_NE(at, std::string::npos);
  q.replace(at, header.size(), "\nGPU 00000000:64:25.0\n");
  auto a = AnalyseText("h100x8-q.txt", q);
  ASSERT_FALSE(a.doc.is_null()) << a.err;
  EXPECT_EQ(a.doc["gpus"].size(), 7u);
  EXPECT_EQ(a.doc["gpus"][0]["pci_bus_id"], "0000:53:00.0");
  EXPECT_EQ(a.doc["gpus"][1]["pci_bus_id"], "0000:75:00.0");
  EXPECT_NE(a.doc["inputs"][0]["notes"].dump().find("00000000:64:25.0 is not a PCI bus id (device 0x25 is above 0x1f)"),
            std::string::npos)
      << a.doc["inputs"].dump(1);
  EXPECT_NE(a.err.find("is not a PCI bus id"), std::string::npos) << a.err;
}

}  // namespace
}  // namespace gpudoctor::test
