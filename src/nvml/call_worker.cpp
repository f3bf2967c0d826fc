#include "nvml/call_worker.h"

namespace gpudoctor {
namespace {

std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Call times kept between two TakeCallNs(); later calls go uncounted.
constexpr std::size_t kMostCallTimes = 4096;

}  // namespace

void CallTracker::Begin(const char* name) {
  current_.store(name);
  started_ns_.store(NowNs());
}

void CallTracker::End() {
  // A call the waiter gave up on marks the job abandoned from its own
  // thread too, so that nothing the job does after it returns late (reading
  // the next GPU) can be mistaken for work done before the deadline.
  const std::int64_t started = started_ns_.exchange(0);
  if (started == kAbandonedCall) {
    abandoned_.store(true);
    return;
  }
  // Bounded: a reading makes about a hundred calls between two takes.
  if (call_ns_.size() < kMostCallTimes) call_ns_.push_back(NowNs() - started);
}

CallWorker::CallWorker(std::chrono::milliseconds deadline)
    : deadline_(deadline), state_(std::make_shared<State>()) {
  thread_ = std::thread(&CallWorker::Loop, state_);
}

CallWorker::~CallWorker() {
  {
    std::lock_guard lock(state_->mu);
    state_->stop = true;
  }
  state_->cv.notify_all();
  if (abandoned()) {
    thread_.detach();  // it may be stuck in the driver for good
  } else {
    thread_.join();
  }
}

void CallWorker::Loop(std::shared_ptr<State> state) {
  std::unique_lock lock(state->mu);
  while (true) {
    state->cv.wait(lock, [&] { return state->stop || state->has_job; });
    if (state->stop) return;
    Job job = std::move(state->job);
    state->has_job = false;
    lock.unlock();
    job(state->tracker);
    lock.lock();
    state->job_done = true;
    state->cv.notify_all();
  }
}

void CallWorker::Submit(Job job) {
  {
    std::lock_guard lock(state_->mu);
    state_->job = std::move(job);
    state_->has_job = true;
    state_->job_done = false;
  }
  state_->cv.notify_all();
}

bool CallWorker::Wait() {
  const std::int64_t deadline_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline_).count();
  std::unique_lock lock(state_->mu);
  while (!state_->job_done) {
    std::int64_t started = state_->tracker.started_ns_.load();
    std::int64_t now = NowNs();
    if (started != 0 && now - started >= deadline_ns) {
      // Only while that very call is still running: it cannot end (and no
      // other call begin) between reading its name and the exchange.
      const char* name = state_->tracker.current_.load();
      if (state_->tracker.started_ns_.compare_exchange_strong(started,
                                                              CallTracker::kAbandonedCall)) {
        hung_call_ = name ? name : "an NVML call";
        state_->tracker.abandoned_.store(true);
        return false;
      }
      continue;  // it returned just in time
    }
    // Sleep until this call would overrun, or one deadline if none runs.
    std::int64_t wait_ns = started != 0 ? started + deadline_ns - now : deadline_ns;
    state_->cv.wait_for(lock, std::chrono::nanoseconds(wait_ns));
  }
  return true;
}

bool CallWorker::WaitFinished(std::chrono::milliseconds most) {
  std::unique_lock lock(state_->mu);
  return state_->cv.wait_for(lock, most, [&] { return state_->job_done; });
}

}  // namespace gpudoctor
