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
  auto now = [] { return std::chrono::steady_clock::now(); };
  // Two pinned host buffers and two device buffers: one pair for each
  // direction, so that the bidirectional copies touch different memory.
  void* host[2] = {nullptr, nullptr};
  CUdeviceptr device[2] = {0, 0};
  auto release = [&] {
    for (void* h : host) gpu.FreePinned(h);
    for (CUdeviceptr d : device) gpu.Free(d);
  };
  for (int i = 0; i < 2; ++i) {
    auto h = gpu.AllocPinned(kPcieBufferBytes);
    auto d = h ? gpu.Alloc(kPcieBufferBytes) : Result<CUdeviceptr>(h.error());
    if (h) host[i] = *h;
    if (!h || !d) {
      out.error = GpuTestError{(h ? d.error() : h.error()).message, now()};
      release();
      return out;
    }
    device[i] = *d;
  }
  out.first_copy = now();
  out.error = TimePcieCopies(gpu, deadline, out.h2d_gbps,
                             [&] { return gpu.CopyToDeviceAsync(device[0], host[0], kPcieBufferBytes); });
  if (!out.error) {
    out.error = TimePcieCopies(gpu, deadline, out.d2h_gbps,
                               [&] { return gpu.CopyToHostAsync(host[1], device[1], kPcieBufferBytes); });
  }
  for (int rep = 0; rep <= kPcieRepetitions && !out.error; ++rep) {
    if (StressStopRequested() || now() >= deadline) break;
    auto ms = gpu.TimeBidirectionalMs(device[0], host[0], host[1], device[1], kPcieBufferBytes);
    if (!ms) {
      out.error = GpuTestError{ms.error().message, now()};
      break;
    }
    if (rep > 0 && *ms > 0) out.bidir_gbps.push_back(2.0 * static_cast<double>(kPcieBufferBytes) / (*ms * 1e6));
  }
  release();
  return out;
}

}  // namespace gpudoctor
