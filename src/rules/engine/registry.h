// The one ordered list of diagnosis rules. Each group file lists its rules
// explicitly; AllRules() joins the groups in this order: GPU performance,
// GPU health and configuration, kernel-log events, host and system. A test walks the list: unique ids,
// a description, a firing and a quiet case for each.
#pragma once

#include <vector>

#include "rules/engine/rule.h"

namespace gpudoctor {

// Rules that judge windows of GPU readings for performance (rules/gpu_performance/group.cpp).
std::vector<const Rule*> GpuPerformanceRules();
// Rules over GPU readings for health and configuration (rules/gpu_health/group.cpp).
std::vector<const Rule*> GpuHealthRules();
// Rules over kernel-log events, with their correlations (rules/kernel_events/group.cpp).
std::vector<const Rule*> KernelEventRules();
// Rules over the host, PCI bus, versions, services and network (rules/system/group.cpp).
std::vector<const Rule*> SystemRules();

// Rules over an active run, `gpudoctor stress` (rules/active/group.cpp).
std::vector<const Rule*> ActiveRules();

// All of them, in order. Built once; thread-safe.
const std::vector<const Rule*>& AllRules();

const Rule* FindRule(std::string_view id);

}  // namespace gpudoctor
