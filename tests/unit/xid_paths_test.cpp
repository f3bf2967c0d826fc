// One Xid on two paths (the kernel log and NVML's event set) counts once; two
// Xids of one code seconds apart count twice (issue: the agent merged two Xid
// 48 five seconds apart into one).
#include <gtest/gtest.h>

#include "collect/xid_paths.h"
#include "nvml/nvml_xid_events.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace xid_paths_test {  // named: unity sources join test files

KernelEvent Kernel(int code, const std::string& bus, int at_s) {
  return MakeEvent(KernelEventKind::kXid, code, bus, "NVRM: Xid", TestTime(at_s));
}

KernelEvent Nvml(int code, const std::string& bus, WallTime at) {
  return XidEventToKernelEvent(NvmlXidEvent{at, code, bus});
}

std::size_t CountXid(const std::vector<KernelEvent>& events, int code) {
  std::size_t n = 0;
  for (const auto& e : events) n += e.kind == KernelEventKind::kXid && e.code == code;
  return n;
}

TEST(XidPaths, TheSameXidOnBothPathsIsOne) {
  const auto nv = Nvml(79, "0000:18:00.0", TestTime(100) + std::chrono::milliseconds(800));
  EXPECT_TRUE(SameXid(Kernel(79, "0000:18:00.0", 100), nv));
  EXPECT_FALSE(SameXid(Kernel(48, "0000:18:00.0", 100), nv)) << "another code";
  EXPECT_FALSE(SameXid(Kernel(79, "0000:19:00.0", 100), nv)) << "another GPU";
  EXPECT_FALSE(SameXid(Kernel(79, "0000:18:00.0", 110), nv)) << "too far apart";
  EXPECT_TRUE(SameXid(Kernel(79, "", 100), nv)) << "a line without a bus id matches any GPU";
  auto merged = MergeXidPaths({Kernel(79, "0000:18:00.0", 100)}, {nv});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_NE(merged[0].source.file, "nvml") << "the kernel's line, with its process, is kept";
}

TEST(XidPaths, TwoXidsOfOneCodeFiveSecondsApartAreTwo) {
  const std::string bus = "0000:18:00.0";
  // Only NVML saw them (a container without the kernel log).
  auto merged = MergeXidPaths({}, {Nvml(48, bus, TestTime(10)), Nvml(48, bus, TestTime(15))});
  EXPECT_EQ(CountXid(merged, 48), 2u);
  // Both paths saw both: still two, each kernel line claiming its own.
  merged = MergeXidPaths({Kernel(48, bus, 10), Kernel(48, bus, 15)},
                         {Nvml(48, bus, TestTime(11)), Nvml(48, bus, TestTime(16))});
  EXPECT_EQ(CountXid(merged, 48), 2u);
  // Two seconds apart on both paths: one kernel line cannot claim both.
  merged = MergeXidPaths({Kernel(48, bus, 10), Kernel(48, bus, 12)},
                         {Nvml(48, bus, TestTime(10)), Nvml(48, bus, TestTime(12))});
  EXPECT_EQ(CountXid(merged, 48), 2u);
  // A kernel line folding two repeats claims two NVML events, not a third.
  KernelEvent folded = Kernel(48, bus, 10);
  folded.count = 2;
  folded.last_time = TestTime(11);
  merged = MergeXidPaths({folded}, {Nvml(48, bus, TestTime(10)), Nvml(48, bus, TestTime(11)),
                                    Nvml(48, bus, TestTime(40))});
  EXPECT_EQ(merged.size(), 2u);
}

TEST(XidPaths, TheStreamingMergerHoldsNvmlUntilTheKernelLineCanNoLongerCome) {
  const std::string bus = "0000:18:00.0";
  XidPathMerger m;
  // NVML first: held, not yet recorded.
  EXPECT_TRUE(m.Add({}, {Nvml(48, bus, TestTime(10))}, TestTime(10)).empty());
  // The kernel's line a second later claims it.
  auto out = m.Add({Kernel(48, bus, 10)}, {}, TestTime(11));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].source.file, "nvml");
  EXPECT_TRUE(m.Add({}, {}, TestTime(20)).empty()) << "nothing held any more";
  // A second Xid 48 five seconds later, seen by NVML only: released after the skew.
  EXPECT_TRUE(m.Add({}, {Nvml(48, bus, TestTime(15))}, TestTime(15)).empty());
  out = m.Add({}, {}, TestTime(19));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].source.file, "nvml");
  // Kernel first, NVML after: NVML's copy is dropped at once.
  out = m.Add({Kernel(79, bus, 30)}, {}, TestTime(30));
  EXPECT_EQ(out.size(), 1u);
  EXPECT_TRUE(m.Add({}, {Nvml(79, bus, TestTime(31))}, TestTime(31)).empty());
  EXPECT_TRUE(m.Add({}, {}, TestTime(40)).empty());
  // Held at stop: flushed, not lost.
  EXPECT_TRUE(m.Add({}, {Nvml(13, bus, TestTime(50))}, TestTime(50)).empty());
  EXPECT_EQ(m.Flush().size(), 1u);
}

}  // namespace xid_paths_test
}  // namespace gpudoctor::testing
