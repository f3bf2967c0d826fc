#include "rules/group_gpu.h"

#include "rules/registry.h"

namespace gpudoctor {

std::vector<const Rule*> GpuPerformanceRules() {
  return {
      &kThermalSlowdownRule,
  };
}

}  // namespace gpudoctor
