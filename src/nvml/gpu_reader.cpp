#include "nvml/gpu_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "nvml/field_reader.h"
#include "nvml/field_value.h"
#include "nvml/mig_reader.h"

namespace gpudoctor::nvml_detail {
namespace {

std::string BusIdOf(nvmlPciInfo_t& pci) {
  pci.busId[sizeof pci.busId - 1] = '\0';
  return NormalizePciBusId(pci.busId);
}

void ReadIdentity(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  // The bus id first: a GPU lost on its next call is still named by it.
  nvmlPciInfo_t pci{};
  if (r.Get("nvmlDeviceGetPciInfo_v3", "pci_bus_id", f.nvmlDeviceGetPciInfo_v3, dev, &pci)) {
    g.pci_bus_id = BusIdOf(pci);
  }
  g.name = Text(r, "nvmlDeviceGetName", "name", f.nvmlDeviceGetName, dev).value_or("");
  g.uuid = Text(r, "nvmlDeviceGetUUID", "uuid", f.nvmlDeviceGetUUID, dev).value_or("");
  g.serial = Text(r, "nvmlDeviceGetSerial", "serial", f.nvmlDeviceGetSerial, dev);
  g.board_part_number = Text(r, "nvmlDeviceGetBoardPartNumber", "board_part_number",
                             f.nvmlDeviceGetBoardPartNumber, dev);
  g.vbios_version = Text(r, "nvmlDeviceGetVbiosVersion", "vbios_version",
                         f.nvmlDeviceGetVbiosVersion, dev);
  unsigned gsp_enabled = 0, gsp_default = 0;
  if (r.Get("nvmlDeviceGetGspFirmwareMode", "gsp_firmware_enabled",
            f.nvmlDeviceGetGspFirmwareMode, dev, &gsp_enabled, &gsp_default)) {
    g.gsp_firmware_enabled = gsp_enabled != 0;
  }
  char gsp_version[kNvmlGspFirmwareVersionBufferSize] = {};
  if (r.Get("nvmlDeviceGetGspFirmwareVersion", "gsp_firmware_version",
            f.nvmlDeviceGetGspFirmwareVersion, dev, gsp_version)) {
    gsp_version[sizeof gsp_version - 1] = '\0';
    if (gsp_version[0] != '\0') g.gsp_firmware_version = std::string(gsp_version);
  }
  g.inforom_image_version = Text(r, "nvmlDeviceGetInforomImageVersion", "inforom_image_version",
                                 f.nvmlDeviceGetInforomImageVersion, dev);
}

// A driver or sensor fault can hand back numbers no GPU can have (255 °C, more
// memory used than it has): such a reading becomes a null field whose error
// says why, so that no rule takes it for a real value.
void Implausible(GpuStatus& g, const char* field, const std::string& why) {
  g.field_errors[field] = why + ": implausible reading (sensor or driver fault), ignored";
}

void DropImplausibleMemory(const char* call, unsigned long long used, unsigned long long free,
                           unsigned long long total, GpuStatus& g) {
  if (used <= total && free <= total) return;
  Implausible(g, "memory_used_bytes",
              std::string(call) + ": " + std::to_string(used) + " bytes used and " +
                  std::to_string(free) + " free of " + std::to_string(total));
  g.memory_used_bytes.reset();
  g.memory_free_bytes.reset();
}

void DropImplausibleReadings(GpuStatus& g) {
  if (g.temperature_c && (*g.temperature_c <= 0 || *g.temperature_c > 200)) {
    Implausible(g, "temperature_c",
                "nvmlDeviceGetTemperature: " + std::to_string(*g.temperature_c) + " °C");
    g.temperature_c.reset();
  }
  // Boards briefly draw above their limit; twice the highest limit (5 kW when
  // none is known) is no real reading.
  double highest_limit = 0;
  for (const auto& limit : {g.power_limit_w, g.power_enforced_limit_w, g.power_max_limit_w}) {
    if (limit) highest_limit = std::max(highest_limit, *limit);
  }
  const double ceiling = highest_limit > 0 ? 2 * highest_limit : 5000.0;
  if (g.power_draw_w && *g.power_draw_w > ceiling) {
    Implausible(g, "power_draw_w",
                fmt::format("nvmlDeviceGetPowerUsage: {:.0f} W, limit {:.0f} W",
                            *g.power_draw_w, highest_limit));
    g.power_draw_w.reset();
  }
}

}  // namespace

void ReadMemory(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  nvmlUtilization_t util{};
  if (r.Get("nvmlDeviceGetUtilizationRates", "utilization_gpu_percent",
            f.nvmlDeviceGetUtilizationRates, dev, &util)) {
    g.utilization_gpu_percent = util.gpu;
    g.utilization_memory_percent = util.memory;
  }
  unsigned int busy = 0, period_us = 0;
  if (r.Get("nvmlDeviceGetEncoderUtilization", "utilization_encoder_percent",
            f.nvmlDeviceGetEncoderUtilization, dev, &busy, &period_us)) {
    g.utilization_encoder_percent = busy;
  }
  if (r.Get("nvmlDeviceGetDecoderUtilization", "utilization_decoder_percent",
            f.nvmlDeviceGetDecoderUtilization, dev, &busy, &period_us)) {
    g.utilization_decoder_percent = busy;
  }
  nvmlMemory_v2_t mem2{};
  mem2.version = nvmlMemory_v2;
  if (r.Get("nvmlDeviceGetMemoryInfo_v2", "memory_total_bytes",
            f.nvmlDeviceGetMemoryInfo_v2, dev, &mem2)) {
    g.memory_total_bytes = static_cast<std::int64_t>(mem2.total);
    g.memory_free_bytes = static_cast<std::int64_t>(mem2.free);
    g.memory_reserved_bytes = static_cast<std::int64_t>(mem2.reserved);
    // NVML's own `used`, as nvidia-smi shows it (reserved is its own line).
    // Not total - free - reserved: the driver rounds each value, and the
    // difference of rounded values is not what it reports as used.
    g.memory_used_bytes = static_cast<std::int64_t>(mem2.used);
    DropImplausibleMemory("nvmlDeviceGetMemoryInfo_v2", mem2.used, mem2.free, mem2.total, g);
    return;
  }
  // Older drivers lack _v2 (R510+) or refuse its version: v1, whose `used`
  // is what nvidia-smi showed on those drivers (it includes the reserved).
  g.field_errors.erase("memory_total_bytes");
  nvmlMemory_t mem{};
  if (r.Get("nvmlDeviceGetMemoryInfo", "memory_total_bytes", f.nvmlDeviceGetMemoryInfo,
            dev, &mem)) {
    g.memory_total_bytes = static_cast<std::int64_t>(mem.total);
    g.memory_free_bytes = static_cast<std::int64_t>(mem.free);
    g.memory_used_bytes = static_cast<std::int64_t>(mem.used);
    DropImplausibleMemory("nvmlDeviceGetMemoryInfo", mem.used, mem.free, mem.total, g);
  }
}

namespace {

std::optional<std::int64_t> Threshold(Reader& r, nvmlDevice_t dev, int type,
                                      const char* field) {
  unsigned v = 0;
  if (!r.Get("nvmlDeviceGetTemperatureThreshold", field,
             r.fn().nvmlDeviceGetTemperatureThreshold, dev, type, &v)) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

// nvmlDeviceGetTemperatureV (R570+), else the call nvml.h 13.x deprecates.
void ReadGpuTemperature(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  nvmlTemperature_v1_t t{};
  t.version = nvmlTemperature_v1;
  t.sensorType = NVML_TEMPERATURE_GPU;
  const nvmlReturn_t rc = r.Call("nvmlDeviceGetTemperatureV", f.nvmlDeviceGetTemperatureV, dev, &t);
  if (rc == NVML_SUCCESS) {
    g.temperature_c = t.temperature;
    return;
  }
  if (!AnswersWithOlderCall(rc) && rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    r.Check(rc, "nvmlDeviceGetTemperatureV", "temperature_c");
    return;
  }
  unsigned temp = 0;
  if (r.Get("nvmlDeviceGetTemperature", "temperature_c", f.nvmlDeviceGetTemperature, dev,
            NVML_TEMPERATURE_GPU, &temp)) {
    g.temperature_c = temp;
  }
}

void ReadThermal(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  ReadGpuTemperature(r, dev, g);
  g.temperature_shutdown_c = Threshold(r, dev, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN,
                                       "temperature_shutdown_c");
  g.temperature_slowdown_c = Threshold(r, dev, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
                                       "temperature_slowdown_c");
  g.temperature_memory_max_c = Threshold(r, dev, NVML_TEMPERATURE_THRESHOLD_MEM_MAX,
                                         "temperature_memory_max_c");
  g.temperature_max_operating_c = Threshold(r, dev, NVML_TEMPERATURE_THRESHOLD_GPU_MAX,
                                            "temperature_max_operating_c");
  // Memory temperature, and the thresholds that Ada+ GPUs give only as
  // fields; in the same call, the driver's recovery action (R570+; older
  // drivers answer that one field with an error, which leaves it null).
  nvmlFieldValue_t values[6] = {};
  const unsigned ids[6] = {NVML_FI_DEV_MEMORY_TEMP,
                           NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT,
                           NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT,
                           NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT,
                           NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT,
                           NVML_FI_DEV_GET_GPU_RECOVERY_ACTION};
  for (int i = 0; i < 6; ++i) values[i].fieldId = ids[i];
  if (!r.Get("nvmlDeviceGetFieldValues", "memory_temperature_c", f.nvmlDeviceGetFieldValues, dev, 6,
             values)) {
    return;
  }
  g.recovery_action = FieldValueAsInt(values[5]);
  if (g.recovery_action && (*g.recovery_action < 0 || *g.recovery_action > 255)) {
    g.recovery_action.reset();
  }
  std::optional<std::int64_t>* slots[5] = {
      &g.memory_temperature_c, &g.temperature_shutdown_c, &g.temperature_slowdown_c,
      &g.temperature_memory_max_c, &g.temperature_max_operating_c};
  for (int i = 0; i < 5; ++i) {
    if (slots[i]->has_value()) continue;
    *slots[i] = FieldValueAsInt(values[i]);
  }
  // The driver can report a sentinel for "no memory sensor".
  if (g.memory_temperature_c && (*g.memory_temperature_c <= 0 || *g.memory_temperature_c > 200)) {
    g.memory_temperature_c.reset();
  }
}

void ReadFans(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  unsigned count = 0;
  if (r.Get("nvmlDeviceGetNumFans", "fan_speeds_percent", f.nvmlDeviceGetNumFans, dev, &count)) {
    for (unsigned fan = 0; fan < count && fan < 64; ++fan) {
      unsigned speed = 0;
      if (r.Get("nvmlDeviceGetFanSpeed_v2", "fan_speeds_percent", f.nvmlDeviceGetFanSpeed_v2,
                dev, fan, &speed)) {
        g.fan_speeds_percent.push_back(speed);
      }
    }
  }
  if (!g.fan_speeds_percent.empty()) {
    g.fan_speed_percent = g.fan_speeds_percent.front();
    return;
  }
  g.fan_speed_percent = Uint(r, "nvmlDeviceGetFanSpeed", "fan_speed_percent",
                             f.nvmlDeviceGetFanSpeed, dev);
}

void ReadPower(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  const auto& f = r.fn();
  g.power_draw_w = Watts(Uint(r, "nvmlDeviceGetPowerUsage", "power_draw_w",
                              f.nvmlDeviceGetPowerUsage, dev));
  g.power_limit_w = Watts(Uint(r, "nvmlDeviceGetPowerManagementLimit", "power_limit_w",
                               f.nvmlDeviceGetPowerManagementLimit, dev));
  g.power_default_limit_w =
      Watts(Uint(r, "nvmlDeviceGetPowerManagementDefaultLimit", "power_default_limit_w",
                 f.nvmlDeviceGetPowerManagementDefaultLimit, dev));
  g.power_enforced_limit_w = Watts(Uint(r, "nvmlDeviceGetEnforcedPowerLimit",
                                        "power_enforced_limit_w",
                                        f.nvmlDeviceGetEnforcedPowerLimit, dev));
  unsigned min_mw = 0, max_mw = 0;
  if (r.Get("nvmlDeviceGetPowerManagementLimitConstraints", "power_max_limit_w",
            f.nvmlDeviceGetPowerManagementLimitConstraints, dev, &min_mw, &max_mw)) {
    g.power_min_limit_w = min_mw / 1000.0;
    g.power_max_limit_w = max_mw / 1000.0;
  }
  unsigned long long energy_mj = 0;
  if (r.Get("nvmlDeviceGetTotalEnergyConsumption", "energy_total_j",
            f.nvmlDeviceGetTotalEnergyConsumption, dev, &energy_mj)) {
    g.energy_total_j = static_cast<double>(energy_mj) / 1000.0;
  }
}

}  // namespace
}  // namespace gpudoctor::nvml_detail

namespace gpudoctor {

void ReadGpu(const NvmlFunctions& fn, unsigned index, const GpuReadOptions& options,
             CallTracker& tracker, GpuStatus& out, GpmState* gpm, NvLinkPeerCache* peers) {
  out.index = index;
  nvmlDevice_t dev = nullptr;
  nvmlReturn_t rc = tracker.Call(
      "nvmlDeviceGetHandleByIndex_v2",
      [&] { return fn.nvmlDeviceGetHandleByIndex_v2(index, &dev); }, NVML_ERROR_TIMEOUT);
  if (rc != NVML_SUCCESS) {
    out.state = rc == NVML_ERROR_GPU_IS_LOST ? GpuState::kLost : GpuState::kError;
    out.state_detail = NvmlError(rc, "nvmlDeviceGetHandleByIndex_v2").message;
    return;
  }
  using namespace nvml_detail;
  Reader r(fn, tracker, out);
  ReadIdentity(r, dev, out);
  if (out.state == GpuState::kLost && out.pci_bus_id.empty()) {
    // Lost before it gave its bus id: the driver often still answers the PCI
    // query of a GPU that fell off the bus (nvidia-smi -q heads such a GPU's
    // "GPU is lost" values with its bus id), so ask once more.
    nvmlPciInfo_t pci{};
    if (fn.nvmlDeviceGetPciInfo_v3 != nullptr &&
        tracker.Call("nvmlDeviceGetPciInfo_v3",
                     [&] { return fn.nvmlDeviceGetPciInfo_v3(dev, &pci); },
                     NVML_ERROR_TIMEOUT) == NVML_SUCCESS) {
      out.pci_bus_id = BusIdOf(pci);
    }
  }
  // GPM's first sample early, so that the calls below count towards the
  // interval its second sample must wait for.
  if (gpm != nullptr) BeginGpm(r, dev, *gpm, out);
  ReadMemory(r, dev, out);
  ReadThermal(r, dev, out);
  ReadFans(r, dev, out);
  ReadPower(r, dev, out);
  ReadClocksAndPerformance(r, dev, options.thermal_slowdown_field, out);
  ReadModesAndMemoryErrors(r, dev, out);
  ReadMigDevices(r, dev, out);
  ReadPcie(r, dev, out);
  if (options.read_nvlink) {
    ReadNvLinks(r, dev, options.read_nvlink_topology, out);
    ReadFabric(r, dev, out);
    ReadNvLinkPeers(r, dev, out, peers, options.nvlink_peers_refresh);
  }
  if (options.read_processes) ReadProcesses(r, dev, out);
  if (gpm != nullptr) {
    FinishGpm(r, dev, *gpm, out);
    FinishMigGpm(r, dev, *gpm, out);
  }
  DropImplausibleReadings(out);
}

}  // namespace gpudoctor
