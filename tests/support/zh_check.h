// Checks that the Chinese side of a finding is really Chinese: every title,
// explanation and action has CJK text and no run of two or more lowercase
// English words (outside `backquotes`); evidence without a log line is not
// left identical to its English. Used by RunRule on every finding a rule
// test produces, so every firing case of every rule is checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/engine/finding.h"

namespace gpudoctor::testing {

// Runs of >= 2 lowercase English words in `zh` (backquoted parts skipped).
std::vector<std::string> EnglishRuns(std::string_view zh);
bool HasCjk(std::string_view text);

// Problems found in a finding's texts, one line each; empty when fine.
std::vector<std::string> ChineseTextProblems(const Finding& finding);
std::vector<std::string> ChineseTextProblems(const NotChecked& not_checked);

}  // namespace gpudoctor::testing
