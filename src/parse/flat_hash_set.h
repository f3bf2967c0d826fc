// A set of 64-bit hashes in one flat table (open addressing, linear
// probing). The kernel-log scan counts a flood's distinct processes with it
// (kernel_scan_rules.h): a storm's every line looks one up, and a
// node-based set costs a division and two cache misses each time.
// Not thread-safe.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpudoctor {

class FlatHashSet64 {
 public:
  std::size_t size() const { return size_; }
  bool Contains(std::uint64_t h) const {
    if (h == 0) h = kZero;
    if (slots_.empty()) return false;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Slot(h); slots_[i] != 0; i = (i + 1) & mask) {
      if (slots_[i] == h) return true;
    }
    return false;
  }
  // True when `h` was not in the set (it is now).
  bool Insert(std::uint64_t h) {
    if (h == 0) h = kZero;  // 0 marks an empty slot
    if (2 * (size_ + 1) > slots_.size()) Grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Slot(h);; i = (i + 1) & mask) {
      if (slots_[i] == h) return false;
      if (slots_[i] == 0) {
        slots_[i] = h;
        ++size_;
        return true;
      }
    }
  }

 private:
  static constexpr std::uint64_t kZero = 0x9e3779b97f4a7c15ull;  // what 0 is stored as
  std::size_t Slot(std::uint64_t h) const {
    return static_cast<std::size_t>((h * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void Grow() {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, 0);
    shift_ = 64 - static_cast<int>(std::bit_width(slots_.size()) - 1);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint64_t h : old) {
      if (h == 0) continue;
      std::size_t i = Slot(h);
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = h;
    }
  }
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace gpudoctor
