// The rules over host, PCI bus, versions, services and network, each defined in its own file.
#pragma once

#include "rules/rule.h"

namespace gpudoctor {

}  // namespace gpudoctor
