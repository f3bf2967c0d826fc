// The recovery action in words, for every renderer: a finding's ("Recovery:
// reset the GPU (the driver asks for it)") and the node's, with the GPUs it
// is for ("reboot the node (GPU 2, GPU 5)").
#pragma once

#include <string>

#include "core/text.h"
#include "rules/engine/engine.h"

namespace gpudoctor {

// Empty when the finding needs none.
std::string FindingRecoveryText(const Finding& f, Lang lang);
// The node's strictest action and the GPUs that need it; empty when none.
std::string NodeRecoveryText(const Diagnosis& d, Lang lang);

}  // namespace gpudoctor
