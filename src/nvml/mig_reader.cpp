#include "nvml/mig_reader.h"

#include <algorithm>

namespace gpudoctor::nvml_detail {
namespace {

// Calls `each(handle, gpu_instance_id, slot)` for every MIG device of dev.
template <typename Each>
void ForEachMigDevice(Reader& r, nvmlDevice_t dev, Each&& each) {
  const auto& f = r.fn();
  if (f.nvmlDeviceGetMaxMigDeviceCount == nullptr ||
      f.nvmlDeviceGetMigDeviceHandleByIndex == nullptr ||
      f.nvmlDeviceGetGpuInstanceId == nullptr) {
    return;
  }
  unsigned slots = 0;
  if (!r.Get("nvmlDeviceGetMaxMigDeviceCount", "mig_devices", f.nvmlDeviceGetMaxMigDeviceCount,
             dev, &slots)) {
    return;
  }
  slots = std::min(slots, kMaxMigDevices);
  for (unsigned i = 0; i < slots && !r.stopped(); ++i) {
    nvmlDevice_t mig = nullptr;
    nvmlReturn_t rc = r.Call("nvmlDeviceGetMigDeviceHandleByIndex",
                             f.nvmlDeviceGetMigDeviceHandleByIndex, dev, i, &mig);
    if (rc == NVML_ERROR_NOT_FOUND) continue;  // an empty slot
    if (!r.Check(rc, "nvmlDeviceGetMigDeviceHandleByIndex", "mig_devices") || mig == nullptr) {
      continue;
    }
    unsigned gpu_instance = 0;
    rc = r.Call("nvmlDeviceGetGpuInstanceId", f.nvmlDeviceGetGpuInstanceId, mig, &gpu_instance);
    if (!r.Check(rc, "nvmlDeviceGetGpuInstanceId", "mig_devices")) continue;
    each(mig, gpu_instance, i);
  }
}

}  // namespace

void ReadMigDevices(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  if (!g.mig_mode_enabled.value_or(false)) return;
  const auto& f = r.fn();
  ForEachMigDevice(r, dev, [&](nvmlDevice_t mig, unsigned gpu_instance, unsigned slot) {
    MigDeviceStatus m;
    m.gpu_instance_id = gpu_instance;
    m.status.index = slot;
    // The MIG device's own answers; its failures stay on it.
    Reader mr(f, r.tracker(), m.status);
    unsigned compute_instance = 0;
    if (mr.Get("nvmlDeviceGetComputeInstanceId", "compute_instance_id",
               f.nvmlDeviceGetComputeInstanceId, mig, &compute_instance)) {
      m.compute_instance_id = compute_instance;
    }
    m.status.uuid = Text(mr, "nvmlDeviceGetUUID", "uuid", f.nvmlDeviceGetUUID, mig).value_or("");
    // "<GPU's name> MIG 1g.10gb": the GPU instance's profile (MigProfileOfName).
    m.status.name = Text(mr, "nvmlDeviceGetName", "name", f.nvmlDeviceGetName, mig).value_or("");
    ReadMemory(mr, mig, m.status);
    m.status.utilization_gpu_percent.reset();  // not per MIG device (NVML answers N/A)
    m.status.utilization_memory_percent.reset();
    m.status.utilization_encoder_percent.reset();  // the GPU's engines, read on the GPU
    m.status.utilization_decoder_percent.reset();
    g.mig_devices.push_back(std::move(m));
  });
}

}  // namespace gpudoctor::nvml_detail
