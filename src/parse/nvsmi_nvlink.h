// Parser of `nvidia-smi nvlink -s` / `--status` (each link's speed) and
// `nvidia-smi nvlink -e` (each link's error counters), as printed by drivers
// R450 to R590:
//   GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)
//   	 Link 0: 26.562 GB/s
//   	 Link 4: <inactive>
//   	 NVML: Unable to retrieve NVLink information as all links are inActive
//   	 NVML: Unable to retrieve NVLink information: Not Supported
//   Nvlink queries are not supported for Devices in MIG mode
//   	 Link 0: Replay Errors: 0          (-e; also Recovery Errors, CRC Errors)
// Pure: given the text, never touches the file system.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_status.h"
#include "core/result.h"

namespace gpudoctor {

// One GpuStatus per "GPU N:" line, in the order printed, with index, name
// and uuid, and per link printed: link, active (a speed: true; "<inactive>":
// false), speed_gb_per_s (one direction, as nvidia-smi prints it), and the
// -e counters (replay_errors, recovery_errors, crc_flit_errors for "CRC
// Errors"). The driver's "all links are inActive" line sets
// nvlinks_all_inactive; "Not Supported" and the MIG-mode line leave the GPU
// without links. nvml_loaded = true; no bus ids (nvidia-smi prints none).
// Lines of other shapes (a pasted "$ nvidia-smi ..." prompt, an author's
// "[...]") are skipped; `notes`, when given, gets one line counting them.
// Errors: ErrorCode::kCorrupt, "<source_name>: not nvidia-smi nvlink output:
// no GPU line", when no "GPU N:" line opens the links. Never throws.
Result<SystemStatus> ParseNvidiaSmiNvlink(std::string_view text, std::string_view source_name,
                                          std::vector<std::string>* notes = nullptr);

// True when the start of a file is nvidia-smi nvlink output: a "GPU N: NAME"
// line followed by a link line or one of the driver's NVLink messages, the
// first such lines of the file (a pasted prompt line aside).
bool LooksLikeNvidiaSmiNvlink(std::string_view head);

}  // namespace gpudoctor
