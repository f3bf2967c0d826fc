// Helpers for the kernel-log event rule tests: inputs built from events, Xid
// events, and the Chinese-text check over a whole diagnosis.
#pragma once

#include <gtest/gtest.h>

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
