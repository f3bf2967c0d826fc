#include <gtest/gtest.h>

#include "rules/active/group.h"
#include "unit/rule_stress_testing.h"

namespace gpudoctor::testing {
namespace {

MemoryTestResult Tested() {
  MemoryTestResult m;
  m.tested_bytes = 60ull << 30;
  m.patterns = {"0x00", "0xFF", "0xAA", "0x55", "address"};
  m.buffer_address = 0x10000000000ull;
  m.ecc_uncorrected_before = m.ecc_uncorrected_after = 0;
  return m;
}

TEST(StressMemoryMismatchRule, MismatchesAreCriticalWithTheirAddresses) {
  auto input = StressInput({{HealthyGpu(0)}});
  MemoryTestResult m = Tested();
  m.mismatches = 10;
  m.mismatch_addresses = {0x10000001000ull};
  input.active->gpus[0].memory = m;
  auto d = RunRule(kStressMemoryMismatchRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "stress.memory_mismatch");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NE(f.title.en.find("10 words of device memory read back wrong"), std::string::npos);
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_NE(f.evidence[0].text.en.find("60 GiB"), std::string::npos) << f.evidence[0].text.en;
  EXPECT_NE(f.evidence[1].text.en.find("0x10000001000 (4096 bytes into"), std::string::npos)
      << f.evidence[1].text.en;
}

TEST(StressMemoryMismatchRule, EccRiseWithoutMismatchIsAWarning) {
  auto input = StressInput({{HealthyGpu(0)}});
  MemoryTestResult m = Tested();
  m.ecc_uncorrected_after = 2;
  input.active->gpus[0].memory = m;
  auto d = RunRule(kStressMemoryMismatchRule, input);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("uncorrected ECC errors rose by 2"), std::string::npos);
}

TEST(StressMemoryMismatchRule, CleanMemoryIsQuiet) {
  auto input = StressInput({{HealthyGpu(0)}});
  input.active->gpus[0].memory = Tested();
  EXPECT_TRUE(RunRule(kStressMemoryMismatchRule, input).findings.empty());
}

}  // namespace
}  // namespace gpudoctor::testing
