// The measurements of a stress run as tables, one per test that ran, for
// the text, Markdown and HTML reports: pcie per GPU, the p2p matrix and each
// pair's expectation, hbm, memory and power per GPU, and CUDA errors. Cells
// are plain text in the report's language; a cell below its expectation
// (the threshold the stress.* rule uses) is marked. Pure: input in, tables out.
#pragma once

#include <string>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

struct ActiveCell {
  std::string text;
  bool below = false;  // below its expectation (a finding's threshold)
};

struct ActiveTable {
  std::string id;     // "pcie", "p2p", "p2p_paths", "hbm", "memory", "power", "cuda_errors"
  std::string title;
  std::vector<std::string> headings;
  std::vector<std::vector<ActiveCell>> rows;
  std::string note;   // what the numbers are measured against; may be empty
};

// The mark a below cell carries in text and Markdown.
inline constexpr const char* kActiveBelowMark = "▼";

// "Measurements (hbm, power; ran 12.3 s)" with ", interrupted" when stopped.
std::string ActiveRunHeading(const DiagnosisInput& input, Lang lang);

// The tables, in the order the tests are listed in a report.
std::vector<ActiveTable> ActiveRunTables(const DiagnosisInput& input, Lang lang);

}  // namespace gpudoctor
