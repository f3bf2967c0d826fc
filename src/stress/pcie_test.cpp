#include <cstring>

#include "stress/gpu_tests.h"
#include "stress/stop_signal.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kPcieBufferBytes = std::size_t{256} << 20;

// Times `reps` copies of one direction; answers each one's GB/s.
template <typename Copy>
std::optional<GpuTestError> TimePcieCopies(CudaGpu& gpu, SteadyTime deadline, std::vector<double>& gbps,
                                           Copy&& copy) {
  for (int rep = 0; rep <= kPcieRepetitions; ++rep) {
    if (StressStopRequested() || std::chrono::steady_clock::now() >= deadline) break;
    auto ms = gpu.TimeMs(copy);
    if (!ms) return GpuTestError{ms.error().message, std::chrono::steady_clock::now()};
    // The first copy warms up (pinning, TLB) and is not counted.
    if (rep > 0 && *ms > 0) gbps.push_back(static_cast<double>(kPcieBufferBytes) / (*ms * 1e6));
  }
  return std::nullopt;
}

}  // namespace

PcieOutcome RunPcie(CudaGpu& gpu, SteadyTime deadline) {
  PcieOutcome out;
  auto host = gpu.AllocPinned(kPcieBufferBytes);
  if (!host) {
    out.error = GpuTestError{host.error().message, std::chrono::steady_clock::now()};
    return out;
  }
  std::memset(*host, 0x5A, kPcieBufferBytes);
  auto device = gpu.Alloc(kPcieBufferBytes);
  if (!device) {
    gpu.FreePinned(*host);
    out.error = GpuTestError{device.error().message, std::chrono::steady_clock::now()};
    return out;
  }
  void* h = *host;
  CUdeviceptr d = *device;
  out.first_copy = std::chrono::steady_clock::now();
  out.error = TimePcieCopies(gpu, deadline, out.h2d_gbps,
                             [&] { return gpu.CopyToDeviceAsync(d, h, kPcieBufferBytes); });
  if (!out.error) {
    out.error = TimePcieCopies(gpu, deadline, out.d2h_gbps,
                               [&] { return gpu.CopyToHostAsync(h, d, kPcieBufferBytes); });
  }
  gpu.Free(d);
  gpu.FreePinned(h);
  return out;
}

}  // namespace gpudoctor
