// Theoretical one-direction bandwidth of a PCIe lane per generation, after
// line encoding (PCI-SIG base specifications: 8b/10b for Gen1-2, 128b/130b
// for Gen3-5, FLIT mode for Gen6), for the `stress --tests pcie` comparison.
// Transfers reach a share of it, less the TLP headers and flow control:
// about 80-85 % with 256-byte payloads.
#pragma once

#include <optional>

namespace gpudoctor {

// GB/s (10^9 bytes a second) of one lane, one direction; nullopt for a
// generation outside 1-6.
std::optional<double> PcieLaneGbps(long generation);

// The share of the theoretical bandwidth a large pinned copy reaches on a
// healthy link (DMA of 256-byte payloads): what stress states beside it.
inline constexpr double kPcieAchievableShare = 0.8;

// Pinned copies below this share of the link are a finding
// (stress.pcie_below_link) and a marked cell in the report.
inline constexpr double kPcieFlagBelowShare = 0.6;

// Both directions at once on a full-duplex link move well above one
// direction alone; below this many times the faster direction (no faster,
// within measuring noise), the path takes the directions in turn
// (stress.pcie_half_duplex).
inline constexpr double kPcieDuplexMinGain = 1.1;
// ... judged only when the slower direction alone reaches this share of the
// faster: H2D 10 and D2H 50 GB/s is a link slow one way, whose overlap could
// add at most 20 %, not a half-duplex one.
inline constexpr double kPcieDuplexMinBalance = 0.5;

}  // namespace gpudoctor
