#include "knowledge/cuda_driver_table.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "parse/version_numbers.h"

namespace gpudoctor {
namespace {

DriverVersion D(const char* text) { return ParseDriverVersion(text).value(); }
CudaVersion C(const char* text) { return ParseCudaVersionText(text).value(); }

TEST(VersionNumbers, DriverParsingAndOrder) {
  auto v = ParseDriverVersion("535.183.01");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 535);
  EXPECT_EQ(v->minor, 183);
  EXPECT_EQ(v->patch, 1);
  EXPECT_TRUE(v->has_patch);
  EXPECT_EQ(v->ToString(), "535.183.01");
  auto two = ParseDriverVersion(" 595.84\n");
  ASSERT_TRUE(two);
  EXPECT_FALSE(two->has_patch);
  EXPECT_EQ(two->ToString(), "595.84");
  EXPECT_LT(D("535.54.03"), D("535.104.05"));  // numeric, not lexical
  EXPECT_LT(D("470.74"), D("470.82.01"));
  EXPECT_EQ(D("570.26"), D("570.26.0"));
  for (const char* bad : {"", "535", "535.", "a.b", "535.183.01.7", "535..1", "12-3.4"}) {
    EXPECT_FALSE(ParseDriverVersion(bad)) << bad;
  }
}

TEST(VersionNumbers, CudaParsingAndEncoding) {
  EXPECT_EQ(C("12.2").Encoded(), 12020);
  EXPECT_EQ(C("12.2.140").patch, 140);
  EXPECT_EQ(C("12.2.140").ToString(), "12.2.140");
  EXPECT_EQ(CudaFromEncoded(12040)->ToString(), "12.4");
  EXPECT_EQ(CudaFromEncoded(11080)->ToString(), "11.8");
  EXPECT_FALSE(CudaFromEncoded(0));
  EXPECT_FALSE(CudaFromEncoded(12041));
  EXPECT_EQ(C("12.1"), C("12.1.105"));  // patch is not part of the order
  EXPECT_LT(C("11.8"), C("12.0"));
  EXPECT_FALSE(ParseCudaVersionText("12"));
  EXPECT_FALSE(ParseCudaVersionText("cu121"));
}

TEST(CudaDriverTable, EveryRowParsesAndRowsAreOrdered) {
  const CudaDriverRow* prev = nullptr;
  for (const auto& row : CudaDriverTable()) {
    auto v = ParseDriverVersion(row.min_driver);
    ASSERT_TRUE(v) << row.release;
    if (prev != nullptr) {
      // Minimum drivers never decrease with newer toolkits.
      EXPECT_LE(ParseDriverVersion(prev->min_driver).value(), *v) << row.release;
    }
    prev = &row;
  }
  for (const auto& row : MinorCompatTable()) {
    auto v = MinDriverFor(CudaVersion{row.cuda_major, 9, std::nullopt}, true);
    ASSERT_TRUE(v) << row.cuda_major;
    EXPECT_EQ(v->ToString(), row.min_driver);
    EXPECT_GE(v->major, 450);
  }
}

struct MinCase {
  const char* cuda;
  bool minor_compat;
  std::optional<const char*> want;
};

TEST(CudaDriverTable, MinDriverFor) {
  const MinCase cases[] = {
      {"12.2", false, "535.54.03"},  // GA row without a patch
      {"12.2.0", false, "535.54.03"},
      {"12.2.1", false, "535.86.09"},  // update 1
      {"12.2.2", false, "535.104.05"},
      {"12.4", false, "550.54.14"},
      {"12.4.1", false, "550.54.15"},
      {"12.6.2", false, "560.35.03"},
      {"12.6.3", false, "560.35.05"},
      {"12.8", false, "570.26"},
      {"13.0.2", false, "580.95.05"},
      {"11.8", false, "520.61.05"},
      {"11.4.4", false, "470.82.01"},
      {"11.0.1", false, "450.36.06"},  // 11.0.1 RC
      {"10.1.243", false, "418.39"},   // build numbers, one row
      {"9.2.148", false, "396.37"},
      {"12.4", true, "525.60.13"},  // minor-version compatibility
      {"12.0", true, "525.60.13"},
      {"11.8", true, "450.80.02"},
      {"11.0.2", true, "450.51.05"},  // the release's own minimum is lower
      {"13.2", true, "580"},
      {"12.7", true, "525.60.13"},  // no 12.7 toolkit, but the family rule applies
      {"12.7", false, std::nullopt},
      {"10.2", true, "440.33"},  // no minor compat before 11
      {"14.0", true, std::nullopt},
      {"7.5", false, std::nullopt},
  };
  for (const auto& c : cases) {
    auto got = MinDriverFor(C(c.cuda), c.minor_compat);
    if (!c.want) {
      EXPECT_FALSE(got) << c.cuda;
      continue;
    }
    ASSERT_TRUE(got) << c.cuda;
    EXPECT_EQ(got->ToString(), *c.want) << c.cuda << " minor_compat=" << c.minor_compat;
  }
}

TEST(CudaDriverTable, MaxCudaForDriver) {
  EXPECT_EQ(MaxCudaForDriver(D("535.183.01")).ToString(), "12.2");
  EXPECT_EQ(MaxCudaForDriver(D("525.60.13")).ToString(), "12.0");
  EXPECT_EQ(MaxCudaForDriver(D("525.60.12")).ToString(), "11.8");
  EXPECT_EQ(MaxCudaForDriver(D("470.74")).ToString(), "11.4");
  EXPECT_EQ(MaxCudaForDriver(D("550.54.14")).ToString(), "12.4");
  EXPECT_EQ(MaxCudaForDriver(D("595.84")).ToString(), "13.2");
  EXPECT_EQ(MaxCudaForDriver(D("570.26")).ToString(), "12.8");
  // 13.3's minimum is unverified, so it is never claimed.
  EXPECT_EQ(MaxCudaForDriver(D("610.43.02")).ToString(), "13.2");
  EXPECT_EQ(MaxCudaForDriver(D("340.108")).major, 0);
}

TEST(CudaDriverTable, CheckCudaOnDriver) {
  EXPECT_EQ(CheckCudaOnDriver(C("12.1"), D("535.183.01")).support, CudaSupport::kSupported);
  auto v = CheckCudaOnDriver(C("12.4"), D("525.60.13"));
  EXPECT_EQ(v.support, CudaSupport::kMinorCompatOnly);
  EXPECT_EQ(v.driver_max_cuda.ToString(), "12.0");
  EXPECT_EQ(v.min_driver->ToString(), "550.54.14");
  EXPECT_EQ(v.min_driver_minor_compat->ToString(), "525.60.13");
  EXPECT_EQ(CheckCudaOnDriver(C("12.4"), D("470.74")).support, CudaSupport::kDriverTooOld);
  EXPECT_EQ(CheckCudaOnDriver(C("10.2"), D("418.39")).support, CudaSupport::kDriverTooOld);
  EXPECT_EQ(CheckCudaOnDriver(C("13.0"), D("575.57.08")).support, CudaSupport::kDriverTooOld);
  EXPECT_EQ(CheckCudaOnDriver(C("11.8"), D("570.26")).support, CudaSupport::kSupported);
  EXPECT_EQ(CheckCudaOnDriver(C("14.1"), D("570.26")).support, CudaSupport::kUnknown);
  // The driver's own report wins over the table (R565 reports 12.7).
  EXPECT_EQ(CheckCudaOnDriver(C("12.7"), D("565.57.01"), C("12.7")).support,
            CudaSupport::kSupported);
  EXPECT_EQ(CheckCudaOnDriver(C("12.7"), D("565.57.01")).support, CudaSupport::kMinorCompatOnly);
  // A toolkit update that needs more than the GA driver.
  EXPECT_EQ(CheckCudaOnDriver(C("12.2.2"), D("535.54.03")).support, CudaSupport::kMinorCompatOnly);
  EXPECT_EQ(CudaSupportName(CudaSupport::kDriverTooOld), "driver_too_old");
}

}  // namespace
}  // namespace gpudoctor
