// Our own declarations of the small part of the CUDA driver API that
// `gpudoctor stress` uses, written from the types, values and signatures that
// NVIDIA documents for cuda.h (CUDA Driver API reference). We never include
// cuda.h and never link libcuda: the library is opened with dlopen and every
// function below is looked up with dlsym (cuda/cuda_library.h).
//
// CUDA_FUNCTIONS lists every symbol with its exact C signature. The loader
// turns it into function pointers; the fake libcuda of the tests turns it
// into prototypes, so both sides are checked against one list.
#pragma once

#include <cstddef>

extern "C" {

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;  // the _v2 API's 64-bit device pointer
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef int CUdevice_attribute;

enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_ECC_UNCORRECTABLE = 214,
  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_NOT_READY = 802,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_UNKNOWN = 999,
};

enum : int {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// cuStreamCreate flags and cuEventCreate flags.
enum : unsigned {
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
};

}  // extern "C"

// X(symbol, parameter list). Every function returns CUresult.
#define CUDA_FUNCTIONS(X)                                                               \
  X(cuInit, (unsigned int Flags))                                                       \
  X(cuDriverGetVersion, (int* driverVersion))                                           \
  X(cuDeviceGetCount, (int* count))                                                     \
  X(cuDeviceGet, (CUdevice* device, int ordinal))                                       \
  X(cuDeviceGetName, (char* name, int len, CUdevice dev))                               \
  X(cuDeviceGetPCIBusId, (char* pciBusId, int len, CUdevice dev))                       \
  X(cuDeviceGetAttribute, (int* pi, CUdevice_attribute attrib, CUdevice dev))           \
  X(cuDevicePrimaryCtxRetain, (CUcontext* pctx, CUdevice dev))                          \
  X(cuDevicePrimaryCtxRelease_v2, (CUdevice dev))                                       \
  X(cuDevicePrimaryCtxRelease, (CUdevice dev))                                          \
  X(cuCtxSetCurrent, (CUcontext ctx))                                                   \
  X(cuCtxSynchronize, (void))                                                           \
  X(cuDeviceCanAccessPeer, (int* canAccessPeer, CUdevice dev, CUdevice peerDev))        \
  X(cuCtxEnablePeerAccess, (CUcontext peerContext, unsigned int Flags))                 \
  X(cuMemcpyPeerAsync, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, \
                        CUcontext srcContext, size_t ByteCount, CUstream hStream))      \
  X(cuMemGetInfo_v2, (size_t* free, size_t* total))                                     \
  X(cuMemAlloc_v2, (CUdeviceptr* dptr, size_t bytesize))                                \
  X(cuMemFree_v2, (CUdeviceptr dptr))                                                   \
  X(cuMemAllocHost_v2, (void** pp, size_t bytesize))                                    \
  X(cuMemFreeHost, (void* p))                                                           \
  X(cuMemcpyHtoDAsync_v2, (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, \
                           CUstream hStream))                                           \
  X(cuMemcpyDtoHAsync_v2, (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,       \
                           CUstream hStream))                                           \
  X(cuMemsetD32_v2, (CUdeviceptr dstDevice, unsigned int ui, size_t N))                 \
  X(cuStreamCreate, (CUstream* phStream, unsigned int Flags))                           \
  X(cuStreamDestroy_v2, (CUstream hStream))                                             \
  X(cuStreamSynchronize, (CUstream hStream))                                            \
  X(cuStreamWaitEvent, (CUstream hStream, CUevent hEvent, unsigned int Flags))          \
  X(cuEventCreate, (CUevent* phEvent, unsigned int Flags))                              \
  X(cuEventRecord, (CUevent hEvent, CUstream hStream))                                  \
  X(cuEventSynchronize, (CUevent hEvent))                                               \
  X(cuEventElapsedTime, (float* pMilliseconds, CUevent hStart, CUevent hEnd))           \
  X(cuEventDestroy_v2, (CUevent hEvent))                                                \
  X(cuModuleLoadData, (CUmodule* module, const void* image))                            \
  X(cuModuleGetFunction, (CUfunction* hfunc, CUmodule hmod, const char* name))          \
  X(cuModuleUnload, (CUmodule hmod))                                                    \
  X(cuLaunchKernel, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY,        \
                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, \
                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, \
                     void** kernelParams, void** extra))                                \
  X(cuGetErrorString, (CUresult error, const char** pStr))                              \
  X(cuGetErrorName, (CUresult error, const char** pStr))
