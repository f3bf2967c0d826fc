#include "parse/nvsmi_text_sections.h"

#include <climits>

#include "core/clock_reasons.h"
#include "core/gpu_fields.h"
#include "core/recovery_action.h"
#include "parse/nvsmi_fabric.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor::nvsmi {
namespace {

using IntParser = std::optional<std::int64_t> (*)(std::string_view);
using BoolParser = std::optional<bool> (*)(std::string_view);

// The first whitespace-delimited word: a few hand-edited captures carry a
// marker after the value ("Yes   <===").
std::string_view FirstWord(std::string_view text) {
  text = Trim(text);
  std::size_t end = text.find_first_of(" \t");
  return end == std::string_view::npos ? text : text.substr(0, end);
}

template <typename T>
std::optional<T> WithFirstWordFallback(std::optional<T> (*parse)(std::string_view),
                                       std::string_view text) {
  if (auto value = parse(text)) return value;
  return parse(FirstWord(text));
}

std::optional<std::int64_t> AddCounts(std::optional<std::int64_t> a,
                                      std::optional<std::int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  std::int64_t sum = 0;
  if (__builtin_add_overflow(*a, *b, &sum)) return INT64_MAX;
  return sum;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

struct IntField {
  std::string_view key;  // "section>...>label", lower case
  IntMember member;
  IntParser parse;
};

const IntField kIntFields[] = {
    {"fb memory usage>total", &GpuStatus::memory_total_bytes, ParseMemoryBytes},
    {"fb memory usage>reserved", &GpuStatus::memory_reserved_bytes, ParseMemoryBytes},
    {"fb memory usage>used", &GpuStatus::memory_used_bytes, ParseMemoryBytes},
    {"fb memory usage>free", &GpuStatus::memory_free_bytes, ParseMemoryBytes},
    {"utilization>gpu", &GpuStatus::utilization_gpu_percent, ParsePercent},
    {"utilization>memory", &GpuStatus::utilization_memory_percent, ParsePercent},
    {"temperature>gpu current temp", &GpuStatus::temperature_c, ParseCelsius},
    {"temperature>gpu shutdown temp", &GpuStatus::temperature_shutdown_c, ParseCelsius},
    {"temperature>gpu slowdown temp", &GpuStatus::temperature_slowdown_c, ParseCelsius},
    {"temperature>gpu max operating temp", &GpuStatus::temperature_max_operating_c, ParseCelsius},
    {"temperature>memory current temp", &GpuStatus::memory_temperature_c, ParseCelsius},
    {"temperature>memory max operating temp", &GpuStatus::temperature_memory_max_c, ParseCelsius},
    {"clocks>graphics", &GpuStatus::clocks_graphics_mhz, ParseMegahertz},
    {"clocks>sm", &GpuStatus::clocks_sm_mhz, ParseMegahertz},
    {"clocks>memory", &GpuStatus::clocks_memory_mhz, ParseMegahertz},
    {"max clocks>graphics", &GpuStatus::clocks_max_graphics_mhz, ParseMegahertz},
    {"max clocks>sm", &GpuStatus::clocks_max_sm_mhz, ParseMegahertz},
    {"max clocks>memory", &GpuStatus::clocks_max_memory_mhz, ParseMegahertz},
    {"applications clocks>graphics", &GpuStatus::clocks_applications_graphics_mhz, ParseMegahertz},
    {"applications clocks>memory", &GpuStatus::clocks_applications_memory_mhz, ParseMegahertz},
    {"default applications clocks>graphics", &GpuStatus::clocks_default_applications_graphics_mhz,
     ParseMegahertz},
    {"default applications clocks>memory", &GpuStatus::clocks_default_applications_memory_mhz,
     ParseMegahertz},
    {"pci>gpu link info>pcie generation>max", &GpuStatus::pcie_link_gen_max, ParseInteger},
    {"pci>gpu link info>pcie generation>current", &GpuStatus::pcie_link_gen_current, ParseInteger},
    {"pci>gpu link info>link width>max", &GpuStatus::pcie_link_width_max, ParseLinkWidth},
    {"pci>gpu link info>link width>current", &GpuStatus::pcie_link_width_current, ParseLinkWidth},
    {"pci>replays since reset", &GpuStatus::pcie_replay_count, ParseInteger},
    {"pci>replay number", &GpuStatus::pcie_replay_count, ParseInteger},
    {"pci>tx throughput", &GpuStatus::pcie_tx_bytes_per_s, ParseKilobytesPerSecond},
    {"pci>rx throughput", &GpuStatus::pcie_rx_bytes_per_s, ParseKilobytesPerSecond},
    {"performance state", &GpuStatus::pstate, ParsePstate},
    {"retired pages>single bit ecc", &GpuStatus::retired_pages_sbe, ParseInteger},
    {"retired pages>double bit ecc", &GpuStatus::retired_pages_dbe, ParseInteger},
    {"remapped rows>correctable error", &GpuStatus::remapped_rows_corrected, ParseInteger},
};

struct BoolField {
  std::string_view key;
  BoolMember member;
  BoolParser parse;
};

const BoolField kBoolFields[] = {
    {"persistence mode", &GpuStatus::persistence_mode, ParseEnabled},
    {"mig mode>current", &GpuStatus::mig_mode_enabled, ParseEnabled},
    {"mig mode>pending", &GpuStatus::mig_mode_pending, ParseEnabled},
    {"ecc mode>current", &GpuStatus::ecc_mode_enabled, ParseEnabled},
    {"ecc mode>pending", &GpuStatus::ecc_mode_pending, ParseEnabled},
    {"retired pages>pending page blacklist", &GpuStatus::retired_pages_pending, ParseYesNo},
    {"retired pages>pending", &GpuStatus::retired_pages_pending, ParseYesNo},
    {"remapped rows>pending", &GpuStatus::remapped_rows_pending, ParseYesNo},
    {"remapped rows>remapping failure occurred", &GpuStatus::remapped_rows_failure, ParseYesNo},
};

struct TextField {
  std::string_view key;
  TextMember member;
};

const TextField kTextFields[] = {
    {"serial number", &GpuStatus::serial},
    {"vbios version", &GpuStatus::vbios_version},
    {"board part number", &GpuStatus::board_part_number},
    {"inforom version>image version", &GpuStatus::inforom_image_version},
};

struct ReasonLabel {
  std::string_view label;
  std::string_view name;
};

const ReasonLabel kReasonLabels[] = {
    {"idle", "gpu_idle"},
    {"gpu idle", "gpu_idle"},
    {"applications clocks setting", "applications_clocks_setting"},
    {"user defined clocks", "applications_clocks_setting"},
    {"sw power cap", "sw_power_cap"},
    {"hw slowdown", "hw_slowdown"},
    {"hw thermal slowdown", "hw_thermal_slowdown"},
    {"hw power brake slowdown", "hw_power_brake_slowdown"},
    {"sync boost", "sync_boost"},
    {"sw thermal slowdown", "sw_thermal_slowdown"},
    {"display clock setting", "display_clock_setting"},
};

bool ApplyReason(std::string_view label, std::string_view value, TextGpu& out) {
  for (const ReasonLabel& r : kReasonLabels) {
    if (r.label != label) continue;
    if (auto active = ParseActive(value)) {
      out.reasons_mask = out.reasons_mask.value_or(0) | (*active ? ClockReasonBit(r.name) : 0);
    }
    return true;
  }
  return false;
}

// "ECC Errors > Volatile|Aggregate > ..." lines.
bool ApplyEcc(const std::vector<std::string>& path, std::string_view label, std::string_view value,
              TextGpu& out) {
  if (path.size() < 2 || path[0] != "ecc errors") return false;
  int block = path[1] == "volatile" ? 0 : path[1] == "aggregate" ? 1 : -1;
  if (block < 0) return false;
  std::optional<std::int64_t> count = ParseInteger(value);
  if (path.size() == 2) {
    if (label.find("uncorrectable") != std::string_view::npos) {
      out.ecc_uncorrected[block] = AddCounts(out.ecc_uncorrected[block], count);
      return true;
    }
    if (EndsWith(label, "correctable")) {
      out.ecc_corrected[block] = AddCounts(out.ecc_corrected[block], count);
      return true;
    }
    return false;
  }
  if (path.size() != 3) return false;
  int bits = path[2] == "single bit" ? 0 : path[2] == "double bit" ? 1 : -1;
  if (bits < 0) return false;
  if (label == "total") {
    out.ecc_old_total[block][bits] = count;
  } else {
    out.ecc_old_sum[block][bits] = AddCounts(out.ecc_old_sum[block][bits], count);
  }
  return true;
}

bool ApplyPower(std::string_view label, std::string_view value, TextGpu& out) {
  GpuStatus& gpu = out.gpu;
  std::optional<double> watts = ParseWatts(value);
  if (label == "average power draw") {
    out.average_power_draw = watts;
  } else if (label == "power draw") {
    out.power_draw = watts;
  } else if (label == "instantaneous power draw" || label == "instant power draw") {
    out.instant_power_draw = watts;
  } else if (label == "current power limit") {
    out.current_power_limit = watts;
  } else if (label == "power limit") {
    out.power_limit = watts;
  } else if (label == "default power limit") {
    gpu.power_default_limit_w = watts;
  } else if (label == "min power limit") {
    gpu.power_min_limit_w = watts;
  } else if (label == "max power limit") {
    gpu.power_max_limit_w = watts;
  } else if (label == "enforced power limit") {
    gpu.power_enforced_limit_w = watts;
  } else {
    return false;
  }
  return true;
}

bool ApplyScalar(const std::string& key, std::string_view value, TextGpu& out) {
  GpuStatus& gpu = out.gpu;
  for (const IntField& f : kIntFields) {
    if (f.key != key) continue;
    gpu.*f.member = f.parse(value);
    return true;
  }
  for (const BoolField& f : kBoolFields) {
    if (f.key != key) continue;
    gpu.*f.member = WithFirstWordFallback(f.parse, value);
    return true;
  }
  for (const TextField& f : kTextFields) {
    if (f.key != key) continue;
    gpu.*f.member = ParseText(value);
    return true;
  }
  if (key == "product name") {
    gpu.name = ParseText(value).value_or("");
  } else if (key == "gpu uuid") {
    gpu.uuid = ParseText(value).value_or("");
  } else if (key == "pci>bus id") {
    std::string bus_id = NormalizePciBusId(std::string(Trim(value)));
    if (!bus_id.empty()) gpu.pci_bus_id = bus_id;
  } else if (key == "compute mode") {
    gpu.compute_mode = NormalizeComputeMode(value);
  } else if (key == "fan speed") {
    gpu.fan_speed_percent = ParsePercent(value);
    gpu.fan_speeds_percent.clear();
    if (gpu.fan_speed_percent) gpu.fan_speeds_percent.push_back(*gpu.fan_speed_percent);
  } else if (key == "remapped rows>uncorrectable error") {
    gpu.remapped_rows_uncorrected = ParseInteger(value);
  } else if (key == "gpu recovery action") {
    gpu.recovery_action = ParseNvmlRecoveryActionText(Trim(value));
  } else if (key == "clocks event reasons counters>sw power capping") {
    auto us = ParseMicroseconds(value);
    gpu.violation_power_ns.reset();
    if (us && *us >= 0 && *us <= INT64_MAX / 1000) gpu.violation_power_ns = *us * 1000;
  } else {
    return false;
  }
  return true;
}

// The status --json name of the field a "section>...>label" key fills;
// empty for keys that fill none (or several).
std::string_view FieldNameOfKey(const std::string& key) {
  if (key == "performance state") return "pstate";  // not a scalar of gpu_fields.h
  for (const IntField& f : kIntFields) {
    if (f.key == key) return GpuFieldName(f.member);
  }
  for (const BoolField& f : kBoolFields) {
    if (f.key == key) return GpuFieldName(f.member);
  }
  for (const TextField& f : kTextFields) {
    if (f.key == key) return GpuFieldName(f.member);
  }
  if (key == "fan speed") return "fan_speed_percent";
  if (key == "gpu recovery action") return "recovery_action";
  if (key == "product name") return "name";
  if (key == "gpu power readings>power draw" || key == "power readings>power draw" ||
      key == "gpu power readings>average power draw") {
    return "power_draw_w";
  }
  return {};
}

}  // namespace

bool IsSlowdownReasonLabel(std::string_view label) {
  for (std::string_view known : {"sw power cap", "hw slowdown", "hw thermal slowdown",
                                 "hw power brake slowdown", "sw thermal slowdown"}) {
    if (label == known) return true;
  }
  return false;
}

void ApplyTextField(const std::vector<std::string>& path, std::string_view label,
                    std::optional<std::string_view> value, TextGpu& out) {
  if (!value) return;  // other section headers carry nothing
  if (auto failure = QueryFailure(*value)) {
    std::string key;
    for (const std::string& section : path) key += section + '>';
    key += label;
    std::string_view name = FieldNameOfKey(key);
    if (CountsQueryFailure(name)) out.gpu.field_errors[std::string(name)] = "nvidia-smi: " + *failure;
  }
  bool applied = false;
  if ((!path.empty() &&
       (path[0] == "clocks event reasons" || path[0] == "clocks throttle reasons")) ||
      (path.empty() && IsSlowdownReasonLabel(label))) {
    // Also the section's lines pasted without its header.
    applied = ApplyReason(label, *value, out);
  } else if (!path.empty() && path[0] == "fabric") {
    applied = ApplyFabricValue(label, *value, out.gpu.fabric);
  } else if (!path.empty() && path[0] == "ecc errors") {
    applied = ApplyEcc(path, label, *value, out);
  } else if (path.size() == 1 && (path[0] == "gpu power readings" || path[0] == "power readings")) {
    applied = ApplyPower(label, *value, out);
  } else {
    std::string key;
    for (const std::string& section : path) {
      key += section;
      key += '>';
    }
    key += label;
    applied = ApplyScalar(key, *value, out);
  }
  if (applied) ++out.recognised;
}

void FinishTextGpu(TextGpu& out) {
  GpuStatus& gpu = out.gpu;
  for (int block = 0; block < 2; ++block) {
    std::optional<std::int64_t> old[2];
    for (int bits = 0; bits < 2; ++bits) {
      old[bits] = out.ecc_old_total[block][bits] ? out.ecc_old_total[block][bits]
                                                 : out.ecc_old_sum[block][bits];
    }
    std::optional<std::int64_t> corrected = AddCounts(out.ecc_corrected[block], old[0]);
    std::optional<std::int64_t> uncorrected = AddCounts(out.ecc_uncorrected[block], old[1]);
    if (block == 0) {
      gpu.ecc_volatile_corrected = corrected;
      gpu.ecc_volatile_uncorrected = uncorrected;
    } else {
      gpu.ecc_aggregate_corrected = corrected;
      gpu.ecc_aggregate_uncorrected = uncorrected;
    }
  }
  if (out.average_power_draw) {
    gpu.power_draw_w = out.average_power_draw;
  } else if (out.power_draw) {
    gpu.power_draw_w = out.power_draw;
  } else {
    gpu.power_draw_w = out.instant_power_draw;
  }
  gpu.power_limit_w = out.current_power_limit ? out.current_power_limit : out.power_limit;
  gpu.clock_event_reasons_mask = out.reasons_mask;
  FinishFabric(gpu.fabric);
  MarkLostFromFailures(gpu);
}

}  // namespace gpudoctor::nvsmi
