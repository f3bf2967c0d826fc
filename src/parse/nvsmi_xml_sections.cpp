#include "parse/nvsmi_xml_sections.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/clock_reasons.h"
#include "core/recovery_action.h"
#include "parse/nvsmi_fabric.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor::nvsmi {
namespace {

// First available value among several element paths.
template <typename Parse>
auto FirstOf(pugi::xml_node node, std::initializer_list<const char*> paths,
             Parse parse) -> decltype(parse(std::string_view())) {
  for (const char* path : paths) {
    if (auto value = parse(ValueAt(node, path))) return value;
  }
  return std::nullopt;
}

// Adds b to a, keeping null only when both are null; saturates instead of
// overflowing on absurd inputs.
std::optional<std::int64_t> XmlAddCounts(std::optional<std::int64_t> a,
                                         std::optional<std::int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  std::int64_t sum = 0;
  if (__builtin_add_overflow(*a, *b, &sum)) return INT64_MAX;
  return sum;
}

std::optional<std::int64_t> SumChildren(pugi::xml_node node) {
  std::optional<std::int64_t> sum;
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    if (std::string_view(child.name()) == "total") continue;
    sum = XmlAddCounts(sum, ParseInteger(child.child_value()));
  }
  return sum;
}

// One counter block (<volatile> or <aggregate>) in the old schema:
// <single_bit>/<double_bit> with locations and a <total>.
std::optional<std::int64_t> OldSchemaCount(pugi::xml_node bits) {
  if (!bits) return std::nullopt;
  if (auto total = ParseInteger(ValueAt(bits, "total"))) return total;
  return SumChildren(bits);
}

// One counter block in the new schema: flat *_correctable and
// *_uncorrectable* elements.
std::optional<std::int64_t> NewSchemaCount(pugi::xml_node block,
                                           bool corrected) {
  std::optional<std::int64_t> sum;
  for (pugi::xml_node child : block.children()) {
    if (child.type() != pugi::node_element) continue;
    std::string_view name = child.name();
    bool is_unc = name.find("uncorrectable") != std::string_view::npos;
    bool is_corr = !is_unc && name.size() > 12 &&
                   name.substr(name.size() - 12) == "_correctable";
    if ((corrected && is_corr) || (!corrected && is_unc)) {
      sum = XmlAddCounts(sum, ParseInteger(child.child_value()));
    }
  }
  return sum;
}

std::optional<std::int64_t> EccCount(pugi::xml_node block, bool corrected) {
  if (!block) return std::nullopt;
  pugi::xml_node old = block.child(corrected ? "single_bit" : "double_bit");
  if (old) return OldSchemaCount(old);
  return NewSchemaCount(block, corrected);
}

// XML reason element suffix -> gpudoctor reason name.
struct ReasonName {
  std::string_view xml;
  std::string_view name;
};

constexpr std::array<ReasonName, 10> kReasonNames = {{
    {"gpu_idle", "gpu_idle"},
    {"applications_clocks_setting", "applications_clocks_setting"},
    {"user_defined_clocks", "applications_clocks_setting"},
    {"sw_power_cap", "sw_power_cap"},
    {"hw_slowdown", "hw_slowdown"},
    {"sync_boost", "sync_boost"},
    {"sw_thermal_slowdown", "sw_thermal_slowdown"},
    {"hw_thermal_slowdown", "hw_thermal_slowdown"},
    {"hw_power_brake_slowdown", "hw_power_brake_slowdown"},
    {"display_clocks_setting", "display_clock_setting"},
}};

std::uint64_t ReasonBitForElement(std::string_view element) {
  for (std::string_view prefix :
       {"clocks_event_reason_", "clocks_throttle_reason_"}) {
    if (element.substr(0, prefix.size()) != prefix) continue;
    std::string_view suffix = element.substr(prefix.size());
    for (const ReasonName& r : kReasonNames) {
      if (r.xml == suffix) return ClockReasonBit(r.name);
    }
  }
  return 0;
}

}  // namespace

std::string_view ValueAt(pugi::xml_node node, const char* path) {
  pugi::xml_node found = node.first_element_by_path(path);
  return found ? std::string_view(found.child_value()) : std::string_view();
}

void ParseTemperatures(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node t = gpu.child("temperature");
  out.temperature_c = ParseCelsius(ValueAt(t, "gpu_temp"));
  out.memory_temperature_c = ParseCelsius(ValueAt(t, "memory_temp"));
  out.temperature_slowdown_c =
      ParseCelsius(ValueAt(t, "gpu_temp_slow_threshold"));
  out.temperature_shutdown_c =
      ParseCelsius(ValueAt(t, "gpu_temp_max_threshold"));
  out.temperature_max_operating_c =
      ParseCelsius(ValueAt(t, "gpu_temp_max_gpu_threshold"));
  out.temperature_memory_max_c =
      ParseCelsius(ValueAt(t, "gpu_temp_max_mem_threshold"));
}

void ParsePower(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node p = gpu.child("gpu_power_readings");
  if (!p) p = gpu.child("power_readings");
  out.power_draw_w =
      FirstOf(p, {"average_power_draw", "power_draw", "instant_power_draw"},
              ParseWatts);
  out.power_limit_w =
      FirstOf(p, {"current_power_limit", "power_limit"}, ParseWatts);
  out.power_default_limit_w = ParseWatts(ValueAt(p, "default_power_limit"));
  out.power_min_limit_w = ParseWatts(ValueAt(p, "min_power_limit"));
  out.power_max_limit_w = ParseWatts(ValueAt(p, "max_power_limit"));
  out.power_enforced_limit_w = ParseWatts(ValueAt(p, "enforced_power_limit"));

  auto power_cap_us =
      ParseMicroseconds(ValueAt(gpu,
                                "clocks_event_reasons_counters/"
                                "clocks_event_reasons_counters_sw_power_cap"));
  if (power_cap_us && *power_cap_us >= 0 && *power_cap_us <= INT64_MAX / 1000) {
    out.violation_power_ns = *power_cap_us * 1000;
  }
}

void ParseClocks(pugi::xml_node gpu, GpuStatus& out) {
  out.clocks_graphics_mhz =
      ParseMegahertz(ValueAt(gpu, "clocks/graphics_clock"));
  out.clocks_sm_mhz = ParseMegahertz(ValueAt(gpu, "clocks/sm_clock"));
  out.clocks_memory_mhz = ParseMegahertz(ValueAt(gpu, "clocks/mem_clock"));
  out.clocks_max_graphics_mhz =
      ParseMegahertz(ValueAt(gpu, "max_clocks/graphics_clock"));
  out.clocks_max_sm_mhz = ParseMegahertz(ValueAt(gpu, "max_clocks/sm_clock"));
  out.clocks_max_memory_mhz =
      ParseMegahertz(ValueAt(gpu, "max_clocks/mem_clock"));
  out.clocks_applications_graphics_mhz =
      ParseMegahertz(ValueAt(gpu, "applications_clocks/graphics_clock"));
  out.clocks_applications_memory_mhz =
      ParseMegahertz(ValueAt(gpu, "applications_clocks/mem_clock"));
  out.clocks_default_applications_graphics_mhz = ParseMegahertz(
      ValueAt(gpu, "default_applications_clocks/graphics_clock"));
  out.clocks_default_applications_memory_mhz =
      ParseMegahertz(ValueAt(gpu, "default_applications_clocks/mem_clock"));
  out.pstate = ParsePstate(ValueAt(gpu, "performance_state"));
}

void ParseClockEventReasons(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node block = gpu.child("clocks_event_reasons");
  if (!block) block = gpu.child("clocks_throttle_reasons");
  if (!block) return;
  std::optional<std::uint64_t> mask;
  for (pugi::xml_node child : block.children()) {
    if (child.type() != pugi::node_element) continue;
    std::uint64_t bit = ReasonBitForElement(child.name());
    auto active = ParseActive(child.child_value());
    if (bit == 0 || !active) continue;
    mask = mask.value_or(0) | (*active ? bit : 0);
  }
  out.clock_event_reasons_mask = mask;
}

void ParseEcc(pugi::xml_node gpu, GpuStatus& out) {
  out.ecc_mode_enabled = ParseEnabled(ValueAt(gpu, "ecc_mode/current_ecc"));
  out.ecc_mode_pending = ParseEnabled(ValueAt(gpu, "ecc_mode/pending_ecc"));
  pugi::xml_node errors = gpu.child("ecc_errors");
  pugi::xml_node vol = errors.child("volatile");
  pugi::xml_node agg = errors.child("aggregate");
  out.ecc_volatile_corrected = EccCount(vol, true);
  out.ecc_volatile_uncorrected = EccCount(vol, false);
  out.ecc_aggregate_corrected = EccCount(agg, true);
  out.ecc_aggregate_uncorrected = EccCount(agg, false);
}

void ParseRetiredAndRemapped(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node r = gpu.child("retired_pages");
  out.retired_pages_sbe =
      ParseInteger(ValueAt(r, "multiple_single_bit_retirement/retired_count"));
  out.retired_pages_dbe =
      ParseInteger(ValueAt(r, "double_bit_retirement/retired_count"));
  out.retired_pages_pending =
      FirstOf(r, {"pending_retirement", "pending_blacklist"}, ParseYesNo);

  // "<remapped_rows>N/A</remapped_rows>" has no children: all stay null.
  pugi::xml_node m = gpu.child("remapped_rows");
  out.remapped_rows_corrected = ParseInteger(ValueAt(m, "remapped_row_corr"));
  out.remapped_rows_uncorrected = ParseInteger(ValueAt(m, "remapped_row_unc"));
  out.remapped_rows_pending = ParseYesNo(ValueAt(m, "remapped_row_pending"));
  out.remapped_rows_failure = ParseYesNo(ValueAt(m, "remapped_row_failure"));
  // R570+: what the driver says it takes to bring the GPU back.
  out.recovery_action = ParseNvmlRecoveryActionText(Trim(gpu.child_value("gpu_recovery_action")));
}

void ParseFabric(pugi::xml_node gpu, GpuStatus& out) {
  pugi::xml_node fabric = gpu.child("fabric");
  auto apply = [&out](pugi::xml_node parent) {
    for (pugi::xml_node n = parent.first_child(); n; n = n.next_sibling()) {
      if (n.type() != pugi::node_element || n.first_child().type() != pugi::node_pcdata) continue;
      std::string key = n.name();
      for (char& c : key) c = c == '_' ? ' ' : c;
      ApplyFabricValue(key, n.child_value(), out.fabric);
    }
  };
  apply(fabric);
  apply(fabric.child("health"));
  FinishFabric(out.fabric);
}

}  // namespace gpudoctor::nvsmi
