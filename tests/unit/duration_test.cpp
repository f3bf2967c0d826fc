#include "core/duration.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

TEST(Duration, AcceptsEveryUnit) {
  EXPECT_EQ(ParseDuration("500ms")->count(), 500);
  EXPECT_EQ(ParseDuration("10s")->count(), 10000);
  EXPECT_EQ(ParseDuration("5m")->count(), 300000);
  EXPECT_EQ(ParseDuration("2h")->count(), 7200000);
  EXPECT_EQ(ParseDuration("7d")->count(), 604800000);
  EXPECT_EQ(ParseDuration("1")->count(), 1000);
  EXPECT_EQ(ParseDuration("0.5")->count(), 500);
  EXPECT_EQ(ParseDuration("1.5s")->count(), 1500);
}

TEST(Duration, RejectsGarbageWithTheTextInTheMessage) {
  for (const char* bad : {"", "s", "10x", "-5s", "0", "0ms", "abc", "1e9d", "10 s", "5.5.5s"}) {
    auto r = ParseDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
    EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpudoctor

namespace gpudoctor {
namespace {

// A command with its own floor says that floor, for zero too.
TEST(Duration, AMinimumIsNamedForZeroAndForTooShort) {
  const auto hundred = std::chrono::milliseconds(100);
  EXPECT_EQ(ParseDuration("100ms", hundred)->count(), 100);
  for (const char* text : {"0", "50ms", "0.05"}) {
    auto r = ParseDuration(text, hundred);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find("must be at least 100ms"), std::string::npos)
        << r.error().message;
  }
  auto zero = ParseDuration("0");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("must be at least 1ms"), std::string::npos);
  auto minutes = ParseDuration("30s", std::chrono::milliseconds(60000));
  ASSERT_FALSE(minutes);
  EXPECT_NE(minutes.error().message.find("must be at least 60s"), std::string::npos)
      << minutes.error().message;
}

}  // namespace
}  // namespace gpudoctor
