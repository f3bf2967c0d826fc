// End-to-end: `gpudoctor facts --root` over a fake /proc, /sys and log tree,
// with the fake NVML: the evidence document names what it found and where.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

void PciGpu(const TempDir& root, const std::string& bdf, const std::string& width) {
  WriteH100Attributes(root, "sys/bus/pci/devices/" + bdf + "/", std::stoi(width));
}

TEST(FactsE2E, FakeRootWithDroppedGpuDegradedLinkAndXid) {
  TempDir root;
  root.Write("proc/stat", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\nbtime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       16384000 kB\nMemAvailable:    8192000 kB\n"
                             "SwapTotal:             0 kB\nSwapFree:              0 kB\n");
  root.Write("proc/vmstat", "pswpin 0\npswpout 0\npgmajfault 10\n");
  root.Write("proc/loadavg", "0.50 0.40 0.30 1/100 1234\n");
  PciGpu(root, "0000:3b:00.0", "16");
  PciGpu(root, "0000:86:00.0", "8");  // in sysfs, not in NVML: dropped
  root.Write("var/log/kern.log",
             "Feb 15 17:37:45 node1 kernel: [82659.755847] NVRM: Xid (PCI:0000:86:00): 79, "
             "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
  root.Write("proc/4242/comm", "python3\n");
  root.Write("proc/4242/cmdline", std::string("python3\0train.py\0", 17));
  root.Write("proc/4242/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\n");
  root.Write("proc/4242/cgroup",
             "0::/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n");
  root.Write("etc/passwd", "alice:x:1000:1000::/home/alice:/bin/bash\n");
  auto scenario = root.Write("scenario.json", R"({"driver_version": "550.54.15",
      "cuda_driver_version": 12040,
      "gpus": [{"name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:3b:00.0",
                "processes": [{"pid": 4242, "name": "python3", "used_memory_bytes": 1048576}]}]})");
  auto r = RunGpudoctor({"facts", "--json", "--root", root.path().string(), "--window", "100ms",
                         "--kernel-log", (root.path() / "var/log/kern.log").string()},
                        scenario);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "gpudoctor.facts/v1");
  EXPECT_EQ(doc["nvml"]["gpus"].size(), 1u);
  ASSERT_EQ(doc["dropped_gpus"].size(), 1u) << doc["dropped_gpus"];
  EXPECT_EQ(doc["dropped_gpus"][0]["bus_id"], "0000:86:00.0");
  EXPECT_EQ(doc["dropped_gpus"][0]["reason"], "not_in_nvml");
  ASSERT_EQ(doc["pci"]["gpus"].size(), 2u);
  bool saw_xid = false;
  for (const auto& e : doc["kernel"]["events"]) {
    if (e["kind"] == "xid" && e["code"] == 79) {
      saw_xid = true;
      EXPECT_EQ(e["pci_bus_id"], "0000:86:00.0");
      EXPECT_EQ(e["source"]["line"], 1);
    }
  }
  EXPECT_TRUE(saw_xid) << doc["kernel"];
  EXPECT_EQ(doc["host"]["memory"]["total_bytes"], 16384000LL * 1024) << doc["host"]["memory"];
  ASSERT_EQ(doc["gpu_processes"].size(), 1u);
  const auto& proc = doc["gpu_processes"][0];
  EXPECT_EQ(proc["pid"], 4242);
  EXPECT_EQ(proc["user"], "alice") << proc;
  EXPECT_EQ(proc["cmdline"], "python3 train.py") << proc;
  EXPECT_NE(proc.dump().find("0123456789ab"), std::string::npos) << proc;
  // Sources that do not exist under the fake root are listed with a reason.
  bool driver_version_missing = false;
  for (const auto& s : doc["versions"]["driver"]["sources"]) {
    if (s["source"] == "/proc/driver/nvidia/version") driver_version_missing = !s["available"].get<bool>();
  }
  EXPECT_TRUE(driver_version_missing);
}

TEST(FactsE2E, TextOutputAndBadRoot) {
  TempDir root;
  auto scenario = root.Write("scenario.json", R"({"driver_version": "550.54.15", "gpus": []})");
  auto text = RunGpudoctor({"facts", "--root", root.path().string(), "--window", "50ms"}, scenario);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("schema: gpudoctor.facts/v1"), std::string::npos);
  EXPECT_NE(text.out.find("driver_version: 550.54.15"), std::string::npos);
  auto bad = RunGpudoctor({"facts", "--root", "/nonexistent/root"}, scenario);
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("--root /nonexistent/root: not a directory"), std::string::npos) << bad.err;
  auto bad_since = RunGpudoctor({"facts", "--since", "yesterday"}, scenario);
  EXPECT_EQ(bad_since.exit_code, 3);
}

}  // namespace
}  // namespace gpudoctor::test
