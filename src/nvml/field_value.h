// Reading one nvmlFieldValue_t answered by nvmlDeviceGetFieldValues.
#pragma once

#include <cstdint>
#include <optional>

#include "nvml/nvml_api.h"

namespace gpudoctor::nvml_detail {

// The value as a whole number, whatever nvmlValueType_t the driver chose:
// double (0, rounded), unsigned int (1), unsigned long (2), unsigned long long
// (3), signed long long (4), signed int (5), unsigned short (6). nullopt for
// a field whose nvmlReturn is not NVML_SUCCESS, an unknown type, a value past
// int64_t's range or a double that is not finite.
std::optional<std::int64_t> FieldValueAsInt(const nvmlFieldValue_t& value);

}  // namespace gpudoctor::nvml_detail
