#include <gtest/gtest.h>

#include "http/listen_address.h"

namespace gpudoctor {
namespace listen_address_test_ns {

TEST(ListenAddress, HostAndPort) {
  auto a = ParseListenAddress("127.0.0.1:9835");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9835);
  auto v6 = ParseListenAddress("[::1]:9835");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
}

// ":9835" is how node-exporter's and dcgm-exporter's users write "every
// address"; it was refused.
TEST(ListenAddress, BarePortIsEveryAddress) {
  auto a = ParseListenAddress(":9835");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->host, "0.0.0.0");
  EXPECT_EQ(a->port, 9835);
}

TEST(ListenAddress, MalformedIsOneLineNamingTheValue) {
  for (const char* bad : {"9835", "host:", "host:99999", "host:98a", ":"}) {
    auto a = ParseListenAddress(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_NE(a.error().message.find(bad), std::string::npos) << a.error().message;
    EXPECT_EQ(a.error().message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace gpudoctor
