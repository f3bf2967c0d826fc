// Helpers shared by the fuzz targets: the input as text, and FUZZ_CHECK, which
// aborts (libFuzzer then saves the input as a crash) when a parser breaks
// its contract without crashing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace gpudoctor::fuzz {

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An error message is one line that names its source.
inline bool IsOneLineNaming(std::string_view message, std::string_view source) {
  return message.starts_with(source) && message.find('\n') == std::string_view::npos;
}

}  // namespace gpudoctor::fuzz
