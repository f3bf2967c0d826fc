// Whether a reading shows a GPU that answers most queries with errors (what
// nvidia-smi shows as ERR!), shared by gpu.lost, which reports it, and the
// rules that must not blame one part (a fan) for what is the whole GPU. Pure.
#pragma once

#include <cstddef>

#include "core/gpu_status.h"

namespace gpudoctor {

// Fields of `g` that failed with an error meaning the GPU itself is
// unreachable or wedged (NVML unknown, lost, reset-required or timeout, or a
// table cell showing ERR!), not that one query is unsupported or forbidden.
std::size_t BrokenFieldCount(const GpuStatus& g);

// One failing field happens on healthy GPUs (a query a board half supports);
// this many at once is the ERR! picture of a GPU that needs a reset.
inline constexpr std::size_t kManyBrokenFields = 5;

// BrokenFieldCount(g) >= kManyBrokenFields.
bool AnswersMostlyWithErrors(const GpuStatus& g);

}  // namespace gpudoctor
