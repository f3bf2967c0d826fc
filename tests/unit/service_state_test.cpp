#include "collect/service_state.h"

#include <gtest/gtest.h>
#include <systemd/sd-daemon.h>

namespace gpudoctor {
namespace {

// The real sd-bus reader either reaches systemd or says it cannot, as a value.
TEST(SystemdServiceState, AnswersOrReportsUnavailable) {
  auto reader = MakeSystemdServiceStateReader(1000);
  auto state = reader->Read("gpudoctor-test-no-such-unit.service");
  if (sd_booted() <= 0) {
    ASSERT_FALSE(state.ok());
    EXPECT_TRUE(state.error().code == ErrorCode::kUnavailable ||
                state.error().code == ErrorCode::kPermission)
        << state.error().message;
    EXPECT_FALSE(state.error().message.empty());
    return;
  }
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(state->load_state, "not-found");
  EXPECT_FALSE(state->Installed());
  EXPECT_FALSE(state->Running());
}

}  // namespace
}  // namespace gpudoctor
