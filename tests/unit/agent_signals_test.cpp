// The agent loop's sleep between samples ends on a stop or reload request
// (as its signal handlers make), not at the next poll of a flag.
#include "agent/agent_signals.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

namespace gpudoctor {
namespace {

using Clock = std::chrono::steady_clock;

TEST(AgentSignals, StopFromAnotherThreadEndsTheWait) {
  AgentSignals s;
  EXPECT_FALSE(s.stop_requested());
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s.RequestStop();
  });
  // A deadline far beyond the test's own timeout: only the request can end it.
  s.WaitUntil(Clock::now() + std::chrono::hours(1));
  t.join();
  EXPECT_TRUE(s.stop_requested());
  EXPECT_FALSE(s.TakeReload());
}

TEST(AgentSignals, ReloadEndsTheWaitOnceAndIsTakenOnce) {
  AgentSignals s;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s.RequestReload();
  });
  s.WaitUntil(Clock::now() + std::chrono::hours(1));
  t.join();
  EXPECT_FALSE(s.stop_requested());
  EXPECT_TRUE(s.TakeReload());
  EXPECT_FALSE(s.TakeReload());
}

AgentSignals* g_target = nullptr;
void OnSignal(int) { g_target->RequestStop(); }

TEST(AgentSignals, RequestFromASignalHandlerEndsTheWait) {
  AgentSignals s;
  g_target = &s;
  struct sigaction sa {}, old {};
  sa.sa_handler = OnSignal;
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  std::thread t([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::raise(SIGUSR1);
  });
  s.WaitUntil(Clock::now() + std::chrono::hours(1));
  t.join();
  sigaction(SIGUSR1, &old, nullptr);
  EXPECT_TRUE(s.stop_requested());
}

TEST(AgentSignals, ReturnsAtTheDeadlineWithoutARequest) {
  AgentSignals s;
  const auto deadline = Clock::now() + std::chrono::milliseconds(30);
  s.WaitUntil(deadline);
  EXPECT_GE(Clock::now(), deadline);
  EXPECT_FALSE(s.stop_requested());
  EXPECT_FALSE(s.TakeReload());
}

}  // namespace
}  // namespace gpudoctor
