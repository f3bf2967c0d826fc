#include "parse/nvsmi_messages.h"

#include <gtest/gtest.h>

#include <string>

#include "analyze/smi_messages_input.h"
#include "support/fixtures.h"

namespace gpudoctor {
namespace {

TEST(NvsmiMessages, DeviceHandleLinesOfEveryDriverEra) {
  // 535 and older without the index (akash-network/support#209, in the
  // shared fixture kernel/akash-support-issue-209-...log).
  auto old = MatchNvidiaSmiMessage("Unable to determine the device handle for GPU0000:A1:00.0: Unknown Error");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->kind, NvsmiMessageKind::kNoDeviceHandle);
  EXPECT_EQ(old->pci_bus_id, "0000:a1:00.0");
  EXPECT_FALSE(old->gpu_index);
  EXPECT_EQ(old->reason, "Unknown Error");

  // With a space (NVIDIA/open-gpu-kernel-modules#387, 520.61.05).
  auto spaced = MatchNvidiaSmiMessage(
      "the command nvidia-smi outputs the folllowing error: Unable to determine the device "
      "handle for GPU 0000:0B:00.0: Unknown Error.");
  ASSERT_TRUE(spaced);
  EXPECT_EQ(spaced->pci_bus_id, "0000:0b:00.0");
  EXPECT_EQ(spaced->text.rfind("Unable to determine", 0), 0u);  // what stands before is cut

  // 610 with the index, above the table of the other GPUs.
  auto indexed = MatchNvidiaSmiMessage(
      "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error\r");
  ASSERT_TRUE(indexed);
  EXPECT_EQ(indexed->pci_bus_id, "0000:34:00.0");
  EXPECT_EQ(indexed->gpu_index, 1u);
  EXPECT_EQ(indexed->reason, "Unknown Error");
  EXPECT_EQ(indexed->text,
            "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error");

  // Windows wording, and "GPU is lost" as the reason.
  auto windows = MatchNvidiaSmiMessage(
      "Unable to detect the device handle for GPU1: 0000:05:00.0: GPU is lost.");
  ASSERT_TRUE(windows);
  EXPECT_EQ(windows->pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(windows->reason, "GPU is lost.");

  // A masked bus id still names the failure, without a GPU to name.
  auto masked = MatchNvidiaSmiMessage("Unable to determine the device handle for ******: Unknown Error");
  ASSERT_TRUE(masked);
  EXPECT_TRUE(masked->pci_bus_id.empty());
}

TEST(NvsmiMessages, FailureMessages) {
  auto none = MatchNvidiaSmiMessage("No devices were found");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->kind, NvsmiMessageKind::kNoDevices);
  auto init = MatchNvidiaSmiMessage("$ nvidia-smi Failed to initialize NVML: Driver/library version mismatch");
  ASSERT_TRUE(init);
  EXPECT_EQ(init->kind, NvsmiMessageKind::kNvmlInitFailed);
  EXPECT_EQ(init->reason, "Driver/library version mismatch");
  EXPECT_EQ(init->text, "Failed to initialize NVML: Driver/library version mismatch");
  auto driver = MatchNvidiaSmiMessage(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
      "that the latest NVIDIA driver is installed and running.");
  ASSERT_TRUE(driver);
  EXPECT_EQ(driver->kind, NvsmiMessageKind::kDriverUnreachable);
  EXPECT_FALSE(MatchNvidiaSmiMessage("NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>'"));
  EXPECT_FALSE(MatchNvidiaSmiMessage("the device handle for GPU1: 0000:34:00.0"));  // no "Unable to"
}

TEST(NvsmiMessages, FoundInAPastedSessionWithLineNumbers) {
  std::string text = test::ReadFixtureFile(
      "kernel", "akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log");
  if (text.empty()) GTEST_SKIP() << "shared fixtures missing";
  auto found = FindNvidiaSmiMessages(text);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].line, 2u);
  EXPECT_EQ(found[0].pci_bus_id, "0000:a1:00.0");

  std::string two = "No devices were found\nx\nFailed to initialize NVML: Unknown Error\n";
  auto both = FindNvidiaSmiMessages(two);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].line, 1u);
  EXPECT_EQ(both[1].line, 3u);
  EXPECT_EQ(both[1].reason, "Unknown Error");
  EXPECT_TRUE(FindNvidiaSmiMessages("").empty());
}

TEST(NvsmiMessages, LostGpusJoinTheReadingOnceEach) {
  SystemStatus status;
  status.nvml_loaded = true;
  GpuStatus g0;
  g0.index = 0;
  g0.pci_bus_id = "0000:18:00.0";
  GpuStatus g2;
  g2.index = 2;
  g2.pci_bus_id = "0000:3b:00.0";
  status.gpus = {g0, g2};
  auto messages = FindNvidiaSmiMessages(
      "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error\n"
      "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error\n");
  AddLostGpusFromMessages(messages, status);
  ASSERT_EQ(status.gpus.size(), 3u);
  EXPECT_EQ(status.gpus[1].pci_bus_id, "0000:34:00.0");
  EXPECT_EQ(status.gpus[1].index, 1u);
  EXPECT_EQ(status.gpus[1].state, GpuState::kLost);
  EXPECT_EQ(status.gpus[0].state, GpuState::kOk);

  auto alone = ReadingFromMessages(messages);
  ASSERT_TRUE(alone);
  EXPECT_TRUE(alone->nvml_loaded);
  ASSERT_EQ(alone->gpus.size(), 1u);

  auto failed = ReadingFromMessages(FindNvidiaSmiMessages("No devices were found\n"));
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->nvml_loaded);
  EXPECT_EQ(failed->nvml_error, "No devices were found");
  EXPECT_FALSE(ReadingFromMessages({}));
}

}  // namespace
}  // namespace gpudoctor
