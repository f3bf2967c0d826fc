#include "rules/group_gpu.h"

#include "rules/registry.h"

namespace gpudoctor {

std::vector<const Rule*> GpuReadingRules() {
  return {
      &kThermalSlowdownRule,
  };
}

}  // namespace gpudoctor
