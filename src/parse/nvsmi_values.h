// Pure parsers for the value texts nvidia-smi writes ("12288 MiB", "42 C",
// "11.60 W", "P8", "Enabled", "550 KB/s", "16x", ...). Every function returns
// std::nullopt for a value that is unavailable ("N/A", "[Not Supported]",
// "Unknown Error", "Requested functionality has been deprecated", ...) and for
// anything malformed or out of range; none of them throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/gpu_status.h"

namespace gpudoctor::nvsmi {

// Strips ASCII whitespace at both ends.
std::string_view Trim(std::string_view text);

// True when the text says the value is missing: empty, "N/A", "Not
// Supported", "Unknown Error", "Requested functionality has been
// deprecated", "ERR!", "Insufficient Permissions", "GPU is lost", ... with or
// without square brackets, in any letter case.
bool IsUnavailable(std::string_view text);

// When the text is how nvidia-smi prints a query the driver failed (NVML's
// error strings "Unknown Error", "GPU is lost", "GPU requires reset", or the
// table's "ERR!"; brackets and case as IsUnavailable), that text with the NVML
// code it stands for, e.g. "Unknown Error (NVML_ERROR_UNKNOWN)"; nullopt for
// anything else, "N/A", "Not Supported" and "Insufficient Permissions" too.
std::optional<std::string> QueryFailure(std::string_view text);

// True for the fields whose failed query the -q parsers (text and XML alike)
// record in field_errors: the readings of a working GPU (name, fan, P-state,
// persistence, utilisation, memory, temperature, power draw, clocks, ECC
// mode, PCIe generation). Static facts (serial, VBIOS, thresholds) are left
// out, so that a board that fails only those never looks wedged.
bool CountsQueryFailure(std::string_view field);

// A GPU whose queries failed with "GPU is lost" (NVML_ERROR_GPU_IS_LOST,
// recorded in field_errors from QueryFailure) is lost, not merely answering
// with errors: sets state and state_detail so.
void MarkLostFromFailures(GpuStatus& gpu);

// The trimmed text, or nullopt when IsUnavailable().
std::optional<std::string> ParseText(std::string_view text);

// Without a trailing bracketed note: "610.57.04 [Deprecated; will be removed
// in CUDA 14.0. Use KMD Version instead]" (610 and later) -> "610.57.04".
std::string_view WithoutBracketNote(std::string_view value);

// A decimal number, optionally followed by whitespace and exactly `unit`
// (e.g. ParseQuantity("11.60 W", "W") == 11.6). An empty unit accepts a
// bare number only. Non-finite numbers are rejected.
std::optional<double> ParseQuantity(std::string_view text,
                                    std::string_view unit);

// A plain decimal integer ("0", "4027538"), within int64.
std::optional<std::int64_t> ParseInteger(std::string_view text);

// "12288 MiB" -> bytes. Also accepts B, KiB, GiB and TiB.
std::optional<std::int64_t> ParseMemoryBytes(std::string_view text);
// "0 %" -> 0.
std::optional<std::int64_t> ParsePercent(std::string_view text);
// "42 C" -> 42.
std::optional<std::int64_t> ParseCelsius(std::string_view text);
// "11.60 W" -> 11.6.
std::optional<double> ParseWatts(std::string_view text);
// "210 MHz" -> 210.
std::optional<std::int64_t> ParseMegahertz(std::string_view text);
// "550 KB/s" -> bytes per second. nvidia-smi prints what
// nvmlDeviceGetPcieThroughput returns, in NVML's "KB/s"; gpudoctor reads that
// unit as KiB/s everywhere (here, in the NVML loader and in the fake NVML),
// so 550 KB/s is 550 * 1024 bytes/s.
std::optional<std::int64_t> ParseKilobytesPerSecond(std::string_view text);
// "31637354094 us" -> microseconds.
std::optional<std::int64_t> ParseMicroseconds(std::string_view text);
// "16x" -> 16.
std::optional<std::int64_t> ParseLinkWidth(std::string_view text);
// "P8" -> 8 (P0..P15).
std::optional<std::int64_t> ParsePstate(std::string_view text);
// "12.8" -> 12080 (1000 * major + 10 * minor, NVML's encoding).
std::optional<std::int64_t> ParseCudaVersion(std::string_view text);

// "Enabled" / "Disabled".
std::optional<bool> ParseEnabled(std::string_view text);
// "Yes" / "No".
std::optional<bool> ParseYesNo(std::string_view text);
// "Active" / "Not Active".
std::optional<bool> ParseActive(std::string_view text);

// Compute mode in gpudoctor's spelling: "Default", "Exclusive_Process",
// "Prohibited" or (obsolete, pre-Volta drivers) "Exclusive_Thread". Accepts
// nvidia-smi's XML and text spellings ("E. Process", "Exclusive Process").
std::optional<std::string> NormalizeComputeMode(std::string_view text);

}  // namespace gpudoctor::nvsmi
