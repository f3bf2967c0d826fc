#include "collect/xid_paths.h"

#include <algorithm>
#include <optional>

namespace gpudoctor {
namespace {

using std::chrono::milliseconds;

// How far `t` lies outside the span the kernel event covers (its first to
// its last repeat); nullopt when the event has no time.
std::optional<WallTime::duration> GapTo(const KernelEvent& kernel, WallTime t) {
  if (!kernel.time) return std::nullopt;
  const WallTime first = *kernel.time;
  const WallTime last = std::max(first, kernel.last_time.value_or(first));
  if (t < first) return first - t;
  if (t > last) return t - last;
  return WallTime::duration::zero();
}

bool IsXid(const KernelEvent& e) { return e.kind == KernelEventKind::kXid && e.code.has_value(); }

// The index of the kernel event (with capacity left) nearest to `nvml`.
template <typename Events, typename Capacity>
std::optional<std::size_t> Nearest(const Events& kernel, const Capacity& capacity_of,
                                   const KernelEvent& nvml, milliseconds skew) {
  std::optional<std::size_t> best;
  WallTime::duration best_gap{};
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (capacity_of(i) == 0 || !SameXid(kernel[i], nvml, skew)) continue;
    const auto gap = *GapTo(kernel[i], *nvml.time);
    if (!best || gap < best_gap) {
      best = i;
      best_gap = gap;
    }
  }
  return best;
}

bool EarlierTimed(const KernelEvent& a, const KernelEvent& b) {
  return a.time.has_value() && b.time.has_value() && *a.time < *b.time;
}

}  // namespace

bool SameXid(const KernelEvent& kernel, const KernelEvent& nvml, milliseconds skew) {
  if (!IsXid(kernel) || !IsXid(nvml) || *kernel.code != *nvml.code) return false;
  if (!kernel.pci_bus_id.empty() && !nvml.pci_bus_id.empty() &&
      kernel.pci_bus_id != nvml.pci_bus_id) {
    return false;
  }
  if (!nvml.time) return false;
  const auto gap = GapTo(kernel, *nvml.time);
  return gap && *gap <= skew;
}

std::vector<KernelEvent> MergeXidPaths(std::vector<KernelEvent> kernel,
                                       std::vector<KernelEvent> nvml, milliseconds skew) {
  std::stable_sort(nvml.begin(), nvml.end(), EarlierTimed);
  std::vector<std::size_t> capacity(kernel.size());
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    capacity[i] = IsXid(kernel[i]) ? std::max<std::size_t>(1, kernel[i].count) : 0;
  }
  const std::size_t kernel_count = kernel.size();
  for (auto& e : nvml) {
    auto match = Nearest(kernel, [&](std::size_t i) { return i < kernel_count ? capacity[i] : 0; },
                         e, skew);
    if (match) {
      --capacity[*match];
      continue;
    }
    kernel.push_back(std::move(e));
  }
  std::stable_sort(kernel.begin(), kernel.end(), EarlierTimed);
  return kernel;
}

std::vector<KernelEvent> XidPathMerger::Add(std::vector<KernelEvent> kernel,
                                            std::vector<KernelEvent> nvml, WallTime now) {
  std::vector<KernelEvent> out;
  for (auto& e : kernel) {
    if (IsXid(e)) {
      KernelEvent stamped = e;
      if (!stamped.time) stamped.time = now;  // it arrived just now
      std::size_t capacity = std::max<std::size_t>(1, stamped.count);
      // NVML may have been faster than the kernel log: the line takes back
      // what it holds.
      while (capacity > 0) {
        auto nearest = held_nvml_.end();
        WallTime::duration best{};
        for (auto it = held_nvml_.begin(); it != held_nvml_.end(); ++it) {
          if (!SameXid(stamped, *it, skew_)) continue;
          const auto gap = *GapTo(stamped, *it->time);
          if (nearest == held_nvml_.end() || gap < best) {
            nearest = it;
            best = gap;
          }
        }
        if (nearest == held_nvml_.end()) break;
        held_nvml_.erase(nearest);
        --capacity;
      }
      if (capacity > 0) recent_kernel_.push_back(Recent{std::move(stamped), capacity});
    }
    out.push_back(std::move(e));
  }
  for (auto& e : nvml) {
    if (!e.time) e.time = now;
    std::optional<std::size_t> match;
    WallTime::duration best{};
    for (std::size_t i = 0; i < recent_kernel_.size(); ++i) {
      const Recent& r = recent_kernel_[i];
      if (r.capacity == 0 || !SameXid(r.event, e, skew_)) continue;
      const auto gap = *GapTo(r.event, *e.time);
      if (!match || gap < best) {
        match = i;
        best = gap;
      }
    }
    if (match) {
      --recent_kernel_[*match].capacity;
      continue;
    }
    held_nvml_.push_back(std::move(e));
  }
  // Release what no kernel line can claim any more; forget old lines.
  for (auto it = held_nvml_.begin(); it != held_nvml_.end();) {
    if (*it->time + skew_ < now) {
      out.push_back(std::move(*it));
      it = held_nvml_.erase(it);
    } else {
      ++it;
    }
  }
  while (!recent_kernel_.empty() &&
         (recent_kernel_.front().capacity == 0 ||
          recent_kernel_.front().event.last_time.value_or(*recent_kernel_.front().event.time) +
                  2 * skew_ < now)) {
    recent_kernel_.pop_front();
  }
  return out;
}

std::vector<KernelEvent> XidPathMerger::Flush() {
  std::vector<KernelEvent> out;
  out.swap(held_nvml_);
  return out;
}

}  // namespace gpudoctor
