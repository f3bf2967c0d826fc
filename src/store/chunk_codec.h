// A compact, self-describing encoding of a set of time-ordered columns: the
// samples of one GPU over a few minutes, or its per-minute roll-ups. Pure:
// no I/O.
//
// Layout (before zlib): version, row count, timestamps as delta-of-delta
// zigzag varints, then per column its name, type, presence runs (alternating
// absent/present run lengths) and the present values:
//   int   runs of (zigzag delta from the previous run's value, length)
//   real  as int runs scaled by 10^k when every value is exactly a k-decimal
//         number (k <= 6), otherwise XOR with the previous value's bits
//   text  runs of (string, length)
// Columns are named, so a field added later does not disturb older chunks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/result.h"

namespace gpudoctor {

enum class ColumnType : std::uint8_t { kInt = 0, kReal = 1, kText = 2 };

// One column over the set's rows: `present[i]` says whether row i has a
// value; the values of the present rows are in order in the vector of the
// column's type.
struct Column {
  std::string name;
  ColumnType type = ColumnType::kInt;
  std::vector<bool> present;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  std::vector<std::string> texts;
};

struct ColumnSet {
  std::vector<std::int64_t> times_ms;  // one per row, ascending
  std::vector<Column> columns;         // every column has times_ms.size() rows
};

// One value of a row while building a set.
using Cell = std::variant<std::int64_t, double, std::string>;

struct NamedCell {
  std::string name;
  Cell value;
};

// Builds a ColumnSet row by row; a column first seen later is absent in the
// earlier rows. A cell whose type differs from its column's is stored as the
// column's type (ints and reals convert; text into a numeric column is
// dropped).
class ColumnSetBuilder {
 public:
  void AddRow(std::int64_t time_ms, const std::vector<NamedCell>& cells);
  ColumnSet Take();
  std::size_t rows() const { return set_.times_ms.size(); }

 private:
  Column& ColumnFor(std::string_view name, ColumnType type);
  ColumnSet set_;
  std::map<std::string, std::size_t, std::less<>> index_;  // name -> column
  std::size_t hint_ = 0;  // rows usually list columns in the same order
};

// Reads a set row by row, first to last.
class ColumnSetReader {
 public:
  explicit ColumnSetReader(const ColumnSet& set);
  // Calls f(column_index, cell) for each present cell of the next row.
  template <typename F>
  void NextRow(F&& f) {
    for (std::size_t c = 0; c < set_.columns.size(); ++c) {
      const Column& col = set_.columns[c];
      if (!col.present[row_]) continue;
      std::size_t& k = cursor_[c];
      switch (col.type) {
        case ColumnType::kInt:
          f(c, Cell(col.ints[k++]));
          break;
        case ColumnType::kReal:
          f(c, Cell(col.reals[k++]));
          break;
        case ColumnType::kText:
          f(c, Cell(col.texts[k++]));
          break;
      }
    }
    ++row_;
  }

 private:
  const ColumnSet& set_;
  std::vector<std::size_t> cursor_;
  std::size_t row_ = 0;
};

// The encoded set, zlib-compressed at zlib_level (1 fast .. 9 small; 0
// none) when that is smaller. Fails only on a set whose columns disagree
// with times_ms (kInvalid).
Result<std::string> EncodeColumnSet(const ColumnSet& set, int zlib_level = 9);
// The same bytes as EncodeColumnSet of a one-row set built from `cells` with
// ColumnSetBuilder, without building the set (the agent encodes a row per
// GPU every second). The cells' names must be distinct, as StatusToCells's
// are; a repeated name would be kept as a second column.
std::string EncodeRow(std::int64_t time_ms, const std::vector<NamedCell>& cells,
                      int zlib_level);
// Decodes EncodeColumnSet's output; any malformed input is kCorrupt.
Result<ColumnSet> DecodeColumnSet(std::string_view blob);

}  // namespace gpudoctor
