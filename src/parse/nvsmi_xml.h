// Parser of `nvidia-smi -q -x` documents (every schema seen in the wild: the
// DTD-less 418-era files, nvsmi_device_v11/v12/v13, Windows and MIG). Pure:
// it is given the document text and never touches the file system.
#pragma once

#include <string_view>

#include "core/gpu_status.h"
#include "core/result.h"

namespace gpudoctor {

// Builds a SystemStatus from the document: driver_version, the CUDA version
// from <cuda_version> (encoded 1000 * major + 10 * minor), nvml_loaded = true
// and one GpuStatus per <gpu> element, indexed in document order. Values the
// document does not hold, or holds as "N/A", "[Not Supported]", "Unknown
// Error" and the like, stay std::nullopt.
//
// How values map where the schemas differ:
//   - power_draw_w: <average_power_draw> (R535+ gpu_power_readings) when
//     present, else <power_draw>, else <instant_power_draw>. The average is
//     what nvmlDeviceGetPowerUsage reports on the GPUs that have both, so the
//     XML and a live NVML read agree.
//   - power_limit_w: <current_power_limit>, else <power_limit>.
//   - ECC counts: older schemas have <single_bit>/<double_bit> per counter
//     block and we take their <total> (or the sum of the available locations
//     when <total> is N/A); newer ones list <sram_correctable>,
//     <dram_correctable>, <sram_uncorrectable[_parity|_secded]>,
//     <dram_uncorrectable>: corrected is the sum of the *_correctable
//     elements, uncorrected the sum of the *uncorrectable* ones. Null when
//     every element of the block is unavailable.
//   - violation_power_ns: <clocks_event_reasons_counters_sw_power_cap>
//     (v13, microseconds) * 1000. Thermal violation time has no single
//     counterpart in the XML and stays null.
//   - pcie_tx/rx_bytes_per_s: "KB/s" read as KiB/s (x1024), as the NVML
//     loader does with nvmlDeviceGetPcieThroughput.
//   - fan_speeds_percent: the single <fan_speed> when available.
//
// Errors: ErrorCode::kCorrupt, "<source_name>: not an nvidia-smi -q -x
// document: <why>", for malformed XML or a document without
// <nvidia_smi_log>. Never throws.
Result<SystemStatus> ParseNvidiaSmiXml(std::string_view xml,
                                       std::string_view source_name);

}  // namespace gpudoctor
