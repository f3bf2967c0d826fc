// Every kernel / journal / NCCL log among the shared fixtures, with the
// events a person reading it would list. Expectations were written by hand
// from reading each file (see fixtures/SOURCES.md for where each comes from).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "parse/kernel_events.h"

namespace gpudoctor {
namespace {

using K = KernelEventKind;
constexpr int kNone = -1;

struct Ev {
  K kind;
  int code;                      // kNone: no code
  const char* pci;               // "" : none
  long long pid;                 // kNone: none
  const char* process;           // "" : none
  std::size_t count;             // folded repeats
  int n = 1;                     // how many such events
  const char* detail = nullptr;  // nullptr: not checked
};

struct FileCase {
  const char* path;  // below fixtures/
  std::vector<Ev> events;
};

const char* kA1 = "0000:a1:00.0";
const char* k01 = "0000:01:00.0";
const char* k9b = "0000:9b:00.0";
const char* k61 = "0000:61:00.0";

std::vector<FileCase> Cases() {
  return {
      {"kernel/akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log",
       {{K::kDriverLoaded, kNone, "", kNone, "", 1, 1, "535.161.07"},
        {K::kGpuUuid, kNone, kA1, kNone, "", 1, 1, "GPU-979426f2-893a-7cbb-c4cf-81472f89a462"},
        {K::kXid, 79, kA1, kNone, "", 1},
        {K::kFallenOffBus, 79, kA1, kNone, "", 1}}},
      {"kernel/bumblebee-issue-329-xid16-xid8-legacy-304-no-pci-prefix.log",
       {{K::kGpuUuid, kNone, k01, kNone, "", 1, 1, "GPU-009fc6be-db2e-11be-ceae-9ba664de1bac"},
        {K::kXid, 16, k01, kNone, "", 1, 8},
        {K::kXid, 8, k01, kNone, "", 1}}},
      {"kernel/bumblebee-issue-677-xid32-31-legacy-engmask.log",
       {{K::kXid, 32, k01, kNone, "", 2}, {K::kXid, 31, k01, kNone, "", 1}}},
      {"kernel/cube-studio-issue-29-fabricmanager-start-failed-rtx4090.log",
       {{K::kFabricManagerError, kNone, "", 4756, "nvidia-fabricmanager-start.sh", 1, 1,
         "nothing to do (no NVSwitch)"},
        {K::kFabricManagerError, kNone, "", 4753, "nvidia-fabricmanager-start.sh", 1, 1, "exited"},
        {K::kFabricManagerError, kNone, "", kNone, "", 1, 1, "service failed"}}},
      {"kernel/dxvk-issue-1027-xid31-13-32-driver418.log",
       {{K::kGpuUuid, kNone, k01, kNone, "", 1},
        {K::kXid, 31, k01, kNone, "", 1},
        {K::kXid, 13, k01, kNone, "", 1, 4},
        {K::kXid, 32, k01, kNone, "", 1}}},
      {"kernel/ecc-howto-doc-xid48-63-94-a100-550.90.07.log",
       {{K::kXid, 48, "0000:52:00.0", kNone, "", 1},
        {K::kXid, 63, "0000:52:00.0", kNone, "", 1},
        {K::kXid, 94, "0000:52:00.0", kNone, "", 1}}},
      {"kernel/gpu-operator-issue-610-fabricmanager-nv-warn-nothing-to-do-a40.log",
       {{K::kFabricManagerError, kNone, "", 4177, "nv-fabricmanager", 1, 1,
         "nothing to do (no NVSwitch)"},
        {K::kFabricManagerError, kNone, "", kNone, "", 1, 1, "service failed"}}},
      {"kernel/gpud-pr-46-xid13-109-dmesg-ctime.log",
       {{K::kPeermemError, kNone, "", kNone, "", 1, 1, "nv_get_p2p_free_callback"},
        {K::kXid, 13, "0000:cb:00.0", kNone, "", 1, 3},
        {K::kXid, 109, "0000:cb:00.0", 1797828, "pt_main_thread", 1}}},
      {"kernel/gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log",
       {{K::kFabricManagerError, 12028, "0000:86:00.0", kNone, "", 1, 1, "non-fatal"}}},
      {"kernel/gpud-testdata-nccl-segfault-libnccl-dmesg-decode-iso.log",
       {{K::kNcclSegfault, kNone, "", 2536443, "pt_main_thread", 2, 1, "libnccl.so.2"}}},
      {"kernel/gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log",
       {{K::kGpuUuid, kNone, k9b, kNone, "", 1, 1, "GPU-509665ad-b600-ac93-3616-d754b23d636d"},
        {K::kXid, 119, k9b, 2024380, "nvidia-smi", 1, 3},
        {K::kGspTimeout, 119, k9b, 2024380, "nvidia-smi", 1, 1, "103 (GSP_RM_ALLOC)"},
        {K::kGspTimeout, 119, k9b, 2024380, "nvidia-smi", 1, 2, "10 (FREE)"},
        {K::kGspTimeout, kNone, k9b, kNone, "", 1, 1, "rate limited"},
        {K::kXid, 119, k9b, 1263500, "cache_mgr_main", 1},
        {K::kGspTimeout, 119, k9b, 1263500, "cache_mgr_main", 1, 1, "76 (GSP_RM_CONTROL)"},
        {K::kXid, 119, k9b, 1240590, "gpud", 1},
        {K::kGspTimeout, 119, k9b, 1240590, "gpud", 1, 1, "76 (GSP_RM_CONTROL)"}}},
      {"kernel/mlengineering-xid63-row-remapper-pid-only.log",
       {{K::kXid, 63, "0000:10:1c.0", 1896, "", 1}}},
      {"kernel/nvforum-364958-rtxpro6000-blackwell-xid120-154-gsp-exception.log",
       {{K::kXid, 120, k01, kNone, "", 1},
        {K::kXid, 154, k01, kNone, "", 1, 1, "GPU Reset Required"},
        {K::kRecoveryAction, 154, k01, kNone, "", 1, 1, "GPU Reset Required"}}},
      {"kernel/nvforum-371272-rtx5080-xid62-154-gsp-watchdog.log",
       {{K::kXid, 62, k01, kNone, "", 1},
        {K::kXid, 154, k01, kNone, "", 1},
        {K::kRecoveryAction, 154, k01, kNone, "", 1, 1, "GPU Reset Required"}}},
      {"kernel/nvsentinel-issue-155-fallen-off-bus-multiline-570.log",
       {{K::kFallenOffBus, kNone, "0000:b3:00.0", kNone, "", 1, 1, "probe"},
        {K::kProbeFailed, kNone, "", kNone, "", 1, 1, "1 device(s)"},
        {K::kDriverLoaded, kNone, "", kNone, "", 1, 1, "570.158.01"}}},
      {"kernel/open-gpu-kernel-modules-issue-1150-xid45-after-xid145-149-590.log",
       {{K::kXid, 45, "0000:dc:00.0", 1818990, "python3", 1, 2},
        {K::kXid, 45, "0000:ed:00.0", 1818992, "python3", 1, 2},
        {K::kXid, 45, "0000:ba:00.0", 1818989, "python3", 1, 2},
        {K::kXid, 45, "0000:97:00.0", 1818987, "python3", 1}}},
      {"kernel/"
       "open-gpu-kernel-modules-issue-1151-rtx5080-rminitadapter-failed-after-xid79-journal.log",
       // The log begins with the second line of a failure (rm_init_adapter
       // failed, its RmInitAdapter line cut off): a failure of its own. The
       // two whole ones carry their second line as a continuation.
       {{K::kRmInitFailed, kNone, "0000:09:00.0", kNone, "", 1},
        {K::kRmInitFailed, kNone, "0000:09:00.0", kNone, "", 2, 1, "(0x22:0x56:894)"}}},
      {"kernel/open-gpu-kernel-modules-issue-1200-rtx5080-gsp-heartbeat-xid154.log",
       {{K::kGspHeartbeat, kNone, "", kNone, "", 1},
        {K::kXid, 154, k01, kNone, "", 1},
        {K::kRecoveryAction, 154, k01, kNone, "", 1, 1, "GPU Reset Required"}}},
      {"kernel/open-gpu-kernel-modules-issue-363-xid31-gtx1660ti-515.log",
       {{K::kGpuUuid, kNone, "0000:08:00.0", kNone, "", 1, 1, "GPU-UID"},
        {K::kXid, 31, "0000:08:00.0", 169800, "chrome", 1},
        {K::kXid, 31, "0000:08:00.0", 174421, "chrome", 1}}},
      {"kernel/open-gpu-kernel-modules-issue-446-xid119-gsp-timeout-a30-525.85.12-dmesg-T.log",
       {{K::kGpuUuid, kNone, k61, kNone, "", 1},
        // nvidia-smi stuck in D state behind the GSP timeouts.
        {K::kHungTask, kNone, "", 1346229, "nvidia-smi", 1},
        // 28 Xid 119 lines. A cause (kind, code, GPU, detail) is listed as
        // at most 8 events as the log streams; its later lines add to the
        // 8th (count, varied lines), so a flood costs no memory: the Xids
        // are 7 events and one of 21, the GSP timeouts per RPC function.
        {K::kXid, 119, k61, 1344368, "nvidia-smi", 1, 3},
        {K::kXid, 119, k61, 1346198, "nvidia-smi", 1, 4},
        {K::kXid, 119, k61, 1346198, "nvidia-smi", 21},
        {K::kGspTimeout, 119, k61, 1344368, "nvidia-smi", 1, 3, "10 (FREE)"},
        {K::kGspTimeout, 119, k61, 1346198, "nvidia-smi", 1, 3, "10 (FREE)"},
        {K::kGspTimeout, 119, k61, 1346198, "nvidia-smi", 1, 6, "76 (GSP_RM_CONTROL)"},
        {K::kGspTimeout, 119, k61, 1346198, "nvidia-smi", 1, 4, "103 (GSP_RM_ALLOC)"},
        {K::kGspTimeout, 119, k61, 1346198, "nvidia-smi", 5, 1, "76 (GSP_RM_CONTROL)"},
        {K::kGspTimeout, 119, k61, 1346198, "nvidia-smi", 7, 1, "76 (GSP_RM_CONTROL)"}}},
      {"kernel/open-gpu-kernel-modules-issue-829-xid120-gsp-task-exception-riscv-dump.log",
       {{K::kGpuUuid, kNone, "0000:06:00.0", kNone, "", 1},
        {K::kXid, 120, "0000:06:00.0", kNone, "", 1}}},
      {"kernel/openshift-notes-xid119-gsp-timeout-new-format-rminitadapter-535.log",
       {{K::kXid, 119, k61, 123417, "nv-hostengine", 1, 2},
        {K::kGspTimeout, 119, k61, 123417, "nv-hostengine", 1, 2, "10 (FREE)"},
        {K::kGspTimeout, kNone, k61, kNone, "", 1, 1, "rate limited"},
        // 4 failures 3 s apart, then one 15 minutes later.
        {K::kRmInitFailed, kNone, "0000:41:00.0", kNone, "", 4, 1, "(0x62:0x40:2404)"},
        {K::kRmInitFailed, kNone, "0000:41:00.0", kNone, "", 1, 1, "(0x62:0x40:2404)"},
        {K::kXid, 119, k61, 126121, "nvidia-smi", 1},
        {K::kGspTimeout, 119, k61, 126121, "nvidia-smi", 1, 1, "76 (GSP_RM_CONTROL)"},
        {K::kOomKill, kNone, "", kNone, "mimir", 1, 1, "invoked"}}},
      {"kernel/relion-issue-436-xid13-illegal-instruction.log",
       {{K::kXid, 13, "0000:41:00.0", kNone, "", 1, 8}}},
      {"kernel/vulkan-samples-issue-379-xid13-shader-program-header-journalctl.log",
       {{K::kXid, 13, k01, 2183, "", 1, 4},
        {K::kXid, 13, k01, 25555, "", 1},
        {K::kXid, 13, k01, 27768, "", 1}}},
      {"other/basicsr-issue-737-nccl-watchdog-timeout-new-format.log",
       {{K::kNcclTimeout, kNone, "", kNone, "", 1, 1,
         "rank 1, ALLREDUCE, SeqNum=808, "
         "timeout 600000 ms, ran 600020 ms"},
        {K::kNcclTimeout, kNone, "", kNone, "", 1, 2}}},
      {"other/ofa-issue-271-nccl-watchdog-timeout-old-format-8xv100.log",
       {{K::kNcclTimeout, kNone, "", kNone, "", 1, 1,
         "rank 1, ALLREDUCE, SeqNum=469508, "
         "timeout 1800000 ms, ran 1802212 ms"},
        {K::kNcclTimeout, kNone, "", kNone, "", 1, 4}}},
      {"other/bugreport-rtx3060-laptop-arch-2022-header-excerpt.log", {}},
      {"other/mlengineering-dmesg-pcie-bandwidth-limited.txt",
       {{K::kPcieBandwidthLimited, kNone, "0000:04:00.0", kNone, "", 1},
        {K::kPcieBandwidthLimited, kNone, "0000:8b:00.0", kNone, "", 1}}},
  };
}

std::string Describe(const KernelEvent& e) {
  std::ostringstream o;
  o << KernelEventKindName(e.kind) << " code=" << e.code.value_or(kNone) << " pci=" << e.pci_bus_id
    << " pid=" << e.pid.value_or(kNone) << " process=" << e.process << " count=" << e.count
    << " detail=" << e.detail << " @" << e.source.line;
  return o.str();
}

bool Matches(const Ev& x, const KernelEvent& e) {
  return x.kind == e.kind && x.code == e.code.value_or(kNone) && x.pci == e.pci_bus_id &&
         x.pid == e.pid.value_or(kNone) && x.process == e.process && x.count == e.count &&
         (!x.detail || x.detail == e.detail);
}

std::vector<LogLine> ReadLines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<LogLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    lines.push_back(LogLine{text, SourceRef{path.filename().string(), lines.size() + 1}, {}, {}});
  }
  return lines;
}

TEST(KernelEventsFixtures, EachFileYieldsTheEventsAPersonWouldList) {
  std::filesystem::path root = std::filesystem::path(SHARED_DIR) / "fixtures";
  if (!std::filesystem::is_directory(root / "kernel")) {
    GTEST_SKIP() << "shared fixtures not found at " << root << "; skipping fixture checks";
  }
  for (const auto& c : Cases()) {
    SCOPED_TRACE(c.path);
    ASSERT_TRUE(std::filesystem::exists(root / c.path)) << "missing fixture " << c.path;
    ExtractOptions opts;
    opts.time.year = 2025;
    auto events = ExtractKernelEvents(ReadLines(root / c.path), opts);
    std::vector<bool> used(events.size(), false);
    for (const auto& x : c.events) {
      int found = 0;
      for (std::size_t i = 0; i < events.size() && found < x.n; ++i) {
        if (!used[i] && Matches(x, events[i])) used[i] = true, ++found;
      }
      EXPECT_EQ(found, x.n) << "expected " << x.n << " x " << KernelEventKindName(x.kind)
                            << " code=" << x.code << " pci=" << x.pci << " pid=" << x.pid
                            << " count=" << x.count;
    }
    for (std::size_t i = 0; i < events.size(); ++i) {
      EXPECT_TRUE(used[i]) << "unexpected event: " << Describe(events[i]);
    }
  }
}

// Every log-like fixture is in the table above (nvidia-smi tables and
// topology dumps in other/ are not kernel logs).
TEST(KernelEventsFixtures, TableCoversEveryKernelLog) {
  std::filesystem::path root = std::filesystem::path(SHARED_DIR) / "fixtures";
  if (!std::filesystem::is_directory(root / "kernel")) {
    GTEST_SKIP() << "shared fixtures not found at " << root;
  }
  std::set<std::string> listed;
  for (const auto& c : Cases()) listed.insert(c.path);
  for (const auto& dir : {"kernel", "other"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      std::string rel = std::string(dir) + "/" + entry.path().filename().string();
      bool log_like = std::string(dir) == "kernel" || entry.path().extension() == ".log" ||
                      rel.find("dmesg") != std::string::npos;
      if (log_like) {
        EXPECT_TRUE(listed.count(rel)) << "no expectations for " << rel;
      }
    }
  }
}

// Spot checks of fields the table does not show.
TEST(KernelEventsFixtures, MultiLineDetails) {
  std::filesystem::path root = std::filesystem::path(SHARED_DIR) / "fixtures";
  if (!std::filesystem::is_directory(root / "kernel")) GTEST_SKIP() << "no shared fixtures";
  auto akash = ExtractKernelEvents(ReadLines(
      root / "kernel/akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log"));
  ASSERT_GE(akash.size(), 3u);
  const KernelEvent& xid = akash[2];
  EXPECT_EQ(xid.message, "GPU has fallen off the bus.");
  ASSERT_EQ(xid.continuation.size(), 4u);
  EXPECT_EQ(xid.continuation[0], "NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus.");
  EXPECT_EQ(xid.continuation[3], "NVRM: the NVIDIA kernel module is unloaded.");
  EXPECT_EQ(xid.source.line, 7u);
  ASSERT_TRUE(xid.time.has_value());

  auto gsp = ExtractKernelEvents(
      ReadLines(root / "kernel/gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log"));
  ASSERT_GE(gsp.size(), 2u);
  EXPECT_EQ(gsp[0].continuation.size(), 1u);   // board serial number
  EXPECT_EQ(gsp[1].continuation.size(), 21u);  // RPC buffer + two history tables
  EXPECT_EQ(PciToUuid(gsp).at(k9b), "GPU-509665ad-b600-ac93-3616-d754b23d636d");

  auto riscv = ExtractKernelEvents(ReadLines(
      root / "kernel/open-gpu-kernel-modules-issue-829-xid120-gsp-task-exception-riscv-dump.log"));
  ASSERT_EQ(riscv.size(), 2u);
  EXPECT_EQ(riscv[1].continuation.size(), 10u);

  auto probe = ExtractKernelEvents(
      ReadLines(root / "kernel/nvsentinel-issue-155-fallen-off-bus-multiline-570.log"));
  ASSERT_FALSE(probe.empty());
  EXPECT_EQ(probe[0].continuation.size(), 2u);
  EXPECT_TRUE(IndicatesGpuLost(probe[0]));
}

}  // namespace
}  // namespace gpudoctor
