#include "stress/gpu_tests.h"
#include "stress/stop_signal.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kP2pBufferBytes = std::size_t{256} << 20;

// One direction of one pair, timed on the destination's stream.
std::optional<GpuTestError> TimePeerCopies(CudaGpu& dst, CUdeviceptr to, CudaGpu& src, CUdeviceptr from,
                                           SteadyTime deadline, PeerCopyOutcome& pair) {
  auto now = [] { return std::chrono::steady_clock::now(); };
  if (auto current = dst.MakeCurrent(); !current) return GpuTestError{current.error().message, now()};
  auto can = dst.CanAccessPeer(src);
  if (!can) return GpuTestError{can.error().message, now()};
  if (*can) {
    if (auto on = dst.EnablePeerAccess(src); !on) return GpuTestError{on.error().message, now()};
  }
  pair.peer_access = *can;
  for (int rep = 0; rep <= kP2pRepetitions; ++rep) {
    if (StressStopRequested() || now() >= deadline) break;
    auto ms = dst.TimeMs([&] { return dst.CopyFromPeerAsync(to, src, from, kP2pBufferBytes); });
    if (!ms) return GpuTestError{ms.error().message, now()};
    // The first copy warms up (mappings) and is not counted.
    if (rep > 0 && *ms > 0) pair.gbps.push_back(static_cast<double>(kP2pBufferBytes) / (*ms * 1e6));
  }
  return std::nullopt;
}

}  // namespace

P2pOutcome RunP2p(const std::vector<CudaGpu*>& gpus, SteadyTime deadline) {
  P2pOutcome out;
  if (gpus.size() < 2) return out;
  std::vector<CUdeviceptr> buffers(gpus.size(), 0);
  auto release = [&] {
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (buffers[i] == 0) continue;
      (void)gpus[i]->MakeCurrent();  // best effort: freeing on the way out
      gpus[i]->Free(buffers[i]);
    }
  };
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    auto current = gpus[i]->MakeCurrent();
    auto buffer = current ? gpus[i]->Alloc(kP2pBufferBytes) : Result<CUdeviceptr>(current.error());
    if (!buffer) {
      out.error = GpuTestError{buffer.error().message, std::chrono::steady_clock::now()};
      out.error_gpu = i;
      release();
      return out;
    }
    buffers[i] = *buffer;
  }
  out.first_copy = std::chrono::steady_clock::now();
  for (std::size_t src = 0; src < gpus.size() && !out.error; ++src) {
    for (std::size_t dst = 0; dst < gpus.size() && !out.error; ++dst) {
      if (src == dst || StressStopRequested() || std::chrono::steady_clock::now() >= deadline) continue;
      PeerCopyOutcome pair;
      pair.src = src;
      pair.dst = dst;
      out.error = TimePeerCopies(*gpus[dst], buffers[dst], *gpus[src], buffers[src], deadline, pair);
      if (out.error) out.error_gpu = dst;
      out.pairs.push_back(std::move(pair));
    }
  }
  release();
  return out;
}

}  // namespace gpudoctor
