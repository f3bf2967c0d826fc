// Accept-Encoding parsing and the gzip body the agent serves to scrapers.
#include "http/content_encoding.h"

#include <gtest/gtest.h>

#include "analyze/input_file.h"

namespace gpudoctor {
namespace {

TEST(AcceptsGzip, PrometheusAndBrowserHeaders) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(AcceptsGzip(" x-gzip "));
  EXPECT_TRUE(AcceptsGzip("identity;q=0.5, *;q=0.1"));
}

TEST(AcceptsGzip, RefusedOrAbsent) {
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("deflate, br"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0.000, *"));
  EXPECT_FALSE(AcceptsGzip("*;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzipped"));
}

TEST(AcceptsGzip, MalformedPartsDoNotBreakIt) {
  EXPECT_TRUE(AcceptsGzip(",,gzip;q=banana;;,"));
  EXPECT_TRUE(AcceptsGzip("gzip;q=7"));  // out of range: treated as absent
  EXPECT_FALSE(AcceptsGzip(";;;,,,q=1"));
  EXPECT_FALSE(AcceptsGzip(std::string(10000, ',')));
}

TEST(GzipCompress, RoundTripsThroughTheGzipReader) {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += "gpudoctor_gpu_temperature_celsius{gpu=\"" + std::to_string(i % 8) + "\"} " +
            std::to_string(30 + i % 50) + "\n";
  }
  auto packed = GzipCompress(text);
  ASSERT_TRUE(packed);
  EXPECT_TRUE(IsGzipData(*packed));
  EXPECT_LT(packed->size(), text.size() / 5);
  auto back = GunzipData(*packed, "body", 0);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, text);
}

TEST(GzipCompress, EmptyInputIsAValidEmptyMember) {
  auto packed = GzipCompress("");
  ASSERT_TRUE(packed);
  EXPECT_TRUE(IsGzipData(*packed));
  auto back = GunzipData(*packed, "body", 0);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, "");
}

}  // namespace
}  // namespace gpudoctor
