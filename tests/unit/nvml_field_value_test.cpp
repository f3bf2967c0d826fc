// Every nvmlValueType_t a driver may answer a field value with.
#include "nvml/field_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gpudoctor::nvml_detail {
namespace {

nvmlFieldValue_t FieldOfType(int type) {
  nvmlFieldValue_t v{};
  v.fieldId = NVML_FI_DEV_MEMORY_TEMP;
  v.nvmlReturn = NVML_SUCCESS;
  v.valueType = type;
  return v;
}

TEST(FieldValue, EveryValueTypeIsDecoded) {
  auto v = FieldOfType(NVML_VALUE_TYPE_DOUBLE);
  v.value.dVal = 71.6;
  EXPECT_EQ(FieldValueAsInt(v), 72);
  v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_INT);
  v.value.uiVal = 4000000000u;
  EXPECT_EQ(FieldValueAsInt(v), 4000000000LL);
  v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_LONG);
  v.value.ulVal = 71;
  EXPECT_EQ(FieldValueAsInt(v), 71);
  v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
  v.value.ullVal = 5000000000ULL;
  EXPECT_EQ(FieldValueAsInt(v), 5000000000LL);
  v = FieldOfType(NVML_VALUE_TYPE_SIGNED_LONG_LONG);
  v.value.sllVal = -12;
  EXPECT_EQ(FieldValueAsInt(v), -12);
  v = FieldOfType(NVML_VALUE_TYPE_SIGNED_INT);
  v.value.siVal = -8;
  EXPECT_EQ(FieldValueAsInt(v), -8);
  v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_SHORT);
  v.value.ullVal = 0xFFFFFFFFFFFF0000ULL;  // only the low 16 bits are the value
  v.value.usVal = 65;
  EXPECT_EQ(FieldValueAsInt(v), 65);
}

TEST(FieldValue, FailedUnknownAndOutOfRangeValuesAreNullopt) {
  auto v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_INT);
  v.value.uiVal = 70;
  v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  EXPECT_FALSE(FieldValueAsInt(v));
  v = FieldOfType(7);
  EXPECT_FALSE(FieldValueAsInt(v));
  v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
  v.value.ullVal = ~0ULL;
  EXPECT_FALSE(FieldValueAsInt(v));
  v = FieldOfType(NVML_VALUE_TYPE_UNSIGNED_LONG);
  v.value.ulVal = std::numeric_limits<unsigned long>::max();
  EXPECT_FALSE(FieldValueAsInt(v));
  v = FieldOfType(NVML_VALUE_TYPE_DOUBLE);
  v.value.dVal = std::nan("");
  EXPECT_FALSE(FieldValueAsInt(v));
  v.value.dVal = 1e30;
  EXPECT_FALSE(FieldValueAsInt(v));
}

}  // namespace
}  // namespace gpudoctor::nvml_detail
