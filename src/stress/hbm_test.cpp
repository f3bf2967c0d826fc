#include <algorithm>

#include "cuda/stress_kernels.h"
#include "stress/gpu_tests.h"
#include "stress/stop_signal.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kHbmMaxBufferBytes = std::size_t{2} << 30;
constexpr std::size_t kHbmMinBufferBytes = std::size_t{64} << 20;
constexpr unsigned kHbmBlock = 256;
constexpr unsigned kHbmBlocksPerSm = 16;

}  // namespace

std::optional<double> MedianOf(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

HbmOutcome RunHbm(CudaGpu& gpu, SteadyTime deadline) {
  HbmOutcome out;
  auto fail = [&](const Error& e) {
    out.error = GpuTestError{e.message, std::chrono::steady_clock::now()};
    return out;
  };
  auto info = gpu.MemoryInfo();
  if (!info) return fail(info.error());
  // Two buffers of up to 2 GiB each, in a quarter of the free memory:
  // large enough that no cache holds them.
  std::size_t bytes = std::min(kHbmMaxBufferBytes, info->first / 4) / 16 * 16;
  if (bytes < kHbmMinBufferBytes) {
    return fail(Error{ErrorCode::kUnavailable, "hbm: less than 256 MiB of device memory free"});
  }
  auto src = gpu.Alloc(bytes);
  if (!src) return fail(src.error());
  auto dst = gpu.Alloc(bytes);
  if (!dst) {
    gpu.Free(*src);
    return fail(dst.error());
  }
  CUdeviceptr d = *dst, s = *src;
  std::uint64_t vectors = bytes / 16;
  void* params[] = {&d, &s, &vectors};
  unsigned grid = static_cast<unsigned>(gpu.device().multiprocessors) * kHbmBlocksPerSm;
  for (int rep = 0; rep <= kHbmRepetitions; ++rep) {
    if (StressStopRequested() || std::chrono::steady_clock::now() >= deadline) break;
    if (!out.first_launch) out.first_launch = std::chrono::steady_clock::now();
    auto ms = gpu.TimeMs([&] { return gpu.Launch(StressKernel::kCopy, grid, kHbmBlock, params); });
    if (!ms) {
      out.error = GpuTestError{ms.error().message, std::chrono::steady_clock::now()};
      break;
    }
    // The first launch warms up (JIT, clocks, TLB) and is not counted.
    if (rep > 0 && *ms > 0) out.gbps.push_back(2.0 * static_cast<double>(bytes) / (*ms * 1e6));
  }
  gpu.Free(d);
  gpu.Free(s);
  return out;
}

}  // namespace gpudoctor
