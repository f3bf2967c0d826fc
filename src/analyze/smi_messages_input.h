// What nvidia-smi's messages outside its grid (parse/nvsmi_messages.h) add
// to the readings of `gpudoctor analyze`:
//   - "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown
//     Error": a GPU with that bus id (and index, when printed) in state lost,
//     its state_detail the message, so that it counts among the GPUs and
//     gpu.lost names it. nvidia-smi leaves such a GPU out of its table and
//     dump; one the dump still lists is marked lost the same way.
//   - "No devices were found", "Failed to initialize NVML: ...",
//     "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
//     driver...": a reading in which NVML gave no GPU (nvml_loaded false,
//     nvml_error the message), as a bug report's failed nvidia-smi run gives.
// Pure. Never throws.
#pragma once

#include <optional>
#include <vector>

#include "core/gpu_status.h"
#include "parse/nvsmi_messages.h"

namespace gpudoctor {

// Adds the lost GPUs that `messages` name to a reading parsed from the same
// text (each GPU once, by bus id, else by index).
void AddLostGpusFromMessages(const std::vector<NvsmiMessage>& messages, SystemStatus& status);

// A reading made of the messages alone, for a file without a dump of its
// own (a kernel log a shell session was pasted into, a file holding only
// "No devices were found"): the first failure message when there is one
// (NVML then gave no GPU), else the lost GPUs. nullopt when `messages` is empty.
std::optional<SystemStatus> ReadingFromMessages(const std::vector<NvsmiMessage>& messages);

}  // namespace gpudoctor
