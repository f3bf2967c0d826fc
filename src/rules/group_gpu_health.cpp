#include "rules/group_gpu_health.h"

#include "rules/registry.h"

namespace gpudoctor {

std::vector<const Rule*> GpuHealthRules() {
  return {
  };
}

}  // namespace gpudoctor
