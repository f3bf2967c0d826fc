// Helpers for the kernel-log event rule tests: inputs built from events, Xid
// events, and the Chinese-text check over a whole diagnosis.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/rule_testing.h"
#include "support/zh_check.h"

namespace gpudoctor::testing {

// `input` (readings, versions...) plus a kernel log holding `events`.
inline DiagnosisInput WithEvents(std::vector<KernelEvent> events, DiagnosisInput input = {}) {
  input.kernel = KernelFacts{};
  input.kernel->events = std::move(events);
  return input;
}

inline KernelEvent XidEvent(int code, const std::string& bus, const std::string& message,
                            std::optional<WallTime> time = std::nullopt) {
  return MakeEvent(KernelEventKind::kXid, code, bus, message, time);
}

// One InfiniBand port (port 1, ACTIVE) of RDMA device `device` next to GPU
// `gpu`, read at TestTime(`at`) with its link_downed counter at `downs`.
inline RdmaFacts IbPortReading(const std::string& device, const std::string& gpu, double at,
                               std::uint64_t downs) {
  RdmaPort p;
  p.port = 1;
  p.state = IbPortState{4, "ACTIVE"};
  p.active = true;
  p.link_layer = "InfiniBand";
  p.counters = {RdmaCounter{"link_downed", false, downs}};
  RdmaDevice d;
  d.name = device;
  d.nearest_gpus = {gpu};
  d.ports = {p};
  RdmaFacts f;
  f.devices = {d};
  f.read_at = TestTime(at);
  return f;
}

// The shared Chinese-text check (support/zh_check.h) over a whole
// diagnosis, for tests that run several rules at once.
inline void ExpectBilingual(const Diagnosis& d) {
  for (const Finding& f : d.findings) {
    for (const auto& problem : ChineseTextProblems(f)) ADD_FAILURE() << problem;
  }
  for (const auto& n : d.not_checked) {
    for (const auto& problem : ChineseTextProblems(n)) ADD_FAILURE() << problem;
  }
}

}  // namespace gpudoctor::testing
