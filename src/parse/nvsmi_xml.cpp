#include "parse/nvsmi_xml.h"

#include <fmt/format.h>

#include <pugixml.hpp>

#include "parse/nvsmi_values.h"
#include "parse/nvsmi_xml_sections.h"

namespace gpudoctor {
namespace {

using nvsmi::ValueAt;

Error NotNvsmi(std::string_view source_name, std::string_view why) {
  return Error{ErrorCode::kCorrupt,
               fmt::format("{}: not an nvidia-smi -q -x document: {}",
                           source_name, why)};
}

void ParseIdentity(pugi::xml_node gpu, GpuStatus& out) {
  out.name = nvsmi::ParseText(ValueAt(gpu, "product_name")).value_or("");
  out.uuid = nvsmi::ParseText(ValueAt(gpu, "uuid")).value_or("");
  out.serial = nvsmi::ParseText(ValueAt(gpu, "serial"));
  out.board_part_number = nvsmi::ParseText(ValueAt(gpu, "board_part_number"));
  out.vbios_version = nvsmi::ParseText(ValueAt(gpu, "vbios_version"));
  out.inforom_image_version =
      nvsmi::ParseText(ValueAt(gpu, "inforom_version/img_version"));
  // nvidia-smi prints a GSP version only when GSP firmware runs.
  out.gsp_firmware_version = nvsmi::ParseText(ValueAt(gpu, "gsp_firmware_version"));
  if (out.gsp_firmware_version) out.gsp_firmware_enabled = true;
  std::string bus_id =
      NormalizePciBusId(std::string(ValueAt(gpu, "pci/pci_bus_id")));
  if (bus_id.empty()) bus_id = NormalizePciBusId(gpu.attribute("id").value());
  out.pci_bus_id = bus_id;
}

void ParsePci(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node pci = gpu.child("pci");
  pugi::xml_node link = pci.child("pci_gpu_link_info");
  out.pcie_link_gen_max =
      nvsmi::ParseInteger(ValueAt(link, "pcie_gen/max_link_gen"));
  out.pcie_link_gen_current =
      nvsmi::ParseInteger(ValueAt(link, "pcie_gen/current_link_gen"));
  out.pcie_link_width_max =
      nvsmi::ParseLinkWidth(ValueAt(link, "link_widths/max_link_width"));
  out.pcie_link_width_current =
      nvsmi::ParseLinkWidth(ValueAt(link, "link_widths/current_link_width"));
  out.pcie_tx_bytes_per_s =
      nvsmi::ParseKilobytesPerSecond(ValueAt(pci, "tx_util"));
  out.pcie_rx_bytes_per_s =
      nvsmi::ParseKilobytesPerSecond(ValueAt(pci, "rx_util"));
  out.pcie_replay_count = nvsmi::ParseInteger(ValueAt(pci, "replay_counter"));
}

void ParseUsage(pugi::xml_node gpu, GpuStatus& out) {
  out.utilization_gpu_percent =
      nvsmi::ParsePercent(ValueAt(gpu, "utilization/gpu_util"));
  out.utilization_memory_percent =
      nvsmi::ParsePercent(ValueAt(gpu, "utilization/memory_util"));
  pugi::xml_node fb = gpu.child("fb_memory_usage");
  out.memory_total_bytes = nvsmi::ParseMemoryBytes(ValueAt(fb, "total"));
  out.memory_used_bytes = nvsmi::ParseMemoryBytes(ValueAt(fb, "used"));
  out.memory_free_bytes = nvsmi::ParseMemoryBytes(ValueAt(fb, "free"));
  out.memory_reserved_bytes = nvsmi::ParseMemoryBytes(ValueAt(fb, "reserved"));
  out.fan_speed_percent = nvsmi::ParsePercent(ValueAt(gpu, "fan_speed"));
  if (out.fan_speed_percent) out.fan_speeds_percent = {*out.fan_speed_percent};
}

void ParseModes(pugi::xml_node gpu, GpuStatus& out) {
  out.persistence_mode = nvsmi::ParseEnabled(ValueAt(gpu, "persistence_mode"));
  out.compute_mode = nvsmi::NormalizeComputeMode(ValueAt(gpu, "compute_mode"));
  out.mig_mode_enabled =
      nvsmi::ParseEnabled(ValueAt(gpu, "mig_mode/current_mig"));
  out.mig_mode_pending =
      nvsmi::ParseEnabled(ValueAt(gpu, "mig_mode/pending_mig"));
}

void ParseProcesses(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node list = gpu.child("processes");
  if (!list) return;
  std::vector<GpuProcess> processes;
  for (pugi::xml_node p : list.children("process_info")) {
    auto pid = nvsmi::ParseInteger(ValueAt(p, "pid"));
    if (!pid || *pid < 0 || *pid > 0xffffffffLL) continue;
    GpuProcess process;
    process.pid = static_cast<std::uint32_t>(*pid);
    process.name = nvsmi::ParseText(ValueAt(p, "process_name")).value_or("");
    process.used_memory_bytes =
        nvsmi::ParseMemoryBytes(ValueAt(p, "used_memory"));
    processes.push_back(std::move(process));
  }
  out.processes = std::move(processes);
}

// Elements whose value nvidia-smi prints as an error text when the driver
// fails that query (a wedged GPU: "Unknown Error" nearly everywhere), and
// the status --json field each fills: the fields nvsmi::CountsQueryFailure
// names, as the text parser records them.
struct FailureElement {
  const char* path;
  const char* field;
};
constexpr FailureElement kFailureElements[] = {
    {"product_name", "name"},
    {"fan_speed", "fan_speed_percent"},
    {"performance_state", "pstate"},
    {"persistence_mode", "persistence_mode"},
    {"utilization/gpu_util", "utilization_gpu_percent"},
    {"utilization/memory_util", "utilization_memory_percent"},
    {"fb_memory_usage/used", "memory_used_bytes"},
    {"fb_memory_usage/total", "memory_total_bytes"},
    {"temperature/gpu_temp", "temperature_c"},
    {"gpu_power_readings/power_draw", "power_draw_w"},
    {"gpu_power_readings/average_power_draw", "power_draw_w"},
    {"gpu_power_readings/instant_power_draw", "power_draw_w"},
    {"power_readings/power_draw", "power_draw_w"},
    {"clocks/graphics_clock", "clocks_graphics_mhz"},
    {"clocks/sm_clock", "clocks_sm_mhz"},
    {"clocks/mem_clock", "clocks_memory_mhz"},
    {"ecc_mode/current_ecc", "ecc_mode_enabled"},
    {"pci/pci_gpu_link_info/pcie_gen/current_link_gen", "pcie_link_gen_current"},
};

void RecordFailures(pugi::xml_node gpu, GpuStatus& out) {
  for (const FailureElement& e : kFailureElements) {
    if (auto failure = nvsmi::QueryFailure(ValueAt(gpu, e.path))) {
      out.field_errors[e.field] = "nvidia-smi: " + *failure;
    }
  }
}

GpuStatus ParseGpu(pugi::xml_node gpu, unsigned index) {
  GpuStatus out;
  out.index = index;
  ParseIdentity(gpu, out);
  ParsePci(gpu, out);
  ParseUsage(gpu, out);
  ParseModes(gpu, out);
  nvsmi::ParseTemperatures(gpu, out);
  nvsmi::ParsePower(gpu, out);
  nvsmi::ParseClocks(gpu, out);
  nvsmi::ParseClockEventReasons(gpu, out);
  nvsmi::ParseEcc(gpu, out);
  nvsmi::ParseRetiredAndRemapped(gpu, out);
  nvsmi::ParseFabric(gpu, out);
  ParseProcesses(gpu, out);
  RecordFailures(gpu, out);
  nvsmi::MarkLostFromFailures(out);
  return out;
}

}  // namespace

Result<SystemStatus> ParseNvidiaSmiXml(std::string_view xml,
                                       std::string_view source_name) {
  pugi::xml_document doc;
  pugi::xml_parse_result parsed =
      doc.load_buffer(xml.data(), xml.size(), pugi::parse_default);
  if (!parsed) {
    return NotNvsmi(
        source_name,
        fmt::format("{} at byte {}", parsed.description(), parsed.offset));
  }
  pugi::xml_node root = doc.child("nvidia_smi_log");
  if (!root) return NotNvsmi(source_name, "no <nvidia_smi_log> element");

  SystemStatus system;
  system.nvml_loaded = true;
  // 610 and later deprecate "Driver Version" and "CUDA Version" for "KMD
  // Version" and "CUDA UMD Version" (the -q text layout); in XML these are
  // taken to be <kmd_version> and <cuda_umd_version>, nvidia-smi's naming
  // of every other element, and win when present. A deprecation note in
  // brackets after a version is dropped.
  auto top = [&](const char* preferred, const char* deprecated) {
    std::string_view v = nvsmi::WithoutBracketNote(ValueAt(root, preferred));
    return v.empty() ? nvsmi::WithoutBracketNote(ValueAt(root, deprecated)) : v;
  };
  system.driver_version = nvsmi::ParseText(top("kmd_version", "driver_version"));
  system.cuda_driver_version = nvsmi::ParseCudaVersion(top("cuda_umd_version", "cuda_version"));
  unsigned index = 0;
  for (pugi::xml_node gpu : root.children("gpu")) {
    system.gpus.push_back(ParseGpu(gpu, index++));
  }
  return system;
}

}  // namespace gpudoctor
