// Internal to the `nvidia-smi -q` text parser: maps one "Section > ... >
// Label : value" line of a GPU block onto a GpuStatus. Split from
// nvsmi_text.cpp, which splits the text into lines and GPU blocks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_status.h"

namespace gpudoctor::nvsmi {

// One GPU block being read. Values that need more than one line (ECC sums,
// the power draw preference, clock reason bits) are collected here and
// written into `gpu` by FinishTextGpu().
struct TextGpu {
  GpuStatus gpu;

  // ECC counters, [0] volatile / [1] aggregate.
  std::optional<std::int64_t> ecc_corrected[2];
  std::optional<std::int64_t> ecc_uncorrected[2];
  // Older layout: "Single Bit" / "Double Bit" sub-blocks with a "Total".
  std::optional<std::int64_t> ecc_old_total[2][2];  // [block][0 sbe, 1 dbe]
  std::optional<std::int64_t> ecc_old_sum[2][2];

  // Power draw candidates, in order of preference.
  std::optional<double> average_power_draw;
  std::optional<double> power_draw;
  std::optional<double> instant_power_draw;
  std::optional<double> current_power_limit;
  std::optional<double> power_limit;

  std::optional<std::uint64_t> reasons_mask;
  bool in_process = false;  // a "Process ID" line opened a process entry

  int recognised = 0;  // lines that mapped onto a field
};

// Applies one line (other than the "Processes" block, which nvsmi_text.cpp
// reads). `path` holds the lower-cased section labels above the
// line, outermost first, without the "GPU <bus id>" header; `label` is the
// lower-cased label of the line; `value` is the text after the colon, or
// nullopt for a section header line. Lines inside MIG device blocks must not
// reach this function.
// A clock event (throttle) reason that slows the GPU down ("hw power brake
// slowdown", "sw thermal slowdown", ...), as a lower-case label.
bool IsSlowdownReasonLabel(std::string_view label);

void ApplyTextField(const std::vector<std::string>& path, std::string_view label,
                    std::optional<std::string_view> value, TextGpu& out);

// Writes the collected multi-line values into out.gpu.
void FinishTextGpu(TextGpu& out);

}  // namespace gpudoctor::nvsmi
