// Parser of `nvidia-smi -q` plain-text output (drivers 510-595, Linux and
// Windows, MIG, `-q -d <sections>` and hand-cut excerpts). Pure: it is given
// the text and never touches the file system. The companion of
// nvsmi_xml.h; both fill the same model with the same conventions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_status.h"
#include "core/result.h"

namespace gpudoctor {

// Builds a SystemStatus from the text: driver_version, the CUDA version
// (encoded 1000 * major + 10 * minor), nvml_loaded = true and one GpuStatus
// per "GPU <bus id>" line, indexed in text order. A fragment without such a
// line (an excerpt that starts inside a GPU block) yields one GPU holding
// what the fragment has. "N/A", "[Not Supported]", "Unknown Error", ... stay
// std::nullopt.
//
// Lines are "<indent>Label<padding>: value" or "<indent>Section"; the label
// column width differs between drivers and does not matter. A value is found
// by its section path ("Max Clocks > Graphics" is not "Clocks > Graphics").
// Lines under "MIG Device" blocks are skipped so the per-instance values do
// not overwrite the GPU's own. Value choices follow ParseNvidiaSmiXml:
//   - power_draw_w: "Average Power Draw", else "Power Draw", else
//     "Instantaneous Power Draw" ("GPU Power Readings" or "Power Readings").
//   - power_limit_w: "Current Power Limit", else "Power Limit".
//   - ECC counts: corrected is the sum of the "... Correctable" lines of the
//     Volatile/Aggregate block, uncorrected the sum of the "... Uncorrectable
//     ..." lines; older drivers' "Single Bit"/"Double Bit" sub-blocks give
//     their "Total" (or the sum of the locations when Total is N/A). Null
//     when every line is unavailable.
//   - violation_power_ns: "Clocks Event Reasons Counters > SW Power Capping"
//     (microseconds) * 1000.
//   - pcie_tx/rx_bytes_per_s: "KB/s" read as KiB/s (x1024).
//   - "Processes : None" is an empty (not null) process list.
//
// Errors: ErrorCode::kCorrupt, "<source_name>: not nvidia-smi -q output:
// <why>", for empty or binary input and for text in which no nvidia-smi
// line is recognised. Never throws.
//
// A "GPU <address>" line whose address is not a PCI bus id (a device above
// 0x1f, a function above 7) opens no GPU: its block is left out, and
// `notes`, when given, gets one line saying so ("GPU 00000000:3A:25.0 is
// not a PCI bus id (device 0x25 is above 0x1f): that GPU's block was left
// out").
Result<SystemStatus> ParseNvidiaSmiText(std::string_view text, std::string_view source_name,
                                        std::vector<std::string>* notes = nullptr);

// True when the start of a file looks like `nvidia-smi -q` text (the
// "NVSMI LOG" banner, a "GPU <bus id>" line or a well-known label), and not
// like the XML form.
bool LooksLikeNvidiaSmiText(std::string_view head);

}  // namespace gpudoctor
