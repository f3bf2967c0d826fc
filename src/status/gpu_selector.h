// --gpu selectors: an index ("0"), a UUID ("GPU-..."), or a PCI bus id in any
// common spelling ("3b:00.0", "0000:3B:00.0", "00000000:3B:00.0").
#pragma once

#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/result.h"

namespace gpudoctor {

// Indices (into status.gpus) of the GPUs the selectors name, in GPU order;
// all GPUs when selectors is empty. An unmatched selector is an error naming it.
Result<std::vector<std::size_t>> SelectGpus(const SystemStatus& status,
                                            const std::vector<std::string>& selectors);

// Keeps only the selected GPUs in status.
Status FilterGpus(SystemStatus& status, const std::vector<std::string>& selectors);

}  // namespace gpudoctor
