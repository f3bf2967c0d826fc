#include "core/time_parse.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/time_format.h"

namespace gpudoctor {
namespace {

std::string Utc(std::string_view text) {
  auto t = ParseTimePoint(text);
  if (!t) return "error: " + t.error().message;
  return FormatRfc3339(*t);
}

TEST(TimeParse, Rfc3339InUtcAndWithOffsets) {
  EXPECT_EQ(Utc("2026-11-29T02:13:05Z"), "2026-11-29T02:13:05Z");
  EXPECT_EQ(Utc("2026-11-29T10:13:05+08:00"), "2026-11-29T02:13:05Z");
  EXPECT_EQ(Utc("2026-11-28T21:13:05-05:00"), "2026-11-29T02:13:05Z");
  EXPECT_EQ(Utc("2026-11-29t02:13:05.25z"), "2026-11-29T02:13:05.250Z");
}

TEST(TimeParse, LocalTimeUsesTheTimeZone) {
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", "CST-8", 1);  // POSIX form: no tzdata needed
  tzset();
  EXPECT_EQ(Utc("2026-11-29 10:13"), "2026-11-29T02:13:00Z");
  EXPECT_EQ(Utc("2026-11-29T10:13:05"), "2026-11-29T02:13:05Z");
  EXPECT_EQ(Utc("2026-11-29"), "2026-11-28T16:00:00Z");
  if (old) setenv("TZ", saved.c_str(), 1); else unsetenv("TZ");
  tzset();
}

TEST(TimeParse, MalformedTextIsAnErrorNamingIt) {
  for (const char* bad : {"", "yesterday", "2026-13-01", "2026-02-30", "2026-11-29T25:00",
                          "2026-11-29T02:13:05+8", "2026-11-29T02:13:05Zjunk", "2026-11-29 2:13",
                          "2026-11-29T02:13:05.", "20261129"}) {
    auto t = ParseTimePoint(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.error().message.find(std::string("'") + bad + "'"), std::string::npos) << bad;
    EXPECT_EQ(t.error().message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace gpudoctor
