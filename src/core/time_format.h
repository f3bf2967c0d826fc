// Times as reports show them.
#pragma once

#include <string>

#include "core/kernel_event.h"

namespace gpudoctor {

// RFC 3339 in UTC with seconds and, when not whole, milliseconds:
// "2025-02-23T16:24:18Z", "2025-02-23T16:24:18.250Z".
std::string FormatRfc3339(WallTime time);

}  // namespace gpudoctor
