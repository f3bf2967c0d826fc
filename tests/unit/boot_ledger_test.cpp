// The agent's reboot event (agent/boot_ledger.h): only for a known boot that
// changed, at the boot's time kept between the previous boot's last sample
// and now, naming the crash records.
#include "agent/boot_ledger.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

WallTime T(int seconds) {
  return WallTime{} + std::chrono::hours(24 * 365 * 56) + std::chrono::seconds(seconds);
}

TEST(BootLedger, OnlyAKnownBootThatChangedIsAReboot) {
  BootChange c{"aaaa", "aaaa", T(100), T(50), {}};
  EXPECT_FALSE(RebootEvent(c, T(200)));  // the same boot: an agent restart
  c.previous_boot_id = "";
  c.boot_id = "bbbb";
  EXPECT_FALSE(RebootEvent(c, T(200)));  // no previous run known
  c.previous_boot_id = "aaaa";
  c.boot_id = "";
  EXPECT_FALSE(RebootEvent(c, T(200)));  // no boot_id on this host
}

TEST(BootLedger, AtTheBootsTimeWithinTheLastSampleAndNow) {
  BootChange c{"aaaa",
               "bbbb",
               T(100),
               T(50),
               {"/sys/fs/pstore/dmesg-ramoops-0", "/sys/fs/pstore/dmesg-ramoops-1"}};
  auto e = RebootEvent(c, T(200));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, KernelEventKind::kReboot);
  EXPECT_EQ(e->time, T(100));
  EXPECT_EQ(e->detail, "bbbb");
  EXPECT_NE(e->message.find("crash record: /sys/fs/pstore/dmesg-ramoops-0 (+1 more)"),
            std::string::npos)
      << e->message;
  c.boot_time = T(10);  // a clock stepped back at boot: not before the last sample
  EXPECT_EQ(RebootEvent(c, T(200))->time, T(50));
  c.boot_time = T(900);  // not in the future
  EXPECT_EQ(RebootEvent(c, T(200))->time, T(200));
  c.boot_time.reset();
  c.crash_records.clear();
  auto plain = RebootEvent(c, T(300));
  EXPECT_EQ(plain->time, T(300));
  EXPECT_EQ(plain->message.find("crash"), std::string::npos) << plain->message;
}

}  // namespace
}  // namespace gpudoctor
