#include "parse/nvsmi_values.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace gpudoctor::nvsmi {
namespace {

TEST(NvsmiValues, UnavailableSpellings) {
  for (const char* text :
       {"N/A", "[N/A]", "Not Supported", "[Not Supported]", "Unknown Error",
        "Requested functionality has been deprecated", "  n/a  ", "", "   ",
        "ERR!", "[Insufficient Permissions]", "GPU is lost"}) {
    EXPECT_TRUE(IsUnavailable(text)) << "'" << text << "'";
  }
  for (const char* text : {"0", "Enabled", "NVIDIA A100", "[0]", "N/A2"}) {
    EXPECT_FALSE(IsUnavailable(text)) << "'" << text << "'";
  }
}

// nvidia-smi prints NVML's error string where a query failed: those are
// failures to count, unlike "not supported" or "no permission".
TEST(NvsmiValues, QueryFailures) {
  EXPECT_EQ(QueryFailure("Unknown Error"), "Unknown Error (NVML_ERROR_UNKNOWN)");
  EXPECT_EQ(QueryFailure(" [Unknown Error] "), "Unknown Error (NVML_ERROR_UNKNOWN)");
  EXPECT_EQ(QueryFailure("GPU is lost"), "GPU is lost (NVML_ERROR_GPU_IS_LOST)");
  EXPECT_EQ(QueryFailure("GPU requires reset"), "GPU requires reset (NVML_ERROR_RESET_REQUIRED)");
  EXPECT_EQ(QueryFailure("ERR!"), "ERR!");
  for (const char* text : {"N/A", "[Not Supported]", "Insufficient Permissions", "", "42 C",
                           "Requested functionality has been deprecated", "Unknown"}) {
    EXPECT_FALSE(QueryFailure(text).has_value()) << "'" << text << "'";
  }
}

TEST(NvsmiValues, Text) {
  EXPECT_EQ(ParseText("  94.04.71.00.69\n"), "94.04.71.00.69");
  EXPECT_EQ(ParseText("N/A"), std::nullopt);
  EXPECT_EQ(ParseText("[Not Supported]"), std::nullopt);
}

struct IntCase {
  const char* text;
  std::optional<std::int64_t> want;
};

TEST(NvsmiValues, MemoryBytes) {
  const IntCase cases[] = {
      {"12288 MiB", 12288LL * 1024 * 1024},
      {"0 MiB", 0},
      {"  368 MiB ", 368LL * 1024 * 1024},
      {"2 GiB", 2LL * 1024 * 1024 * 1024},
      {"4 KiB", 4096},
      {"17 B", 17},
      {"12288", std::nullopt},
      {"12288 MB", std::nullopt},
      {"N/A", std::nullopt},
      {"-1 MiB", std::nullopt},
      {"1e300 MiB", std::nullopt},
      {"inf MiB", std::nullopt},
      {"nan MiB", std::nullopt},
      {"MiB", std::nullopt},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ParseMemoryBytes(c.text), c.want) << "'" << c.text << "'";
  }
}

TEST(NvsmiValues, UnitsOfScalars) {
  EXPECT_EQ(ParsePercent("0 %"), 0);
  EXPECT_EQ(ParsePercent("91 %"), 91);
  EXPECT_EQ(ParsePercent("91"), std::nullopt);
  EXPECT_EQ(ParseCelsius("42 C"), 42);
  EXPECT_EQ(ParseCelsius("42 F"), std::nullopt);
  EXPECT_EQ(ParseMegahertz("2145 MHz"), 2145);
  EXPECT_EQ(ParseMegahertz("N/A"), std::nullopt);
  EXPECT_EQ(ParseLinkWidth("16x"), 16);
  EXPECT_EQ(ParseLinkWidth("8x"), 8);
  EXPECT_EQ(ParseLinkWidth("x16"), std::nullopt);
  EXPECT_EQ(ParseMicroseconds("31637354094 us"), 31637354094LL);
  EXPECT_EQ(ParseInteger("4027538"), 4027538);
  EXPECT_EQ(ParseInteger(" 0 "), 0);
  EXPECT_EQ(ParseInteger("0x10"), std::nullopt);
  EXPECT_EQ(ParseInteger("99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseInteger(""), std::nullopt);
}

TEST(NvsmiValues, Watts) {
  ASSERT_TRUE(ParseWatts("11.60 W"));
  EXPECT_DOUBLE_EQ(*ParseWatts("11.60 W"), 11.6);
  EXPECT_DOUBLE_EQ(*ParseWatts("170.00 W"), 170.0);
  EXPECT_EQ(ParseWatts("170.00"), std::nullopt);
  EXPECT_EQ(ParseWatts("[N/A]"), std::nullopt);
}

TEST(NvsmiValues, PcieThroughputIsKibPerSecond) {
  EXPECT_EQ(ParseKilobytesPerSecond("550 KB/s"), 550 * 1024);
  EXPECT_EQ(ParseKilobytesPerSecond("0 KB/s"), 0);
  EXPECT_EQ(ParseKilobytesPerSecond("550 MB/s"), std::nullopt);
}

TEST(NvsmiValues, Pstate) {
  EXPECT_EQ(ParsePstate("P0"), 0);
  EXPECT_EQ(ParsePstate("P8"), 8);
  EXPECT_EQ(ParsePstate("P15"), 15);
  EXPECT_EQ(ParsePstate("P16"), std::nullopt);
  EXPECT_EQ(ParsePstate("P"), std::nullopt);
  EXPECT_EQ(ParsePstate("8"), std::nullopt);
  EXPECT_EQ(ParsePstate("Requested functionality has been deprecated"),
            std::nullopt);
}

TEST(NvsmiValues, CudaVersion) {
  EXPECT_EQ(ParseCudaVersion("12.8"), 12080);
  EXPECT_EQ(ParseCudaVersion("10.1"), 10010);
  EXPECT_EQ(ParseCudaVersion("13.2"), 13020);
  EXPECT_EQ(ParseCudaVersion("12"), std::nullopt);
  EXPECT_EQ(ParseCudaVersion("N/A"), std::nullopt);
  EXPECT_EQ(ParseCudaVersion("12.x"), std::nullopt);
}

TEST(NvsmiValues, Booleans) {
  EXPECT_EQ(ParseEnabled("Enabled"), true);
  EXPECT_EQ(ParseEnabled("Disabled"), false);
  EXPECT_EQ(ParseEnabled("N/A"), std::nullopt);
  EXPECT_EQ(ParseYesNo("Yes"), true);
  EXPECT_EQ(ParseYesNo("No"), false);
  EXPECT_EQ(ParseYesNo("Maybe"), std::nullopt);
  EXPECT_EQ(ParseActive("Active"), true);
  EXPECT_EQ(ParseActive("Not Active"), false);
  EXPECT_EQ(ParseActive("N/A"), std::nullopt);
}

TEST(NvsmiValues, ComputeMode) {
  EXPECT_EQ(NormalizeComputeMode("Default"), "Default");
  EXPECT_EQ(NormalizeComputeMode("Exclusive_Process"), "Exclusive_Process");
  EXPECT_EQ(NormalizeComputeMode("E. Process"), "Exclusive_Process");
  EXPECT_EQ(NormalizeComputeMode("exclusive process"), "Exclusive_Process");
  EXPECT_EQ(NormalizeComputeMode("Prohibited"), "Prohibited");
  EXPECT_EQ(NormalizeComputeMode("Exclusive_Thread"), "Exclusive_Thread");
  EXPECT_EQ(NormalizeComputeMode("N/A"), std::nullopt);
  EXPECT_EQ(NormalizeComputeMode("Shared"), std::nullopt);
}

}  // namespace
}  // namespace gpudoctor::nvsmi
