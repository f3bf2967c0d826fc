// Small pure helpers for the line- and word-oriented text of /proc and /sys:
// splitting, trimming, and strict number parsing (no locale, no exceptions).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gpudoctor {

std::string_view Trim(std::string_view text);
// Lines without their '\n'; a trailing newline adds no empty line.
std::vector<std::string_view> SplitLines(std::string_view text);
// Runs of non-blank characters.
std::vector<std::string_view> SplitWords(std::string_view text);
// Every piece between separators, empty pieces kept.
std::vector<std::string_view> Split(std::string_view text, char separator);

// Whole-string parses after trimming; std::nullopt on anything else.
std::optional<std::uint64_t> ParseUnsigned(std::string_view text);
std::optional<std::int64_t> ParseSigned(std::string_view text);
std::optional<double> ParseDouble(std::string_view text);
// "0x10de" or "10de" (hex), trimmed.
std::optional<std::uint64_t> ParseHex(std::string_view text);

}  // namespace gpudoctor
