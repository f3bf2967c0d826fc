// JSON for the software-version facts (part of `gpudoctor facts --json`).
// Unknown values are null; every section lists its sources with
// availability and, when not available, why. Pure: reads only the structs.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "facts/versions.h"

namespace gpudoctor {

nlohmann::ordered_json ToJson(const CudaSupportVerdict& verdict);
nlohmann::ordered_json ToJson(const DriverFacts& facts);
nlohmann::ordered_json ToJson(const CudaFacts& facts);
nlohmann::ordered_json ToJson(const FrameworkFacts& facts);
nlohmann::ordered_json ToJson(const FabricManagerFacts& facts);
nlohmann::ordered_json ToJson(const VersionFacts& facts);  // {"driver":…, "cuda":…, …}

}  // namespace gpudoctor
