// The `status` table: one row per GPU in the spirit of nvidia-smi, values
// graded against the thresholds (colour on a TTY), the processes, and a block
// listing anything abnormal.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/gpu_status.h"
#include "core/thresholds.h"

namespace gpudoctor {

struct TableOptions {
  bool color = false;
  // The terminal's columns: tables drop or shrink columns to fit, and say
  // which. nullopt (not a terminal, or --wide): every column in full.
  std::optional<std::size_t> width;
  Thresholds thresholds;
};

std::string RenderStatusTable(const SystemStatus& status, const TableOptions& options);

// "n/a" or the value with a unit; shared by the text renderers.
std::string FormatMiB(std::optional<std::int64_t> bytes);

}  // namespace gpudoctor
