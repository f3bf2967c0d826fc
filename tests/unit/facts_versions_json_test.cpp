#include "render/facts_versions_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "collect/versions.h"
#include "support/fake_service_state.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

TEST(FactsVersionsJson, WholeTreeFromFakeRoot) {
  test::TempDir root;
  root.Write(
      "proc/driver/nvidia/version",
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.183.01  Release Build\n");
  root.Write("proc/driver/nvidia/params", "EnableGpuFirmware: 18\n");
  root.Write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", "");
  root.Write("usr/local/cuda-12.2/version.json", R"({"cuda": {"version": "12.2.2"}})");
  root.Write("usr/lib/python3/dist-packages/torch/version.py",
             "__version__ = '2.4.0+cu124'\ncuda: Optional[str] = '12.4'\n");
  root.Write("sys/bus/pci/devices/0000:05:00.0/vendor", "0x10de\n");
  root.Write("sys/bus/pci/devices/0000:05:00.0/class", "0x068000\n");
  root.Write("var/lib/dpkg/status",
             "Package: nvidia-fabricmanager-535\nStatus: install ok installed\n"
             "Version: 535.183.01-1\n\n");
  test::FakeServiceStateReader services;
  VersionInputs inputs;
  inputs.services = &services;
  const VersionFacts facts = CollectVersionFacts(CollectContext{root.path()}, inputs);
  const nlohmann::ordered_json j = ToJson(facts);

  EXPECT_EQ(j["driver"]["kernel_module"]["version"], "535.183.01");
  EXPECT_EQ(j["driver"]["kernel_module"]["open_module"], true);
  EXPECT_EQ(j["driver"]["version_mismatch"], true);
  EXPECT_EQ(j["driver"]["user_space_libraries"][0]["matches_kernel_module"], false);
  EXPECT_EQ(j["driver"]["nvml_version"], nullptr);
  EXPECT_EQ(j["driver"]["gsp_firmware"]["mode"], "default");
  EXPECT_EQ(j["driver"]["gsp_firmware"]["enable_gpu_firmware_param"], 18);
  EXPECT_EQ(j["driver"]["persistence_daemon"]["running"], false);

  EXPECT_EQ(j["cuda"]["driver_max_cuda"], "12.2");
  EXPECT_EQ(j["cuda"]["toolkits"][0]["version"], "12.2.2");
  EXPECT_EQ(j["cuda"]["toolkits"][0]["on_driver"]["support"], "supported");
  EXPECT_EQ(j["cuda"]["nvcc"], nullptr);

  const auto& torch = j["frameworks"]["environments"][0]["frameworks"][0];
  EXPECT_EQ(torch["name"], "torch");
  EXPECT_EQ(torch["cuda_build"], "12.4");
  EXPECT_EQ(torch["on_driver"]["support"], "minor_compat_only");
  EXPECT_EQ(torch["on_driver"]["min_driver_native"], "550.54.14");
  EXPECT_EQ(torch["issues"][0]["id"], "minor_compat_only");

  EXPECT_EQ(j["fabric_manager"]["nvswitch_present"], true);
  EXPECT_EQ(j["fabric_manager"]["service"]["load_state"], "not-found");
  EXPECT_EQ(j["fabric_manager"]["version"], "535.183.01");
  EXPECT_EQ(j["fabric_manager"]["version_matches_driver"], true);
  EXPECT_EQ(j["fabric_manager"]["log"], nullptr);

  // Every source names itself and says why it is missing.
  for (const char* section : {"driver", "cuda", "frameworks", "fabric_manager"}) {
    ASSERT_TRUE(j[section]["sources"].is_array()) << section;
    for (const auto& s : j[section]["sources"]) {
      EXPECT_FALSE(s["source"].get<std::string>().empty());
      const bool available = s["available"].get<bool>();
      EXPECT_EQ(s.contains("why") && s["why"].is_string(), !available) << s.dump();
    }
  }
}

}  // namespace
}  // namespace gpudoctor
