#include "rules/group_system.h"

#include "rules/registry.h"

namespace gpudoctor {

std::vector<const Rule*> SystemRules() {
  return {
  };
}

}  // namespace gpudoctor
