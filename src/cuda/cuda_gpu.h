// One GPU through the CUDA driver API, for `gpudoctor stress`: its primary
// context, the stress kernels loaded from PTX, device memory, one stream and
// event timing. Every call answers a Result whose error names the CUDA call
// and the driver's error (cuda_library.h CudaCallError). The destructor frees
// every allocation still held and releases the context, so a stopped test
// leaves no device memory behind.
//
// Thread-safety: one thread at a time; call MakeCurrent() first on the thread
// that uses it.
#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "cuda/cuda_library.h"

namespace gpudoctor {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;  // normalised: "0000:3b:00.0"
  int multiprocessors = 0;
  int compute_major = 0, compute_minor = 0;
};

// cuInit(0), then every device the driver shows. Errors: the cuInit failure
// (e.g. "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)").
Result<std::vector<CudaDeviceInfo>> ListCudaDevices(const CudaLibrary& lib);

enum class StressKernel { kCopy, kFill, kVerify, kBurn };

class CudaGpu {
 public:
  static Result<std::unique_ptr<CudaGpu>> Open(std::shared_ptr<const CudaLibrary> lib,
                                               const CudaDeviceInfo& device);
  ~CudaGpu();
  CudaGpu(const CudaGpu&) = delete;
  CudaGpu& operator=(const CudaGpu&) = delete;

  const CudaDeviceInfo& device() const { return device_; }

  Status MakeCurrent();
  // Free and total device memory, bytes.
  Result<std::pair<std::size_t, std::size_t>> MemoryInfo();
  Result<CUdeviceptr> Alloc(std::size_t bytes);
  void Free(CUdeviceptr pointer);
  Status Memset32(CUdeviceptr pointer, unsigned value, std::size_t words);
  // Copies device memory to the host and waits for it.
  Status CopyToHost(void* host, CUdeviceptr device, std::size_t bytes);
  // Page-locked host memory (cuMemAllocHost), freed with the GPU at the latest.
  Result<void*> AllocPinned(std::size_t bytes);
  void FreePinned(void* host);
  // Enqueue a copy on the GPU's stream (for TimeMs); `host` must be pinned.
  Status CopyToDeviceAsync(CUdeviceptr device, const void* host, std::size_t bytes);
  Status CopyToHostAsync(void* host, CUdeviceptr device, std::size_t bytes);
  // Enqueues a kernel on the GPU's stream. `params` as cuLaunchKernel takes them.
  Status Launch(StressKernel kernel, unsigned grid, unsigned block, void** params);
  // Records an event pair around what `enqueue` puts on the stream, waits for
  // the second and answers the milliseconds between them.
  template <typename Enqueue>
  Result<double> TimeMs(Enqueue&& enqueue) {
    if (auto rc = Record(start_); !rc) return rc.error();
    if (auto rc = enqueue(); !rc) return rc.error();
    if (auto rc = Record(end_); !rc) return rc.error();
    return ElapsedMs();
  }
  Status Synchronize();
  // Both directions at once: `to_device` from `host_out` on the stream and
  // `host_in` from `from_device` on a second stream, both begun at one event;
  // the milliseconds until both are done.
  Result<double> TimeBidirectionalMs(CUdeviceptr to_device, const void* host_out, void* host_in,
                                     CUdeviceptr from_device, std::size_t bytes);

  // Peer access from this GPU's context to `peer`'s memory: whether the
  // driver offers it (NVLink or PCIe peer-to-peer), and turning it on
  // (already on counts as done). Call with this GPU current.
  Result<bool> CanAccessPeer(const CudaGpu& peer) const;
  Status EnablePeerAccess(const CudaGpu& peer);
  // Enqueues a copy from `src` on `peer` to `dst` on this GPU.
  Status CopyFromPeerAsync(CUdeviceptr dst, const CudaGpu& peer, CUdeviceptr src, std::size_t bytes);

 private:
  CudaGpu(std::shared_ptr<const CudaLibrary> lib, CudaDeviceInfo device);
  Status Check(const char* call, CUresult rc) const;
  Status Record(CUevent event);
  Result<double> ElapsedMs();

  std::shared_ptr<const CudaLibrary> lib_;
  CudaDeviceInfo device_;
  CUdevice handle_ = 0;
  CUcontext context_ = nullptr;
  bool retained_ = false;
  CUmodule module_ = nullptr;
  CUfunction functions_[4] = {};
  CUstream stream_ = nullptr, second_stream_ = nullptr;
  CUevent start_ = nullptr, end_ = nullptr, second_done_ = nullptr;
  std::set<CUdeviceptr> allocations_;
  std::set<void*> pinned_;
};

}  // namespace gpudoctor
