// Column names interned to small ids for the process, each with its meaning
// as a sample column resolved once, so per-minute aggregates can be flat
// vectors indexed by id instead of maps keyed by name.
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "store/sample_codec.h"

namespace gpudoctor {

std::size_t ColumnId(std::string_view name);
const std::string& ColumnName(std::size_t id);
const SampleColumn& ColumnMeaning(std::size_t id);
// Ids handed out so far (all below this).
std::size_t ColumnCount();

}  // namespace gpudoctor
