#include "rules/engine/registry.h"

namespace gpudoctor {

const std::vector<const Rule*>& AllRules() {
  static const std::vector<const Rule*> all = [] {
    std::vector<const Rule*> rules;
    for (auto group : {GpuPerformanceRules(), GpuHealthRules(), KernelEventRules(), SystemRules(),
                       ActiveRules()}) {
      rules.insert(rules.end(), group.begin(), group.end());
    }
    return rules;
  }();
  return all;
}

const Rule* FindRule(std::string_view id) {
  for (const Rule* r : AllRules()) {
    if (r->id == id) return r;
  }
  return nullptr;
}

}  // namespace gpudoctor
