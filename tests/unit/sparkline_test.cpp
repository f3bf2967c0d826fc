#include "render/sparkline.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpudoctor {
namespace {

using Values = std::vector<std::optional<double>>;

// Cells in a sparkline: every code point is one cell.
std::size_t Cells(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

TEST(SparklineTest, ScalesIntoEightLevels) {
  Values values = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(Sparkline(values, 0, 7, 8), "▁▂▃▄▅▆▇█");
}

TEST(SparklineTest, ScalesAnyRange) {
  Values values = {0, 50, 100};
  // 50 % of the way is level 3.5, which rounds up to the fifth block.
  EXPECT_EQ(Sparkline(values, 0, 100, 3), "▁▅█");
  EXPECT_EQ(Sparkline({300.0, 500.0}, 300, 500, 2), "▁█");
}

TEST(SparklineTest, ClampsOutOfRangeValues) {
  EXPECT_EQ(Sparkline({-5.0, 250.0, 10.0}, 0, 100, 3), "▁█▂");
}

TEST(SparklineTest, MissingValuesAreSpaces) {
  Values values = {0.0, std::nullopt, 100.0, std::nan("")};
  EXPECT_EQ(Sparkline(values, 0, 100, 4), "▁ █ ");
}

TEST(SparklineTest, ShowsOnlyTheLastWidthValues) {
  Values values = {7, 7, 7, 0, 1, 2};
  EXPECT_EQ(Sparkline(values, 0, 7, 3), "▁▂▃");
  EXPECT_EQ(Cells(Sparkline(values, 0, 7, 3)), 3u);
}

TEST(SparklineTest, PadsShortHistoryOnTheLeft) {
  std::string line = Sparkline({0.0, 7.0}, 0, 7, 5);
  EXPECT_EQ(line, "   ▁█");
  EXPECT_EQ(Cells(line), 5u);
}

TEST(SparklineTest, ZeroWidthIsEmpty) {
  EXPECT_EQ(Sparkline({1.0, 2.0}, 0, 2, 0), "");
  EXPECT_EQ(Sparkline({}, 0, 2, 0), "");
}

TEST(SparklineTest, EmptyHistoryIsBlank) {
  EXPECT_EQ(Sparkline({}, 0, 100, 4), "    ");
}

TEST(SparklineTest, AllEqualValuesDrawAFlatLine) {
  Values values = {42, 42, 42, 42};
  EXPECT_EQ(Sparkline(values, 0, 100, 4), "▄▄▄▄");
  // A degenerate range cannot scale: every value sits on the floor.
  EXPECT_EQ(Sparkline(values, 42, 42, 4), "▁▁▁▁");
  EXPECT_EQ(Sparkline(values, 50, 10, 4), "▁▁▁▁");
}

}  // namespace
}  // namespace gpudoctor
