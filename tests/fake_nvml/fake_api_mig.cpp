// MIG devices: a GPU with "mig_mode_enabled": true and a "mig_devices" list
// answers nvmlDeviceGetMaxMigDeviceCount with 7 slots (or the list's size
// when larger), a handle for each listed device and NOT_FOUND for the empty
// slots; MIG handles answer their GPU and compute instance ids, and every
// other call from the MIG device's own values (fake_state.h WithGpu).
#include <algorithm>

#include "fake_state.h"

namespace {
namespace fake_mig {

// NVML's usual slot count on a 7-slice GPU.
constexpr unsigned kMigSlots = 7;

// The MIG device behind a MIG handle, for the id calls; a full GPU's handle
// is not a MIG device (NOT_SUPPORTED, as the driver answers).
template <typename Get>
nvmlReturn_t WithMigDevice(std::string_view function, nvmlDevice_t device, unsigned* out,
                           Get get) {
  const fake::MigSlot mig = fake::MigOf(device);
  if (mig.gpu < 0) {
    return fake::WithGpu(function, device, {"mig_devices"},
                         [](const fake::GpuCall&) { return NVML_ERROR_NOT_SUPPORTED; });
  }
  return fake::WithGpu(function, fake::HandleOf(static_cast<unsigned>(mig.gpu)), {"mig_devices"},
                       [&](const fake::GpuCall& c) -> nvmlReturn_t {
                         if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                         if (mig.slot >= c.now.mig_devices.size()) {
                           return NVML_ERROR_INVALID_ARGUMENT;
                         }
                         return get(c.now.mig_devices[mig.slot], out);
                       });
}

}  // namespace fake_mig
}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) {
  return fake::WithGpu(__func__, device, {"mig_devices"},
                       [&](const fake::GpuCall& c) -> nvmlReturn_t {
                         if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                         if (!c.now.mig_mode_enabled.value_or(false)) {
                           return NVML_ERROR_NOT_SUPPORTED;
                         }
                         *count = std::max<unsigned>(
                             fake_mig::kMigSlots, static_cast<unsigned>(c.now.mig_devices.size()));
                         return NVML_SUCCESS;
                       });
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                 nvmlDevice_t* migDevice) {
  return fake::WithGpu(__func__, device, {"mig_devices"},
                       [&](const fake::GpuCall& c) -> nvmlReturn_t {
                         if (migDevice == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
                         if (!c.now.mig_mode_enabled.value_or(false)) {
                           return NVML_ERROR_NOT_SUPPORTED;
                         }
                         if (index >= c.now.mig_devices.size()) return NVML_ERROR_NOT_FOUND;
                         *migDevice = fake::MigHandleOf(c.index, index);
                         return NVML_SUCCESS;
                       });
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  return fake_mig::WithMigDevice(__func__, device, id,
                                 [](const gpudoctor::MigDeviceStatus& m, unsigned* out) {
                                   *out = m.gpu_instance_id;
                                   return NVML_SUCCESS;
                                 });
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id) {
  return fake_mig::WithMigDevice(
      __func__, device, id, [](const gpudoctor::MigDeviceStatus& m, unsigned* out) {
        if (!m.compute_instance_id) return NVML_ERROR_NOT_SUPPORTED;
        *out = *m.compute_instance_id;
        return NVML_SUCCESS;
      });
}

}  // extern "C"
