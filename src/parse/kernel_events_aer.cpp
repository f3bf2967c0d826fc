#include "parse/kernel_events_aer.h"

#include <chrono>
#include <cmath>
#include <string_view>
#include <utility>

#include "parse/kernel_catalog.h"

namespace gpudoctor::kevents {
namespace {

constexpr std::size_t kMaxHeld = 64;  // a burst longer than this keeps its first events

// A port's report about itself: "pcieport 0000:00:03.0: AER: ... error
// received: 0000:00:03.0" (the port detected it: Surprise Down) or the
// port's recovery lines. A port reporting another device's error ("...
// received: 0000:81:00.0", a NIC) is not the GPU's.
bool IsPortAerEvent(const KernelEvent& ev) {
  std::string_view m = ev.message;
  if (m.rfind("pcieport ", 0) != 0) return false;
  return !ev.pci_bus_id.empty() && NormalizeKernelPci(FindPci(m.substr(9, 16))) == ev.pci_bus_id;
}

// A port's own report of losing its link: uncorrected fatal, Surprise Down,
// or recovery that failed. Such an event matters even when nothing ties the
// port to a GPU.
bool IsPortLinkLoss(const KernelEvent& ev) {
  if (!IsPortAerEvent(ev)) return false;
  const std::string& d = ev.detail;
  return d.find("uncorrected fatal") != std::string::npos ||
         d.find(kAerSurpriseDown.substr(2)) != std::string::npos || d == kAerRecoveryFailed ||
         d == kAerCantRecover;
}

}  // namespace

std::vector<KernelEvent> AerBurst::Flush() {
  std::vector<KernelEvent> out;
  for (KernelEvent& held : held_) {
    if (IsPortLinkLoss(held)) out.push_back(std::move(held));
  }
  held_.clear();
  gpu_.clear();
  return out;
}

bool AerBurst::SameBurst(const KernelEvent& ev) const {
  if (!have_last_ || ev.source.file != last_.source.file) return false;
  if (ev.source.line > 0 && last_.source.line > 0) {
    return ev.source.line >= last_.source.line &&
           ev.source.line - last_.source.line <= kAerBurstLines;
  }
  if (ev.time && last_.time) {
    return std::fabs(std::chrono::duration<double>(*ev.time - *last_.time).count()) <=
           kAerBurstSeconds;
  }
  if (ev.monotonic_s && last_.monotonic_s) {
    return std::fabs(*ev.monotonic_s - *last_.monotonic_s) <= kAerBurstSeconds;
  }
  return true;  // nothing to tell them apart: adjacent AER events are one burst
}

std::vector<KernelEvent> AerBurst::Add(KernelEvent ev, bool nvidia,
                                       const std::map<std::string, std::string>* owner) {
  std::vector<KernelEvent> out;
  if (!SameBurst(ev)) out = Flush();
  if (owner && !ev.pci_bus_id.empty()) {
    if (auto it = owner->find(ev.pci_bus_id); it != owner->end()) {
      ev.pci_bus_id = it->second;
      nvidia = true;
    }
  }
  last_ = ev;
  have_last_ = true;
  if (nvidia && !ev.pci_bus_id.empty()) {
    gpu_ = ev.pci_bus_id;
    for (KernelEvent& held : held_) {
      if (!IsPortAerEvent(held)) continue;
      held.pci_bus_id = gpu_;
      out.push_back(std::move(held));
    }
    held_.clear();
    out.push_back(std::move(ev));
  } else if (nvidia) {
    out.push_back(std::move(ev));
  } else if (!gpu_.empty() && IsPortAerEvent(ev)) {
    ev.pci_bus_id = gpu_;
    out.push_back(std::move(ev));
  } else if (held_.size() < kMaxHeld) {
    held_.push_back(std::move(ev));
  }
  return out;
}

}  // namespace gpudoctor::kevents
