#include "facts/diagnosis_input.h"

#include <algorithm>

#include "core/gpu_key.h"

namespace gpudoctor {

void AddReading(DiagnosisInput& input, const SystemStatus& status, std::optional<WallTime> time) {
  input.gpu_readings = true;
  input.nvml_loaded = status.nvml_loaded;
  input.nvml_error = status.nvml_error;
  if (status.driver_version) input.driver_version = status.driver_version;
  if (status.cuda_driver_version) input.cuda_driver_version = status.cuda_driver_version;
  for (const GpuStatus& gpu : status.gpus) {
    // By bus id; a reading without one (the GPU hung or was lost before
    // answering) by its index, so such GPUs do not merge into one.
    auto it = std::find_if(input.gpus.begin(), input.gpus.end(), [&](const GpuSeries& s) {
      if (!gpu.pci_bus_id.empty()) return s.key == gpu.pci_bus_id;
      return s.latest().index == gpu.index;
    });
    if (it == input.gpus.end()) {
      input.gpus.push_back(GpuSeries{GpuKeyOf(gpu), {}, {}});
      it = std::prev(input.gpus.end());
    }
    it->readings.push_back(gpu);
    it->times.push_back(time);
  }
  std::stable_sort(input.gpus.begin(), input.gpus.end(),
                   [](const GpuSeries& a, const GpuSeries& b) {
                     return a.latest().index < b.latest().index;
                   });
}

const GpuSeries* FindGpu(const DiagnosisInput& input, const std::string& key) {
  for (const auto& g : input.gpus) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

std::string GpuLabel(const GpuStatus& gpu) {
  std::string label = "GPU " + std::to_string(gpu.index);
  if (!gpu.pci_bus_id.empty()) label += " (" + gpu.pci_bus_id + ")";
  return label;
}

}  // namespace gpudoctor
