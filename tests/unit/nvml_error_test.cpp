#include "nvml/nvml_error.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

TEST(NvmlError, NamesAndMessages) {
  EXPECT_EQ(NvmlReturnName(NVML_ERROR_GPU_IS_LOST), "NVML_ERROR_GPU_IS_LOST");
  EXPECT_EQ(NvmlReturnName(NVML_ERROR_UNKNOWN), "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(NvmlReturnName(12345), "NVML_ERROR_12345");
  EXPECT_NE(NvmlReturnMessage(NVML_ERROR_GPU_IS_LOST).find("fallen off the bus"),
            std::string::npos);
  EXPECT_NE(NvmlReturnMessage(NVML_ERROR_LIB_RM_VERSION_MISMATCH).find("mismatch"),
            std::string::npos);
  EXPECT_EQ(NvmlReturnMessage(4242), "unknown NVML return code 4242");
}

TEST(NvmlError, RoundTripsEveryName) {
  for (int code = 0; code <= 30; ++code) {
    std::string name = NvmlReturnName(code);
    EXPECT_EQ(NvmlReturnFromName(name), code) << name;
  }
  EXPECT_EQ(NvmlReturnFromName("NVML_ERROR_UNKNOWN"), 999);
  EXPECT_EQ(NvmlReturnFromName("NOT_A_CODE"), -1);
}

TEST(NvmlError, CategoriesAndCallName) {
  Error lost = NvmlError(NVML_ERROR_GPU_IS_LOST, "nvmlDeviceGetPowerUsage");
  EXPECT_EQ(lost.code, ErrorCode::kLost);
  EXPECT_EQ(lost.message.rfind("nvmlDeviceGetPowerUsage: ", 0), 0u);
  EXPECT_NE(lost.message.find("(NVML_ERROR_GPU_IS_LOST)"), std::string::npos);
  EXPECT_EQ(NvmlError(NVML_ERROR_NO_PERMISSION, "x").code, ErrorCode::kPermission);
  EXPECT_EQ(NvmlError(NVML_ERROR_NOT_SUPPORTED, "x").code, ErrorCode::kNotSupported);
  EXPECT_EQ(NvmlError(NVML_ERROR_DRIVER_NOT_LOADED, "x").code, ErrorCode::kUnavailable);
  EXPECT_EQ(NvmlError(777, "x").code, ErrorCode::kUnknown);
}

TEST(NvmlError, InitAdviceNamesTheFix) {
  EXPECT_NE(NvmlInitAdvice(NVML_ERROR_DRIVER_NOT_LOADED).find("modprobe nvidia"),
            std::string::npos);
  EXPECT_NE(NvmlInitAdvice(NVML_ERROR_LIB_RM_VERSION_MISMATCH).find("reboot"),
            std::string::npos);
}

}  // namespace
}  // namespace gpudoctor
