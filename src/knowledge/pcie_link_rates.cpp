#include "knowledge/pcie_link_rates.h"

namespace gpudoctor {

std::optional<double> PcieLaneGbps(long generation) {
  switch (generation) {
    case 1: return 0.25;     // 2.5 GT/s, 8b/10b
    case 2: return 0.5;      // 5 GT/s, 8b/10b
    case 3: return 0.9846;   // 8 GT/s, 128b/130b
    case 4: return 1.9692;   // 16 GT/s, 128b/130b
    case 5: return 3.9385;   // 32 GT/s, 128b/130b
    case 6: return 7.5625;   // 64 GT/s PAM4, FLIT 242 of 256 bytes
    default: return std::nullopt;
  }
}

}  // namespace gpudoctor
