// "metrics" and "faults" of a JSON scenario GPU.
#include <cmath>

#include "fake_scenario_json.h"

namespace fake {
namespace {

using nlohmann::json;

Timeline ParseTimeline(const json& spec, const std::string& where) {
  CheckKeys(spec, where, {"values", "period_s", "ramp", "steps"});
  Timeline t;
  int kinds =
      spec.contains("values") + spec.contains("ramp") + spec.contains("steps");
  if (kinds != 1) Fail(where, "needs exactly one of values, ramp, steps");
  if (spec.contains("period_s") && !spec.contains("values")) {
    Fail(where, "period_s goes with values");
  }
  if (spec.contains("values")) {
    t.kind = Timeline::Kind::kValues;
    const json& values = spec["values"];
    if (!values.is_array() || values.empty())
      Fail(where, "values must be a non-empty list");
    for (const json& v : values)
      t.values.push_back(Number(v, where + ".values"));
    t.period_s =
        spec.contains("period_s") ? Number(spec["period_s"], where) : 1.0;
    if (t.period_s <= 0) Fail(where, "period_s must be > 0");
  } else if (spec.contains("ramp")) {
    t.kind = Timeline::Kind::kRamp;
    const json& ramp = spec["ramp"];
    if (!ramp.is_array() || ramp.size() != 3)
      Fail(where, "ramp is [from, to, seconds]");
    t.from = Number(ramp[0], where + ".ramp");
    t.to = Number(ramp[1], where + ".ramp");
    t.seconds = Number(ramp[2], where + ".ramp");
  } else {
    t.kind = Timeline::Kind::kSteps;
    const json& steps = spec["steps"];
    if (!steps.is_array()) Fail(where, "steps is [[at_s, value], ...]");
    for (const json& step : steps) {
      if (!step.is_array() || step.size() != 2)
        Fail(where, "a step is [at_s, value]");
      t.steps.emplace_back(Number(step[0], where), Number(step[1], where));
    }
  }
  return t;
}

FaultKind ParseKind(const json& kind, const std::string& where) {
  std::string name = kind.is_string() ? kind.get<std::string>() : "";
  if (name == "lost") return FaultKind::kLost;
  if (name == "hang") return FaultKind::kHang;
  if (name == "xid") return FaultKind::kXid;
  if (name == "slow") return FaultKind::kSlow;
  if (name == "error") return FaultKind::kError;
  if (name == "link_down") return FaultKind::kLinkDown;
  Fail(where, "unknown fault kind " + kind.dump());
}

Fault ParseFault(const json& spec, const std::string& where) {
  CheckKeys(spec, where,
            {"kind", "at_s", "code", "delay_ms", "field", "error",
             "keeps_pci_info", "link"});
  if (!spec.contains("kind")) Fail(where, "needs a kind");
  Fault f;
  f.kind = ParseKind(spec["kind"], where + ".kind");
  f.at_s = spec.contains("at_s") ? Number(spec["at_s"], where + ".at_s") : 0;
  auto require = [&](const char* key, FaultKind only) {
    if (spec.contains(key) != (f.kind == only)) {
      Fail(where,
           std::string(key) +
               (f.kind == only ? " is required" : " does not belong here"));
    }
  };
  require("code", FaultKind::kXid);
  require("delay_ms", FaultKind::kSlow);
  require("field", FaultKind::kError);
  require("error", FaultKind::kError);
  require("link", FaultKind::kLinkDown);
  if (spec.contains("keeps_pci_info")) {
    if (f.kind != FaultKind::kLost) Fail(where, "keeps_pci_info does not belong here");
    if (!spec["keeps_pci_info"].is_boolean()) Fail(where, "keeps_pci_info must be true or false");
    f.keeps_pci_info = spec["keeps_pci_info"].get<bool>();
  }
  if (f.kind == FaultKind::kXid) {
    f.xid =
        static_cast<unsigned long long>(Number(spec["code"], where + ".code"));
  } else if (f.kind == FaultKind::kSlow) {
    f.delay_ms =
        static_cast<int>(Number(spec["delay_ms"], where + ".delay_ms"));
  } else if (f.kind == FaultKind::kLinkDown) {
    f.link = static_cast<unsigned>(Number(spec["link"], where + ".link"));
  } else if (f.kind == FaultKind::kError) {
    f.field = spec["field"].get<std::string>();
    if (!IsFaultableField(f.field))
      Fail(where, "unknown field '" + f.field + "'");
    std::string name = spec["error"].get<std::string>();
    auto code = ReturnCodeByName(name);
    if (!code || *code == NVML_SUCCESS)
      Fail(where, "unknown error '" + name + "'");
    f.error = *code;
  }
  return f;
}

}  // namespace

void ApplyMetricsJson(const json& metrics, const std::string& where,
                      FakeGpu& gpu) {
  if (!metrics.is_object()) Fail(where, "must be an object");
  for (const auto& [name, spec] : metrics.items()) {
    if (!IsMetricField(name)) {
      throw ScenarioError{"unknown key '" + where + "." + name +
                          "' (not a numeric field)"};
    }
    gpu.metrics[name] = ParseTimeline(spec, where + "." + name);
  }
}

void ApplyFaultsJson(const json& faults, const std::string& where,
                     FakeGpu& gpu) {
  if (!faults.is_array()) Fail(where, "must be a list");
  for (std::size_t i = 0; i < faults.size(); ++i) {
    gpu.faults.push_back(
        ParseFault(faults[i], where + "[" + std::to_string(i) + "]"));
  }
}

void ApplyUnderLoadJson(const json& under_load, const std::string& where,
                        FakeGpu& gpu) {
  if (!under_load.is_object()) Fail(where, "must be an object");
  CheckKeys(under_load, where, {"metrics", "faults"});
  FakeGpu parsed;
  if (under_load.contains("metrics")) {
    ApplyMetricsJson(under_load["metrics"], where + ".metrics", parsed);
  }
  if (under_load.contains("faults")) {
    ApplyFaultsJson(under_load["faults"], where + ".faults", parsed);
  }
  gpu.load_metrics = std::move(parsed.metrics);
  gpu.load_faults = std::move(parsed.faults);
}

}  // namespace fake
