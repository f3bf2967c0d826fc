#include "nvml/call_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace gpudoctor {
namespace {

using namespace std::chrono_literals;

TEST(CallWorker, FinishedJobReportsDone) {
  CallWorker worker(1000ms);
  auto value = std::make_shared<int>(0);
  EXPECT_TRUE(worker.Run([value](CallTracker& t) {
    *value = t.Call("quick", [] { return 42; }, -1);
  }));
  EXPECT_EQ(*value, 42);
  EXPECT_FALSE(worker.abandoned());
  EXPECT_EQ(worker.hung_call(), "");
}

TEST(CallWorker, HangingCallReturnsWithinDeadline) {
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto start = std::chrono::steady_clock::now();
  bool finished = true;
  std::string hung;
  {
    CallWorker worker(200ms);
    finished = worker.Run([release](CallTracker& t) {
      t.Call("nvmlDeviceGetPowerUsage", [&] {
        while (!release->load()) std::this_thread::sleep_for(5ms);
        return 0;
      }, -1);
    });
    hung = worker.hung_call();
    EXPECT_TRUE(worker.abandoned());
  }  // destroying an abandoned worker must not wait for the stuck call
  auto elapsed = std::chrono::steady_clock::now() - start;
  release->store(true);  // let the detached thread finish
  EXPECT_FALSE(finished);
  EXPECT_EQ(hung, "nvmlDeviceGetPowerUsage");
  // Generous bound: the deadline is 200 ms; a hang would be forever.
  EXPECT_LT(elapsed, 3s);
  std::this_thread::sleep_for(50ms);
}

TEST(CallWorker, ManyQuickCallsDoNotAddUpToAHang) {
  // Each call is quick; the job as a whole is longer than the deadline.
  CallWorker worker(100ms);
  auto calls = std::make_shared<int>(0);
  EXPECT_TRUE(worker.Run([calls](CallTracker& t) {
    for (int i = 0; i < 10; ++i) {
      t.Call("step", [&] {
        std::this_thread::sleep_for(20ms);
        return ++*calls;
      }, -1);
    }
  }));
  EXPECT_EQ(*calls, 10);
}

TEST(CallWorker, AbandonedTrackerSkipsFurtherCalls) {
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto later_calls = std::make_shared<std::atomic<int>>(0);
  {
    CallWorker worker(100ms);
    EXPECT_FALSE(worker.Run([release, later_calls](CallTracker& t) {
      t.Call("stuck", [&] {
        while (!release->load()) std::this_thread::sleep_for(5ms);
        return 0;
      }, -1);
      int r = t.Call("after", [&] { return ++*later_calls; }, -7);
      EXPECT_EQ(r, -7);
    }));
  }
  release->store(true);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(later_calls->load(), 0);
}

}  // namespace
}  // namespace gpudoctor
