#include <algorithm>

#include "cuda/stress_kernels.h"
#include "stress/gpu_tests.h"
#include "stress/stop_signal.h"

namespace gpudoctor {
namespace {

constexpr unsigned kMemoryBlock = 256;
constexpr unsigned kMemoryBlocksPerSm = 16;
constexpr std::size_t kMemoryGranule = std::size_t{2} << 20;
constexpr std::size_t kMemoryMaxAddresses = 32;

struct MemoryPattern {
  const char* name;
  std::uint64_t word;
  std::uint32_t mode;
};

constexpr MemoryPattern kMemoryPatterns[] = {
    {"0x00", 0x0000000000000000ull, kPatternFixed},
    {"0xFF", 0xFFFFFFFFFFFFFFFFull, kPatternFixed},
    {"0xAA", 0xAAAAAAAAAAAAAAAAull, kPatternFixed},
    {"0x55", 0x5555555555555555ull, kPatternFixed},
    {"address", 0, kPatternAddress},
};

// As much of `want` as the driver will give, in steps of 5 % down.
Result<std::pair<CUdeviceptr, std::size_t>> AllocLargest(CudaGpu& gpu, std::size_t want) {
  Error last{ErrorCode::kUnavailable, "memory: no device memory free"};
  for (int attempt = 0; attempt < 8 && want >= kMemoryGranule; ++attempt) {
    auto p = gpu.Alloc(want);
    if (p) return std::make_pair(*p, want);
    last = p.error();
    want = want / 20 * 19 / kMemoryGranule * kMemoryGranule;
  }
  return last;
}

}  // namespace

MemoryOutcome RunMemory(CudaGpu& gpu, double fraction, SteadyTime deadline) {
  MemoryOutcome out;
  auto fail = [&](const Error& e) {
    out.error = GpuTestError{e.message, std::chrono::steady_clock::now()};
  };
  auto info = gpu.MemoryInfo();
  if (!info) {
    fail(info.error());
    return out;
  }
  auto result_buf = gpu.Alloc(kVerifyResultWords * 8);
  if (!result_buf) {
    fail(result_buf.error());
    return out;
  }
  std::size_t want = static_cast<std::size_t>(static_cast<double>(info->first) * fraction);
  auto big = AllocLargest(gpu, want / kMemoryGranule * kMemoryGranule);
  if (!big) {
    gpu.Free(*result_buf);
    fail(big.error());
    return out;
  }
  auto [buf, bytes] = *big;
  out.result.tested_bytes = bytes;
  out.result.buffer_address = buf;
  CUdeviceptr result = *result_buf;
  std::uint64_t words = bytes / 8;
  unsigned grid = static_cast<unsigned>(gpu.device().multiprocessors) * kMemoryBlocksPerSm;
  for (const MemoryPattern& pattern : kMemoryPatterns) {
    if (StressStopRequested() || std::chrono::steady_clock::now() >= deadline) break;
    if (!out.first_launch) out.first_launch = std::chrono::steady_clock::now();
    std::uint64_t word = pattern.word;
    std::uint32_t mode = pattern.mode;
    void* fill[] = {&buf, &words, &word, &mode};
    void* verify[] = {&buf, &words, &word, &mode, &result};
    std::uint64_t found[kVerifyResultWords] = {};
    auto step = gpu.Memset32(result, 0, kVerifyResultWords * 2);
    if (step) step = gpu.Launch(StressKernel::kFill, grid, kMemoryBlock, fill);
    if (step) step = gpu.Synchronize();
    if (step) step = gpu.Launch(StressKernel::kVerify, grid, kMemoryBlock, verify);
    if (step) step = gpu.CopyToHost(found, result, sizeof found);
    if (!step) {
      fail(step.error());
      break;
    }
    out.result.patterns.emplace_back(pattern.name);
    out.result.mismatches += found[0];
    std::uint64_t listed = std::min<std::uint64_t>(found[0], kVerifyAddressSlots);
    auto& addresses = out.result.mismatch_addresses;
    for (std::uint64_t i = 0; i < listed && addresses.size() < kMemoryMaxAddresses; ++i) {
      if (std::find(addresses.begin(), addresses.end(), found[1 + i]) == addresses.end()) {
        addresses.push_back(found[1 + i]);
      }
    }
  }
  std::sort(out.result.mismatch_addresses.begin(), out.result.mismatch_addresses.end());
  gpu.Free(buf);
  gpu.Free(*result_buf);
  return out;
}

}  // namespace gpudoctor
