// Waiting for a condition instead of assuming how long it takes: a test that
// needs "the agent has written 6 samples" polls for it, so a machine that is
// slow (a sanitizer build, every core busy) only makes the test longer.
#pragma once

#include <chrono>
#include <thread>

namespace gpudoctor::test {

// Calls `done` every `every` until it returns true (then true) or `limit`
// has passed (then false, after one last call).
template <typename Done>
bool WaitUntil(Done&& done, std::chrono::milliseconds limit,
               std::chrono::milliseconds every = std::chrono::milliseconds(100)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(every);
  }
  return done();
}

}  // namespace gpudoctor::test
