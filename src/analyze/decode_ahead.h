// Decompression ahead of the reader, in a thread of its own: the producer
// fills a small ring of buffers with what `fill` returns (inflated bytes)
// while the caller scans the previous ones, as `zcat | grep` gets from its
// pipe. Memory stays bounded: at most kDecodeAheadSlots buffers of
// kDecodeAheadSlotBytes. The thread is joined on every path (the end of
// the data, an error, the destructor while it is still filling).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/result.h"

namespace gpudoctor {

inline constexpr std::size_t kDecodeAheadSlots = 4;
inline constexpr std::size_t kDecodeAheadSlotBytes = 1u << 20;

class DecodeAhead {
 public:
  // Up to `size` bytes into buf, 0 at the end, or an error. Called from the
  // producer's thread only; it may throw (the exception ends the data with
  // an error).
  using Fill = std::function<Result<std::size_t>(char* buf, std::size_t size)>;

  // Starts the thread (std::system_error when none can be started).
  explicit DecodeAhead(Fill fill);
  ~DecodeAhead();  // stops the producer and joins it
  DecodeAhead(const DecodeAhead&) = delete;
  DecodeAhead& operator=(const DecodeAhead&) = delete;

  // The next bytes in order, as `fill` produced them: up to `size` of them,
  // 0 at the end; an error of `fill` comes after the bytes before it, and
  // every call after the end or an error returns 0.
  Result<std::size_t> Read(char* buf, std::size_t size);
  // True once `fill` has returned its end or an error (the producer writes
  // nothing more).
  bool finished() const;

 private:
  void Produce();

  Fill fill_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Slot {
    std::vector<char> data;
    std::size_t size = 0;
  };
  Slot slots_[kDecodeAheadSlots];
  std::size_t head_ = 0;   // the slot read next
  std::size_t filled_ = 0;  // slots ready, from head_ on
  std::size_t pos_ = 0;    // bytes of the head slot already read
  bool done_ = false;      // fill_ ended (or failed); filled_ slots remain
  bool error_given_ = false;
  bool stop_ = false;
  std::optional<Error> error_;
  std::thread thread_;
};

}  // namespace gpudoctor
