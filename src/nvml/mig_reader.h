// Internal to the NVML reader: the MIG devices of a GPU in MIG mode (one per
// compute instance: nvmlDeviceGetMaxMigDeviceCount slots, of which
// nvmlDeviceGetMigDeviceHandleByIndex answers NOT_FOUND for the empty ones),
// each with its GPU and compute instance ids, uuid and memory.
#pragma once

#include "nvml/field_reader.h"

namespace gpudoctor::nvml_detail {

// NVML allows at most 7 GPU instances of up to 8 compute instances; more
// slots than this are not believed.
inline constexpr unsigned kMaxMigDevices = 56;

// Fills g.mig_devices when g.mig_mode_enabled is true (ReadModesAndMemoryErrors
// before it); nothing otherwise. A failed call on the enumeration is
// recorded under field "mig_devices" of the GPU.
void ReadMigDevices(Reader& r, nvmlDevice_t dev, GpuStatus& g);

}  // namespace gpudoctor::nvml_detail
