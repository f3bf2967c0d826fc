// End-to-end: `gpudoctor stress` on the fake NVML and the fake libcuda
// (tests/fake_cuda), both driven by one scenario: every stress.* finding from
// the fault that causes it, the refusals (no CUDA, cuInit failing, a busy
// GPU, a second run), and SIGTERM in the middle of a burn.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/stress_e2e.h"
#include "support/background_process.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

TEST_F(StressE2e, HealthyRunMeasuresEveryTestAndLoadsTheGpusInNvml) {
  // An L4 (published peak 300 GB/s) whose copies run at 290 GB/s, on a
  // Gen2 x16 link (8 GB/s) that copies at 6.5 GB/s, to its peer at 6: no
  // finding (a peer copy above what the link carries would question the
  // expectation). Slow rates: each copy takes tens of milliseconds, far
  // above timer slack.
  json cuda = {{"hbm_gbps", 290}, {"h2d_gbps", 6.5}, {"d2h_gbps", 6.5}, {"p2p_gbps", 6}};
  json a = StressGpu("0000:01:00.0", cuda), b = StressGpu("0000:02:00.0", cuda);
  for (json* g : {&a, &b}) {
    (*g)["name"] = "NVIDIA L4";
    (*g)["pcie_link_gen_current"] = (*g)["pcie_link_gen_max"] = 2;
    (*g)["pcie_link_width_current"] = (*g)["pcie_link_width_max"] = 16;
  }
  auto s = Scenario({a, b});
  // 5 % of the fake's 79 GiB free: each pattern pass takes a fraction of a second.
  // Each test ends when it has measured what it needs, the burn at its
  // time: a slow machine (sanitizers, every core busy) has the time.
  auto r = Run(s, {"--tests", "power,hbm,memory,pcie,p2p", "--duration", "8s", "--memory-fraction", "0.05"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  ASSERT_TRUE(r.report.is_object()) << r.process.err;
  EXPECT_EQ(r.report["schema"], "gpudoctor.report/v1");
  EXPECT_EQ(r.report["command"], "stress");
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  // Said what it would run, and for how long, before starting.
  EXPECT_NE(r.process.err.find("will run hbm, memory, pcie, p2p, power on 2 GPU(s)"), std::string::npos)
      << r.process.err;
  EXPECT_NE(r.process.err.find("each test for at most 8 s (40 s in all)"), std::string::npos);
  const json& active = r.report["active"];
  EXPECT_EQ(active["tests"], json({"hbm", "memory", "pcie", "p2p", "power"}));
  // Both directions of the one pair, with peer access.
  ASSERT_EQ(active["p2p"].size(), 2u);
  EXPECT_EQ(active["p2p"][0]["src_pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(active["p2p"][0]["dst_pci_bus_id"], "0000:02:00.0");
  EXPECT_EQ(active["p2p"][1]["src_index"], 1);
  for (const json& p : active["p2p"]) {
    EXPECT_EQ(p["peer_access"], true);
    EXPECT_LE(p["gbps"].get<double>(), 10.1);
  }
  EXPECT_EQ(active["interrupted"], false);
  ASSERT_EQ(active["gpus"].size(), 2u);
  for (const json& g : active["gpus"]) {
    // The burn raised the fake GPU's power to 97 % of its 700 W limit in NVML.
    ASSERT_TRUE(g["power"].is_object()) << g.dump(2);
    EXPECT_EQ(g["power"]["power_peak_w"], 679) << g.dump(2);
    EXPECT_GT(g["power"]["samples"].get<int>(), 0);
    EXPECT_GT(g["power"]["burn_tflops"].get<double>(), 0);
    EXPECT_GT(g["power"]["temperature_max_c"].get<int>(), 35);
    // hbm against the L4's published 300 GB/s; the fake copies at 290 GB/s,
    // and a measurement can come out slower, never faster.
    EXPECT_EQ(g["hbm"]["published_peak_gbps"], 300);
    EXPECT_LE(g["hbm"]["gbps"].get<double>(), 291) << g.dump(2);
    EXPECT_GT(g["hbm"]["gbps"].get<double>(), 0);
    EXPECT_NE(g["hbm"]["peak_source"].get<std::string>().find("datasheet"), std::string::npos);
    EXPECT_EQ(g["memory"]["patterns"], json({"0x00", "0xFF", "0xAA", "0x55", "address"}));
    EXPECT_EQ(g["memory"]["mismatches"], 0);
    EXPECT_GT(g["memory"]["tested_bytes"].get<double>(), 3.5 * (1ull << 30));
    EXPECT_LE(g["memory"]["tested_bytes"].get<double>(), 0.05 * 79 * (1ull << 30));
    EXPECT_TRUE(g["cuda_error"].is_null());
    EXPECT_EQ(g["pcie"]["link_gen"], 2);
    EXPECT_EQ(g["pcie"]["link_width"], 16);
    EXPECT_EQ(g["pcie"]["link_theoretical_gbps"], 8);
    EXPECT_LE(g["pcie"]["h2d_gbps"].get<double>(), 6.6);
    EXPECT_GT(g["pcie"]["d2h_gbps"].get<double>(), 0);
    // The fake's link is full duplex: both directions at once overlap, at
    // most twice one direction's 6.5 GB/s and well above one alone.
    EXPECT_GT(g["pcie"]["bidir_gbps"].get<double>(), 1.2 * 6.5);
    EXPECT_LE(g["pcie"]["bidir_gbps"].get<double>(), 13.1);
  }
}

TEST_F(StressE2e, SlowPcieLink) {
  // A Gen5-capable GPU trained at Gen4 x16 (31.5 GB/s) whose copies run at 8 GB/s.
  json slow = StressGpu("0000:01:00.0", {{"h2d_gbps", 8}, {"d2h_gbps", 8}});
  slow["pcie_link_gen_current"] = 4;
  slow["pcie_link_gen_max"] = 5;
  slow["pcie_link_width_current"] = slow["pcie_link_width_max"] = 16;
  auto r = Run(Scenario({slow}), {"--tests", "pcie", "--duration", "20s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.pcie_below_link"});
  const json* f = FindingFor(r.report, "stress.pcie_below_link");
  EXPECT_NE((*f)["title"].get<std::string>().find("of its Gen4 x16 link"), std::string::npos);
  EXPECT_NE((*f)["evidence"].dump().find("trained at Gen4 x16 of Gen5 x16"), std::string::npos);
}

TEST_F(StressE2e, HalfDuplexPcieLinkIsFlagged) {
  // Gen3 x16 (15.75 GB/s) copying at 12 GB/s each way, but the two
  // directions take turns: both at once move no more than one alone.
  json half = StressGpu("0000:01:00.0", {{"h2d_gbps", 12}, {"d2h_gbps", 12}, {"pcie_duplex", "half"}});
  half["pcie_link_gen_current"] = half["pcie_link_gen_max"] = 3;
  half["pcie_link_width_current"] = half["pcie_link_width_max"] = 16;
  auto r = Run(Scenario({half}), {"--tests", "pcie", "--duration", "20s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.pcie_half_duplex"}) << r.report["findings"].dump(2);
  const json* f = FindingFor(r.report, "stress.pcie_half_duplex");
  EXPECT_EQ((*f)["gpus"], json({"0000:01:00.0"}));
  EXPECT_NE((*f)["title"].get<std::string>().find("both directions at once reach only"), std::string::npos);
  EXPECT_LE(r.report["active"]["gpus"][0]["pcie"]["bidir_gbps"].get<double>(), 12.1);
}

TEST_F(StressE2e, OneSlowLinkIsOneFinding) {
  // Three GPUs on Gen4 x16 (31.5 GB/s); the third's link moves 8 GB/s each
  // way and takes the directions in turn. Each rule sees a symptom of it
  // (a straggler in every direction, below its link, half duplex): one finding.
  std::vector<json> gpus;
  for (const char* bus : {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}) {
    const bool slow = std::string(bus) == "0000:03:00.0";
    json g = slow ? StressGpu(bus, {{"h2d_gbps", 8}, {"d2h_gbps", 8}, {"pcie_duplex", "half"}})
                  : StressGpu(bus, {{"h2d_gbps", 25}, {"d2h_gbps", 25}});
    g["pcie_link_gen_current"] = g["pcie_link_gen_max"] = 4;
    g["pcie_link_width_current"] = g["pcie_link_width_max"] = 16;
    gpus.push_back(g);
  }
  auto r = Run(Scenario(gpus), {"--tests", "pcie", "--duration", "20s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const json& f = r.report["findings"][0];
  EXPECT_EQ(f["id"], "stress.pcie_below_link");
  EXPECT_EQ(f["gpus"], json({"0000:03:00.0"}));
  const std::string evidence = f["evidence"].dump();
  EXPECT_NE(evidence.find("is a straggler"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("both directions at once reach only"), std::string::npos) << evidence;
  for (const json& g : r.report["gpus"]) {  // the verdict lines agree with it
    const bool slow = g["pci_bus_id"] == "0000:03:00.0";
    EXPECT_EQ(g["verdict"], slow ? "warning" : "ok") << g.dump();
    EXPECT_EQ(g["findings"], slow ? json({"stress.pcie_below_link"}) : json::array()) << g.dump();
  }
}

TEST_F(StressE2e, ALinkSlowOneWayIsNotHalfDuplex) {
  // Gen5 x16 (63 GB/s): host to device 10 GB/s, device to host 50 GB/s.
  json g = StressGpu("0000:01:00.0", {{"h2d_gbps", 10}, {"d2h_gbps", 50}});
  g["pcie_link_gen_current"] = g["pcie_link_gen_max"] = 5;
  g["pcie_link_width_current"] = g["pcie_link_width_max"] = 16;
  auto r = Run(Scenario({g}), {"--tests", "pcie", "--duration", "20s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.pcie_below_link"}) << r.report["findings"].dump(2);
  const json* f = FindingFor(r.report, "stress.pcie_below_link");
  EXPECT_NE((*f)["title"].get<std::string>().find("PCIe host-to-device copies reach only"), std::string::npos)
      << (*f)["title"];
  EXPECT_NE((*f)["title"].get<std::string>().find("slow one way"), std::string::npos) << (*f)["title"];
}

TEST_F(StressE2e, HbmFarBelowPeakAndAStraggler) {
  auto s = Scenario({StressGpu("0000:01:00.0"), StressGpu("0000:02:00.0"),
                     StressGpu("0000:03:00.0", {{"burn_tflops", 20}})});
  auto r = Run(s, {"--tests", "power,hbm", "--duration", "2s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  // 100 GB/s is 3 % of the H100's 3.35 TB/s.
  std::set<std::string> slow;
  for (const auto& f : r.report["findings"]) {
    if (f["id"] != "stress.hbm_below_peak") continue;
    for (const auto& g : f["gpus"]) slow.insert(g.get<std::string>());
  }
  EXPECT_EQ(slow, (std::set<std::string>{"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}))
      << r.report["findings"].dump(2);
  const json* straggler = FindingFor(r.report, "stress.straggler");
  ASSERT_NE(straggler, nullptr) << r.report["findings"].dump(2);
  EXPECT_EQ((*straggler)["gpus"], json({"0000:03:00.0"}));
  EXPECT_NE((*straggler)["title"].get<std::string>().find("FP32 burn rate"), std::string::npos);
}

TEST_F(StressE2e, MemoryMismatchesAreCriticalWithAddresses) {
  auto s = Scenario({StressGpu("0000:01:00.0"),
                     StressGpu("0000:02:00.0", {{"mismatch_offsets", {4096, 1048576}}})});
  auto r = Run(s, {"--tests", "memory", "--duration", "5s", "--memory-fraction", "0.05"});
  ASSERT_EQ(r.process.exit_code, 2) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.memory_mismatch"});
  const json& g = r.report["active"]["gpus"][1];
  EXPECT_EQ(g["memory"]["mismatches"], 10);  // two words in each of five patterns
  ASSERT_EQ(g["memory"]["mismatch_addresses"].size(), 2u);
  const json* f = FindingFor(r.report, "stress.memory_mismatch");
  EXPECT_EQ((*f)["gpus"], json({"0000:02:00.0"}));
  EXPECT_NE((*f)["evidence"].dump().find("(4096 bytes into the tested range)"), std::string::npos);
}

TEST_F(StressE2e, GpuLostUnderLoad) {
  json lost = StressGpu("0000:02:00.0");
  lost["under_load"] = {{"faults", {{{"kind", "lost"}, {"at_s", 0.5}}}}};
  auto s = Scenario({StressGpu("0000:01:00.0"), lost});
  auto r = Run(s, {"--tests", "power", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 2) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.gpu_lost"});
  const json* f = FindingFor(r.report, "stress.gpu_lost");
  EXPECT_EQ((*f)["gpus"], json({"0000:02:00.0"}));
  EXPECT_NE((*f)["title"].get<std::string>().find("s into its load"), std::string::npos);
  EXPECT_NE(r.report["active"]["gpus"][1]["cuda_error"]["message"].get<std::string>().find(
                "CUDA_ERROR_LAUNCH_FAILED"),
            std::string::npos);
  EXPECT_TRUE(r.report["active"]["gpus"][0]["cuda_error"].is_null());
}

TEST_F(StressE2e, SeveralGpusLostWithinASecondPointToThePowerSupply) {
  json a = StressGpu("0000:02:00.0"), b = StressGpu("0000:03:00.0");
  a["under_load"] = {{"faults", {{{"kind", "lost"}, {"at_s", 0.5}}}}};
  b["under_load"] = {{"faults", {{{"kind", "lost"}, {"at_s", 0.8}}}}};
  auto s = Scenario({StressGpu("0000:01:00.0"), a, b});
  auto r = Run(s, {"--tests", "power", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 2) << r.process.err;
  const json* f = FindingFor(r.report, "stress.power_supply");
  ASSERT_NE(f, nullptr) << r.report["findings"].dump(2);
  EXPECT_EQ((*f)["gpus"], json({"0000:02:00.0", "0000:03:00.0"}));
  EXPECT_NE((*f)["title"].get<std::string>().find("2 GPUs lost within"), std::string::npos);
  EXPECT_EQ(r.report["findings"][0]["id"], "stress.power_supply");  // the cause comes first
}

TEST_F(StressE2e, PowerBrakeAndThermalSlowdownUnderLoad) {
  json brake = StressGpu("0000:01:00.0"), hot = StressGpu("0000:02:00.0");
  brake["under_load"] = {{"metrics", {{"clock_event_reasons", {{"steps", {{0.5, 128}}}}}}}};
  hot["under_load"] = {{"metrics", {{"clock_event_reasons", {{"steps", {{1.0, 32}}}}}}}};
  auto s = Scenario({brake, hot});
  auto r = Run(s, {"--tests", "power", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), (std::set<std::string>{"stress.power_brake", "stress.thermal_slowdown"}));
  EXPECT_EQ((*FindingFor(r.report, "stress.power_brake"))["gpus"], json({"0000:01:00.0"}));
  EXPECT_EQ((*FindingFor(r.report, "stress.thermal_slowdown"))["gpus"], json({"0000:02:00.0"}));
  EXPECT_EQ(r.report["active"]["gpus"][0]["power"]["clock_event_reasons"], json({"hw_power_brake_slowdown"}));
}

TEST_F(StressE2e, WeakPeerPair) {
  auto s = Scenario({StressGpu("0000:01:00.0", {{"p2p_peer_gbps", {{"0000:03:00.0", 3}}}}),
                     StressGpu("0000:02:00.0"), StressGpu("0000:03:00.0")});
  auto r = Run(s, {"--tests", "p2p", "--duration", "5s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(r.report["active"]["p2p"].size(), 6u);
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.weak_peer_pair"});
  const json* f = FindingFor(r.report, "stress.weak_peer_pair");
  EXPECT_EQ((*f)["gpus"], json({"0000:01:00.0", "0000:03:00.0"}));
  EXPECT_NE((*f)["title"].get<std::string>().find("GPU 0 → GPU 2"), std::string::npos);
}

TEST_F(StressE2e, ClocksHeldWithoutReasonUnderLoad) {
  json held = StressGpu("0000:01:00.0");
  held["under_load"] = {{"metrics", {{"clocks_sm_mhz", {{"steps", {{0.0, 1300}}}}}}}};
  auto r = Run(Scenario({held}), {"--tests", "power", "--duration", "2s"});
  ASSERT_EQ(r.process.exit_code, 1) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.clocks_held"});
  EXPECT_EQ(r.report["active"]["gpus"][0]["power"]["sm_clock_max_mhz"], 1300);
}

TEST_F(StressE2e, XidUnderLoad) {
  json xid = StressGpu("0000:01:00.0");
  xid["under_load"] = {{"faults", {{{"kind", "xid"}, {"at_s", 0.3}, {"code", 48}}}}};
  auto r = Run(Scenario({xid}), {"--tests", "power", "--duration", "3s"});
  ASSERT_EQ(r.process.exit_code, 2) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.gpu_lost"});
  const json* f = FindingFor(r.report, "stress.gpu_lost");
  EXPECT_EQ((*f)["xids"], json({48}));
  EXPECT_NE((*f)["title"].get<std::string>().find("reported Xid 48 under load"), std::string::npos);
}

TEST_F(StressE2e, StaggeredStartLoadsOneGpuAfterAnother) {
  auto s = Scenario({StressGpu("0000:01:00.0"), StressGpu("0000:02:00.0")});
  auto r = Run(s, {"--tests", "power", "--duration", "2s", "--start", "staggered"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_NE(r.process.err.find("GPUs started one after another"), std::string::npos);
  EXPECT_EQ(r.report["active"]["start"], "staggered");
  // GPU 1 waits duration / (2 x 2 GPUs) = 0.5 s before its first launch.
  const json& gpus = r.report["active"]["gpus"];
  EXPECT_GE(gpus[1]["power"]["started_s"].get<double>(), gpus[0]["power"]["started_s"].get<double>() + 0.45)
      << gpus.dump(2);
}

TEST_F(StressE2e, LaunchFailureIsACudaError) {
  auto s = Scenario({StressGpu("0000:01:00.0", {{"launch_error", "CUDA_ERROR_LAUNCH_FAILED"},
                                                {"launch_error_after_s", 0.3}})});
  auto r = Run(s, {"--tests", "power", "--duration", "2s"});
  ASSERT_EQ(r.process.exit_code, 2) << r.process.err;
  EXPECT_EQ(FindingIds(r.report), std::set<std::string>{"stress.cuda_error"});
  EXPECT_NE((*FindingFor(r.report, "stress.cuda_error"))["title"].get<std::string>().find(
                "CUDA failed in the power test: cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED"),
            std::string::npos);
}

TEST_F(StressE2e, WithoutCudaOneLineAndExit3) {
  auto s = Scenario({StressGpu("0000:01:00.0")});
  ProcessOptions o = Options();
  o.env["GPUDOCTOR_CUDA_LIBRARY"] = (dir_.path() / "no-libcuda.so.1").string();
  auto r = Run(s, {"--duration", "1s"}, o);
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_EQ(std::count(r.process.err.begin(), r.process.err.end(), '\n'), 1) << r.process.err;
  EXPECT_NE(r.process.err.find("gpudoctor: cannot run stress: no CUDA driver: cannot load"), std::string::npos)
      << r.process.err;
}

TEST_F(StressE2e, WithoutTheNvidiaDriverOneLineAndExit3) {
  auto s = Scenario({StressGpu("0000:01:00.0")}, {{"init_error", "NVML_ERROR_DRIVER_NOT_LOADED"}});
  auto r = Run(s, {"--duration", "1s"});
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_EQ(std::count(r.process.err.begin(), r.process.err.end(), '\n'), 1) << r.process.err;
  EXPECT_EQ(r.process.err.rfind("gpudoctor: cannot run stress: ", 0), 0u) << r.process.err;
  EXPECT_TRUE(r.report.is_null());
}

TEST_F(StressE2e, CuInitFailingIsExit3) {
  auto s = Scenario({StressGpu("0000:01:00.0")}, {{"cuda", {{"init_error", "CUDA_ERROR_NO_DEVICE"}}}});
  auto r = Run(s, {"--duration", "1s"});
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_NE(r.process.err.find("CUDA does not start: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device"),
            std::string::npos)
      << r.process.err;
}

TEST_F(StressE2e, BusyGpuIsRefusedUnlessForced) {
  json busy = StressGpu("0000:01:00.0");
  busy["processes"] = {{{"pid", 4242}, {"name", "python"}, {"used_memory_bytes", 1 << 30}}};
  auto s = Scenario({busy});
  auto refused = Run(s, {"--tests", "hbm", "--duration", "1s"});
  EXPECT_EQ(refused.process.exit_code, 3);
  EXPECT_NE(refused.process.err.find("runs 1 compute process(es) (pid 4242); stop them, or pass --force"),
            std::string::npos)
      << refused.process.err;
  EXPECT_TRUE(refused.report.is_null());
  auto forced = Run(s, {"--tests", "hbm", "--duration", "1s", "--force"});
  EXPECT_NE(forced.process.exit_code, 3) << forced.process.err;
  EXPECT_TRUE(forced.report.is_object());
}

TEST_F(StressE2e, OneRunAtATime) {
  auto s = Scenario({StressGpu("0000:01:00.0")});
  std::string lock = (dir_.path() / "stress.lock").string();
  int fd = open(lock.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  auto r = Run(s, {"--tests", "hbm", "--duration", "1s"});
  close(fd);
  EXPECT_EQ(r.process.exit_code, 3);
  EXPECT_NE(r.process.err.find("another gpudoctor stress is running"), std::string::npos) << r.process.err;
}

TEST_F(StressE2e, SigtermStopsTheBurnAndStillReports) {
  auto s = Scenario({StressGpu("0000:01:00.0"), StressGpu("0000:02:00.0")});
  std::string log = (dir_.path() / "log.txt").string();
  std::string report = (dir_.path() / "sigterm.json").string();
  auto env = FakeNvmlEnv(s);
  env["GPUDOCTOR_STRESS_LOCK"] = (dir_.path() / "stress.lock").string();
  BackgroundProcess p(GpudoctorArgv({"stress", "--tests", "power", "--duration", "120s", "--format", "json",
                                     "--output", report}),
                      env, log);
  ASSERT_TRUE(p.started());
  // Wait until the burn has begun (the progress line), then SIGTERM.
  bool burning = false;
  for (int i = 0; i < 300 && !burning; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    burning = text.str().find("gpudoctor stress: power on 2 GPU(s)") != std::string::npos;
  }
  ASSERT_TRUE(burning);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  p.Signal(SIGTERM);
  // Far below the 120 s the burn was asked for: it stopped on the signal.
  int status = p.Wait(std::chrono::seconds(30));
  ASSERT_NE(status, -1) << "still running 30 s after SIGTERM";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(report);
  json doc = json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["active"]["interrupted"], true);
  EXPECT_LT(doc["active"]["ran_s"].get<double>(), 120);
  std::ifstream logged(log);
  std::stringstream text;
  text << logged.rdbuf();
  EXPECT_NE(text.str().find("kernels stopped, device memory freed"), std::string::npos) << text.str();
}

TEST_F(StressE2e, RulesListsTheStressRules) {
  auto r = RunGpudoctor({"rules"}, "");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* id : {"stress.power_supply", "stress.gpu_lost", "stress.memory_mismatch", "stress.cuda_error",
                         "stress.power_brake", "stress.thermal_slowdown", "stress.straggler",
                         "stress.hbm_below_peak", "stress.pcie_below_link", "stress.clocks_held",
                         "stress.weak_peer_pair", "stress.peer_pair_below_links", "stress.pcie_half_duplex",
                         "stress.peer_pair_above_links"}) {
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  }
  EXPECT_NE(r.out.find("[needs active]"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::test
