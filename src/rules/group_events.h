// The rules over kernel-log events, each defined in its own file.
#pragma once

#include "rules/rule.h"

namespace gpudoctor {

}  // namespace gpudoctor
