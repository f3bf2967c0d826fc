// One "gpus" entry of a JSON scenario: field overrides, metrics and faults.
#include <cmath>
#include <cstdio>

#include "core/clock_reasons.h"
#include "core/gpu_fields.h"
#include "fake_scenario_json.h"

namespace fake {
namespace {

using gpudoctor::GpuStatus;
using nlohmann::json;

std::optional<std::int64_t> OptionalInt(const json& value,
                                        const std::string& where) {
  if (value.is_null()) return std::nullopt;
  return std::llround(Number(value, where));
}

std::optional<bool> OptionalBool(const json& value, const std::string& where) {
  if (value.is_null()) return std::nullopt;
  if (value.is_boolean()) return value.get<bool>();
  return Number(value, where) != 0;
}

void SetScalar(GpuStatus& gpu, const gpudoctor::GpuField& field,
               const json& value, const std::string& where) {
  if (value.is_null()) return gpudoctor::ClearField(gpu, field);
  if (auto* text = std::get_if<gpudoctor::TextMember>(&field.member)) {
    if (!value.is_string()) Fail(where, "must be a string or null");
    gpu.*(*text) = value.get<std::string>();
  } else if (std::holds_alternative<gpudoctor::BoolMember>(field.member)) {
    gpudoctor::SetNumber(gpu, field, *OptionalBool(value, where) ? 1 : 0);
  } else {
    gpudoctor::SetNumber(gpu, field, Number(value, where));
  }
}

std::optional<std::int64_t> ParsePstate(const json& value,
                                        const std::string& where) {
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    int p = -1;
    int used = 0;
    if (std::sscanf(text.c_str(), "P%d%n", &p, &used) != 1 ||
        used != static_cast<int>(text.size()) || p < 0 || p > 15) {
      Fail(where, "must be P0..P15");
    }
    return p;
  }
  return OptionalInt(value, where);
}

std::optional<std::uint64_t> ParseReasons(const json& value,
                                          const std::string& where) {
  if (value.is_null()) return std::nullopt;
  if (value.is_number()) {
    return static_cast<std::uint64_t>(std::llround(Number(value, where)));
  }
  if (!value.is_array()) Fail(where, "must be a list of reason names");
  std::uint64_t mask = 0;
  for (const json& name : value) {
    std::uint64_t bit = name.is_string()
                            ? gpudoctor::ClockReasonBit(name.get<std::string>())
                            : 0;
    if (bit == 0) Fail(where, "unknown reason " + name.dump());
    mask |= bit;
  }
  return mask;
}

// "c4e3bac3" -> the bytes C4 E3 BA C3: names that are not UTF-8 (GBK,
// Latin-1, control characters), which a JSON string cannot hold.
std::string BytesFromHex(const json& value, const std::string& where) {
  if (!value.is_string()) Fail(where, "must be a string of hex digits");
  const std::string hex = value.get<std::string>();
  if (hex.size() % 2 != 0) Fail(where, "must have an even number of hex digits");
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const std::string pair = hex.substr(i, 2);
    if (pair.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      Fail(where, "'" + pair + "' is not a hex byte");
    }
    out += static_cast<char>(std::stoi(pair, nullptr, 16));
  }
  return out;
}

std::optional<std::vector<gpudoctor::GpuProcess>> ParseProcesses(
    const json& value, const std::string& where) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_array()) Fail(where, "must be a list or null");
  std::vector<gpudoctor::GpuProcess> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::string at = where + "[" + std::to_string(i) + "]";
    CheckKeys(value[i], at,
              {"pid", "name", "name_hex", "used_memory_bytes", "sm_util_percent",
               "memory_util_percent", "gpu_instance_id", "compute_instance_id"});
    gpudoctor::GpuProcess p;
    p.pid = static_cast<std::uint32_t>(Number(value[i].at("pid"), at + ".pid"));
    p.name = value[i].value("name", "");
    if (value[i].contains("name_hex")) p.name = BytesFromHex(value[i]["name_hex"], at + ".name_hex");
    if (value[i].contains("used_memory_bytes")) {
      p.used_memory_bytes = OptionalInt(value[i]["used_memory_bytes"], at);
    }
    if (value[i].contains("sm_util_percent")) {
      p.sm_util_percent = OptionalInt(value[i]["sm_util_percent"], at);
    }
    if (value[i].contains("memory_util_percent")) {
      p.memory_util_percent = OptionalInt(value[i]["memory_util_percent"], at);
    }
    // The MIG instance it runs in (a GPU in MIG mode); absent: 0xFFFFFFFF.
    if (value[i].contains("gpu_instance_id")) {
      p.gpu_instance_id = static_cast<unsigned>(Number(value[i]["gpu_instance_id"], at + ".gpu_instance_id"));
    }
    if (value[i].contains("compute_instance_id")) {
      p.compute_instance_id =
          static_cast<unsigned>(Number(value[i]["compute_instance_id"], at + ".compute_instance_id"));
    }
    out.push_back(p);
  }
  return out;
}

std::vector<gpudoctor::NvLinkStatus> ParseNvLinks(const json& value,
                                                  const std::string& where) {
  if (!value.is_array()) Fail(where, "must be a list");
  std::vector<gpudoctor::NvLinkStatus> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::string at = where + "[" + std::to_string(i) + "]";
    const json& e = value[i];
    CheckKeys(e, at,
              {"link", "active", "crc_flit_errors", "crc_data_errors",
               "replay_errors", "recovery_errors", "version",
               "remote_pci_bus_id"});
    gpudoctor::NvLinkStatus link;
    link.link = e.contains("link")
        ? static_cast<unsigned>(Integer(e["link"], at + ".link", 0, 63))
        : static_cast<unsigned>(i);
    auto get = [&](const char* key) {
      return e.contains(key) ? OptionalInt(e[key], at + "." + key)
                             : std::nullopt;
    };
    if (e.contains("active")) link.active = OptionalBool(e["active"], at);
    link.crc_flit_errors = get("crc_flit_errors");
    link.crc_data_errors = get("crc_data_errors");
    link.replay_errors = get("replay_errors");
    link.recovery_errors = get("recovery_errors");
    link.version = get("version");
    if (e.contains("remote_pci_bus_id")) {
      if (!e["remote_pci_bus_id"].is_string()) {
        Fail(at + ".remote_pci_bus_id", "must be a string");
      }
      link.remote_pci_bus_id = e["remote_pci_bus_id"].get<std::string>();
    }
    out.push_back(link);
  }
  return out;
}

// nvmlValueType_t by the names README.md gives.
int ParseFieldValueType(const json& value, const std::string& where) {
  static const std::pair<const char*, int> kTypes[] = {
      {"double", NVML_VALUE_TYPE_DOUBLE},
      {"unsigned_int", NVML_VALUE_TYPE_UNSIGNED_INT},
      {"unsigned_long", NVML_VALUE_TYPE_UNSIGNED_LONG},
      {"unsigned_long_long", NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
      {"signed_long_long", NVML_VALUE_TYPE_SIGNED_LONG_LONG},
      {"signed_int", NVML_VALUE_TYPE_SIGNED_INT},
      {"unsigned_short", NVML_VALUE_TYPE_UNSIGNED_SHORT}};
  if (value.is_string()) {
    for (const auto& [name, type] : kTypes) {
      if (value.get<std::string>() == name) return type;
    }
  }
  Fail(where, "must be one of double, unsigned_int, unsigned_long, unsigned_long_long, "
              "signed_long_long, signed_int, unsigned_short");
}

}  // namespace

void ApplyGpuJson(const json& entry, const std::string& where, FakeGpu& gpu);

namespace {

// "mig_devices": [{"gpu_instance_id": 1, "compute_instance_id": 0, "uuid":
// "MIG-...", "memory_total_bytes": ..., "gpm_sm_activity_percent": ...}]:
// the ids, then any GPU key for what the MIG device handle answers.
std::vector<gpudoctor::MigDeviceStatus> ParseMigDevices(const json& value,
                                                        const std::string& where) {
  std::vector<gpudoctor::MigDeviceStatus> out;
  if (value.is_null()) return out;
  if (!value.is_array()) Fail(where, "must be an array");
  if (value.size() > kMaxMigSlots) Fail(where, "too many MIG devices");
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const json& entry = value[i];
    if (!entry.is_object() || !entry.contains("gpu_instance_id")) {
      Fail(at, "needs an object with gpu_instance_id");
    }
    gpudoctor::MigDeviceStatus m;
    m.gpu_instance_id = static_cast<unsigned>(Number(entry.at("gpu_instance_id"), at));
    if (entry.contains("compute_instance_id") && !entry.at("compute_instance_id").is_null()) {
      m.compute_instance_id = static_cast<unsigned>(Number(entry.at("compute_instance_id"), at));
    }
    json rest = entry;
    rest.erase("gpu_instance_id");
    rest.erase("compute_instance_id");
    FakeGpu values;
    values.status.index = static_cast<unsigned>(i);
    ApplyGpuJson(rest, at, values);
    m.status = std::move(values.status);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

FakeGpu DefaultGpu(unsigned index) {
  FakeGpu gpu;
  gpu.status.index = index;
  gpu.status.name = "Fake GPU";
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-00000000-0000-0000-0000-%012x",
                index + 1);
  gpu.status.uuid = buf;
  std::snprintf(buf, sizeof buf, "0000:%02x:00.0", index + 1);
  gpu.status.pci_bus_id = buf;
  return gpu;
}

void ApplyGpuJson(const json& entry, const std::string& where, FakeGpu& gpu) {
  GpuStatus& g = gpu.status;
  for (const auto& [key, value] : entry.items()) {
    std::string at = where + "." + key;
    if (key == "xml" || key == "xml_gpu") continue;
    if (const auto* field = gpudoctor::FindGpuField(key)) {
      SetScalar(g, *field, value, at);
    } else if (key == "name_hex") {
      g.name = BytesFromHex(value, at);
    } else if (key == "name" || key == "uuid") {
      (key == "name" ? g.name : g.uuid) =
          value.is_null() ? "" : value.get<std::string>();
    } else if (key == "pci_bus_id") {
      g.pci_bus_id =
          value.is_null()
              ? ""
              : gpudoctor::NormalizePciBusId(value.get<std::string>());
      if (!value.is_null() && g.pci_bus_id.empty())
        Fail(at, "malformed bus id");
    } else if (key == "pci_device_id") {
      gpu.pci_device_id = value.is_string()
                              ? static_cast<unsigned>(std::stoul(
                                    value.get<std::string>(), nullptr, 16))
                              : static_cast<unsigned>(Number(value, at));
    } else if (key == "pstate") {
      g.pstate = ParsePstate(value, at);
    } else if (key == "clock_event_reasons") {
      g.clock_event_reasons_mask = ParseReasons(value, at);
    } else if (key == "fan_speeds_percent") {
      g.fan_speeds_percent.clear();
      if (!value.is_null()) {
        for (const json& v : value)
          g.fan_speeds_percent.push_back(std::llround(Number(v, at)));
      }
      if (!entry.contains("fan_speed_percent")) {
        g.fan_speed_percent =
            g.fan_speeds_percent.empty()
                ? std::nullopt
                : std::optional<std::int64_t>(g.fan_speeds_percent[0]);
      }
    } else if (key == "processes") {
      g.processes = ParseProcesses(value, at);
    } else if (key == "nvlinks") {
      g.nvlinks = value.is_null() ? std::vector<gpudoctor::NvLinkStatus>{}
                                  : ParseNvLinks(value, at);
    } else if (key == "fabric") {
      ApplyFabricJson(value, at, gpu);
    } else if (key == "nvlink_p2p") {
      ApplyNvLinkP2PJson(value, at, gpu);
    } else if (key == "mig_devices") {
      g.mig_devices = ParseMigDevices(value, at);
    } else if (key == "field_value_type") {
      gpu.field_value_type = ParseFieldValueType(value, at);
    } else if (key == "metrics") {
      ApplyMetricsJson(value, at, gpu);
    } else if (key == "faults") {
      ApplyFaultsJson(value, at, gpu);
    } else if (key == "under_load") {
      ApplyUnderLoadJson(value, at, gpu);
    } else if (key == "cuda") {
      // Read by the fake libcuda (tests/fake_cuda), not by the fake NVML.
    } else {
      throw ScenarioError{"unknown key '" + at + "'"};
    }
  }
}

}  // namespace fake
