#include "parse/nvsmi_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/clock_reasons.h"
#include "support/fixtures.h"
#include "support/nvsmi_610_header.h"

namespace gpudoctor {
namespace nvsmi_text_unit_local {

constexpr std::int64_t kMiB = 1024 * 1024;

std::filesystem::path TextFixtureDir() { return test::FixtureDir("text"); }

std::string ReadFixture(const std::string& name) { return test::ReadFixtureFile("text", name); }

std::uint64_t Bits(std::initializer_list<const char*> names) {
  std::uint64_t mask = 0;
  for (const char* name : names) mask |= ClockReasonBit(name);
  return mask;
}

#define LOAD_TEXT_OR_SKIP(var, name)                               \
  std::string var##_text = ReadFixture(name);                      \
  if (var##_text.empty()) {                                        \
    GTEST_SKIP() << "fixture " << (TextFixtureDir() / name)        \
                 << " not found (shared fixtures missing)";        \
  }                                                                \
  Result<SystemStatus> var = ParseNvidiaSmiText(var##_text, name); \
  ASSERT_TRUE(var.ok()) << var.error().message;                    \
  EXPECT_TRUE(LooksLikeNvidiaSmiText(std::string_view(var##_text).substr(0, 4096)))

TEST(NvsmiText, H100LoadDriver590WideLabels) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-h100-80gb-hbm3-590.48.01-load-q.txt");
  EXPECT_TRUE(doc->nvml_loaded);
  EXPECT_EQ(doc->driver_version, "590.48.01");
  EXPECT_EQ(doc->cuda_driver_version, 13010);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.index, 0u);
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.uuid, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(g.serial, "0000000000000");
  EXPECT_EQ(g.pci_bus_id, "0000:00:09.0");
  EXPECT_EQ(g.vbios_version, "96.00.A5.00.01");
  EXPECT_EQ(g.board_part_number, "692-2G520-0200-000");
  EXPECT_EQ(g.inforom_image_version, "G520.0200.00.05");
  EXPECT_EQ(g.persistence_mode, true);
  EXPECT_EQ(g.mig_mode_enabled, false);
  EXPECT_EQ(g.mig_mode_pending, false);
  EXPECT_EQ(g.pstate, 0);
  EXPECT_EQ(g.clock_event_reasons_mask, 0u);  // every reason "Not Active" under load
  EXPECT_EQ(g.violation_power_ns, 0);
  EXPECT_EQ(g.memory_total_bytes, 81559 * kMiB);
  EXPECT_EQ(g.memory_reserved_bytes, 479 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 19818 * kMiB);
  EXPECT_EQ(g.memory_free_bytes, 61263 * kMiB);
  EXPECT_EQ(g.utilization_gpu_percent, 100);
  EXPECT_EQ(g.utilization_memory_percent, 11);
  EXPECT_EQ(g.compute_mode, "Default");
  EXPECT_EQ(g.ecc_mode_enabled, true);
  EXPECT_EQ(g.ecc_mode_pending, true);
  EXPECT_EQ(g.ecc_volatile_corrected, 0);
  EXPECT_EQ(g.ecc_volatile_uncorrected, 0);
  EXPECT_EQ(g.ecc_aggregate_corrected, 0);
  EXPECT_EQ(g.ecc_aggregate_uncorrected, 0);
  EXPECT_FALSE(g.retired_pages_sbe);
  EXPECT_FALSE(g.retired_pages_dbe);
  EXPECT_FALSE(g.retired_pages_pending);
  EXPECT_EQ(g.remapped_rows_corrected, 0);
  EXPECT_EQ(g.remapped_rows_uncorrected, 0);
  EXPECT_EQ(g.remapped_rows_pending, false);
  EXPECT_EQ(g.remapped_rows_failure, false);
  EXPECT_EQ(g.temperature_c, 59);
  EXPECT_EQ(g.memory_temperature_c, 55);
  // Only T.Limit (relative) thresholds are printed: absolute ones stay null.
  EXPECT_FALSE(g.temperature_shutdown_c);
  EXPECT_FALSE(g.temperature_slowdown_c);
  // Average draw wins over the instantaneous one; "GPU Memory Power Readings"
  // (85.83 W) must not overwrite the GPU's.
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 629.45);
  EXPECT_DOUBLE_EQ(g.power_limit_w.value_or(0), 700.0);
  EXPECT_DOUBLE_EQ(g.power_default_limit_w.value_or(0), 700.0);
  EXPECT_DOUBLE_EQ(g.power_min_limit_w.value_or(0), 200.0);
  EXPECT_DOUBLE_EQ(g.power_max_limit_w.value_or(0), 700.0);
  EXPECT_FALSE(g.power_enforced_limit_w);
  EXPECT_EQ(g.clocks_graphics_mhz, 1980);
  EXPECT_EQ(g.clocks_sm_mhz, 1980);
  EXPECT_EQ(g.clocks_memory_mhz, 2619);
  EXPECT_EQ(g.clocks_max_graphics_mhz, 1980);
  EXPECT_EQ(g.clocks_max_memory_mhz, 2619);
  EXPECT_FALSE(g.clocks_applications_graphics_mhz);  // "...has been deprecated"
  EXPECT_FALSE(g.clocks_default_applications_memory_mhz);
  EXPECT_EQ(g.pcie_link_gen_max, 5);
  EXPECT_EQ(g.pcie_link_gen_current, 5);
  EXPECT_EQ(g.pcie_link_width_max, 16);
  EXPECT_EQ(g.pcie_link_width_current, 16);
  EXPECT_EQ(g.pcie_replay_count, 9);
  EXPECT_EQ(g.pcie_tx_bytes_per_s, 3092 * 1024);
  EXPECT_EQ(g.pcie_rx_bytes_per_s, 6346 * 1024);
  EXPECT_FALSE(g.fan_speed_percent);
  EXPECT_TRUE(g.fan_speeds_percent.empty());
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 3u);
  EXPECT_EQ((*g.processes)[0].pid, 11327u);
  EXPECT_EQ((*g.processes)[0].name, "/root/tools/memhog");
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, 2566 * kMiB);
  EXPECT_EQ((*g.processes)[2].pid, 11345u);
  EXPECT_EQ((*g.processes)[2].name, "./gpu_burn");
  EXPECT_EQ((*g.processes)[2].used_memory_bytes, 15690 * kMiB);
}

TEST(NvsmiText, H100IdleDriver590) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-h100-80gb-hbm3-590.48.01-idle-q.txt");
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.clock_event_reasons_mask, Bits({"gpu_idle"}));
  EXPECT_EQ(g.temperature_c, 41);
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 69.85);
  EXPECT_EQ(g.clocks_graphics_mhz, 345);
  ASSERT_TRUE(g.processes);  // "Processes : None" is an empty list
  EXPECT_TRUE(g.processes->empty());
}

TEST(NvsmiText, H100x8Driver535ReplaysAndPowerBrake) {
  LOAD_TEXT_OR_SKIP(doc, "gpud-h100x8-535.183.01-q-replays.txt");
  EXPECT_EQ(doc->driver_version, "535.183.01");
  EXPECT_EQ(doc->cuda_driver_version, 12020);
  ASSERT_EQ(doc->gpus.size(), 8u);
  const std::vector<std::int64_t> replays = {120, 111, 58, 60, 63, 93, 69, 78};
  const std::vector<std::string> buses = {"0000:53:00.0", "0000:64:00.0", "0000:75:00.0",
                                          "0000:86:00.0", "0000:97:00.0", "0000:a8:00.0",
                                          "0000:b9:00.0", "0000:ca:00.0"};
  int power_brake = 0;
  for (std::size_t i = 0; i < doc->gpus.size(); ++i) {
    const GpuStatus& g = doc->gpus[i];
    EXPECT_EQ(g.index, i);
    EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(g.pci_bus_id, buses[i]);
    EXPECT_EQ(g.pcie_replay_count, replays[i]) << "GPU " << i;
    ASSERT_TRUE(g.clock_event_reasons_mask);
    if (*g.clock_event_reasons_mask & ClockReasonBit("hw_power_brake_slowdown")) ++power_brake;
  }
  EXPECT_EQ(power_brake, 1);
  const GpuStatus& g0 = doc->gpus[0];
  EXPECT_EQ(g0.serial, "1655022005478");
  EXPECT_EQ(g0.uuid, "GPU-566e6f65-c38e-b12f-4824-6944218668b9");
  EXPECT_EQ(g0.clock_event_reasons_mask, Bits({"gpu_idle"}));
  EXPECT_DOUBLE_EQ(g0.power_draw_w.value_or(0), 71.97);  // "Power Draw" (535)
  EXPECT_EQ(g0.temperature_c, 36);
  EXPECT_EQ(g0.memory_temperature_c, 44);
  EXPECT_EQ(g0.clocks_applications_graphics_mhz, 1980);
  EXPECT_EQ(g0.clocks_default_applications_memory_mhz, 2619);
  EXPECT_EQ(g0.clocks_max_sm_mhz, 1980);
  EXPECT_EQ(g0.clocks_sm_mhz, 345);
  EXPECT_EQ(g0.pcie_tx_bytes_per_s, 632 * 1024);
  EXPECT_EQ(g0.memory_reserved_bytes, 551 * kMiB);
  ASSERT_TRUE(g0.processes);
  EXPECT_TRUE(g0.processes->empty());
  const GpuStatus& g2 = doc->gpus[2];
  EXPECT_EQ(g2.clock_event_reasons_mask,
            Bits({"sw_power_cap", "hw_power_brake_slowdown", "sw_thermal_slowdown"}));
}

TEST(NvsmiText, Rtx4090x8Driver535SwPowerCapOnTwoGpus) {
  LOAD_TEXT_OR_SKIP(doc, "gpud-rtx4090x8-535.154.05-q-sw-power-cap.txt");
  ASSERT_EQ(doc->gpus.size(), 8u);
  std::vector<std::string> capped;
  for (const GpuStatus& g : doc->gpus) {
    EXPECT_EQ(g.name, "NVIDIA GeForce RTX 4090");
    ASSERT_TRUE(g.clock_event_reasons_mask);
    if (*g.clock_event_reasons_mask & ClockReasonBit("sw_power_cap"))
      capped.push_back(g.pci_bus_id);
  }
  EXPECT_EQ(capped, (std::vector<std::string>{"0000:23:00.0", "0000:81:00.0"}));
  const GpuStatus& g0 = doc->gpus[0];
  EXPECT_FALSE(g0.serial);  // "N/A"
  EXPECT_EQ(g0.uuid, "GPU-370465f5-30e0-6877-b85c-16729f41b90f");
  EXPECT_EQ(g0.temperature_c, 30);
  EXPECT_DOUBLE_EQ(g0.power_draw_w.value_or(0), 18.90);
  EXPECT_DOUBLE_EQ(g0.power_limit_w.value_or(0), 450.0);  // not the module's N/A
  EXPECT_EQ(g0.fan_speed_percent, 0);
  EXPECT_EQ(doc->gpus[1].fan_speed_percent, 86);
  EXPECT_EQ(doc->gpus[1].fan_speeds_percent, (std::vector<std::int64_t>{86}));
}

TEST(NvsmiText, TitanVDriver560OldEccLayoutAndProcesses) {
  LOAD_TEXT_OR_SKIP(doc, "gpud-titanv-560.35.03-q.txt");
  EXPECT_EQ(doc->cuda_driver_version, 12060);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA TITAN V");
  EXPECT_EQ(g.pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(g.persistence_mode, false);
  EXPECT_EQ(g.pstate, 8);
  EXPECT_EQ(g.fan_speed_percent, 30);
  EXPECT_EQ(g.memory_total_bytes, 12288 * kMiB);  // not BAR1's 256 MiB
  EXPECT_EQ(g.temperature_c, 44);
  EXPECT_EQ(g.temperature_shutdown_c, 100);
  EXPECT_EQ(g.temperature_slowdown_c, 97);
  EXPECT_EQ(g.temperature_max_operating_c, 91);
  EXPECT_EQ(g.memory_temperature_c, 41);
  EXPECT_EQ(g.temperature_memory_max_c, 95);
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 29.02);
  EXPECT_DOUBLE_EQ(g.power_max_limit_w.value_or(0), 300.0);
  EXPECT_EQ(g.clocks_graphics_mhz, 135);
  EXPECT_EQ(g.clocks_max_graphics_mhz, 1912);
  EXPECT_EQ(g.clocks_applications_graphics_mhz, 1200);
  EXPECT_EQ(g.pcie_link_gen_current, 1);
  // ECC mode N/A and every Single/Double Bit counter N/A: all null.
  EXPECT_FALSE(g.ecc_mode_enabled);
  EXPECT_FALSE(g.ecc_volatile_corrected);
  EXPECT_FALSE(g.ecc_volatile_uncorrected);
  EXPECT_FALSE(g.ecc_aggregate_corrected);
  EXPECT_FALSE(g.ecc_aggregate_uncorrected);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 3u);
  EXPECT_EQ((*g.processes)[0].pid, 100607u);
  EXPECT_EQ((*g.processes)[0].name, "/usr/lib/xorg/Xorg");
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, 142 * kMiB);
  EXPECT_EQ((*g.processes)[2].used_memory_bytes, 111 * kMiB);
}

TEST(NvsmiText, L40sDriver595LoadPowerCapCounter) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-l40s-595.80-load-q.txt");
  EXPECT_EQ(doc->driver_version, "595.80");
  EXPECT_EQ(doc->cuda_driver_version, 13020);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA L40S");
  EXPECT_EQ(g.violation_power_ns, 204642816LL * 1000);
  EXPECT_EQ(g.memory_total_bytes, 46068 * kMiB);
  EXPECT_EQ(g.utilization_gpu_percent, 9);
  EXPECT_EQ(g.utilization_memory_percent, 2);
  EXPECT_EQ(g.ecc_mode_pending, true);
  EXPECT_EQ(g.ecc_aggregate_uncorrected, 0);
  EXPECT_EQ(g.remapped_rows_corrected, 0);  // not "Inactive Correctable Error"
  EXPECT_EQ(g.remapped_rows_pending, false);
  EXPECT_EQ(g.temperature_c, 54);
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 110.24);
  EXPECT_DOUBLE_EQ(g.power_limit_w.value_or(0), 350.0);
  EXPECT_EQ(g.pcie_link_gen_current, 4);
  EXPECT_EQ(g.clocks_max_memory_mhz, 9001);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 2u);
  EXPECT_EQ((*g.processes)[0].pid, 20037u);
  EXPECT_EQ((*g.processes)[0].name, "ffmpeg");
  EXPECT_EQ((*g.processes)[1].used_memory_bytes, 681 * kMiB);
}

TEST(NvsmiText, Rtx2080SuperWindowsDriver591) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-rtx2080super-windows-591.86-idle-q.txt");
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 2080 SUPER");
  EXPECT_EQ(g.pci_bus_id, "0000:0c:00.0");
  EXPECT_EQ(g.fan_speed_percent, 38);
  EXPECT_EQ(g.pstate, 8);
  EXPECT_EQ(g.clock_event_reasons_mask, Bits({"gpu_idle"}));
  EXPECT_EQ(g.violation_power_ns, 5450731221LL * 1000);
  EXPECT_EQ(g.memory_total_bytes, 8192 * kMiB);
  EXPECT_EQ(g.temperature_c, 40);
  // Average draw N/A on this card: the instantaneous one is used.
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 38.92);
  EXPECT_DOUBLE_EQ(g.power_min_limit_w.value_or(0), 105.0);
  EXPECT_EQ(g.clocks_graphics_mhz, 300);
  EXPECT_EQ(g.clocks_max_graphics_mhz, 2145);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 10u);
  EXPECT_EQ((*g.processes)[0].pid, 2056u);
  EXPECT_EQ((*g.processes)[0].name, "C:\\Windows\\System32\\dwm.exe");
  EXPECT_FALSE((*g.processes)[0].used_memory_bytes);  // "Not available in WDDM driver model"
  EXPECT_EQ((*g.processes)[9].pid, 24804u);
}

TEST(NvsmiText, Rtx4080SuperDriver595ConsumerCard) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-rtx4080super-595.71.05-idle-q.txt");
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 4080 SUPER");
  EXPECT_EQ(g.fan_speed_percent, 0);
  EXPECT_EQ(g.memory_total_bytes, 16376 * kMiB);
  EXPECT_FALSE(g.ecc_mode_enabled);
  EXPECT_FALSE(g.ecc_volatile_corrected);
  EXPECT_FALSE(g.remapped_rows_pending);
  EXPECT_EQ(g.temperature_c, 43);
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 25.92);
  EXPECT_DOUBLE_EQ(g.power_limit_w.value_or(0), 320.0);
  EXPECT_EQ(g.clocks_max_graphics_mhz, 3165);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 5u);
  EXPECT_EQ((*g.processes)[3].pid, 2954u);
  EXPECT_EQ((*g.processes)[3].used_memory_bytes, 120 * kMiB);
}

TEST(NvsmiText, H100MigBlocksDoNotOverwriteGpuValues) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-h100-mig-590.48.01-idle-q.txt");
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.mig_mode_enabled, true);
  EXPECT_EQ(g.mig_mode_pending, true);
  EXPECT_EQ(g.memory_total_bytes, 81559 * kMiB);  // not the last instance's 9984 MiB
  EXPECT_EQ(g.memory_reserved_bytes, 479 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 59 * kMiB);
  EXPECT_EQ(g.memory_free_bytes, 81022 * kMiB);
  EXPECT_EQ(g.ecc_volatile_uncorrected, 0);
  EXPECT_EQ(g.serial, "0000000000000");
  EXPECT_EQ(g.pci_bus_id, "0000:00:09.0");
}

TEST(NvsmiText, H200MigDriver590) {
  LOAD_TEXT_OR_SKIP(doc, "gpuexporter-h200-mig-590.48.01-idle-q.txt");
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA H200");
  EXPECT_EQ(g.pci_bus_id, "0000:83:00.0");
  EXPECT_EQ(g.mig_mode_enabled, true);
  EXPECT_EQ(g.memory_total_bytes, 143771 * kMiB);
  EXPECT_EQ(g.memory_reserved_bytes, 614 * kMiB);
  EXPECT_EQ(g.memory_used_bytes, 55 * kMiB);
  EXPECT_EQ(g.clock_event_reasons_mask, Bits({"gpu_idle"}));
  EXPECT_EQ(g.temperature_c, 28);
}

TEST(NvsmiText, EccRowRemapperSectionsOnlyWithHandMarker) {
  LOAD_TEXT_OR_SKIP(doc, "ecc-howto-doc-nvidia-smi-q-d-ECC-ROW_REMAPPER-550.90.07-pending.txt");
  EXPECT_EQ(doc->driver_version, "550.90.07");
  EXPECT_EQ(doc->cuda_driver_version, 12040);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.pci_bus_id, "0000:52:00.0");
  EXPECT_TRUE(g.name.empty());
  EXPECT_FALSE(g.ecc_mode_enabled);  // "Unknown Error"
  EXPECT_FALSE(g.ecc_mode_pending);
  EXPECT_FALSE(g.ecc_volatile_corrected);  // all N/A
  EXPECT_FALSE(g.ecc_volatile_uncorrected);
  EXPECT_FALSE(g.ecc_aggregate_corrected);
  EXPECT_FALSE(g.ecc_aggregate_uncorrected);
  EXPECT_EQ(g.remapped_rows_corrected, 0);
  EXPECT_EQ(g.remapped_rows_uncorrected, 1);
  EXPECT_EQ(g.remapped_rows_pending, true);  // "Yes   <===" (author's marker)
  EXPECT_EQ(g.remapped_rows_failure, false);
  EXPECT_FALSE(g.temperature_c);
  EXPECT_FALSE(g.processes);
}

TEST(NvsmiText, A100ExcerptWithElisions) {
  LOAD_TEXT_OR_SKIP(doc, "mlengineering-a100-sxm4-80gb-510.73.08-q-excerpt-ecc-remapped-rows.txt");
  EXPECT_EQ(doc->driver_version, "510.73.08");
  EXPECT_EQ(doc->cuda_driver_version, 11060);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g.pci_bus_id, "0000:10:1c.0");
  EXPECT_EQ(g.ecc_volatile_corrected, 177);
  EXPECT_EQ(g.ecc_volatile_uncorrected, 0);
  EXPECT_EQ(g.ecc_aggregate_corrected, 177);
  EXPECT_EQ(g.ecc_aggregate_uncorrected, 0);
  EXPECT_FALSE(g.retired_pages_sbe);
  EXPECT_FALSE(g.retired_pages_pending);
  EXPECT_EQ(g.remapped_rows_corrected, 1);
  EXPECT_EQ(g.remapped_rows_uncorrected, 0);
  EXPECT_EQ(g.remapped_rows_pending, true);
  EXPECT_EQ(g.remapped_rows_failure, false);
}

TEST(NvsmiText, SramUncorrectableFragmentWithoutHeader) {
  LOAD_TEXT_OR_SKIP(doc, "mlengineering-q-ecc-errors-sram-uncorrectable-excerpt.txt");
  EXPECT_FALSE(doc->driver_version);
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_TRUE(g.pci_bus_id.empty());
  EXPECT_EQ(g.ecc_volatile_corrected, 0);
  EXPECT_EQ(g.ecc_volatile_uncorrected, 1);
  EXPECT_EQ(g.ecc_aggregate_corrected, 0);
  EXPECT_EQ(g.ecc_aggregate_uncorrected, 5);
}

// 610's header (support/nvsmi_610_header.h) on a real 595 dump.
TEST(NvsmiText, Driver610HeaderGivesTheDumpsGpusAndTheCleanVersion) {
  std::string q595 = ReadFixture("gpuexporter-rtx4080super-595.71.05-idle-q.txt");
  if (q595.empty()) GTEST_SKIP() << "shared fixtures missing";
  std::string text = test::With610Header(q595);
  ASSERT_FALSE(text.empty());
  auto doc = ParseNvidiaSmiText(text, "610.txt");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->driver_version, "610.57.04");
  EXPECT_EQ(doc->cuda_driver_version, 13030);
  ASSERT_EQ(doc->gpus.size(), 1u);  // no phantom GPU without a bus id
  EXPECT_EQ(doc->gpus[0].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(doc->gpus[0].index, 0u);

  // Only the deprecated lines (a 610 dump cut short): their clean values.
  auto deprecated_only = ParseNvidiaSmiText(
      "Driver Version : 610.57.04 [Deprecated; will be removed in CUDA 14.0. Use KMD Version "
      "instead]\nCUDA Version : 13.3 [Deprecated; will be removed in CUDA 14.0. Use CUDA UMD "
      "Version instead]\nGPU 00000000:0C:00.0\n    Product Name : NVIDIA GeForce RTX 2080 SUPER\n",
      "cut.txt");
  ASSERT_TRUE(deprecated_only.ok());
  EXPECT_EQ(deprecated_only->driver_version, "610.57.04");
  EXPECT_EQ(deprecated_only->cuda_driver_version, 13030);
  ASSERT_EQ(deprecated_only->gpus.size(), 1u);
}

// A top-level line no parser knows above the first GPU block opens no GPU.
TEST(NvsmiText, UnknownTopLevelLineAboveTheGpusIsNoGpu) {
  auto doc = ParseNvidiaSmiText(
      "Driver Version : 595.71.05\nSome Future Version : 1.2\nGPU 00000000:01:00.0\n"
      "    Product Name : NVIDIA GeForce RTX 4080 SUPER\n",
      "future.txt");
  ASSERT_TRUE(doc.ok());
  ASSERT_EQ(doc->gpus.size(), 1u);
  EXPECT_EQ(doc->gpus[0].pci_bus_id, "0000:01:00.0");
}

TEST(NvsmiText, EveryFixtureParsesAndEveryTruncationIsSafe) {
  std::error_code ec;
  if (!std::filesystem::is_directory(TextFixtureDir(), ec)) {
    GTEST_SKIP() << "fixture folder " << TextFixtureDir() << " not found (shared fixtures missing)";
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TextFixtureDir())) {
    std::string name = entry.path().filename().string();
    std::string text = ReadFixture(name);
    ++files;
    Result<SystemStatus> doc = ParseNvidiaSmiText(text, name);
    ASSERT_TRUE(doc.ok()) << name << ": " << doc.error().message;
    EXPECT_FALSE(doc->gpus.empty()) << name;
    // Cut anywhere: never crash, never more GPUs than the whole text.
    const std::size_t step = std::max<std::size_t>(97, text.size() / 150);
    for (std::size_t cut = 0; cut < text.size(); cut += step) {
      Result<SystemStatus> part = ParseNvidiaSmiText(std::string_view(text).substr(0, cut), name);
      if (part.ok()) {
        EXPECT_LE(part->gpus.size(), doc->gpus.size()) << name << " cut " << cut;
      }
    }
  }
  EXPECT_GE(files, 13);
}

// Hand-written: what the fixtures do not show.
TEST(NvsmiText, InlineMigEccAndOldEccTotals) {
  const char* text =
      "Driver Version : 470.57.02\n"
      "GPU 0000:3B:00.0\n"
      "    Product Name : A100\n"
      "    MIG Devices\n"
      "        MIG Device\n"
      "            ECC Errors\n"
      "                Volatile\n"
      "                    SRAM Uncorrectable : 7\n"
      "            FB Memory Usage\n"
      "                Total : 4864 MiB\n"
      "    FB Memory Usage\n"
      "        Total : 40536 MiB\n"
      "    ECC Errors\n"
      "        Volatile\n"
      "            Single Bit\n"
      "                Device Memory : 2\n"
      "                Register File : 1\n"
      "                Total : N/A\n"
      "            Double Bit\n"
      "                Device Memory : 0\n"
      "                Total : 4\n"
      "    Clocks Throttle Reasons\n"
      "        Idle : Not Active\n"
      "        HW Slowdown : Active\n"
      "            HW Thermal Slowdown : Active\n"
      "    Power Readings\n"
      "        Power Draw : 60.50 W\n"
      "        Power Limit : 400.00 W\n"
      "        Enforced Power Limit : 350.00 W\n"
      "    Clocks\n"
      "        Graphics : 210 MHz\n"
      "    Max Clocks\n"
      "        Graphics : 1410 MHz\n"
      "    PCI\n"
      "        Replay Number : 3\n"
      "    Compute Mode : Exclusive_Process\n"
      "    Retired Pages\n"
      "        Single Bit ECC : 2\n"
      "        Double Bit ECC : 1\n"
      "        Pending : Yes\n";
  Result<SystemStatus> doc = ParseNvidiaSmiText(text, "inline");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_EQ(g.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(g.memory_total_bytes, 40536 * kMiB);
  EXPECT_EQ(g.ecc_volatile_corrected, 3);    // Total N/A: sum of the locations
  EXPECT_EQ(g.ecc_volatile_uncorrected, 4);  // Total; the MIG instance's 7 ignored
  EXPECT_FALSE(g.ecc_aggregate_corrected);
  EXPECT_EQ(g.clock_event_reasons_mask, Bits({"hw_slowdown", "hw_thermal_slowdown"}));
  EXPECT_DOUBLE_EQ(g.power_draw_w.value_or(0), 60.5);
  EXPECT_DOUBLE_EQ(g.power_limit_w.value_or(0), 400.0);
  EXPECT_DOUBLE_EQ(g.power_enforced_limit_w.value_or(0), 350.0);
  EXPECT_EQ(g.clocks_graphics_mhz, 210);
  EXPECT_EQ(g.clocks_max_graphics_mhz, 1410);
  EXPECT_EQ(g.pcie_replay_count, 3);
  EXPECT_EQ(g.compute_mode, "Exclusive_Process");
  EXPECT_EQ(g.retired_pages_sbe, 2);
  EXPECT_EQ(g.retired_pages_dbe, 1);
  EXPECT_EQ(g.retired_pages_pending, true);
  EXPECT_FALSE(g.processes);
}

TEST(NvsmiText, CrLfLineEnds) {
  Result<SystemStatus> doc = ParseNvidiaSmiText(
      "Driver Version : 591.86\r\nGPU 00000000:0C:00.0\r\n"
      "    Fan Speed : 38 %\r\n",
      "crlf");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->driver_version, "591.86");
  ASSERT_EQ(doc->gpus.size(), 1u);
  EXPECT_EQ(doc->gpus[0].fan_speed_percent, 38);
}

TEST(NvsmiText, GarbageIsCorrupt) {
  for (std::string_view bad : {std::string_view(""), std::string_view("  \n\n"),
                               std::string_view("hello world\nthis is not it\n"),
                               std::string_view("foo : bar\n    baz : 1\n"),
                               std::string_view("<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n"),
                               std::string_view("Driver Version : 1\0\x01", 20)}) {
    Result<SystemStatus> doc = ParseNvidiaSmiText(bad, "junk.txt");
    ASSERT_FALSE(doc.ok()) << "accepted: " << bad;
    EXPECT_EQ(doc.error().code, ErrorCode::kCorrupt);
    EXPECT_EQ(doc.error().message.rfind("junk.txt: not nvidia-smi -q output: ", 0), 0u)
        << doc.error().message;
    EXPECT_FALSE(LooksLikeNvidiaSmiText(bad));
  }
}

TEST(NvsmiText, MalformedValuesStayNull) {
  const char* text =
      "GPU 00000000:01:00.0\n"
      "    Fan Speed : 99999999999999999999999 %\n"
      "    Performance State : P99\n"
      "    FB Memory Usage\n"
      "        Total : -5 MiB\n"
      "        Used : lots\n"
      "    PCI\n"
      "        Replays Since Reset : 12abc\n"
      "    Processes\n"
      "        Process ID : -1\n"
      "            Name : ghost\n"
      "        Process ID : 99999999999\n"
      "        Process ID : 42\n"
      "            Used GPU Memory : 1 MiB\n"
      "    Clocks Event Reasons\n"
      "        SW Power Cap : maybe\n"
      "    Temperature\n"
      "        GPU Current Temp :\n";
  Result<SystemStatus> doc = ParseNvidiaSmiText(text, "bad-values");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->gpus.size(), 1u);
  const GpuStatus& g = doc->gpus[0];
  EXPECT_FALSE(g.fan_speed_percent);
  EXPECT_FALSE(g.pstate);
  EXPECT_FALSE(g.memory_used_bytes);
  EXPECT_FALSE(g.pcie_replay_count);
  EXPECT_FALSE(g.clock_event_reasons_mask);
  EXPECT_FALSE(g.temperature_c);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 1u);
  EXPECT_EQ((*g.processes)[0].pid, 42u);
  EXPECT_TRUE((*g.processes)[0].name.empty());
  EXPECT_EQ((*g.processes)[0].used_memory_bytes, kMiB);
}

// A wedged GPU: most queries print NVML's error string. Each becomes a field
// error under its status --json name (the rules count them); "N/A" does not.
TEST(NvsmiText, FailedQueriesAreFieldErrors) {
  const char* text =
      "GPU 00000000:61:00.0\n"
      "    Product Name : Unknown Error\n"
      "    Fan Speed : ERR!\n"
      "    Performance State : [GPU requires reset]\n"
      "    Utilization\n"
      "        Gpu : GPU is lost\n"
      "        Memory : N/A\n"
      "    Temperature\n"
      "        GPU Current Temp : Unknown Error\n"
      "    GPU Power Readings\n"
      "        Power Draw : Unknown Error\n"
      "    ECC Mode\n"
      "        Current : Unknown Error\n"
      "    Persistence Mode : Insufficient Permissions\n"
      "    Serial Number : Unknown Error\n";  // a static fact: not counted
  Result<SystemStatus> doc = ParseNvidiaSmiText(text, "wedged");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const GpuStatus& g = doc->gpus.at(0);
  const std::map<std::string, std::string> want = {
      {"name", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"},
      {"fan_speed_percent", "nvidia-smi: ERR!"},
      {"pstate", "nvidia-smi: GPU requires reset (NVML_ERROR_RESET_REQUIRED)"},
      {"utilization_gpu_percent", "nvidia-smi: GPU is lost (NVML_ERROR_GPU_IS_LOST)"},
      {"temperature_c", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"},
      {"power_draw_w", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"},
      {"ecc_mode_enabled", "nvidia-smi: Unknown Error (NVML_ERROR_UNKNOWN)"}};
  EXPECT_EQ(g.field_errors, want);
  EXPECT_FALSE(g.temperature_c || g.pstate || g.power_draw_w || g.fan_speed_percent);
  // "GPU is lost" makes the GPU lost, not merely wedged.
  EXPECT_EQ(g.state, GpuState::kLost);
  EXPECT_EQ(g.state_detail, "nvidia-smi printed \"GPU is lost\" for utilization_gpu_percent");
  auto wedged = ParseNvidiaSmiText(
      "GPU 00000000:61:00.0\n    Fan Speed : Unknown Error\n    Performance State : P0\n", "w");
  ASSERT_TRUE(wedged.ok());
  EXPECT_EQ(wedged->gpus.at(0).state, GpuState::kOk);
}

TEST(NvsmiText, LooksLike) {
  EXPECT_TRUE(LooksLikeNvidiaSmiText("\n==============NVSMI LOG==============\n"));
  EXPECT_TRUE(LooksLikeNvidiaSmiText("GPU 00000000:3B:00.0\n    Product Name : X\n"));
  EXPECT_TRUE(LooksLikeNvidiaSmiText("Driver Version                            : 535.1\n"));
  EXPECT_FALSE(LooksLikeNvidiaSmiText("GPU 0: NVIDIA A100 (UUID: GPU-1)\n"));
  EXPECT_FALSE(LooksLikeNvidiaSmiText("[  1.0] NVRM: Xid 79\n"));
}

}  // namespace nvsmi_text_unit_local
}  // namespace gpudoctor
