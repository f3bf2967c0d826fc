// The rules over GPU readings about health and configuration: GPU lost or
// hung, ECC and row remapping, PCIe replays, NVLink, persistence mode, power
// limit, application clocks, compute and MIG mode. Each defined in its own file.
#pragma once

#include "rules/rule.h"

namespace gpudoctor {

}  // namespace gpudoctor
