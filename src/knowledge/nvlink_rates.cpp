#include "knowledge/nvlink_rates.h"

#include <array>

namespace gpudoctor {
namespace {

// nvmlNvlinkVersion_t (nvml.h from CUDA 12.8 on) against NVIDIA's figures.
constexpr std::array<NvLinkGeneration, 7> kNvLinkGenerations{{
    {1, "NVLink 1.0", 20, "NVIDIA Tesla P100 whitepaper: 4 links, 160 GB/s bidirectional"},
    {2, "NVLink 2.0", 25, "NVIDIA Tesla V100 datasheet: 6 links, 300 GB/s bidirectional"},
    {3, "NVLink 2.2", 25, "NVLink 2.x signalling as V100: 25 GB/s a link a direction"},
    {4, "NVLink 3.0", 25, "NVIDIA A100 datasheet: 12 links, 600 GB/s bidirectional"},
    {5, "NVLink 3.1", 25, "NVLink 3.x signalling as A100: 25 GB/s a link a direction"},
    {6, "NVLink 4.0", 25, "NVIDIA H100 datasheet: 18 links, 900 GB/s bidirectional"},
    {7, "NVLink 5.0", 50, "NVIDIA B200 (HGX B200) datasheet: 18 links, 1.8 TB/s bidirectional"},
}};

}  // namespace

std::optional<NvLinkGeneration> FindNvLinkGeneration(long nvml_version) {
  for (const NvLinkGeneration& g : kNvLinkGenerations) {
    if (g.nvml_version == nvml_version) return g;
  }
  return std::nullopt;
}

}  // namespace gpudoctor
