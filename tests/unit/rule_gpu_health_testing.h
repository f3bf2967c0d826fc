// Helper for the GPU health rule tests: an input from one nvidia-smi -q
// capture in ../shared/fixtures/text. (RunRule already checks every
// finding's Chinese text.)
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "facts/diagnosis_input.h"
#include "parse/nvsmi_text.h"
#include "support/fixtures.h"

namespace gpudoctor::testing {

// One reading of the capture; nullopt when the shared fixtures are absent.
inline std::optional<DiagnosisInput> InputFromTextFixture(const std::string& name) {
  std::string text = test::ReadFixtureFile("text", name);
  if (text.empty()) return std::nullopt;
  Result<SystemStatus> status = ParseNvidiaSmiText(text, name);
  EXPECT_TRUE(status.ok()) << status.error().message;
  DiagnosisInput input;
  if (status.ok()) AddReading(input, *status, std::nullopt);
  return input;
}

}  // namespace gpudoctor::testing
