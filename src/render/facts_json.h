// `facts --json`: the gpudoctor.facts/v1 document, every piece of evidence
// with where it came from.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "facts/evidence.h"

namespace gpudoctor {

nlohmann::ordered_json EvidenceToJson(const Evidence& evidence);

}  // namespace gpudoctor
