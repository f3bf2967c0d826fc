// The kernel tables' readings (collect/kernel_limits.h): file-nr's three
// numbers, single-number files, and the collector under a root.
#include <gtest/gtest.h>

#include "collect/kernel_limits.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {
namespace kernel_limits_local {

TEST(ParseFileNr, ReadsAllocatedAndMax) {
  auto nr = ParseFileNr("12832\t0\t9223372036854775807\n");
  ASSERT_TRUE(nr);
  EXPECT_EQ(nr->first, 12832u);
  EXPECT_EQ(nr->second, 9223372036854775807u);
  EXPECT_FALSE(ParseFileNr("12832\t0\n"));
  EXPECT_FALSE(ParseFileNr("12832 0 0\n"));  // a zero maximum is no limit to compare with
  EXPECT_FALSE(ParseFileNr("a b c"));
  EXPECT_FALSE(ParseFileNr("1 2 3 4"));
}

TEST(ParseSingleNumber, OneNumberAndNothingElse) {
  EXPECT_EQ(ParseSingleNumber("4194304\n"), 4194304u);
  EXPECT_FALSE(ParseSingleNumber("4194304 1"));
  EXPECT_FALSE(ParseSingleNumber(""));
}

TEST(ReadKernelLimits, ReadsBelowTheRootAndSaysWhatItCouldNot) {
  test::TempDir root;
  root.Write("proc/sys/fs/file-nr", "81920\t0\t102400\n");
  root.Write("proc/sys/kernel/pid_max", "32768\n");
  CollectContext ctx;
  ctx.root = root.path();
  KernelLimits l = ReadKernelLimits(ctx, 1200);
  EXPECT_EQ(l.open_files, 81920u);
  EXPECT_EQ(l.open_files_max, 102400u);
  EXPECT_EQ(l.pid_max, 32768u);
  EXPECT_FALSE(l.threads_max);
  EXPECT_EQ(l.threads, 1200u);
  bool said = false;
  for (const auto& s : l.sources)
    said = said || (s.source == "/proc/sys/kernel/threads-max" && !s.available);
  EXPECT_TRUE(said);
}

}  // namespace kernel_limits_local
}  // namespace
}  // namespace gpudoctor
