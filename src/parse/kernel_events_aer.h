// Internal to the kernel-event extractor: which PCIe AER events belong to an
// NVIDIA GPU. An uncorrected error on the link to a GPU is often reported by
// the port above it ("pcieport 0000:00:03.0: ... Uncorrected (Fatal) error
// received: 0000:00:03.0", "[ 5] SDES", "device recovery failed", "Root Port
// link has been reset"), while only one line of the same burst names the GPU
// ("nvidia 0000:03:00.0: AER: can't recover ..."). A burst is a run of AER
// events at most kAerBurstLines lines (or, for live sources without line
// numbers, kAerBurstSeconds) apart. Within a burst that names an NVIDIA
// device, the port's reports about itself ("pcieport X: ... received: X",
// its recovery lines) are the GPU's: their pci_bus_id becomes the GPU's (the
// message still names the port). Other devices' events (the card's audio
// function, a port relaying a NIC's error) are dropped -- except a port's
// own link loss (uncorrected fatal, Surprise Down, failed recovery) that no
// NVIDIA line claims: that is a host-wide event under the port's bus id,
// emitted when its burst ends (Add) or the input does (Flush).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor::kevents {

inline constexpr std::size_t kAerBurstLines = 40;
inline constexpr double kAerBurstSeconds = 5;

class AerBurst {
 public:
  // Takes one closed AER event (`nvidia`: a line of its group named the
  // nvidia driver or an NVIDIA device id) and returns the events to emit
  // now, in order: held port events the GPU now claims, then this one.
  // `owner` (may be null): bus id -> GPU, from this machine's PCI tree; an
  // event whose bus id it lists is that GPU's (`nvidia` is then implied).
  std::vector<KernelEvent> Add(KernelEvent ev, bool nvidia,
                               const std::map<std::string, std::string>* owner = nullptr);
  // The held port link-loss events of the burst in progress, which no
  // NVIDIA line claimed; the burst is then empty. Call at the end of input.
  std::vector<KernelEvent> Flush();

 private:
  bool SameBurst(const KernelEvent& ev) const;

  std::vector<KernelEvent> held_;  // events of this burst no NVIDIA line claimed yet
  std::string gpu_;                // the NVIDIA device this burst names, once seen
  bool have_last_ = false;
  KernelEvent last_;               // the burst's latest event (for the gap)
};

}  // namespace gpudoctor::kevents
