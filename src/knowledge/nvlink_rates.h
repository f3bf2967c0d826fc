// What one NVLink link carries, per generation, for the `stress --tests p2p`
// expectation: a GPU pair's copy bandwidth should reach (links between the
// two, or the links each has to the NVSwitch fabric) x the per-link rate.
// Rates are one direction, 10^9 bytes a second, from NVIDIA's published
// per-GPU totals (both directions, all links) divided by 2 x the link count.
#pragma once

#include <optional>
#include <string_view>

namespace gpudoctor {

struct NvLinkGeneration {
  int nvml_version = 0;            // what nvmlDeviceGetNvLinkVersion answers (nvmlNvlinkVersion_t)
  std::string_view name;           // "NVLink 4.0"
  double link_gbps = 0;            // one link, one direction
  std::string_view source;         // the NVIDIA figure the rate comes from
};

// The row for an nvmlDeviceGetNvLinkVersion answer. That answer is an
// encoding, not the marketing number (1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0,
// 5 = 3.1, 6 = 4.0, 7 = 5.0); nullopt for 0 (invalid) and codes without a
// published per-link rate.
std::optional<NvLinkGeneration> FindNvLinkGeneration(long nvml_version);

// The share of the links' theoretical rate a large peer copy reaches on a
// healthy NVLink path (NVIDIA's nvbandwidth on H100 SXM: about 370-390 of
// 450 GB/s one direction), stated beside each expectation.
inline constexpr double kNvLinkAchievableShare = 0.8;

// A pair's copies below this share of what its path carries in theory
// (links x rate, or the PCIe link) are a finding (stress.peer_pair_below_links),
// and a marked cell in the report's p2p matrix.
inline constexpr double kP2pFlagBelowShare = 0.6;

// A pair's copies above this share of what its path carries in theory cannot
// be that path: the expectation is wrong (more links than counted, a faster
// generation, NVLink taken for PCIe); stress.peer_pair_above_links says so,
// and the report's p2p cell is marked.
inline constexpr double kP2pAboveShare = 1.1;

}  // namespace gpudoctor
