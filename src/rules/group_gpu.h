// The rules over GPU readings, each defined in its own file.
#pragma once

#include "rules/rule.h"

namespace gpudoctor {

extern const Rule kThermalSlowdownRule;  // thermal_slowdown.cpp

}  // namespace gpudoctor
