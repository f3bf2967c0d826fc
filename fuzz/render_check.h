// What the renderers make of fuzzed input: JSON that is valid UTF-8 and
// parses back, whatever bytes the input held (each invalid sequence U+FFFD,
// src/core/utf8.h), written the one way every command writes JSON
// (src/core/json_dump.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/json_dump.h"
#include "core/utf8.h"
#include "fuzz_check.h"

namespace gpudoctor::fuzz {

template <typename Json>
void CheckRendersAsUtf8Json(const Json& doc) {
  for (int indent : {-1, 2}) {
    const std::string text = DumpJson(doc, indent);
    FUZZ_CHECK(IsValidUtf8(text));
    FUZZ_CHECK(nlohmann::json::accept(text));
  }
}

}  // namespace gpudoctor::fuzz
