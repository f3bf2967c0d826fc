// Helpers for the GPU health rule tests: an input from one nvidia-smi -q
// capture in ../shared/fixtures/text, and a check that a rule's Chinese texts
// carry no English phrase.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <string>

#include "parse/nvsmi_text.h"
#include "rules/diagnosis_input.h"
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

// True when `zh` has two or more lowercase English words in a row outside
// `backquotes`.
inline bool HasEnglishPhrase(const std::string& zh) {
  std::string outside;
  bool quoted = false;
  for (char c : zh) {
    if (c == '`') {
      quoted = !quoted;
      outside += ' ';
    } else if (!quoted) {
      outside += c;
    }
  }
  static const std::regex kPhrase("[a-z]+[ \\-]+[a-z]+");
  return std::regex_search(outside, kPhrase);
}

inline void ExpectChineseTexts(const Finding& f) {
  std::vector<const Text*> texts{&f.title, &f.explanation};
  for (const auto& e : f.evidence) texts.push_back(&e.text);
  for (const auto& a : f.actions) texts.push_back(&a.text);
  for (const Text* t : texts) {
    EXPECT_FALSE(t->en.empty());
    EXPECT_FALSE(t->zh.empty());
    EXPECT_FALSE(HasEnglishPhrase(t->zh)) << f.id << ": " << t->zh;
  }
}

}  // namespace gpudoctor::testing
