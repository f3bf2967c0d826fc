// Invariants of a SystemStatus built by the nvidia-smi parsers (XML and
// text): what their headers promise, whatever the input.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/gpu_status.h"
#include "core/result.h"
#include "fuzz_check.h"
#include "render/status_json.h"
#include "render_check.h"

namespace gpudoctor::fuzz {

// `position`: the GPU's place in the list, which is its index for the
// parsers that number GPUs in document order (nullopt for the table parser,
// which keeps the index nvidia-smi printed).
inline void CheckGpu(const GpuStatus& gpu, std::optional<std::size_t> position) {
  FUZZ_CHECK(!position || gpu.index == *position);
  // The bus id is stored normalised ("0000:3b:00.0") or not at all.
  FUZZ_CHECK(gpu.pci_bus_id.empty() || NormalizePciBusId(gpu.pci_bus_id) == gpu.pci_bus_id);
  FUZZ_CHECK(!gpu.pstate || (*gpu.pstate >= 0 && *gpu.pstate <= 15));
  FUZZ_CHECK(!gpu.fan_speed_percent || gpu.fan_speeds_percent.empty() ||
             *gpu.fan_speed_percent == gpu.fan_speeds_percent.front());
}

// `first` and `second` are two parses of the same input: they must agree.
inline void CheckStatus(const SystemStatus& first, const SystemStatus& second,
                        bool index_is_position) {
  FUZZ_CHECK(first.nvml_loaded);
  FUZZ_CHECK(first.gpus.size() == second.gpus.size());
  FUZZ_CHECK(first.driver_version == second.driver_version);
  FUZZ_CHECK(first.cuda_driver_version == second.cuda_driver_version);
  for (std::size_t i = 0; i < first.gpus.size(); ++i) {
    CheckGpu(first.gpus[i], index_is_position ? std::optional<std::size_t>(i) : std::nullopt);
    FUZZ_CHECK(first.gpus[i].index == second.gpus[i].index);
    FUZZ_CHECK(first.gpus[i].field_errors == second.gpus[i].field_errors);
    FUZZ_CHECK(first.gpus[i].uuid == second.gpus[i].uuid);
    FUZZ_CHECK(first.gpus[i].pci_bus_id == second.gpus[i].pci_bus_id);
    // The value parsers reject non-finite numbers, so == is exact here.
    FUZZ_CHECK(first.gpus[i].power_draw_w == second.gpus[i].power_draw_w);
    FUZZ_CHECK(first.gpus[i].memory_total_bytes == second.gpus[i].memory_total_bytes);
  }
}

// Parses `input` twice with `parse` (ParseNvidiaSmiXml or ParseNvidiaSmiText)
// and checks both results: a one-line kCorrupt error naming `source`, or two
// equal, well-formed statuses.
template <typename Parse>
void CheckStatusParser(Parse parse, std::string_view input, std::string_view source,
                       bool index_is_position = true) {
  Result<SystemStatus> first = parse(input, source);
  Result<SystemStatus> second = parse(input, source);
  FUZZ_CHECK(first.ok() == second.ok());
  if (!first.ok()) {
    FUZZ_CHECK(first.error().code == ErrorCode::kCorrupt);
    FUZZ_CHECK(IsOneLineNaming(first.error().message, std::string(source) + ": "));
    return;
  }
  CheckStatus(*first, *second, index_is_position);
  // status --json of whatever names and values the input held.
  CheckRendersAsUtf8Json(StatusToJson(*first));
}

}  // namespace gpudoctor::fuzz
