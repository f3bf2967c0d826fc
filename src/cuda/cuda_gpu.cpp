#include "cuda/cuda_gpu.h"

#include "core/gpu_status.h"
#include "cuda/stress_kernels.h"

namespace gpudoctor {
namespace {

Error CudaFailure(const CudaLibrary& lib, const char* call, CUresult rc) {
  return Error{rc == CUDA_ERROR_OUT_OF_MEMORY ? ErrorCode::kUnavailable : ErrorCode::kUnknown,
               CudaCallError(lib, call, rc)};
}

}  // namespace

Result<std::vector<CudaDeviceInfo>> ListCudaDevices(const CudaLibrary& lib) {
  const CudaFunctions& f = lib.fn;
  if (CUresult rc = f.cuInit(0); rc != CUDA_SUCCESS) return CudaFailure(lib, "cuInit", rc);
  int count = 0;
  if (CUresult rc = f.cuDeviceGetCount(&count); rc != CUDA_SUCCESS) {
    return CudaFailure(lib, "cuDeviceGetCount", rc);
  }
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    CudaDeviceInfo info;
    info.ordinal = i;
    CUdevice dev = 0;
    if (CUresult rc = f.cuDeviceGet(&dev, i); rc != CUDA_SUCCESS) {
      return CudaFailure(lib, "cuDeviceGet", rc);
    }
    char text[256] = {};
    if (CUresult rc = f.cuDeviceGetPCIBusId(text, sizeof text, dev); rc != CUDA_SUCCESS) {
      return CudaFailure(lib, "cuDeviceGetPCIBusId", rc);
    }
    info.pci_bus_id = NormalizePciBusId(text);
    if (f.cuDeviceGetName(text, sizeof text, dev) == CUDA_SUCCESS) info.name = text;
    f.cuDeviceGetAttribute(&info.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    f.cuDeviceGetAttribute(&info.compute_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    f.cuDeviceGetAttribute(&info.compute_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    if (info.multiprocessors <= 0) info.multiprocessors = 1;
    out.push_back(std::move(info));
  }
  return out;
}

CudaGpu::CudaGpu(std::shared_ptr<const CudaLibrary> lib, CudaDeviceInfo device)
    : lib_(std::move(lib)), device_(std::move(device)) {}

Status CudaGpu::Check(const char* call, CUresult rc) const {
  if (rc == CUDA_SUCCESS) return OkStatus();
  return CudaFailure(*lib_, call, rc);
}

Result<std::unique_ptr<CudaGpu>> CudaGpu::Open(std::shared_ptr<const CudaLibrary> lib,
                                               const CudaDeviceInfo& device) {
  std::unique_ptr<CudaGpu> gpu(new CudaGpu(std::move(lib), device));
  const CudaFunctions& f = gpu->lib_->fn;
  if (auto ok = gpu->Check("cuDeviceGet", f.cuDeviceGet(&gpu->handle_, device.ordinal)); !ok) {
    return ok.error();
  }
  if (auto ok = gpu->Check("cuDevicePrimaryCtxRetain",
                           f.cuDevicePrimaryCtxRetain(&gpu->context_, gpu->handle_));
      !ok) {
    return ok.error();
  }
  gpu->retained_ = true;
  if (auto ok = gpu->MakeCurrent(); !ok) return ok.error();
  if (auto ok = gpu->Check("cuModuleLoadData", f.cuModuleLoadData(&gpu->module_, StressKernelsPtx()));
      !ok) {
    return ok.error();
  }
  const char* names[4] = {kCopyKernelName, kFillKernelName, kVerifyKernelName, kBurnKernelName};
  for (int i = 0; i < 4; ++i) {
    if (auto ok = gpu->Check("cuModuleGetFunction",
                             f.cuModuleGetFunction(&gpu->functions_[i], gpu->module_, names[i]));
        !ok) {
      return ok.error();
    }
  }
  if (auto ok = gpu->Check("cuStreamCreate", f.cuStreamCreate(&gpu->stream_, CU_STREAM_NON_BLOCKING));
      !ok) {
    return ok.error();
  }
  if (auto ok = gpu->Check("cuStreamCreate", f.cuStreamCreate(&gpu->second_stream_, CU_STREAM_NON_BLOCKING));
      !ok) {
    return ok.error();
  }
  if (auto ok = gpu->Check("cuEventCreate", f.cuEventCreate(&gpu->start_, CU_EVENT_DEFAULT)); !ok) {
    return ok.error();
  }
  if (auto ok = gpu->Check("cuEventCreate", f.cuEventCreate(&gpu->second_done_, CU_EVENT_DEFAULT)); !ok) {
    return ok.error();
  }
  if (auto ok = gpu->Check("cuEventCreate", f.cuEventCreate(&gpu->end_, CU_EVENT_DEFAULT)); !ok) {
    return ok.error();
  }
  return gpu;
}

CudaGpu::~CudaGpu() {
  if (!retained_) return;
  const CudaFunctions& f = lib_->fn;
  // Best effort: a lost GPU answers errors here, and there is nothing more
  // to do about them than to go on releasing.
  f.cuCtxSetCurrent(context_);
  if (stream_ != nullptr) f.cuStreamSynchronize(stream_);
  if (second_stream_ != nullptr) f.cuStreamSynchronize(second_stream_);
  for (CUdeviceptr p : allocations_) f.cuMemFree_v2(p);
  for (void* p : pinned_) f.cuMemFreeHost(p);
  if (start_ != nullptr) f.cuEventDestroy_v2(start_);
  if (end_ != nullptr) f.cuEventDestroy_v2(end_);
  if (second_done_ != nullptr) f.cuEventDestroy_v2(second_done_);
  if (stream_ != nullptr) f.cuStreamDestroy_v2(stream_);
  if (second_stream_ != nullptr) f.cuStreamDestroy_v2(second_stream_);
  if (module_ != nullptr) f.cuModuleUnload(module_);
  f.cuCtxSetCurrent(nullptr);
  f.cuDevicePrimaryCtxRelease_v2(handle_);
}

Status CudaGpu::MakeCurrent() {
  return Check("cuCtxSetCurrent", lib_->fn.cuCtxSetCurrent(context_));
}

Result<std::pair<std::size_t, std::size_t>> CudaGpu::MemoryInfo() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (auto ok = Check("cuMemGetInfo_v2", lib_->fn.cuMemGetInfo_v2(&free_bytes, &total_bytes)); !ok) {
    return ok.error();
  }
  return std::make_pair(free_bytes, total_bytes);
}

Result<CUdeviceptr> CudaGpu::Alloc(std::size_t bytes) {
  CUdeviceptr p = 0;
  if (auto ok = Check("cuMemAlloc_v2", lib_->fn.cuMemAlloc_v2(&p, bytes)); !ok) return ok.error();
  allocations_.insert(p);
  return p;
}

void CudaGpu::Free(CUdeviceptr pointer) {
  if (allocations_.erase(pointer) != 0) lib_->fn.cuMemFree_v2(pointer);
}

Status CudaGpu::Memset32(CUdeviceptr pointer, unsigned value, std::size_t words) {
  return Check("cuMemsetD32_v2", lib_->fn.cuMemsetD32_v2(pointer, value, words));
}

Status CudaGpu::CopyToHost(void* host, CUdeviceptr device, std::size_t bytes) {
  if (auto ok = CopyToHostAsync(host, device, bytes); !ok) return ok;
  return Synchronize();
}

Result<void*> CudaGpu::AllocPinned(std::size_t bytes) {
  void* p = nullptr;
  if (auto ok = Check("cuMemAllocHost_v2", lib_->fn.cuMemAllocHost_v2(&p, bytes)); !ok) return ok.error();
  pinned_.insert(p);
  return p;
}

void CudaGpu::FreePinned(void* host) {
  if (host != nullptr && pinned_.erase(host) != 0) lib_->fn.cuMemFreeHost(host);
}

Status CudaGpu::CopyToDeviceAsync(CUdeviceptr device, const void* host, std::size_t bytes) {
  return Check("cuMemcpyHtoDAsync_v2", lib_->fn.cuMemcpyHtoDAsync_v2(device, host, bytes, stream_));
}

Status CudaGpu::CopyToHostAsync(void* host, CUdeviceptr device, std::size_t bytes) {
  return Check("cuMemcpyDtoHAsync_v2", lib_->fn.cuMemcpyDtoHAsync_v2(host, device, bytes, stream_));
}

Status CudaGpu::Launch(StressKernel kernel, unsigned grid, unsigned block, void** params) {
  CUfunction fn = functions_[static_cast<int>(kernel)];
  return Check("cuLaunchKernel",
               lib_->fn.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, stream_, params, nullptr));
}

Status CudaGpu::Synchronize() {
  return Check("cuStreamSynchronize", lib_->fn.cuStreamSynchronize(stream_));
}

Result<double> CudaGpu::TimeBidirectionalMs(CUdeviceptr to_device, const void* host_out, void* host_in,
                                            CUdeviceptr from_device, std::size_t bytes) {
  const CudaFunctions& f = lib_->fn;
  auto step = Record(start_);
  if (step) step = Check("cuStreamWaitEvent", f.cuStreamWaitEvent(second_stream_, start_, 0));
  if (step) step = CopyToDeviceAsync(to_device, host_out, bytes);
  if (step) {
    step = Check("cuMemcpyDtoHAsync_v2", f.cuMemcpyDtoHAsync_v2(host_in, from_device, bytes, second_stream_));
  }
  if (step) step = Check("cuEventRecord", f.cuEventRecord(second_done_, second_stream_));
  if (step) step = Check("cuStreamWaitEvent", f.cuStreamWaitEvent(stream_, second_done_, 0));
  if (step) step = Record(end_);
  if (!step) return step.error();
  return ElapsedMs();
}

Result<bool> CudaGpu::CanAccessPeer(const CudaGpu& peer) const {
  int can = 0;
  if (auto ok = Check("cuDeviceCanAccessPeer", lib_->fn.cuDeviceCanAccessPeer(&can, handle_, peer.handle_)); !ok) {
    return ok.error();
  }
  return can != 0;
}

Status CudaGpu::EnablePeerAccess(const CudaGpu& peer) {
  CUresult rc = lib_->fn.cuCtxEnablePeerAccess(peer.context_, 0);
  if (rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) return OkStatus();
  return Check("cuCtxEnablePeerAccess", rc);
}

Status CudaGpu::CopyFromPeerAsync(CUdeviceptr dst, const CudaGpu& peer, CUdeviceptr src,
                                        std::size_t bytes) {
  return Check("cuMemcpyPeerAsync",
               lib_->fn.cuMemcpyPeerAsync(dst, context_, src, peer.context_, bytes, stream_));
}

Status CudaGpu::Record(CUevent event) {
  return Check("cuEventRecord", lib_->fn.cuEventRecord(event, stream_));
}

Result<double> CudaGpu::ElapsedMs() {
  if (auto ok = Check("cuEventSynchronize", lib_->fn.cuEventSynchronize(end_)); !ok) return ok.error();
  float ms = 0;
  if (auto ok = Check("cuEventElapsedTime", lib_->fn.cuEventElapsedTime(&ms, start_, end_)); !ok) {
    return ok.error();
  }
  return static_cast<double>(ms);
}

}  // namespace gpudoctor
