// host.disk_space: file systems nearly full by share or by bytes, inodes,
// /dev/shm judged by share and by its size; a roomy host and a big page
// cache (which statvfs does not count as used) are no finding; under
// --root nothing is read, and the rule says so.
#include <gtest/gtest.h>

#include "collect/disk_space.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {
namespace rule_host_disk_space_local {

constexpr std::uint64_t kMiB = std::uint64_t{1024} * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

DiagnosisInput With(std::vector<DiskSpace> disks) {
  DiagnosisInput input;
  input.host = HostFacts{};
  input.host->disk_space.disks = std::move(disks);
  return input;
}

DiskSpace Disk(const std::string& path, std::uint64_t total, std::uint64_t free,
               std::uint64_t inodes = 1'000'000, std::uint64_t inodes_free = 900'000) {
  return DiskSpaceFrom(path, 4096, total / 4096, free / 4096, inodes, inodes_free);
}

TEST(HostDiskSpace, ARoomyHostIsNoFinding) {
  auto d =
      RunRule(kHostDiskSpaceRule,
              With({Disk("/", 500 * kGiB, 300 * kGiB), Disk("/dev/shm", 256 * kGiB, 250 * kGiB)}));
  EXPECT_TRUE(d.findings.empty());
}

TEST(HostDiskSpace, BelowTenPercentWarnsBelowTwoIsCritical) {
  auto warn = RunRule(kHostDiskSpaceRule, With({Disk("/", 100 * kGiB, 9 * kGiB)}));
  ASSERT_EQ(warn.findings.size(), 1u);
  EXPECT_EQ(warn.findings[0].id, "host.disk_space");
  EXPECT_EQ(warn.findings[0].severity, Severity::kWarning);
  EXPECT_NE(warn.findings[0].title.en.find("`/` is nearly full"), std::string::npos);
  auto crit = RunRule(kHostDiskSpaceRule, With({Disk("/", 100 * kGiB, 1 * kGiB)}));
  ASSERT_EQ(crit.findings.size(), 1u);
  EXPECT_EQ(crit.findings[0].severity, Severity::kCritical);
}

TEST(HostDiskSpace, ASmallDiskWarnsByBytesAndInodesCountToo) {
  // 400 MiB free is 20 % of a 2 GiB /tmp: below 500 MiB.
  auto bytes = RunRule(kHostDiskSpaceRule, With({Disk("/tmp", 2 * kGiB, 400 * kMiB)}));
  ASSERT_EQ(bytes.findings.size(), 1u);
  EXPECT_EQ(bytes.findings[0].severity, Severity::kWarning);
  auto inodes =
      RunRule(kHostDiskSpaceRule, With({Disk("/", 500 * kGiB, 300 * kGiB, 1'000'000, 50'000)}));
  ASSERT_EQ(inodes.findings.size(), 1u);
  EXPECT_NE(inodes.findings[0].title.en.find("5 % of inodes free"), std::string::npos)
      << inodes.findings[0].title.en;
}

TEST(HostDiskSpace, DockersDefaultShmIsAWarningOfItsOwn) {
  auto d = RunRule(kHostDiskSpaceRule, With({Disk("/dev/shm", 64 * kMiB, 64 * kMiB)}));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].title.en.find("/dev/shm is only 64 MiB"), std::string::npos);
  bool shm_size = false;
  for (const Action& a : d.findings[0].actions) {
    shm_size = shm_size || a.text.en.find("--shm-size") != std::string::npos;
  }
  EXPECT_TRUE(shm_size);
}

TEST(HostDiskSpace, UnderAnotherRootNothingIsReadAndTheRuleSaysSo) {
  CollectContext ctx;
  ctx.root = "/tmp";
  DiskSpaceFacts facts = ReadDiskSpace(ctx);
  EXPECT_TRUE(facts.disks.empty());
  ASSERT_EQ(facts.sources.size(), 1u);
  DiagnosisInput input;
  input.host = HostFacts{};
  input.host->disk_space = facts;
  auto d = RunRule(kHostDiskSpaceRule, input);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.not_checked.size(), 1u);
  EXPECT_NE(d.not_checked[0].reason.en.find("live root only"), std::string::npos);
}

TEST(HostDiskSpace, TheLiveRootIsReadOncePerFileSystem) {
  DiskSpaceFacts facts = ReadDiskSpace(CollectContext{});
  ASSERT_FALSE(facts.disks.empty());
  EXPECT_EQ(facts.disks[0].path, "/");
  EXPECT_GT(facts.disks[0].total_bytes, 0u);
  EXPECT_LE(facts.disks[0].free_bytes, facts.disks[0].total_bytes);
}

}  // namespace rule_host_disk_space_local
}  // namespace
}  // namespace gpudoctor::testing
