#include <algorithm>
#include <thread>

#include "cuda/stress_kernels.h"
#include "stress/gpu_tests.h"
#include "stress/stop_signal.h"

namespace gpudoctor {
namespace {

constexpr unsigned kBurnBlock = 256;
constexpr unsigned kBurnBlocksPerSm = 8;
constexpr std::uint32_t kBurnFirstIterations = 1024;

}  // namespace

BurnOutcome RunBurn(CudaGpu& gpu, SteadyTime start_at, SteadyTime deadline) {
  BurnOutcome out;
  auto fail = [&](const Error& e) {
    out.error = GpuTestError{e.message, std::chrono::steady_clock::now()};
    return out;
  };
  unsigned grid = static_cast<unsigned>(gpu.device().multiprocessors) * kBurnBlocksPerSm;
  auto buffer = gpu.Alloc(std::size_t{grid} * kBurnBlock * sizeof(float));
  if (!buffer) return fail(buffer.error());
  CUdeviceptr out_ptr = *buffer;
  std::uint32_t iterations = kBurnFirstIterations;
  void* params[] = {&out_ptr, &iterations};
  while (std::chrono::steady_clock::now() < start_at && !StressStopRequested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const double threads = double(grid) * kBurnBlock;
  while (!StressStopRequested() && std::chrono::steady_clock::now() < deadline) {
    if (!out.first_launch) out.first_launch = std::chrono::steady_clock::now();
    auto ms = gpu.TimeMs([&] { return gpu.Launch(StressKernel::kBurn, grid, kBurnBlock, params); });
    if (!ms) {
      gpu.Free(out_ptr);
      return fail(ms.error());
    }
    out.kernel_ms += *ms;
    out.flops += threads * iterations * kBurnFmasPerIteration * 2.0;
    // Aim each launch at kBurnLaunchTarget, so a stop is seen within one.
    double target = static_cast<double>(kBurnLaunchTarget.count());
    double scaled = *ms > 0.01 ? iterations * target / *ms : iterations * 8.0;
    iterations = static_cast<std::uint32_t>(std::clamp(scaled, 64.0, double(1u << 24)));
  }
  gpu.Free(out_ptr);
  return out;
}

}  // namespace gpudoctor
