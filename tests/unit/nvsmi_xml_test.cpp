#include "parse/nvsmi_xml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/clock_reasons.h"
#include "support/fixtures.h"

namespace gpudoctor {
namespace nvsmi_xml_unit_local {

constexpr std::int64_t kMiB = 1024 * 1024;

std::filesystem::path XmlFixtureDir() { return test::FixtureDir("xml"); }

std::string ReadFixture(const std::string& name) { return test::ReadFixtureFile("xml", name); }

#define LOAD_FIXTURE_OR_SKIP(var, name)                           \
  std::string var##_text = ReadFixture(name);                     \
  if (var##_text.empty()) {                                       \
    GTEST_SKIP() << "fixture " << (XmlFixtureDir() / name)        \
                 << " not found (shared fixtures missing)";       \
  }                                                               \
  Result<SystemStatus> var = ParseNvidiaSmiXml(var##_text, name); \
  ASSERT_TRUE(var.ok()) << var.error().message;

TEST(NvsmiXml, Rtx3060Driver570SchemaV12) {
  LOAD_FIXTURE_OR_SKIP(doc, "telegraf-rtx3060-570.124.04-v12.xml");
  EXPECT_TRUE(doc->nvml_loaded);
  EXPECT_EQ(doc->driver_version, "570.124.04");
  EXPECT_EQ(doc->cuda_driver_version, 12080);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.index, 0u);
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 3060");
  EXPECT_EQ(g.uuid, "GPU-d6889ff6-2523-9142-ca3c-1ca3f396a625");
  EXPECT_EQ(g.pci_bus_id, "0000:2d:00.0");
  EXPECT_EQ(g.serial, std::nullopt);
  EXPECT_EQ(g.board_part_number, std::nullopt);
  EXPECT_EQ(g.vbios_version, "94.04.71.00.69");
  EXPECT_EQ(g.inforom_image_version, "G001.0000.03.03");
  EXPECT_EQ(g.memory_total_bytes, 12288 * kMiB);
  EXPECT_EQ(g.memory_reserved_bytes, 368 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 116 * kMiB);
  EXPECT_EQ(g.memory_free_bytes, 11806 * kMiB);
  EXPECT_EQ(g.utilization_gpu_percent, 0);
  EXPECT_EQ(g.temperature_c, 42);
  EXPECT_EQ(g.temperature_shutdown_c, 98);
  EXPECT_EQ(g.temperature_slowdown_c, 95);
  EXPECT_EQ(g.temperature_max_operating_c, 93);
  EXPECT_EQ(g.memory_temperature_c, std::nullopt);
  EXPECT_EQ(g.temperature_memory_max_c, std::nullopt);
  EXPECT_EQ(g.fan_speed_percent, 0);
  EXPECT_EQ(g.pstate, 8);
  EXPECT_EQ(g.clock_event_reasons_mask, ClockReasonBit("gpu_idle"));
  ASSERT_TRUE(g.power_draw_w);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 11.60);  // average, not instant 11.63
  EXPECT_EQ(g.power_limit_w, 170.0);
  EXPECT_EQ(g.power_default_limit_w, 170.0);
  EXPECT_EQ(g.power_min_limit_w, 100.0);
  EXPECT_EQ(g.power_max_limit_w, 190.0);
  EXPECT_EQ(g.power_enforced_limit_w, std::nullopt);
  EXPECT_EQ(g.clocks_graphics_mhz, 210);
  EXPECT_EQ(g.clocks_memory_mhz, 405);
  EXPECT_EQ(g.clocks_max_graphics_mhz, 2145);
  EXPECT_EQ(g.clocks_max_memory_mhz, 7501);
  EXPECT_EQ(g.clocks_applications_graphics_mhz, std::nullopt);
  EXPECT_EQ(g.pcie_link_gen_current, 1);
  EXPECT_EQ(g.pcie_link_gen_max, 4);
  EXPECT_EQ(g.pcie_link_width_current, 16);
  EXPECT_EQ(g.pcie_link_width_max, 16);
  EXPECT_EQ(g.pcie_tx_bytes_per_s, 550 * 1024);
  EXPECT_EQ(g.pcie_rx_bytes_per_s, 500 * 1024);
  EXPECT_EQ(g.pcie_replay_count, 0);
  EXPECT_EQ(g.persistence_mode, true);
  EXPECT_EQ(g.compute_mode, "Default");
  EXPECT_EQ(g.mig_mode_enabled, std::nullopt);
  EXPECT_EQ(g.ecc_mode_enabled, std::nullopt);
  EXPECT_EQ(g.ecc_volatile_corrected, std::nullopt);
  EXPECT_EQ(g.retired_pages_sbe, std::nullopt);
  EXPECT_EQ(g.remapped_rows_corrected, std::nullopt);
  ASSERT_TRUE(g.processes);
  EXPECT_TRUE(g.processes->empty());
}

TEST(NvsmiXml, TeslaV100Driver460OldEccSchemaAndProcesses) {
  LOAD_FIXTURE_OR_SKIP(doc, "datakit-tesla-v100-pcie-32gb-460.39-v11.xml");
  EXPECT_EQ(doc->cuda_driver_version, 11020);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.pci_bus_id, "0000:21:01.0");
  EXPECT_EQ(g.serial, "0324418086185");
  EXPECT_EQ(g.utilization_gpu_percent, 91);
  EXPECT_EQ(g.utilization_memory_percent, 47);
  EXPECT_EQ(g.memory_total_bytes, 32510 * kMiB);
  EXPECT_EQ(g.memory_reserved_bytes, std::nullopt);
  EXPECT_EQ(g.fan_speed_percent, std::nullopt);
  EXPECT_TRUE(g.fan_speeds_percent.empty());
  EXPECT_EQ(g.pstate, 0);
  EXPECT_EQ(g.clock_event_reasons_mask, 0u);
  EXPECT_EQ(g.power_draw_w, 170.16);
  EXPECT_EQ(g.power_limit_w, 250.0);
  EXPECT_EQ(g.power_enforced_limit_w, 250.0);
  EXPECT_EQ(g.memory_temperature_c, 65);
  EXPECT_EQ(g.temperature_memory_max_c, 85);
  EXPECT_EQ(g.clocks_applications_graphics_mhz, 1230);
  EXPECT_EQ(g.clocks_default_applications_memory_mhz, 877);
  EXPECT_EQ(g.pcie_tx_bytes_per_s, 63000 * 1024);
  EXPECT_EQ(g.persistence_mode, false);
  EXPECT_EQ(g.ecc_mode_enabled, true);
  EXPECT_EQ(g.ecc_mode_pending, true);
  EXPECT_EQ(g.ecc_volatile_corrected, 0);
  EXPECT_EQ(g.ecc_aggregate_uncorrected, 0);
  EXPECT_EQ(g.retired_pages_sbe, 0);
  EXPECT_EQ(g.retired_pages_dbe, 0);
  EXPECT_EQ(g.retired_pages_pending, false);
  EXPECT_EQ(g.remapped_rows_corrected, std::nullopt);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 4u);
  EXPECT_EQ((*g.processes)[0].pid, 4027538u);
  EXPECT_EQ((*g.processes)[0].name, "mtopen-plugin:worker");
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, 3214 * kMiB);
  EXPECT_EQ((*g.processes)[3].pid, 4165319u);
}

TEST(NvsmiXml, A100MigModeIgnoresMigDeviceSubtrees) {
  LOAD_FIXTURE_OR_SKIP(doc, "netdata-a100-sxm4-40gb-mig-510.47.03-v11.xml");
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.mig_mode_enabled, true);
  EXPECT_EQ(g.mig_mode_pending, true);
  EXPECT_EQ(g.power_draw_w, 66.92);
  EXPECT_EQ(g.power_limit_w, 400.0);
  EXPECT_EQ(g.memory_temperature_c, 44);
  EXPECT_EQ(g.ecc_volatile_corrected, std::nullopt);  // all N/A
  EXPECT_EQ(g.ecc_aggregate_corrected, 0);
  EXPECT_EQ(g.ecc_aggregate_uncorrected, 0);
}

TEST(NvsmiXml, QuadroP400Driver418WithoutDtd) {
  LOAD_FIXTURE_OR_SKIP(doc, "telegraf-quadro-p400-418.43-nodtd.xml");
  EXPECT_EQ(doc->driver_version, "418.43");
  EXPECT_EQ(doc->cuda_driver_version, 10010);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "Quadro P400");
  EXPECT_EQ(g.pci_bus_id, "0000:43:00.0");
  EXPECT_EQ(g.fan_speed_percent, 34);
  ASSERT_EQ(g.fan_speeds_percent.size(), 1u);
  EXPECT_EQ(g.memory_total_bytes, 1998 * kMiB);
  EXPECT_EQ(g.utilization_memory_percent, 3);
  EXPECT_EQ(g.power_draw_w, std::nullopt);
  EXPECT_EQ(g.power_limit_w, std::nullopt);
  EXPECT_EQ(g.temperature_c, 33);
  EXPECT_EQ(g.temperature_slowdown_c, 100);
  EXPECT_EQ(g.temperature_max_operating_c, std::nullopt);
  EXPECT_EQ(g.clock_event_reasons_mask, ClockReasonBit("gpu_idle"));
  EXPECT_EQ(g.clocks_applications_memory_mhz, 2005);
  EXPECT_EQ(g.retired_pages_pending, std::nullopt);
  EXPECT_EQ(g.mig_mode_enabled, std::nullopt);
}

TEST(NvsmiXml, DualA5000Driver590SchemaV13) {
  LOAD_FIXTURE_OR_SKIP(doc, "telegraf-dual-rtxa5000-590.44.01-v13.xml");
  EXPECT_EQ(doc->cuda_driver_version, 13010);
  ASSERT_EQ(doc->gpus.size(), 2u);
  const GpuStatus& g0 = doc->gpus[0];
  const GpuStatus& g1 = doc->gpus[1];
  EXPECT_EQ(g0.index, 0u);
  EXPECT_EQ(g1.index, 1u);
  EXPECT_EQ(g1.pci_bus_id, "0000:c1:00.0");
  EXPECT_EQ(g0.memory_reserved_bytes, 450 * kMiB);
  EXPECT_EQ(g0.memory_used_bytes, 22437 * kMiB);
  EXPECT_EQ(g0.violation_power_ns, 31637354094LL * 1000);
  EXPECT_EQ(g1.violation_power_ns, 31195898111LL * 1000);
  EXPECT_EQ(g0.power_draw_w, 6.41);
  EXPECT_EQ(g1.power_draw_w, 13.60);
  EXPECT_EQ(g0.power_limit_w, 230.0);
  EXPECT_EQ(g0.ecc_mode_enabled, false);
  EXPECT_EQ(g0.remapped_rows_corrected, 0);
  EXPECT_EQ(g0.remapped_rows_uncorrected, 0);
  EXPECT_EQ(g0.remapped_rows_pending, false);
  EXPECT_EQ(g0.remapped_rows_failure, false);
  EXPECT_EQ(g1.temperature_c, 15);
  ASSERT_TRUE(g1.processes);
  ASSERT_EQ(g1.processes->size(), 1u);
  EXPECT_EQ((*g1.processes)[0].name,
            "/root/src/llama.cpp/build/bin/llama-server");
  EXPECT_EQ((*g1.processes)[0].used_memory_bytes, 17246 * kMiB);
}

TEST(NvsmiXml, Rtx4090Driver535PowerDrawInGpuPowerReadings) {
  LOAD_FIXTURE_OR_SKIP(doc, "netdata-rtx4090-535.86.05-v12.xml");
  ASSERT_EQ(doc->gpus.size(), 1u);
  EXPECT_EQ(doc->gpus[0].power_draw_w, 26.84);
  EXPECT_EQ(doc->gpus[0].power_limit_w, 450.0);
  EXPECT_EQ(doc->gpus[0].power_max_limit_w, 600.0);
}

// The same in the XML form: a failed query's error string is a field error.
TEST(NvsmiXml, FailedQueriesAreFieldErrors) {
  const char* xml = R"(<?xml version="1.0" ?>
<nvidia_smi_log><driver_version>525.85.12</driver_version>
<gpu id="00000000:61:00.0"><product_name>Unknown Error</product_name>
<pci><pci_bus_id>00000000:61:00.0</pci_bus_id></pci>
<fan_speed>N/A</fan_speed><performance_state>Unknown Error</performance_state>
<utilization><gpu_util>Unknown Error</gpu_util></utilization>
<temperature><gpu_temp>GPU is lost</gpu_temp></temperature>
<gpu_power_readings><power_draw>[Unknown Error]</power_draw></gpu_power_readings>
</gpu></nvidia_smi_log>)";
  auto doc = ParseNvidiaSmiXml(xml, "wedged.xml");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const std::map<std::string, std::string> want = {
      {"name", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"},
      {"pstate", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"},
      {"utilization_gpu_percent", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"},
      {"temperature_c", "nvidia-smi: GPU is lost (NVML_ERROR_GPU_IS_LOST)"},
      {"power_draw_w", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"}};
  EXPECT_EQ(doc->gpus.at(0).field_errors, want);
  EXPECT_EQ(doc->gpus.at(0).state, GpuState::kLost);  // "GPU is lost" for the temperature
}

TEST(NvsmiXml, TruncatedDocumentsNeverCrash) {
  std::string text =
      ReadFixture("netdata-a100-sxm4-40gb-mig-510.47.03-v11.xml");
  if (text.empty()) GTEST_SKIP() << "shared fixtures missing";
  int errors = 0;
  for (std::size_t size = 0; size < text.size(); size += 61) {
    auto doc = ParseNvidiaSmiXml(std::string_view(text).substr(0, size), "cut");
    if (!doc.ok()) {
      EXPECT_EQ(doc.error().code, ErrorCode::kCorrupt);
      ++errors;
    }
  }
  // Every strict prefix lacks the closing </nvidia_smi_log>.
  EXPECT_EQ(errors, static_cast<int>((text.size() + 60) / 61));
}

TEST(NvsmiXml, EveryFixtureParses) {
  if (!std::filesystem::is_directory(XmlFixtureDir())) {
    GTEST_SKIP() << XmlFixtureDir() << " not found (shared fixtures missing)";
  }
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(XmlFixtureDir())) {
    if (entry.path().extension() != ".xml") continue;
    std::string text = ReadFixture(entry.path().filename().string());
    auto doc = ParseNvidiaSmiXml(text, entry.path().filename().string());
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    ASSERT_FALSE(doc->gpus.empty()) << entry.path();
    for (const GpuStatus& g : doc->gpus) {
      EXPECT_FALSE(g.name.empty()) << entry.path();
      EXPECT_FALSE(g.uuid.empty()) << entry.path();
      EXPECT_EQ(g.pci_bus_id.size(), 12u) << entry.path();
      EXPECT_TRUE(g.memory_total_bytes) << entry.path();
      EXPECT_TRUE(g.temperature_c) << entry.path();
      EXPECT_TRUE(g.pstate) << entry.path();
      EXPECT_TRUE(g.clock_event_reasons_mask) << entry.path();
    }
    ++files;
  }
  EXPECT_GE(files, 10);
}

}  // namespace nvsmi_xml_unit_local
}  // namespace gpudoctor
