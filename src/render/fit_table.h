// A text table that fits the terminal: columns are dropped, least important
// first, and one column may shrink (its cells cut with "~"), until the lines
// are no wider than the terminal. Without a width (not a terminal, or
// --wide) every column is shown in full.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct FitColumn {
  std::string header;
  bool align_right = false;
  // When the table is too wide, columns give way in priority order, lowest
  // first: dropped, or shrunk when min_width is set. 0: never touched.
  int priority = 0;
  // A column that shrinks down to this many columns (its cells cut with "~")
  // instead of being dropped; 0: it is dropped. A shrinking column's cells
  // should be plain text.
  std::size_t min_width = 0;
};

struct FitResult {
  std::string text;                  // header and rows, each line ending in '\n'
  std::vector<std::string> dropped;  // headers of the columns left out
};

// `rows[i]` has one cell per column. Two spaces separate the columns.
FitResult FitTable(const std::vector<FitColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                   std::optional<std::size_t> width, bool bold_header);

}  // namespace gpudoctor
