#include "rules/group_events.h"

#include "rules/registry.h"

namespace gpudoctor {

std::vector<const Rule*> KernelEventRules() {
  return {
  };
}

}  // namespace gpudoctor
