// The rules over windows of GPU readings about performance: thermal, power,
// utilisation, memory, clocks, data transfer. Each defined in its own file.
#pragma once

#include "rules/rule.h"

namespace gpudoctor {

extern const Rule kThermalSlowdownRule;  // thermal_slowdown.cpp

}  // namespace gpudoctor
