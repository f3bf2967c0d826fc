#include "nvml/field_value.h"

#include <cmath>
#include <limits>

namespace gpudoctor::nvml_detail {
namespace {

template <typename Unsigned>
std::optional<std::int64_t> UnsignedFieldAsInt(Unsigned v) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::optional<std::int64_t> FieldValueAsInt(const nvmlFieldValue_t& value) {
  if (value.nvmlReturn != NVML_SUCCESS) return std::nullopt;
  const nvmlValue_t& v = value.value;
  switch (value.valueType) {
    case NVML_VALUE_TYPE_DOUBLE: {
      // 2^63 is the first double past int64_t's range.
      if (!std::isfinite(v.dVal) || std::fabs(v.dVal) >= 9.2233720368547758e18) {
        return std::nullopt;
      }
      return static_cast<std::int64_t>(std::llround(v.dVal));
    }
    case NVML_VALUE_TYPE_UNSIGNED_INT: return static_cast<std::int64_t>(v.uiVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return UnsignedFieldAsInt(v.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return UnsignedFieldAsInt(v.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return static_cast<std::int64_t>(v.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return static_cast<std::int64_t>(v.siVal);
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return static_cast<std::int64_t>(v.usVal);
    default: return std::nullopt;
  }
}

}  // namespace gpudoctor::nvml_detail
