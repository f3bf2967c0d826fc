// The scalar fields of GpuStatus as data: each row names a field as it appears
// in `status --json` and points at the member that holds it. The JSON
// renderer, the fake NVML's scenario overrides and the tests walk this table,
// so a field is named in exactly one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/gpu_status.h"

namespace gpudoctor {

using IntMember = std::optional<std::int64_t> GpuStatus::*;
using RealMember = std::optional<double> GpuStatus::*;
using BoolMember = std::optional<bool> GpuStatus::*;
using TextMember = std::optional<std::string> GpuStatus::*;

struct GpuField {
  std::string_view name;
  std::variant<IntMember, RealMember, BoolMember, TextMember> member;
};

// Every optional scalar field of GpuStatus, in the order status --json shows
// them. Identity fields (index, name, uuid, pci_bus_id, state) and compound
// fields (pstate, clock_event_reasons, fans, nvlinks, processes) are not here.
const std::vector<GpuField>& ScalarGpuFields();

const GpuField* FindGpuField(std::string_view name);
// The status --json name of the field held by `member`; empty when none.
std::string_view GpuFieldName(const std::variant<IntMember, RealMember, BoolMember, TextMember>& member);

// Numeric view of a field (bools as 0/1); nullopt when null or text.
std::optional<double> GetNumber(const GpuStatus& gpu, const GpuField& field);
// Sets a numeric field (ints rounded, bools != 0). Returns false for text.
bool SetNumber(GpuStatus& gpu, const GpuField& field, double value);
// Clears the field (null).
void ClearField(GpuStatus& gpu, const GpuField& field);

}  // namespace gpudoctor
