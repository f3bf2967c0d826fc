// Field ids that changed meaning between driver releases, chosen by the
// driver version NVML reports (nvmlSystemGetDriverVersion). Checked against
// the nvml.h of driver releases R450 to R610 (nvml_api.h).
#pragma once

#include <optional>
#include <string_view>

namespace gpudoctor {

// The id of the SW thermal slowdown violation counter to ask
// nvmlDeviceGetFieldValues for, from the driver version ("580.76.05", two
// or three numbers; parse/version_numbers.h holds the general parser, which
// this layer may not use): 251 on 575.51.02 to 580.76.05 (whose 269 is
// the power smoothing preset profile, a small number that would read as
// nanoseconds of slowdown), else 269 (older drivers answer it NOT_SUPPORTED,
// and the reader falls back to nvmlDeviceGetViolationStatus). nullopt when the
// version is unknown or not a version: then no field is asked for.
std::optional<unsigned> ThermalSlowdownFieldId(std::optional<std::string_view> driver_version);

}  // namespace gpudoctor
