#include "store/chunk_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "store/byte_stream.h"

namespace gpudoctor {
namespace {

ColumnSet RoundTrip(const ColumnSet& set, int zlib_level = 9) {
  auto blob = EncodeColumnSet(set, zlib_level);
  EXPECT_TRUE(blob.ok());
  auto back = DecodeColumnSet(*blob);
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back.ok() ? *back : ColumnSet{};
}

void ExpectSame(const ColumnSet& a, const ColumnSet& b) {
  ASSERT_EQ(a.times_ms, b.times_ms);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (std::size_t i = 0; i < a.columns.size(); ++i) {
    SCOPED_TRACE(a.columns[i].name);
    EXPECT_EQ(a.columns[i].name, b.columns[i].name);
    EXPECT_EQ(a.columns[i].type, b.columns[i].type);
    EXPECT_EQ(a.columns[i].present, b.columns[i].present);
    EXPECT_EQ(a.columns[i].ints, b.columns[i].ints);
    ASSERT_EQ(a.columns[i].reals.size(), b.columns[i].reals.size());
    for (std::size_t k = 0; k < a.columns[i].reals.size(); ++k) {
      // Bit-exact, so -0.0 and NaN count too.
      EXPECT_EQ(std::bit_cast<std::uint64_t>(a.columns[i].reals[k]),
                std::bit_cast<std::uint64_t>(b.columns[i].reals[k]));
    }
    EXPECT_EQ(a.columns[i].texts, b.columns[i].texts);
  }
}

TEST(ChunkCodecTest, ZigZagRoundTripsExtremes) {
  for (std::int64_t v :
       {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1},
        std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(UnZigZag(ZigZag(v)), v);
  }
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
}

TEST(ChunkCodecTest, BuilderFillsNullsForLateAndMissingColumns) {
  ColumnSetBuilder b;
  b.AddRow(1000, {{"a", Cell(std::int64_t{1})}});
  b.AddRow(2000, {{"b", Cell(2.5)}});
  b.AddRow(3000, {{"a", Cell(std::int64_t{3})}, {"b", Cell(std::int64_t{4})}});
  ColumnSet set = b.Take();
  ASSERT_EQ(set.columns.size(), 2u);
  EXPECT_EQ(set.columns[0].present, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(set.columns[0].ints, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(set.columns[1].present, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(set.columns[1].reals, (std::vector<double>{2.5, 4.0}));
  ExpectSame(set, RoundTrip(set));
}

TEST(ChunkCodecTest, RoundTripsIntsWithNullsNegativesAndExtremes) {
  ColumnSetBuilder b;
  const std::int64_t values[] = {0,
                                 -5,
                                 -5,
                                 -5,
                                 7,
                                 std::numeric_limits<std::int64_t>::max(),
                                 std::numeric_limits<std::int64_t>::min(),
                                 42,
                                 42,
                                 1LL << 40};
  for (int i = 0; i < 10; ++i) {
    std::vector<NamedCell> cells;
    if (i % 3 != 1) cells.push_back({"v", Cell(values[i])});
    cells.push_back({"const", Cell(std::int64_t{80})});
    b.AddRow(1'700'000'000'000 + i * 1000 + (i % 2) * 7, cells);
  }
  ColumnSet set = b.Take();
  ExpectSame(set, RoundTrip(set));
  ExpectSame(set, RoundTrip(set, /*zlib_level=*/0));
  ExpectSame(set, RoundTrip(set, /*zlib_level=*/1));
}

TEST(ChunkCodecTest, RoundTripsDoublesExactly) {
  ColumnSetBuilder b;
  const double values[] = {312.456,   0.0,          -0.0,
                           -17.25,    1e300,        5e-324,
                           0.1 + 0.2, std::nan(""), std::numeric_limits<double>::infinity(),
                           1234.5};
  for (int i = 0; i < 10; ++i) {
    b.AddRow(i * 1000, {{"mixed", Cell(values[i])}, {"watts", Cell(250.0 + i * 0.125)}});
  }
  ColumnSet set = b.Take();
  ExpectSame(set, RoundTrip(set));
}

TEST(ChunkCodecTest, RoundTripsTextRuns) {
  ColumnSetBuilder b;
  const char* names[] = {"NVIDIA H100", "NVIDIA H100", "", "NVIDIA H100", "x\ty\nz", "x\ty\nz"};
  for (int i = 0; i < 6; ++i) b.AddRow(i, {{"name", Cell(std::string(names[i]))}});
  ColumnSet set = b.Take();
  ExpectSame(set, RoundTrip(set));
}

TEST(ChunkCodecTest, ConstantColumnsCostAlmostNothing) {
  ColumnSetBuilder b;
  for (int i = 0; i < 600; ++i) {
    b.AddRow(1'700'000'000'000 + i * 1000,
             {{"power_limit_w", Cell(700.0)}, {"temperature_slowdown_c", Cell(std::int64_t{87})}});
  }
  auto blob = EncodeColumnSet(b.Take());
  ASSERT_TRUE(blob.ok());
  EXPECT_LT(blob->size(), 100u);
}

TEST(ChunkCodecTest, EmptySetRoundTrips) {
  ColumnSet set;
  ExpectSame(set, RoundTrip(set));
}

TEST(ChunkCodecTest, RejectsMismatchedColumns) {
  ColumnSet set;
  set.times_ms = {1, 2};
  Column c;
  c.name = "x";
  c.present = {true};
  c.ints = {1};
  set.columns.push_back(c);
  auto blob = EncodeColumnSet(set);
  ASSERT_FALSE(blob.ok());
  EXPECT_EQ(blob.error().code, ErrorCode::kInvalid);
}

TEST(ChunkCodecTest, CorruptBlobsAreErrorsNotCrashes) {
  ColumnSetBuilder b;
  for (int i = 0; i < 200; ++i) {
    b.AddRow(i * 1000, {{"t", Cell(std::int64_t{40 + i % 7})},
                        {"p", Cell(100.0 + i * 0.37)},
                        {"s", Cell(std::string(i < 100 ? "a" : "b"))}});
  }
  ColumnSet set = b.Take();
  for (int level : {9, 0}) {
    auto blob = EncodeColumnSet(set, level);
    ASSERT_TRUE(blob.ok());
    EXPECT_FALSE(DecodeColumnSet("").ok());
    EXPECT_FALSE(DecodeColumnSet(std::string_view(*blob).substr(0, blob->size() / 2)).ok());
    std::string wrong_version = *blob;
    wrong_version[0] = 9;
    auto v = DecodeColumnSet(wrong_version);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().code, ErrorCode::kCorrupt);
    // Flip every byte in turn: each decode either fails or yields a
    // well-formed set; none may crash.
    int failures = 0;
    for (std::size_t i = 0; i < blob->size(); ++i) {
      std::string damaged = *blob;
      damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
      auto d = DecodeColumnSet(damaged);
      if (!d.ok()) {
        ++failures;
        EXPECT_EQ(d.error().code, ErrorCode::kCorrupt);
        continue;
      }
      for (const Column& c : d->columns) EXPECT_EQ(c.present.size(), d->times_ms.size());
    }
    EXPECT_GT(failures, 0);
  }
}

TEST(ChunkCodecTest, ReaderWalksRowsInOrder) {
  ColumnSetBuilder b;
  b.AddRow(1, {{"a", Cell(std::int64_t{1})}, {"s", Cell(std::string("x"))}});
  b.AddRow(2, {{"s", Cell(std::string("y"))}});
  ColumnSet set = b.Take();
  ColumnSetReader reader(set);
  std::vector<std::string> seen;
  for (int row = 0; row < 2; ++row) {
    reader.NextRow([&](std::size_t c, const Cell& cell) {
      seen.push_back(set.columns[c].name + "=" +
                     (std::holds_alternative<std::string>(cell)
                          ? std::get<std::string>(cell)
                          : std::to_string(std::get<std::int64_t>(cell))));
    });
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1", "s=x", "s=y"}));
}

}  // namespace
}  // namespace gpudoctor
