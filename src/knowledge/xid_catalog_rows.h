// Internal: the raw rows of the Xid catalog (xid_catalog_table.cpp) and the
// per-code action texts (xid_catalog_actions.cpp). Use xid_catalog.h instead.
#pragma once

#include <cstddef>

#include "knowledge/xid_catalog.h"

namespace gpudoctor::xid_rows {

enum Flag { kCatalog = 0, kUnused = 1, kSourceOnly = 2 };

struct Row {
  int code;
  const char* mnemonic;
  const char* meaning;
  XidCategory category;
  XidResolution immediate;
  const char* investigatory;
  Flag flag;
};

struct Action {
  int code;
  const char* en;
  const char* zh;
};

extern const Row kRows[];
extern const std::size_t kRowCount;
extern const Action kActions[];
extern const std::size_t kActionCount;

}  // namespace gpudoctor::xid_rows
