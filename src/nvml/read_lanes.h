// How many worker threads read the GPUs in one sample (NvmlSession). One
// lane reads every GPU in turn: one thread wake-up per sample, which is what
// an agent sampling every second mostly pays for. When that read is slow
// (longer than kSlowGpuRead), each GPU gets its own lane so that one slow GPU
// does not hold up the others; back to one lane once a parallel read shows
// that reading in turn would be fast again.
#pragma once

#include <chrono>
#include <cstddef>

namespace gpudoctor {

inline constexpr std::chrono::milliseconds kSlowGpuRead{250};

// The lanes for the next sample, given this sample's: `lanes` read
// `gpus_read` GPUs in `took`; the driver has `gpu_count` GPUs. A read of
// all GPUs longer than `slow` is slow.
std::size_t NextReadLanes(std::size_t lanes, std::chrono::steady_clock::duration took,
                          std::size_t gpus_read, std::size_t gpu_count,
                          std::chrono::steady_clock::duration slow = kSlowGpuRead);

}  // namespace gpudoctor
