// The fake libcuda.so.1: every function of CUDA_FUNCTIONS (cuda/cuda_api.h),
// serving the GPUs of FAKE_NVML_SCENARIO. Work runs when it is enqueued and
// takes the time the scenario's rates give it (the calling thread sleeps);
// events record when they are reached. Allocations up to 1 MiB are backed by
// host memory (the verify kernel's result, the burn's output); larger ones are
// address ranges only. Every kernel also loads the GPU in the fake NVML
// (fake_nvml_hook_load), which answers whether the GPU is lost.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <set>
#include <thread>
#include <vector>

#include "cuda/stress_kernels.h"
#include "fake_cuda_scenario.h"

#define FAKE_CUDA_DECLARE(name, params) \
  extern "C" __attribute__((visibility("default"))) CUresult name params;
CUDA_FUNCTIONS(FAKE_CUDA_DECLARE)
#undef FAKE_CUDA_DECLARE

namespace {

constexpr std::size_t kBackedBytes = 1u << 20;
constexpr int kMaxGpus = 64;

struct Allocation {
  int gpu = 0;
  std::size_t size = 0;
  std::vector<unsigned char> bytes;  // empty: not backed
};

// A stream's host-device copies run in virtual time: each starts when the
// stream and that direction of the link are free (both directions share one
// on a half-duplex link) and the stream is ready again when it ends. Peer
// copies on a stream likewise (at the pair's rate).
struct FakeStream {
  int gpu = 0;
  double ready_at = 0;  // Now() seconds
};

struct GpuState {
  double h2d_busy_until = 0, d2h_busy_until = 0;
  double streams_until = 0;  // the latest ready_at of its streams
  std::uint64_t next_offset = 0;
  std::uint64_t allocated = 0;
  std::optional<double> first_launch_s;
  CUresult sticky = CUDA_SUCCESS;
};

struct State {
  std::mutex mu;
  bool initialised = false;
  fake_cuda::CudaScenario scenario;
  std::map<CUdeviceptr, Allocation> allocations;
  GpuState gpus[kMaxGpus];
  std::set<std::pair<int, int>> peers;  // (context, peer) with peer access on
};

State& TheState() {
  static State* s = new State();
  return *s;
}

thread_local int t_current_gpu = -1;
char g_contexts[kMaxGpus];
char g_functions[4];
char g_module;

double Now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void SleepSeconds(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(std::min(s, 5.0)));
}

void SleepUntil(double t) { SleepSeconds(t - Now()); }

// When `stream`'s work so far is done (now for the null stream).
double StreamReadyAt(CUstream stream) {
  if (stream == nullptr) return Now();
  std::lock_guard<std::mutex> lock(TheState().mu);
  return std::max(Now(), reinterpret_cast<FakeStream*>(stream)->ready_at);
}

using HookFn = int (*)(const char*);

// The fake NVML's load hook, once the fake NVML is loaded.
int LoadGpuInNvml(const std::string& bus) {
  static std::mutex mu;
  static HookFn hook = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (hook == nullptr) {
      if (void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD)) {
        hook = reinterpret_cast<HookFn>(dlsym(h, "fake_nvml_hook_load"));
      }
    }
  }
  return hook != nullptr ? hook(bus.c_str()) : -1;
}

bool ValidGpu(int gpu) {
  return gpu >= 0 && static_cast<std::size_t>(gpu) < TheState().scenario.gpus.size();
}

// The allocation holding [pointer, pointer + bytes), or nullptr.
Allocation* Find(CUdeviceptr pointer, std::size_t bytes, CUdeviceptr* base) {
  auto& all = TheState().allocations;
  auto it = all.upper_bound(pointer);
  if (it == all.begin()) return nullptr;
  --it;
  if (pointer + bytes > it->first + it->second.size) return nullptr;
  *base = it->first;
  return &it->second;
}

template <typename T>
T Param(void** params, int i) {
  T value;
  std::memcpy(&value, params[i], sizeof value);
  return value;
}

// What a verify kernel finds: the scenario's bad words inside the range.
void Verify(const fake_cuda::CudaGpu& gpu, CUdeviceptr buf, std::uint64_t words, CUdeviceptr result) {
  CUdeviceptr base = 0, result_base = 0;
  Allocation* a = Find(buf, words * 8, &base);
  Allocation* r = Find(result, gpudoctor::kVerifyResultWords * 8, &result_base);
  if (a == nullptr || r == nullptr || r->bytes.empty() || a->size <= kBackedBytes) return;
  auto* out = reinterpret_cast<std::uint64_t*>(r->bytes.data() + (result - result_base));
  for (std::uint64_t offset : gpu.mismatch_offsets) {
    CUdeviceptr at = base + (offset & ~7ull);
    if (at < buf || at >= buf + words * 8) continue;
    std::uint64_t slot = out[0]++;
    if (slot < static_cast<std::uint64_t>(gpudoctor::kVerifyAddressSlots)) out[1 + slot] = at;
  }
}

// A copy between host memory and an allocation, at the link's rate: on a
// stream, queued in virtual time (FakeStream); on the null stream, at once.
CUresult CopyHostDevice(CUdeviceptr device, void* host, std::size_t bytes, bool to_device, CUstream stream) {
  State& s = TheState();
  double rate = 0;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
    if (s.gpus[t_current_gpu].sticky != CUDA_SUCCESS) return s.gpus[t_current_gpu].sticky;
    CUdeviceptr base = 0;
    Allocation* a = Find(device, bytes, &base);
    if (a == nullptr || host == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (!a->bytes.empty()) {
      unsigned char* on_device = a->bytes.data() + (device - base);
      if (to_device) std::memcpy(on_device, host, bytes);
      else std::memcpy(host, on_device, bytes);
    }
    const auto& gpu = s.scenario.gpus[t_current_gpu];
    rate = to_device ? gpu.h2d_gbps : gpu.d2h_gbps;
    if (stream != nullptr) {
      auto* queue = reinterpret_cast<FakeStream*>(stream);
      GpuState& g = s.gpus[t_current_gpu];
      double& busy = to_device ? g.h2d_busy_until : g.d2h_busy_until;
      double start = std::max({Now(), queue->ready_at, busy});
      double end = start + static_cast<double>(bytes) / (rate * 1e9);
      busy = end;
      if (!gpu.pcie_full_duplex) g.h2d_busy_until = g.d2h_busy_until = end;
      queue->ready_at = end;
      g.streams_until = std::max(g.streams_until, end);
      return CUDA_SUCCESS;
    }
  }
  SleepSeconds(static_cast<double>(bytes) / (rate * 1e9));
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialised) {
    std::string error;
    auto scenario = fake_cuda::LoadCudaScenario(std::getenv("FAKE_NVML_SCENARIO"), &error);
    if (!scenario) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return CUDA_ERROR_UNKNOWN;
    }
    s.scenario = std::move(*scenario);
    if (s.scenario.gpus.size() > static_cast<std::size_t>(kMaxGpus)) s.scenario.gpus.resize(kMaxGpus);
  }
  if (s.scenario.init_error != CUDA_SUCCESS) return s.scenario.init_error;
  s.initialised = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = TheState().scenario.driver_version;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = static_cast<int>(s.scenario.gpus.size());
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!TheState().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (device == nullptr || !ValidGpu(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (!ValidGpu(dev) || name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, static_cast<std::size_t>(len), "%s", TheState().scenario.gpus[dev].name.c_str());
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char* bus, int len, CUdevice dev) {
  if (!ValidGpu(dev) || bus == nullptr || len < 13) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(bus, static_cast<std::size_t>(len), "%s", TheState().scenario.gpus[dev].pci_bus_id.c_str());
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice dev) {
  if (!ValidGpu(dev) || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = TheState().scenario.gpus[dev].multiprocessors;
      return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice dev) {
  if (!ValidGpu(dev) || context == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(&g_contexts[dev]);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return ValidGpu(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }

CUresult cuCtxSetCurrent(CUcontext context) {
  if (context == nullptr) {
    t_current_gpu = -1;
    return CUDA_SUCCESS;
  }
  auto index = reinterpret_cast<char*>(context) - g_contexts;
  if (index < 0 || index >= kMaxGpus || !ValidGpu(static_cast<int>(index))) return CUDA_ERROR_INVALID_CONTEXT;
  t_current_gpu = static_cast<int>(index);
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
  double until = 0;
  {
    std::lock_guard<std::mutex> lock(TheState().mu);
    until = TheState().gpus[t_current_gpu].streams_until;
  }
  SleepUntil(until);
  return TheState().gpus[t_current_gpu].sticky;
}

CUresult cuDeviceCanAccessPeer(int* can, CUdevice dev, CUdevice peer) {
  if (can == nullptr || !ValidGpu(dev) || !ValidGpu(peer) || dev == peer) return CUDA_ERROR_INVALID_DEVICE;
  *can = TheState().scenario.gpus[dev].peer_access ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  auto index = reinterpret_cast<char*>(peer) - g_contexts;
  if (flags != 0 || index < 0 || index >= kMaxGpus || !ValidGpu(static_cast<int>(index))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
  if (!s.scenario.gpus[t_current_gpu].peer_access) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  if (!s.peers.insert({t_current_gpu, static_cast<int>(index)}).second) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  return CUDA_SUCCESS;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                           size_t bytes, CUstream stream) {
  if (stream == nullptr) SleepUntil(StreamReadyAt(stream));
  auto dst_gpu = reinterpret_cast<char*>(dst_context) - g_contexts;
  auto src_gpu = reinterpret_cast<char*>(src_context) - g_contexts;
  State& s = TheState();
  double rate = 0;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!ValidGpu(static_cast<int>(dst_gpu)) || !ValidGpu(static_cast<int>(src_gpu))) return CUDA_ERROR_INVALID_CONTEXT;
    CUdeviceptr base = 0;
    if (Find(dst, bytes, &base) == nullptr || Find(src, bytes, &base) == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto& from = s.scenario.gpus[src_gpu];
    auto peer = from.p2p_peer_gbps.find(s.scenario.gpus[dst_gpu].pci_bus_id);
    rate = peer != from.p2p_peer_gbps.end() ? peer->second : from.p2p_gbps;
    if (stream != nullptr) {
      // In virtual time on the stream, as the host-device copies: the events
      // around it measure the scenario's rate, not how late a sleeping thread
      // woke on a loaded machine.
      auto* queue = reinterpret_cast<FakeStream*>(stream);
      queue->ready_at = std::max(Now(), queue->ready_at) + static_cast<double>(bytes) / (rate * 1e9);
      GpuState& g = s.gpus[queue->gpu];
      g.streams_until = std::max(g.streams_until, queue->ready_at);
      return CUDA_SUCCESS;
    }
  }
  SleepSeconds(static_cast<double>(bytes) / (rate * 1e9));
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
  if (free_bytes == nullptr || total_bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const auto& gpu = s.scenario.gpus[t_current_gpu];
  std::uint64_t used = s.gpus[t_current_gpu].allocated;
  *free_bytes = gpu.free_bytes > used ? gpu.free_bytes - used : 0;
  *total_bytes = gpu.total_bytes;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
  if (pointer == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  GpuState& g = s.gpus[t_current_gpu];
  const auto& gpu = s.scenario.gpus[t_current_gpu];
  if (g.allocated + bytes > gpu.free_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  constexpr std::uint64_t kAlign = 2u << 20;
  CUdeviceptr base = (static_cast<CUdeviceptr>(t_current_gpu) + 1) << 40;
  *pointer = base + g.next_offset;
  g.next_offset += (bytes + kAlign - 1) / kAlign * kAlign;
  g.allocated += bytes;
  Allocation a;
  a.gpu = t_current_gpu;
  a.size = bytes;
  if (bytes <= kBackedBytes) a.bytes.assign(bytes, 0);
  s.allocations[*pointer] = std::move(a);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.allocations.find(pointer);
  if (it == s.allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  s.gpus[it->second.gpu].allocated -= it->second.size;
  s.allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void** pointer, size_t bytes) {
  if (pointer == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  *pointer = std::calloc(1, bytes);
  return *pointer != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void* pointer) {
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
  return CopyHostDevice(dst, const_cast<void*>(src), bytes, true, stream);
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return CopyHostDevice(src, dst, bytes, false, stream);
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t words) {
  State& s = TheState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
  CUdeviceptr base = 0;
  Allocation* a = Find(dst, words * 4, &base);
  if (a == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!a->bytes.empty()) {
    for (size_t i = 0; i < words; ++i) std::memcpy(a->bytes.data() + (dst - base) + 4 * i, &value, 4);
  }
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned int) {
  if (stream == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *stream = reinterpret_cast<CUstream>(new FakeStream{t_current_gpu, 0});
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  delete reinterpret_cast<FakeStream*>(stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  SleepUntil(StreamReadyAt(stream));
  return cuCtxSynchronize();
}

// Kernels and peer copies run when enqueued; a stream's host-device copies
// are queued in virtual time, so waiting on an event moves the stream's
// ready time up to the event's.
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  if (event == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (stream == nullptr) return CUDA_SUCCESS;
  std::lock_guard<std::mutex> lock(TheState().mu);
  auto* queue = reinterpret_cast<FakeStream*>(stream);
  queue->ready_at = std::max(queue->ready_at, *reinterpret_cast<double*>(event));
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent* event, unsigned int) {
  if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *event = reinterpret_cast<CUevent>(new double(0));
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *reinterpret_cast<double*>(event) = StreamReadyAt(stream);
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  SleepUntil(*reinterpret_cast<double*>(event));
  if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
  return TheState().gpus[t_current_gpu].sticky;
}

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  if (ms == nullptr || start == nullptr || end == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ms = static_cast<float>((*reinterpret_cast<double*>(end) - *reinterpret_cast<double*>(start)) * 1000);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<double*>(event);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (std::strstr(static_cast<const char*>(image), ".version") == nullptr) return CUDA_ERROR_INVALID_IMAGE;
  *module = reinterpret_cast<CUmodule>(&g_module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule, const char* name) {
  if (function == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const char* names[4] = {gpudoctor::kCopyKernelName, gpudoctor::kFillKernelName,
                          gpudoctor::kVerifyKernelName, gpudoctor::kBurnKernelName};
  for (int i = 0; i < 4; ++i) {
    if (std::strcmp(name, names[i]) == 0) {
      *function = reinterpret_cast<CUfunction>(&g_functions[i]);
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int,
                        CUstream stream, void** params, void**) {
  auto kernel = reinterpret_cast<char*>(f) - g_functions;
  if (kernel < 0 || kernel > 3 || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  SleepUntil(StreamReadyAt(stream));
  State& s = TheState();
  std::string bus;
  double seconds = 0;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!ValidGpu(t_current_gpu)) return CUDA_ERROR_INVALID_CONTEXT;
    GpuState& g = s.gpus[t_current_gpu];
    const auto& gpu = s.scenario.gpus[t_current_gpu];
    if (g.sticky != CUDA_SUCCESS) return g.sticky;
    double now = Now();
    if (!g.first_launch_s) g.first_launch_s = now;
    if (gpu.launch_error != CUDA_SUCCESS && now - *g.first_launch_s >= gpu.launch_error_after_s) {
      g.sticky = gpu.launch_error;
      return g.sticky;
    }
    bus = gpu.pci_bus_id;
    double threads = double(grid_x) * grid_y * grid_z * block_x * block_y * block_z;
    double bytes_per_s = gpu.hbm_gbps * 1e9;
    if (kernel == 0) {
      seconds = 2.0 * 16.0 * static_cast<double>(Param<std::uint64_t>(params, 2)) / bytes_per_s;
    } else if (kernel == 1 || kernel == 2) {
      seconds = 8.0 * static_cast<double>(Param<std::uint64_t>(params, 1)) / bytes_per_s;
      if (kernel == 2) {
        Verify(gpu, Param<CUdeviceptr>(params, 0), Param<std::uint64_t>(params, 1),
               Param<CUdeviceptr>(params, 4));
      }
    } else {
      double flops = threads * Param<std::uint32_t>(params, 1) * gpudoctor::kBurnFmasPerIteration * 2.0;
      seconds = flops / (gpu.burn_tflops * 1e12);
    }
  }
  if (LoadGpuInNvml(bus) == 1) {
    std::lock_guard<std::mutex> lock(s.mu);
    s.gpus[t_current_gpu].sticky = CUDA_ERROR_LAUNCH_FAILED;
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  SleepSeconds(seconds);
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *text = fake_cuda::CudaResultName(error);
  return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
    case CUDA_ERROR_LAUNCH_FAILED: *text = "unspecified launch failure"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *text = "an illegal memory access was encountered"; break;
    case CUDA_ERROR_NO_DEVICE: *text = "no CUDA-capable device is detected"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *text = "out of memory"; break;
    default: *text = fake_cuda::CudaResultName(error);
  }
  return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

}  // extern "C"
