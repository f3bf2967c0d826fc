// End-to-end: `gpudoctor analyze` on every real capture in
// ../shared/fixtures, one file at a time. The table holds, for each file, the
// exit code, the verdict and the finding ids. Each row was reviewed against
// the file itself (see SOURCES.md for what each shows): e.g. the Xid 79 log
// is critical with xid.fallen_off_bus, and gpu.lost for the GPU whose
// "Unable to determine the device handle" nvidia-smi printed above it, a steady x8 link on a cloud A10G is
// info (the slot may be x8), the sw-power-cap capture of 8 RTX 4090s is a
// warning for memory above 90 %, the default tables whose GPU shows ERR! in
// most cells after an Xid 119 are critical with gpu.lost only (not also a
// fan or memory finding for that GPU), a fan showing ERR! alone is a
// thermal.fan warning, an idle desktop whose only processes are graphics
// (type G: gnome-shell, Xwayland) is not "mostly waiting", the nvlink -s / -e
// captures of healthy nodes are OK, and the topology matrices are not
// inputs analyze accepts (exit 3, one line naming the file). Files not in the table fail the test, so a new fixture needs a
// reviewed row.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "support/fixtures.h"
#include "support/run_process.h"

namespace gpudoctor::test {
namespace {

struct Expected {
  const char* file;
  int exit_code;
  const char* verdict;  // "" when the file is not accepted
  const char* ids;      // space-separated, sorted
};

const Expected kExpected[] = {
    {"xml/datakit-gtx1050-515.65.01-nodtd.xml", 0, "info", "pcie.link_degraded utilization.low"},
    {"xml/datakit-tesla-v100-pcie-32gb-460.39-v11.xml", 0, "info", "config.persistence_mode"},
    {"xml/netdata-a100-sxm4-40gb-mig-510.47.03-v11.xml", 0, "info", "config.persistence_mode"},
    {"xml/netdata-rtx2080-windows-516.59-v11.xml", 0, "info", "pcie.link_degraded utilization.low"},
    {"xml/netdata-rtx3060-laptop-515.65.01-v11.xml", 0, "info",
     "config.persistence_mode pcie.link_degraded utilization.low"},
    {"xml/netdata-rtx4090-535.86.05-v12.xml", 0, "ok", ""},
    {"xml/telegraf-a10g-515.105.01-v11.xml", 0, "info",
     "config.persistence_mode pcie.link_degraded utilization.low"},
    {"xml/telegraf-dual-rtx2070-590.44.01-v13.xml", 0, "info", "pcie.link_degraded"},
    {"xml/telegraf-dual-rtx2080-590.44.01-v13.xml", 0, "info", "pcie.link_degraded"},
    {"xml/telegraf-dual-rtxa5000-590.44.01-v13.xml", 1, "warning",
     "memory.pressure utilization.low"},
    {"xml/telegraf-gt1030-470.74-v11.xml", 0, "info", "config.persistence_mode utilization.low"},
    {"xml/telegraf-quadro-p2000-525.125.06-v12.xml", 0, "info", "pcie.link_degraded"},
    {"xml/telegraf-quadro-p400-418.43-nodtd.xml", 0, "info", "config.persistence_mode"},
    {"xml/telegraf-rtx3060-570.124.04-v12.xml", 0, "ok", ""},
    {"xml/telegraf-rtx3080-595.58.03-v13.xml", 0, "info", "config.persistence_mode"},
    {"xml/telegraf-rtx3080-windows-536.40-v12.xml", 0, "info", "utilization.low"},
    {"xml/telegraf-rtx3090-525.147.05-v12.xml", 0, "info", "config.power_limit"},
    {"xml/telegraf-rtx4000-sff-ada-595.84-v13.xml", 0, "info", "utilization.low"},
    {"xml/telegraf-tesla-t4-515.105.01-v11.xml", 0, "info",
     "config.persistence_mode pcie.link_degraded utilization.low"},
    {"xml/telegraf-tesla-t4-windows-512.78-v11.xml", 0, "info", "utilization.low"},
    {"text/ecc-howto-doc-nvidia-smi-q-d-ECC-ROW_REMAPPER-550.90.07-pending.txt", 1, "warning",
     "ecc.row_remap"},
    {"text/gpud-h100x8-535.183.01-q-replays.txt", 1, "warning",
     "power.brake thermal.slowdown utilization.low"},
    {"text/gpud-rtx4090x8-535.154.05-q-sw-power-cap.txt", 1, "warning",
     "memory.pressure power.cap utilization.saturated"},
    {"text/gpud-titanv-560.35.03-q.txt", 0, "info", "config.persistence_mode utilization.low"},
    {"text/gpuexporter-h100-80gb-hbm3-590.48.01-idle-q.txt", 0, "ok", ""},
    {"text/gpuexporter-h100-80gb-hbm3-590.48.01-load-q.txt", 0, "info", "utilization.saturated"},
    {"text/gpuexporter-h100-mig-590.48.01-idle-q.txt", 0, "ok", ""},
    {"text/gpuexporter-h200-mig-590.48.01-idle-q.txt", 0, "ok", ""},
    {"text/gpuexporter-l40s-595.80-load-q.txt", 0, "info",
     "config.persistence_mode utilization.low"},
    {"text/gpuexporter-rtx2080super-windows-591.86-idle-q.txt", 0, "info", "utilization.low"},
    {"text/gpuexporter-rtx4080super-595.71.05-idle-q.txt", 0, "info",
     "config.persistence_mode utilization.low"},
    {"text/mlengineering-a100-sxm4-80gb-510.73.08-q-excerpt-ecc-remapped-rows.txt", 1, "warning",
     "ecc.row_remap ecc.uncorrectable"},
    {"text/mlengineering-q-ecc-errors-sram-uncorrectable-excerpt.txt", 2, "critical",
     "ecc.uncorrectable"},
    {"kernel/akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log", 2,
     "critical", "gpu.lost xid.fallen_off_bus"},
    {"kernel/bumblebee-issue-329-xid16-xid8-legacy-304-no-pci-prefix.log", 1, "warning",
     "xid.other"},
    {"kernel/bumblebee-issue-677-xid32-31-legacy-engmask.log", 1, "warning",
     "xid.application xid.other"},
    {"kernel/cube-studio-issue-29-fabricmanager-start-failed-rtx4090.log", 0, "info",
     "fabricmanager.log_events"},
    {"kernel/dxvk-issue-1027-xid31-13-32-driver418.log", 1, "warning", "xid.application xid.other"},
    {"kernel/ecc-howto-doc-xid48-63-94-a100-550.90.07.log", 2, "critical", "xid.memory"},
    {"kernel/gpu-operator-issue-610-fabricmanager-nv-warn-nothing-to-do-a40.log", 0, "info",
     "fabricmanager.log_events"},
    {"kernel/gpud-pr-46-xid13-109-dmesg-ctime.log", 2, "critical",
     "gpudirect.peermem xid.application xid.other"},
    {"kernel/gpud-testdata-fabricmanager-log-nvswitch-nonfatal-12028.log", 2, "critical",
     "fabricmanager.log_events"},  // 12028 stalls NVLink traffic (SXid catalog)
    {"kernel/gpud-testdata-nccl-segfault-libnccl-dmesg-decode-iso.log", 1, "warning",
     "nccl.errors"},
    {"kernel/gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log", 2, "critical", "xid.gsp"},
    {"kernel/mlengineering-xid63-row-remapper-pid-only.log", 1, "warning", "xid.memory"},
    {"kernel/nvforum-364958-rtxpro6000-blackwell-xid120-154-gsp-exception.log", 2, "critical",
     "xid.gsp xid.recovery_action"},
    {"kernel/nvforum-371272-rtx5080-xid62-154-gsp-watchdog.log", 2, "critical",
     "xid.other xid.recovery_action"},
    {"kernel/nvsentinel-issue-155-fallen-off-bus-multiline-570.log", 2, "critical",
     "driver.rm_init_failed xid.fallen_off_bus"},
    {"kernel/open-gpu-kernel-modules-issue-1150-xid45-after-xid145-149-590.log", 0, "info",
     "xid.application"},
    {"kernel/"
     "open-gpu-kernel-modules-issue-1151-rtx5080-rminitadapter-failed-after-xid79-journal.log",
     2, "critical", "driver.rm_init_failed"},
    {"kernel/open-gpu-kernel-modules-issue-1200-rtx5080-gsp-heartbeat-xid154.log", 2, "critical",
     "xid.gsp xid.recovery_action"},
    {"kernel/open-gpu-kernel-modules-issue-363-xid31-gtx1660ti-515.log", 0, "info",
     "xid.application"},
    {"kernel/open-gpu-kernel-modules-issue-446-xid119-gsp-timeout-a30-525.85.12-dmesg-T.log", 2,
     "critical", "host.hung_task xid.gsp"},
    {"kernel/open-gpu-kernel-modules-issue-829-xid120-gsp-task-exception-riscv-dump.log", 2,
     "critical", "xid.gsp"},
    {"kernel/openshift-notes-xid119-gsp-timeout-new-format-rminitadapter-535.log", 2, "critical",
     "driver.rm_init_failed host.oom_kill xid.gsp"},
    {"kernel/relion-issue-436-xid13-illegal-instruction.log", 1, "warning", "xid.application"},
    {"kernel/vulkan-samples-issue-379-xid13-shader-program-header-journalctl.log", 1, "warning",
     "xid.application"},
    {"other/basicsr-issue-737-nccl-watchdog-timeout-new-format.log", 1, "warning", "nccl.errors"},
    {"other/bsyonline-nvidia-smi-table-v100x8-470.129.06.txt", 1, "warning",
     "memory.pressure utilization.low"},
    {"other/bsyonline-topo-matrix-v100x8-470.129.06.txt", 3, "", ""},
    {"other/bugreport-rtx3060-laptop-arch-2022-header-excerpt.log", 0, "ok", ""},
    {"other/gpud-nvidia-smi-table-err-fan-eprocess-525.125.06.txt", 1, "warning",
     "config.compute_mode config.persistence_mode thermal.fan utilization.low"},
    {"other/gpud-nvidia-smi-table-h100x8-550.90.07.txt", 0, "ok", ""},
    {"other/gpud-testdata-nvlink-status-a100x8.txt", 0, "ok", ""},
    {"other/gpuexporter-h100-590.48.01-load-table.txt", 0, "info", "utilization.saturated"},
    {"other/gpuexporter-h100-590.48.01-nvlink-s.txt", 0, "ok", ""},
    {"other/gpuexporter-h100-590.48.01-query-retired-pages.txt", 3, "", ""},
    {"other/gpuexporter-h100-590.48.01-topo-m.txt", 3, "", ""},
    {"other/gpuexporter-h100-mig-590.48.01-idle-table.txt", 0, "ok", ""},
    {"other/gpuexporter-h100-mig-590.48.01-nvlink-s-unsupported.txt", 0, "ok", ""},
    {"other/gpuexporter-h200-590.48.01-nvlink-s.txt", 0, "ok", ""},
    {"other/gpuexporter-h200-mig-590.48.01-load-table.txt", 0, "ok", ""},
    {"other/gpuexporter-l40s-595.80-load-table.txt", 0, "info",
     "config.persistence_mode utilization.low"},
    {"other/gpuexporter-rtx2080super-610.57.04-idle-table-kmd-header.txt", 0, "info",
     "config.persistence_mode"},
    {"other/gpuexporter-rtx2080super-windows-591.86-idle-table-wddm.txt", 0, "info",
     "utilization.low"},
    {"other/mangohud-issue-636-nvidia-smi-q-d-PERFORMANCE-495.44.txt", 0, "ok", ""},
    {"other/mlengineering-dmesg-pcie-bandwidth-limited.txt", 1, "warning",
     "pcie.bandwidth_limited"},
    {"other/mlengineering-h100-nvlink-e-excerpt.txt", 0, "ok", ""},
    {"other/mlengineering-h100-nvlink-status-excerpt.txt", 0, "ok", ""},
    {"other/ofa-issue-271-nccl-watchdog-timeout-old-format-8xv100.log", 1, "warning",
     "nccl.errors"},
    {"other/"
     "open-gpu-kernel-modules-issue-446-nvidia-smi-table-a30x8-err-after-xid119-525.85.12.txt",
     2, "critical", "config.persistence_mode gpu.lost"},
    {"other/"
     "open-gpu-kernel-modules-issue-446-nvidia-smi-table-a40x8-err-after-xid119-525.60.13.txt",
     2, "critical", "gpu.lost utilization.low"},
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.file; }

std::string IdsOf(const nlohmann::json& doc) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : " ") + id;
  return out;
}

ProcessOptions English() {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

// One test per fixture: each is one short run, so a slow machine (the
// sanitizer build is 3-5x slower) never meets the per-test timeout, and
// ctest spreads the files over its jobs.
class AnalyzeFixtureE2E : public ::testing::TestWithParam<Expected> {};

TEST_P(AnalyzeFixtureE2E, GivesItsReviewedVerdictAndFindings) {
  const Expected& e = GetParam();
  std::filesystem::path dir = FixtureDir("");
  if (!std::filesystem::is_directory(dir)) {
    GTEST_SKIP() << dir << " is missing: real-capture checks skipped";
  }
  std::string path = (dir / e.file).string();
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", path}, English());
  ASSERT_EQ(r.exit_code, e.exit_code) << e.file << ": " << r.err;
  if (e.exit_code == 3) {
    EXPECT_NE(r.err.find(path + ": not an nvidia-smi, bug report or kernel log file"),
              std::string::npos)
        << r.err;
    return;
  }
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["verdict"], e.verdict) << e.file;
  EXPECT_EQ(IdsOf(doc), e.ids) << e.file;
  EXPECT_EQ(doc["inputs"][0]["ok"], true) << e.file;
}

// The fixture's file name as a test name: letters and digits, the rest `_`.
std::string FixtureTestName(const ::testing::TestParamInfo<Expected>& info) {
  std::string name = info.param.file;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryFixture, AnalyzeFixtureE2E, ::testing::ValuesIn(kExpected),
                         FixtureTestName);

TEST(AnalyzeFixturesE2E, EveryFixtureHasAReviewedRow) {
  std::filesystem::path dir = FixtureDir("");
  if (!std::filesystem::is_directory(dir)) {
    GTEST_SKIP() << dir << " is missing: real-capture checks skipped";
  }
  std::set<std::string> in_table;
  for (const Expected& e : kExpected) {
    EXPECT_TRUE(in_table.insert(e.file).second) << e.file << " has two rows";
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / e.file)) << e.file << " is missing";
  }
  std::size_t files = 0;
  for (const char* sub : {"xml", "text", "kernel", "other"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir / sub)) {
      std::string rel = std::string(sub) + "/" + entry.path().filename().string();
      EXPECT_TRUE(in_table.count(rel)) << rel << " has no reviewed row in the table";
      ++files;
    }
  }
  EXPECT_EQ(files, in_table.size());
}

TEST(AnalyzeFixturesE2E, ChineseFindingsForEveryFixtureCarryNoEnglishTitles) {
  std::filesystem::path dir = FixtureDir("");
  if (!std::filesystem::is_directory(dir)) {
    GTEST_SKIP() << dir << " is missing: real-capture checks skipped";
  }
  std::vector<std::string> args = {GPUDOCTOR_BINARY, "analyze", "--format", "json", "--lang", "zh"};
  for (const Expected& e : kExpected) {
    if (e.exit_code != 3) args.push_back((dir / e.file).string());
  }
  auto r = RunProcess(args, English());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["lang"], "zh");
  ASSERT_GT(doc["findings"].size(), 20u);
  for (const auto& f : doc["findings"]) {
    std::string title = f["title"];
    std::string explanation = f["explanation"];
    bool has_cjk = false;
    for (unsigned char c : title + explanation) has_cjk = has_cjk || (c >= 0xE3 && c <= 0xE9);
    EXPECT_TRUE(has_cjk) << f["id"] << ": " << title;
  }
}

}  // namespace
}  // namespace gpudoctor::test
