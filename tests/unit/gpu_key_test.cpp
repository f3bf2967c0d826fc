// core/gpu_key.h: the one name of a GPU across gpudoctor.
#include "core/gpu_key.h"

#include <gtest/gtest.h>

#include "core/gpu_status.h"

namespace gpudoctor {
namespace {

TEST(GpuKey, TheBusIdElseTheIndex) {
  EXPECT_EQ(GpuKeyOf("0000:3b:00.0", 2), "0000:3b:00.0");
  EXPECT_EQ(GpuKeyOf("", 2), "index:2");
  GpuStatus g;
  g.index = 5;
  EXPECT_EQ(GpuKeyOf(g), "index:5");
  g.pci_bus_id = "0000:06:00.0";
  EXPECT_EQ(GpuKeyOf(g), "0000:06:00.0");
}

TEST(GpuKey, IndexKeysAreReadBackAndNothingElseIs) {
  EXPECT_EQ(IndexOfKey("index:0"), 0u);
  EXPECT_EQ(IndexOfKey("index:17"), 17u);
  EXPECT_TRUE(IsIndexKey(GpuKeyOf("", 3)));
  for (const char* other : {"0000:3b:00.0", "", "index:", "index:x", "index:1x", "index:-1",
                            "gpu 1", "Index:1", "index:99999999999"}) {
    EXPECT_FALSE(IndexOfKey(other).has_value()) << other;
    EXPECT_FALSE(IsIndexKey(other)) << other;
  }
}

}  // namespace
}  // namespace gpudoctor
