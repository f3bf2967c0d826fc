// Helpers for rule tests: a healthy GPU reading to start from, inputs built
// from readings, and running one rule through the engine.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/engine.h"
#include "rules/engine/rule.h"

namespace gpudoctor::testing {

// A healthy, busy H100-like reading: 75 % utilisation, 40 of 80 GiB used,
// 60 °C (slowdown 87, shutdown 92), 400 of 700 W, P0, no throttle reason,
// persistence on, ECC on with no errors, PCIe Gen5 x16 of Gen5 x16, bus
// "0000:<index+0x18 in hex>:00.0", uuid "GPU-0000...<index>".
GpuStatus HealthyGpu(unsigned index);

// An input with one system reading per element of `readings` (each a list of
// GPUs), one second apart starting at 2026-01-01T00:00:00Z. nvml_loaded.
DiagnosisInput InputFromReadings(const std::vector<std::vector<GpuStatus>>& readings);

// `count` identical readings of `gpus`.
DiagnosisInput RepeatedReadings(const std::vector<GpuStatus>& gpus, std::size_t count);

// Runs only `rule` (through the engine, so its needs are checked). Adds a
// test failure for any finding whose Chinese text is missing or still
// English (support/zh_check.h), or that lacks evidence, or actions when it
// is a warning or critical.
Diagnosis RunRule(const Rule& rule, const DiagnosisInput& input);

inline bool HasFinding(const Diagnosis& d, const std::string& id) {
  return std::any_of(d.findings.begin(), d.findings.end(),
                     [&](const Finding& f) { return f.id == id; });
}

inline const Finding* FindingFor(const Diagnosis& d, const std::string& id) {
  for (const auto& f : d.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// A kernel event for tests.
KernelEvent MakeEvent(KernelEventKind kind, std::optional<int> code, const std::string& bus_id,
                      const std::string& message, std::optional<WallTime> time = std::nullopt);

// 2026-01-01T00:00:00Z plus `seconds`.
WallTime TestTime(double seconds);

}  // namespace gpudoctor::testing
