// analyze over real kernel lines of host faults from public posts
// (tests/data/host_faults, each cited in its SOURCES.md): tasks blocked in D
// state, soft lockups and RCU stalls, panics and oopses, NVMe timeouts and
// removals, block-layer and buffer I/O errors, EXT4/XFS failures, md RAID
// members lost, NFS and Lustre servers that stop answering, EDAC, mce and
// GHES memory errors, full kernel tables. Each expectation (the rule, its
// severity, and what its title must name) was checked by hand against the
// excerpt. On the main branch before the host rows of the catalog, none of
// them gave a finding, and two were refused (no stamp, no GPU word).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "analyze/analyze_input.h"
#include "diagnosis/diagnose_window.h"

namespace gpudoctor {
namespace {
namespace analyze_host_faults_local {

struct Expected {
  std::string file;
  std::vector<std::pair<std::string, Severity>> findings;  // id, severity; in the diagnosis' order
  std::string title_has;                                   // what the host finding's title must say
};

class HostFaultExcerpt : public ::testing::TestWithParam<Expected> {};

TEST_P(HostFaultExcerpt, GivesTheReviewedFinding) {
  const Expected& e = GetParam();
  AnalyzeResult r = AnalyzeFiles({std::string(TEST_DATA_DIR) + "/host_faults/" + e.file}, Config{});
  ASSERT_EQ(r.files.size(), 1u);
  ASSERT_TRUE(r.files[0].ok) << r.files[0].error;
  EXPECT_EQ(r.files[0].kind, InputKind::kKernelLog);
  auto d = DiagnoseWindow(r.input, DiagnosisRequest{});
  ASSERT_TRUE(d.ok()) << d.error().message;
  std::vector<std::pair<std::string, Severity>> got;
  bool named = false;
  for (const Finding& f : d->findings) {
    got.emplace_back(f.id, f.severity);
    named = named || f.title.en.find(e.title_has) != std::string::npos;
  }
  EXPECT_EQ(got, e.findings);
  EXPECT_TRUE(named) << "no title says: " << e.title_has;
}

using S = Severity;
INSTANTIATE_TEST_SUITE_P(
    Posts, HostFaultExcerpt,
    ::testing::Values(
        Expected{"01_hung_task_1.log", {{"host.hung_task", S::kCritical}}, "`nvc:[driver]`"},
        Expected{"01_hung_task_2.log", {{"host.hung_task", S::kCritical}}, "`python`"},
        Expected{"01_hung_task_3.log", {{"host.hung_task", S::kWarning}}, "more than 122 s"},
        Expected{"01_hung_task_4.log", {{"host.hung_task", S::kWarning}}, "more than 1228 s"},
        Expected{"02_soft_lockup_1.log", {{"host.cpu_stall", S::kWarning}}, "`pytest`"},
        Expected{"02_soft_lockup_2.log", {{"host.cpu_stall", S::kWarning}}, "`chia_plot`"},
        Expected{"02_soft_lockup_3.log", {{"host.cpu_stall", S::kWarning}}, "`frigate.output`"},
        Expected{"02_soft_lockup_4.log", {{"host.cpu_stall", S::kWarning}}, "`docker`"},
        Expected{"03_rcu_stall_1.log", {{"host.cpu_stall", S::kWarning}}, "RCU stall"},
        Expected{"03_rcu_stall_2.log", {{"host.cpu_stall", S::kWarning}}, "RCU stall"},
        Expected{"03_rcu_stall_3.log", {{"host.cpu_stall", S::kWarning}}, "2 reports"},
        Expected{"03_rcu_stall_4.log", {{"host.cpu_stall", S::kWarning}}, "RCU stall"},
        Expected{"04_panic_1.log", {{"host.kernel_crash", S::kCritical}}, "`khungtaskd`"},
        Expected{"04_panic_2.log",
                 {{"host.kernel_crash", S::kCritical}, {"host.cpu_stall", S::kWarning}},
                 "panic: softlockup: hung tasks"},
        Expected{"04_panic_3.log", {{"host.kernel_crash", S::kCritical}}, "`swapper/3`"},
        Expected{"05_kernel_bug_1.log",
                 {{"host.kernel_crash", S::kCritical}},
                 "NULL pointer dereference"},
        Expected{"05_kernel_bug_2.log",
                 {{"driver.rm_init_failed", S::kCritical}, {"host.kernel_crash", S::kCritical}},
                 "NULL pointer dereference"},
        Expected{"05_kernel_bug_3.log", {{"host.kernel_crash", S::kCritical}}, "`kvm`"},
        Expected{"05_kernel_bug_4.log",
                 {{"host.kernel_crash", S::kCritical}},
                 "kernel BUG at include/linux/swapops.h:88"},
        Expected{"06_nvme_1.log",
                 {{"host.storage", S::kCritical}},
                 "`nvme2` (I/O timeout, removed, reset failed)"},
        Expected{"06_nvme_2.log", {{"host.storage", S::kWarning}}, "`nvme1` (I/O timeout)"},
        Expected{"06_nvme_3.log", {{"host.storage", S::kCritical}}, "`nvme0n1` (I/O error)"},
        Expected{"07_buffer_io_1.log", {{"host.storage", S::kCritical}}, "`cas1-1` (I/O error)"},
        Expected{"07_buffer_io_2.log", {{"host.storage", S::kCritical}}, "`cas1-1` (I/O error)"},
        Expected{"07_buffer_io_3.log",
                 {{"host.storage", S::kCritical}},
                 "`mmcblk0p2` (I/O error, filesystem error)"},
        Expected{"08_block_io_1.log", {{"host.storage", S::kCritical}}, "`dm-0` (I/O error)"},
        Expected{"08_block_io_2.log", {{"host.storage", S::kCritical}}, "`sdc` (I/O error)"},
        Expected{"08_block_io_3.log", {{"host.storage", S::kCritical}}, "`sda` (I/O error)"},
        Expected{"08_block_io_4.log", {{"host.storage", S::kCritical}}, "`nvme1n1` (I/O error)"},
        Expected{"09_filesystem_1.log",
                 {{"host.storage", S::kCritical}},
                 "`dm-25` (filesystem error, remounted read-only)"},
        Expected{"09_filesystem_2.log",
                 {{"host.storage", S::kCritical}},
                 "`sda1` (filesystem error, remounted read-only)"},
        Expected{"09_filesystem_3.log",
                 {{"host.storage", S::kCritical}},
                 "`dm-11` (filesystem shut down)"},
        Expected{"09_filesystem_4.log",
                 {{"host.storage", S::kCritical}},
                 "`dm-0` (I/O error, filesystem error)"},
        Expected{"09_filesystem_5.log",
                 {{"host.storage", S::kCritical}},
                 "`sdb6` (I/O error, filesystem shut down)"},
        Expected{"10_md_raid_1.log", {{"host.storage", S::kCritical}}, "`md126` (disk sdb failed)"},
        Expected{"10_md_raid_2.log", {{"host.storage", S::kCritical}}, "disk sdd1 failed"},
        Expected{"11_beyond_end_1.log", {{"host.storage", S::kCritical}}, "beyond end of device"},
        Expected{
            "11_beyond_end_2.log", {{"host.storage", S::kCritical}}, "`hda4` (filesystem error)"},
        Expected{"12_nfs_1.log",
                 {{"host.network_fs", S::kWarning}},
                 "`nfs 192.168.0.1` stopped answering (11 reports), then recovered"},
        Expected{"12_nfs_2.log",
                 {{"host.network_fs", S::kWarning}},
                 "`nfs thinkcentre` stopped answering (3 reports), then recovered"},
        Expected{"12_nfs_3.log",
                 {{"host.network_fs", S::kCritical}},
                 "`nfs td-mf-cl2.princeton.edu` is not answering"},
        Expected{"12_nfs_4.log",
                 {{"host.network_fs", S::kCritical}},
                 "`nfs fileserver` is not answering"},
        Expected{"13_lustre_1.log",
                 {{"host.network_fs", S::kCritical}},
                 "`lustre 172.31.126.88@o2ib` is not answering"},
        Expected{"14_memory_1.log",
                 {{"host.memory_errors", S::kWarning}},
                 "1 corrected on `CPU_SrcID#0_Ha#0_Chan#2_DIMM#0`"},
        Expected{"14_memory_2.log",
                 {{"host.memory_errors", S::kWarning}},
                 "1 corrected on `CPU_SrcID#1_Ha#0_Chan#0_DIMM#0`"},
        Expected{"14_memory_3.log",
                 {{"host.memory_errors", S::kCritical}},
                 "1 uncorrected on `NODE 3 CPU0_DIMM_G1`"},
        Expected{"14_memory_4.log",
                 {{"host.memory_errors", S::kCritical}},
                 "1 uncorrected on `CPU_SrcID#0_MC#3_Chan#0_DIMM#0`"},
        Expected{
            "14_memory_5.log", {{"host.memory_errors", S::kCritical}}, "1 uncorrected on `B2`"},
        Expected{"15_limits_1.log", {{"host.limit_reached", S::kCritical}}, "fs.file-max"},
        Expected{"15_limits_2.log", {{"host.limit_reached", S::kCritical}}, "3 reports"},
        Expected{"15_limits_3.log", {{"host.limit_reached", S::kWarning}}, "nf_conntrack_max"},
        Expected{"15_limits_4.log", {{"host.limit_reached", S::kWarning}}, "nf_conntrack_max"},
        Expected{"15_limits_5.log",
                 {{"host.limit_reached", S::kCritical}},
                 "`/system.slice/icinga2.service`"},
        Expected{"15_limits_6.log",
                 {{"host.limit_reached", S::kCritical}},
                 "`/system.slice/nsncd.service`"}));

// Three real boot logs of healthy machines (tests/data/healthy_boot,
// SOURCES.md): NVMe enumeration, EXT4 and XFS mounts, EDAC and mce start-up,
// NFS modules, an unclean FAT volume note, firmware warnings. None of their
// lines is a host fault.
class HealthyBoot : public ::testing::TestWithParam<std::string> {};

TEST_P(HealthyBoot, GivesNoHostFinding) {
  AnalyzeResult r =
      AnalyzeFiles({std::string(TEST_DATA_DIR) + "/healthy_boot/" + GetParam()}, Config{});
  ASSERT_EQ(r.files.size(), 1u);
  ASSERT_TRUE(r.files[0].ok) << r.files[0].error;
  ASSERT_TRUE(r.input.kernel.has_value());
  for (const KernelEvent& e : r.input.kernel->events) {
    EXPECT_LT(static_cast<int>(e.kind), static_cast<int>(KernelEventKind::kHungTask))
        << KernelEventKindName(e.kind) << ": " << e.message;
  }
  auto d = DiagnoseWindow(r.input, DiagnosisRequest{});
  ASSERT_TRUE(d.ok()) << d.error().message;
  for (const Finding& f : d->findings) {
    EXPECT_NE(f.id.rfind("host.", 0), 0u) << f.id << ": " << f.title.en;
  }
}

INSTANTIATE_TEST_SUITE_P(Boots, HealthyBoot,
                         ::testing::Values("gpud-hgx-h100-dell-nvme-ext4-nfs.log",
                                           "asus-esc8000g4-gpu-nvme-ext4.log",
                                           "aws-r5d-xlarge-nvme-xfs.log"));

}  // namespace analyze_host_faults_local
}  // namespace
}  // namespace gpudoctor
