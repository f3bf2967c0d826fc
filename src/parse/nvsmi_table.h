// Parser of the default `nvidia-smi` table (the command without options),
// the thing most often pasted into a bug report or a chat: the 79-column
// layout of drivers up to 525, the 89-column layout of 530 and later, 610's
// "KMD Version" / "CUDA UMD Version" header, Windows' Driver-Model column,
// MIG device sub-tables and the process list. Pure: it is given the text and
// never touches the file system. Fills the same model as nvsmi_text.h and
// nvsmi_xml.h, with what the table shows and nothing more.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/gpu_status.h"
#include "core/result.h"

namespace gpudoctor {

// What GpuStatus::field_errors holds for a cell nvidia-smi printed as ERR!:
// the driver answered that query with an error (not "not supported", which
// nvidia-smi prints as N/A). The rules count such fields as failing.
inline constexpr std::string_view kTableErrCell = "nvidia-smi showed ERR! (the query failed)";

// Builds a SystemStatus from the table: driver_version and the CUDA version
// from the banner, nvml_loaded = true, and one GpuStatus per GPU row in table
// order, with the index nvidia-smi printed (so `nvidia-smi -i 3` gives GPU 3).
// Per GPU: name (as printed, possibly cut short with "..."), persistence_mode
// (not on Windows, whose column is the driver model), pci_bus_id, the
// volatile uncorrected ECC count (ecc_mode_enabled when the column shows a
// count, "On" or "Off"), fan, temperature, P-state, power draw, power_limit_w
// (the "Cap"), memory used and total, GPU utilisation, compute mode and MIG
// mode. A cell showing ERR! leaves its field null and puts kTableErrCell in
// field_errors under the field's status --json name. With a "Processes:"
// table every GPU gets a process list (empty when none runs on it);
// without one, processes stay null; graphics-only processes (type G) are
// left out, as NVML's list of compute processes leaves them out. MIG device
// rows are skipped: they describe instances, not GPUs. Memory in the "MB" of
// drivers before 340 is read as MiB. One table is expected (see
// SplitNvidiaSmiTables); a GPU row repeated within it replaces the earlier.
//
// A fragment pasted without the banner or the column header is read the
// same way when its GPU rows are there ("|   0  NVIDIA ... | 00000000:0C:00.0
// Off | ...": an index and a bus id).
//
// Errors: ErrorCode::kCorrupt, "<source_name>: not an nvidia-smi table:
// <why>", when there is no GPU table header or GPU row, a GPU row is not a table row,
// or there are more than 1024 GPU rows. Never throws.
Result<SystemStatus> ParseNvidiaSmiTable(std::string_view text, std::string_view source_name);

// A text holding several tables (nvidia-smi run twice, `nvidia-smi -l`,
// several hosts) cut into one text per table, each starting at the date line
// or rule above its banner; a text with one table is returned whole. At most
// kMaxTables, the latest.
inline constexpr std::size_t kMaxTables = 3600;
std::vector<std::string_view> SplitNvidiaSmiTables(std::string_view text);

// True when the start of a file holds the table's banner ("| NVIDIA-SMI
// <version> ... Version: ..."), its GPU column header ("| GPU  Name ...
// Bus-Id ...") or a GPU block's first row.
bool LooksLikeNvidiaSmiTable(std::string_view head);

}  // namespace gpudoctor
