// Runs driver calls on a thread of their own so that a hung driver cannot hang
// gpudoctor. A job wraps each driver call in CallTracker::Call, which records
// when the call started; the waiting thread gives up when one call has run
// longer than the deadline. A worker that gave up is "abandoned": it is never
// given another job, and it is detached (not joined) when destroyed, because
// the call it is stuck in may never return.
//
// Whatever a job writes must be owned by the job itself (capture shared_ptrs),
// since an abandoned job may still finish after its waiter has gone.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpudoctor {

class CallTracker {
 public:
  // Runs fn() as the call named `name` (a string literal). Returns fn's result
  // or, once the worker has been abandoned, `if_abandoned` without calling.
  template <typename Fn>
  auto Call(const char* name, Fn&& fn, decltype(fn()) if_abandoned) {
    if (abandoned_.load()) return if_abandoned;
    Begin(name);
    auto result = fn();
    End();
    return result;
  }
  bool abandoned() const { return abandoned_.load(); }

  // How long each call made since the last TakeCallNs() took, in ns, in call
  // order; clears the list. For the thread that runs the calls only.
  std::vector<std::int64_t> TakeCallNs() { return std::exchange(call_ns_, {}); }

 private:
  friend class CallWorker;
  void Begin(const char* name);
  void End();

  // When the running call started (steady clock); 0 when none runs;
  // kAbandonedCall once the waiter gave up on the running call.
  static constexpr std::int64_t kAbandonedCall = -1;
  std::atomic<std::int64_t> started_ns_{0};
  std::atomic<const char*> current_{nullptr};
  std::atomic<bool> abandoned_{false};
  std::vector<std::int64_t> call_ns_;  // the running job's thread only
};

class CallWorker {
 public:
  explicit CallWorker(std::chrono::milliseconds deadline);
  ~CallWorker();
  CallWorker(const CallWorker&) = delete;
  CallWorker& operator=(const CallWorker&) = delete;

  using Job = std::function<void(CallTracker&)>;

  // Starts a job; the worker must be idle and not abandoned.
  void Submit(Job job);
  // Waits for the submitted job. True when it finished; false when one call
  // overran the deadline (the worker is then abandoned).
  bool Wait();
  // Submit + Wait.
  bool Run(Job job) {
    Submit(std::move(job));
    return Wait();
  }

  // After Wait() gave up: waits up to `most` for the abandoned job to return
  // at last. True when it has (the worker still takes no new job).
  bool WaitFinished(std::chrono::milliseconds most);

  bool abandoned() const { return state_->tracker.abandoned(); }
  // The call that overran, e.g. "nvmlDeviceGetPowerUsage"; empty if none.
  std::string hung_call() const { return hung_call_; }
  std::chrono::milliseconds deadline() const { return deadline_; }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    Job job;
    bool has_job = false;
    bool job_done = false;
    bool stop = false;
    CallTracker tracker;
  };
  static void Loop(std::shared_ptr<State> state);

  std::chrono::milliseconds deadline_;
  std::shared_ptr<State> state_;
  std::thread thread_;
  std::string hung_call_;
};

}  // namespace gpudoctor
