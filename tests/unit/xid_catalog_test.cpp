#include "knowledge/xid_catalog.h"

#include <gtest/gtest.h>

#include <set>

namespace gpudoctor {
namespace {

TEST(XidCatalog, CodesAreUniqueAndAscending) {
  std::set<int> seen;
  int last = 0;
  for (const auto& x : AllXids()) {
    EXPECT_TRUE(seen.insert(x.code).second) << "duplicate Xid " << x.code;
    EXPECT_GT(x.code, last) << "not ascending at " << x.code;
    last = x.code;
  }
  // Facts 2.2: every code 1..172 is either in the catalog or listed as
  // unused; 173..176 are in the driver source only.
  for (int code = 1; code <= 176; ++code) EXPECT_TRUE(seen.count(code)) << "missing Xid " << code;
}

TEST(XidCatalog, EveryEntryHasTexts) {
  for (const auto& x : AllXids()) {
    EXPECT_FALSE(x.mnemonic.empty()) << x.code;
    EXPECT_FALSE(x.meaning.empty()) << x.code;
    EXPECT_FALSE(x.action_en.empty()) << x.code;
    EXPECT_FALSE(x.action_zh.empty()) << x.code;
    EXPECT_NE(x.action_en, x.action_zh) << x.code;
    EXPECT_FALSE(XidResolutionName(x.immediate).empty()) << x.code;
  }
}

struct Known {
  int code;
  XidResolution immediate;
  XidSeverity severity;
  XidCategory category;
};

TEST(XidCatalog, KnownCodesHaveTheCatalogsResolution) {
  const Known known[] = {
      {13, XidResolution::kRestartApp, XidSeverity::kWarning, XidCategory::kApplication},
      {31, XidResolution::kRestartApp, XidSeverity::kWarning, XidCategory::kApplication},
      {43, XidResolution::kIgnore, XidSeverity::kInfo, XidCategory::kApplication},
      {48, XidResolution::kWorkflowXid48, XidSeverity::kCritical, XidCategory::kMemory},
      {63, XidResolution::kIgnore, XidSeverity::kInfo, XidCategory::kMemory},
      {64, XidResolution::kResetGpu, XidSeverity::kCritical, XidCategory::kMemory},
      {74, XidResolution::kWorkflowNvlinkErr, XidSeverity::kCritical, XidCategory::kNvlink},
      {79, XidResolution::kRestartBm, XidSeverity::kCritical, XidCategory::kPcieBus},
      {92, XidResolution::kIgnore, XidSeverity::kInfo, XidCategory::kMemory},
      {94, XidResolution::kRestartApp, XidSeverity::kWarning, XidCategory::kMemory},
      {95, XidResolution::kResetGpu, XidSeverity::kCritical, XidCategory::kMemory},
      {119, XidResolution::kResetGpu, XidSeverity::kCritical, XidCategory::kGsp},
      {120, XidResolution::kResetGpu, XidSeverity::kCritical, XidCategory::kGsp},
      {154, XidResolution::kXid154, XidSeverity::kWarning, XidCategory::kOther},
  };
  for (const auto& k : known) {
    const XidInfo& x = LookupXid(k.code);
    EXPECT_EQ(x.code, k.code);
    EXPECT_TRUE(x.in_catalog) << k.code;
    EXPECT_EQ(x.immediate, k.immediate) << k.code;
    EXPECT_EQ(x.severity, k.severity) << k.code;
    EXPECT_EQ(x.category, k.category) << k.code;
  }
  EXPECT_EQ(LookupXid(79).mnemonic, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(XidResolutionName(LookupXid(79).immediate), "RESTART_BM");
  EXPECT_EQ(LookupXid(31).investigatory, "WORKFLOW_XID_31");
  EXPECT_NE(LookupXid(119).action_en.find("NVreg_EnableGpuFirmware=0"), std::string::npos);
}

TEST(XidCatalog, UnusedAndSourceOnlyCodes) {
  EXPECT_TRUE(LookupXid(16).unused);
  EXPECT_EQ(LookupXid(16).meaning, "Display engine hung");
  EXPECT_EQ(LookupXid(16).immediate, XidResolution::kContactSupport);
  EXPECT_FALSE(LookupXid(175).in_catalog);
  EXPECT_EQ(LookupXid(175).immediate, XidResolution::kContactSupport);
}

TEST(XidCatalog, UnknownCodeGetsSafeDefault) {
  for (int code : {0, 999, 100000, -5}) {
    const XidInfo& x = LookupXid(code);
    EXPECT_EQ(x.code, code);
    EXPECT_EQ(x.meaning, "unknown Xid " + std::to_string(code));
    EXPECT_EQ(x.severity, XidSeverity::kWarning);
    EXPECT_EQ(x.immediate, XidResolution::kContactSupport);
    EXPECT_FALSE(x.in_catalog);
    EXPECT_FALSE(x.action_zh.empty());
  }
  EXPECT_EQ(&LookupXid(999), &LookupXid(999));  // stable reference
}

TEST(XidCatalog, SxidNotes) {
  EXPECT_EQ(SxidNoteFor(true).severity, XidSeverity::kCritical);
  EXPECT_EQ(SxidNoteFor(false).severity, XidSeverity::kWarning);
  EXPECT_FALSE(SxidNoteFor(true).action_zh.empty());
}

TEST(XidCatalog, Names) {
  EXPECT_EQ(XidCategoryName(XidCategory::kPcieBus), "pcie_bus");
  EXPECT_EQ(XidSeverityName(XidSeverity::kCritical), "critical");
  EXPECT_EQ(XidResolutionName(XidResolution::kWorkflowXid48), "WORKFLOW_XID_48");
}

}  // namespace
}  // namespace gpudoctor
