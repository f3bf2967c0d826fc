// host.memory_edac over EDAC sysfs trees laid out as the kernel's EDAC
// drivers write them (skx_edac/i10nm: mcN/dimmM with dimm_label,
// dimm_ce_count, dimm_ue_count; old drivers: csrowK/chJ_ce_count): an
// uncorrected error is critical and names the DIMM, corrected errors at
// 10 a day warn, a few corrected errors over weeks and a VM without EDAC
// are no finding.
#include <gtest/gtest.h>

#include "collect/edac.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"
#include "support/temp_files.h"

namespace gpudoctor::testing {
namespace {
namespace rule_host_memory_edac_local {

using gpudoctor::test::TempDir;

const std::string kMc = "sys/devices/system/edac/mc/";

void Dimm(const TempDir& root, const std::string& mc, const std::string& dimm,
          const std::string& label, int ce, int ue) {
  const std::string d = kMc + mc + "/" + dimm + "/";
  root.Write(d + "dimm_label", label + "\n");
  root.Write(d + "dimm_location", "channel 0 slot 0 \n");
  root.Write(d + "size", "32768\n");
  root.Write(d + "dimm_ce_count", std::to_string(ce) + "\n");
  root.Write(d + "dimm_ue_count", std::to_string(ue) + "\n");
}

void Controller(const TempDir& root, const std::string& mc, long seconds, int ue_noinfo = 0) {
  root.Write(kMc + mc + "/mc_name", "Intel_10nm Socket#0 IMC#0\n");
  root.Write(kMc + mc + "/seconds_since_reset", std::to_string(seconds) + "\n");
  root.Write(kMc + mc + "/ue_noinfo_count", std::to_string(ue_noinfo) + "\n");
  root.Write(kMc + mc + "/ce_noinfo_count", "0\n");
}

DiagnosisInput Read(const TempDir& root) {
  CollectContext ctx;
  ctx.root = root.path();
  DiagnosisInput input;
  input.host = HostFacts{};
  input.host->edac = ReadEdac(ctx);
  return input;
}

TEST(HostMemoryEdac, AnUncorrectedErrorIsCriticalAndNamesTheDimm) {
  TempDir root;
  Controller(root, "mc0", 86400);
  Dimm(root, "mc0", "dimm0", "CPU_SrcID#0_MC#0_Chan#0_DIMM#0", 0, 0);
  Dimm(root, "mc0", "dimm1", "CPU_SrcID#0_MC#0_Chan#1_DIMM#0", 3, 1);
  auto input = Read(root);
  ASSERT_EQ(input.host->edac.dimms.size(), 2u);
  auto d = RunRule(kHostMemoryEdacRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "host.memory_edac");
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].title.en.find("CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (mc0/dimm1)"),
            std::string::npos)
      << d.findings[0].title.en;
  EXPECT_EQ(d.findings[0].title.en.find("Chan#0_DIMM#0"), std::string::npos);
}

TEST(HostMemoryEdac, CorrectedErrorsAtTenADayWarnFewOverWeeksDoNot) {
  TempDir root;
  Controller(root, "mc0", 2L * 86400);
  Dimm(root, "mc0", "dimm0", "DIMM_A1", 20, 0);  // 10 a day
  Controller(root, "mc1", 2L * 86400);
  Dimm(root, "mc1", "dimm0", "DIMM_B1", 19, 0);  // 9.5 a day
  auto d = RunRule(kHostMemoryEdacRule, Read(root));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].title.en.find("DIMM_A1"), std::string::npos);
  EXPECT_EQ(d.findings[0].title.en.find("DIMM_B1"), std::string::npos);
  ASSERT_EQ(d.findings[0].evidence.size(), 1u);
  EXPECT_DOUBLE_EQ(*d.findings[0].evidence[0].value, 10.0);

  TempDir quiet;
  Controller(quiet, "mc0", 30L * 86400);
  Dimm(quiet, "mc0", "dimm0", "DIMM_A1", 40, 0);  // 40 in 30 days
  EXPECT_TRUE(RunRule(kHostMemoryEdacRule, Read(quiet)).findings.empty());
}

TEST(HostMemoryEdac, OldDriversCountPerRowAndChannel) {
  TempDir root;
  Controller(root, "mc0", 3600);
  root.Write(kMc + "mc0/csrow0/ch0_ce_count", "50\n");
  root.Write(kMc + "mc0/csrow0/ch0_dimm_label", "CPU#0Channel#0_DIMM#0\n");
  root.Write(kMc + "mc0/csrow0/ch1_ce_count", "0\n");
  root.Write(kMc + "mc0/csrow0/ue_count", "0\n");
  auto input = Read(root);
  ASSERT_EQ(input.host->edac.dimms.size(), 2u);
  EXPECT_EQ(input.host->edac.dimms[0].name, "csrow0/ch0");
  auto d = RunRule(kHostMemoryEdacRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("CPU#0Channel#0_DIMM#0"), std::string::npos);
}

TEST(HostMemoryEdac, UnplacedUncorrectedErrorsCountAndNoEdacIsNotChecked) {
  TempDir root;
  Controller(root, "mc0", 3600, 2);
  Dimm(root, "mc0", "dimm0", "DIMM_A1", 0, 0);
  auto d = RunRule(kHostMemoryEdacRule, Read(root));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kCritical);
  EXPECT_NE(d.findings[0].title.en.find("a DIMM the controller did not name"), std::string::npos);
  // A module that only corrects errors is not blamed for them.
  Dimm(root, "mc0", "dimm1", "DIMM_A2", 500, 0);
  auto both = RunRule(kHostMemoryEdacRule, Read(root));
  ASSERT_EQ(both.findings.size(), 1u);
  EXPECT_EQ(both.findings[0].title.en.find("DIMM_A2"), std::string::npos)
      << both.findings[0].title.en;
  EXPECT_EQ(both.findings[0].evidence.size(), 2u);

  TempDir vm;
  vm.Write("proc/uptime", "100.0 100.0\n");
  auto none = RunRule(kHostMemoryEdacRule, Read(vm));
  EXPECT_TRUE(none.findings.empty());
  ASSERT_EQ(none.not_checked.size(), 1u);
  EXPECT_NE(none.not_checked[0].reason.en.find("no EDAC memory controller"), std::string::npos);
}

}  // namespace rule_host_memory_edac_local
}  // namespace
}  // namespace gpudoctor::testing
