#include <gtest/gtest.h>

#include "parse/driver_version.h"
#include "parse/ld_so_conf.h"

namespace gpudoctor {
namespace {

TEST(ProcDriverVersion, ProprietaryModule) {
  auto v = ParseProcDriverVersion(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Tue Nov 12 18:00:29 UTC 2024\n"
      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version.ToString(), "550.135");
  EXPECT_FALSE(v->open_module);
  EXPECT_EQ(v->arch, "x86_64");
  EXPECT_EQ(v->build_info, "Tue Nov 12 18:00:29 UTC 2024");
  EXPECT_EQ(v->gcc_version, "gcc version 12.2.0 (Debian 12.2.0-14)");
}

TEST(ProcDriverVersion, OpenModule) {
  auto v = ParseProcDriverVersion(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
      "(dvs-builder@U16-I3-B03-4-3)  Thu Sep 25 18:00:00 UTC 2025\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version.ToString(), "580.95.05");
  EXPECT_TRUE(v->open_module);
  EXPECT_EQ(v->arch, "x86_64");
  EXPECT_EQ(v->gcc_version, "");
}

TEST(ProcDriverVersion, Aarch64AndThreeComponent) {
  auto v = ParseProcDriverVersion(
      "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  535.183.01  Release Build\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->arch, "aarch64");
  EXPECT_EQ(v->version.minor, 183);
}

TEST(ProcDriverVersion, Rejects) {
  EXPECT_FALSE(ParseProcDriverVersion(""));
  EXPECT_FALSE(ParseProcDriverVersion("GCC version: gcc 12\n"));
  EXPECT_FALSE(ParseProcDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  \n"));
}

TEST(LibraryName, VersionFromFileName) {
  EXPECT_EQ(
      DriverVersionFromLibraryName("libnvidia-ml.so.535.183.01", "libnvidia-ml.so")->ToString(),
      "535.183.01");
  EXPECT_EQ(DriverVersionFromLibraryName("libcuda.so.595.84", "libcuda.so")->ToString(), "595.84");
  EXPECT_FALSE(DriverVersionFromLibraryName("libnvidia-ml.so.1", "libnvidia-ml.so"));
  EXPECT_FALSE(DriverVersionFromLibraryName("libnvidia-ml.so", "libnvidia-ml.so"));
  EXPECT_FALSE(DriverVersionFromLibraryName("libcuda.so.535.183.01", "libnvidia-ml.so"));
  EXPECT_FALSE(DriverVersionFromLibraryName("libcudart.so.12.2.140", "libcuda.so"));
}

TEST(NvidiaParams, ValuesAndGspDecoding) {
  const char* params =
      "ResmanDebugLevel: 4294967295\n"
      "EnableGpuFirmware: 18\n"
      "EnableGpuFirmwareLogs: 2\n"
      "RegistryDwords: \"\"\n";
  EXPECT_EQ(ParseNvidiaParam(params, "EnableGpuFirmware"), 18u);
  EXPECT_EQ(ParseNvidiaParam(params, "EnableGpuFirmwareLogs"), 2u);
  EXPECT_FALSE(ParseNvidiaParam(params, "RegistryDwords"));
  EXPECT_FALSE(ParseNvidiaParam(params, "Missing"));
  EXPECT_EQ(ParseNvidiaParam("EnableGpuFirmware: 0x12", "EnableGpuFirmware"), 18u);

  const auto def = DecodeEnableGpuFirmware(18);
  EXPECT_EQ(def.mode, GspMode::kDefault);
  EXPECT_TRUE(def.allow_fallback);
  EXPECT_FALSE(def.default_on_ws_server);
  EXPECT_EQ(DecodeEnableGpuFirmware(0).mode, GspMode::kDisabled);
  EXPECT_FALSE(DecodeEnableGpuFirmware(0).allow_fallback);
  EXPECT_EQ(DecodeEnableGpuFirmware(1).mode, GspMode::kEnabled);
  EXPECT_EQ(DecodeEnableGpuFirmware(0x32).default_on_ws_server, true);
  EXPECT_EQ(DecodeEnableGpuFirmware(7).mode, GspMode::kUnknown);
  EXPECT_EQ(GspModeName(GspMode::kDisabled), "disabled");
}

TEST(LdSoConf, DirsAndIncludes) {
  const auto conf = ParseLdSoConf(
      "# comment\n"
      "include /etc/ld.so.conf.d/*.conf\n"
      "/usr/local/cuda-12.2/targets/x86_64-linux/lib  # trailing comment\n"
      "/opt/a:/opt/b,/opt/c\n"
      "hwcap 0 nosegneg\n"
      "\n");
  ASSERT_EQ(conf.includes.size(), 1u);
  EXPECT_EQ(conf.includes[0], "/etc/ld.so.conf.d/*.conf");
  ASSERT_EQ(conf.dirs.size(), 4u);
  EXPECT_EQ(conf.dirs[0], "/usr/local/cuda-12.2/targets/x86_64-linux/lib");
  EXPECT_EQ(conf.dirs[3], "/opt/c");
  EXPECT_EQ(SplitPathList("/a::/b:").size(), 2u);
}

}  // namespace
}  // namespace gpudoctor
