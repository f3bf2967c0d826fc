// End-to-end: `gpudoctor analyze` on nvidia-smi's messages outside its grid
// (a lost GPU, no devices, NVML or the driver unreachable) and on 610's -q
// header. Real lines come from the shared fixtures or are quoted with their
// source.
#include <gtest/gtest.h>

#include <string>

#include "support/analyze_json.h"
#include "support/fixtures.h"
#include "support/nvsmi_610_header.h"

namespace gpudoctor::test {
namespace {

// The line nvidia-smi 610 printed above its table for a GPU it could not
// open (the form quoted in issue 15, seen in public session logs).
const char* kNoHandle610 =
    "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error\n";

TEST(AnalyzeSmiMessagesE2E, DeviceHandleLineAboveAKernelLogIsALostGpu) {
  std::string path =
      (FixtureDir("kernel") / "akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log")
          .string();
  std::string text = ReadFixtureFile(
      "kernel", "akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log");
  if (text.empty()) GTEST_SKIP() << "shared fixtures missing";
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", path}, EnglishOnly());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 1u);
  const json* gpu = GpuOf(doc, "0000:a1:00.0");
  ASSERT_TRUE(gpu) << doc["gpus"].dump(1);
  EXPECT_EQ((*gpu)["verdict"], "critical");
  EXPECT_TRUE(FindingOf(doc, "gpu.lost"));
  EXPECT_TRUE(FindingOf(doc, "xid.fallen_off_bus"));
}

TEST(AnalyzeSmiMessagesE2E, DeviceHandleLineAboveA610TableCountsAmongTheGpus) {
  std::string table = ReadFixtureFile("other", "gpuexporter-rtx2080super-610.57.04-idle-table-kmd-header.txt");
  if (table.empty()) GTEST_SKIP() << "shared fixtures missing";
  auto a = AnalyseText("smi.txt", kNoHandle610 + table);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(a.doc["inputs"][0]["kind"], "nvidia-smi-table");
  ASSERT_EQ(a.doc["gpus"].size(), 2u) << a.doc["gpus"].dump(1);
  const json* lost = GpuOf(a.doc, "0000:34:00.0");
  ASSERT_TRUE(lost);
  EXPECT_EQ((*lost)["verdict"], "critical");
  const json* ok = GpuOf(a.doc, "0000:0c:00.0");
  ASSERT_TRUE(ok);
  EXPECT_NE((*ok)["verdict"], "critical");
  const json* f = FindingOf(a.doc, "gpu.lost");
  ASSERT_TRUE(f);
  EXPECT_EQ((*f)["gpus"], json::array({"0000:34:00.0"}));
  EXPECT_NE((*f)["evidence"].dump().find("Unable to determine the device handle"),
            std::string::npos);
}

TEST(AnalyzeSmiMessagesE2E, FailureMessagesAreFindingsNotRefusals) {
  struct Case {
    std::string content;
    const char* title_part;
  };
  const Case cases[] = {
      {"$ nvidia-smi\nNo devices were found\n", "finds no GPU"},
      {"Failed to initialize NVML: Driver/library version mismatch\n",
       "kernel module and libraries differ"},
      {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
       "that the latest NVIDIA driver is installed and running.\n\n",
       "cannot reach the NVIDIA driver"},
  };
  for (const Case& c : cases) {
    auto a = AnalyseText("smi.txt", c.content);
    ASSERT_EQ(a.exit_code, 2) << c.content << a.err;
    EXPECT_EQ(a.doc["inputs"][0]["ok"], true);
    const json* f = FindingOf(a.doc, "driver.not_loaded");
    ASSERT_TRUE(f) << a.doc["findings"].dump(1);
    EXPECT_NE((*f)["title"].get<std::string>().find(c.title_part), std::string::npos)
        << (*f)["title"];
  }
}

TEST(AnalyzeSmiMessagesE2E, DriverMessageFollowedByKernelLines) {
  std::string log =
      ReadFixtureFile("kernel", "nvsentinel-issue-155-fallen-off-bus-multiline-570.log");
  if (log.empty()) GTEST_SKIP() << "shared fixtures missing";
  auto a = AnalyseText(
      "session.txt",
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
      "that the latest NVIDIA driver is installed and running.\n\n" +
          log);
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(a.doc["inputs"][0]["kind"], "kernel-log");
  auto ids = IdSet(a.doc);
  EXPECT_TRUE(ids.count("driver.not_loaded")) << a.doc["findings"].dump(1);
  EXPECT_TRUE(ids.count("xid.fallen_off_bus"));
}

// A shell session pasted into the middle of a long syslog, far past the
// part read to tell the file's kind: the streaming pass still finds it.
TEST(AnalyzeSmiMessagesE2E, MessagesDeepInALongStreamedLogAreFound) {
  std::string filler;
  for (int i = 0; filler.size() < 3 * 1024 * 1024; ++i) {
    filler += "Feb 15 17:37:45 node1 systemd[1]: Started session-" + std::to_string(i) +
              ".scope - Session of user alice.\n";
  }
  auto a = AnalyseText("syslog", filler + "root@node1:~# nvidia-smi\n" + kNoHandle610 + filler +
                                     "Feb 15 17:38:00 node1 kernel: [82659.755847] NVRM: Xid "
                                     "(PCI:0000:34:00): 79, pid='<unknown>', name=<unknown>, GPU "
                                     "has fallen off the bus.\n");
  ASSERT_EQ(a.exit_code, 2) << a.err;
  EXPECT_EQ(a.doc["inputs"][0]["kind"], "kernel-log");
  const json* lost = FindingOf(a.doc, "gpu.lost");
  ASSERT_NE(lost, nullptr) << a.doc["findings"].dump(1);
  EXPECT_EQ((*lost)["gpus"], json::array({"0000:34:00.0"}));
  // Without the session, only the Xid tells of it: no nvidia-smi evidence.
  auto plain = AnalyseText("syslog", filler +
                                         "Feb 15 17:38:00 node1 kernel: [82659.755847] NVRM: Xid "
                                         "(PCI:0000:34:00): 79, pid='<unknown>', name=<unknown>, "
                                         "GPU has fallen off the bus.\n");
  ASSERT_EQ(plain.exit_code, 2) << plain.err;
  EXPECT_EQ(plain.doc.dump().find("Unable to determine the device handle"), std::string::npos);
  EXPECT_NE(a.doc.dump().find("Unable to determine the device handle"), std::string::npos);
}

TEST(AnalyzeSmiMessagesE2E, Driver610QueryHasNoPhantomGpu) {
  std::string q595 = ReadFixtureFile("text", "gpuexporter-rtx4080super-595.71.05-idle-q.txt");
  if (q595.empty()) GTEST_SKIP() << "shared fixtures missing";
  std::string text = With610Header(q595);  // support/nvsmi_610_header.h
  ASSERT_FALSE(text.empty());
  auto a = AnalyseText("q610.txt", text);
  ASSERT_LE(a.exit_code, 1) << a.err;
  ASSERT_EQ(a.doc["gpus"].size(), 1u) << a.doc["gpus"].dump(1);
  EXPECT_EQ(a.doc["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(a.doc["inputs"][0]["kind"], "nvidia-smi-text");
  EXPECT_EQ(a.doc["host"]["driver_version"], "610.57.04");
  EXPECT_EQ(a.doc["host"]["cuda_driver_version"], "13.3");
}

}  // namespace
}  // namespace gpudoctor::test
