#include "analyze/decode_ahead.h"

#include <cstring>
#include <exception>
#include <new>

namespace gpudoctor {

DecodeAhead::DecodeAhead(Fill fill) : fill_(std::move(fill)) {
  thread_ = std::thread([this] { Produce(); });
}

DecodeAhead::~DecodeAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void DecodeAhead::Produce() {
  for (;;) {
    std::size_t slot = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || filled_ < kDecodeAheadSlots; });
      if (stop_) return;
      slot = (head_ + filled_) % kDecodeAheadSlots;
    }
    // The slot past the filled ones is the producer's alone.
    Slot& s = slots_[slot];
    Result<std::size_t> n = std::size_t{0};
    try {
      if (s.data.size() < kDecodeAheadSlotBytes) s.data.resize(kDecodeAheadSlotBytes);
      n = fill_(s.data.data(), s.data.size());
    } catch (const std::bad_alloc&) {
      n = Error{ErrorCode::kIo, "out of memory decompressing"};
    } catch (const std::exception& e) {
      n = Error{ErrorCode::kIo, std::string("decompressing failed: ") + e.what()};
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!n) {
        error_ = n.error();
        done_ = true;
      } else if (*n == 0) {
        done_ = true;
      } else {
        s.size = *n;
        ++filled_;
      }
    }
    cv_.notify_all();
    if (!n || *n == 0) return;
  }
}

Result<std::size_t> DecodeAhead::Read(char* buf, std::size_t size) {
  if (size == 0) return std::size_t{0};
  const char* from = nullptr;
  std::size_t n = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return filled_ > 0 || done_; });
    if (filled_ == 0) {
      if (error_ && !error_given_) {
        error_given_ = true;
        return *error_;
      }
      return std::size_t{0};
    }
    // The head slot is the reader's alone while it is filled.
    const Slot& s = slots_[head_];
    from = s.data.data() + pos_;
    n = std::min(size, s.size - pos_);
  }
  std::memcpy(buf, from, n);
  bool freed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pos_ += n;
    if (pos_ == slots_[head_].size) {
      pos_ = 0;
      head_ = (head_ + 1) % kDecodeAheadSlots;
      --filled_;
      freed = true;
    }
  }
  if (freed) cv_.notify_all();
  return n;
}

bool DecodeAhead::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

}  // namespace gpudoctor
