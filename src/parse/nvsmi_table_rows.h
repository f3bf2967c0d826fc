// Internal to the nvidia-smi table parser: the cells of one GPU block and of
// one process row. Pure.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/gpu_status.h"

namespace gpudoctor::nvsmi_table {

// The cells between the '|' of a table line, untrimmed ("| a | b |" gives
// " a ", " b "). Empty when the line is not a table row.
std::vector<std::string_view> Cells(std::string_view line);

// The whitespace-separated words of a cell.
std::vector<std::string_view> Words(std::string_view cell);

// A GPU from the rows of its block (two or three lines, the first starting
// with the GPU's index); nullopt when the first row has no index (0-4095) in
// its first cell or fewer than three cells.
std::optional<GpuStatus> GpuFromBlock(const std::vector<std::string_view>& rows);

// The columns of the "Processes:" table, from its header: GI and CI (drivers
// 470 and later), Type (drivers 340 and later).
struct ProcessColumns {
  bool instance_ids = false;
  bool type = true;
};

// One row of the "Processes:" table. nullopt for the "No running processes
// found" line, for graphics-only (type G) processes and for anything that is
// not a process row.
struct ProcessRow {
  unsigned gpu = 0;
  GpuProcess process;
};
std::optional<ProcessRow> ProcessFromRow(std::string_view row, const ProcessColumns& columns);

}  // namespace gpudoctor::nvsmi_table
