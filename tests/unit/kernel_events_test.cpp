#include "parse/kernel_events.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "parse/kernel_catalog.h"
#include "parse/kernel_prefilter.h"

namespace gpudoctor {
namespace {

using K = KernelEventKind;

std::vector<KernelEvent> Extract(const std::vector<std::string>& texts, ExtractOptions opts = {}) {
  std::vector<LogLine> lines;
  for (const auto& t : texts)
    lines.push_back(LogLine{t, SourceRef{"t.log", lines.size() + 1}, {}, {}});
  return ExtractKernelEvents(lines, opts);
}

TEST(KernelEvents, XidFieldsAcrossDriverEras) {
  auto ev = Extract({
      "NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 43, pid=123, name=python, Ch 00000010",
      "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2)",
      "NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000120, intr 10000000",
      "NVRM: Xid (PCI:0000:0a:00): 62, pid='<unknown>', name=<unknown>, 2023b230 20238a3a",
  });
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(ev[0].detail, "GPU-I:01 GPU-CI:02");
  EXPECT_EQ(ev[0].pid, 123);
  EXPECT_EQ(ev[0].process, "python");
  EXPECT_EQ(ev[0].message, "Ch 00000010");
  EXPECT_EQ(ev[1].pci_bus_id, "0018:01:00.0");
  EXPECT_EQ(ev[1].code, 145);
  EXPECT_FALSE(ev[1].pid.has_value());
  EXPECT_EQ(ev[2].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(ev[2].message, "Ch 0000000b, engmask 00000120, intr 10000000");
  EXPECT_FALSE(ev[3].pid.has_value());
  EXPECT_EQ(ev[3].process, "");
  EXPECT_EQ(ev[3].message, "2023b230 20238a3a");
}

TEST(KernelEvents, FallenOffTheBusInEveryForm) {
  auto ev = Extract({
      "[ 5107.644336] NVRM: Xid (PCI:0000:03:00): 79, GPU has fallen off the bus.",
      "[ 5107.644340] NVRM: GPU 0000:03:00.0: GPU has fallen off the bus.",
      "irrelevant line",
      "NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
      "NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.",
      "NVRM: The NVIDIA GPU 0000:5d:00.0",
      "NVRM: (PCI ID: 10de:2330) installed in this system has",
      "NVRM: fallen off the bus and is not responding to commands.",
      "nvidia: probe of 0000:5d:00.0 failed with error -1",
      "nvidia 0000:5e:00.0: probe with driver nvidia failed with error -1",
  });
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[0].kind, K::kXid);
  EXPECT_EQ(ev[0].continuation.size(), 1u);  // the device line belongs to the Xid
  EXPECT_EQ(ev[1].kind, K::kFallenOffBus);   // derived from the Xid 79
  EXPECT_EQ(ev[1].pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(ev[2].kind, K::kFallenOffBus);  // legacy wording
  EXPECT_EQ(ev[2].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(ev[3].kind, K::kFallenOffBus);  // device line alone
  EXPECT_EQ(ev[3].pci_bus_id, "0000:91:00.0");
  EXPECT_EQ(ev[4].kind, K::kFallenOffBus);  // probe-time, records arriving one by one
  EXPECT_EQ(ev[4].detail, "probe");
  EXPECT_EQ(ev[4].pci_bus_id, "0000:5d:00.0");
  EXPECT_EQ(ev[4].continuation.size(), 2u);
  EXPECT_EQ(ev[5].kind, K::kProbeFailed);
  EXPECT_EQ(ev[5].pci_bus_id, "0000:5d:00.0");
  EXPECT_EQ(ev[5].detail, "error -1");
  EXPECT_EQ(ev[6].pci_bus_id, "0000:5e:00.0");
  for (const auto& e : ev) EXPECT_EQ(IndicatesGpuLost(e), e.kind != K::kProbeFailed);
}

TEST(KernelEvents, UnsupportedGpuIsAProbeFailure) {
  auto ev = Extract({"NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)",
                     "NVRM: installed in this system is not supported by the",
                     "NVRM: NVIDIA 470.82.01 driver release."});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, K::kProbeFailed);
  EXPECT_EQ(ev[0].detail, "unsupported GPU");
}

TEST(KernelEvents, RecoveryActionsByValue) {
  auto ev = Extract({
      "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 "
      "(Drain and Reset)",
      "NVRM: Xid (PCI:0000:02:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
      "(OS Reboot)",
  });
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[1].kind, K::kRecoveryAction);
  EXPECT_EQ(ev[1].detail, "Drain and Reset");
  EXPECT_EQ(ev[3].detail, "Node Reboot Required");
}

TEST(KernelEvents, GspTimeoutWordings) {
  auto ev = Extract({
      "NVRM: Xid (PCI:0000:01:00): 119, pid=1, name=a, Timeout waiting for RPC from GSP! "
      "Expected function FREE (0x1 0x2).",
      "NVRM: Xid (PCI:0000:02:00): 119, pid=1, name=a, Timeout after 6s of waiting for RPC "
      "response from GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) (0x2 0x3) sequence 9.",
      "NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out",
      "NVRM: _kgspIsHeartbeatTimedOut: Heartbeat timed out, diff 79682 timeout 5200",
      "NVRM: RmInitAdapter: Cannot initialize GSP firmware RM",
      "NVRM: RmInitAdapter failed! (0x26:0xffff:1227)",
  });
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[1].kind, K::kGspTimeout);
  EXPECT_EQ(ev[1].detail, "FREE");
  EXPECT_EQ(ev[3].detail, "76 (GSP_RM_CONTROL)");
  EXPECT_EQ(ev[4].kind, K::kGspHeartbeat);
  EXPECT_EQ(ev[4].continuation.size(), 1u);
  EXPECT_EQ(ev[5].kind, K::kRmInitFailed);
  EXPECT_EQ(ev[5].detail, "GSP firmware init");
  EXPECT_EQ(ev[6].detail, "(0x26:0xffff:1227)");
  EXPECT_EQ(ev[6].pci_bus_id, "");
}

TEST(KernelEvents, SxidDetailLinesJoinTheirEvent) {
  auto ev = Extract({
      "[6781753.400584] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM "
      "Fault Up",
      "[6781753.404848] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Severity 1 Engine "
      "instance 60 Sub-engine instance 00",
      "[6781753.404900] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Data {0x1, 0x2}",
      "[6781754.0] nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12028, Non-fatal, Link 3 x",
  });
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].code, 20034);
  EXPECT_EQ(ev[0].detail, "fatal");
  EXPECT_EQ(ev[0].continuation.size(), 2u);
  EXPECT_EQ(ev[1].detail, "non-fatal");
  EXPECT_EQ(ev[1].pci_bus_id, "0000:07:00.0");
}

TEST(KernelEvents, AerOnlyForNvidiaDevices) {
  auto ev = Extract({
      "pcieport 0000:00:03.1: AER: Corrected error received: 0000:01:00.0",
      "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
      "(Receiver ID)",
      "nvidia 0000:01:00.0: AER:   device [10de:2204] error status/mask=00000001/0000a000",
      "nvidia 0000:01:00.0: AER:    [ 0] RxErr",
      "pcieport 0000:80:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:81:00.0",
      "mlx5_core 0000:81:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal)",
      "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer",
  });
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, K::kPcieAer);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(ev[0].detail, "corrected");
  EXPECT_EQ(ev[0].continuation.size(), 3u);
  EXPECT_EQ(ev[1].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(ev[1].detail, "uncorrected fatal");
}

// dmesg of rwth-i6/returnn#1500 (2024-01-21), relative stamps cut: the fatal
// error and Surprise Down are reported by the root port above the GPU, and
// only the "can't recover" lines name the GPU (nvidia 0000:03:00.0).
const std::vector<std::string> kReturnnAerBurst = {
    "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)",
    "snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)",
    "pcieport 0000:00:03.0: AER: device recovery failed",
    "pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0",
    "pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction "
    "Layer, (Requester ID)",
    "pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000",
    "pcieport 0000:00:03.0:    [ 5] SDES                  ",
    "pcieport 0000:00:03.0:    [14] CmpltTO                (First)",
    "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)",
    "snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)",
    "pcieport 0000:00:03.0: AER: Root Port link has been reset (0)",
    "pcieport 0000:00:03.0: AER: device recovery failed",
};

TEST(KernelEvents, PortAerLinesOfABurstNamingTheGpuAreTheGpus) {
  auto ev = Extract(kReturnnAerBurst);
  ASSERT_FALSE(ev.empty());
  for (const auto& e : ev) {
    EXPECT_EQ(e.kind, K::kPcieAer);
    EXPECT_EQ(e.pci_bus_id, "0000:03:00.0") << e.message;  // the port's lines too
    EXPECT_EQ(e.message.find("snd_hda_intel"), std::string::npos);  // not the audio function
  }
  auto has = [&](const std::string& detail) {
    for (const auto& e : ev) {
      if (e.detail == detail) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("can't recover"));
  EXPECT_TRUE(has("recovery failed"));
  EXPECT_TRUE(has("link reset"));
  EXPECT_TRUE(has("uncorrected fatal, surprise down"));
  for (const auto& e : ev) {
    if (e.detail == "uncorrected fatal, surprise down") {
      EXPECT_EQ(e.continuation.size(), 3u);  // bus error, status/mask, SDES
      EXPECT_EQ(e.message.rfind("pcieport 0000:00:03.0", 0), 0u);
    }
  }
}

// Every event of `ev` is the port's own (its bus id, a "pcieport" line).
void ExpectPortsOwn(const std::vector<KernelEvent>& ev, const std::string& port) {
  for (const auto& e : ev) {
    EXPECT_EQ(e.pci_bus_id, port) << e.message;
    EXPECT_EQ(e.message.rfind("pcieport " + port, 0), 0u) << e.message;
  }
}

TEST(KernelEvents, PortAerWithoutAnNvidiaLineIsNotAGpus) {
  // The same burst without the nvidia lines: a port's trouble, no GPU named.
  // Its own link loss (fatal, Surprise Down, failed recovery) stays, under
  // the port's bus id (main dropped it); the rest of the burst does not.
  std::vector<std::string> lines;
  for (const auto& l : kReturnnAerBurst) {
    if (l.rfind("nvidia ", 0) != 0) lines.push_back(l);
  }
  auto port = Extract(lines);
  ASSERT_FALSE(port.empty());
  ExpectPortsOwn(port, "0000:00:03.0");
  bool surprise = false;
  for (const auto& e : port) {
    EXPECT_NE(e.detail, "link reset");
    surprise = surprise || e.detail == "uncorrected fatal, surprise down";
  }
  EXPECT_TRUE(surprise);
  // A port relaying another device's error next to a GPU's own error: only the GPU's.
  auto ev = Extract({
      "pcieport 0000:80:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:81:00.0",
      "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer",
  });
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:3b:00.0");
  // Bursts far apart in the file are not one burst: the port's fatal error
  // stays the port's, the GPU's later line the GPU's.
  std::vector<std::string> apart = {kReturnnAerBurst[3]};
  for (int i = 0; i < 100; ++i) apart.push_back("usb 1-1: new device");
  apart.push_back(kReturnnAerBurst[0]);
  ev = Extract(apart);
  ASSERT_EQ(ev.size(), 2u);
  int gpu = 0, port_own = 0;
  for (const auto& e : ev) {
    gpu += e.pci_bus_id == "0000:03:00.0" && e.detail == "can't recover";
    port_own += e.pci_bus_id == "0000:00:03.0";
  }
  EXPECT_EQ(gpu, 1);
  EXPECT_EQ(port_own, 1);
}

// Live logs: this machine's PCI tree says 0000:00:03.0 is the port above
// GPU 0000:03:00.0 alone, so the port's own reports are the GPU's even when
// no line of the burst names the nvidia driver (the driver was unbound, or
// its lines were rate-limited away).
TEST(KernelEvents, PortAerIsTheGpusWhenThePciTreeSaysSo) {
  std::vector<std::string> lines;
  for (const auto& l : kReturnnAerBurst) {
    if (l.rfind("nvidia ", 0) != 0) lines.push_back(l);
  }
  ExtractOptions opts;
  opts.aer_owner = {{"0000:00:03.0", "0000:03:00.0"}, {"0000:03:00.0", "0000:03:00.0"}};
  auto ev = Extract(lines, opts);
  ASSERT_FALSE(ev.empty());
  bool fatal = false;
  for (const auto& e : ev) {
    EXPECT_EQ(e.pci_bus_id, "0000:03:00.0") << e.message;
    EXPECT_EQ(e.message.find("snd_hda_intel"), std::string::npos);
    fatal = fatal || e.detail == "uncorrected fatal, surprise down";
  }
  EXPECT_TRUE(fatal);
  // A port the tree does not tie to one GPU (shared by two, or a NIC's) is
  // no GPU's: only its own link loss stays, under its own bus id.
  opts.aer_owner = {{"0000:03:00.0", "0000:03:00.0"}, {"0000:04:00.0", "0000:04:00.0"}};
  ExpectPortsOwn(Extract(lines, opts), "0000:00:03.0");
  // An error a port relays from the GPU itself, with no NVIDIA id on the line.
  opts.aer_owner = {{"0000:81:00.0", "0000:81:00.0"}};
  ev = Extract({"pcieport 0000:80:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:81:00.0"},
               opts);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:81:00.0");
  EXPECT_EQ(ev[0].detail, "uncorrected non-fatal");
}

TEST(KernelEvents, AerHeadOfLaterKernelsAndSurpriseDownWording) {
  auto ev = Extract({
      "pcieport 0000:00:01.1: AER: Uncorrectable (Fatal) error message received from 0000:01:00.0",
      "nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrectable (Fatal), type=Data Link Layer",
      "nvidia 0000:01:00.0:   device [10de:2204] error status/mask=00000020/00000000",
      "nvidia 0000:01:00.0:    [ 5] Surprise Down Error    (First)",
  });
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(ev[0].detail, "uncorrected fatal, surprise down");
  EXPECT_EQ(ev[0].continuation.size(), 3u);
}

TEST(KernelEvents, GspLinesWithAGpuNumberTakeTheBusIdTheLogPairsItWith) {
  auto ev = Extract({
      // A line of the heartbeat kind naming GPU4, before the pairing line.
      "NVRM: GPU4 _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted.",
      "usb 1-1: new device",
      // kernel/gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log line 3 (prefix cut).
      "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s of "
      "waiting for RPC response from GPU4 GSP! Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4).",
      "usb 1-1: new device",
      "NVRM: GPU7 _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted.",
  });
  ASSERT_GE(ev.size(), 3u);
  EXPECT_EQ(ev[0].kind, K::kGspTimeout);
  EXPECT_EQ(ev[0].detail, "PMU halted");
  EXPECT_EQ(ev[0].gpu_number, 4);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:9b:00.0");  // paired by the Xid line further down
  EXPECT_EQ(ev.back().gpu_number, 7);
  EXPECT_TRUE(ev.back().pci_bus_id.empty());  // nothing pairs GPU7
}

TEST(KernelEvents, GspTroubleWithoutAnXid) {
  // Texts from NVIDIA/open-gpu-kernel-modules kernel_gsp.c and kern_gmmu.c
  // (595.45.04), as NV_PRINTF prints them (function name first).
  auto ev = Extract({
      "NVRM: _kgspLogRpcTimeout: ********************************* GSP Timeout "
      "**********************************",
      "NVRM: _kgspLogRpcTimeout: Note: Please also check logs above.",
      "usb 1-1: new device",
      "NVRM: kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. kgmmuInvalidateTlb "
      "failed.",
      "usb 1-1: new device",
      "NVRM: GPU1 sanity check failed 0x65 waiting for RPC response from GSP. Expected function "
      "76 (GSP_RM_CONTROL) sequence 5 (0x20801813 0x4c).",
      // open-gpu-kernel-modules#1200 (the shared fixture's first line).
      "NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out",
  });
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].detail, "GSP Timeout");
  EXPECT_EQ(ev[0].continuation.size(), 1u);
  EXPECT_EQ(ev[1].detail, "memory subsystem error");
  EXPECT_EQ(ev[2].kind, K::kGspTimeout);
  EXPECT_EQ(ev[2].gpu_number, 1);
  EXPECT_EQ(ev[2].detail, "76 (GSP_RM_CONTROL)");
  EXPECT_EQ(ev[3].kind, K::kGspHeartbeat);
  EXPECT_FALSE(ev[3].gpu_number);
}

TEST(KernelEvents, Mlx5NicFaults) {
  // The mlx5_core driver's texts, as NVIDIA NVSentinel's and leptonai/gpud's
  // kernel-log matchers quote them.
  auto ev = Extract({
      "[ 5.0] mlx5_core 0000:1a:00.0: mlx5_pcie_event:299:(pid 0): Detected insufficient power on "
      "the PCIe slot (27W).",
      "[ 6.0] mlx5_core 0000:3a:00.0: wait_func:1130:(pid 812): CREATE_QP(0x500) timeout. Will "
      "cause a leak of a command resource",
      "[ 7.0] mlx5_core 0000:3a:00.0: poll_health:800:(pid 0): device's health compromised - "
      "reached miss count",
      "[ 8.0] mlx5_core 0000:4c:00.0: mlx5_port_module_event:1144:(pid 0): Port module "
      "event[error]: module 0, Cable error, High Temperature",
      "[ 9.0] mlx5_core 0000:5d:00.0: mlx5_health_try_recover:339:(pid 44): health recovery "
      "flow aborted, PCI reads still not working, device in unrecoverable state",
      "[10.0] mlx5_core 0000:5d:00.0: mlx5e_open: port up",  // not a fault
  });
  ASSERT_EQ(ev.size(), 5u);
  for (const auto& e : ev) EXPECT_EQ(e.kind, K::kMlx5);
  EXPECT_EQ(ev[0].detail, kMlx5InsufficientPower);
  EXPECT_EQ(ev[0].pci_bus_id, "0000:1a:00.0");
  EXPECT_EQ(ev[1].detail, kMlx5CommandTimeout);
  EXPECT_EQ(ev[2].detail, kMlx5HealthPoll);
  EXPECT_EQ(ev[3].detail, kMlx5ModuleHighTemperature);
  EXPECT_EQ(ev[4].detail, kMlx5Unrecoverable);
  EXPECT_EQ(ev[4].pci_bus_id, "0000:5d:00.0");
  EXPECT_TRUE(LineMayMatter("mlx5_core 0000:1a:00.0: something"));
}

TEST(KernelEvents, NvlinkRxDetectFailures) {
  auto ev = Extract({
      "[ 30.0] NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL: Failed to update Rx Detect Link mask!",
      "[ 31.0] NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask failed!",
      "[ 32.0] NVRM: knvlinkDiscoverPostRxDetLinks_GB100_REV2: Getting peer17 postRxDetLinkMask "
      "failed!",
  });
  ASSERT_GE(ev.size(), 1u);
  std::size_t total = 0;
  for (const auto& e : ev) {
    EXPECT_EQ(e.kind, K::kNvlinkRxDetect);
    total += e.count;
  }
  EXPECT_EQ(total, 3u);
}

TEST(KernelEvents, OomInvocationAndVictimAreOneEvent) {
  auto ev = Extract({
      "[ 10.0] python3 invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0",
      "[ 10.1] Mem-Info:",
      "[ 10.2] Out of memory: Killed process 4242 (python3) total-vm:123kB, anon-rss:99kB",
      "[ 20.0] Memory cgroup out of memory: Killed process 77 (trainer) total-vm:1kB",
  });
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].pid, 4242);
  EXPECT_EQ(ev[0].process, "python3");
  EXPECT_EQ(ev[0].detail, "killed");
  EXPECT_EQ(ev[0].continuation.size(), 1u);
  EXPECT_EQ(ev[1].pid, 77);
  EXPECT_EQ(ev[1].detail, "killed (cgroup limit)");
}

TEST(KernelEvents, FloodsFoldAndWindowsSplit) {
  std::vector<std::string> flood;
  for (int i = 0; i < 1000; ++i) {
    flood.push_back("[" + std::to_string(100 + i) +
                    ".5] NVRM: Xid (PCI:0000:01:00): 31, pid=7, "
                    "name=x, Ch 00000001");
  }
  flood.push_back("[5000.0] NVRM: Xid (PCI:0000:01:00): 31, pid=7, name=x, Ch 00000001");
  auto ev = Extract(flood);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].count, 1000u);
  EXPECT_DOUBLE_EQ(*ev[0].monotonic_s, 100.5);
  EXPECT_DOUBLE_EQ(*ev[0].last_monotonic_s, 1099.5);
  EXPECT_EQ(ev[0].source.line, 1u);
  EXPECT_EQ(ev[1].count, 1u);  // 3900 s later: a new episode

  ExtractOptions no_fold;
  no_fold.fold_repeats = false;
  EXPECT_EQ(Extract(flood, no_fold).size(), 1001u);
}

TEST(KernelEvents, OtherSources) {
  auto ev = Extract({
      "NVRM: loading NVIDIA UNIX Open Kernel Module for aarch64  580.95.05  Release Build",
      "NVRM: GPU at PCI:0000:91:00: GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b",
      "traps: python[999] general protection fault ip:7f in libnccl.so.2.18.1[7f000+1000]",
      "nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 "
      "don't match with driver version 530.41.03.",
      "pci 0000:04:00.0: 252.048 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x16 "
      "link at 0000:01:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)",
  });
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].detail, "580.95.05");
  EXPECT_EQ(PciToUuid(ev).at("0000:91:00.0"), "GPU-b6c3b2be-c55b-d076-fa0e-d464e4c7e08b");
  EXPECT_EQ(ev[2].kind, K::kNcclSegfault);
  EXPECT_EQ(ev[2].pid, 999);
  EXPECT_EQ(ev[2].detail, "libnccl.so.2.18.1");
  EXPECT_EQ(ev[3].detail, "version mismatch");
  EXPECT_EQ(ev[3].pid, 3228);
  EXPECT_EQ(ev[3].process, "nv-fabricmanager");
  EXPECT_EQ(ev[4].pci_bus_id, "0000:04:00.0");
}

TEST(KernelEvents, DmesgHumanRelativeTimesAddUp) {
  ExtractOptions opts;
  opts.time.year = 2025;
  auto ev = Extract({"[Feb23 16:24] usb 1-1: new device", "[  +0.500000] nothing here",
                     "[  +1.250000] NVRM: Xid (PCI:0000:01:00): 13, x"},
                    opts);
  ASSERT_EQ(ev.size(), 1u);
  ASSERT_TRUE(ev[0].time.has_value());
  using namespace std::chrono;
  auto expect = sys_days{year{2025} / 2 / 23} + hours{16} + minutes{24} + milliseconds{1750};
  EXPECT_EQ(duration_cast<milliseconds>(ev[0].time->time_since_epoch()),
            duration_cast<milliseconds>(expect.time_since_epoch()));
}

TEST(KernelEvents, DefaultYearIsTheCurrentOne) {
  auto ev = Extract({"Feb 15 17:37:45 h kernel: NVRM: Xid (PCI:0000:01:00): 13, x"});
  ASSERT_EQ(ev.size(), 1u);
  ASSERT_TRUE(ev[0].time.has_value());
  using namespace std::chrono;
  auto y = year_month_day(floor<days>(*ev[0].time)).year();
  EXPECT_EQ(y, year_month_day(floor<days>(system_clock::now())).year());
}

TEST(KernelEvents, SourceTimesWin) {
  LogLine l{"NVRM: Xid (PCI:0000:01:00): 13, x", SourceRef{"/dev/kmsg", 0},
            WallTime(std::chrono::seconds(1700000000)), 12.5};
  auto ev = ExtractKernelEvents({l});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].time, l.time);
  EXPECT_EQ(ev[0].monotonic_s, 12.5);
  EXPECT_EQ(ev[0].source.file, "/dev/kmsg");
}

TEST(KernelEvents, BufferScanMatchesLineByLine) {
  std::string text;
  std::vector<std::string> lines;
  for (int i = 0; i < 200; ++i) {
    lines.push_back("[" + std::to_string(i) + ".0] usb 1-1: ordinary line number " +
                    std::to_string(i));
    if (i % 50 == 7) {
      lines.push_back("[" + std::to_string(i) + ".1] NVRM: Xid (PCI:0000:01:00): 13, n " +
                      std::to_string(i));
      lines.push_back("[" + std::to_string(i) + ".2] NVRM:     indented body");
    }
  }
  for (const auto& l : lines) text += l + "\n";
  KernelEventScanner scanner;
  EXPECT_EQ(ScanKernelLogBuffer(text, "t.log", 1, scanner), lines.size());
  auto fast = scanner.Finish();
  auto slow = Extract(lines);
  ASSERT_EQ(fast.size(), slow.size());
  ASSERT_EQ(fast.size(), 4u);
  for (std::size_t i = 0; i < fast.size(); ++i) {
    EXPECT_EQ(fast[i].source.line, slow[i].source.line);
    EXPECT_EQ(fast[i].message, slow[i].message);
    EXPECT_EQ(fast[i].continuation, slow[i].continuation);
  }
  EXPECT_EQ(fast[0].source.line, 9u);
}

// Each row of the catalog reads its own example (not an earlier row), the
// prefilter finds the example, and the scan makes an event of the row's
// kind of it; the prefilter searches exactly the catalog's words.
TEST(KernelCatalog, EveryRowReadsItsExampleAndThePrefilterFindsIt) {
  const std::vector<kevents::CatalogRow> rows = kevents::KernelCatalogRows();
  ASSERT_GT(rows.size(), 20u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const kevents::CatalogRow& row = rows[i];
    SCOPED_TRACE(std::string(row.name) + ": " + std::string(row.example));
    EXPECT_TRUE(LineMayMatter(row.example));
    EXPECT_EQ(row.nvrm, row.example.find("NVRM:") != std::string_view::npos);
    const std::optional<std::size_t> read_by = kevents::CatalogRowOf(row.example);
    ASSERT_TRUE(read_by.has_value());
    EXPECT_EQ(*read_by, i) << rows[*read_by].name;
    auto ev = Extract({std::string(row.example)});
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].kind, row.kind);
  }
  std::vector<std::string_view> needles = KernelNeedles(), words = kevents::KernelLineWords();
  std::sort(needles.begin(), needles.end());
  std::sort(words.begin(), words.end());
  EXPECT_EQ(needles, words);
}

TEST(KernelPrefilter, FindsEveryNeedleAndSkipsNoise) {
  const std::pair<const char*, std::size_t> cases[] = {
      {"NVRM: x", 0},
      {"a SXid (", 3},  // the needle is "Xid"
      {"Reason:Xid 79", 7},
      {"{\"MESSAGE\":[78,86]", 1},
      {"WorkNCCL(", 4},
      {"in libnccl.so", 3},
      {"Killed process 1", 0},
      {"x invoked oom-killer:", 10},
      {"AER: x", 0},
      {"PCIe Bus Error", 0},
      {"PCIe bandwidth", 0},
      {"nvidia-fabricmanager", 7},
      {"[ERROR] [tid 1]", 0},
      {"probe failed with error -1", 6},
      {"x error status/mask=0", 8},
      {"  [ 5] SDES", 7},
      {"[ 5] Surprise Down Error", 5},
      {"Root Port link has been reset", 10},
      {"Unable to determine the device handle for GPU1: 0000:34:00.0", 20},
      {"$ nvidia-smi\tNo devices were found", 13},
      {"Failed to initialize NVML: Driver/library version mismatch", 0},
      {"NVIDIA-SMI has failed because it couldn't communicate", 0},
      {"nvidia-peermem nv_get_p2p_free_callback:127 ERROR", 7},
  };
  for (const auto& [s, at] : cases) {
    EXPECT_TRUE(LineMayMatter(s)) << s;
    // Long enough for the 32-byte vector path, with the needle at every alignment.
    for (std::size_t pad = 0; pad < 40; pad += 13) {
      std::string padded = std::string(pad + 40, 'z') + s + std::string(40, 'y');
      EXPECT_EQ(NextKernelNeedle(padded), pad + 40 + at) << s;
    }
  }
  // Walking from hit to hit finds every occurrence once, at any alignment,
  // including the scalar tail after the last full 32-byte block.
  for (std::size_t gap = 1; gap < 70; gap += 5) {
    std::string many;
    for (int i = 0; i < 9; ++i) many += std::string(gap, '.') + "NVRM";
    std::size_t hits = 0;
    for (std::size_t pos = 0; (pos = NextKernelNeedle(many, pos)) != std::string::npos; ++pos) {
      EXPECT_EQ(many.compare(pos, 4, "NVRM"), 0);
      ++hits;
    }
    EXPECT_EQ(hits, 9u) << gap;
  }
  EXPECT_FALSE(LineMayMatter("[  1.0] usb 1-1: new high-speed USB device number 2"));
  EXPECT_FALSE(LineMayMatter("EXT4-fs (sda1): mounted filesystem with ordered data mode"));
  EXPECT_EQ(CountNewlines(std::string(100, '\n'), 10, 60), 50u);
}


TEST(KernelEvents, AnAddressThatIsNotABusIdIsKeptWithWhy) {
  auto ev = Extract({
      // Device 0x25 and function 8 do not exist on PCI: not a bus id.
      "NVRM: Xid (PCI:0000:3a:25): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      "usb 1-1: new device",
      "NVRM: GPU 0000:18:00.8: RmInitAdapter failed! (0x22:0x56:894)",
      "usb 1-1: new device",
      "NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=a, An uncorrectable double bit error",
  });
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].pci_bus_id, "");
  EXPECT_EQ(ev[0].pci_not_bus_id, "0000:3a:25");
  EXPECT_EQ(ev[0].pci_not_bus_id_why, "device 0x25 is above 0x1f");
  EXPECT_EQ(ev[1].kind, K::kFallenOffBus);  // derived from the Xid 79, with what it says of the address
  EXPECT_EQ(ev[1].pci_not_bus_id, "0000:3a:25");
  EXPECT_EQ(ev[2].pci_bus_id, "");
  EXPECT_EQ(ev[2].pci_not_bus_id, "0000:18:00.8");
  EXPECT_EQ(ev[2].pci_not_bus_id_why, "function 8 is above 7");
  EXPECT_EQ(ev[3].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(ev[3].pci_not_bus_id, "");
}

TEST(KernelEvents, KernelGspAssertionsAreGspEvents) {
  auto ev = Extract({
      // ublue-os/bazzite#4449 and NVIDIA/open-gpu-kernel-modules#1045.
      "NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1446",
      "usb 1-1: new device",
      "NVRM: GPU0 nvCheckFailedNoLog: Check failed: pKernelChannel != NULL @ kernel_gsp.c:640",
      "usb 1-1: new device",
      // Assertions elsewhere in the driver are not GSP's.
      "NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ osapi.c:1688",
  });
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, K::kGspTimeout);
  EXPECT_EQ(ev[0].detail, "assertion at kernel_gsp.c:1446");
  EXPECT_EQ(ev[0].gpu_number, 0);
  EXPECT_EQ(ev[1].detail, "assertion at kernel_gsp.c:640");
}

}  // namespace
}  // namespace gpudoctor
