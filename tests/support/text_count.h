// Counting a substring in a document (HTML, SVG) for tests.
#pragma once

#include <cstddef>
#include <string>

namespace gpudoctor::test {

// Non-overlapping occurrences of `needle` in `text`.
inline std::size_t CountOf(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size()))
    ++n;
  return n;
}

}  // namespace gpudoctor::test
